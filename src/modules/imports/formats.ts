import { importErrors } from './errors.js';
import { PREFIXED_FORMULA_START } from '../../kernel/spreadsheet.js';

export const FORMATS = ['toggl', 'clockify', 'harvest', 'kimai', 'timetrack'] as const;
export type Format = (typeof FORMATS)[number];
/** The tools as their users name them. */
export const FORMAT_NAMES: Record<Format, string> = {
  toggl: 'Toggl',
  clockify: 'Clockify',
  harvest: 'Harvest',
  kimai: 'Kimai',
  timetrack: 'timetrack',
};

/** One row as a format's export writes it, cells still text: the engine reads and checks them. */
export interface SourceRow {
  email: string;
  name: string;
  client: string;
  project: string;
  task: string;
  description: string;
  tags: string;
  billable: string;
  /** Local day and time cells (toggl, clockify, kimai; harvest has the day only). */
  startDate: string;
  startTime: string;
  endDate: string;
  endTime: string;
  /** ISO-8601 date-times with an offset (timetrack). */
  startIso: string;
  endIso: string;
  /** Harvest's hours (decimal or h:mm): its rows have no times of day. */
  hours: string;
  rate: string;
  /** What the row earned (Toggl's Amount, Clockify's and Harvest's Billable Amount, Kimai's Rate): read where a billable row has no rate. */
  amount: string;
  /** Harvest's per-row currency (`EUR` or `Euro - EUR`). */
  currency: string;
  /** The timetrack format's own columns (a whole-workspace export): what the row is, the source's id, the entry's zone, a catalog row's settings. */
  record: string;
  sourceId: string;
  timeZone: string;
  archived: string;
  color: string;
  estimateSec: string;
  budgetAmount: string;
  /** The timetrack format's record of a table (JSON, versioned): a client's invoicing details, the issuer profile, the invoicing settings, a rate, an invoice. */
  data: string;
  /** The timetrack format's entry's invoice: the exported invoice's id. */
  invoice: string;
}

/** A header as matched: trimmed, lower-cased, and a currency in parentheses (`Amount (USD)`) set apart. */
export interface Header {
  keys: string[];
  currency: string | null;
  /** The header's cells as the file writes them (trimmed): what a refusal names. */
  cells: string[];
}

export function readHeader(cells: string[]): Header {
  let currency: string | null = null;
  const keys = cells.map((cell) => {
    const text = cell.trim().toLowerCase();
    const m = /^(.*?)\s*\(([a-z]{3})\)$/.exec(text);
    if (m) {
      currency = (m[2] as string).toUpperCase();
      return m[1] as string;
    }
    return text;
  });
  return { keys, currency, cells: cells.map((cell) => cell.trim()) };
}

/**
 * A money column of the format (its amount or rate) that the header writes in a way the importer
 * cannot read: with something in parentheses that is no currency code (`Amount ()`, `Amount (€)`).
 * Read as another column, the rows would lose their money in silence; the import refuses instead.
 */
export function unreadableMoneyColumn(format: Format, header: Header): { column: string; cell: string; field: 'amount' | 'rate' } | null {
  for (const field of ['amount', 'rate'] as const) {
    const key = SPECS[format].columns[field];
    if (key === undefined || header.keys.includes(key)) continue;
    const cell = header.cells.find((c) => /^(.*?)\s*\(.*\)$/.exec(c)?.[1]?.toLowerCase() === key);
    if (cell !== undefined) return { column: columnName(format, field), cell, field };
  }
  return null;
}

interface FormatSpec {
  /** The columns its export always has (as the tool names them): what detection and --format look for. */
  needs: string[];
  /** SourceRow field → the column it comes from (lower case). */
  columns: Partial<Record<keyof SourceRow, string>>;
  /** Rows hold local times (a --time-zone is needed). */
  local: boolean;
}

export const SPECS: Record<Format, FormatSpec> = {
  toggl: {
    needs: ['User', 'Email', 'Start date', 'Start time', 'End date', 'End time'],
    columns: {
      name: 'user',
      email: 'email',
      client: 'client',
      project: 'project',
      task: 'task',
      description: 'description',
      billable: 'billable',
      startDate: 'start date',
      startTime: 'start time',
      endDate: 'end date',
      endTime: 'end time',
      tags: 'tags',
      amount: 'amount',
    },
    local: true,
  },
  clockify: {
    needs: ['User', 'Email', 'Start Date', 'Start Time', 'End Date', 'End Time', 'Duration (decimal)'],
    columns: {
      project: 'project',
      client: 'client',
      description: 'description',
      task: 'task',
      name: 'user',
      email: 'email',
      tags: 'tags',
      billable: 'billable',
      startDate: 'start date',
      startTime: 'start time',
      endDate: 'end date',
      endTime: 'end time',
      rate: 'billable rate',
      amount: 'billable amount',
    },
    local: true,
  },
  harvest: {
    needs: ['Date', 'Hours', 'First Name', 'Last Name', 'Project'],
    columns: {
      startDate: 'date',
      client: 'client',
      project: 'project',
      task: 'task',
      description: 'notes',
      hours: 'hours',
      billable: 'billable?',
      rate: 'billable rate',
      amount: 'billable amount',
      currency: 'currency',
    },
    local: true,
  },
  kimai: {
    needs: ['Date', 'From', 'To', 'User'],
    columns: {
      startDate: 'date',
      startTime: 'from',
      endTime: 'to',
      name: 'user',
      client: 'customer',
      project: 'project',
      task: 'activity',
      description: 'description',
      tags: 'tags',
      billable: 'billable',
      rate: 'hourly rate',
      // Kimai's Rate is the record's price (hourly rate × duration, or its fixed rate).
      amount: 'rate',
    },
    local: true,
  },
  timetrack: {
    needs: ['email', 'start', 'end'],
    columns: {
      email: 'email',
      startIso: 'start',
      endIso: 'end',
      description: 'description',
      client: 'client',
      project: 'project',
      task: 'task',
      tags: 'tags',
      billable: 'billable',
      rate: 'hourlyrate',
      name: 'member',
      record: 'record',
      sourceId: 'id',
      timeZone: 'timezone',
      archived: 'archived',
      color: 'color',
      estimateSec: 'estimatesec',
      budgetAmount: 'budgetamount',
      data: 'data',
      invoice: 'invoice',
    },
    local: false,
  },
};

