import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { words } from '../../i18n/index.js';
import { DomainError } from '../../errors.js';
import { isOperator, type Principal } from '../../principal.js';
import type { Job } from '../../scheduler.js';
import { sessionErrors as errors } from './errors.js';
import { checkPassword, type HashCost, hashPassword, PASSWORD_COST, verifyPassword } from './password.js';
import { NO_SESSION_MAIL, type SessionAccounts, type SessionMail } from './ports.js';
import { createAddressConfirmation, createMailLinks } from './mail-links.js';
import type { SessionsRepository } from './repository.js';
import { type NewSession, secret, sha256 } from './secrets.js';
import { createSetupLinks } from './setup-links.js';
import { createSignIn } from './sign-in.js';
import { createLobbies } from './lobby.js';
import { SESSION_IDLE_MS, SESSION_MAX_MS, TOUCH_GRANULARITY_MS } from './limits.js';
import { type AttemptStore, SIGN_IN_WINDOW_MS } from './attempts.js';
import { createProfileUpdates } from './profile.js';
import { type SessionView, sessionView } from './views.js';

export { SETUP_LINK_HOURS } from './setup-links.js';
export { PASSWORD_MIN } from './password.js';
export type { NewSession } from './secrets.js';
export type { SignInResult } from './sign-in.js';
export type { SessionView } from './views.js';

export type { LobbyView } from './lobby.js';

export type { SessionAccounts, SessionMail } from './ports.js';
export { EMAIL_CHANGE_MS, RESET_BUDGETS, RESET_LINK_MS } from './mail-links.js';

export interface SessionsDeps {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  /** Who may sign in with a password: everyone with one, or (OIDC_ONLY=true) break-glass accounts only. */
  passwordSignIn?: 'everyone' | 'break-glass';
  /** What is mailed (the mail module's); nothing without it. */
  mail?: SessionMail;
  /** scrypt's cost for new passwords: production's unless a test lowers it (never from the environment). */
  passwordCost?: HashCost;
}

export { SESSION_IDLE_MS, SESSION_MAX_MS } from './limits.js';

/**
 * Sign-in for the settings page: one-time setup links, passwords (scrypt), and sessions. Only
 * hashes of link and session secrets are stored. A session is re-checked on every request
 * against the account and the membership, so removing a member or deleting an account signs
 * them out at once; setting a password ends every other session of the account.
 */
export function createSessionsService({
  repo,
  accounts,
  clock,
  write,
  passwordSignIn = 'everyone',
  mail = NO_SESSION_MAIL,
  passwordCost = PASSWORD_COST,
}: SessionsDeps) {
  /** Inside a write: a new session of the account in the workspace. */
  const openSession = (userId: string, workspaceId: string): NewSession => {
    const session = { secret: secret(), csrfToken: secret() };
    const now = clock.now();
    repo.insertSession({
      secretHash: sha256(session.secret),
      userId,
      workspaceId,
      csrfToken: session.csrfToken,
      createdAt: now,
      lastSeenAt: now,
    });
    return session;
  };

  /** Deletes expired sessions, and setup links expired or used. */
  const purge = (): number => {
    const now = clock.now();
    return write(
      () =>
        repo.deleteEnded(now - SESSION_IDLE_MS, now - SESSION_MAX_MS) +
        repo.deleteSpentLinks(now) +
        repo.deleteSpentMailLinks(now - 86_400_000) +
        repo.deleteOldAttempts(now - SIGN_IN_WINDOW_MS),
    );
  };
  const firstWorkspace = (userId: string) => accounts.memberships(userId)[0]?.workspaceId;
  const attempts = attemptStoreOf(repo, write);
  const breakGlassOnly = passwordSignIn === 'break-glass';
  const lobbies = createLobbies({ repo, accounts, clock, write, openSession, firstWorkspace });
  const { mailConfirmation } = createAddressConfirmation({ repo, accounts, clock, mail });
  const shared = { repo, accounts, clock, write, openSession, firstWorkspace, breakGlassOnly, attempts, passwordCost };
  const mailLinks = createMailLinks({ ...shared, mail, openLobby: (userId) => lobbies.open(userId) });

  return {
    ...createSetupLinks({ repo, accounts, clock, write, openSession, mail, breakGlassOnly, passwordCost }),
    ...createSignIn({ ...shared, openLobby: lobbies.open, mailConfirmation }),
    ...lobbies.views,
    /** A lobby of an account in no workspace signed in through the identity provider (inside the oidc module's write). */
    openProviderLobby: (userId: string): NewSession => write(() => lobbies.open(userId, true)),
    ...mailLinks,
    ...providerSessionsOf({ repo, accounts, write, openSession }),

    /** Sets an account's password (the operator); every session of the account ends. */
    async setPassword(principal: Principal, userId: string, password: string): Promise<{ id: string }> {
      if (!isOperator(principal)) throw errors.userNotFound(userId);
      checkPassword(password);
      const hash = await hashPassword(password, passwordCost);
      return write(() => {
        if (!accounts.userOf(userId)) throw errors.userNotFound(userId);
        // The operator answers for whom they give the password to (H1); a first proof ends what others held (N6).
        accounts.proveAddress(userId);
        accounts.storePasswordHash(userId, hash);
        repo.deleteSessionsOf(userId);
        repo.deleteUnusedResetsOf(userId);
        return { id: userId };
      });
    },

    /**
     * A member changes their own password in a session: the current one is required, the new
     * one is checked as any; every other session of the account ends, this one stays.
     */
    async changePassword(principal: Principal, sessionSecret: string, current: string, next: string): Promise<void> {
      if (isOperator(principal)) throw errors.userNotFound('operator');
      checkPassword(next);
      const stored = accounts.passwordHashOf(principal.userId);
      if (stored === null || !(await verifyPassword(current, stored)))
        throw new DomainError('invalid', 'current password: that is not your current password.', {
          field: 'current',
          words: words('accounts.refused.wrongPassword'),
        });
      const hash = await hashPassword(next, passwordCost);
      write(() => {
        accounts.storePasswordHash(principal.userId, hash);
        repo.deleteOtherSessions(principal.userId, sha256(sessionSecret));
        // A reset link mailed before would set another password over this one (L1).
        repo.deleteUnusedResetsOf(principal.userId);
      });
    },

    ...createProfileUpdates({ accounts, write, askEmailChange: mailLinks.askEmailChange, endResets: repo.deleteUnusedResetsOf }),

    /** The session of a cookie's secret, re-checked now; an expired or orphaned one is deleted. */
    session(sessionSecret: string): SessionView | null {
      const hash = sha256(sessionSecret);
      const row = repo.session(hash);
      const now = clock.now();
      const member = row && accounts.membership(row.workspaceId, row.userId);
      if (!row || !member || row.lastSeenAt <= now - SESSION_IDLE_MS || row.createdAt <= now - SESSION_MAX_MS) {
        if (row) write(() => repo.deleteSession(hash));
        return null;
      }
      if (row.lastSeenAt <= now - TOUCH_GRANULARITY_MS) write(() => repo.touchSession(hash, now));
      return sessionView(member, row.csrfToken);
    },

    /**
     * Whether a session is still open for this member in this workspace (the live stream checks its
     * session again each second): read only, it neither touches nor deletes the session.
     */
    alive(sessionSecret: string, workspaceId: string, userId: string): boolean {
      const row = repo.session(sha256(sessionSecret));
      const now = clock.now();
      return (
        row !== undefined &&
        row.workspaceId === workspaceId &&
        row.userId === userId &&
        row.lastSeenAt > now - SESSION_IDLE_MS &&
        row.createdAt > now - SESSION_MAX_MS &&
        accounts.membership(workspaceId, userId) !== undefined
      );
    },

    /** The workspaces the account is a member of (to switch between). */
    memberships: (userId: string) => accounts.memberships(userId).map((m) => ({ workspaceId: m.workspaceId, name: m.workspaceName })),

    /** Moves the session to another workspace of the account. */
    switchWorkspace(sessionSecret: string, userId: string, workspaceId: string): void {
      if (!accounts.membership(workspaceId, userId)) throw errors.workspaceNotFound(workspaceId);
      write(() => repo.moveSession(sha256(sessionSecret), workspaceId));
    },

    /** Ends the session of the cookie (or its lobby: repo.deleteSession ends either). */
    signOut(sessionSecret: string): void {
      write(() => repo.deleteSession(sha256(sessionSecret)));
    },

    /** The module's periodic job: ended sessions and spent setup links go, hourly. */
    jobs: [{ name: 'expired sessions', every: 'hour', run: () => purge() }] satisfies Job[],

    /** Deletes expired sessions, and setup links expired or used (a scheduled job). */
    purge,

    ...accountReactionsOf(repo),
  };
}

