import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Fontkit from 'fontkit';
import { DateTime } from 'luxon';
import {
  type Cell,
  clock,
  type Column,
  currencyDigits,
  type ExportHead,
  type ExportTable,
  groupLabels,
  isoDay,
  type Row,
  type TimesheetWeek,
} from './model.js';
import type { SinkStream } from './output.js';
import type { Key } from '../../../i18n/index.js';

/*
 * The PDF of an export (pdfkit, as the invoices): a timesheet a client can sign. The head (the
 * period, whose time, the zone), the report as tables (the timesheet a grid of its groups by the
 * seven days of each week; the summary its groups and sub-groups; the entries one a row), the
 * totals, then lines to sign when the report is for one client (an internal summary has none).
 * A4 landscape, DejaVu Sans Condensed embedded. Pages are written as they fill (no page count, so
 * the first page leaves before the last row is read); the table's last rows are held back until
 * its end is known, so the totals never stand alone on a page (issue 58).
 */

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/** The two faces, parsed once per process (parsing a TTF costs more than a page). */
let fonts: { regular: Fontkit.Font; bold: Fontkit.Font } | null = null;
async function loadFonts(): Promise<{ regular: Fontkit.Font; bold: Fontkit.Font }> {
  if (fonts) return fonts;
  const fontkit = await import('fontkit');
  const face = (file: string) => fontkit.create(readFileSync(join(fontDir, file))) as Fontkit.Font;
  fonts = { regular: face('DejaVuSansCondensed.ttf'), bold: face('DejaVuSansCondensed-Bold.ttf') };
  return fonts;
}

const PAGE = { width: 841.89, height: 595.28 };
const M = { left: 40, right: 40, top: 40, bottom: 46 };
const WIDTH = PAGE.width - M.left - M.right;
const LIMIT = PAGE.height - M.bottom;
const ROW = 13;
const INK = '#1f2328';
const MUTED = '#5f6670';
const RULE = '#d0d4d9';
const SHADE = '#f1f3f5';
/** The table's last rows that go onto the next page with the totals when the totals do not fit under them. */
const KEEP = 3;

/** What a page of a report's PDF holds, as the writer wrote it (its tests read these). */
export interface PdfPage {
  /** The table's rows on it (a timesheet's rows of every week on it). */
  rows: number;
  /** The totals' line. */
  totals: boolean;
  /** The lines where the member and the client sign. */
  signatures: boolean;
}

type Doc = PDFKit.PDFDocument;

/**
 * The most pages a report's PDF may have (issue 44, M3): a year of a team's entries was 1,556
 * pages, minutes of a reader thread and of no use on paper. Past it the export is refused before
 * its first byte, naming the pages and offering CSV or XLSX.
 */
export const MAX_PDF_PAGES = 300;

/** About how many pages the PDF of a table has: its lines at ROW points on the pages below the head, plus the head and the closing. */
export function pdfPages(table: ExportTable, rows: number): number {
  const lines = table.weeks ? table.weeks.reduce((n, week) => n + week.rows.length + 4, 0) : rows + 1;
  const perPage = LIMIT - M.top - (ROW + 4);
  return Math.max(1, Math.ceil((lines * ROW + 90 + 130) / perPage));
}

/**
 * How the PDF writes its figures: for a person (the Reports page's download, decisions §14) in
 * their locale (`23.11.2026`, `12.480,00 €`, `138:30`); for the command line as it always has
 * (`Mon 23 Nov 2026`, `12480.00 EUR`).
 */
export interface Look {
  day(day: string): string;
  dayHead(day: string): string;
  day10(local: number): string;
  wall(local: number): string;
  duration(seconds: number): string;
  hours(seconds: number): string;
  money(amount: number): string;
  yes(value: boolean): string;
}

export function lookOf(head: ExportHead): Look {
  const { people, say } = head.voice;
  const digits = currencyDigits(head.currency);
  // A page is read, not parsed: the command line's PDF groups thousands too (`12,480.00 EUR`, `1,234:30`), as its CSV does not.
  const grouped = (value: number, places: number) =>
    value.toLocaleString('en-GB', { minimumFractionDigits: places, maximumFractionDigits: places });
  if (people === null)
    return {
      day: (day) => DateTime.fromISO(day, { zone: 'UTC' }).toFormat('ccc d LLL yyyy'),
      dayHead: (day) => DateTime.fromISO(day, { zone: 'UTC' }).toFormat('ccc d LLL'),
      day10: isoDay,
      wall: (local) => new Date(local).toISOString().slice(11, 16),
      duration: (seconds) => clock(seconds).replace(/^\d+/, (hours) => grouped(Number(hours), 0)),
      hours: (seconds) => grouped(seconds / 3600, 2),
      money: (amount) => `${grouped(amount, digits)} ${head.currency}`,
      yes: (value) => (value ? 'yes' : 'no'),
    };
  return {
    day: (day) => people.weekdayDate(day),
    dayHead: (day) => people.dayMonth(day),
    day10: (local) => people.date(local),
    wall: (local) => people.wallTime(local),
    duration: (seconds) => people.duration(seconds),
    hours: (seconds) => people.hours(seconds),
    money: (amount) => people.money(amount, head.currency),
    yes: (value) => say(value ? 'export.yes' : 'export.no'),
  };
}

