import type { Actor } from '../../principal.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { DomainEvent, DomainWrite, EventOperation } from '../events/service.js';
import type { CatalogRepository } from './repository.js';

/** What every catalog service is built from. */
export interface CatalogDeps {
  db: Db;
  clock: Clock;
  write: DomainWrite;
  repo: CatalogRepository;
}

export type CatalogEntity = 'client' | 'project' | 'task' | 'tag';

/** The sync event of a catalog write (catalog writes send no webhooks: `event` is null). */
export function catalogEvent(
  actor: Actor,
  entity: CatalogEntity,
  entityId: string,
  operation: EventOperation,
  payload: unknown,
): DomainEvent {
  return {
    workspaceId: actor.workspaceId,
    entity,
    entityId,
    operation,
    event: null,
    actor: { userId: actor.userId, tokenId: actor.tokenId },
    payload,
  };
}

/** Copies the fields a partial edit gives (null included: it clears), leaving absent ones alone. */
export function copyGiven<T extends object, K extends keyof T>(into: Partial<Record<K, unknown>>, patch: T, keys: readonly K[]): void {
  for (const key of keys) if (patch[key] !== undefined) into[key] = patch[key];
}

/** The 409 of a delete that a reference made meanwhile refused (the foreign key decided). */
export const stillReferenced = (entity: CatalogEntity, id: string) => () => `The ${entity} ${id} is still referenced; archive it instead.`;
