import { stringify } from 'csv-stringify/sync';
import { type Cell, type Column, currencyDigits, type ExportTable, FORMULA_START, isoDateTime, isoDay, spreadsheetRows } from './model.js';
import type { SinkStream } from './output.js';

/**
 * CSV (RFC 4180 through csv-stringify: CRLF records, fields quoted when they hold a comma, quote
 * or line break), UTF-8 with a byte order mark (so spreadsheets read it as UTF-8), a header row.
 * Times are the member's local wall times; hours are decimal (2 places); text that a spreadsheet
 * would run as a formula is written after a `'`. Rows of one level: sums of other rows (a group's,
 * a total) are left out, so each column sums to the total.
 */
export async function writeCsv(table: ExportTable, out: SinkStream): Promise<number> {
  const digits = currencyDigits(table.head.currency);
  const format = table.columns.map((column) => cellText(column, digits));
  // A field holding a line break of either kind is quoted (csv-stringify quotes the record delimiter, CRLF, only).
  const options = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;
  out.stream.write(stringify([table.columns.map((c) => guard(c.header))], { ...options, bom: true }));
  let rows = 0;
  for await (const batch of table.batches) {
    const written = spreadsheetRows(batch);
    const records = written.map((row) => row.cells.map((cell, i) => (format[i] as (cell: Cell) => string)(cell)));
    out.stream.write(stringify(records, options));
    rows += written.length;
    await out.room();
  }
  return rows;
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
