import { and, asc, desc, eq, gt, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';
import type { CursorPosition } from '../../../kernel/cursor.js';
import type { Actor } from '../../../principal.js';
import { isFiltered } from '../filters.js';
import { entries } from '../schema.js';
import type { EntryRow } from '../views.js';
import { entrySelection, type ResolvedFilters } from './selection.js';
import { onFirstUse } from '../../../db/prepared.js';

/** What a page query selects: overlap of [from, to) (GET /entries), or start within it and completed (reports). */
export interface PageQuery {
  select: 'overlap' | 'startedCompleted';
  order: 'desc' | 'asc';
  filters: ResolvedFilters;
}

type Shape = 'completed' | 'running';

/**
 * A completed entry as an export reads it: the statement's row as it comes, an array (a year of
 * a team is 250,000 rows: no object per row, no mapping by Drizzle). The project's id is read
 * twice so the lister can put the client's and the project's names in its place (list.ts).
 */
export type ExportRowRaw = [
  startAt: number,
  endAt: number,
  durationSec: number | null,
  authorId: string,
  projectIdForClient: string | null,
  projectId: string | null,
  taskId: string | null,
  tagList: string | null,
  description: string,
  billable: number,
  hourlyRate: number | null,
  amountCents: number | null,
  id: string,
];
const p = (name: string) => sql.placeholder(name);

/** The workspace's longest entry (the lower bound of a range's walk), prepared at its first use. */
function longestOf(db: Db) {
  return onFirstUse(db, () =>
    db
      .select({ max: sql<number | null>`max(${entries.durationSec})` })
      .from(entries)
      .where(eq(entries.workspaceId, p('workspaceId')))
      .prepare(),
  );
}

/**
 * The keyset page queries of entry listings over (start, id). Scalars are placeholders, so a
 * page without filters (the common case) has one SQL text per shape, prepared once and kept:
 * building and preparing it per request cost a sixth of a page's CPU. Filters (lists, search)
 * are baked in and prepared per request. Completed entries are read through the (workspace[,
 * author], start, id) index with a lower bound on start; running entries (few) through their
 * partial index.
 */
export function createListQueries(db: Db) {
  const longest = longestOf(db);

  function build(shape: Shape, spec: PageQuery, base: SQL[], cursor: boolean) {
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
    const select = db.select().from(entries).where(where);
    if (shape === 'running') return select.prepare();
    const direction = before ? desc : asc;
    return select.orderBy(direction(entries.startAt), direction(entries.id)).limit(p('limit')).prepare();
  }
  const prepared = new Map<string, ReturnType<typeof build>>();

  /**
   * An export's batch: completed entries starting in [from, to) after the position (start, id),
   * in (start, id) order. The row value `(start_at, id) > (?, ?)` is a range of entries_ws_start
   * (or entries_ws_author_start), so each batch seeks to where the last ended instead of walking
   * the range from its start.
   */
  function buildExport(base: SQL[]) {
    return db
      .select({
        startAt: entries.startAt,
        endAt: entries.endAt,
        durationSec: entries.durationSec,
        authorId: entries.authorId,
        clientOf: entries.projectId,
        projectId: entries.projectId,
        taskId: entries.taskId,
        tagList: entries.tagList,
        description: entries.description,
        billable: entries.billable,
        hourlyRate: entries.hourlyRate,
        amountCents: entries.amountCents,
        id: entries.id,
      })
      .from(entries)
      .where(
        and(
          ...base,
          isNotNull(entries.endAt),
          sql`(${entries.startAt}, ${entries.id}) > (${p('afterStart')}, ${p('afterId')})`,
          gt(entries.startAt, p('lower')),
          lt(entries.startAt, p('to')),
        ),
      )
      .orderBy(asc(entries.startAt), asc(entries.id))
      .limit(p('limit'))
      .prepare();
  }
  const exports = new Map<boolean, ReturnType<typeof buildExport>>();

  function query(shape: Shape, spec: PageQuery, actor: Actor, position: CursorPosition | undefined, params: Record<string, unknown>) {
    const ownOnly = !actor.canViewOthersTime;
    const cursor = shape === 'completed' && position !== undefined;
    let statement: ReturnType<typeof build>;
    if (isFiltered(spec.filters)) {
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
    }) as EntryRow[];
  }

  return {
    /** The longest completed entry of a workspace, in seconds (the lower bound of an overlap's start). */
    longestSec: (workspaceId: string): number => longest().get({ workspaceId })?.max ?? 0,
    /** Completed entries of a page, after the cursor position, at most `limit`. */
    completedPage: (
      actor: Actor,
      spec: PageQuery,
      position: CursorPosition | undefined,
      range: { from: number; to: number; lower: number; limit: number },
    ): EntryRow[] => query('completed', spec, actor, position, range),
    /** The running entries the page's selection (visibility, filters) takes, unbounded by time. */
    runningOf: (actor: Actor, spec: PageQuery): EntryRow[] => query('running', spec, actor, undefined, {}),
    /**
     * Up to `limit` completed entries the actor may see, filtered, starting in [from, to) after
     * (afterStart, afterId), in (start, id) order, as arrays (an export's batch: `values` skips
     * Drizzle's mapping). Without filters the statement is prepared once per visibility.
     */
    exportBatch(
      actor: Actor,
      filters: ResolvedFilters,
      range: { from: number; to: number; afterStart: number; afterId: string; limit: number },
    ): ExportRowRaw[] {
      let statement: ReturnType<typeof buildExport>;
      if (isFiltered(filters)) statement = buildExport(entrySelection(db, actor, filters, 'page').conditions);
      else {
        const ownOnly = !actor.canViewOthersTime;
        statement =
          exports.get(ownOnly) ??
          buildExport([eq(entries.workspaceId, p('workspaceId')), ...(ownOnly ? [eq(entries.authorId, p('authorId'))] : [])]);
        exports.set(ownOnly, statement);
      }
      return statement.values({
        workspaceId: actor.workspaceId,
        authorId: actor.userId,
        lower: range.from - 1,
        to: range.to,
        afterStart: range.afterStart,
        afterId: range.afterId,
        limit: range.limit,
      }) as ExportRowRaw[];
    },
  };
}

export type ListQueries = ReturnType<typeof createListQueries>;