/** What the sessions module ends when an account's membership, credentials or existence end (inside the accounts write). */
function accountReactionsOf(repo: SessionsRepository) {
  return {
    /** A member left a workspace: their sessions there end (inside the accounts write). */
    endMemberSessions: (workspaceId: string, userId: string): void => repo.deleteMemberSessions(workspaceId, userId),
    /**
     * An account's credentials ended (the identity provider vouched for its unproved address):
     * every session, every unused setup or reset link and open email change of it go (inside the
     * accounts write).
     */
    endCredentialsOf(userId: string): void {
      repo.deleteSessionsOf(userId);
      repo.deleteUnusedLinksOf(userId);
      repo.deleteUnusedResetsOf(userId);
      repo.deleteUnusedEmailChangesOf(userId);
    },
    /** An account was deleted: its sessions and setup links go (inside the accounts write). */
    deleteOfUser(userId: string): void {
      repo.deleteSessionsOf(userId);
      repo.deleteLinksOf(userId);
    },
  };
}

/** Sessions opened and ended by another way in (the identity provider: the oidc module), inside its writes. */
function providerSessionsOf({
  repo,
  accounts,
  write,
  openSession,
}: {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  write: Write<never>;
  openSession: (userId: string, workspaceId: string) => NewSession;
}) {
  return {
    /**
     * A session of an account signed in another way (inside the caller's write), in `workspaceId`
     * when it is a member there, else its first workspace; null when it is a member of none.
     */
    openFor(userId: string, preferred?: string): (NewSession & { secretHash: string; workspaceId: string }) | null {
      const memberships = accounts.memberships(userId);
      const workspaceId = (memberships.find((m) => m.workspaceId === preferred) ?? memberships[0])?.workspaceId;
      if (workspaceId === undefined) return null;
      const session = write(() => openSession(userId, workspaceId));
      return { ...session, secretHash: sha256(session.secret), workspaceId };
    },

    /** Ends sessions by their rows' hashes (the identity provider ended them; inside the caller's write). */
    endSessions(hashes: string[]): void {
      write(() => {
        for (const hash of hashes) repo.deleteSession(hash);
      });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

/** Sign-in and reset attempts, counted in the database: a restart starts no budget afresh (issue 44). */
const attemptStoreOf = (repo: SessionsRepository, write: Write<never>): AttemptStore => ({
  recent: (key, since, limit) => repo.attempts(key, since, limit),
  add: (keys, at) => write(() => repo.insertAttempts(keys, at)),
  remove: (key, at) => write(() => repo.deleteAttempt(key, at)),
  clear: (key) => write(() => repo.deleteAttemptsOf(key)),
});
