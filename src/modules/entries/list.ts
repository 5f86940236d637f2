import type { CursorCodec } from '../../kernel/cursor.js';
import type { Page } from '../../kernel/paging.js';
import type { Actor } from '../../principal.js';
import type { EntryFilters } from './filters.js';
import { amountOf, fromCents } from '../../kernel/money.js';
import { secondsBetween } from '../../kernel/time.js';
import type { ExportRowRaw, ListQueries } from './repository/list.js';
import { type EntryRow, type EntryRowView, entryRowView, type RowNames, tagIdsOfRow, type ViewContext } from './views.js';

/**
 * A completed entry as a report's export writes it, in this order: the row as SQLite returned it
 * with the project's and task's ids replaced by names, billable a boolean, and the rate and the
 * amount null where the actor may not see them (as the entry row view has them). An array, not
 * an object: a year of a team is 250,000 rows.
 */
export type ExportEntry = [
  startAt: number,
  endAt: number,
  durationSec: number,
  authorId: string,
  clientName: string | null,
  projectName: string | null,
  taskName: string | null,
  /** The sorted tag ids as JSON, or null without tags. */
  tagList: string | null,
  description: string,
  billable: boolean,
  hourlyRate: number | null,
  amount: number | null,
  id: string,
];

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

  /** The names of projects (with their client's) and tasks, looked up once per export for the ids not seen before. */
  function exportNames(workspaceId: string) {
    const projects = new Map<string, { name: string; clientName: string | null } | null>();
    const tasks = new Map<string, string | null>();
    return (rows: ExportRowRaw[]) => {
      const projectIds = new Set<string>();
      const taskIds = new Set<string>();
      for (const r of rows) {
        if (r[5] !== null && !projects.has(r[5])) projectIds.add(r[5]);
        if (r[6] !== null && !tasks.has(r[6])) taskIds.add(r[6]);
      }
      if (projectIds.size > 0) {
        for (const id of projectIds) projects.set(id, null);
        for (const p of catalog.projectLabels(workspaceId, [...projectIds])) projects.set(p.id, p);
      }
      if (taskIds.size > 0) {
        for (const id of taskIds) tasks.set(id, null);
        for (const t of catalog.taskNames(workspaceId, [...taskIds])) tasks.set(t.id, t.name);
      }
      return { project: (id: string) => projects.get(id) ?? null, task: (id: string) => tasks.get(id) ?? null };
    };
  }

  return {
    /**
     * A report export's rows: the completed entries the actor may see, filtered, starting in
     * [from, to), in (start, id) order, `size` at a time as they are asked for. Each batch seeks to
     * where the last ended. The rows are the statement's own arrays, filled in place (no view
     * objects, no ISO strings made and parsed back: most of an export's time before issue 60).
     */
    *exportBatches(
      actor: Actor,
      spec: { from: number; to: number; filters: EntryFilters },
      size: number,
      /** A rounded report's time of an entry of a project (issue 56 item 4); its amount is made of it. */
      round: ((projectId: string | null, durationSec: number) => number) | null = null,
    ): Generator<ExportEntry[]> {
      const filters = spec.filters.clientIds
        ? { ...spec.filters, projectsOfClients: catalog.projectsOfClients(actor.workspaceId, spec.filters.clientIds) }
        : spec.filters;
      const names = exportNames(actor.workspaceId);
      let afterStart = spec.from - 1;
      let afterId = '';
      for (;;) {
        const rows = queries.exportBatch(actor, filters, { from: spec.from, to: spec.to, afterStart, afterId, limit: size });
        if (rows.length === 0) return;
        const last = rows[rows.length - 1] as ExportRowRaw;
        [afterStart, afterId] = [last[0], last[12]];
        const { project, task } = names(rows);
        const out = rows as unknown as ExportEntry[];
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i] as ExportRowRaw;
          const e = out[i] as ExportEntry;
          // The entry row view's money: a colleague's without canViewOthersMoney is withheld.
          const withheld = r[3] !== actor.userId && !actor.canViewOthersMoney;
          const named = r[5] === null ? null : project(r[5]);
          const tracked = r[2] ?? secondsBetween(r[0], r[1]);
          e[2] = round === null ? tracked : round(r[5], tracked);
          e[4] = named?.clientName ?? null;
          e[5] = named?.name ?? null;
          e[6] = r[6] === null ? null : task(r[6]);
          e[9] = r[9] === 1;
          e[10] = withheld ? null : r[10];
          e[11] = withheld || r[11] === null ? null : round === null ? fromCents(r[11]) : amountOf(e[9], r[10], e[2]);
        }
        yield out;
        if (rows.length < size) return;
      }
    },

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
