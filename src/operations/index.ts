import { durably } from '../db/durability.js';
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
  const handlers: Handlers = {
    ...metaHandlers({ servedDocument }),
    ...healthHandlers({ readiness }),
    ...entryHandlers(services),
    ...catalogHandlers(services),
    ...reportHandlers(services),
  };
  // A handler that committed hands back its reply only once the commit is on disk (group commit:
  // src/db/durability.ts); one that did not commit, at once.
  const { durability } = services;
  for (const id of Object.keys(handlers) as Array<keyof Handlers>) {
    const handler = handlers[id] as (request: unknown) => unknown;
    (handlers as Record<string, unknown>)[id] = (request: unknown) => durably(durability, () => handler(request));
  }
  return handlers;
}
