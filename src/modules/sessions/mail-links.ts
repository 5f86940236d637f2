import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { type AttemptStore, SignInAttempts } from './attempts.js';
import { checkPassword, type HashCost, hashPassword } from './password.js';
import type { SessionAccounts, SessionMail } from './ports.js';
import type { SessionsRepository } from './repository.js';
import { type NewSession, secret, sha256 } from './secrets.js';

/** A reset link works this long, once. */
export const RESET_LINK_MS = 3_600_000;
/** An email change's confirmation link works this long, once. */
export const EMAIL_CHANGE_MS = 24 * 3_600_000;
/**
 * "Forgot your password?" requests in 15 minutes, counted like sign-ins (src/modules/sessions/
 * attempts.ts) but never refunded, each a mail: 3 per address typed and client address, 5 per
 * address typed from anywhere (so no mailbox is flooded), 20 per client address.
 */
export const RESET_BUDGETS = { perAccountAndAddress: 3, perAccount: 5, perAddress: 20 } as const;

/** What a mailed link's page shows: valid (with whom it is for), or why it no longer works. */
export type LinkState<T> = ({ state: 'valid' } & T) | { state: LinkGone };
/** Why a mailed link does not work; `password-off`: OIDC_ONLY=true and the account is no break-glass owner (M1). */
export type LinkGone = 'used' | 'expired' | 'unknown' | 'no-workspace' | 'password-off';

/**
 * The links the sessions module mails (part of its service): a password reset ("Forgot your
 * password?", valid an hour, used once; setting the password ends every session) and the
 * confirmation of a new sign-in email (sent to the new address; the change takes effect when it
 * is opened, decisions §8a). Only hashes of their secrets are stored.
 */
