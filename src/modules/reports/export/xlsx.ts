import type ExcelJS from 'exceljs';
import { type Cell, type Column, currencyDigits, type ExportTable, groupLabels, spreadsheetRows } from './model.js';
import type { SinkStream } from './output.js';
import type { Key } from '../../../i18n/index.js';

const SHEETS: Record<ExportTable['head']['kind'], Key> = {
  detailed: 'export.sheet.detailed',
  summary: 'export.sheet.summary',
  weekly: 'export.sheet.weekly',
};

const DAY_SECONDS = 86_400;

/**
 * XLSX through exceljs's streaming writer (rows are committed as they come and leave as zip
 * output; nothing waits for the last row): typed cells (dates and times as dates, hours as
 * numbers of days with a duration format, amounts as numbers with the currency's format,
 * billable as booleans), the header row frozen. Text is always a string cell, never a formula,
 * whatever it begins with. Rows of one level, as in the CSV: no sums of other rows among them.
 */
export async function writeXlsx(table: ExportTable, out: SinkStream): Promise<number> {
  const { head } = table;
  const digits = currencyDigits(head.currency);
  const money = `#,##0${digits > 0 ? `.${'0'.repeat(digits)}` : ''} "${head.currency}"`;
  // Loaded with the first XLSX (a reader thread starts without it).
  const { default: Excel } = await import('exceljs');
  const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out.stream, useStyles: true, useSharedStrings: false });
  workbook.creator = 'timetrack';
  const { say, people } = head.voice;
  const sheet = workbook.addWorksheet(say(SHEETS[head.kind]), { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = table.columns.map((column) => ({
    header: column.header,
    width: column.width + 2,
    style: { numFmt: numberFormat(column, money, people !== null && people.language === 'de') },
  }));
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  const values = table.columns.map(cellValue);
  // Each column's style as one object its cells share: exceljs gives every new cell a copy of its
  // column's, and a copy is a style it has not seen, which it writes out as XML to look up again (a
  // sixth of a year's XLSX); the shared object it finds by identity. The same styles result.
  const styles = table.columns.map((_column, i) => ({ ...sheet.getColumn(i + 1).style }));
  const share = (cell: ExcelJS.Cell, column: number) => {
    cell.style = styles[column - 1] as Partial<ExcelJS.Style>;
  };
  let rows = 0;
  for await (const batch of table.batches) {
    const written = spreadsheetRows(batch);
    for (const row of written) {
      const added = sheet.addRow(row.cells.map((cell, i) => (values[i] as (cell: Cell) => ExcelJS.CellValue)(cell)));
      added.eachCell(share);
      added.commit();
    }
    rows += written.length;
    await out.room();
  }
  sheet.commit();
  // A second sheet says what the first holds: the period, whose time, the zone.
  const about = workbook.addWorksheet(say('export.sheet.about'));
  about.columns = [{ width: 16 }, { width: 48 }];
  for (const line of aboutLines(table)) about.addRow(line).commit();
  about.commit();
  await workbook.commit();
  return rows;
}

/** The cells' formats: Excel writes a number's separators by its own locale; days as the reader writes them (`dd.mm.yyyy` in German). */
function numberFormat(column: Column, money: string, german: boolean): string | undefined {
  switch (column.type) {
    case 'date':
      return german ? 'dd.mm.yyyy' : 'yyyy-mm-dd';
    case 'datetime':
      return german ? 'dd.mm.yyyy hh:mm' : 'yyyy-mm-dd hh:mm';
    case 'duration':
      return '[h]:mm:ss';
    case 'money':
      return money;
    case 'count':
      return '0';
    default:
      return undefined;
  }
}

function cellValue(column: Column): (cell: Cell) => ExcelJS.CellValue {
  switch (column.type) {
    case 'date':
    case 'datetime':
      // Local wall times as UTC: a spreadsheet's dates have no zone.
      return (cell) => (typeof cell === 'number' ? new Date(cell) : null);
    case 'duration':
      return (cell) => (typeof cell === 'number' ? cell / DAY_SECONDS : null);
    case 'money':
    case 'count':
      return (cell) => (typeof cell === 'number' ? cell : null);
    case 'boolean':
      return (cell) => (typeof cell === 'boolean' ? cell : null);
    default:
      return (cell) => (cell === null ? null : String(cell));
  }
}

function aboutLines(table: ExportTable): string[][] {
  const { head } = table;
  const { say, people } = head.voice;
  const day = (d: string) => (people ? people.date(d) : d);
  return [
    [say('export.report'), say(SHEETS[head.kind])],
    [say('export.from'), day(head.from)],
    [say('export.to'), day(head.to)],
    [say('export.members'), head.members === null ? say('export.everyone') : head.members.join(', ')],
    [say('export.timeZone'), head.timeZone],
    ...(head.only.length > 0 ? [[say('export.only'), head.only.join(' · ')]] : []),
    ...(head.rounded === null ? [] : [[say('export.rounded'), head.rounded]]),
    ...(head.kind === 'detailed' ? [] : [[say('export.groupedBy'), groupLabels(say, head.groupBy).label]]),
    ...(head.subGroupBy ? [[say('export.thenBy'), groupLabels(say, head.subGroupBy).label]] : []),
    ...(head.money ? [[say('export.currency'), head.currency]] : []),
  ];
}
