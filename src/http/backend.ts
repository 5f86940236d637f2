import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  OpenAPIBackend,
  OpenAPIRouter,
  OpenAPIValidator,
  type Operation,
  type ParsedRequest,
  type Request,
  type ValidationContext,
  type ValidationResult,
} from 'openapi-backend';
import type { Scope } from '../principal.js';
import type { ContractDocument } from '../contract.js';

/** What the pipeline needs to know of one operation, read from the contract once at start. */
export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** False only for operations with `security: []`. */
  authenticated: boolean;
  /** Every scope the security requirement lists; the token must hold all of them. */
  scopes: readonly Scope[];
  /** Query parameters declared as arrays: repeated and comma-separated values are both accepted. */
  arrayQueryParams: ReadonlySet<string>;
  hasBody: boolean;
  /** `x-reader-thread: true` in the contract: a heavy read, answered on a reader thread. */
  readerThread: boolean;
}

/** The request openapi-backend sees: Express's, reduced to what routing and validation read. */
export interface ApiRequest extends Request {
  query: Record<string, string | string[]>;
  /** Filled by the router when it matches: the path parameters, percent-decoded. */
  params?: Record<string, string>;
}

interface Route {
  info: OperationInfo;
  operation: Operation;
  /** Templated paths only: the pattern and the names of its parameters. */
  pattern?: RegExp;
  names?: string[];
}

const INFO = Symbol('operation info');
type WithInfo = Operation & { [INFO]?: OperationInfo };

/** The pipeline's facts about an operation the router matched. */
export const infoOf = (operation: Operation): OperationInfo => {
  const info = (operation as WithInfo)[INFO];
  if (!info) throw new Error(`operation ${operation.operationId} was not compiled by the router`);
  return info;
};

function describe(operation: Operation): OperationInfo {
  const security = (operation.security ?? []) as Array<Record<string, string[]>>;
  if (!operation.operationId) throw new Error(`${operation.method.toUpperCase()} ${operation.path} has no operationId in the contract`);
  if (operation.operationId.startsWith('webhook'))
    throw new Error(`${operation.operationId}: the prefix webhook is kept for the contract's webhooks`);
  if (security.length > 1) throw new Error(`${operation.operationId}: only one security requirement is supported`);
  const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string; schema?: { type?: unknown } }>;
  return {
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    authenticated: security.length > 0,
    scopes: (security[0]?.bearerAuth ?? []) as Scope[],
    arrayQueryParams: new Set(parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name)),
    hasBody: operation.requestBody !== undefined,
    readerThread: (operation as { 'x-reader-thread'?: unknown })['x-reader-thread'] === true,
  };
}

