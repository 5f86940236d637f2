import { and, asc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { scopeValues } from '../../../generated/openapi.js';
import { notFound } from '../../errors.js';
import type { Actor, Scope } from '../../principal.js';
import { members, users, workspaces } from '../accounts/schema.js';
import { checkPassword, hashPassword } from './password.js';
import { createSignIn } from './sign-in.js';
export { SETUP_LINK_HOURS } from './setup-links.js';
import { sessions, setupLinks } from './schema.js';
import { type NewSession, secret, sha256 } from './secrets.js';
import { createSetupLinks } from './setup-links.js';

export type { NewSession } from './secrets.js';
export type { SignInResult } from './sign-in.js';

/** A signed-in member holds every scope: what they may do is decided by their role and flags. */
const ALL_SCOPES: ReadonlySet<Scope> = new Set(scopeValues);

/** A session ends after this long without a request, and this long after sign-in in any case. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_MAX_MS = 7 * 86_400_000;
/** lastSeenAt is written at most once a minute per session. */
const TOUCH_GRANULARITY_MS = 60_000;

/** Who a valid session is: the account, its membership now (re-read on every request) and the workspace. */
export interface SessionView {
  /** The member as a principal of the services (every scope; the flags and owner role as they are now). */
  actor: Actor;
  userId: string;
  name: string;
  email: string;
  workspaceId: string;
  workspaceName: string;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  isOwner: boolean;
  csrfToken: string;
}

/**
 * Sign-in for the settings page: one-time setup links, passwords (scrypt), and sessions. Only
 * hashes of link and session secrets are stored. A session is re-checked on every request
 * against the account and the membership, so removing a member or deleting an account signs
 * them out at once; setting a password ends every other session of the account.
 */
export function createSessionsService({ db, clock, write }: { db: Db; clock: Clock; write: Write<never> }) {
  const liveMember = (workspaceId: string, userId: string) =>
    db
      .select({ userId: members.userId, email: users.email, name: users.name })
      .from(members)
      .innerJoin(users, and(eq(users.id, members.userId), isNull(users.deletedAt)))
      .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId)))
      .get();

  const lookup = db
    .select({
      userId: users.id,
      name: users.name,
      email: users.email,
      workspaceId: workspaces.id,
      workspaceName: workspaces.name,
      currency: workspaces.currency,
      canViewOthersTime: members.canViewOthersTime,
      canViewOthersMoney: members.canViewOthersMoney,
      isOwner: members.isOwner,
      csrfToken: sessions.csrfToken,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
    })
    .from(sessions)
    .innerJoin(users, and(eq(users.id, sessions.userId), isNull(users.deletedAt)))
    .innerJoin(members, and(eq(members.workspaceId, sessions.workspaceId), eq(members.userId, sessions.userId)))
    .innerJoin(workspaces, eq(workspaces.id, sessions.workspaceId))
    .where(eq(sessions.secretHash, sql.placeholder('hash')))
    .prepare();

  /** Inside a write: a new session of the account in the workspace. */
  const openSession = (userId: string, workspaceId: string): NewSession => {
    const session = { secret: secret(), csrfToken: secret() };
    const now = clock.now();
    db.insert(sessions)
      .values({ secretHash: sha256(session.secret), userId, workspaceId, csrfToken: session.csrfToken, createdAt: now, lastSeenAt: now })
      .run();
    return session;
  };

  const memberships = (userId: string) =>
    db
      .select({ workspaceId: workspaces.id, name: workspaces.name })
      .from(members)
      .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
      .where(eq(members.userId, userId))
      .orderBy(asc(members.createdAt), asc(members.workspaceId))
      .all();

  return {
    ...createSetupLinks({ db, clock, write, liveMember, openSession }),
    ...createSignIn({ db, clock, write, openSession, firstWorkspace: (userId) => memberships(userId)[0]?.workspaceId }),

    /** Sets an account's password (the CLI); every session of the account ends. */
    async setPassword(userId: string, password: string): Promise<{ id: string }> {
      checkPassword(password);
      const hash = await hashPassword(password);
      return write(() => {
        const result = db
          .update(users)
          .set({ passwordHash: hash, passwordSetAt: clock.now() })
          .where(and(eq(users.id, userId), isNull(users.deletedAt)))
          .run();
        if (result.changes === 0) throw notFound(`User ${userId}`);
        db.delete(sessions).where(eq(sessions.userId, userId)).run();
        return { id: userId };
      });
    },

    /** The session of a cookie's secret, re-checked now; an expired or orphaned one is deleted. */
    session(sessionSecret: string): SessionView | null {
      const hash = sha256(sessionSecret);
      const row = lookup.get({ hash });
      const now = clock.now();
      if (!row || row.lastSeenAt <= now - SESSION_IDLE_MS || row.createdAt <= now - SESSION_MAX_MS) {
        db.delete(sessions).where(eq(sessions.secretHash, hash)).run();
        return null;
      }
      if (row.lastSeenAt <= now - TOUCH_GRANULARITY_MS)
        db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.secretHash, hash)).run();
      const { createdAt: _c, lastSeenAt: _l, currency, ...view } = row;
      const actor: Actor = {
        kind: 'member',
        tokenId: null,
        workspaceId: row.workspaceId,
        userId: row.userId,
        scopes: ALL_SCOPES,
        canViewOthersTime: row.canViewOthersTime,
        canViewOthersMoney: row.canViewOthersMoney,
        isOwner: row.isOwner,
        currency,
      };
      return { ...view, actor };
    },

    /** The workspaces the account is a member of (to switch between). */
    memberships,

    /** Moves the session to another workspace of the account. */
    switchWorkspace(sessionSecret: string, userId: string, workspaceId: string): void {
      if (!liveMember(workspaceId, userId)) throw notFound(`Workspace ${workspaceId}`);
      db.update(sessions)
        .set({ workspaceId })
        .where(eq(sessions.secretHash, sha256(sessionSecret)))
        .run();
    },

    signOut(sessionSecret: string): void {
      db.delete(sessions)
        .where(eq(sessions.secretHash, sha256(sessionSecret)))
        .run();
    },

    /** Deletes expired sessions, and setup links expired or used (a scheduled job). */
    purge(): number {
      const now = clock.now();
      const ended = db
        .delete(sessions)
        .where(or(lt(sessions.lastSeenAt, now - SESSION_IDLE_MS), lt(sessions.createdAt, now - SESSION_MAX_MS)))
        .run().changes;
      return (
        ended +
        db
          .delete(setupLinks)
          .where(or(lt(setupLinks.expiresAt, now), isNotNull(setupLinks.usedAt)))
          .run().changes
      );
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
