import { scopeValues } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import { requireName, requirePositiveInt } from '../../kernel/input.js';
import { type Actor, isOperator, type Principal, type Scope } from '../../principal.js';
import type { Access, Membership } from '../accounts/service.js';
import { tokenErrors as errors } from './errors.js';
import type { TokenCheck, TokenRow, TokensRepository } from './repository.js';
import { hashToken, mintToken, sameHash, tokenPrefix } from './token-format.js';
import { tokenView } from './views.js';

export { bearerToken } from './token-format.js';

/** What authentication yields: the actor plus the budgets the rate limiter needs. */
export interface Authenticated {
  actor: Actor;
  tokenRateLimitPerMin: number | null;
  workspaceRateLimitPerMin: number | null;
}

/** What the tokens module reads of the accounts module. */
export interface TokenAccounts {
  access(workspaceId: string, userId: string): Access | undefined;
  membership(workspaceId: string, userId: string): Membership | undefined;
  requireWorkspace(workspaceId: string): void;
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
    throw new DomainError('invalid', `Unknown scope ${unknown.join(', ')}; scopes are ${scopeValues.join(', ')}.`, { field: 'scopes' });
  }
  return [...new Set(list as Scope[])];
}

export interface NewToken {
  /** The operator names the member; a member mints for themselves. */
  workspaceId?: string;
  userId?: string;
  name: string;
  scopes: readonly string[];
  expiresAt?: number | null;
  /** The operator only: a budget of the token's own. */
  rateLimitPerMin?: number | null;
}

/**
 * API tokens: minted by a member for themselves (the settings page, at most TOKENS_PER_MEMBER
 * active ones) or by the operator for anyone (the command line); checked on every request
 * against the database, so a revocation bites on the very next request (see createAuthenticator).
 */
export function createTokensService({
  repo,
  accounts,
  clock,
  write,
  changes,
  maxActivePerMember = DEFAULT_TOKENS_PER_MEMBER,
}: {
  repo: TokensRepository;
  accounts: TokenAccounts;
  clock: Clock;
  write: Write<never>;
  /** The connection's change stamp (src/db/changes.ts): while it stands still, the check may reuse the rows it read. */
  changes: () => string;
  /** TOKENS_PER_MEMBER: the active tokens a member may hold (the operator may mint beyond it). */
  maxActivePerMember?: number;
}) {
  /** The token, when the principal may manage it: a member only their own in their workspace; the operator any. */
  const find = (principal: Principal, id: string): TokenRow => {
    const row = repo.byId(id);
    if (!row || (!isOperator(principal) && (row.workspaceId !== principal.workspaceId || row.userId !== principal.userId)))
      throw isOperator(principal) ? errors.notFound(id) : errors.notYours();
    return row;
  };

  return {
    authenticate: createAuthenticator(repo, accounts, clock, write, changes),

    /** Mints a token; its plaintext is returned this once. */
    create(principal: Principal, given: NewToken): { id: string; token: string; prefix: string } {
      const input = isOperator(principal)
        ? { ...given, workspaceId: given.workspaceId ?? '', userId: given.userId ?? '' }
        : { ...given, workspaceId: principal.workspaceId, userId: principal.userId, rateLimitPerMin: null };
      const name = requireName(input.name, 'name', 'name');
      const scopes = parseScopes(input.scopes);
      const rateLimitPerMin =
        input.rateLimitPerMin == null ? null : requirePositiveInt(input.rateLimitPerMin, 'rate limit', 'rateLimitPerMin');
      const now = clock.now();
      if (input.expiresAt != null && input.expiresAt <= now)
        throw new DomainError('invalid', 'expiry must be in the future.', { field: 'expiresAt' });
      return write(() => {
        const member = accounts.membership(input.workspaceId, input.userId);
        if (!member) throw errors.memberNotFound(input.workspaceId, input.userId);
        if (!isOperator(principal)) {
          const active = repo.activeCount(input.workspaceId, input.userId, now);
          if (active >= maxActivePerMember) throw errors.tooMany(active);
        }
        const minted = mintToken();
        const id = newId('tok');
        repo.insert({
          id,
          workspaceId: input.workspaceId,
          userId: input.userId,
          name,
          prefix: minted.prefix,
          secretHash: minted.hash,
          scopes: JSON.stringify(scopes),
          mintedCanViewOthersTime: member.canViewOthersTime,
          mintedCanViewOthersMoney: member.canViewOthersMoney,
          rateLimitPerMin,
          expiresAt: input.expiresAt ?? null,
          createdAt: now,
        });
        return { id, token: minted.token, prefix: minted.prefix };
      });
    },

    /** A member's own tokens in their workspace; for the operator, a workspace's (an unknown one is `not_found`). */
    list(principal: Principal, workspaceOfOperator?: string) {
      if (!isOperator(principal)) return repo.list(principal.workspaceId, principal.userId).map(tokenView);
      const workspaceId = workspaceOfOperator ?? '';
      accounts.requireWorkspace(workspaceId);
      return repo.list(workspaceId).map(tokenView);
    },

    /** Revokes a token: a member only their own; the operator any. Its next request answers 401. */
    revoke(principal: Principal, id: string): { id: string } {
      return write(() => {
        find(principal, id);
        repo.revoke(id, clock.now());
        return { id };
      });
    },

    /** A member left a workspace: their tokens there stop (inside the accounts write). */
    revokeMember: (workspaceId: string, userId: string): void => repo.revokeMember(workspaceId, userId, clock.now()),
    /** An account's credentials ended (the identity provider vouched for its unproved address): its tokens stop, in every workspace (inside the accounts write). */
    revokeUser: (userId: string): void => repo.revokeUser(userId, clock.now()),
    /** An account was deleted: its tokens go (inside the accounts write). */
    deleteOfUser: (userId: string): void => repo.deleteOfUser(userId),
  };
}