export function createMailLinks({
  repo,
  accounts,
  clock,
  write,
  mail,
  openSession,
  openLobby,
  firstWorkspace,
  breakGlassOnly = false,
  attempts: store,
  passwordCost,
}: {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  mail: SessionMail;
  openSession: (userId: string, workspaceId: string) => NewSession;
  /** Inside a write: a lobby of an account in no workspace (its invitations only: issue 44). */
  openLobby: (userId: string) => NewSession;
  firstWorkspace: (userId: string) => string | undefined;
  /** OIDC_ONLY=true: passwords are only break-glass owners', so only they reset one (M1); anyone else is answered alike and mailed nothing. */
  breakGlassOnly?: boolean;
  /** Where reset requests are counted (the database's table; memory when absent). */
  attempts?: AttemptStore;
  /** scrypt's cost for new passwords (the sessions service's). */
  passwordCost: HashCost;
}) {
  /** Whether the account may have a password set by mail now (everyone, or under OIDC_ONLY its break-glass owners). */
  const mayReset = (email: string): boolean => !breakGlassOnly || accounts.credentials(email)?.breakGlass === true;
  const attempts = new SignInAttempts(clock, RESET_BUDGETS, store, 'reset');
  const resetOf = resetsOf(repo, accounts, clock, firstWorkspace, mayReset);
  const changeOf = changesOf(repo, accounts, clock, firstWorkspace);

  return {
    /** Whether "Forgot your password?" can mail a link (mail is set up). */
    resetsByMail: (): boolean => mail.enabled(),

    /**
     * "Forgot your password?": counted against its budgets, then a reset link mailed to the
     * account that holds the address, if one does (one in no workspace too: it then lands on its
     * invitations, its address proved, issue 54). The answer is
     * the same either way (no account discovery), and a write is made either way so the answer
     * waits for the same durable commit.
     */
    requestReset(input: {
      email: string;
      address: string;
    }): { kind: 'accepted' } | { kind: 'limited'; retryAfterSec: number } | { kind: 'off' } {
      if (!mail.enabled()) return { kind: 'off' };
      const email = input.email.trim().slice(0, 254);
      const counted = attempts.begin(email, input.address);
      if ('retryAfterSec' in counted) return { kind: 'limited', retryAfterSec: counted.retryAfterSec };
      const user = email === '' ? undefined : accounts.credentials(email);
      write(() => {
        // Under OIDC_ONLY only a break-glass owner resets a password, as only they sign in with one (M1).
        if (!user || !mayReset(email)) return;
        const now = clock.now();
        const linkSecret = secret();
        repo.deleteUnusedResetsOf(user.id);
        repo.insertReset({
          secretHash: sha256(linkSecret),
          userId: user.id,
          createdAt: now,
          expiresAt: now + RESET_LINK_MS,
          sentTo: accounts.userOf(user.id)?.email ?? null,
        });
        mail.passwordReset({ userId: user.id, secret: linkSecret, expiresAt: now + RESET_LINK_MS });
      });
      return { kind: 'accepted' };
    },

    /** What a reset link's page shows. */
    resetLink(linkSecret: string): LinkState<{ name: string; email: string }> {
      const found = resetOf(linkSecret);
      return found.state === 'valid' ? { state: 'valid', name: found.user.name, email: found.user.email } : found;
    },

    /**
     * Sets the password through a reset link: the link is used up, every session ends, and a new
     * one opens in the first workspace (a lobby when in none). The address is proved; a first
     * proof ends every credential of the account made before, API tokens too (N6).
     */
    async completeReset(
      linkSecret: string,
      password: string,
    ): Promise<{ session: NewSession; lobby: boolean; credentialsEnded: boolean } | { state: LinkGone }> {
      checkPassword(password);
      const hash = await hashPassword(password, passwordCost);
      return write(() => {
        const found = resetOf(linkSecret);
        if (found.state !== 'valid') return { state: found.state };
        const { userId } = found.row;
        repo.useReset(found.row.secretHash, clock.now());
        repo.deleteUnusedResetsOf(userId);
        repo.deleteUnusedLinksOf(userId);
        // The link went to the account's address: whoever opened it holds that mailbox (H1); before the new password is stored.
        const credentialsEnded = accounts.proveAddress(userId);
        accounts.storePasswordHash(userId, hash);
        repo.deleteSessionsOf(userId);
        if (found.workspaceId === undefined) return { session: openLobby(userId), lobby: true, credentialsEnded };
        return { session: openSession(userId, found.workspaceId), lobby: false, credentialsEnded };
      });
    },

    /**
     * Inside the Profile's write, with the password checked: the new address gets a link, and the
     * change waits for it (an earlier unconfirmed change ends). Returns false when mail is off.
     */
    askEmailChange(userId: string, email: string, workspaceId: string | null = null): boolean {
      if (!mail.enabled()) return false;
      const now = clock.now();
      const linkSecret = secret();
      repo.deleteUnusedEmailChangesOf(userId);
      repo.insertEmailChange({ secretHash: sha256(linkSecret), userId, email, createdAt: now, expiresAt: now + EMAIL_CHANGE_MS });
      return mail.emailChange({ userId, workspaceId, email, secret: linkSecret, expiresAt: now + EMAIL_CHANGE_MS });
    },

    /** The new sign-in email an account asked for and has not confirmed yet (the Profile page says where the link went), or null. */
    pendingEmail: (userId: string): string | null => repo.pendingEmailChange(userId, clock.now()) ?? null,

    /** What an email change's link shows: the address it sets, for whom. */
    emailChangeLink(linkSecret: string): LinkState<{ name: string; email: string }> {
      const found = changeOf(linkSecret);
      return found.state === 'valid' ? { state: 'valid', name: found.user.name, email: found.row.email } : found;
    },

    /** Confirms an email change: the account signs in with the new address from now on (refused when another account took it meanwhile). */
    confirmEmailChange(
      linkSecret: string,
    ): { state: 'done'; email: string; credentialsEnded: boolean } | { state: 'used' | 'expired' | 'unknown' | 'no-workspace' } {
      return write(() => {
        const found = changeOf(linkSecret);
        if (found.state !== 'valid') return { state: found.state };
        // The first proof of the account's address ends every session, token and link of it (N6).
        const credentialsEnded = accounts.storeEmail(found.row.userId, found.row.email, true);
        // Reset links mailed to the old address end with it (L1).
        repo.deleteUnusedResetsOf(found.row.userId);
        repo.useEmailChange(found.row.secretHash, clock.now());
        repo.deleteUnusedEmailChangesOf(found.row.userId);
        return { state: 'done' as const, email: found.row.email, credentialsEnded };
      });
    },
  };
}

