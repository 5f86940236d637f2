import { createHash, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Context } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
import type { ReadinessCheck } from '../health.js';
import { errorFields, type Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { RateLimiter } from './rate-limiter.js';
import type { Actor } from '../principal.js';
import { ThreadsBusy } from '../threads/queue.js';
import type { ReaderPool } from '../threads/readers/pool.js';
import { actorData, readHandlers } from '../threads/readers/tasks.js';
import type { Services } from '../services.js';
import { ContractBackend, type OperationInfo } from './backend.js';
import { type Negotiated, negotiate } from '../kernel/compression.js';
import { type ContractDocument, servedDocument } from '../contract.js';
import { API_REFERENCE_PATH, apiReferencePage } from './api-reference.js';
import { CHANGELOG_PATH, changelogPage } from './changelog.js';
import { compileDeprecations, type Deprecations } from './deprecation.js';
import { createCors } from './cors.js';
import { type CatalogValidators, catalogValidators, etagHeader, isCatalogList, keptLists, noneMatch } from './etag.js';
import { createHandlers } from '../operations/index.js';
import { type Handlers, type OperationId, PUBLIC_OPERATIONS } from '../operations/types.js';
import { type Exchange, newExchange, pipelineHooks, type Reply } from './pipeline.js';
import { problemPage } from './problem-pages.js';
import { type EncodedBody, HttpProblem, sendProblem, slugOfDomainError, writeJson } from './problems.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  contract: ContractDocument;
  services: Services;
  /** Where the heavy reads run (src/threads/readers). */
  readers: ReaderPool;
  /** The checks of GET /readyz. */
  readiness: ReadinessCheck;
  /** What GET /metrics serves; null when METRICS is off (then nothing is recorded). */
  metrics: Metrics | null;
  /** Tests of the pipeline itself adjust the handlers (a fixture contract, a missing handler). */
  handlers?: (real: Handlers) => Handlers;
  /** The pages (src/web: SETTINGS_PATH, /app and a browser's `/`), or null when SETTINGS_PATH is off. */
  web?: RequestHandler | null;
}

/** Where the web app is served (beside the settings, whose sessions it uses). */
export const APP_PATH = '/app';

/** A request for the pages: under SETTINGS_PATH or /app, or `/` from a browser. */
const isPage = (req: Request, settings: string) =>
  req.path === settings ||
  req.path.startsWith(`${settings}/`) ||
  req.path === APP_PATH ||
  req.path.startsWith(`${APP_PATH}/`) ||
  (req.path === '/' && (req.method === 'GET' || req.method === 'HEAD') && wantsPage(req.headers.accept));

/** A browser asking for a page (`/`): it accepts HTML before JSON; an API client asking for JSON gets the problem document. */
const wantsPage = (accept: string | undefined) => {
  const text = accept ?? '';
  const htmlAt = text.indexOf('text/html');
  const jsonAt = text.search(/application\/(problem\+)?json/);
  return htmlAt >= 0 && (jsonAt < 0 || htmlAt < jsonAt);
};

/** The catalog lists answered lately, by their ETag header (src/http/etag.ts). */
type KeptLists = ReturnType<typeof keptLists<Uint8Array | EncodedBody>>;
/** A heavy read's reply: its bytes (compressed on the reader thread, or not), or 304 for a catalog list whose ETag matched. */
type ReadReply = { status: 200; json: Uint8Array | EncodedBody; etag?: string } | { status: 304; etag: string };
/** A handler's reply; only GET /readyz answers 503 with a body. */
type Answer = Reply | ReadReply | { status: 503; body: unknown };
type AnyHandler = (request: { query: unknown; path: unknown; body: unknown; actor: unknown }) => Answer | Promise<Answer>;

