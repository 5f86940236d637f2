import { and, count, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { apiTokens } from './schema.js';

export type TokenRow = typeof apiTokens.$inferSelect;

const p = (name: string) => sql.placeholder(name);

/** Every SQL statement of the tokens module, over api_tokens only. The two of every API request are prepared. */
export function createTokensRepository(db: Db) {
  const statements = {
    byPrefix: db
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.prefix, p('prefix')))
      .prepare(),
    touch: db
      .update(apiTokens)
      .set({ lastUsedAt: sql`${p('now')}` })
      .where(and(eq(apiTokens.id, p('id')), sql`(${apiTokens.lastUsedAt} IS NULL OR ${apiTokens.lastUsedAt} <= ${p('before')})`))
      .prepare(),
  };
  return {
    byPrefix: (prefix: string): TokenRow | undefined => statements.byPrefix.get({ prefix }),
    /** Writes lastUsedAt unless it was written after `before` (at most once a minute per token). */
    touch: (id: string, now: number, before: number): void => {
      statements.touch.run({ id, now, before });
    },
    byId: (id: string): TokenRow | undefined => db.select().from(apiTokens).where(eq(apiTokens.id, id)).get(),
    insert: (values: typeof apiTokens.$inferInsert): void => {
      db.insert(apiTokens).values(values).run();
    },
    /** A workspace's tokens, or one member's, oldest first. */
    list: (workspaceId: string, userId?: string): TokenRow[] =>
      db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.workspaceId, workspaceId), userId === undefined ? undefined : eq(apiTokens.userId, userId)))
        .orderBy(apiTokens.createdAt, apiTokens.id)
        .all(),
    /** A member's tokens that are neither revoked nor expired at `now`. */
    activeCount: (workspaceId: string, userId: string, now: number): number =>
      db
        .select({ n: count() })
        .from(apiTokens)
        .where(
          and(
            eq(apiTokens.workspaceId, workspaceId),
            eq(apiTokens.userId, userId),
            isNull(apiTokens.revokedAt),
            or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, now)),
          ),
        )
        .get()?.n ?? 0,
    revoke: (id: string, now: number): void => {
      db.update(apiTokens)
        .set({ revokedAt: now })
        .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
        .run();
    },
    /** Revokes a member's tokens in a workspace (they left it: re-adding them does not revive these). */
    revokeMember: (workspaceId: string, userId: string, now: number): void => {
      db.update(apiTokens)
        .set({ revokedAt: now })
        .where(and(eq(apiTokens.workspaceId, workspaceId), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
        .run();
    },
    /** Every active token of the account, in every workspace. */
    revokeUser: (userId: string, now: number): void => {
      db.update(apiTokens)
        .set({ revokedAt: now })
        .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
        .run();
    },
    deleteOfUser: (userId: string): void => {
      db.delete(apiTokens).where(eq(apiTokens.userId, userId)).run();
    },
  };
}

export type TokensRepository = ReturnType<typeof createTokensRepository>;