const escapeRegExp = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * openapi-backend's router with its route table compiled once. The stock router rebuilds the
 * operation list with lodash and compiles a RegExp per templated path on every request, parses
 * cookies and deep-clones the query twice per request; this one looks exact paths up in a map,
 * tries the templated ones (most specific first) with patterns compiled at start, and parses a
 * request in a few property reads.
 *
 * Routing rules (documented in the contract's description): paths match exactly, so a trailing
 * slash names no route; `HEAD` is answered by the `GET` operation of the path; a path that exists
 * with another method is 405 for openapi-backend, which the pipeline answers as 404.
 */
export class CompiledRouter extends OpenAPIRouter {
  private readonly operations: Operation[];
  private readonly byId = new Map<string, Operation>();
  private readonly exact = new Map<string, Route>();
  private readonly templated: Route[] = [];
  /** Every path of the contract, with and without templates, for the 405 decision. */
  private readonly exactPaths = new Set<string>();

  constructor(opts: { definition: ContractDocument }) {
    super({ definition: opts.definition as never, apiRoot: '/', ignoreTrailingSlashes: false });
    this.operations = super.getOperations();
    const templated: Array<Route & { literal: number }> = [];
    for (const operation of this.operations) {
      const info = describe(operation);
      (operation as WithInfo)[INFO] = info;
      this.byId.set(info.operationId, operation);
      if (!operation.path.includes('{')) {
        this.exact.set(`${operation.method} ${operation.path}`, { info, operation });
        this.exactPaths.add(operation.path);
        continue;
      }
      const names: string[] = [];
      const source = operation.path
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const name = /^\{([^}]+)\}$/.exec(part)?.[1];
          if (!name) return escapeRegExp(part);
          names.push(name);
          return '([^/]+)';
        })
        .join('');
      templated.push({
        info,
        operation,
        pattern: new RegExp(`^${source}$`),
        names,
        literal: operation.path.replace(/\{[^}]+\}/g, '').length,
      });
    }
    // Most specific first: /entries/current before /entries/{id}.
    this.templated = templated.sort((a, b) => b.literal - a.literal);
  }

  override getOperations(): Operation[] {
    return this.operations;
  }

  override getOperation(operationId: string): Operation | undefined {
    return this.byId.get(operationId);
  }

  override matchOperation(req: Request): Operation | undefined;
  override matchOperation(req: Request, strict: boolean): Operation;
  override matchOperation(req: Request, strict?: boolean): Operation | undefined {
    const method = req.method.toLowerCase() === 'head' ? 'get' : req.method.toLowerCase();
    const path = req.path;
    const hit = this.exact.get(`${method} ${path}`);
    if (hit) {
      matched(req as ApiRequest, hit.info, {});
      return hit.operation;
    }
    let pathExists = this.exactPaths.has(path);
    for (const route of this.templated) {
      const found = (route.pattern as RegExp).exec(path);
      if (!found) continue;
      pathExists = true;
      if (route.operation.method !== method) continue;
      const params: Record<string, string> = {};
      (route.names as string[]).forEach((name, i) => {
        const raw = found[i + 1] as string;
        // A segment that is not valid percent-encoding stays as sent: it still names this
        // route (token, scope and then a 404 for an id nothing has).
        try {
          params[name] = decodeURIComponent(raw);
        } catch {
          params[name] = raw;
        }
      });
      matched(req as ApiRequest, route.info, params);
      return route.operation;
    }
    if (!strict) return undefined;
    // The messages openapi-backend's handleRequest dispatches on.
    throw new Error(
      pathExists ? '405-methodNotAllowed: this method is not registered for the route' : '404-notFound: no route matches request',
    );
  }

  /**
   * The parsed request: the query as Express parsed it (array parameters made arrays when the
   * route was matched), the path parameters the match found, no cookies (the API reads none).
   */
  override parseRequest(req: Request): ParsedRequest {
    const request = req as ApiRequest;
    return {
      method: request.method.toLowerCase(),
      path: request.path,
      headers: request.headers,
      query: request.query,
      params: request.params ?? {},
      cookies: {},
      requestBody: request.body,
      body: request.body,
    };
  }
}

/**
 * Records a match on the request: its path parameters, and its array query parameters as arrays
 * (`tagIds=a&tagIds=b` and `tagIds=a,b`, and mixtures, all become `['a', 'b']`).
 */
function matched(request: ApiRequest, info: OperationInfo, params: Record<string, string>): void {
  request.params = params;
  const { query } = request;
  if (query === undefined) return;
  for (const name of info.arrayQueryParams) {
    const value = query[name];
    if (value === undefined) continue;
    query[name] = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(','));
  }
}

/** Validation errors kept per request; the rest are counted (a huge invalid body must not cost a huge answer). */
export const MAX_VALIDATION_ERRORS = 20;

/** Ajv's errors of one request, bounded, with how many more there were. */
export type BoundedErrors = ErrorObject[] & { omitted?: number };

/**
 * Compiled request validators per contract document, shared by every backend built from the same
 * document in this process. A deployment builds one; the tests start hundreds of servers, and
 * compiling every operation's validators took ~0.3 s of each start. Ajv's validators are pure
 * functions of their schema, so sharing them changes no answer.
 */
const compiledByContract = new WeakMap<object, Map<string, ValidateFunction[]>>();

/**
 * openapi-backend's validator with a lighter request walk: the compiled Ajv validators of the
 * operation run over the request the router parsed (path, query, headers, body) without lodash
 * passes, cookie parsing or re-parsing. It keeps at most MAX_VALIDATION_ERRORS errors (the stock
 * one spreads every error into one push, which overflows the stack for a body with ~150,000
 * failing items) and counts the others.
 */
export class ContractValidator extends OpenAPIValidator {
  private compiled = new Map<string, ValidateFunction[]>();

  /** Uses (and fills) the compiled validators of `contract` that other backends made. */
  share(contract: object): void {
    let shared = compiledByContract.get(contract);
    if (!shared) compiledByContract.set(contract, (shared = new Map()));
    this.compiled = shared;
  }

  override getRequestValidatorsForOperation(operationId: string): ValidateFunction[] {
    let validators = this.compiled.get(operationId);
    if (!validators) this.compiled.set(operationId, (validators = super.getRequestValidatorsForOperation(operationId)));
    return validators;
  }