const TITLES: Record<ExportHead['kind'], Key> = {
  detailed: 'export.title.detailed',
  summary: 'export.title.summary',
  weekly: 'export.title.weekly',
};
const titleOf = (head: ExportHead): string => head.voice.say(TITLES[head.kind]);

/** Writes the PDF of a table, each page's contents recorded in `pages` (when given). */
export async function writePdf(table: ExportTable, out: SinkStream, pages: PdfPage[] = []): Promise<number> {
  const { head } = table;
  // pdfkit and the faces are loaded with the first PDF (a reader thread starts without them).
  const faces = await loadFonts();
  const { default: PDFDocument } = await import('pdfkit');
  const pdf = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margins: M,
    autoFirstPage: true,
    // No default font: the embedded faces are the only ones.
    font: '',
    info: { Title: `${titleOf(head)} ${head.from} – ${head.to}`, Creator: 'timetrack', Producer: 'timetrack (PDFKit)' },
  });
  pdf.registerFont('regular', faces.regular as unknown as string);
  pdf.registerFont('bold', faces.bold as unknown as string);
  pdf.pipe(out.stream, { end: false });
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  let page = 1;
  pages.push({ rows: 0, totals: false, signatures: false });
  footer(pdf, page, table);
  pdf.on('pageAdded', () => {
    pages.push({ rows: 0, totals: false, signatures: false });
    footer(pdf, (page += 1), table);
  });
  const onPage = () => pages[pages.length - 1] as PdfPage;

  let y = heading(pdf, table);
  const money = lookOf(head);
  const after = closingHeight(table);
  let rows = 0;
  if (table.weeks) {
    for (const [i, week] of table.weeks.entries()) {
      // The last week keeps its last rows with the totals.
      y = timesheetWeek(pdf, table, week, y, money, onPage, i === table.weeks.length - 1 ? after : 0);
      await out.room();
    }
    rows = table.weeks.reduce((n, w) => n + w.rows.length + 1, 0);
  } else {
    const layout = columnsOf(table.columns);
    const writer = rowWriter(pdf, layout, money, tableHead(pdf, layout, y), onPage);
    for await (const batch of table.batches) {
      for (const row of batch) writer.add(row);
      rows += batch.length;
      await out.room();
    }
    y = writer.end(after);
  }
  closing(pdf, table, y, money, onPage);
  pdf.end();
  await ended;
  return rows;
}

function heading(pdf: Doc, table: ExportTable): number {
  const { head } = table;
  const { say } = head.voice;
  const fmtDay = lookOf(head).day;
  pdf.font('bold').fontSize(16).fillColor(INK).text(titleOf(head), M.left, M.top, { width: WIDTH });
  const facts: Array<[string, string]> = [
    [say('export.period'), head.from === head.to ? fmtDay(head.from) : `${fmtDay(head.from)} – ${fmtDay(head.to)}`],
    [say('export.members'), head.members === null ? say('export.everyone') : head.members.join(', ')],
    [say('export.timesIn'), head.timeZone],
    ...(head.only.length > 0 ? ([[say('export.only'), head.only.join(' · ')]] as Array<[string, string]>) : []),
    ...(head.rounded === null ? [] : ([[say('export.rounded'), head.rounded]] as Array<[string, string]>)),
  ];
  if (head.kind !== 'detailed') {
    const by = groupLabels(say, head.groupBy).label;
    facts.push([
      say('export.groupedBy'),
      head.subGroupBy ? say('export.groupedByThen', { by, then: groupLabels(say, head.subGroupBy).label }) : by,
    ]);
  }
  let y = M.top + 26;
  for (const [label, value] of facts) {
    pdf.font('regular').fontSize(8.5).fillColor(MUTED).text(label, M.left, y, { width: 70, lineBreak: false });
    pdf.fillColor(INK).text(value, M.left + 72, y, { width: WIDTH - 72, height: 22, ellipsis: true });
    y += 13;
  }
  return y + 10;
}

