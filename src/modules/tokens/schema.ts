import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, primaryId, reference } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    userId: reference('user_id', () => users.id),
    name: text('name').notNull(),
    /** The 8 non-secret characters after `tt_`; looked up first, then the hash is compared. */
    prefix: text('prefix').notNull().unique(),
    /** Hex SHA-256 of the whole token string. The plaintext is never stored. */
    secretHash: text('secret_hash').notNull(),
    /** JSON array of scope names. */
    scopes: text('scopes').notNull(),
    /** The member's visibility flags when the token was minted; effective = these AND current. */
    mintedCanViewOthersTime: integer('minted_can_view_others_time', { mode: 'boolean' }).notNull(),
    mintedCanViewOthersMoney: integer('minted_can_view_others_money', { mode: 'boolean' }).notNull(),
    /** Per-token override of RATE_LIMIT_TOKEN_PER_MIN. */
    rateLimitPerMin: integer('rate_limit_per_min'),
    expiresAt: integer('expires_at'),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [index('api_tokens_workspace').on(t.workspaceId), index('api_tokens_user').on(t.userId)],
);
