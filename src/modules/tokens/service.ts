import { and, count, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { scopeValues } from '../../../generated/openapi.js';
import { type Actor, isOperator, type Principal, type Scope } from '../../principal.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { toIso } from '../../kernel/time.js';
import { members, users, workspaces } from '../accounts/schema.js';
import { requireName, requirePositiveInt } from '../accounts/validation.js';
import { apiTokens } from './schema.js';
import { hashToken, mintToken, sameHash, tokenPrefix } from './token-format.js';

/** What authentication yields: the actor plus the budgets the rate limiter needs. */
export interface Authenticated {
  actor: Actor;
  tokenRateLimitPerMin: number | null;
  workspaceRateLimitPerMin: number | null;
}

const LAST_USED_GRANULARITY_MS = 60_000;
/** TOKENS_PER_MEMBER's default. */
export const DEFAULT_TOKENS_PER_MEMBER = 50;
// Compared against when no row matches, so a miss costs about what a hit costs.
const DUMMY_HASH = hashToken('tt_00000000_0000000000000000000000000000000000000000000');

/** Scope sets by their stored JSON (a handful of distinct lists): parsed once, shared read-only. */
const scopeSets = new Map<string, ReadonlySet<Scope>>();
function scopeSet(json: string): ReadonlySet<Scope> {
  let set = scopeSets.get(json);
  if (!set) {
    set = new Set(JSON.parse(json) as Scope[]);
    if (scopeSets.size < 1024) scopeSets.set(json, set);
  }
  return set;
}

export function parseScopes(list: readonly string[]): Scope[] {
  const unknown = list.filter((scope) => !(scopeValues as readonly string[]).includes(scope));
  if (unknown.length > 0) {
    throw new DomainError('invalid', `Unknown scope ${unknown.join(', ')}; scopes are ${scopeValues.join(', ')}.`);
  }
  return [...new Set(list as Scope[])];
}

/**
 * API tokens: minted by the CLI (the plaintext is returned once), checked on every request
 * against the database (no cache, so a revocation bites on the very next request).
 */
export function createTokensService({
  db,
  clock,
  write,
  maxActivePerMember = DEFAULT_TOKENS_PER_MEMBER,
}: {
  db: Db;
  clock: Clock;
  write: Write<never>;
  /** TOKENS_PER_MEMBER: the active tokens a member may hold (the operator may mint beyond it). */
  maxActivePerMember?: number;
}) {
  const find = (principal: Principal, id: string) => findToken(db, principal, id);
  const checkCap = (workspaceId: string, userId: string, now: number) => checkActiveCap(db, workspaceId, userId, now, maxActivePerMember);

  return {
    authenticate: createAuthenticator(db, clock),

    /**
     * Mints a token: a member for themselves in their workspace (at most TOKENS_PER_MEMBER
     * active ones), the operator for any member (no cap).
     */
    create(
      principal: Principal,
      given: {
        workspaceId?: string;
        userId?: string;
        name: string;
        scopes: readonly string[];
        expiresAt?: number | null;
        rateLimitPerMin?: number | null;
      },
    ): { id: string; token: string; prefix: string } {
      const input = isOperator(principal)
        ? { ...given, workspaceId: given.workspaceId ?? '', userId: given.userId ?? '' }
        : { ...given, workspaceId: principal.workspaceId, userId: principal.userId, rateLimitPerMin: null };
      const name = requireName(input.name, 'name');
      const scopes = parseScopes(input.scopes);
      const rateLimitPerMin = input.rateLimitPerMin == null ? null : requirePositiveInt(input.rateLimitPerMin, 'rate limit');
      const now = clock.now();
      if (input.expiresAt != null && input.expiresAt <= now) throw new DomainError('invalid', 'expiry must be in the future.');
      return write(() => {
        const member = db
          .select({ time: members.canViewOthersTime, money: members.canViewOthersMoney })
          .from(members)
          .innerJoin(users, and(eq(users.id, members.userId), isNull(users.deletedAt)))
          .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
          .get();
        if (!member) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
        if (!isOperator(principal)) checkCap(input.workspaceId, input.userId, now);
        const minted = mintToken();
        const id = newId('tok');
        db.insert(apiTokens)
          .values({
            id,
            workspaceId: input.workspaceId,
            userId: input.userId,
            name,
            prefix: minted.prefix,
            secretHash: minted.hash,
            scopes: JSON.stringify(scopes),
            mintedCanViewOthersTime: member.time,
            mintedCanViewOthersMoney: member.money,
            rateLimitPerMin,
            expiresAt: input.expiresAt ?? null,
            createdAt: now,
          })
          .run();
        return { id, token: minted.token, prefix: minted.prefix };
      });
    },

    /** A member's own tokens in their workspace; for the operator, a workspace's (an unknown one is `not_found`). */
    list(principal: Principal, workspaceOfOperator?: string) {
      const workspaceId = isOperator(principal) ? (workspaceOfOperator ?? '') : principal.workspaceId;
      const userId = isOperator(principal) ? undefined : principal.userId;
      if (!db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()) {
        throw notFound(`Workspace ${workspaceId}`);
      }
      const rows = db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.workspaceId, workspaceId), userId === undefined ? undefined : eq(apiTokens.userId, userId)))
        .orderBy(apiTokens.createdAt, apiTokens.id)
        .all();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        userId: row.userId,
        scopes: JSON.parse(row.scopes) as Scope[],
        expiresAt: row.expiresAt === null ? null : toIso(row.expiresAt),
        lastUsedAt: row.lastUsedAt === null ? null : toIso(row.lastUsedAt),
        revokedAt: row.revokedAt === null ? null : toIso(row.revokedAt),
        rateLimitPerMin: row.rateLimitPerMin,
      }));
    },

    /** Revokes a token: a member only their own; the operator any. Its next request answers 401. */
    revoke(principal: Principal, id: string): { id: string } {
      return write(() => {
        const row = find(principal, id);
        if (row.revokedAt === null) db.update(apiTokens).set({ revokedAt: clock.now() }).where(eq(apiTokens.id, id)).run();
        return { id };
      });
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;

/** The two statements of every authenticated request, prepared once: the token's row with its member and workspace, and the lastUsedAt write. */
function prepareAuthentication(db: Db) {
  const findByPrefix = db
    .select({
      id: apiTokens.id,
      workspaceId: apiTokens.workspaceId,
      userId: apiTokens.userId,
      secretHash: apiTokens.secretHash,
      scopes: apiTokens.scopes,
      mintedTime: apiTokens.mintedCanViewOthersTime,
      mintedMoney: apiTokens.mintedCanViewOthersMoney,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
      lastUsedAt: apiTokens.lastUsedAt,
      tokenRateLimitPerMin: apiTokens.rateLimitPerMin,
      workspaceRateLimitPerMin: workspaces.rateLimitPerMin,
      currency: workspaces.currency,
      memberTime: members.canViewOthersTime,
      memberMoney: members.canViewOthersMoney,
      isOwner: members.isOwner,
    })
    .from(apiTokens)
    // A removed member has no member row: the join drops the token. Deleting an account deletes
    // its tokens and memberships in the same transaction, so no join with users is needed.
    .innerJoin(members, and(eq(members.workspaceId, apiTokens.workspaceId), eq(members.userId, apiTokens.userId)))
    .innerJoin(workspaces, eq(workspaces.id, apiTokens.workspaceId))
    .where(eq(apiTokens.prefix, sql.placeholder('prefix')))
    .prepare();

  const touch = db
    .update(apiTokens)
    .set({ lastUsedAt: sql`${sql.placeholder('now')}` })
    .where(
      and(
        eq(apiTokens.id, sql.placeholder('id')),
        sql`(${apiTokens.lastUsedAt} IS NULL OR ${apiTokens.lastUsedAt} <= ${sql.placeholder('before')})`,
      ),
    )
    .prepare();
  return { findByPrefix, touch };
}

/** The token, when the principal may manage it: a member only their own in their workspace; the operator any. */
function findToken(db: Db, principal: Principal, id: string) {
  const row = db
    .select({ revokedAt: apiTokens.revokedAt, workspaceId: apiTokens.workspaceId, userId: apiTokens.userId })
    .from(apiTokens)
    .where(eq(apiTokens.id, id))
    .get();
  if (!row || (!isOperator(principal) && (row.workspaceId !== principal.workspaceId || row.userId !== principal.userId)))
    throw isOperator(principal) ? notFound(`Token ${id}`) : new DomainError('not_found', 'That token was not found among yours.');
  return row;
}

/** Refuses a member's new token past the cap on active (unrevoked, unexpired) tokens. */
function checkActiveCap(db: Db, workspaceId: string, userId: string, now: number, max: number): void {
  const active =
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
      .get()?.n ?? 0;
  if (active >= max)
    throw new DomainError(
      'conflict',
      `You hold ${active} active tokens, the most a member may (TOKENS_PER_MEMBER): revoke one you no longer use, then mint again.`,
    );
}

/** The actor of a presented token string, or null for any kind of failure (the caller answers one 401). */
function createAuthenticator(db: Db, clock: Clock) {
  const { findByPrefix, touch } = prepareAuthentication(db);
  return (token: string | null): Authenticated | null => {
    const prefix = token === null ? null : tokenPrefix(token);
    const row = prefix === null ? undefined : findByPrefix.get({ prefix });
    const presentedHash = hashToken(token ?? '');
    const hashMatches = sameHash(presentedHash, row?.secretHash ?? DUMMY_HASH);
    if (!row || !hashMatches) return null;
    const now = clock.now();
    if (row.revokedAt !== null) return null;
    if (row.expiresAt !== null && row.expiresAt <= now) return null;
    if (row.lastUsedAt === null || row.lastUsedAt <= now - LAST_USED_GRANULARITY_MS) {
      touch.run({ id: row.id, now, before: now - LAST_USED_GRANULARITY_MS });
    }
    return {
      actor: {
        kind: 'member',
        tokenId: row.id,
        workspaceId: row.workspaceId,
        userId: row.userId,
        scopes: scopeSet(row.scopes),
        canViewOthersTime: row.mintedTime && row.memberTime,
        canViewOthersMoney: row.mintedMoney && row.memberMoney,
        isOwner: row.isOwner,
        currency: row.currency,
      },
      tokenRateLimitPerMin: row.tokenRateLimitPerMin,
      workspaceRateLimitPerMin: row.workspaceRateLimitPerMin,
    };
  };
}
