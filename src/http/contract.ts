import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Scope } from '../actor.js';
import { PACKAGE_ROOT } from '../paths.js';

export const CONTRACT_PATH = join(PACKAGE_ROOT, 'openapi', 'openapi.yaml');

/** A JSON object as parsed from YAML. */
export type ContractDocument = Record<string, unknown> & { paths: Record<string, Record<string, OperationObject>> };

interface ParameterObject {
  name: string;
  in: string;
  schema?: { type?: unknown };
  $ref?: string;
}

interface OperationObject {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: ParameterObject[];
  requestBody?: unknown;
}

/** What the pipeline needs to know of one operation, read from the contract once at start. */
export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** False only for operations with `security: []`. */
  authenticated: boolean;
  /** Every scope the security requirement lists; the token must hold all of them. */
  scopes: Scope[];
  /** Query parameters declared as arrays: repeated and comma-separated values are both accepted. */
  arrayQueryParams: ReadonlySet<string>;
  hasBody: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function loadContract(path = CONTRACT_PATH): ContractDocument {
  return parse(readFileSync(path, 'utf8')) as ContractDocument;
}

function resolveRef<T>(document: ContractDocument, value: T & { $ref?: string }): T {
  if (!value.$ref) return value;
  const pointer = value.$ref.replace(/^#\//, '').split('/');
  let node: unknown = document;
  for (const part of pointer) node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (node === undefined) throw new Error(`Unresolvable $ref ${value.$ref} in the contract`);
  return node as T;
}

export function describeOperations(document: ContractDocument): OperationInfo[] {
  const globalSecurity = (document.security as OperationObject['security']) ?? [];
  const operations: OperationInfo[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId in the contract`);
      if (operation.operationId.startsWith('webhook'))
        throw new Error(`${operation.operationId}: the prefix webhook is kept for the contract's webhooks`);
      const security = operation.security ?? globalSecurity;
      if (security.length > 1) throw new Error(`${operation.operationId}: only one security requirement is supported`);
      const parameters = (operation.parameters ?? []).map((p) => resolveRef(document, p));
      operations.push({
        operationId: operation.operationId,
        method,
        path,
        authenticated: security.length > 0,
        scopes: (security[0]?.bearerAuth ?? []) as Scope[],
        arrayQueryParams: new Set(parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name)),
        hasBody: operation.requestBody !== undefined,
      });
    }
  }
  return operations;
}

/** The document as served from /api/v1/openapi.json: `servers` names this deployment. */
export function servedDocument(document: ContractDocument, baseUrl: string): ContractDocument {
  return { ...document, servers: [{ url: baseUrl }] };
}