/** A reset link's row and its account's workspace (none: an account in no workspace confirms its address so, N1), or why it does not work. */
function resetsOf(
  repo: SessionsRepository,
  accounts: SessionAccounts,
  clock: Clock,
  firstWorkspace: (userId: string) => string | undefined,
  mayReset: (email: string) => boolean,
) {
  return (linkSecret: string) => {
    const row = repo.reset(sha256(linkSecret));
    if (!row) return { state: 'unknown' as const };
    if (row.usedAt !== null) return { state: 'used' as const };
    if (row.expiresAt <= clock.now()) return { state: 'expired' as const };
    const workspaceId = firstWorkspace(row.userId);
    const user = accounts.userOf(row.userId);
    if (!user) return { state: 'unknown' as const };
    // A password or sign-in email changed since it was mailed ends it, however it changed (L1).
    if (
      (row.sentTo !== null && row.sentTo.toLowerCase() !== user.email.toLowerCase()) ||
      accounts.passwordSetAfter(row.userId, row.createdAt)
    )
      return { state: 'unknown' as const };
    // A link mailed before OIDC_ONLY was turned on (or before the mark was taken away).
    if (!mayReset(user.email)) return { state: 'password-off' as const };
    return { state: 'valid' as const, row, workspaceId, user };
  };
}

/** An email change's row and its account, or why its link does not work. */
function changesOf(
  repo: SessionsRepository,
  accounts: SessionAccounts,
  clock: Clock,
  firstWorkspace: (userId: string) => string | undefined,
) {
  return (linkSecret: string) => {
    const row = repo.emailChange(sha256(linkSecret));
    if (!row) return { state: 'unknown' as const };
    if (row.usedAt !== null) return { state: 'used' as const };
    if (row.expiresAt <= clock.now()) return { state: 'expired' as const };
    const user = accounts.userOf(row.userId);
    if (!user || firstWorkspace(row.userId) === undefined) return { state: 'no-workspace' as const };
    return { state: 'valid' as const, row, user };
  };
}

/**
 * The confirmation of an unproved address (part of the sessions service, issue 54 N1), mailed
 * when an account in no workspace whose address nobody proved signs in: a reset link, so the
 * reset page (./mail-links.ts `completeReset`) sets a new password and proves the address.
 */
export function createAddressConfirmation({
  repo,
  accounts,
  clock,
  mail,
}: {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  clock: Clock;
  mail: SessionMail;
}) {
  return {
    /**
     * Inside a sign-in's write: an account in no workspace whose address nobody proved signed in
     * with its password, which may be someone else's (issue 54, N1). A link to confirm the
     * address is mailed to it (a reset link: opening it sets a new password and opens the lobby
     * of its invitations). Earlier links stay valid (each an hour). Whether it was mailed (false
     * with mail off, or past the account's budget of reset links).
     */
    mailConfirmation(userId: string): boolean {
      if (!mail.enabled()) return false;
      const now = clock.now();
      const linkSecret = secret();
      repo.insertReset({
        secretHash: sha256(linkSecret),
        userId,
        createdAt: now,
        expiresAt: now + RESET_LINK_MS,
        sentTo: accounts.userOf(userId)?.email ?? null,
      });
      return mail.addressConfirmation({ userId, secret: linkSecret, expiresAt: now + RESET_LINK_MS });
    },
  };
}