  /**
   * The shared Ajv of these options (customizeAjv's). The stock method first builds a draft-07 Ajv
   * with its formats only to hand it to customizeAjv, which drops it: ~10 ms at the first
   * request's validators, ~1 ms at every operation's after.
   */
  override getAjv(
    validationContext: ValidationContext,
    opts: Parameters<OpenAPIValidator['getAjv']>[1] = {},
  ): ReturnType<OpenAPIValidator['getAjv']> {
    if (!this.customizeAjv) return super.getAjv(validationContext, opts);
    return this.customizeAjv(undefined as never, { ...this.ajvOpts, ...opts }, validationContext);
  }

  override validateRequest(req: Request, operation?: Operation | string): ValidationResult<Request> {
    const request = req as ApiRequest;
    const op = typeof operation === 'string' ? this.router.getOperation(operation) : (operation ?? this.router.matchOperation(req));
    if (!op?.operationId) throw new Error('Unknown operation');
    const parameters: Record<string, unknown> = { path: request.params ?? {}, query: request.query, header: request.headers, cookie: {} };
    if (request.body !== undefined) parameters.requestBody = request.body;
    const errors: BoundedErrors = [];
    let omitted = 0;
    for (const validate of this.getRequestValidatorsForOperation(op.operationId) ?? []) {
      if (validate(parameters) || !validate.errors) continue;
      for (const error of validate.errors) {
        if (errors.length < MAX_VALIDATION_ERRORS) errors.push(error);
        else omitted++;
      }
    }
    if (omitted > 0) errors.omitted = omitted;
    return {
      valid: errors.length === 0,
      errors: errors.length === 0 ? null : errors,
      // Coerced in place by Ajv: the query and path values the handler receives.
      coerced: { ...request, query: parameters.query as ApiRequest['query'], params: parameters.path as Record<string, string> },
    };
  }
}

/**
 * openapi-backend, with the compiled router and Ajv for JSON Schema 2020-12 (the contract is
 * OpenAPI 3.1; openapi-backend's own Ajv is draft-07).
 */
export class ContractBackend extends OpenAPIBackend {
  private readonly source: ContractDocument;

  constructor(contract: ContractDocument) {
    const ajvByOptions = new Map<string, Ajv2020>();
    super({
      // A copy: openapi-backend dereferences the definition in place.
      definition: structuredClone(contract) as never,
      strict: true,
      validate: true,
      // Quick: synchronous dereferencing, no check of the document against the OpenAPI 3.0
      // schema (ours is 3.1, linted by redocly in `npm test`), and no eager compiling of response
      // validators, which the server never uses; request validators are compiled in init().
      quick: true,
      coerceTypes: true,
      ignoreTrailingSlashes: false,
      // verbose: errors carry the value as sent and the failing schema (its x-accepts hint).
      // validateSchema: false: no check of each schema against JSON Schema's meta-schema, whose
      // own compiling was ~160 ms of every cold start (the contract is linted by redocly and
      // spectral in `npm test`, and every schema is compiled here anyway).
      ajvOpts: { allErrors: true, strict: false, verbose: true, validateSchema: false },
      // One Ajv per option set (parameters are coerced, bodies are not), shared by every
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
    this.source = contract;
  }

  override async init(): Promise<this> {
    await super.init();
    // The extension points: the stock router and validator, built by super.init(), are replaced
    // by the compiled router and the lighter validator.
    this.router = new CompiledRouter({ definition: this.definition as ContractDocument });
    this.validator = new ContractValidator({
      definition: this.definition,
      ajvOpts: this.ajvOpts,
      ...(this.customizeAjv ? { customizeAjv: this.customizeAjv } : {}),
      router: this.router,
      lazyCompileValidators: true,
      coerceTypes: this.coerceTypes,
    });
    (this.validator as ContractValidator).share(this.source);
    return this;
  }

  /**
   * Compiles every operation's request validators in the background, one operation per turn of
   * the event loop, starting `afterMs` from now: each is otherwise compiled on its operation's
   * first request. The server calls it once it listens: compiling before listening took ~170 ms
   * of every cold start, and run from init() the turns still fell between the start's awaits and
   * its first requests (~390 ms of CPU in a start's first second).
   */
  precompile(afterMs: number): void {
    const pending = this.router.getOperations().map((operation) => operation.operationId as string);
    const compileNext = () => {
      const operationId = pending.shift();
      if (operationId === undefined) return;
      this.validator.getRequestValidatorsForOperation(operationId);
      setTimeout(compileNext, 0).unref();
    };
    setTimeout(compileNext, afterMs).unref();
  }

  /** The facts of every operation, keyed by operationId. */
  operationInfos(): Map<string, OperationInfo> {
    return new Map(this.router.getOperations().map((operation) => [operation.operationId as string, infoOf(operation)]));
  }
}
