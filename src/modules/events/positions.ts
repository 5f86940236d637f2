import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { events } from './schema.js';

/** What a listing depends on: the catalog's own writes, or every write of the workspace (project progress follows entries). */
export type ChangeScope = 'catalog' | 'all';

const CATALOG_ENTITIES: Array<(typeof events.$inferSelect)['entity']> = ['client', 'project', 'task', 'tag'];
/** How many of a workspace's newest events are searched for its newest catalog event (~9 µs). */
const CATALOG_WINDOW = 100;

/**
 * Where a workspace's change log stands, as a short string that names one state of what a
 * listing reads: every write records an event with a new, ever-growing seq (AUTOINCREMENT, in
 * the write's transaction, writes one after the other), so the newest event names the state
 * its write left. The purge of old events always keeps each workspace's newest one, so it
 * stays the newest write however long ago it was made.
 *
 * - `c<seq>`: the newest catalog event (client, project, task, tag) among the workspace's newest
 *   100 (scope `catalog`: entry writes change no client, task or tag).
 * - `w<seq>`: the workspace's newest event (an index seek on events_ws_seq); `w0` when it has none.
 *
 * Only this workspace's writes move it. It is a counter: callers hash it before they show it.
 */
export function createChangeLogPositions(db: Db) {
  const workspaceId = sql.placeholder('workspaceId');
  const newest = db
    .select({ seq: events.seq })
    .from(events)
    .where(eq(events.workspaceId, workspaceId))
    .orderBy(desc(events.seq))
    .limit(1)
    .prepare();
  const recent = db
    .select({ seq: events.seq, entity: events.entity })
    .from(events)
    .where(eq(events.workspaceId, workspaceId))
    .orderBy(desc(events.seq))
    .limit(CATALOG_WINDOW)
    .as('recent');
  const newestCatalog = db
    .select({ seq: recent.seq })
    .from(recent)
    .where(inArray(recent.entity, CATALOG_ENTITIES))
    .orderBy(desc(recent.seq))
    .limit(1)
    .prepare();

  return {
    /** The position of a workspace's change log for a listing of `scope`. */
    position(workspace: string, scope: ChangeScope): string {
      if (scope === 'catalog') {
        const row = newestCatalog.get({ workspaceId: workspace });
        if (row) return `c${row.seq}`;
      }
      return `w${newest.get({ workspaceId: workspace })?.seq ?? 0}`;
    },
  };
}

export type ChangeLogPositions = ReturnType<typeof createChangeLogPositions>;