/** Every field of a row: each is a column of some format (a row of a format without that column reads ''). */
const SOURCE_FIELDS = [...new Set(Object.values(SPECS).flatMap((spec) => Object.keys(spec.columns)))] as Array<keyof SourceRow>;

/** The order in which `auto` tries the formats: the most specific headers first. */
const DETECTION: Format[] = ['timetrack', 'clockify', 'toggl', 'harvest', 'kimai'];

const missingOf = (format: Format, keys: Set<string>) => SPECS[format].needs.filter((column) => !keys.has(column.toLowerCase()));

/** The format of a header: the one asked for (refused naming what it lacks), or the first whose columns are all there. */
export function detectFormat(header: Header, asked: Format | 'auto'): Format {
  const keys = new Set(header.keys.filter((k) => k !== ''));
  if (asked !== 'auto') {
    const missing = missingOf(asked, keys);
    if (missing.length > 0) throw importErrors.formatMismatch(asked, missing, [...keys]);
    return asked;
  }
  const found = DETECTION.find((format) => missingOf(format, keys).length === 0);
  if (!found)
    throw importErrors.noFormat(
      [...keys],
      FORMATS.map((f) => `${f}: ${SPECS[f].needs.join(', ')}`),
    );
  return found;
}

/** A row reader for a format and a header: cells → SourceRow (absent columns read as ''). */
export function rowReader(format: Format, header: Header): { read(cells: string[]): SourceRow; width: number } {
  const spec = SPECS[format];
  const index = new Map<string, number>();
  header.keys.forEach((key, i) => {
    if (!index.has(key)) index.set(key, i);
  });
  const at = (field: keyof SourceRow): number => index.get(spec.columns[field] ?? '\u0000') ?? -1;
  const fields = SOURCE_FIELDS;
  const positions = fields.map(at);
  const first = index.get('first name') ?? -1;
  const last = index.get('last name') ?? -1;
  // The cells a row needs at least: up to the last column the format reads.
  const width = Math.max(...positions, first, last) + 1;
  return {
    width,
    read(cells) {
      const row = {} as SourceRow;
      const own = format === 'timetrack';
      for (let i = 0; i < fields.length; i++) {
        const p = positions[i] as number;
        const field = fields[i] as keyof SourceRow;
        // The timetrack format is written by our export: its cells are taken exactly (a
        // description keeps its spaces), less the one `'` it put before a formula's first character.
        const cell = p < 0 ? '' : own ? unformula(cells[p] ?? '') : (cells[p] ?? '');
        row[field] = own && field === 'description' ? cell : cell.trim();
      }
      if (format === 'harvest') row.name = `${(cells[first] ?? '').trim()} ${(cells[last] ?? '').trim()}`.trim();
      // Kimai's User column holds a user name, or an email.
      if (format === 'kimai' && row.name.includes('@')) row.email = row.name;
      return row;
    },
  };
}

/** A cell of the timetrack format without the `'` our export puts before a formula's start (src/kernel/spreadsheet.ts; and before `'`s that precede one). */
export const unformula = (cell: string): string => (PREFIXED_FORMULA_START.test(cell) ? cell.slice(1) : cell);

/** The timetrack format's columns as they are written (the header is matched in lower case). */
const TIMETRACK_NAMES: Record<string, string> = {
  hourlyrate: 'hourlyRate',
  timezone: 'timeZone',
  estimatesec: 'estimateSec',
  budgetamount: 'budgetAmount',
};

/** The column a field comes from in this format, as the tool names it (for messages). */
export function columnName(format: Format, field: keyof SourceRow): string {
  if (format === 'harvest' && field === 'name') return 'First Name/Last Name';
  const key = SPECS[format].columns[field];
  if (format === 'timetrack') return key === undefined ? field : (TIMETRACK_NAMES[key] ?? key);
  const named = SPECS[format].needs.find((n) => n.toLowerCase() === key);
  if (named) return named;
  if (!key) return field;
  return key.replace(/(^|\s)\S/g, (s) => s.toUpperCase());
}
