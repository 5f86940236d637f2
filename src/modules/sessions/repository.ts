import { and, desc, eq, gt, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { emailChanges, lobbySessions, passwordResets, sessions, setupLinks, signInAttempts } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type SessionRow = typeof sessions.$inferSelect;
export type LobbySessionRow = typeof lobbySessions.$inferSelect;
export type SetupLinkRow = typeof setupLinks.$inferSelect;
export type PasswordResetRow = typeof passwordResets.$inferSelect;
export type EmailChangeRow = typeof emailChanges.$inferSelect;

/** Every SQL statement of the sessions module, over its own tables: sessions, lobby_sessions, setup_links, password_resets, email_changes, sign_in_attempts. */
export function createSessionsRepository(db: Db) {
  const statements = preparedOnFirstUse(db, {
    // Every settings request reads its session by the hash of the cookie's secret.
    session: () =>
      db
        .select()
        .from(sessions)
        .where(eq(sessions.secretHash, sql.placeholder('hash')))
        .prepare(),
  });
  return {
    session: (hash: string): SessionRow | undefined => statements.session.get({ hash }),
    insertSession: (values: typeof sessions.$inferInsert): void => {
      db.insert(sessions).values(values).run();
    },
    touchSession: (hash: string, now: number): void => {
      db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.secretHash, hash)).run();
    },
    moveSession: (hash: string, workspaceId: string): void => {
      db.update(sessions).set({ workspaceId }).where(eq(sessions.secretHash, hash)).run();
    },
    /** The session of a cookie's hash, or its lobby. */
    deleteSession: (hash: string): void => {
      db.delete(sessions).where(eq(sessions.secretHash, hash)).run();
      db.delete(lobbySessions).where(eq(lobbySessions.secretHash, hash)).run();
    },
    /** Every session of the account, in a workspace or in none (its lobby). */
    deleteSessionsOf: (userId: string): void => {
      db.delete(sessions).where(eq(sessions.userId, userId)).run();
      db.delete(lobbySessions).where(eq(lobbySessions.userId, userId)).run();
    },
    /** Every session of the account but one (a password changed in that one), its lobby's too. */
    deleteOtherSessions: (userId: string, keptHash: string): void => {
      db.delete(sessions)
        .where(and(eq(sessions.userId, userId), ne(sessions.secretHash, keptHash)))
        .run();
      db.delete(lobbySessions).where(eq(lobbySessions.userId, userId)).run();
    },
    deleteMemberSessions: (workspaceId: string, userId: string): void => {
      db.delete(sessions)
        .where(and(eq(sessions.workspaceId, workspaceId), eq(sessions.userId, userId)))
        .run();
    },
    /** Sessions (and lobby sessions) idle since `idleBefore` or opened before `openedBefore`. */
    deleteEnded: (idleBefore: number, openedBefore: number): number =>
      db
        .delete(sessions)
        .where(or(lt(sessions.lastSeenAt, idleBefore), lt(sessions.createdAt, openedBefore)))
        .run().changes +
      db
        .delete(lobbySessions)
        .where(or(lt(lobbySessions.lastSeenAt, idleBefore), lt(lobbySessions.createdAt, openedBefore)))
        .run().changes,

    ...lobbyQueries(db),
    /** The unused link of a secret's hash (expired or not). */
    unusedLink: (hash: string): SetupLinkRow | undefined =>
      db
        .select()
        .from(setupLinks)
        .where(and(eq(setupLinks.secretHash, hash), isNull(setupLinks.usedAt)))
        .get(),
    insertLink: (values: typeof setupLinks.$inferInsert): void => {
      db.insert(setupLinks).values(values).run();
    },
    useLink: (hash: string, now: number): void => {
      db.update(setupLinks).set({ usedAt: now }).where(eq(setupLinks.secretHash, hash)).run();
    },
    deleteUnusedLinksOf: (userId: string): void => {
      db.delete(setupLinks)
        .where(and(eq(setupLinks.userId, userId), isNull(setupLinks.usedAt)))
        .run();
    },
    deleteLinksOf: (userId: string): void => {
      db.delete(setupLinks).where(eq(setupLinks.userId, userId)).run();
    },
    /** Links expired before `now`, or used. */
    deleteSpentLinks: (now: number): number =>
      db
        .delete(setupLinks)
        .where(or(lt(setupLinks.expiresAt, now), isNotNull(setupLinks.usedAt)))
        .run().changes,

    /** A reset link by the hash of its secret (used, expired or not). */
    reset: (hash: string): PasswordResetRow | undefined =>
      db.select().from(passwordResets).where(eq(passwordResets.secretHash, hash)).get(),
    insertReset: (values: typeof passwordResets.$inferInsert): void => {
      db.insert(passwordResets).values(values).run();
    },
    useReset: (hash: string, now: number): void => {
      db.update(passwordResets).set({ usedAt: now }).where(eq(passwordResets.secretHash, hash)).run();
    },
    /** Ends the account's unused reset links (a newer one was asked for, or the password was set). */
    deleteUnusedResetsOf: (userId: string): void => {
      db.delete(passwordResets)
        .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)))
        .run();
    },

    /** An email change by the hash of its secret (used, expired or not). */
    emailChange: (hash: string): EmailChangeRow | undefined =>
      db.select().from(emailChanges).where(eq(emailChanges.secretHash, hash)).get(),
    insertEmailChange: (values: typeof emailChanges.$inferInsert): void => {
      db.insert(emailChanges).values(values).run();
    },
    useEmailChange: (hash: string, now: number): void => {
      db.update(emailChanges).set({ usedAt: now }).where(eq(emailChanges.secretHash, hash)).run();
    },
    /** The address of the account's newest email change still waiting for its link (unused, unexpired), or undefined. */
    pendingEmailChange: (userId: string, now: number): string | undefined =>
      db
        .select({ email: emailChanges.email })
        .from(emailChanges)
        .where(and(eq(emailChanges.userId, userId), isNull(emailChanges.usedAt), gt(emailChanges.expiresAt, now)))
        .orderBy(desc(emailChanges.createdAt))
        .limit(1)
        .get()?.email,
    deleteUnusedEmailChangesOf: (userId: string): void => {
      db.delete(emailChanges)
        .where(and(eq(emailChanges.userId, userId), isNull(emailChanges.usedAt)))
        .run();
    },
    ...attemptsRepository(db),

    /** Reset links and email changes expired a day ago (used ones stay that long too, so a second use is told so). */
    deleteSpentMailLinks: (before: number): number =>
      db.delete(passwordResets).where(lt(passwordResets.expiresAt, before)).run().changes +
      db.delete(emailChanges).where(lt(emailChanges.expiresAt, before)).run().changes,
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;

