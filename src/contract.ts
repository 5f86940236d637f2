import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './paths.js';

/** The contract as written (openapi/openapi.yaml) and as compiled by `npm run generate` (checked fresh in `npm test`). */
export const CONTRACT_PATH = join(PACKAGE_ROOT, 'openapi', 'openapi.yaml');
export const COMPILED_CONTRACT_PATH = join(PACKAGE_ROOT, 'generated', 'contract.json');

/** A JSON object as parsed from YAML. */
export type ContractDocument = Record<string, unknown> & { paths: Record<string, Record<string, OperationObject>> };

interface OperationObject {
  operationId?: string;
}

/** The contract, from its compiled JSON (the same document as the YAML: `npm run generate:check`). */
export function loadContract(path = COMPILED_CONTRACT_PATH): ContractDocument {
  return JSON.parse(readFileSync(path, 'utf8')) as ContractDocument;
}

/** The document as served from /api/v1/openapi.json: `servers` names this deployment. */
export function servedDocument(document: ContractDocument, baseUrl: string): ContractDocument {
  return { ...document, servers: [{ url: baseUrl }] };
}
