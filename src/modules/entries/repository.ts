import { and, eq, gte, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { aggregateEntries, type AggregateQuery } from './repository/aggregate.js';
import { createListQueries } from './repository/list.js';
import { createImportQueries } from './repository/imports.js';
import { type EntryInsert, INSERT_VALUES } from './repository/insert.js';
import { createEntryUpdate } from './repository/update.js';
import { createSearchIndexQueries } from './repository/search-index.js';
import { createSuggestionQueries } from './repository/suggestions.js';
import { entries, entryTags, entryTombstones, timerStopLinks } from './schema.js';
import type { EntryRow } from './views.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

const p = (name: string) => sql.placeholder(name);

export type { EntryInsert } from './repository/insert.js';

/**
 * Every SQL statement of the entries module, over its own tables (entries, entry_tags and the
 * search index's). The hot ones are prepared once: an unprepared Drizzle query is built and
 * prepared by SQLite on every call, which was most of the cost of POST /entries.
 */
export function createEntriesRepository(db: Db) {
  const statements = preparedOnFirstUse(db, {
    byId: () =>
      db
        .select()
        .from(entries)
        .where(and(eq(entries.id, p('id')), eq(entries.workspaceId, p('workspaceId'))))
        .prepare(),
    tagsOf: () =>
      db
        .select({ tagId: entryTags.tagId })
        .from(entryTags)
        .where(eq(entryTags.entryId, p('id')))
        .orderBy(entryTags.tagId)
        .prepare(),
    // Through the partial unique index of running timers.
    runningOf: () =>
      db
        .select()
        .from(entries)
        .where(and(eq(entries.workspaceId, p('workspaceId')), eq(entries.authorId, p('authorId')), isNull(entries.endAt)))
        .prepare(),
    runningOfWorkspace: () =>
      db
        .select({ projectId: entries.projectId, startAt: entries.startAt, billable: entries.billable, hourlyRate: entries.hourlyRate })
        .from(entries)
        .where(and(eq(entries.workspaceId, p('workspaceId')), isNull(entries.endAt)))
        .prepare(),
    insert: () => db.insert(entries).values(INSERT_VALUES).returning().prepare(),
  });

  const update = createEntryUpdate(db);

  return {
    byId: (workspaceId: string, id: string): EntryRow | undefined => statements.byId.get({ id, workspaceId }),
    tagIds: (id: string): string[] => statements.tagsOf.all({ id }).map((t) => t.tagId),
    running: (workspaceId: string, authorId: string): EntryRow | undefined => statements.runningOf.get({ workspaceId, authorId }),
    insert: (values: EntryInsert): EntryRow => statements.insert.get({ importId: null, tagList: null, ...values }) as EntryRow,
    update,
    /** A workspace's running timers started at or before `startedBy`, not yet detected as runaways. */
    runawaysDue: (workspaceId: string, startedBy: number): Array<{ id: string }> =>
      db
        .select({ id: entries.id })
        .from(entries)
        .where(
          and(
            eq(entries.workspaceId, workspaceId),
            isNull(entries.endAt),
            isNull(entries.runawayDetectedAt),
            // Running timers only have no duration: entries_ws_duration finds the handful of them.
            // Unary plus keeps SQLite off the start_at index, which would read every entry started
            // before the bound (all of them, every second: the scheduler runs this on each tick).
            isNull(entries.durationSec),
            sql`+${entries.startAt} <= ${startedBy}`,
          ),
        )
        .all(),
    /** An entry by id alone (the server's own jobs, which act for no token). */
    anyById: (id: string): EntryRow | undefined => db.select().from(entries).where(eq(entries.id, id)).get(),
    /** A runaway reminder's Stop link by the hash of its secret. */
    stopLink: (hash: string): typeof timerStopLinks.$inferSelect | undefined =>
      db.select().from(timerStopLinks).where(eq(timerStopLinks.secretHash, hash)).get(),
    insertStopLink: (values: typeof timerStopLinks.$inferInsert): void => {
      db.insert(timerStopLinks).values(values).run();
    },
    useStopLink: (hash: string, now: number): void => {
      db.update(timerStopLinks).set({ usedAt: now }).where(eq(timerStopLinks.secretHash, hash)).run();
    },
    /** Stop links expired before `before` (the hourly purge). */
    deleteSpentStopLinks: (before: number): number => db.delete(timerStopLinks).where(lt(timerStopLinks.expiresAt, before)).run().changes,
    delete: (id: string): void => {
      db.delete(entries).where(eq(entries.id, id)).run();
    },
    /** A member's completed entries starting in [from, to): how many, their seconds, billable seconds and amount in cents (null: none priced). */
    periodSums: (workspaceId: string, authorId: string, from: number, to: number) =>
      db
        .select({
          entries: sql<number>`count(*)`,
          durationSec: sql<number>`coalesce(sum(${entries.durationSec}), 0)`,
          billableSec: sql<number>`coalesce(sum(case when ${entries.billable} then ${entries.durationSec} else 0 end), 0)`,
          amountCents: sql<number | null>`sum(${entries.amountCents})`,
        })
        .from(entries)
        .where(
          and(
            eq(entries.workspaceId, workspaceId),
            eq(entries.authorId, authorId),
            gte(entries.startAt, from),
            lt(entries.startAt, to),
            isNotNull(entries.endAt),
          ),
        )
        .get() as { entries: number; durationSec: number; billableSec: number; amountCents: number | null },
    /** Whether any entry refers to the project, task or tag (the catalog refuses to delete it then). */
    usesProject: (id: string): boolean =>
      db.select({ id: entries.id }).from(entries).where(eq(entries.projectId, id)).limit(1).get() !== undefined,
    usesTask: (id: string): boolean =>
      db.select({ id: entries.id }).from(entries).where(eq(entries.taskId, id)).limit(1).get() !== undefined,
    usesTag: (id: string): boolean =>
      db.select({ id: entryTags.entryId }).from(entryTags).where(eq(entryTags.tagId, id)).limit(1).get() !== undefined,
    /** A workspace's running timers, through their partial index (one per member at most). */
    runningOfWorkspace: (workspaceId: string) => statements.runningOfWorkspace.all({ workspaceId }),
    ...invoicing(db),
    /** Report aggregation (the reports module groups and names what this sums). */
    aggregate: (query: AggregateQuery) => aggregateEntries(db, query),
    list: createListQueries(db),
    searchIndex: createSearchIndexQueries(db),
    suggestions: createSuggestionQueries(db),
    ...createImportQueries(db),
    // The web app's Undo of a delete (entry_tombstones).
    keepTombstone: (values: typeof entryTombstones.$inferInsert): void => {
      db.insert(entryTombstones).values(values).onConflictDoUpdate({ target: entryTombstones.entryId, set: values }).run();
    },
    /** Takes a tombstone (it is deleted), when it is the workspace's and no older than `since`. */
    takeTombstone: (workspaceId: string, entryId: string, since: number): typeof entryTombstones.$inferSelect | undefined =>
      db
        .delete(entryTombstones)
        .where(
          and(eq(entryTombstones.entryId, entryId), eq(entryTombstones.workspaceId, workspaceId), gte(entryTombstones.deletedAt, since)),
        )
        .returning()
        .get(),
    dropTombstones: (before: number): number => db.delete(entryTombstones).where(lt(entryTombstones.deletedAt, before)).run().changes,
    /** Re-inserts a deleted entry as it was (the Undo), its id kept. */
    reinsert: (row: typeof entries.$inferInsert): EntryRow => db.insert(entries).values(row).returning().get() as EntryRow,
    replaceTags(entryId: string, ids: string[]): void {
      db.delete(entryTags).where(eq(entryTags.entryId, entryId)).run();
      if (ids.length > 0)
        db.insert(entryTags)
          .values(ids.map((tagId) => ({ entryId, tagId })))
          .run();
    },
  };
}

export type EntriesRepository = ReturnType<typeof createEntriesRepository>;

/** What an invoice takes: billable, completed, un-invoiced entries of a client's projects starting in [from, to). */
export interface Invoiceable {
  workspaceId: string;
  projectIds: string[];
  from: number;
  to: number;
  /**
   * With approval on (decisions §13): only entries whose start falls in one of these spans of
   * their author's approved time (merged, a few per member); absent: every entry.
   */
  approved?: ApprovedSpan[];
}

/** A member's approved time: [from, to). */
export interface ApprovedSpan {
  userId: string;
  from: number;
  to: number;
}

/** Whether an entry's start falls in one of its author's approved spans (one JSON parameter: a few spans a member). */
const inApproved = (spans: ApprovedSpan[]) =>
  sql`exists (select 1 from json_each(${JSON.stringify(spans.map((s) => [s.userId, s.from, s.to]))}) as span where span.value ->> 0 = ${entries.authorId} and ${entries.startAt} >= span.value ->> 1 and ${entries.startAt} < span.value ->> 2)`;

/** The statements of invoicing (the invoices module asks the entries service). */
function invoicing(db: Db) {
  const invoiceable = (q: Invoiceable) =>
    and(
      eq(entries.workspaceId, q.workspaceId),
      gte(entries.startAt, q.from),
      lt(entries.startAt, q.to),
      eq(entries.billable, true),
      isNotNull(entries.endAt),
      isNull(entries.invoiceId),
      inArray(entries.projectId, q.projectIds.length === 0 ? [''] : q.projectIds),
      q.approved === undefined ? undefined : inApproved(q.approved),
    );
  return {
    /** With approval on: the billable time of the query's range that is not approved yet, and its entries (what a draft says still waits). */
    invoiceableWaiting: (q: Invoiceable & { approved: ApprovedSpan[] }): { entries: number; seconds: number } =>
      db
        .select({ entries: sql<number>`count(*)`, seconds: sql<number>`coalesce(sum(${entries.durationSec}), 0)` })
        .from(entries)
        .where(and(invoiceable({ ...q, approved: undefined }), sql`not ${inApproved(q.approved)}`))
        .get() as { entries: number; seconds: number },
    /** The invoiceable time summed per (project, task, member, rate): the lines of every grouping but `entry` are folded from it. */
    invoiceableGroups: (q: Invoiceable) =>
      db
        .select({
          projectId: sql<string>`${entries.projectId}`,
          taskId: entries.taskId,
          authorId: entries.authorId,
          hourlyRate: entries.hourlyRate,
          quantitySec: sql<number>`sum(${entries.durationSec})`,
          entryCount: sql<number>`count(*)`,
        })
        .from(entries)
        .where(invoiceable(q))
        .groupBy(entries.projectId, entries.taskId, entries.authorId, entries.hourlyRate)
        .all(),
    /**
     * How many entries an invoice of one line per entry would take, counting no further than
     * `cap` (issue 54, I2): a range over the cap is refused from this count alone, which stops at
     * the `cap`-th entry it finds however long the range, where reading them one by one read the
     * whole range (57,000 entries: ~190 ms on the request thread, inside the write; now ~1 ms).
     */
    invoiceableCount: (q: Invoiceable, cap: number): number =>
      db
        .select({ n: sql<number>`count(*)` })
        .from(
          db
            .select({ one: sql`1` })
            .from(entries)
            .where(invoiceable(q))
            .limit(cap)
            .as('capped'),
        )
        .get()?.n ?? 0,
    /** The invoiceable entries one by one (an invoice of one line per entry, or of rounded time: each entry rounded on its own), by start. */
    invoiceableEntries: (q: Invoiceable) =>
      db
        .select({
          id: entries.id,
          startAt: entries.startAt,
          timeZone: entries.timeZone,
          description: entries.description,
          projectId: sql<string>`${entries.projectId}`,
          taskId: entries.taskId,
          authorId: entries.authorId,
          hourlyRate: entries.hourlyRate,
          durationSec: sql<number>`${entries.durationSec}`,
          amountCents: entries.amountCents,
        })
        .from(entries)
        .where(invoiceable(q))
        .orderBy(entries.startAt, entries.id)
        .all(),
    /** The first invoiceable entries without a rate (an invoice cannot price them), by start. */
    unratedInvoiceable: (q: Invoiceable, limit: number) =>
      db
        .select({ id: entries.id, startAt: entries.startAt, projectId: sql<string>`${entries.projectId}` })
        .from(entries)
        .where(and(invoiceable(q), isNull(entries.hourlyRate)))
        .orderBy(entries.startAt, entries.id)
        .limit(limit)
        .all(),
    markInvoiced: (q: Invoiceable, invoiceId: string): number => db.update(entries).set({ invoiceId }).where(invoiceable(q)).run().changes,
    releaseInvoice: (invoiceId: string): void => {
      db.update(entries).set({ invoiceId: null }).where(eq(entries.invoiceId, invoiceId)).run();
    },
  };
}