/** The API reference and the changelog it links: pages for people, outside the contract. */
const DOCUMENT_PATHS = new Set([API_REFERENCE_PATH, CHANGELOG_PATH]);

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
  // The request validators of every operation, compiled in the background once the server has
  // had a second to listen and answer its first requests (until then each compiles on its first use).
  api.precompile(1_000);
  const real = createHandlers(deps.services, servedDocument(contract, config.baseUrl), deps.readiness);
  const handlers = deps.handlers ? deps.handlers(real) : real;
  checkHandlersMatchContract(handlers, api.operationInfos());

  const hooks = pipelineHooks({ config, tokens: deps.services.tokens, limiter: new RateLimiter(deps.clock) });
  api.registerSecurityHandler('bearerAuth', hooks.securityHandlers.bearerAuth);
  api.register(hooks.handlers);
  const validators = catalogValidators({ catalog: deps.services.catalog, events: deps.services.events });
  const kept = keptLists<Uint8Array | EncodedBody>({ entries: 16, maxBytes: 16 * 1024 * 1024 });
  const infos = api.operationInfos();
  const readable = readHandlers(deps.services);
  for (const [operationId, handler] of Object.entries(handlers) as Array<[OperationId, AnyHandler]>) {
    // The heavy reads (the contract marks them) go to the reader threads and come back as JSON bytes.
    if (infos.get(operationId)?.readerThread && handler === (real[operationId] as unknown)) {
      if (!readable[operationId]) throw new Error(`${operationId} is marked x-reader-thread, but a reader thread has no handler for it`);
      api.register(operationId, heavyRead(deps, validators, kept, operationId));
      continue;
    }
    api.register(operationId, (context: Context, exchange: Exchange) =>
      handler({ query: context.request.query, path: context.request.params, body: context.request.requestBody, actor: exchange.actor }),
    );
  }

  // The problem pages (when served here), the API reference and the metrics (when on) are the only
  // other paths: the API middleware comes first and hands them on, so an API request crosses one
  // Express layer.
  const pages = config.servesProblemPages ? new URL(config.problemsBase).pathname : null;
  const settings = config.settingsPath;
  const web = deps.web ?? null;
  const { metrics } = deps;
  const cors = createCors(config.corsOrigins, pathMethods(api));
  const deprecations = compileDeprecations(contract, `${config.baseUrl}${CHANGELOG_PATH}`);
  // API answers depend on these request headers besides the URL (no-store aside, a proxy must know).
  const vary = [cors?.vary, config.compressionMinBytes === null ? null : 'Accept-Encoding'].filter((v) => v).join(', ');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip: the socket's peer, or the client a trusted proxy names in X-Forwarded-For.
  app.set('trust proxy', config.trustProxy.length > 0 ? config.trustProxy : false);
  app.use(async (req, res, next) => {
    // The pages are no API request: their router (below) serves them, with their own sign-in.
    if (web && settings !== null && isPage(req, settings)) {
      next();
      return;
    }
    const exchange = newExchange(req, res);
    // Every response is what its Content-Type says: no browser guesses another type.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (
      (req.method === 'GET' || req.method === 'HEAD') &&
      ((pages !== null && (exchange.instance === pages || exchange.instance.startsWith(`${pages}/`))) ||
        DOCUMENT_PATHS.has(exchange.instance) ||
        (metrics !== null && exchange.instance === METRICS_PATH))
    ) {
      next();
      return;
    }
    res.setHeader('X-Request-Id', exchange.requestId);
    // API answers are per token and change with every write: no shared or private cache keeps
    // them (a proxy or a browser's disk would otherwise hold one member's entries).
    res.setHeader('Cache-Control', 'no-store');
    if (vary !== '') res.setHeader('Vary', vary);
    // A preflight from an allowed origin is answered here: it is no operation of the contract, so
    // it reads no token and draws on no budget (src/http/cors.ts).
    if (cors?.handle(req, res, exchange.instance)) {
      logRequest(exchange);
      return;
    }
    const negotiated = negotiate(req.headers['accept-encoding'], config.compressionMinBytes);
    try {
      const handled = api.handleRequest(exchange.request, exchange).finally(() => announceDeprecation(deprecations, exchange));
      await writeReply(res, (await handled) as Answer, negotiated);
    } catch (error) {
      await respondWithError(exchange, error, negotiated);
    }
    logRequest(exchange);
  });
  if (pages !== null) {
    const pageHandler = problemPage(config.problemsBase);
    app.get(pages, pageHandler);
    app.get(`${pages}/:slug`, pageHandler);
  }
  app.get(API_REFERENCE_PATH, apiReferencePage({ compressionMinBytes: config.compressionMinBytes, logger }));
  app.get(CHANGELOG_PATH, changelogPage({ compressionMinBytes: config.compressionMinBytes, logger }));
  if (metrics !== null) app.get(METRICS_PATH, metricsEndpoint(metrics, config, logger));
  if (settings !== null && web) app.use(web);

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
  function respondWithError(exchange: Exchange, error: unknown, negotiated: Negotiated | null): Promise<void> | undefined {
    const { res, req, instance, requestId } = exchange;
    if (res.headersSent) {
      logger.error('response failed after headers were sent', { requestId, ...errorFields(error) });
      res.destroy();
      return undefined;
    }
    // Refused before its body was read whole (413, or 401/403 that never read it): the
    // connection closes after the answer rather than reading the rest of the upload to reach
    // the next request.
    if (!req.complete) res.setHeader('Connection', 'close');
    if (error instanceof HttpProblem) {
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      return sendProblem(res, config.problemsBase, error.slug, error.detail, instance, negotiated);
    }
    if (error instanceof DomainError) {
      return sendProblem(res, config.problemsBase, slugOfDomainError[error.code], error.message, instance, negotiated);
    }
    logger.error('unhandled error', {
      requestId,
      method: req.method,
      path: instance,
      operationId: exchange.operationId,
      ...errorFields(error),
    });
    return sendProblem(res, config.problemsBase, 'internal-error', '', instance, negotiated);
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
    if (config.compressionMinBytes !== null) res.setHeader('Vary', 'Accept-Encoding');
    if (expected !== null && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="timetrack-metrics"');
      await sendProblem(res, config.problemsBase, 'invalid-token', 'GET /metrics needs the bearer token set in METRICS_TOKEN.', req.path);
      return;
    }
    try {
      const text = await metrics.render();
      res.statusCode = 200;
      await writeJson(res, metrics.contentType, text, negotiate(req.headers['accept-encoding'], config.compressionMinBytes));
    } catch (error) {
      logger.error('metrics could not be rendered', errorFields(error));
      await sendProblem(res, config.problemsBase, 'internal-error', '', req.path);
    }
  };
}

