import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { type AttemptStore, SignInAttempts } from './attempts.js';
import { createDummyHash, HashingBusy, verifyPassword } from './password.js';
import type { NewSession } from './secrets.js';
import type { SessionAccounts } from './ports.js';

/** What a sign-in came to. */
export type SignInResult =
  | { kind: 'signed-in'; session: NewSession }
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
  breakGlassOnly = false,
  attempts: store,
}: {
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  firstWorkspace: (userId: string) => string | undefined;
  openSession: (userId: string, workspaceId: string) => NewSession;
  /** OIDC_ONLY=true: only break-glass accounts sign in with a password (any other is refused as a wrong password is). */
  breakGlassOnly?: boolean;
  /** Where attempts are counted (the database's table; memory when absent). */
  attempts?: AttemptStore;
}) {
  const attempts = new SignInAttempts(clock, undefined, store);
  const dummy = createDummyHash();

  return {
    /** Makes the hash an unknown email is checked against now, so the first sign-in costs what every other does. */
    prepareSignIn: (): Promise<string> => dummy.start(),
    /** Whether that hash is made (tests). */
    signInPrepared: (): boolean => dummy.ready(),

    /**
     * Checks an email and password from a client address; a session in the account's first
     * workspace when they match and it is a member somewhere.
     */
    async signIn(input: { email: string; password: string; address: string }): Promise<SignInResult> {
      const email = input.email.trim();
      const counted = attempts.begin(email, input.address);
      if ('retryAfterSec' in counted) return { kind: 'limited', retryAfterSec: counted.retryAfterSec };
      const user = accounts.credentials(email);
      let matches: boolean;
      try {
        matches = await verifyPassword(input.password, user?.passwordHash ?? (await dummy.get()));
      } catch (error) {
        if (!(error instanceof HashingBusy)) throw error;
        attempts.refund(counted.ticket);
        return { kind: 'busy', retryAfterSec: error.retryAfterSec };
      }
      const allowed = user !== undefined && (!breakGlassOnly || user.breakGlass);
      const workspaceId = user && allowed && user.passwordHash !== null && matches ? firstWorkspace(user.id) : undefined;
      if (!user || workspaceId === undefined) return { kind: 'refused' };
      attempts.succeeded(counted.ticket);
      return { kind: 'signed-in', session: write(() => openSession(user.id, workspaceId)) };
    },
  };
}
