import { toIso } from '../../kernel/time.js';
import type { EventRow } from './repository.js';

/** A sync event as `timetrack sync tail` prints it (and a first-party client reads it). */
export const eventView = (row: EventRow) => ({
  seq: row.seq,
  entity: row.entity,
  entityId: row.entityId,
  operation: row.operation,
  event: row.event,
  actorUserId: row.actorUserId,
  actorTokenId: row.actorTokenId,
  originId: row.originId,
  payload: row.payload === null ? null : (JSON.parse(row.payload) as unknown),
  createdAt: toIso(row.createdAt),
});

export type EventView = ReturnType<typeof eventView>;
