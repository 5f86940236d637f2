import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { events } from '../events/schema.js';

/** What a listing depends on: the catalog's own writes, or every write of the workspace (project progress follows entries). */
export type ChangeScope = 'catalog' | 'all';

const CATALOG_ENTITIES: Array<(typeof events.$inferSelect)['entity']> = ['client', 'project', 'task', 'tag'];
/** How many of a workspace's newest events are searched for its newest catalog event (~9 µs). */
const CATALOG_WINDOW = 100;
const DAY_MS = 86_400_000;

/**
 * Where a workspace's change log stands, as a short string that names one state of what a
 * listing reads: every write records an event with a new, ever-growing seq (AUTOINCREMENT, in
 * the write's transaction, writes one after the other), so the newest event names the state
 * its write left.
 *
 * - `c<seq>`: the newest catalog event (client, project, task, tag) among the workspace's newest
 *   100 (scope `catalog`: entry writes change no client, task or tag).
 * - `w<seq>`: the workspace's newest event (an index seek on events_ws_seq).
 * - `g<seq>`: the last seq ever issued, over every workspace, when the workspace's newest event
 *   is older than the retention minus a day or there is none. Old events are purged
 *   (EVENT_RETENTION_DAYS), and one a webhook delivery refers to outlives newer ones: the newest
 *   remaining one may then no longer be the newest write, so an old or missing newest event
 *   names no state; the global sequence still does (any write moves it).
 */
export function createChangeLogPositions(db: Db) {
  const workspaceId = sql.placeholder('workspaceId');
  const newest = db
    .select({ seq: events.seq, createdAt: events.createdAt })
    .from(events)
    .where(eq(events.workspaceId, workspaceId))
    .orderBy(desc(events.seq))
    .limit(1)
    .prepare();
  const recent = db
    .select({ seq: events.seq, entity: events.entity, createdAt: events.createdAt })
    .from(events)
    .where(eq(events.workspaceId, workspaceId))
    .orderBy(desc(events.seq))
    .limit(CATALOG_WINDOW)
    .as('recent');
  const newestCatalog = db
    .select({ seq: recent.seq, createdAt: recent.createdAt })
    .from(recent)
    .where(inArray(recent.entity, CATALOG_ENTITIES))
    .orderBy(desc(recent.seq))
    .limit(1)
    .prepare();
  // Read only when the workspace's own log names no state (rare): not worth a prepared statement.
  const issued = () => db.get<{ seq: number } | undefined>(sql`select seq from sqlite_sequence where name = 'events'`)?.seq ?? 0;

  return {
    /** The position of a workspace's change log for a listing of `scope`, read at `now` (ms). */
    position(workspace: string, scope: ChangeScope, now: number, retentionDays: number): string {
      const horizon = now - (retentionDays - 1) * DAY_MS;
      if (scope === 'catalog') {
        const row = newestCatalog.get({ workspaceId: workspace });
        if (row && row.createdAt >= horizon) return `c${row.seq}`;
      }
      const row = newest.get({ workspaceId: workspace });
      if (row && row.createdAt >= horizon) return `w${row.seq}`;
      return `g${issued()}`;
    },
  };
}

export type ChangeLogPositions = ReturnType<typeof createChangeLogPositions>;
