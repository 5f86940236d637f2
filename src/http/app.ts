import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import express, { type Express, type RequestHandler } from 'express';
import type { Context } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import type { ReadinessCheck } from '../health.js';
import { errorFields, type Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
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
  /** The checks of GET /readyz. */
  readiness: ReadinessCheck;
  /** What GET /metrics serves; null when METRICS is off (then nothing is recorded). */
  metrics: Metrics | null;
  /** Tests of the pipeline itself adjust the handlers (a fixture contract, a missing handler). */
  handlers?: (real: Handlers) => Handlers;
}

/** A handler's reply; only GET /readyz answers 503 with a body. */
type Answer = Reply | { status: 503; body: unknown };
type AnyHandler = (request: { query: unknown; path: unknown; body: unknown; actor: unknown }) => Answer | Promise<Answer>;

/** Where the Prometheus metrics are served (outside the contract, like the problem pages). */
const METRICS_PATH = '/metrics';

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
  const real = createHandlers(deps.services, servedDocument(contract, config.baseUrl), deps.readiness);
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

  // The problem pages (when served here) and the metrics (when on) are the only other paths: the
  // API middleware comes first and hands them on, so an API request crosses one Express layer.
  const pages = config.servesProblemPages ? new URL(config.problemsBase).pathname : null;
  const { metrics } = deps;
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
      (req.method === 'GET' || req.method === 'HEAD') &&
      ((pages !== null && (exchange.instance === pages || exchange.instance.startsWith(`${pages}/`))) ||
        (metrics !== null && exchange.instance === METRICS_PATH))
    ) {
      next();
      return;
    }
    res.setHeader('X-Request-Id', exchange.requestId);
    // API answers are per token and change with every write: no shared or private cache keeps
    // them (a proxy or a browser's disk would otherwise hold one member's entries).
    res.setHeader('Cache-Control', 'no-store');
    try {
      const reply = (await api.handleRequest(exchange.request, exchange)) as Answer;
      if (reply.status === 204) {
        res.statusCode = 204;
        res.end();
      } else {
        res.statusCode = reply.status;
        writeJson(res, 'application/json; charset=utf-8', 'json' in reply ? reply.json : JSON.stringify(reply.body));
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
  if (metrics !== null) app.get(METRICS_PATH, metricsEndpoint(metrics, config, logger));

  /** One line per request, written with its response; and its metrics, when on. */
  function logRequest(exchange: Exchange): void {
    const durationMs = performance.now() - exchange.startedAt;
    const status = exchange.res.statusCode;
    logger.info('request', {
      requestId: exchange.requestId,
      method: exchange.req.method,
      path: exchange.instance,
      operationId: exchange.operationId,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
      tokenId: exchange.actor?.tokenId,
    });
    metrics?.request(exchange.operationId, status, durationMs / 1000, exchange.actor !== null);
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

/**
 * GET /metrics: the Prometheus text format; with METRICS_TOKEN, only for `Authorization: Bearer
 * <it>` (compared in constant time), else 401 invalid-token.
 */
function metricsEndpoint(metrics: Metrics, config: Config, logger: Logger): RequestHandler {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = config.metricsToken === undefined ? null : digest(`Bearer ${config.metricsToken}`);
  return async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (expected !== null && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="timetrack-metrics"');
      sendProblem(res, config.problemsBase, 'invalid-token', 'GET /metrics needs the bearer token set in METRICS_TOKEN.', req.path);
      return;
    }
    try {
      const text = await metrics.render();
      res.statusCode = 200;
      writeJson(res, metrics.contentType, text);
    } catch (error) {
      logger.error('metrics could not be rendered', errorFields(error));
      sendProblem(res, config.problemsBase, 'internal-error', '', req.path);
    }
  };
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
