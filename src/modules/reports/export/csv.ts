import { type Cell, type Column, currencyDigits, type ExportTable, FORMULA_START, isoDateTime, isoDay, spreadsheetRows } from './model.js';
import type { SinkStream } from './output.js';
import type { Translate } from '../../../i18n/index.js';

/**
 * CSV (RFC 4180: CRLF records, fields quoted when they hold a comma, a quote or a line break of
 * either kind, quotes doubled), UTF-8 with a byte order mark (so spreadsheets read it as UTF-8), a
 * header row. Times are the member's local wall times; hours are decimal (2 places); text that a
 * spreadsheet would run as a formula is written after a `'`. Rows of one level: sums of other
 * rows (a group's, a total) are left out, so each column sums to the total. The records are
 * written here, not by csv-stringify (its options and checks per field were a fifth of an
 * export's time: issue 60); test/fast/unit/csv-record.test.ts holds them to what it wrote.
 * Two dialects (decisions §14), chosen on the Reports page's download: `comma` as above (the API's
 * and the command line's, whose files speak English), its headers and yes/no in the reader's
 * words; `semicolon`, as a German Excel opens a file by double-click (`;`, a decimal comma, days
 * as 23.11.2026).
 */
export async function writeCsv(table: ExportTable, out: SinkStream): Promise<number> {
  const digits = currencyDigits(table.head.currency);
  const { csv: dialect, say } = table.head.voice;
  const record = dialect === 'semicolon' ? semicolonRecord : csvRecord;
  const format = table.columns.map((column) =>
    dialect === 'semicolon' ? germanCellText(column, digits, say('export.yes'), say('export.no')) : cellText(column, digits, say),
  );
  out.stream.write(`\ufeff${record(table.columns.map((c) => guard(c.header)))}`);
  let rows = 0;
  for await (const batch of table.batches) {
    const written = spreadsheetRows(batch);
    let text = '';
    for (const row of written) text += record(row.cells.map((cell, i) => (format[i] as (cell: Cell) => string)(cell)));
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

const NEEDS_QUOTES_SEMICOLON = /[";\r\n]/;

/**
 * One record of the semicolon dialect (decisions §14): as a German Excel opens a file by
 * double-click, fields apart by `;`, each quoted when it holds a semicolon, a quote or a line
 * break (quotes doubled), CRLF at the end.
 */
export function semicolonRecord(fields: readonly string[]): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (i > 0) line += ';';
    line += NEEDS_QUOTES_SEMICOLON.test(field) ? `"${field.replace(QUOTES, '""')}"` : field;
  }
  return `${line}\r\n`;
}

/** `'` before text a spreadsheet would run as a formula (`=HYPERLINK(…)`, `+1`, `-2`, `@SUM(…)`, a leading tab or CR). */
const guard = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

function cellText(column: Column, digits: number, say: Translate): (cell: Cell) => string {
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
    case 'boolean': {
      // Looked up once, not per row (i18next's lookup was a third of a year's export: issue 60).
      const yes = say('export.yes');
      const no = say('export.no');
      return (cell) => (cell === true ? yes : cell === false ? no : '');
    }
    default:
      return (cell) => (cell === null ? '' : guard(String(cell)));
  }
}

/** `2026-11-23` as `23.11.2026`. */
const germanDay = (iso: string): string => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;

/**
 * The cells of the semicolon dialect, as a German Excel reads them as numbers and days: a
 * decimal comma and no thousands separator (`1234,50`), days `23.11.2026`, times
 * `23.11.2026 09:05:00`, yes and no in the reader's words.
 */
function germanCellText(column: Column, digits: number, yes: string, no: string): (cell: Cell) => string {
  switch (column.type) {
    case 'date':
      return (cell) => (typeof cell === 'number' ? germanDay(isoDay(cell)) : '');
    case 'datetime':
      return (cell) => {
        if (typeof cell !== 'number') return '';
        const iso = isoDateTime(cell);
        return `${germanDay(iso.slice(0, 10))}${iso.slice(10)}`;
      };
    case 'duration':
      return (cell) => (typeof cell === 'number' ? (cell / 3600).toFixed(2).replace('.', ',') : '');
    case 'money':
      return (cell) => (typeof cell === 'number' ? cell.toFixed(digits).replace('.', ',') : '');
    case 'count':
      return (cell) => (typeof cell === 'number' ? String(cell) : '');
    case 'boolean':
      return (cell) => (cell === true ? yes : cell === false ? no : '');
    default:
      return (cell) => (cell === null ? '' : guard(String(cell)));
  }
}
