import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { type AttemptStore, SignInAttempts } from './attempts.js';
import { createDummyHash, type HashCost, HashingBusy, verifyPassword } from './password.js';
import type { NewSession } from './secrets.js';
import type { SessionAccounts } from './ports.js';

/** What a sign-in came to. */
export type SignInResult =
  | { kind: 'signed-in'; session: NewSession }
  /** The password matched an account that belongs to no workspace: a session that only sees and accepts its invitations (issue 44). */
  | { kind: 'lobby'; session: NewSession }
  /**
   * The password matched an account in no workspace whose address nobody proved (issue 54, N1):
   * no lobby; a link to confirm the address was mailed to it (`mailed`), or mail is off.
   */
  | { kind: 'unconfirmed'; email: string; mailed: boolean }
  | { kind: 'refused' }
  /** A budget is spent (429): too many attempts at this account, from this address, or both. */
  | { kind: 'limited'; retryAfterSec: number }
  /** Too many password checks at once (503): nothing was checked or counted. */
  | { kind: 'busy'; retryAfterSec: number };

/**
 * Sign-in with email and password (part of the sessions service): the attempt is counted
 * against its budgets before the password is hashed (refunded when it succeeds), the hash
 * takes a turn among a few at once, and an unknown email costs what a wrong password costs.
 */
export function createSignIn({
  accounts,
  clock,
  write,
  firstWorkspace,
  openSession,
  openLobby,
  mailConfirmation,
  breakGlassOnly = false,
  attempts: store,
  passwordCost,
}: {
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  firstWorkspace: (userId: string) => string | undefined;
  openSession: (userId: string, workspaceId: string) => NewSession;
  /** Inside a write: a session of an account in no workspace (its invitations only). */
  openLobby: (userId: string) => NewSession;
  /** Inside a write: mails the link that confirms an unproved address (./mail-links.ts); whether it went. */
  mailConfirmation: (userId: string) => boolean;
  /** OIDC_ONLY=true: only break-glass accounts sign in with a password (any other is refused as a wrong password is). */
  breakGlassOnly?: boolean;
  /** Where attempts are counted (the database's table; memory when absent). */
  attempts?: AttemptStore;
  /** scrypt's cost for new passwords (the sessions service's). */
  passwordCost: HashCost;
}) {
  const attempts = new SignInAttempts(clock, undefined, store);
  const dummy = createDummyHash(passwordCost);

  /**
   * The account of an email whose password matches, counted against the sign-in budgets; or
   * what to answer instead. Under OIDC_ONLY only break-glass accounts pass.
   */
  const checked = async (
    email: string,
    password: string,
    address: string,
  ): Promise<{ user: { id: string } } | Exclude<SignInResult, { kind: 'signed-in' | 'lobby' | 'unconfirmed' }>> => {
    const counted = attempts.begin(email, address);
    if ('retryAfterSec' in counted) return { kind: 'limited', retryAfterSec: counted.retryAfterSec };
    const user = accounts.credentials(email);
    let matches: boolean;
    try {
      matches = await verifyPassword(password, user?.passwordHash ?? (await dummy.get()));
    } catch (error) {
      if (!(error instanceof HashingBusy)) throw error;
      attempts.refund(counted.ticket);
      return { kind: 'busy', retryAfterSec: error.retryAfterSec };
    }
    const allowed = user !== undefined && (!breakGlassOnly || user.breakGlass);
    if (!user || !allowed || user.passwordHash === null || !matches) return { kind: 'refused' };
    attempts.succeeded(counted.ticket);
    return { user };
  };

  return {
    /** Makes the hash an unknown email is checked against now, so the first sign-in costs what every other does. */
    prepareSignIn: (): Promise<string> => dummy.start(),
    /** Whether that hash is made (tests). */
    signInPrepared: (): boolean => dummy.ready(),

    /**
     * Checks an email and password from a client address; a session in the account's first
     * workspace when they match, or, when it is a member nowhere, a lobby session that sees and
     * accepts its invitations (issue 44: a person removed from their last workspace, or made by
     * `timetrack user create`, could never join one otherwise).
     */
    async signIn(input: { email: string; password: string; address: string }): Promise<SignInResult> {
      const found = await checked(input.email.trim(), input.password, input.address);
      if (!('user' in found)) return found;
      const { user } = found;
      const workspaceId = firstWorkspace(user.id);
      if (workspaceId === undefined) {
        // A lobby accepts invitations without their links: only for an address proved to be the account's (N1).
        if (accounts.emailProved(user.id)) return { kind: 'lobby', session: write(() => openLobby(user.id)) };
        const email = accounts.userOf(user.id)?.email ?? input.email.trim();
        return { kind: 'unconfirmed', email, mailed: write(() => mailConfirmation(user.id)) };
      }
      return { kind: 'signed-in', session: write(() => openSession(user.id, workspaceId)) };
    },

    /**
     * The sign-in on an invitation link's page (issue 54, N1): the link is the proof of the
     * address, the password the proof of the account. When the password is the invited
     * account's, the invitation is accepted and a session opens in its workspace, in one write;
     * counted as any sign-in. `gone`: the link no longer works.
     */
    async signInByInvitation(input: {
      linkSecret: string;
      password: string;
      address: string;
    }): Promise<
      | { kind: 'joined'; session: NewSession; workspaceId: string }
      | { kind: 'gone' }
      | Exclude<SignInResult, { kind: 'signed-in' | 'lobby' | 'unconfirmed' }>
    > {
      const invited = accounts.invitedAccount(input.linkSecret);
      const email = invited === null ? '' : (accounts.userOf(invited)?.email ?? '');
      if (email === '') return { kind: 'gone' };
      const found = await checked(email, input.password, input.address);
      if (!('user' in found)) return found;
      const { user } = found;
      return write(() => {
        const { workspaceId } = accounts.acceptInvitationByLink(user.id, input.linkSecret);
        return { kind: 'joined' as const, session: openSession(user.id, workspaceId), workspaceId };
      });
    },
  };
}
