import { getTableColumns, type Table } from 'drizzle-orm';
import { DomainError } from '../errors.js';
import { type Key, type Vars, words } from '../i18n/index.js';

/*
 * A table's rows as a workspace's export carries them (decisions 11a): a record per row that
 * names every column by its schema key, so a column added to the table later travels without a
 * change to the export or the import. Reading one back takes the columns the table has (checked
 * by their type, enum and nullability), leaves out the ones the import gives itself (ids), and
 * lists the names this version does not know (a newer export's), which the import reports.
 */

/** A row as its record: every column but those left out (ids the import gives anew). */
export function recordOfRow(row: Record<string, unknown>, omit: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([key]) => !omit.includes(key)));
}

/**
 * The values of a row read from its record: each column of `table` the record names, checked;
 * a column it does not name takes the table's default (a not-null column without one is a
 * refusal); `omit` the caller sets. Throws a DomainError whose message names the column (its
 * words for people by key: the Import page says them after the record's part).
 */
export function rowOfRecord(
  table: Table,
  record: Record<string, unknown>,
  omit: readonly string[],
): { values: Record<string, unknown>; unknown: string[] } {
  const columns = getTableColumns(table);
  const refuse = (message: string, key: Key, vars: Vars) => new DomainError('invalid', message, { words: words(key, vars) });
  const values: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(columns)) {
    if (omit.includes(key)) continue;
    if (!Object.hasOwn(record, key)) {
      if (column.notNull && !column.hasDefault)
        throw refuse(`${key} is missing (every ${tableName(table)} row has one)`, 'integrations.imports.records.missing', {
          name: key,
          table: tableName(table),
        });
      continue;
    }
    const value = record[key];
    if (value === null) {
      if (column.notNull)
        throw refuse(`${key} is null, and a ${tableName(table)} row always has one`, 'integrations.imports.records.null', {
          name: key,
          table: tableName(table),
        });
      values[key] = null;
      continue;
    }
    const type = column.dataType === 'number' ? 'number' : column.dataType === 'boolean' ? 'boolean' : 'string';
    if (column.dataType === 'json') {
      values[key] = value;
      continue;
    }
    if (typeof value !== type || (type === 'number' && !Number.isFinite(value)))
      throw refuse(`${key} must be a ${type} (got ${JSON.stringify(value)})`, TYPES[type], {
        name: key,
        got: String(JSON.stringify(value)),
      });
    const allowed = (column as unknown as { enumValues?: readonly string[] }).enumValues;
    if (allowed && allowed.length > 0 && !allowed.includes(value as string))
      throw refuse(`${key} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`, 'integrations.imports.records.oneOf', {
        name: key,
        values: allowed.join(', '),
        got: String(JSON.stringify(value)),
      });
    values[key] = value;
  }
  const known = new Set(Object.keys(columns));
  return { values, unknown: Object.keys(record).filter((key) => !known.has(key)) };
}

/** A column's type refused, by key. */
const TYPES = {
  number: 'integrations.imports.records.number',
  boolean: 'integrations.imports.records.boolean',
  string: 'integrations.imports.records.string',
} as const satisfies Record<string, Key>;

/** The SQL name of a table (for messages). */
const tableName = (table: Table): string => (table as unknown as Record<symbol, string>)[Symbol.for('drizzle:Name')] ?? 'table';
