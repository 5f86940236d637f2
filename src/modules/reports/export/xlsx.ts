import type ExcelJS from 'exceljs';
import { type Cell, type Column, currencyDigits, type ExportTable, GROUP_LABELS, spreadsheetRows } from './model.js';
import type { SinkStream } from './output.js';

const SHEETS = { detailed: 'Entries', summary: 'Summary', weekly: 'Timesheet' } as const;
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
  const sheet = workbook.addWorksheet(SHEETS[head.kind], { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = table.columns.map((column) => ({
    header: column.header,
    width: column.width + 2,
    style: { numFmt: numberFormat(column, money) },
  }));
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();
  const values = table.columns.map(cellValue);
  let rows = 0;
  for await (const batch of table.batches) {
    const written = spreadsheetRows(batch);
    for (const row of written) {
      const added = sheet.addRow(row.cells.map((cell, i) => (values[i] as (cell: Cell) => ExcelJS.CellValue)(cell)));
      added.commit();
    }
    rows += written.length;
    await out.room();
  }
  sheet.commit();
  // A second sheet says what the first holds: the period, whose time, the zone.
  const about = workbook.addWorksheet('About');
  about.columns = [{ width: 16 }, { width: 48 }];
  for (const line of aboutLines(table)) about.addRow(line).commit();
  about.commit();
  await workbook.commit();
  return rows;
}

function numberFormat(column: Column, money: string): string | undefined {
  switch (column.type) {
    case 'date':
      return 'yyyy-mm-dd';
    case 'datetime':
      return 'yyyy-mm-dd hh:mm';
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
  return [
    ['Report', { detailed: 'Entries', summary: 'Summary', weekly: 'Timesheet' }[head.kind]],
    ['From', head.from],
    ['To (included)', head.to],
    ['Members', head.members === null ? 'Everyone' : head.members.join(', ')],
    ['Time zone', head.timeZone],
    ...(head.only.length > 0 ? [['Only', head.only.join(' · ')]] : []),
    ...(head.rounded === null ? [] : [['Rounded', head.rounded]]),
    ...(head.kind === 'detailed' ? [] : [['Grouped by', GROUP_LABELS[head.groupBy].label]]),
    ...(head.subGroupBy ? [['Then by', GROUP_LABELS[head.subGroupBy].label]] : []),
    ...(head.money ? [['Currency', head.currency]] : []),
  ];
}
