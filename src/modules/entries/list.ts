import type { CursorCodec } from '../../kernel/cursor.js';
import type { Page } from '../../kernel/paging.js';
import type { Actor } from '../../principal.js';
import type { EntryFilters } from './filters.js';
import type { ListQueries } from './repository/list.js';
import { type EntryRow, type EntryRowView, entryRowView, type RowNames, tagIdsOfRow, type ViewContext } from './views.js';

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

/** What the lister reads of the catalog: the projects of clients (a client filter), and the names shown beside each row. */
export interface ListerCatalog {
  projectsOfClients(workspaceId: string, clientIds: string[]): string[];
  projectLabels(
    workspaceId: string,
    ids: string[],
  ): Array<{ id: string; name: string; color: string; clientId: string | null; clientName: string | null }>;
  taskNames(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
}

/**
 * Keyset-paged entry rows over (start, id), shared by GET /entries and the detailed report:
 * completed entries page by page, the running ones (a handful) merged in, then the names of
 * their projects, clients and tasks looked up for the page's rows only.
 */
export function createEntryLister({ queries, cursors, catalog }: { queries: ListQueries; cursors: CursorCodec; catalog: ListerCatalog }) {
  /** The names of a page's projects, clients and tasks (two lookups for the whole page). */
  function namesOf(workspaceId: string, rows: EntryRow[]): (row: EntryRow) => RowNames {
    const projectIds = [...new Set(rows.map((r) => r.projectId).filter((id): id is string => id !== null))];
    const taskIds = [...new Set(rows.map((r) => r.taskId).filter((id): id is string => id !== null))];
    const projects = new Map(catalog.projectLabels(workspaceId, projectIds).map((p) => [p.id, p]));
    const tasks = new Map(catalog.taskNames(workspaceId, taskIds).map((t) => [t.id, t.name]));
    return (row) => {
      const project = row.projectId === null ? undefined : projects.get(row.projectId);
      return {
        projectName: project?.name ?? null,
        projectColor: project?.color ?? null,
        clientName: project?.clientName ?? null,
        taskName: row.taskId === null ? null : (tasks.get(row.taskId) ?? null),
      };
    };
  }

  return {
    page(actor: Actor, spec: ListSpec, ctx: Omit<ViewContext, 'actor'>): Page<EntryRowView> {
      const fingerprint = { select: spec.select, order: spec.order, from: spec.from, to: spec.to, filters: spec.filters };
      const position = spec.cursor === undefined ? undefined : cursors.decode(spec.listing, fingerprint, spec.cursor);
      const take = spec.limit + 1;
      const filters = spec.filters.clientIds
        ? { ...spec.filters, projectsOfClients: catalog.projectsOfClients(actor.workspaceId, spec.filters.clientIds) }
        : spec.filters;
      const query = { select: spec.select, order: spec.order, filters };

      let rows: EntryRow[];
      if (spec.select === 'overlap') {
        const maxSec = queries.longestSec(actor.workspaceId);
        const completed = queries.completedPage(actor, query, position, {
          to: spec.to,
          from: spec.from,
          lower: spec.from - (maxSec + 1) * 1000,
          limit: take,
        });
        // Running timers (a handful) are read through their partial index and bounded here: a
        // condition on start_at in SQL makes SQLite walk the start index of the whole workspace.
        const running = queries
          .runningOf(actor, query)
          .filter((r) => r.startAt < spec.to && (!position || compare(r, { startAt: position.start, id: position.id }, spec.order) > 0));
        rows = [...completed, ...running].sort((a, b) => compare(a, b, spec.order)).slice(0, take);
      } else {
        rows = queries.completedPage(actor, query, position, { from: spec.from, to: spec.to, lower: spec.from - 1, limit: take });
      }

      const more = rows.length > spec.limit;
      const pageRows = more ? rows.slice(0, spec.limit) : rows;
      const view: ViewContext = { ...ctx, actor };
      const names = namesOf(actor.workspaceId, pageRows);
      const last = pageRows[pageRows.length - 1];
      return {
        rows: pageRows.map((r) => entryRowView(r, tagIdsOfRow(r), names(r), view)),
        nextCursor: more && last ? cursors.encode(spec.listing, fingerprint, { start: last.startAt, id: last.id }) : null,
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
