import type { operations } from '../../generated/openapi.js';
import type { Actor } from '../principal.js';

/*
 * Handler types derived from the generated contract types: a contract change that breaks a
 * handler's parameters, body or response breaks `tsc`.
 */

/** The API's operations; the contract's `webhooks` (operationIds `webhook…`) are sent, not served. */
export type OperationId = Exclude<keyof operations, `webhook${string}`>;

/** Operations with `security: []` in the contract; checked against the contract at start. */
export const PUBLIC_OPERATIONS = ['getOpenApiDocument', 'getLiveness', 'getReadiness'] as const satisfies readonly OperationId[];
type PublicOperationId = (typeof PUBLIC_OPERATIONS)[number];

/**
 * Public operations that draw nothing from the per-address budget of requests without a token:
 * the health checks, which a monitor polls and which cost a query at most.
 */
export const UNMETERED_OPERATIONS: ReadonlySet<string> = new Set<PublicOperationId>(['getLiveness', 'getReadiness']);

type Parameters<Op extends OperationId> = operations[Op]['parameters'];
type Part<Op extends OperationId, K extends 'query' | 'path'> = K extends keyof Parameters<Op>
  ? [NonNullable<Parameters<Op>[K]>] extends [never]
    ? Record<string, never>
    : NonNullable<Parameters<Op>[K]>
  : Record<string, never>;

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type RequestBody<Op extends OperationId> = operations[Op] extends { requestBody: infer RB }
  ? JsonContent<RB>
  : operations[Op] extends { requestBody?: infer RB }
    ? JsonContent<NonNullable<RB>> | undefined
    : undefined;
type Responses<Op extends OperationId> = operations[Op]['responses'];

export type SuccessBody<Op extends OperationId> = 200 extends keyof Responses<Op> ? JsonContent<Responses<Op>[200]> : never;

export type HandlerResult<Op extends OperationId> =
  | (200 extends keyof Responses<Op> ? { status: 200; body: SuccessBody<Op> } : never)
  | (204 extends keyof Responses<Op> ? { status: 204 } : never)
  | (503 extends keyof Responses<Op> ? { status: 503; body: JsonContent<Responses<Op>[503]> } : never);

/** A request that passed routing, token, rate limit, scope and contract validation. */
export interface HandlerRequest<Op extends OperationId> {
  /** Validated and coerced query parameters (array parameters are arrays). */
  query: Part<Op, 'query'>;
  path: Part<Op, 'path'>;
  body: RequestBody<Op>;
  actor: Op extends PublicOperationId ? null : Actor;
}

export type Handler<Op extends OperationId> = (request: HandlerRequest<Op>) => HandlerResult<Op> | Promise<HandlerResult<Op>>;

/** Exactly one handler per contract operation: a missing or extra key fails to compile. */
export type Handlers = { [Op in OperationId]: Handler<Op> };

export const ok = <B>(body: B): { status: 200; body: B } => ({ status: 200, body });
export const noContent = { status: 204 } as const;

/**
 * The create, get, update and delete of a resource kept by id, each one call of its service (a
 * delete answers 204): the entries' and the catalog's, whose handlers say this four times over.
 */
export function byIdHandlers<Body, Patch, View>(service: {
  create(actor: Actor, body: Body): View;
  get(actor: Actor, id: string): View;
  update(actor: Actor, id: string, patch: Patch): View;
  delete(actor: Actor, id: string): void;
}) {
  return {
    create: ({ actor, body }: { actor: Actor; body: Body }) => ok({ data: service.create(actor, body) }),
    get: ({ actor, path }: { actor: Actor; path: { id: string } }) => ok({ data: service.get(actor, path.id) }),
    update: ({ actor, path, body }: { actor: Actor; path: { id: string }; body: Patch }) =>
      ok({ data: service.update(actor, path.id, body) }),
    delete: ({ actor, path }: { actor: Actor; path: { id: string } }) => {
      service.delete(actor, path.id);
      return noContent;
    },
  };
}