/** The statements over sign_in_attempts (part of the sessions repository): the sign-in and reset budgets' uses. */
function attemptsRepository(db: Db) {
  return {
    /** The newest attempts of a budget's key after `since`, newest first, at most `limit`. */
    attempts: (key: string, since: number, limit: number): number[] =>
      db
        .select({ at: signInAttempts.at })
        .from(signInAttempts)
        .where(and(eq(signInAttempts.key, key), gt(signInAttempts.at, since)))
        .orderBy(desc(signInAttempts.at))
        .limit(limit)
        .all()
        .map((row) => row.at),
    insertAttempts: (keys: string[], at: number): void => {
      db.insert(signInAttempts)
        .values(keys.map((key) => ({ key, at })))
        .run();
    },
    /** One attempt of a key (a refund). */
    deleteAttempt: (key: string, at: number): void => {
      db.run(
        sql`delete from ${signInAttempts} where rowid = (select rowid from ${signInAttempts} where ${signInAttempts.key} = ${key} and ${signInAttempts.at} = ${at} limit 1)`,
      );
    },
    deleteAttemptsOf: (key: string): void => {
      db.delete(signInAttempts).where(eq(signInAttempts.key, key)).run();
    },
    /** Attempts older than `before` (out of every window) go (the hourly purge). */
    deleteOldAttempts: (before: number): number => db.delete(signInAttempts).where(lt(signInAttempts.at, before)).run().changes,
  };
}

/** Sessions of an account that belongs to no workspace (issue 44); deleteSession above ends one too. */
function lobbyQueries(db: Db) {
  return {
    lobby: (hash: string): LobbySessionRow | undefined => db.select().from(lobbySessions).where(eq(lobbySessions.secretHash, hash)).get(),
    insertLobby: (values: typeof lobbySessions.$inferInsert): void => {
      db.insert(lobbySessions).values(values).run();
    },
    touchLobby: (hash: string, now: number): void => {
      db.update(lobbySessions).set({ lastSeenAt: now }).where(eq(lobbySessions.secretHash, hash)).run();
    },
  };
}
