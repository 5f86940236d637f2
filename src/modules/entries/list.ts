import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Actor } from '../../actor.js';
import type { Db } from '../../db/database.js';
import { clients, projects, tasks } from '../catalog/schema.js';
import type { CursorCodec, CursorPosition } from '../paging/cursor.js';
import { entries, entryTags } from './schema.js';
import { entryRowView, type EntryRow, type EntryRowView, type ViewContext } from './views.js';

export interface EntryFilters {
  projectIds?: string[];
  clientIds?: string[];
  taskIds?: string[];
  tagIds?: string[];
  userIds?: string[];
  billable?: boolean;
  search?: string;
}

export interface ListSpec {
  /** Names the listing in its cursors: a cursor of one listing is refused by another. */
  listing: string;
  /** Overlap of [from, to) (GET /entries), or start within [from, to) and completed (reports). */
  select: 'overlap' | 'startedCompleted';
  order: 'desc' | 'asc';
  from: number;
  to: number;
  filters: EntryFilters;
  cursor?: string;
  limit: number;
}

export interface Page {
  rows: EntryRowView[];
  nextCursor: string | null;
}

/**
 * Keyset-paged entry rows over (start, id), shared by GET /entries and the detailed report.
 * Completed entries are read through the (workspace[, author], start, id) index with a lower
 * bound on start taken from the longest completed entry; running entries (few) are read apart
 * and merged in, so no query scans the whole workspace.
 */
export function createEntryLister({ db, cursors }: { db: Db; cursors: CursorCodec }) {
  const longest = db
    .select({ max: sql<number | null>`max(${entries.durationSec})` })
    .from(entries)
    .where(eq(entries.workspaceId, sql.placeholder('workspaceId')))
    .prepare();

  const filterConditions = (actor: Actor, filters: EntryFilters) => entryFilterConditions(db, actor, filters);

  function keyset(order: 'asc' | 'desc', position: CursorPosition | undefined): SQL | undefined {
    if (!position) return undefined;
    const before = order === 'desc';
    return or(
      before ? lt(entries.startAt, position.start) : gt(entries.startAt, position.start),
      and(eq(entries.startAt, position.start), before ? lt(entries.id, position.id) : gt(entries.id, position.id)),
    );
  }

  function query(where: SQL | undefined, order: 'asc' | 'desc' | null, limit: number) {
    const select = db
      .select({ entry: entries, projectName: projects.name, projectColor: projects.color, clientName: clients.name, taskName: tasks.name })
      .from(entries)
      .leftJoin(projects, eq(projects.id, entries.projectId))
      .leftJoin(clients, eq(clients.id, projects.clientId))
      .leftJoin(tasks, eq(tasks.id, entries.taskId))
      .where(where);
    if (order === null) return select.all();
    const direction = order === 'desc' ? desc : asc;
    return select.orderBy(direction(entries.startAt), direction(entries.id)).limit(limit).all();
  }

  return {
    page(actor: Actor, spec: ListSpec, ctx: Omit<ViewContext, 'actor'>): Page {
      const fingerprint = { select: spec.select, order: spec.order, from: spec.from, to: spec.to, filters: spec.filters };
      const position = spec.cursor === undefined ? undefined : cursors.decode(spec.listing, fingerprint, spec.cursor);
      const base = filterConditions(actor, spec.filters);
      const after = keyset(spec.order, position);
      const take = spec.limit + 1;

      let rows;
      if (spec.select === 'overlap') {
        // start < to and (end > from, or running).
        const maxSec = longest.get({ workspaceId: actor.workspaceId })?.max ?? 0;
        const completed = query(
          and(...base, after, lt(entries.startAt, spec.to), isNotNull(entries.endAt), gt(entries.endAt, spec.from), gt(entries.startAt, spec.from - (maxSec + 1) * 1000)),
          spec.order,
          take,
        );
        // Running timers (a handful) are read through their partial index and bounded here: a
        // condition on start_at in SQL makes SQLite walk the start index of the whole workspace.
        const running = query(and(...base, isNull(entries.endAt)), null, Number.MAX_SAFE_INTEGER).filter(
          (r) => r.entry.startAt < spec.to && (!position || compare(r.entry, { startAt: position.start, id: position.id }, spec.order) > 0),
        );
        rows = [...completed, ...running].sort((a, b) => compare(a.entry, b.entry, spec.order)).slice(0, take);
      } else {
        rows = query(and(...base, after, isNotNull(entries.endAt), gt(entries.startAt, spec.from - 1), lt(entries.startAt, spec.to)), spec.order, take);
      }

      const more = rows.length > spec.limit;
      const pageRows = more ? rows.slice(0, spec.limit) : rows;
      const tagsByEntry = tagIdsOf(db, pageRows.map((r) => r.entry.id));
      const view: ViewContext = { ...ctx, actor };
      const last = pageRows[pageRows.length - 1];
      return {
        rows: pageRows.map((r) =>
          entryRowView(r.entry, tagsByEntry.get(r.entry.id) ?? [], { projectName: r.projectName, projectColor: r.projectColor, clientName: r.clientName, taskName: r.taskName }, view),
        ),
        nextCursor: more && last ? cursors.encode(spec.listing, fingerprint, { start: last.entry.startAt, id: last.entry.id }) : null,
      };
    },
  };
}

