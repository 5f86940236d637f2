import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import express, { type Express } from 'express';
import { OpenAPIBackend } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { CatalogService } from '../modules/catalog/service.js';
import type { EntriesService } from '../modules/entries/service.js';
import { RateLimiter } from '../modules/ratelimit/limiter.js';
import type { ReportsService } from '../modules/reports/service.js';
import type { TokensService } from '../modules/tokens/service.js';
import { type ContractDocument, describeOperations, servedDocument } from './contract.js';
import { createHandlers } from './handlers/index.js';
import { type Handlers, PUBLIC_OPERATIONS } from './handlers/types.js';
import { createPipeline, type RequestValidator } from './pipeline.js';
import { problemPage } from './problem-pages.js';
import { compileRoutes } from './routes.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  contract: ContractDocument;
  tokens: TokensService;
  entries: EntriesService;
  catalog: CatalogService;
  reports: ReportsService;
  /** Tests of the pipeline itself adjust the handlers (a fixture contract, a missing handler). */
  handlers?: (real: Handlers) => Handlers;
}

/**
 * The Express application: the contract's operations behind the request pipeline, plus the
 * problem pages. Fails if the contract and the handlers do not match one to one.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { config, contract } = deps;
  const real = createHandlers({
    servedDocument: servedDocument(contract, config.baseUrl),
    entries: deps.entries,
    catalog: deps.catalog,
    reports: deps.reports,
  });
  const handlers = deps.handlers ? deps.handlers(real) : real;
  const operations = new Map(describeOperations(contract).map((op) => [op.operationId, op]));
  checkHandlersMatchContract(handlers, operations);

  const ajvByOptions = new Map<string, Ajv2020>();
  const api = new OpenAPIBackend({
    // A copy: openapi-backend dereferences the definition in place.
    definition: structuredClone(contract) as never,
    strict: true,
    validate: true,
    // Quick: synchronous dereferencing and no eager compiling of response validators, which the
    // server never uses; request validators are compiled below, before the first request.
    quick: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, strict: false },
    // openapi-backend's own Ajv is draft-07; the contract is OpenAPI 3.1, i.e. JSON Schema 2020-12.
    // One instance per option set (parameters are coerced, bodies are not), shared by every
    // operation: building an Ajv with its formats per validator made start-up slow.
    customizeAjv: (_ajv, options) => {
      const key = JSON.stringify(options);
      let ajv = ajvByOptions.get(key);
      if (!ajv) {
        ajv = new Ajv2020({ ...options, strict: false });
        addFormats.default(ajv);
        ajvByOptions.set(key, ajv);
      }
      return ajv as never;
    },
  });
  // openapi-backend checks definitions against the OpenAPI 3.0 schema; ours is 3.1 and is
  // linted by redocly in `npm test` instead.
  api.validateDefinition = function validateDefinition() {
    return this.document;
  };
  await api.init();
  // Request validators compiled before the first request; routing is our own precompiled table.
  const validators = new Map(
    [...operations.keys()].map((id) => [id, (api.validator.getRequestValidatorsForOperation(id) ?? []) as unknown as RequestValidator[]]),
  );

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.servesProblemPages) {
    const path = new URL(config.problemsBase).pathname;
    const pageHandler = problemPage(config.problemsBase);
    app.get(path, pageHandler);
    app.get(`${path}/:slug`, pageHandler);
  }
  app.use(
    createPipeline({
      config,
      logger: deps.logger,
      tokens: deps.tokens,
      limiter: new RateLimiter(deps.clock),
      routes: compileRoutes(operations.values()),
      validators,
      handlers,
    }),
  );
  return app;
}

export function checkHandlersMatchContract(handlers: Handlers, operations: ReadonlyMap<string, { authenticated: boolean }>): void {
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
