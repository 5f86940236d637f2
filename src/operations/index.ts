import type { ReadinessCheck } from '../health.js';
import type { Services } from '../services.js';
import type { ContractDocument } from '../contract.js';
import { catalogHandlers } from './catalog.js';
import { entryHandlers } from './entries.js';
import { healthHandlers } from './health.js';
import { metaHandlers } from './meta.js';
import { reportHandlers } from './reports.js';
import type { Handlers } from './types.js';

/** Every operation's handler, keyed by operationId: each turns a validated request into one service call. */
export function createHandlers(services: Services, servedDocument: ContractDocument, readiness: ReadinessCheck): Handlers {
  return {
    ...metaHandlers({ servedDocument }),
    ...healthHandlers({ readiness }),
    ...entryHandlers(services),
    ...catalogHandlers(services),
    ...reportHandlers(services),
  };
}