/**
 * The conditions every listing and report applies to entries: the workspace, the caller's own
 * rows without canViewOthersTime, and the filters. Shared so lists and reports select alike.
 */
export function entryFilterConditions(db: Db, actor: Actor, filters: EntryFilters): SQL[] {
  const conditions: SQL[] = [eq(entries.workspaceId, actor.workspaceId)];
  // Without canViewOthersTime the rows are the caller's own.
  if (!actor.canViewOthersTime) conditions.push(eq(entries.authorId, actor.userId));
  if (filters.userIds) conditions.push(inArray(entries.authorId, filters.userIds));
  if (filters.projectIds) conditions.push(inArray(entries.projectId, filters.projectIds));
  if (filters.taskIds) conditions.push(inArray(entries.taskId, filters.taskIds));
  if (filters.clientIds) {
    conditions.push(inArray(entries.projectId, db.select({ id: projects.id }).from(projects).where(inArray(projects.clientId, filters.clientIds))));
  }
  if (filters.tagIds) {
    conditions.push(sql`exists (select 1 from ${entryTags} where ${entryTags.entryId} = ${entries.id} and ${inArray(entryTags.tagId, filters.tagIds)})`);
  }
  if (filters.billable !== undefined) conditions.push(eq(entries.billable, filters.billable));
  if (filters.search !== undefined && filters.search !== '') {
    conditions.push(sql`instr(tt_fold(${entries.description}), ${filters.search.normalize('NFC').toLowerCase()}) > 0`);
  }
  return conditions;
}

/** Orders by (start, id), comparing ids as byte strings like SQLite does. */
function compare(a: Pick<EntryRow, 'startAt' | 'id'>, b: Pick<EntryRow, 'startAt' | 'id'>, order: 'asc' | 'desc'): number {
  const sign = order === 'asc' ? 1 : -1;
  if (a.startAt !== b.startAt) return sign * (a.startAt - b.startAt);
  return sign * Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
}

/** Tag ids of many entries in one query, each list sorted. */
export function tagIdsOf(db: Db, entryIds: string[]): Map<string, string[]> {
  const result = new Map<string, string[]>();
  if (entryIds.length === 0) return result;
  const rows = db.select().from(entryTags).where(inArray(entryTags.entryId, entryIds)).orderBy(asc(entryTags.entryId), asc(entryTags.tagId)).all();
  for (const row of rows) {
    const list = result.get(row.entryId) ?? [];
    list.push(row.tagId);
    result.set(row.entryId, list);
  }
  return result;
}

export type EntryLister = ReturnType<typeof createEntryLister>;
