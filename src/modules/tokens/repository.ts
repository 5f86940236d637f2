import { and, count, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { apiTokens } from './schema.js';
import { onFirstUse, preparedOnFirstUse } from '../../db/prepared.js';

export type TokenRow = typeof apiTokens.$inferSelect;

/** What the check of a presented token reads of its row (every API request). */
export interface TokenCheck {
  id: string;
  workspaceId: string;
  userId: string;
  secretHash: string;
  /** The stored JSON array of scope names. */
  scopes: string;
  mintedCanViewOthersTime: boolean;
  mintedCanViewOthersMoney: boolean;
  rateLimitPerMin: number | null;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

const p = (name: string) => sql.placeholder(name);

/** Every SQL statement of the tokens module, over api_tokens only. The two of every API request are prepared. */
export function createTokensRepository(db: Db) {
  // Read on every API request: a plain statement whose row is an array, named here (Drizzle's
  // mapping of its row was most of the token check's time: issue 60).
  const byPrefix = onFirstUse(db, () =>
    db.$client
      .prepare(
        `SELECT id, workspace_id, user_id, secret_hash, scopes, minted_can_view_others_time, minted_can_view_others_money,
              rate_limit_per_min, expires_at, last_used_at, revoked_at
       FROM api_tokens WHERE prefix = ?`,
      )
      .raw(true),
  );
  const statements = preparedOnFirstUse(db, {
    touch: () =>
      db
        .update(apiTokens)
        .set({ lastUsedAt: sql`${p('now')}` })
        .where(and(eq(apiTokens.id, p('id')), sql`(${apiTokens.lastUsedAt} IS NULL OR ${apiTokens.lastUsedAt} <= ${p('before')})`))
        .prepare(),
  });
  return {
    byPrefix: (prefix: string): TokenCheck | undefined => {
      const r = byPrefix().get(prefix) as
        | [string, string, string, string, string, number, number, number | null, number | null, number | null, number | null]
        | undefined;
      if (r === undefined) return undefined;
      return {
        id: r[0],
        workspaceId: r[1],
        userId: r[2],
        secretHash: r[3],
        scopes: r[4],
        mintedCanViewOthersTime: r[5] === 1,
        mintedCanViewOthersMoney: r[6] === 1,
        rateLimitPerMin: r[7],
        expiresAt: r[8],
        lastUsedAt: r[9],
        revokedAt: r[10],
      };
    },
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
