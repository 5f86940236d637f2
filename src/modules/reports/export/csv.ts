import { type Cell, type Column, currencyDigits, type ExportTable, FORMULA_START, isoDateTime, isoDay, spreadsheetRows } from './model.js';
import type { SinkStream } from './output.js';

/**
 * CSV (RFC 4180: CRLF records, fields quoted when they hold a comma, a quote or a line break of
 * either kind, quotes doubled), UTF-8 with a byte order mark (so spreadsheets read it as UTF-8), a
 * header row. Times are the member's local wall times; hours are decimal (2 places); text that a
 * spreadsheet would run as a formula is written after a `'`. Rows of one level: sums of other
 * rows (a group's, a total) are left out, so each column sums to the total. The records are
 * written here, not by csv-stringify (its options and checks per field were a fifth of an
 * export's time: issue 60); test/fast/unit/csv-record.test.ts holds them to what it wrote.
 */
export async function writeCsv(table: ExportTable, out: SinkStream): Promise<number> {
  const digits = currencyDigits(table.head.currency);
  const format = table.columns.map((column) => cellText(column, digits));
  out.stream.write(`\ufeff${csvRecord(table.columns.map((c) => guard(c.header)))}`);
  let rows = 0;
  for await (const batch of table.batches) {
    const written = spreadsheetRows(batch);
    let text = '';
    for (const row of written) text += csvRecord(row.cells.map((cell, i) => (format[i] as (cell: Cell) => string)(cell)));
    out.stream.write(text);
    rows += written.length;
    await out.room();
  }
  return rows;
}

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTES = /"/g;

/** One CSV record: each field quoted when it holds a comma, a quote or a line break (quotes doubled), CRLF at the end. */
export function csvRecord(fields: readonly string[]): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (i > 0) line += ',';
    line += NEEDS_QUOTES.test(field) ? `"${field.replace(QUOTES, '""')}"` : field;
  }
  return `${line}\r\n`;
}

/** `'` before text a spreadsheet would run as a formula (`=HYPERLINK(…)`, `+1`, `-2`, `@SUM(…)`, a leading tab or CR). */
const guard = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

function cellText(column: Column, digits: number): (cell: Cell) => string {
  switch (column.type) {
    case 'date':
      return (cell) => (typeof cell === 'number' ? isoDay(cell) : '');
    case 'datetime':
      return (cell) => (typeof cell === 'number' ? isoDateTime(cell) : '');
    case 'duration':
      return (cell) => (typeof cell === 'number' ? (cell / 3600).toFixed(2) : '');
    case 'money':
      return (cell) => (typeof cell === 'number' ? cell.toFixed(digits) : '');
    case 'count':
      return (cell) => (typeof cell === 'number' ? String(cell) : '');
    case 'boolean':
      return (cell) => (cell === true ? 'yes' : cell === false ? 'no' : '');
    default:
      return (cell) => (cell === null ? '' : guard(String(cell)));
  }
}
