import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { SESSION_IDLE_MS, SESSION_MAX_MS, TOUCH_GRANULARITY_MS } from './limits.js';
import type { SessionAccounts } from './ports.js';
import type { LobbySessionRow, SessionsRepository } from './repository.js';
import { type NewSession, secret, sha256 } from './secrets.js';

/** A session of an account that belongs to no workspace (issue 44): who it is and the invitations it may accept. */
export interface LobbyView {
  userId: string;
  name: string;
  email: string;
  csrfToken: string;
  invitations: { id: string; workspaceName: string; email: string; isOwner: boolean; expiresAt: number }[];
}

/**
 * Sessions of an account that belongs to no workspace (part of the sessions service; issue 44):
 * a person removed from their last workspace, or made by `timetrack user create`, signs in with
 * their password to a lobby that sees the account's own open invitations and accepts one, nothing
 * else. A lobby ends as a session does (idle, age, sign-out, a password set, the account deleted).
 */
export function createLobbies({
  repo,
  accounts,
  clock,
  write,
  openSession,
  firstWorkspace,
}: {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  openSession: (userId: string, workspaceId: string) => NewSession;
  firstWorkspace: (userId: string) => string | undefined;
}) {
  const alive = (row: LobbySessionRow, now: number) => row.lastSeenAt > now - SESSION_IDLE_MS && row.createdAt > now - SESSION_MAX_MS;
  return {
    /** Inside a write: a lobby session of the account (a sign-in of an account in no workspace; `viaProvider` through the identity provider). */
    open(userId: string, viaProvider = false): NewSession {
      const session = { secret: secret(), csrfToken: secret() };
      const now = clock.now();
      repo.insertLobby({
        secretHash: sha256(session.secret),
        userId,
        csrfToken: session.csrfToken,
        createdAt: now,
        lastSeenAt: now,
        viaProvider,
      });
      return session;
    },

    views: {
      /**
       * The lobby of a cookie's secret: the account, its open invitations, its forms' CSRF
       * token; null when there is none, it ended (idle, age), or the account belongs to a
       * workspace now (it signs in again, into that workspace).
       */
      lobby(sessionSecret: string): LobbyView | null {
        const hash = sha256(sessionSecret);
        const row = repo.lobby(hash);
        if (!row) return null;
        const now = clock.now();
        const user = accounts.userOf(row.userId);
        // A lobby is only for an address proved to be the account's (N1): one opened before that rule, or whose address changed since, ends.
        if (!user || firstWorkspace(row.userId) !== undefined || !alive(row, now) || !accounts.emailProved(row.userId)) {
          write(() => repo.deleteSession(hash));
          return null;
        }
        if (row.lastSeenAt <= now - TOUCH_GRANULARITY_MS) write(() => repo.touchLobby(hash, now));
        const invitations = accounts.invitationsOfAccount(row.userId);
        return { userId: row.userId, name: user.name, email: user.email, csrfToken: row.csrfToken, invitations };
      },

      /**
       * The lobby's Join: the account accepts one of its own invitations (another's reads as
       * gone; none without a proved address, N1), and the lobby becomes a session in that
       * workspace (a new secret: the cookie is set again), in one write. A lobby opened through
       * the identity provider accepts nothing here (I1: the provider may have disabled the
       * person since): it ends, and the person signs in there again (`signInAgain`), the
       * invitation accepted only when that sign-in succeeds as this account (the oidc module's
       * `join`); a session of such a sign-in is the provider's, checked with it and ended by its
       * logout, never one made here. Null when the lobby ended.
       */
      joinFromLobby(
        sessionSecret: string,
        invitationId: string,
      ):
        | (NewSession & { workspaceId: string; signInAgain: false })
        | { signInAgain: true; join: { userId: string; invitationId: string } }
        | null {
        const hash = sha256(sessionSecret);
        return write(() => {
          const row = repo.lobby(hash);
          if (!row || !alive(row, clock.now()) || !accounts.emailProved(row.userId)) return null;
          if (row.viaProvider) {
            accounts.checkInvitationOfAccount(row.userId, invitationId);
            repo.deleteSession(hash);
            return { signInAgain: true as const, join: { userId: row.userId, invitationId } };
          }
          const { workspaceId } = accounts.acceptInvitationOfAccount(row.userId, invitationId);
          repo.deleteSession(hash);
          return { ...openSession(row.userId, workspaceId), workspaceId, signInAgain: false as const };
        });
      },
    },
  };
}