export type TokensService = ReturnType<typeof createTokensService>;

/** Tokens whose rows the check keeps at most (all are let go when full). */
const KNOWN_TOKENS = 10_000;

/**
 * The actor of a presented token string, or null for any kind of failure (the caller answers
 * one 401): the token's row, then its member's current flags and the workspace (two primary-key
 * reads, each a plain prepared statement of its module's repository); a removed member has no
 * membership, so the token is refused. One read joining api_tokens with the accounts' tables was
 * measured and not made: 30,700 against 35,200 instructions for the two (of ~49,000 a check), not
 * worth a repository reading another module's tables (issue 60).
 *
 * The two rows of a token that passed are kept, and used again while the connection's change
 * stamp stands still: any commit by another connection (the command line, a thread) or any row
 * changed on this one lets them all go, so a revocation or a narrowing, from anywhere, bites on
 * the very next request. The stamp is two statements that read no table; between requests the
 * CPU's caches have gone cold, and the two reads cost ~75 µs there against ~9 µs for the stamp
 * (docs/benchmarks.md). The secret's hash, the revocation, the expiry (against the clock) and the
 * membership are checked on every request as before, on the kept rows.
 */
function createAuthenticator(repo: TokensRepository, accounts: TokenAccounts, clock: Clock, write: Write<never>, changes: () => string) {
  const known = new Map<string, { row: TokenCheck; member: Access }>();
  let stamp = '';
  return (token: string | null): Authenticated | null => {
    const prefix = token === null ? null : tokenPrefix(token);
    const current = changes();
    if (current !== stamp) {
      known.clear();
      stamp = current;
    }
    const kept = prefix === null ? undefined : known.get(prefix);
    const row = kept?.row ?? (prefix === null ? undefined : repo.byPrefix(prefix));
    const presentedHash = hashToken(token ?? '');
    const hashMatches = sameHash(presentedHash, row?.secretHash ?? DUMMY_HASH);
    if (!row || !hashMatches) return null;
    const at = clock.now();
    if (row.revokedAt !== null) return null;
    if (row.expiresAt !== null && row.expiresAt <= at) return null;
    const member = kept?.member ?? accounts.access(row.workspaceId, row.userId);
    if (!member) return null;
    if (!kept && prefix !== null) {
      if (known.size >= KNOWN_TOKENS) known.clear();
      known.set(prefix, { row, member });
    }
    // A write: it moves the stamp, so the next check reads the rows again (with this time in them).
    if (row.lastUsedAt === null || row.lastUsedAt <= at - LAST_USED_GRANULARITY_MS)
      write(() => repo.touch(row.id, at, at - LAST_USED_GRANULARITY_MS));
    return {
      actor: {
        kind: 'member',
        tokenId: row.id,
        workspaceId: row.workspaceId,
        userId: row.userId,
        scopes: scopeSet(row.scopes),
        canViewOthersTime: row.mintedCanViewOthersTime && member.canViewOthersTime,
        canViewOthersMoney: row.mintedCanViewOthersMoney && member.canViewOthersMoney,
        isOwner: member.isOwner,
        currency: member.currency,
      },
      tokenRateLimitPerMin: row.rateLimitPerMin,
      workspaceRateLimitPerMin: member.workspaceRateLimitPerMin,
    };
  };
}
