import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ErrorObject } from 'ajv';
import express, { type Request, type Response } from 'express';
import type { Actor } from '../actor.js';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import { errorFields, type Logger } from '../logger.js';
import type { RateLimiter } from '../modules/ratelimit/limiter.js';
import type { TokensService } from '../modules/tokens/service.js';
import { bearerToken } from '../modules/tokens/token-format.js';
import type { Handlers, OperationId } from './handlers/types.js';
import { HttpProblem, sendProblem, slugOfDomainError } from './problems.js';
import type { Routes } from './routes.js';
import { describeValidationErrors } from './validation-errors.js';

/** Validates the request parts of one operation (openapi-backend's compiled Ajv validators). */
export type RequestValidator = ((parameters: Record<string, unknown>) => boolean) & { errors?: ErrorObject[] | null };

export interface PipelineDeps {
  config: Config;
  logger: Logger;
  tokens: TokensService;
  limiter: RateLimiter;
  routes: Routes;
  validators: ReadonlyMap<string, readonly RequestValidator[]>;
  handlers: Handlers;
}

export const INVALID_TOKEN_DETAIL =
  'The bearer token is missing, malformed, unknown, revoked or expired, or its owner is no longer a member of the workspace.';

type Query = Record<string, string | string[]>;
type AnyResult = { status: 200; body: unknown } | { status: 204 };

/**
 * The request pipeline, in the order the contract promises:
 * 1 route, 2 token, 3 rate limit, 4 scope, 5 workspaceId, 6 body and validation, 7 operation.
 * Every refusal is a problem document; anything unexpected is a 500 with a fixed detail.
 */
export function createPipeline(deps: PipelineDeps) {
  const { config, logger, tokens, limiter, routes, validators, handlers } = deps;
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
      jsonParser(req, res, (error?: unknown) => (error ? reject(error) : resolve(req.body)));
    });

  return async function pipeline(req: Request, res: Response): Promise<void> {
    const started = performance.now();
    const requestId = randomUUID();
    const instance = req.path;
    let actor: Actor | null = null;
    let operationId: string | undefined;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      logger.info('request', {
        requestId,
        method: req.method,
        path: instance,
        operationId,
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        tokenId: actor?.tokenId,
      });
    });

    try {
      const query = { ...(req.query as Query) };

      // 1. Route: an unknown path and a known path with another method are both no-such-route.
      const route = routes.match(req.method, instance);
      if (!route) throw new HttpProblem('no-such-route', `No route matches ${req.method} ${instance}.`);
      const { info } = route;
      operationId = info.operationId;

      if (info.authenticated) {
        // 2. Token: one and the same 401 for every kind of failure.
        const authenticated = tokens.authenticate(bearerToken(req.headers.authorization));
        if (!authenticated)
          throw new HttpProblem('invalid-token', INVALID_TOKEN_DETAIL, { 'WWW-Authenticate': 'Bearer realm="timetrack"' });
        actor = authenticated.actor;

        // 3. Rate limit: the tighter of the token's and the workspace's budget binds.
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

        // 4. Scope: deny by default.
        const held = actor.scopes;
        const missing = info.scopes.filter((scope) => !held.has(scope));
        if (missing.length > 0) {
          throw new HttpProblem(
            'insufficient-scope',
            `This route needs the scope ${missing.join(', ')}; the token holds ${held.size > 0 ? [...held].join(', ') : 'no scopes'}.`,
          );
        }
      }

      // The body is read only now, so a refused request costs no upload processing.
      let body: unknown;
      let bodyProblem: HttpProblem | undefined;
      if (info.hasBody) {
        try {
          body = await readBody(req, res);
        } catch (error) {
          bodyProblem = bodyParseProblem(error);
        }
      }

      // 5. workspaceId: the token's own is ignored; any other is refused.
      if (actor) checkWorkspaceId(actor, query, body);

      // 6. Validation against the contract (query and path values are coerced in place).
      if (bodyProblem) throw bodyProblem;
      normaliseArrayParams(query, info.arrayQueryParams);
      const parameters: Record<string, unknown> = { path: route.params, query, header: req.headers, cookie: {} };
      if (body !== undefined) parameters.requestBody = body;
      const errors: ErrorObject[] = [];
      for (const validate of validators.get(info.operationId) ?? []) {
        if (!validate(parameters) && validate.errors) errors.push(...validate.errors);
      }
      if (errors.length > 0) throw new HttpProblem('invalid-request', describeValidationErrors(errors));

      // 7. The operation.
      const handler = handlers[info.operationId as OperationId] as unknown as (request: unknown) => AnyResult | Promise<AnyResult>;
      const result = await handler({ query, path: route.params, body, actor });
      if ('body' in result) {
        res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify(result.body));
      } else {
        res.status(204).end();
      }
    } catch (error) {
      if (res.headersSent) {
        logger.error('response failed after headers were sent', { requestId, ...errorFields(error) });
        res.destroy();
        return;
      }
      if (error instanceof HttpProblem) {
        for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
        sendProblem(res, config.problemsBase, error.slug, error.detail, instance);
      } else if (error instanceof DomainError) {
        sendProblem(res, config.problemsBase, slugOfDomainError[error.code], error.message, instance);
      } else {
        logger.error('unhandled error', { requestId, method: req.method, path: instance, operationId, ...errorFields(error) });
        sendProblem(res, config.problemsBase, 'internal-error', '', instance);
      }
    }
  };
}

function checkWorkspaceId(actor: Actor, query: Query, body: unknown): void {
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

/** `tagIds=a&tagIds=b` and `tagIds=a,b` (and mixtures) both become `['a', 'b']`. */
function normaliseArrayParams(query: Query, names: ReadonlySet<string>): void {
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    query[name] = values.flatMap((v) => v.split(','));
  }
}

function bodyParseProblem(error: unknown): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    return new HttpProblem(
      'payload-too-large',
      `The request body exceeds ${(error as { limit?: number }).limit ?? 'the'} bytes this route accepts.`,
    );
  }
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
