import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';
import { entries } from '../schema.js';
import type { EntryRow } from '../views.js';

const p = (name: string) => sql.placeholder(name);

/** The statements kept: more shapes than the callers make would be a caller building them from input. */
const KEPT = 32;

/**
 * An entry's update, one prepared statement per set of columns, prepared at its first use: the
 * callers set a handful of shapes (a timer's stop, an edit, a runaway's resolution). Preparing an
 * UPDATE of entries compiles its triggers (project totals, the search index, suggestions): 55-120
 * us of SQLite's on every stop and edit, besides Drizzle building the query anew.
 */
export function createEntryUpdate(db: Db): (id: string, values: Partial<typeof entries.$inferInsert>) => EntryRow {
  const prepare = (columns: string[]) =>
    db
      .update(entries)
      .set(Object.fromEntries(columns.map((column) => [column, p(column)])) as Partial<typeof entries.$inferInsert>)
      .where(eq(entries.id, p('whereId')))
      .returning()
      .prepare();
  const kept = new Map<string, ReturnType<typeof prepare>>();
  return (id, values) => {
    const columns = Object.keys(values)
      .filter((column) => values[column as keyof typeof values] !== undefined)
      .sort();
    const key = columns.join();
    let statement = kept.get(key);
    if (statement === undefined) {
      statement = prepare(columns);
      if (kept.size < KEPT) kept.set(key, statement);
    }
    return statement.get({ ...values, whereId: id }) as EntryRow;
  };
}
