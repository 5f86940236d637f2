import { and, asc, desc, eq, gt, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Actor } from '../../principal.js';
import type { Db } from '../../db/database.js';
import type { CursorCodec, CursorPosition } from '../../kernel/cursor.js';
import type { Page } from '../../kernel/paging.js';
import { clients, projects, tasks } from '../catalog/schema.js';
import { type EntryFilters, entrySelection, isFiltered } from './filters.js';
import { entries } from './schema.js';
import { type EntryRow, type EntryRowView, entryRowView, tagIdsOfRow, type ViewContext } from './views.js';

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

  const p = (name: string) => sql.placeholder(name);
  type Shape = 'completed' | 'running';

  /**
   * The page queries. Scalars are placeholders, so a page without filters (the common case) has
   * one SQL text per shape, prepared once and kept: building and preparing it per request cost a
   * sixth of a page's CPU. Filters (lists, search) are baked in and prepared per request.
   */
  function build(shape: Shape, spec: ListSpec, base: SQL[], cursor: boolean) {
    const before = spec.order === 'desc';
    const after = cursor
      ? or(
          before ? lt(entries.startAt, p('cursorStart')) : gt(entries.startAt, p('cursorStart')),
          and(eq(entries.startAt, p('cursorStart')), before ? lt(entries.id, p('cursorId')) : gt(entries.id, p('cursorId'))),
        )
      : undefined;
    let where: SQL | undefined;
    if (shape === 'running') where = and(...base, isNull(entries.endAt));
    // start < to and end > from; the lower bound on start (from minus the longest entry) keeps
    // the walk of the start index short.
    else if (spec.select === 'overlap')
      where = and(
        ...base,
        after,
        lt(entries.startAt, p('to')),
        isNotNull(entries.endAt),
        gt(entries.endAt, p('from')),
        gt(entries.startAt, p('lower')),
      );
    else where = and(...base, after, isNotNull(entries.endAt), gt(entries.startAt, p('lower')), lt(entries.startAt, p('to')));
    const select = db
      .select({ entry: entries, projectName: projects.name, projectColor: projects.color, clientName: clients.name, taskName: tasks.name })
      .from(entries)
      .leftJoin(projects, eq(projects.id, entries.projectId))
      .leftJoin(clients, eq(clients.id, projects.clientId))
      .leftJoin(tasks, eq(tasks.id, entries.taskId))
      .where(where);
    if (shape === 'running') return select.prepare();
    const direction = before ? desc : asc;
    return select.orderBy(direction(entries.startAt), direction(entries.id)).limit(p('limit')).prepare();
  }
  const prepared = new Map<string, ReturnType<typeof build>>();

  function query(shape: Shape, spec: ListSpec, actor: Actor, position: CursorPosition | undefined, params: Record<string, unknown>) {
    const ownOnly = !actor.canViewOthersTime;
    const cursor = shape === 'completed' && position !== undefined;
    const filtered = isFiltered(spec.filters);
    let statement: ReturnType<typeof build>;
    if (filtered) {
      statement = build(shape, spec, entrySelection(db, actor, spec.filters, 'page').conditions, cursor);
    } else {
      const key = `${shape}:${spec.select}:${spec.order}:${ownOnly}:${cursor}`;
      statement =
        prepared.get(key) ??
        build(shape, spec, [eq(entries.workspaceId, p('workspaceId')), ...(ownOnly ? [eq(entries.authorId, p('authorId'))] : [])], cursor);
      prepared.set(key, statement);
    }
    return statement.all({
      workspaceId: actor.workspaceId,
      authorId: actor.userId,
      cursorStart: position?.start,
      cursorId: position?.id,
      ...params,
    });
  }

  return {
    page(actor: Actor, spec: ListSpec, ctx: Omit<ViewContext, 'actor'>): Page<EntryRowView> {
      const fingerprint = { select: spec.select, order: spec.order, from: spec.from, to: spec.to, filters: spec.filters };
      const position = spec.cursor === undefined ? undefined : cursors.decode(spec.listing, fingerprint, spec.cursor);
      const take = spec.limit + 1;

      let rows: ReturnType<typeof query>;
      if (spec.select === 'overlap') {
        const maxSec = longest.get({ workspaceId: actor.workspaceId })?.max ?? 0;
        const completed = query('completed', spec, actor, position, {
          to: spec.to,
          from: spec.from,
          lower: spec.from - (maxSec + 1) * 1000,
          limit: take,
        });
        // Running timers (a handful) are read through their partial index and bounded here: a
        // condition on start_at in SQL makes SQLite walk the start index of the whole workspace.
        const running = query('running', spec, actor, undefined, {}).filter(
          (r) => r.entry.startAt < spec.to && (!position || compare(r.entry, { startAt: position.start, id: position.id }, spec.order) > 0),
        );
        rows = [...completed, ...running].sort((a, b) => compare(a.entry, b.entry, spec.order)).slice(0, take);
      } else {
        rows = query('completed', spec, actor, position, { to: spec.to, lower: spec.from - 1, limit: take });
      }

      const more = rows.length > spec.limit;
      const pageRows = more ? rows.slice(0, spec.limit) : rows;
      const view: ViewContext = { ...ctx, actor };
      const last = pageRows[pageRows.length - 1];
      return {
        rows: pageRows.map((r) =>
          entryRowView(
            r.entry,
            tagIdsOfRow(r.entry),
            { projectName: r.projectName, projectColor: r.projectColor, clientName: r.clientName, taskName: r.taskName },
            view,
          ),
        ),
        nextCursor: more && last ? cursors.encode(spec.listing, fingerprint, { start: last.entry.startAt, id: last.entry.id }) : null,
      };
    },
  };
}

/** Orders by (start, id), comparing ids as byte strings like SQLite does. */
function compare(a: Pick<EntryRow, 'startAt' | 'id'>, b: Pick<EntryRow, 'startAt' | 'id'>, order: 'asc' | 'desc'): number {
  const sign = order === 'asc' ? 1 : -1;
  if (a.startAt !== b.startAt) return sign * (a.startAt - b.startAt);
  return sign * Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
}

export type EntryLister = ReturnType<typeof createEntryLister>;