function footer(pdf: Doc, page: number, table: ExportTable): void {
  const bottom = pdf.page.margins.bottom;
  const { x, y } = pdf;
  // Writing below the bottom margin would start a new page: lift it while the footer is written.
  pdf.page.margins.bottom = 0;
  const at = PAGE.height - M.bottom + 16;
  pdf
    .moveTo(M.left, at)
    .lineTo(PAGE.width - M.right, at)
    .lineWidth(0.5)
    .strokeColor(RULE)
    .stroke();
  pdf.font('regular').fontSize(7.5).fillColor(MUTED);
  pdf.text(`${titleOf(table.head)}, ${table.head.from} – ${table.head.to}`, M.left, at + 6, { width: WIDTH - 80, lineBreak: false });
  pdf.text(table.head.voice.say('export.page', { page }), PAGE.width - M.right - 80, at + 6, {
    width: 80,
    align: 'right',
    lineBreak: false,
  });
  pdf.page.margins.bottom = bottom;
  pdf.x = x;
  pdf.y = y;
}

interface Placed {
  column: Column;
  x: number;
  width: number;
  right: boolean;
}

/** The columns across the page: widths by weight (times and figures narrow, text wide). */
function columnsOf(columns: Column[]): Placed[] {
  const weight = (c: Column) => ({ date: 8, datetime: 5, duration: 5.5, money: 8, count: 5, boolean: 5, text: c.width * 0.55 })[c.type];
  const total = columns.reduce((n, c) => n + weight(c), 0);
  let x = M.left;
  return columns.map((column) => {
    const width = (weight(column) / total) * WIDTH;
    const placed = { column, x, width, right: ['duration', 'money', 'count'].includes(column.type) };
    x += width;
    return placed;
  });
}

function tableHead(pdf: Doc, layout: Placed[], y: number): number {
  pdf.rect(M.left, y, WIDTH, ROW + 2).fill(SHADE);
  for (const p of layout)
    pdf
      .font(p.column.muted ? 'regular' : 'bold')
      .fontSize(7.5)
      .fillColor(p.column.muted ? MUTED : INK)
      .text(p.column.header, p.x + 2, y + 3, { width: p.width - 4, height: ROW, ellipsis: true, align: p.right ? 'right' : 'left' });
  return y + ROW + 4;
}

function cellText(column: Column, cell: Cell, look: Look): string {
  if (cell === null || cell === '') return '';
  switch (column.type) {
    case 'date':
      return typeof cell === 'number' ? look.day10(cell) : '';
    case 'datetime':
      return typeof cell === 'number' ? look.wall(cell) : '';
    case 'duration':
      return typeof cell === 'number' ? look.duration(cell) : '';
    case 'money':
      return typeof cell === 'number' ? look.money(cell) : '';
    case 'boolean':
      return look.yes(cell === true);
    default:
      return String(cell);
  }
}

function tableRow(pdf: Doc, layout: Placed[], row: Row, y: number, money: Look): number {
  const strong = row.role === 'group' || row.role === 'total';
  if (row.role === 'total')
    pdf
      .moveTo(M.left, y - 1)
      .lineTo(M.left + WIDTH, y - 1)
      .lineWidth(0.5)
      .strokeColor(INK)
      .stroke();
  pdf
    .font(strong ? 'bold' : 'regular')
    .fontSize(7.5)
    .fillColor(INK);
  layout.forEach((p, i) => {
    const indent = row.role === 'sub' && i === 1 && p.column.type === 'text' ? 8 : 0;
    const text = cellText(p.column, row.cells[i] ?? null, money);
    if (text !== '')
      pdf.text(text, p.x + 2 + indent, y + 2, {
        width: p.width - 4 - indent,
        height: ROW - 2,
        ellipsis: true,
        align: p.right ? 'right' : 'left',
      });
  });
  pdf
    .moveTo(M.left, y + ROW)
    .lineTo(M.left + WIDTH, y + ROW)
    .lineWidth(0.25)
    .strokeColor(RULE)
    .stroke();
  return y + ROW;
}

/**
 * Rows drawn as they come, a new page (with the table's head) when one is full; the last KEEP are
 * held back until the table ends, and go onto a new page with what follows them (the totals,
 * `after` points) when that does not fit under them.
 */
