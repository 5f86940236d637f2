import { toIso } from '../../kernel/time.js';
import type { Scope } from '../../principal.js';
import type { TokenRow } from './repository.js';

/** A token as `token list` prints it and the settings page lists it: never its secret or hash. */
export const tokenView = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  userId: row.userId,
  scopes: JSON.parse(row.scopes) as Scope[],
  expiresAt: row.expiresAt === null ? null : toIso(row.expiresAt),
  lastUsedAt: row.lastUsedAt === null ? null : toIso(row.lastUsedAt),
  revokedAt: row.revokedAt === null ? null : toIso(row.revokedAt),
  rateLimitPerMin: row.rateLimitPerMin,
});

export type TokenView = ReturnType<typeof tokenView>;
