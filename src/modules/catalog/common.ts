import type { Actor } from '../../principal.js';
import type { Clock } from '../../clock.js';
import type { DomainEvent, DomainWrite, EventOperation } from '../events/service.js';
import type { CatalogRepository } from './repository.js';

/** What the catalog reads of the entries module: whether rows are in use, and the running timers. */
export interface CatalogEntries {
  usesProject(projectId: string): boolean;
  usesTask(taskId: string): boolean;
  usesTag(tagId: string): boolean;
  /** The running timers of a workspace (a handful: one per member at most). */
  running(workspaceId: string): Array<{ projectId: string | null; startAt: number; billable: boolean; hourlyRate: number | null }>;
}

/** What every catalog service is built from. */
export interface CatalogDeps {
  clock: Clock;
  write: DomainWrite;
  repo: CatalogRepository;
  /** Resolved when first used: the entries module is built after the catalog. */
  entries: () => CatalogEntries;
}

export type CatalogEntity = 'client' | 'project' | 'task' | 'tag';

/** The sync event of a catalog write (catalog writes send no webhooks: `event` is null). */
export function catalogEvent(
  actor: Pick<Actor, 'workspaceId' | 'tokenId'> & { userId: string | null },
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
