import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { toIso } from '../../kernel/time.js';
import { createChangeLogPositions } from './positions.js';
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
  const positions = createChangeLogPositions(db);
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

    /**
     * Deletes up to `batch` events recorded before `before` (ms), oldest first, keeping those a
     * delivery log row still refers to (the log keeps 30 days) and each workspace's newest event
     * (it names the state of the workspace's data: `position`). Returns how many went. Its cost
     * is what it deletes: the last old event is found by a binary search over seq (seq grows
     * with time), so no scan reaches the events kept.
     */
    purge(before: number, batch = 5000): number {
      const last = lastSeqBefore(before);
      if (last === null) return 0;
      return db.run(sql`delete from events where seq in (
          select e.seq from events e
           where e.seq <= ${last}
             and not exists (select 1 from webhook_deliveries d where d.event_seq = e.seq)
             and exists (select 1 from events n where n.workspace_id = e.workspace_id and n.seq > e.seq)
           order by e.seq limit ${batch})`).changes;
    },

    /** Where a workspace's change log stands (what the catalog lists' validators are made of). */
    position: positions.position,

    /** The oldest event still kept (null when the log is empty): a sync client that last read before it must resync. */
    oldestSeq: (): number | null => db.get<{ seq: number | null }>(sql`select min(seq) as seq from events`).seq,
  };

  /** The last seq recorded before `before`, or null: a binary search of ~log2(n) point reads. */
  function lastSeqBefore(before: number): number | null {
    const at = (seq: number) =>
      db.get<{ seq: number; createdAt: number } | undefined>(
        sql`select seq, created_at as createdAt from events where seq >= ${seq} order by seq limit 1`,
      );
    const first = at(0);
    if (!first || first.createdAt >= before) return null;
    let low = first.seq; // recorded before `before`
    let high = db.get<{ seq: number }>(sql`select max(seq) as seq from events`).seq + 1; // beyond the last
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const row = at(middle);
      if (row && row.createdAt < before) low = row.seq;
      else high = middle;
    }
    return low;
  }
}

export type EventLog = ReturnType<typeof createEventLog>;
