import { and, asc, eq, gte, isNotNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';
import { entries, entryTags } from '../schema.js';
import { type EntryInsert, INSERT_VALUES } from './insert.js';
import type { EntryRow } from '../views.js';

const p = (name: string) => sql.placeholder(name);

/** The statements of an import's entries (part of the entries repository). */
export function createImportQueries(db: Db) {
  const statements = {
    insertQuiet: db.insert(entries).values(INSERT_VALUES).prepare(),
    addTag: db
      .insert(entryTags)
      .values({ entryId: p('entryId'), tagId: p('tagId') })
      .prepare(),
    ofImport: db
      .select()
      .from(entries)
      .where(eq(entries.importId, p('importId')))
      .limit(p('limit'))
      .prepare(),
    // A workspace's completed entries in (start, id) order after a position, a page a call: a
    // whole-workspace export reads them without holding a statement (or the connection) open.
    exportPage: db
      .select({
        id: entries.id,
        authorId: entries.authorId,
        description: entries.description,
        projectId: entries.projectId,
        taskId: entries.taskId,
        billable: entries.billable,
        startAt: entries.startAt,
        endAt: entries.endAt,
        hourlyRate: entries.hourlyRate,
        timeZone: entries.timeZone,
        tagList: entries.tagList,
      })
      .from(entries)
      .where(
        and(
          eq(entries.workspaceId, p('workspaceId')),
          isNotNull(entries.endAt),
          gte(entries.startAt, p('from')),
          lt(entries.startAt, p('to')),
          sql`(${entries.startAt}, ${entries.id}) > (${p('afterStart')}, ${p('afterId')})`,
        ),
      )
      .orderBy(asc(entries.startAt), asc(entries.id))
      .limit(p('limit'))
      .prepare(),
    invoicedOfImport: db
      .select({ id: entries.id })
      .from(entries)
      .where(and(eq(entries.importId, p('importId')), isNotNull(entries.invoiceId)))
      .limit(20)
      .prepare(),
  };
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
    insertWithTags(values: EntryInsert, ids: string[]): void {
      for (const tagId of ids) statements.addTag.run({ entryId: values.id, tagId });
      statements.insertQuiet.run({ importId: null, ...values, tagList: ids.length > 0 ? JSON.stringify(ids) : null });
    },
    /** Up to `limit` entries of an import (its undo and its cleanup delete them in batches). */
    ofImport: (importId: string, limit: number): EntryRow[] => statements.ofImport.all({ importId, limit }),
    /** Up to `limit` completed entries starting in [from, to), after (afterStart, afterId) in (start, id) order. */
    exportPage: (q: { workspaceId: string; from: number; to: number; afterStart: number; afterId: string; limit: number }) =>
      statements.exportPage.all(q),
    /** The ids of an import's entries invoiced since (its undo is refused then). */
    invoicedOfImport: (importId: string): string[] => statements.invoicedOfImport.all({ importId }).map((r) => r.id),
  };
}
