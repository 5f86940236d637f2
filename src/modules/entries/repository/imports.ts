import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';
import { entries, entryTags } from '../schema.js';
import { type EntryInsert, INSERT_VALUES } from './insert.js';
import type { EntryRow } from '../views.js';
import { onFirstUse, preparedOnFirstUse } from '../../../db/prepared.js';

const p = (name: string) => sql.placeholder(name);

/** What the runaway check recorded on an entry (entries.runaway_*), as an export carries it. */
export interface ExportedRunaway {
  detectedAt: number | null;
  elapsedSec: number | null;
  limitSec: number | null;
  action: 'flagged' | 'capped' | 'stopped' | null;
  resolvedAt: number | null;
}

/** A row of the export's page query, in the order of its columns. */
type ExportTuple = [
  number,
  string,
  string,
  string,
  string | null,
  string | null,
  number,
  number,
  number,
  number | null,
  string | null,
  string | null,
  string | null,
  number | null,
  number | null,
  number | null,
  string | null,
  number | null,
];

/** The statements of an import's entries (part of the entries repository). */
export function createImportQueries(db: Db) {
  const statements = preparedOnFirstUse(db, {
    insertQuiet: () => db.insert(entries).values(INSERT_VALUES).prepare(),
    /** An entry a workspace's export says is on one of its invoices (restored by the same import). */
    insertInvoiced: () =>
      db
        .insert(entries)
        .values({ ...INSERT_VALUES, invoiceId: p('invoiceId') })
        .prepare(),
    addTag: () =>
      db
        .insert(entryTags)
        .values({ entryId: p('entryId'), tagId: p('tagId') })
        .prepare(),
    ofImport: () =>
      db
        .select()
        .from(entries)
        .where(eq(entries.importId, p('importId')))
        .limit(p('limit'))
        .prepare(),
    importStarts: () =>
      db
        .select({ rowid: sql<number>`${entries}.rowid`, id: entries.id, authorId: entries.authorId, startAt: entries.startAt })
        .from(entries)
        .where(and(eq(entries.importId, p('importId')), sql`${entries}.rowid > ${p('after')}`))
        .orderBy(sql`${entries}.rowid`)
        .limit(p('limit'))
        .prepare(),
    /** What the runaway check recorded on an entry, as a workspace's export carries it (rare: after the insert). */
    setRunaway: () =>
      db
        .update(entries)
        .set({
          runawayDetectedAt: p('detectedAt'),
          runawayElapsedSec: p('elapsedSec'),
          runawayLimitSec: p('limitSec'),
          runawayAction: p('action'),
          runawayResolvedAt: p('resolvedAt'),
        } as unknown as Partial<typeof entries.$inferInsert>)
        .where(eq(entries.id, p('id')))
        .prepare(),
    invoicedOfImport: () =>
      db
        .select({ id: entries.id })
        .from(entries)
        .where(and(eq(entries.importId, p('importId')), isNotNull(entries.invoiceId)))
        .limit(20)
        .prepare(),
  });
  // Written as SQL (Drizzle has no NOT INDEXED), read as arrays: mapping by Drizzle took a tenth of the export's time.
  const exportPage = onFirstUse(db, () =>
    db.$client
      .prepare(
        `SELECT rowid, id, author_id, description, project_id, task_id, billable, start_at, end_at, hourly_rate, time_zone, tag_list, invoice_id,
         runaway_detected_at, runaway_elapsed_sec, runaway_limit_sec, runaway_action, runaway_resolved_at
       FROM entries NOT INDEXED
       WHERE rowid > ? AND workspace_id = ? AND end_at IS NOT NULL AND start_at >= ? AND start_at < ?
       ORDER BY rowid LIMIT ?`,
      )
      .raw(true),
  );
  return {
    /**
     * At the start of each write of an import: the foreign keys of entry_tags are checked at its
     * commit, so an entry's tag rows can go in before the entry. Once per write, not per row: a
     * flag pragma expires every prepared statement of the connection (measured: ~75 µs a row).
     */
    deferForeignKeys(): void {
      db.run(sql`PRAGMA defer_foreign_keys = ON`);
    },
    /**
     * An imported entry with its tags, in the caller's write (after deferForeignKeys): the tag rows
     * first, then the entry with its tag_list already set, so the trigger that keeps tag_list finds
     * no entry to update and the row and its indexes are written once, not once per tag. `ids` sorted.
     */
    insertWithTags(values: EntryInsert, ids: string[], invoiceId: string | null = null): void {
      for (const tagId of ids) statements.addTag.run({ entryId: values.id, tagId });
      const row = { importId: null, ...values, tagList: ids.length > 0 ? JSON.stringify(ids) : null };
      if (invoiceId === null) statements.insertQuiet.run(row);
      else statements.insertInvoiced.run({ ...row, invoiceId });
    },
    /** The runaway check's record of an imported entry (a workspace's export), in the caller's write. */
    setRunaway(id: string, runaway: ExportedRunaway): void {
      statements.setRunaway.run({ id, ...runaway });
    },
    /** Up to `limit` entries of an import (its undo and its cleanup delete them in batches). */
    ofImport: (importId: string, limit: number): EntryRow[] => statements.ofImport.all({ importId, limit }),
    /**
     * Up to `limit` of a workspace's completed entries starting in [from, to), after the row
     * `after` in the order they are stored (rowid): a whole-workspace export reads them a page a
     * call, without holding a statement open. Storage order reads each page of the table once;
     * start order (entries_ws_start) read the table at random, a page per row: 82,000 rows/s
     * against 300,000 on the 1,000,000-entry bench dataset. The scan passes other workspaces'
     * rows (7 million a second skipped) and needs no index: NOT INDEXED keeps SQLite from
     * sorting each page out of entries_report.
     */
    exportPage: (q: { workspaceId: string; from: number; to: number; after: number; limit: number }) =>
      (exportPage().all(q.after, q.workspaceId, q.from, q.to, q.limit) as ExportTuple[]).map((r) => ({
        rowid: r[0],
        id: r[1],
        authorId: r[2],
        description: r[3],
        projectId: r[4],
        taskId: r[5],
        billable: r[6] === 1,
        startAt: r[7],
        endAt: r[8],
        hourlyRate: r[9],
        timeZone: r[10],
        tagList: r[11],
        invoiceId: r[12],
        runaway:
          r[13] === null && r[16] === null
            ? null
            : ({ detectedAt: r[13], elapsedSec: r[14], limitSec: r[15], action: r[16], resolvedAt: r[17] } as ExportedRunaway),
      })),
    /** Up to `limit` of an import's entries after the row `after` (rowid order): whose, and when they start (its undo's check). */
    importStarts: (
      importId: string,
      after: number,
      limit: number,
    ): Array<{ rowid: number; id: string; authorId: string; startAt: number }> => statements.importStarts.all({ importId, after, limit }),
    /** The ids of an import's entries invoiced since (its undo is refused then). */
    invoicedOfImport: (importId: string): string[] => statements.invoicedOfImport.all({ importId }).map((r) => r.id),
  };
}
