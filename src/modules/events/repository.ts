import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { events } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type EventRow = typeof events.$inferSelect;

const p = (name: string) => sql.placeholder(name);

const CATALOG_ENTITIES: Array<EventRow['entity']> = ['client', 'project', 'task', 'tag'];
/** How many of a workspace's newest events are searched for its newest catalog event (~9 µs). */
const CATALOG_WINDOW = 100;

/** Every SQL statement of the events module, over the events table only. */
export function createEventsRepository(db: Db) {
  const recent = db
    .select({ seq: events.seq, entity: events.entity })
    .from(events)
    .where(eq(events.workspaceId, p('workspaceId')))
    .orderBy(desc(events.seq))
    .limit(CATALOG_WINDOW)
    .as('recent');
  const statements = preparedOnFirstUse(db, {
    insert: () =>
      db
        .insert(events)
        .values({
          workspaceId: p('workspaceId'),
          entity: p('entity'),
          entityId: p('entityId'),
          operation: p('operation'),
          event: p('event'),
          actorUserId: p('actorUserId'),
          actorTokenId: p('actorTokenId'),
          originId: p('originId'),
          payload: p('payload'),
          createdAt: p('createdAt'),
        })
        .returning({ seq: events.seq })
        .prepare(),
    bySeq: () =>
      db
        .select()
        .from(events)
        .where(eq(events.seq, p('seq')))
        .prepare(),
    newest: () =>
      db
        .select({ seq: events.seq })
        .from(events)
        .where(eq(events.workspaceId, p('workspaceId')))
        .orderBy(desc(events.seq))
        .limit(1)
        .prepare(),
    newestCatalog: () =>
      db
        .select({ seq: recent.seq })
        .from(recent)
        .where(inArray(recent.entity, CATALOG_ENTITIES))
        .orderBy(desc(recent.seq))
        .limit(1)
        .prepare(),
  });
  return {
    insert: (values: typeof events.$inferInsert): number => (statements.insert.get(values as never) as { seq: number }).seq,
    bySeq: (seq: number): EventRow | undefined => statements.bySeq.get({ seq }),
    /** A workspace's newest event's seq (an index seek on events_ws_seq), or undefined. */
    newest: (workspaceId: string): number | undefined => statements.newest.get({ workspaceId })?.seq,
    /** The newest catalog event among the workspace's newest 100. */
    newestCatalog: (workspaceId: string): number | undefined => statements.newestCatalog.get({ workspaceId })?.seq,
    /** Events of a workspace after `afterSeq`, oldest first. */
    after: (workspaceId: string, afterSeq: number, limit: number): EventRow[] =>
      db
        .select()
        .from(events)
        .where(and(eq(events.workspaceId, workspaceId), gt(events.seq, afterSeq)))
        .orderBy(asc(events.seq))
        .limit(limit)
        .all(),
    /** Every workspace's events after `afterSeq`, oldest first, without payload but the entry's author (the web app's live feed). */
    feed: (afterSeq: number, limit: number) =>
      db
        .select({
          seq: events.seq,
          workspaceId: events.workspaceId,
          entity: events.entity,
          entityId: events.entityId,
          operation: events.operation,
          authorId: sql<string | null>`json_extract(${events.payload}, '$.authorId')`,
        })
        .from(events)
        .where(gt(events.seq, afterSeq))
        .orderBy(asc(events.seq))
        .limit(limit)
        .all(),
    /** The first event at or after `seq` (seq and its time), for the purge's binary search. */
    atOrAfter: (seq: number) =>
      db.get<{ seq: number; createdAt: number } | undefined>(
        sql`select seq, created_at as createdAt from events where seq >= ${seq} order by seq limit 1`,
      ),
    maxSeq: (): number => db.get<{ seq: number | null }>(sql`select max(seq) as seq from events`).seq ?? 0,
    oldestSeq: (): number | null => db.get<{ seq: number | null }>(sql`select min(seq) as seq from events`).seq,
    /** Up to `batch` seqs after `fromSeq` and up to `last`, oldest first, leaving out each workspace's newest event. */
    purgeCandidates: (fromSeq: number, last: number, batch: number): number[] =>
      db
        .all<{ seq: number }>(
          sql`select e.seq from events e
               where e.seq > ${fromSeq} and e.seq <= ${last}
                 and exists (select 1 from events n where n.workspace_id = e.workspace_id and n.seq > e.seq)
               order by e.seq limit ${batch}`,
        )
        .map((r) => r.seq),
    deleteSeqs: (seqs: number[]): number =>
      seqs.length === 0 ? 0 : db.run(sql`delete from events where seq in (select value from json_each(${JSON.stringify(seqs)}))`).changes,
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