function rowWriter(pdf: Doc, layout: Placed[], money: Look, y: number, onPage: () => PdfPage) {
  const held: Row[] = [];
  let at = y;
  const draw = (row: Row) => {
    if (at + ROW > LIMIT) {
      pdf.addPage();
      at = tableHead(pdf, layout, M.top);
    }
    at = tableRow(pdf, layout, row, at, money);
    onPage().rows += 1;
  };
  return {
    add(row: Row): void {
      held.push(row);
      if (held.length > KEEP) draw(held.shift() as Row);
    },
    /** The table's end: its last rows, and where the page goes on under them. */
    end(after: number): number {
      if (held.length > 0 && at + held.length * ROW + after > LIMIT) {
        pdf.addPage();
        at = tableHead(pdf, layout, M.top);
      }
      for (const row of held.splice(0)) draw(row);
      return at;
    },
  };
}

/** A week of the timesheet: its groups by the seven days from the week's first (those outside the range empty), the days' totals, then the week's. */
function timesheetWeek(
  pdf: Doc,
  table: ExportTable,
  week: TimesheetWeek,
  y: number,
  money: Look,
  onPage: () => PdfPage,
  after: number,
): number {
  const withMoney = table.head.money;
  const { say } = table.head.voice;
  const label = groupLabels(say, table.head.groupBy).label;
  const columns: Column[] = [
    { header: label, type: 'text', width: 40 },
    ...week.days.map((d, i): Column => ({ header: money.dayHead(d), type: 'duration', width: 8, muted: week.within[i] === false })),
    { header: say('reports.total'), type: 'duration', width: 8 },
    ...(withMoney ? [{ header: say('reports.amount'), type: 'money', width: 12 } as Column] : []),
  ];
  const layout = columnsOf(columns);
  const needed = (week.rows.length + 3) * ROW + 20;
  if (y + Math.min(needed, 6 * ROW) > LIMIT) {
    pdf.addPage();
    y = M.top;
  }
  pdf
    .font('bold')
    .fontSize(10)
    .fillColor(INK)
    .text(say('export.weekOfDay', { day: money.day(week.days[0] as string) }), M.left, y, { width: WIDTH });
  y = tableHead(pdf, layout, y + 16);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const blank = (s: number) => (s === 0 ? null : s);
  const rows: Row[] = [
    ...week.rows.map((r): Row => ({ cells: [r.name, ...r.seconds.map(blank), sum(r.seconds), ...(withMoney ? [r.amount] : [])] })),
    {
      cells: [
        say('reports.total'),
        ...week.totals.seconds.map(blank),
        sum(week.totals.seconds),
        ...(withMoney ? [week.totals.amount] : []),
      ],
      role: 'total',
    },
  ];
  const writer = rowWriter(pdf, layout, money, y, onPage);
  for (const row of rows) writer.add(row);
  return writer.end(after + 14) + 14;
}

/** Whether the report closes with lines to sign: when it is for one client (an internal team summary is not signed by a client). */
const signed = (table: ExportTable): boolean => table.head.client !== null;

/** The height the closing takes under the table: the totals' line, and the signatures when signed. */
const closingHeight = (table: ExportTable): number => (signed(table) ? 136 : 30);

/** The totals, then (a report for one client) where the member and the client sign. */
function closing(pdf: Doc, table: ExportTable, y: number, money: Look, onPage: () => PdfPage): void {
  const totals = table.totals();
  if (y + closingHeight(table) > LIMIT) {
    // Only a table with no rows gets here (the rows' writer keeps the last ones with the closing).
    pdf.addPage();
    y = M.top;
  }
  const page = onPage();
  page.totals = true;
  y += 8;
  pdf.font('bold').fontSize(10).fillColor(INK);
  const { say } = table.head.voice;
  const parts = [
    say('export.totalTime', { time: money.duration(totals.seconds), hours: money.hours(totals.seconds) }),
    say('export.entries', { count: totals.count }),
  ];
  if (table.head.money) parts.push(say('export.amount', { amount: money.money(totals.amount) }));
  pdf.text(parts.join('   ·   '), M.left, y, { width: WIDTH });
  if (!signed(table)) return;
  page.signatures = true;
  y += 40;
  const half = (WIDTH - 40) / 2;
  for (const [i, who] of [say('export.submittedBy'), say('export.approvedBy')].entries()) {
    const x = M.left + i * (half + 40);
    pdf.font('regular').fontSize(8.5).fillColor(MUTED).text(who, x, y, { width: half });
    for (const [j, line] of [say('export.signName'), say('export.signDate'), say('export.signature')].entries()) {
      const at = y + 30 + j * 26;
      pdf
        .moveTo(x + 60, at)
        .lineTo(x + half, at)
        .lineWidth(0.5)
        .strokeColor(INK)
        .stroke();
      pdf.fillColor(MUTED).text(line, x, at - 9, { width: 56, lineBreak: false });
    }
  }
}
