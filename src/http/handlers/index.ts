import type { CatalogService } from '../../modules/catalog/service.js';
import type { EntriesService } from '../../modules/entries/service.js';
import type { ReportsService } from '../../modules/reports/service.js';
import type { ContractDocument } from '../contract.js';
import { catalogHandlers } from './catalog.js';
import { entryHandlers } from './entries.js';
import { metaHandlers } from './meta.js';
import { reportHandlers } from './reports.js';
import type { Handlers } from './types.js';

export interface HandlerDeps {
  servedDocument: ContractDocument;
  entries: EntriesService;
  catalog: CatalogService;
  reports: ReportsService;
}

/** Every operation's handler, keyed by operationId. */
export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    ...metaHandlers(deps),
    ...entryHandlers(deps),
    ...catalogHandlers(deps),
    ...reportHandlers(deps),
  };
}
