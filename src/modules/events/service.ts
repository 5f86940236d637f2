import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { toIso } from '../../kernel/time.js';
import { events } from './schema.js';

export type EventEntity = (typeof events.$inferInsert)['entity'];
export type EventOperation = (typeof events.$inferInsert)['operation'];

/** Who made a write: a token's member, a member through the CLI, or the server itself (null). */
export interface EventActor {
  userId: string | null;
  tokenId: string | null;
}

export interface DomainEvent {
  workspaceId: string;
  entity: EventEntity;
  entityId: string;
  operation: EventOperation;
  /** The webhook event name for entry and invoice events; catalog events have none. */
  event: string | null;
  actor: EventActor;
  originId?: string | null;
  payload: unknown;
}

/** Runs inside the event's transaction, after the event row is written (the webhook outbox). */
export type EventSubscriber = (tx: Db, seq: number, event: DomainEvent) => void;

/** The write helper of the domain services: what they record are domain events. */
export type DomainWrite = Write<DomainEvent>;

/**
 * The domain event log: the realtime sync events and the source of webhook deliveries. `record`
 * runs inside the write's transaction (src/db/write.ts), so a write and its event commit or roll
 * back together. Payloads are API views of the entity as the write left it.
 */
export function createEventLog({ db, clock, subscriber }: { db: Db; clock: Clock; subscriber?: EventSubscriber }) {
  const insert = db
    .insert(events)
    .values({
      workspaceId: sql.placeholder('workspaceId'),
      entity: sql.placeholder('entity'),
      entityId: sql.placeholder('entityId'),
      operation: sql.placeholder('operation'),
      event: sql.placeholder('event'),
      actorUserId: sql.placeholder('actorUserId'),
      actorTokenId: sql.placeholder('actorTokenId'),
      originId: sql.placeholder('originId'),
      payload: sql.placeholder('payload'),
      createdAt: sql.placeholder('createdAt'),
    })
    .returning({ seq: events.seq })
    .prepare();

  return {
    /**
     * Records an event. `tx` must be the database (or transaction) of the write in progress:
     * with better-sqlite3 one connection carries the transaction, so the event commits with it.
     */
    record(tx: Db, event: DomainEvent): number {
      const row = insert.get({
        workspaceId: event.workspaceId,
        entity: event.entity,
        entityId: event.entityId,
        operation: event.operation,
        event: event.event,
        actorUserId: event.actor.userId,
        actorTokenId: event.actor.tokenId,
        originId: event.originId ?? null,
        payload: event.payload === undefined ? null : JSON.stringify(event.payload),
        createdAt: clock.now(),
      }) as { seq: number };
      subscriber?.(tx, row.seq, event);
      return row.seq;
    },

    /** Events of a workspace after `afterSeq`, oldest first (`timetrack sync tail`). */
    tail(workspaceId: string, afterSeq = 0, limit = 1000) {
      return db
        .select()
        .from(events)
        .where(and(eq(events.workspaceId, workspaceId), gt(events.seq, afterSeq)))
        .orderBy(asc(events.seq))
        .limit(limit)
        .all()
        .map((row) => ({
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
        }));
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
