import type { components } from '../../../../generated/openapi.js';
import { DomainError } from '../../../errors.js';
import { offsetStretches, type OffsetStretch } from '../../../kernel/local-days.js';
import { DAY_MS } from '../../../kernel/time.js';
import {
  type CsvDialect,
  type Formats,
  formatsFor,
  type Key,
  type Language,
  type TimeFormat,
  type Translate,
  translator,
} from '../../../i18n/index.js';

/*
 * Exports of reports (decisions §11): what is asked for, and the table every format writes. The
 * formats (./csv.ts, ./xlsx.ts, ./pdf.ts) know cells by their type, never where they came from.
 */

type Grouping = components['schemas']['ReportGrouping'];

export const EXPORT_FORMATS = ['csv', 'xlsx', 'pdf'] as const;
export const EXPORT_KINDS = ['detailed', 'summary', 'weekly'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type ExportKind = (typeof EXPORT_KINDS)[number];

const listed = (values: readonly string[]) => `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;

/** The format and kind by name; anything else is refused naming the values it may be. */
export function exportFormatOf(value: string): ExportFormat {
  if ((EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw new DomainError('invalid', `format: "${value}" is not one of ${listed(EXPORT_FORMATS)}.`, { field: 'format' });
}
export function exportKindOf(value: string): ExportKind {
  if ((EXPORT_KINDS as readonly string[]).includes(value)) return value as ExportKind;
  throw new DomainError('invalid', `kind: "${value}" is not one of ${listed(EXPORT_KINDS)}.`, { field: 'kind' });
}

/** One export: the report's own parameters (as the Reports page and the API name them), its kind and its format. */
export interface ExportRequest {
  kind: ExportKind;
  format: ExportFormat;
  /** Calendar days, both included, read in `timeZone`. */
  from: string;
  to: string;
  /** The member's zone; absent: the server's. */
  timeZone?: string;
  weekStart: 'monday' | 'sunday';
  groupBy: Grouping;
  subGroupBy: Grouping | null;
  /** Whose time; absent: everyone the actor may see. */
  userIds?: string[];
  /** The Reports page's filters besides whose time (the API's names): client, project, task, tag, billable, text. */
  filters?: {
    clientIds?: string[];
    projectIds?: string[];
    taskIds?: string[];
    tagIds?: string[];
    billable?: boolean;
    search?: string;
  };
  /** Colleagues' money the actor may not see: refused (the API's rule, the default) or withheld (the web app's downloads). */
  unseenMoney?: 'refuse' | 'withhold';
  /** Each entry's time rounded as invoices round it (issue 56 item 4; the Reports page's choice, `report export --rounded`). */
  rounded?: boolean;
  /**
   * The person the file is for (the Reports page's downloads): its words in their language, its
   * money, numbers, days and durations as they read them, its CSV in the dialect chosen (decisions
   * §14). Absent (the command line): English words and today's machine formats (ISO days,
   * `12480.00 EUR`, a comma CSV), which scripts parse.
   */
  reader?: ExportReader;
}

/** Whom a file is for: their language, clock and durations, and the CSV dialect chosen on the download. */
export interface ExportReader {
  language: Language;
  timeFormat?: TimeFormat;
  seconds?: boolean;
  csv?: CsvDialect;
}

/**
 * How a file speaks: its words (`say`), the reader's formats where a person reads it (`people`;
 * null: the machine formats of the command line), and the CSV dialect.
 */
export interface ExportVoice {
  say: Translate;
  people: Formats | null;
  csv: CsvDialect;
}

/** The voice of an export request: its reader's, or the command line's (English, machine formats, commas). */
export const voiceOf = (reader: ExportReader | undefined): ExportVoice =>
  reader === undefined
    ? { say: translator('en'), people: null, csv: 'comma' }
    : { say: translator(reader.language), people: formatsFor(reader), csv: reader.csv ?? 'comma' };

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

const KIND_NAMES: Record<ExportKind, string> = { detailed: 'entries', summary: 'summary', weekly: 'timesheet' };

/** `timetrack-entries-2026-11-23-to-2026-11-29.csv`: what, and the range (ASCII only); `-rounded` when each entry was rounded. */
export const exportFileName = (request: Pick<ExportRequest, 'kind' | 'format' | 'from' | 'to' | 'rounded'>): string =>
  `timetrack-${KIND_NAMES[request.kind]}-${request.from}${request.from === request.to ? '' : `-to-${request.to}`}${request.rounded ? '-rounded' : ''}.${request.format}`;

/** What a grouping is called in a header, and its rows without a key (by key: the file says them in its reader's language). */
const GROUP_KEYS: Record<Grouping, { label: Key; none: Key }> = {
  project: { label: 'reports.grouping.project', none: 'reports.grouping.noProject' },
  client: { label: 'reports.grouping.client', none: 'reports.grouping.noClient' },
  task: { label: 'reports.grouping.task', none: 'reports.grouping.noTask' },
  tag: { label: 'reports.grouping.tag', none: 'reports.grouping.noTag' },
  user: { label: 'reports.grouping.user', none: 'reports.grouping.noUser' },
  day: { label: 'reports.chart.day', none: 'export.noDay' },
  week: { label: 'reports.chart.week', none: 'export.noWeek' },
  month: { label: 'export.month', none: 'export.noMonth' },
  billable: { label: 'reports.billable', none: 'export.none' },
};
export const groupLabels = (say: Translate, grouping: Grouping): { label: string; none: string } => ({
  label: say(GROUP_KEYS[grouping].label),
  none: say(GROUP_KEYS[grouping].none),
});

/**
 * A cell's type, which each format writes its own way: `date` and `datetime` are local wall
 * times as milliseconds (read as UTC), `duration` seconds, `money` an amount in the currency.
 */
export type CellType = 'text' | 'date' | 'datetime' | 'duration' | 'count' | 'money' | 'boolean';
export type Cell = string | number | boolean | null;

export interface Column {
  header: string;
  type: CellType;
  /** Relative width (characters in a spreadsheet). */
  width: number;
  /** Money columns: absent (not empty) for who may not see money. */
  money?: boolean;
  /** The PDF writes its header muted: a timesheet's day outside the report's range. */
  muted?: boolean;
}

/** The document's head: the period, whose time, the zone, the currency. */
export interface ExportHead {
  kind: ExportKind;
  from: string;
  to: string;
  timeZone: string;
  currency: string;
  /** The members' names, or null for everyone the actor may see. */
  members: string[] | null;
  groupBy: Grouping;
  subGroupBy: Grouping | null;
  weekStart: 'monday' | 'sunday';
  /** Whether money columns are written at all. */
  money: boolean;
  /** The filters besides whose time, as a person reads them (`Project Audit`, `Billable only`); empty: none. */
  only: string[];
  /** The one client the report is for (its filters name one client): the PDF closes with lines to sign; null: an internal report, no signatures. */
  client: string | null;
  /** The rounding rules, in a sentence, when each entry's time is rounded (issue 56 item 4); null: as tracked. */
  rounded: string | null;
  /** Its words, formats and CSV dialect. */
  voice: ExportVoice;
}

/** A row with its role in the document (the PDF sets totals and groups apart; spreadsheets ignore it). */
export interface Row {
  cells: Cell[];
  role?: 'group' | 'sub' | 'total';
  /**
   * A sum of other rows of the table (a group over its sub-groups, a week's or the report's
   * total): the PDF prints it, the spreadsheets leave it out, so their rows are of one level and
   * a column's sum is the total (not the total three times over).
   */
  summed?: true;
}

/** The rows a spreadsheet writes: one level, no sums of other rows. */
export const spreadsheetRows = (batch: readonly Row[]): Row[] => batch.filter((row) => row.summed !== true);

/**
 * A week of the timesheet (kind weekly): its seven local days from the member's first day of the
 * week (as the timesheet page shows it), which of them are within the report's range (the range's
 * first and last weeks may start or end within it), and a row per group with time in it, then
 * the week's total. The spreadsheets flatten it into rows; the PDF draws it as a grid.
 */
export interface TimesheetWeek {
  days: string[];
  /** Per day: within the report's range (a day outside it is drawn empty, its heading muted). */
  within: boolean[];
  rows: Array<{ name: string; seconds: number[]; amount: number }>;
  totals: { seconds: number[]; amount: number };
}

/** What one export writes: the head, its columns, and its rows in batches (the detailed report's arrive while they are read). */
export interface ExportTable {
  head: ExportHead;
  columns: Column[];
  batches: AsyncIterable<Row[]> | Iterable<Row[]>;
  /** The timesheet as weeks (kind weekly), for the PDF. */
  weeks?: TimesheetWeek[];
  /** The whole export's figures, for the PDF's closing lines. */
  totals: () => { seconds: number; amount: number; count: number };
  /** How many rows it will write, before any is read (the PDF's page cap asks it first). */
  rows: () => number;
}

/**
 * Local wall time of instants in a zone, without a date library per row (a year of a team is
 * 250,000 rows): the zone's offsets over the span, then arithmetic; outside it, the last offset.
 */
export function localClock(zone: string, from: number, to: number): (ms: number) => number {
  const stretches: OffsetStretch[] = offsetStretches(from - DAY_MS, to + 32 * DAY_MS, zone);
  const first = stretches[0] as OffsetStretch;
  if (stretches.length === 1) return (ms) => ms + first.offsetMs;
  return (ms) => {
    let offset = first.offsetMs;
    for (const s of stretches) {
      if (s.from > ms) break;
      offset = s.offsetMs;
    }
    return ms + offset;
  };
}

/**
 * Each day's `2026-11-23`, made once: an export's hundreds of thousands of rows fall on a few
 * hundred days, and `toISOString` three times a row was a sixth of a CSV export's time (issue 60).
 */
const dayTexts = new Map<number, string>();
const twoDigits = (n: number): string => (n < 10 ? `0${n}` : String(n));
/** `2026-11-23` of a local wall time (ms read as UTC). */
export const isoDay = (local: number): string => {
  const day = Math.floor(local / DAY_MS);
  let text = dayTexts.get(day);
  if (text === undefined) {
    text = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayTexts.size >= 50_000) dayTexts.clear();
    dayTexts.set(day, text);
  }
  return text;
};
/** `2026-11-23 09:05:00` of a local wall time. */
export const isoDateTime = (local: number): string => {
  const second = Math.floor((local - Math.floor(local / DAY_MS) * DAY_MS) / 1000);
  return `${isoDay(local)} ${twoDigits(Math.floor(second / 3600))}:${twoDigits(Math.floor(second / 60) % 60)}:${twoDigits(second % 60)}`;
};
/** `9:05` of seconds (hours past 24 stay hours). */
export const clock = (seconds: number): string =>
  `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;

/** Fraction digits of a currency (JPY 0, EUR 2, BHD 3). */
export const currencyDigits = (currency: string): number =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** Text a spreadsheet would run as a formula (src/kernel/spreadsheet.ts): the CSV writes it after a `'`, which spreadsheets show as text. */
export { FORMULA_START } from '../../../kernel/spreadsheet.js';
