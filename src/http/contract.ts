import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../paths.js';

export const CONTRACT_PATH = join(PACKAGE_ROOT, 'openapi', 'openapi.yaml');

/** A JSON object as parsed from YAML. */
export type ContractDocument = Record<string, unknown> & { paths: Record<string, Record<string, OperationObject>> };

interface OperationObject {
  operationId?: string;
}

export function loadContract(path = CONTRACT_PATH): ContractDocument {
  return parse(readFileSync(path, 'utf8')) as ContractDocument;
}

/** The document as served from /api/v1/openapi.json: `servers` names this deployment. */
export function servedDocument(document: ContractDocument, baseUrl: string): ContractDocument {
  return { ...document, servers: [{ url: baseUrl }] };
}
