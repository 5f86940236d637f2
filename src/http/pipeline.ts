import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import express, { type Request, type Response } from 'express';
import type { Context } from 'openapi-backend';
import type { Actor } from '../principal.js';
import type { Config } from '../config.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Authenticated, TokensService } from '../modules/tokens/service.js';
import { addressKey } from '../kernel/address.js';
import { bearerToken } from '../modules/tokens/service.js';
import { type ApiRequest, type BoundedErrors, infoOf } from './backend.js';
import { UNMETERED_OPERATIONS } from '../operations/types.js';
import { HttpProblem } from './problems.js';
import { describeValidationErrors } from './validation-errors.js';

export const INVALID_TOKEN_DETAIL =
  'The bearer token is missing, malformed, unknown, revoked or expired, or its owner is no longer a member of the workspace.';

/** One request on its way through openapi-backend: passed to every hook and handler. */
export interface Exchange {
  req: Request;
  res: Response;
  /** What openapi-backend routes and validates (the same object through every step). */
  request: ApiRequest;
  requestId: string;
  startedAt: number;
  /** The request path without the query: the problem's `instance`. */
  instance: string;
  operationId?: string;
  actor: Actor | null;
}

export interface PipelineDeps {
  config: Config;
  tokens: TokensService;
  limiter: RateLimiter;
}

/** A reply an operation handler returns; the app writes it. */
export type Reply = { status: 200; body: unknown } | { status: 200; json: Uint8Array } | { status: 204 };

export function newExchange(req: Request, res: Response): Exchange {
  const instance = req.path;
  return {
    req,
    res,
    // Express 5 parses the query string anew on each read of req.query: this object is ours.
    request: { method: req.method, path: instance, headers: req.headers as ApiRequest['headers'], query: req.query as ApiRequest['query'] },
    requestId: randomUUID(),
    startedAt: performance.now(),
    instance,
    actor: null,
  };
}

/**
 * The request pipeline as openapi-backend hooks, in the order the contract promises:
 * 1 route (notFound, methodNotAllowed), 2 token (the bearerAuth security handler,
 * unauthorizedHandler), 3 rate limit, 4 scope, 5 workspaceId and the body (postSecurityHandler),
 * 6 validation (openapi-backend, validationFail), 7 the operation (registered handlers).
 * Every refusal is an HttpProblem thrown to the app, which writes every response.
 */
export function pipelineHooks(deps: PipelineDeps) {
  const { config, tokens, limiter } = deps;
  const jsonParser = express.json({ limit: config.maxBodyBytes, strict: true, type: () => true });

  const readBody = (req: Request, res: Response): Promise<unknown> =>
    new Promise((resolve, reject) => {
      // An empty body is no body (body-parser would read it as {}).
      if (
        req.headers['content-length'] === '0' ||
        (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
      ) {
        resolve(undefined);
        return;
      }
      if (!req.is(['application/json', 'application/*+json'])) {
        const contentType = req.headers['content-type'];
        reject(new HttpProblem('invalid-request', `body: Content-Type must be application/json (got ${contentType ?? 'none'}).`));
        return;
      }
      // Over the limit: answered at once, and the connection closes after the answer (app.ts),
      // instead of reading the rest of the upload as body-parser does before it reports.
      const limit = config.maxBodyBytes;
      if (Number(req.headers['content-length']) > limit) {
        reject(tooLarge(limit));
        return;
      }
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received > limit) reject(tooLarge(limit));
      };
      req.on('data', count);
      jsonParser(req, res, (error?: unknown) => {
        req.off('data', count);
        if (error) reject(error);
        else resolve(req.body);
      });
    });

  /** A path with a trailing slash names no route; the detail names the one without it, if any. */
  const noSuchRoute = (context: Context, exchange: Exchange): never => {
    const { method } = exchange.req;
    const path = exchange.instance;
    let hint = '';
    if (path.length > 1 && path.endsWith('/')) {
      const trimmed = path.replace(/\/+$/, '') || '/';
      if (context.api.router.matchOperation({ method, path: trimmed, headers: {}, query: {} }))
        hint = ` Paths have no trailing slash: ${method} ${trimmed}.`;
    }
    throw new HttpProblem('no-such-route', `No route matches ${method} ${path}.${hint}`);
  };

  const anonymousBudget = addressBudget(config, limiter);

  return {
    securityHandlers: {
      /** 2. The token: the actor, or null for every kind of failure. */
      bearerAuth: (_context: Context, exchange: Exchange): Authenticated | null =>
        tokens.authenticate(bearerToken(exchange.req.headers.authorization)),
    },
    handlers: {
      // 1. An unknown path and a known path with another method are both no-such-route.
      notFound: noSuchRoute,
      methodNotAllowed: noSuchRoute,

      unauthorizedHandler: (_context: Context, exchange: Exchange): never => {
        anonymousBudget(exchange);
        throw new HttpProblem('invalid-token', INVALID_TOKEN_DETAIL, { 'WWW-Authenticate': 'Bearer realm="timetrack"' });
      },

      /** Synchronous unless the operation takes a body: most requests pay for no promise here. */
      postSecurityHandler(context: Context, exchange: Exchange): Promise<void> | undefined {
        const info = infoOf(context.operation);
        exchange.operationId = info.operationId;
        if (info.authenticated) {
          const authenticated = context.security.bearerAuth as Authenticated | null | undefined;
          // The unauthorizedHandler answers 401 next.
          if (!context.security.authorized || !authenticated) return;
          exchange.actor = authenticated.actor;
          rateLimit(authenticated, exchange.res);
          checkScopes(info.scopes, authenticated.actor);
          // The health checks draw nothing from the per-address budget (a monitor polls them).
        } else if (!UNMETERED_OPERATIONS.has(info.operationId)) anonymousBudget(exchange);
        if (!info.hasBody) {
          if (exchange.actor) checkWorkspaceId(exchange.actor, exchange.request);
          return;
        }
        return withBody(exchange);
      },

      // 6. Validation against the contract (query and path values coerced in place).
      validationFail: (context: Context): never => {
        throw new HttpProblem('invalid-request', describeValidationErrors((context.validation.errors ?? []) as BoundedErrors));
      },
    },
  };

  /** The body is read only now, so a refused request costs no upload processing. */
  async function withBody(exchange: Exchange): Promise<void> {
    let bodyProblem: HttpProblem | undefined;
    try {
      exchange.request.body = await readBody(exchange.req, exchange.res);
    } catch (error) {
      bodyProblem = bodyParseProblem(error);
    }
    // 5. workspaceId: the token's own is ignored; any other is refused (before a body problem).
    if (exchange.actor) checkWorkspaceId(exchange.actor, exchange.request);
    if (bodyProblem) throw bodyProblem;
  }

  /** 3. The tighter of the token's and the workspace's budget binds. */
  function rateLimit(authenticated: Authenticated, res: Response): void {
    const { actor } = authenticated;
    const decision = limiter.take([
      { key: `token:${actor.tokenId}`, limit: authenticated.tokenRateLimitPerMin ?? config.rateLimitTokenPerMin },
      { key: `workspace:${actor.workspaceId}`, limit: authenticated.workspaceRateLimitPerMin ?? config.rateLimitWorkspacePerMin },
    ]);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSec));
    if (!decision.allowed) {
      const whose = decision.binding.startsWith('token:') ? 'this token' : 'this workspace';
      throw new HttpProblem(
        'rate-limited',
        `Rate limit of ${decision.limit} requests per minute for ${whose} exceeded; retry in ${decision.resetSec} seconds.`,
        { 'Retry-After': String(decision.resetSec) },
      );
    }
  }
}

