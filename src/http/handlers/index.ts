import type { ContractDocument } from '../contract.js';
import { metaHandlers } from './meta.js';
import type { Handlers } from './types.js';

export interface HandlerDeps {
  servedDocument: ContractDocument;
}

/** Every operation's handler, keyed by operationId. */
export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    ...metaHandlers(deps),
  };
}