/**
 * Deprecation, Sunset and Link on every answer of a routed request (refusals included) whose
 * operation, or a parameter it was sent, the contract marks deprecated (src/http/deprecation.ts).
 */
function announceDeprecation(deprecations: Deprecations, exchange: Exchange): void {
  const { operationId, req, res } = exchange;
  // Most operations have nothing deprecated: no request view is made for them.
  if (operationId === undefined || !deprecations.touches(operationId) || res.headersSent) return;
  // Express parses the query anew on each read: the one as sent (the pipeline's copy drops workspaceId).
  const headers = deprecations.headers(operationId, {
    get query() {
      return req.query as Record<string, unknown>;
    },
    headers: req.headers,
  });
  if (headers) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/** Writes a handler's reply: no body for 204 and 304, else its JSON (compressed when asked and large enough). */
function writeReply(res: Response, reply: Answer, negotiated: Negotiated | null): Promise<void> | undefined {
  if ('etag' in reply && reply.etag !== undefined) res.setHeader('ETag', reply.etag);
  res.statusCode = reply.status;
  if (reply.status === 204 || reply.status === 304) {
    res.end();
    return undefined;
  }
  return writeJson(res, 'application/json; charset=utf-8', 'json' in reply ? reply.json : JSON.stringify(reply.body), negotiated);
}

/**
 * A heavy read, run on a reader thread, which also compresses its answer as the request
 * negotiated. A catalog list first makes its validator (a few index reads, src/http/etag.ts):
 * when `If-None-Match` names it the answer is 304, and the list is not read at all; when a list of
 * the same validator and coding was answered lately (`keptLists`), its bytes are answered again.
 */
function heavyRead(deps: AppDeps, validators: CatalogValidators, kept: KeptLists, operationId: OperationId) {
  const { config, clock, readers } = deps;
  return async (context: Context, exchange: Exchange): Promise<ReadReply> => {
    const { query, params } = context.request as { query: Record<string, unknown>; params: Record<string, string> };
    const actor = exchange.actor as Actor;
    // One instant for the validator and the read: a running timer's progress is measured to it.
    const now = clock.now();
    const compression = negotiate(exchange.req.headers['accept-encoding'], config.compressionMinBytes);
    let etag: string | undefined;
    if (isCatalogList(operationId)) {
      const tag = validators.tag(operationId, actor, query, now);
      etag = etagHeader(tag, compression);
      if (noneMatch(exchange.req.headers['if-none-match'], tag)) return { status: 304, etag };
      const again = kept.get(etag);
      if (again !== undefined) return { status: 200, json: again, etag };
    }
    const task = { operationId, query, path: params, actor: actorData(actor), now, requestId: exchange.requestId, compression };
    const json = await readers.run(task).catch((error: unknown) => {
      if (error instanceof ThreadsBusy)
        throw new HttpProblem('readers-busy', error.message, { 'Retry-After': String(error.retryAfterSec) });
      throw error;
    });
    if (etag === undefined) return { status: 200, json };
    kept.keep(etag, json);
    return { status: 200, json, etag };
  };
}

/** The methods the contract has for a path (GET with HEAD), for preflights; none for an unknown path. */
function pathMethods(api: ContractBackend): (path: string) => string[] {
  const methods = [...new Set(api.router.getOperations().map((operation) => operation.method.toLowerCase()))];
  return (path) =>
    methods
      .filter((method) => api.router.matchOperation({ method, path, headers: {}, query: {} }) !== undefined)
      .flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
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