/** 4. Scopes are deny-by-default. */
function checkScopes(needed: readonly string[], actor: Actor): void {
  const held = actor.scopes as ReadonlySet<string>;
  const missing = needed.filter((scope) => !held.has(scope));
  if (missing.length > 0) {
    throw new HttpProblem(
      'insufficient-scope',
      `This route needs the scope ${missing.join(', ')}; the token holds ${held.size > 0 ? [...held].join(', ') : 'no scopes'}.`,
    );
  }
}

function checkWorkspaceId(actor: Actor, request: ApiRequest): void {
  const { query, body } = request;
  if (query.workspaceId !== undefined) {
    const values = Array.isArray(query.workspaceId) ? query.workspaceId : [query.workspaceId];
    if (values.some((value) => value !== actor.workspaceId)) throw workspaceNotAddressable('query.workspaceId');
    delete query.workspaceId;
  }
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'workspaceId' in body) {
    const record = body as Record<string, unknown>;
    if (record.workspaceId !== actor.workspaceId) throw workspaceNotAddressable('body.workspaceId');
    delete record.workspaceId;
  }
}

const workspaceNotAddressable = (field: string) =>
  new HttpProblem(
    'workspace-not-addressable',
    `${field} names a different workspace than the token's; a token addresses only its own workspace, so leave workspaceId out.`,
  );

const tooLarge = (limit: number) => new HttpProblem('payload-too-large', `The request body exceeds ${limit} bytes this route accepts.`);

function bodyParseProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return tooLarge((error as { limit: number }).limit);
  if (type === 'entity.parse.failed') {
    return new HttpProblem('invalid-request', `body: is not a valid JSON object or array (${(error as Error).message}).`);
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new HttpProblem('invalid-request', `body: ${(error as Error).message}; send UTF-8 JSON.`);
  }
  // Anything else the body reader raises (a body labelled gzip, deflate or br that does not
  // decode, an aborted upload) is the request's fault.
  return new HttpProblem('invalid-request', `body: could not be read (${(error as Error).message}).`);
}

/**
 * Requests without a valid token (a missing or wrong one, and the unauthenticated contract
 * route) draw on their client address's budget; past it they are refused with 429. An unknown
 * route reads nothing (no token lookup, no database) and stays a 404.
 */
function addressBudget(config: Config, limiter: RateLimiter): (exchange: Exchange) => void {
  return (exchange: Exchange): void => {
    const address = exchange.req.ip ?? exchange.req.socket.remoteAddress ?? 'unknown';
    // An IPv6 client counts by its /64: one subscriber holds a whole /64.
    const decision = limiter.take([{ key: `address:${addressKey(address)}`, limit: config.rateLimitAnonymousPerMin }]);
    if (decision.allowed) return;
    throw new HttpProblem(
      'rate-limited',
      `More than ${decision.limit} requests per minute without a valid token came from ${address}; retry in ${decision.resetSec} seconds.`,
      {
        'Retry-After': String(decision.resetSec),
        'RateLimit-Limit': String(decision.limit),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': String(decision.resetSec),
      },
    );
  };
}
