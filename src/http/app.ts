import { performance } from 'node:perf_hooks';
import express, { type Express } from 'express';
import type { Context } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import { errorFields, type Logger } from '../logger.js';
import { RateLimiter } from '../modules/ratelimit/limiter.js';
import type { Actor } from '../actor.js';
import type { ReaderPool } from '../readers/pool.js';
import { actorData, isReadOperation } from '../readers/tasks.js';
import type { Services } from '../services.js';
import { ContractBackend, type OperationInfo } from './backend.js';
import { type ContractDocument, servedDocument } from './contract.js';
import { createHandlers } from './handlers/index.js';
import { type Handlers, type OperationId, PUBLIC_OPERATIONS } from './handlers/types.js';
import { type Exchange, newExchange, pipelineHooks, type Reply } from './pipeline.js';
import { problemPage } from './problem-pages.js';
import { HttpProblem, sendProblem, slugOfDomainError, writeJson } from './problems.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  contract: ContractDocument;
  services: Services;
  /** Where the heavy reads run (src/readers). */
  readers: ReaderPool;
  /** Tests of the pipeline itself adjust the handlers (a fixture contract, a missing handler). */
  handlers?: (real: Handlers) => Handlers;
}

type AnyHandler = (request: { query: unknown; path: unknown; body: unknown; actor: unknown }) => Reply | Promise<Reply>;

/**
 * The Express application: every API request enters openapi-backend's handleRequest, which routes
 * it, runs the pipeline's hooks and dispatches it by operationId to the handler registered for it;
 * the reply (or the refusal) is written here, in one place. Fails at start if the contract and
 * the handlers do not match one to one.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { config, logger, contract } = deps;
  const api = new ContractBackend(contract);
  await api.init();
  const real = createHandlers(deps.services, servedDocument(contract, config.baseUrl));
  const handlers = deps.handlers ? deps.handlers(real) : real;
  checkHandlersMatchContract(handlers, api.operationInfos());

  const hooks = pipelineHooks({ config, tokens: deps.services.tokens, limiter: new RateLimiter(deps.clock) });
  api.registerSecurityHandler('bearerAuth', hooks.securityHandlers.bearerAuth);
  api.register(hooks.handlers);
  for (const [operationId, handler] of Object.entries(handlers) as Array<[OperationId, AnyHandler]>) {
    // The heavy reads go to the reader threads and come back as JSON text.
    if (isReadOperation(operationId) && handler === (real[operationId] as unknown)) {
      api.register(operationId, async (context: Context, exchange: Exchange): Promise<Reply> => {
        const { query, params } = context.request as { query: Record<string, unknown>; params: Record<string, string> };
        const actor = exchange.actor as Actor;
        const task = { operationId, query, path: params, actor: actorData(actor), now: deps.clock.now(), requestId: exchange.requestId };
        return { status: 200, json: await deps.readers.run(task) };
      });
      continue;
    }
    api.register(operationId, (context: Context, exchange: Exchange) =>
      handler({ query: context.request.query, path: context.request.params, body: context.request.requestBody, actor: exchange.actor }),
    );
  }

  // The problem pages (when served here) are the only other paths: the API middleware comes first
  // and hands them on, so an API request crosses one Express layer.
  const pages = config.servesProblemPages ? new URL(config.problemsBase).pathname : null;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip: the socket's peer, or the client a trusted proxy names in X-Forwarded-For.
  app.set('trust proxy', config.trustProxy.length > 0 ? config.trustProxy : false);
  app.use(async (req, res, next) => {
    const exchange = newExchange(req, res);
    // Every response is what its Content-Type says: no browser guesses another type.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (
      pages !== null &&
      (exchange.instance === pages || exchange.instance.startsWith(`${pages}/`)) &&
      (req.method === 'GET' || req.method === 'HEAD')
    ) {
      next();
      return;
    }
    res.setHeader('X-Request-Id', exchange.requestId);
    // API answers are per token and change with every write: no shared or private cache keeps
    // them (a proxy or a browser's disk would otherwise hold one member's entries).
    res.setHeader('Cache-Control', 'no-store');
    try {
      const reply = (await api.handleRequest(exchange.request, exchange)) as Reply;
      if (reply.status === 200) {
        res.statusCode = 200;
        writeJson(res, 'application/json; charset=utf-8', 'json' in reply ? reply.json : JSON.stringify(reply.body));
      } else {
        res.statusCode = 204;
        res.end();
      }
    } catch (error) {
      respondWithError(exchange, error);
    }
    logRequest(exchange);
  });
  if (pages !== null) {
    const pageHandler = problemPage(config.problemsBase);
    app.get(pages, pageHandler);
    app.get(`${pages}/:slug`, pageHandler);
  }

  /** One line per request, written with its response. */
  function logRequest(exchange: Exchange): void {
    logger.info('request', {
      requestId: exchange.requestId,
      method: exchange.req.method,
      path: exchange.instance,
      operationId: exchange.operationId,
      status: exchange.res.statusCode,
      durationMs: Math.round((performance.now() - exchange.startedAt) * 100) / 100,
      tokenId: exchange.actor?.tokenId,
    });
  }

  /** Every refusal and failure becomes a problem document; anything unexpected is a 500. */
  function respondWithError(exchange: Exchange, error: unknown): void {
    const { res, req, instance, requestId } = exchange;
    if (res.headersSent) {
      logger.error('response failed after headers were sent', { requestId, ...errorFields(error) });
      res.destroy();
      return;
    }
    // Refused before its body was read whole (413, or 401/403 that never read it): the
    // connection closes after the answer rather than reading the rest of the upload to reach
    // the next request.
    if (!req.complete) res.setHeader('Connection', 'close');
    if (error instanceof HttpProblem) {
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      sendProblem(res, config.problemsBase, error.slug, error.detail, instance);
    } else if (error instanceof DomainError) {
      sendProblem(res, config.problemsBase, slugOfDomainError[error.code], error.message, instance);
    } else {
      logger.error('unhandled error', {
        requestId,
        method: req.method,
        path: instance,
        operationId: exchange.operationId,
        ...errorFields(error),
      });
      sendProblem(res, config.problemsBase, 'internal-error', '', instance);
    }
  }
  return app;
}

export function checkHandlersMatchContract(
  handlers: Handlers,
  operations: ReadonlyMap<string, Pick<OperationInfo, 'authenticated'>>,
): void {
  const handled = new Set(Object.keys(handlers));
  const missing = [...operations.keys()].filter((id) => !handled.has(id));
  const extra = [...handled].filter((id) => !operations.has(id));
  const publicInContract = [...operations]
    .filter(([, op]) => !op.authenticated)
    .map(([id]) => id)
    .sort();
  const publicDeclared = [...PUBLIC_OPERATIONS].sort();
  const problems = [
    ...missing.map((id) => `contract operation ${id} has no handler`),
    ...extra.map((id) => `handler ${id} has no contract operation`),
    ...(publicInContract.join() === publicDeclared.join()
      ? []
      : [
          `operations without security in the contract (${publicInContract.join(', ')}) differ from PUBLIC_OPERATIONS (${publicDeclared.join(', ')})`,
        ]),
  ];
  if (problems.length > 0) throw new Error(`The handlers do not match the contract: ${problems.join('; ')}`);
}
