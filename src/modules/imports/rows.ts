import { createHash } from 'node:crypto';
import { DomainError } from '../../errors.js';
import { type Vars, type Words, words } from '../../i18n/index.js';
import { unsafeCharacter } from '../../kernel/input.js';
import { canonicalTimeZone, secondsBetween } from '../../kernel/time.js';
import { type OwnTax, parseOwnTax } from '../../kernel/tax.js';
import { type CatalogAttributes, checkClientRecord, nameKey } from '../catalog/service.js';
import { checkWorkspaceSettings } from '../accounts/service.js';
import type { ExportedRunaway } from '../entries/service.js';
import { checkInvoiceRecord, checkProfileRecord, checkSettingsRecord } from '../invoices/service.js';
import { checkApprovalRecord, checkPeriodRecord } from '../approvals/service.js';
import { checkExpenseRecord, checkReceiptPart } from '../expenses/service.js';
import { CellError, type DateOrder, parseDay, parseDuration, parseTimeOfDay, type ZoneClock } from './dates.js';
import { columnName, type Format, type SourceRow } from './formats.js';
import { amountCents } from '../../kernel/money.js';
import { centsOf, type FileDecimal, numberOf, parseMoneyCell, rateFromAmount } from './money.js';

export const MAX_DESCRIPTION = 500;
export const MAX_NAME = 200;
export const MAX_TAGS = 20;
const MAX_RATE = 1_000_000_000;
/** The contract's bounds of a project's budget and an estimate. */
const MAX_BUDGET = 1_000_000_000_000;
const MAX_ESTIMATE_SEC = 31_536_000_000;
const MAX_ENTRY_MS = 366 * 86_400_000;

/**
 * A row refused, with what to do about it: its message (the report's English, for the command
 * line, the API and the export) and, where it has them, the same reason's words for people by key
 * (the Import page says them in the reader's language).
 */
export class RowRefusal extends Error {
  constructor(
    message: string,
    readonly words?: Words,
  ) {
    super(message);
  }
}

/** The reasons of a row's refusal that have words for people, by key (each says the column as the file names it). */
const REASONS = {
  emptyDay: 'integrations.imports.reasons.emptyDay',
  emptyTime: 'integrations.imports.reasons.emptyTime',
  emptyHours: 'integrations.imports.reasons.emptyHours',
  emptyUser: 'integrations.imports.reasons.emptyUser',
  notIso: 'integrations.imports.reasons.notIso',
  notCalendar: 'integrations.imports.reasons.notCalendar',
  noTime: 'integrations.imports.reasons.noTime',
  endBeforeStart: 'integrations.imports.reasons.endBeforeStart',
  tooLong: 'integrations.imports.reasons.tooLong',
  description: 'integrations.imports.reasons.description',
  tags: 'integrations.imports.reasons.tags',
  taskWithoutProject: 'integrations.imports.reasons.taskWithoutProject',
  currency: 'integrations.imports.reasons.currency',
  longName: 'integrations.imports.reasons.longName',
  unsafeName: 'integrations.imports.reasons.unsafeName',
  zone: 'integrations.imports.reasons.zone',
  notRate: 'integrations.imports.reasons.notRate',
  notAmount: 'integrations.imports.reasons.notAmount',
  // a cell src/modules/imports/dates.ts cannot read (CellError)
  dayOrder: 'integrations.imports.reasons.dayOrder',
  notDate: 'integrations.imports.reasons.notDate',
  notDay: 'integrations.imports.reasons.notDay',
  notTimeOfDay: 'integrations.imports.reasons.notTimeOfDay',
  twelveHour: 'integrations.imports.reasons.twelveHour',
  noTimeOfDay: 'integrations.imports.reasons.noTimeOfDay',
  notDuration: 'integrations.imports.reasons.notDuration',
  durationForm: 'integrations.imports.reasons.durationForm',
  skipped: 'integrations.imports.reasons.skipped',
  // the timetrack format's workspace records and catalog rows
  dataEmpty: 'integrations.imports.reasons.dataEmpty',
  dataNotObject: 'integrations.imports.reasons.dataNotObject',
  version: 'integrations.imports.reasons.version',
  versionEntry: 'integrations.imports.reasons.versionEntry',
  notRateValue: 'integrations.imports.reasons.notRateValue',
  notTrueFalse: 'integrations.imports.reasons.notTrueFalse',
  notNameValue: 'integrations.imports.reasons.notNameValue',
  notNumberValue: 'integrations.imports.reasons.notNumberValue',
  notAction: 'integrations.imports.reasons.notAction',
  joinDomains: 'integrations.imports.reasons.joinDomains',
  runawayLimit: 'integrations.imports.reasons.runawayLimit',
  runawayObject: 'integrations.imports.reasons.runawayObject',
  notWhole: 'integrations.imports.reasons.notWhole',
  withheld: 'integrations.imports.reasons.withheld',
  noMember: 'integrations.imports.reasons.noMember',
  noExpenseId: 'integrations.imports.reasons.noExpenseId',
  noExpenseProject: 'integrations.imports.reasons.noExpenseProject',
  noInvoiceId: 'integrations.imports.reasons.noInvoiceId',
  noInvoiceClient: 'integrations.imports.reasons.noInvoiceClient',
  recordKind: 'integrations.imports.reasons.recordKind',
  emptyName: 'integrations.imports.reasons.emptyName',
  oneTag: 'integrations.imports.reasons.oneTag',
  notFlag: 'integrations.imports.reasons.notFlag',
  notBillable: 'integrations.imports.reasons.notBillable',
  notNumber: 'integrations.imports.reasons.notNumber',
  rateAbove: 'integrations.imports.reasons.rateAbove',
  budgetAbove: 'integrations.imports.reasons.budgetAbove',
  notColor: 'integrations.imports.reasons.notColor',
  notEstimate: 'integrations.imports.reasons.notEstimate',
  rateTooHigh: 'integrations.imports.reasons.rateTooHigh',
  // another module's check of the record in the data cell, in that module's words
  inData: 'integrations.imports.reasons.inData',
} as const;
type Reason = keyof typeof REASONS;
/** A reason's words for people: its key, and its values beside the column. */
const said = (reason: Reason, vars: Vars = {}) => ({ reason, vars });
/** A cell's reason (src/modules/imports/dates.ts) as words for people, where it has one; the message stays the error's. */
const cellSaid = (error: unknown) => (error instanceof CellError ? said(error.reason, error.vars) : undefined);
/**
 * Another module's refusal of a record (its check of a client, an invoice, the profile, the
 * settings, an expense, an approval, a project's VAT, the workspace's settings) as words for
 * people, where it has them (on the error, or on the DomainError it was made from): said after
 * the column. The message stays the error's.
 */
const foreignSaid = (error: unknown) => {
  const cause = error instanceof Error ? error.cause : undefined;
  const found = error instanceof DomainError ? error : cause instanceof DomainError ? cause : undefined;
  return found?.words === undefined ? undefined : said('inData', { ...found.words.vars, reason: found.words.key });
};
/** A value of the file as the message writes it (JSON). */
const shown = (value: unknown): string => String(JSON.stringify(value));

/** What a row's entry is about, names still names: its words, its work, its tags and what it bills. */
export interface RowWork {
  line: number;
  description: string;
  client: string;
  project: string;
  task: string;
  tags: string[];
  billable: boolean | null;
  hourlyRate: number | null;
}

/** A row read and checked: what its entry will be, names still names. */
export interface CheckedRow extends RowWork {
  /** The file's user (email, lower case, or `name:` + name); '' when --user writes every row. */
  userKey: string;
  start: number;
  end: number;
  /** The file gave the row a rate (or an amount it came from) that the import does not take: a member's own history. */
  rateIgnored: boolean;
  /** The file says the entry has no rate (the timetrack format's `none`): none is resolved either. */
  noRate: boolean;
  /** Where `hourlyRate` comes from: the file's rate, or the rate that gives back the file's amount (null: none from the file). */
  rateFrom: 'rate' | 'amount' | null;
  timeZone: string | null;
  /** The source's own id of the row (the timetrack format's `id`): its fingerprint. */
  sourceId: string | null;
  /** Set on a catalog row of the timetrack format (`record` client, project, task or tag): no entry, a row of the catalog. */
  catalog: CatalogRecord | null;
  /** Set on a workspace record of the timetrack format (`record` profile, invoicing, workspace, member, invoice): what it restores. */
  restore: RestoreRecord | null;
  /** The entry's invoice in the file (the timetrack format's `invoice`: the exported invoice's id), or null. */
  invoiceRef: string | null;
  /** What the runaway check recorded on the entry where it was exported (the timetrack format's entry `data`), or null. */
  runaway: ExportedRunaway | null;
}

/** The workspace records of the timetrack format (decisions 11a): what a workspace owns beyond its catalog and entries. */
export const RESTORE_KINDS = [
  'profile',
  'invoicing',
  'workspace',
  'member',
  'invoice',
  'withheld',
  'approval',
  'period',
  'expense',
  'receipt',
] as const;
export type RestoreKind = (typeof RESTORE_KINDS)[number];

/** A workspace record as read and checked: its kind, its data, the names of fields this version does not know. */
export interface RestoreRecord {
  kind: RestoreKind;
  /**
   * profile: the issuer profile; invoicing: the settings; workspace and member: `{ hourlyRate }`;
   * invoice: its record; withheld: `{ withheld: [...] }`, what an export left out for its exporter (issue 54 N7).
   */
  data: Record<string, unknown>;
  /** Fields of a newer version this one does not know (left out; the result says so). */
  unknown: string[];
}

/** A catalog row of the timetrack format: what it is (its names are the row's client, project, task, tags) and its settings. */
export interface CatalogRecord {
  kind: 'client' | 'project' | 'task' | 'tag';
  attrs: CatalogAttributes;
  /** A client's invoicing details (its record's values), or null. */
  details: Record<string, unknown> | null;
  /** Fields of a newer version this one does not know (left out). */
  unknown: string[];
}

const CATALOG_KINDS = ['client', 'project', 'task', 'tag'] as const;

/** The file's user of a row: by email (case-insensitive), else by full name. */
export function userKeyOf(row: Pick<SourceRow, 'email' | 'name'>): string {
  if (row.email !== '') return row.email.toLowerCase();
  return row.name === '' ? '' : `name:${row.name}`;
}

const BOOLEANS: Record<string, boolean> = { yes: true, no: false, true: true, false: false, '1': true, '0': false };

/** Refuses a row at a column: the English message after the column's name, and the reason's words for people where given. */
const refuser =
  (column: (field: keyof SourceRow) => string): Refuse =>
  (field, message, reason) => {
    throw new RowRefusal(
      `${column(field)}: ${message}`,
      reason === undefined ? undefined : words(REASONS[reason.reason], { column: column(field), ...reason.vars }),
    );
  };

/** A date-time of the timetrack format: ISO 8601 with an offset. */
function iso(refuse: Refuse, field: keyof SourceRow, text: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    refuse(field, `"${text}" is not an ISO-8601 date-time with an offset, such as 2026-03-04T09:00:00+01:00`, said('notIso', { text }));
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) refuse(field, `"${text}" is not a date-time of the calendar`, said('notCalendar', { text }));
  return ms;
}

/**
 * Reads one row of a format into an entry, or refuses it naming the column: the rules of
 * decisions §10 (dates in the file's order, 12- or 24-hour times, local times in the zone, an end
 * after the start, exact rates, at most 20 tags, descriptions up to 500 characters).
 */
export function createRowChecker(
  format: Format,
  options: {
    order: DateOrder | null;
    zone: ZoneClock | null;
    fixedUser: boolean;
    /** Whether the file's rates are taken (an owner's or the operator's import); else the usual resolution. */
    rates: boolean;
    /** The workspace's currency: a row that names another (Harvest's Currency) is refused. */
    currency: string;
  },
) {
  const column = (field: keyof SourceRow) => columnName(format, field);
  const refuse = refuser(column);
  /** Harvest: where the next row of a member's day starts. */
  const harvestNext = new Map<string, number>();

  function local(dayField: keyof SourceRow, day: string, timeField: keyof SourceRow, time: string): number {
    if (day === '') refuse(dayField, 'empty; every row needs its day', said('emptyDay'));
    if (time === '') refuse(timeField, 'empty; every row needs its time of day', said('emptyTime'));
    let d: { year: number; month: number; day: number };
    let t: { hour: number; minute: number; second: number };
    try {
      d = parseDay(day, options.order);
    } catch (error) {
      return refuse(dayField, (error as Error).message, cellSaid(error));
    }
    try {
      t = parseTimeOfDay(time);
    } catch (error) {
      return refuse(timeField, (error as Error).message, cellSaid(error));
    }
    try {
      return (options.zone as ZoneClock).instant({ ...d, ...t });
    } catch (error) {
      return refuse(timeField, (error as Error).message, cellSaid(error));
    }
  }

  function times(row: SourceRow, userKey: string): { start: number; end: number } {
    if (format === 'timetrack') return { start: iso(refuse, 'startIso', row.startIso), end: iso(refuse, 'endIso', row.endIso) };
    if (format === 'harvest') {
      if (row.hours === '') refuse('hours', 'empty; every row needs its hours', said('emptyHours'));
      let seconds: number;
      try {
        seconds = parseDuration(row.hours);
      } catch (error) {
        return refuse('hours', (error as Error).message, cellSaid(error));
      }
      if (seconds <= 0) refuse('hours', `"${row.hours}" is no time; a row needs more than 0 hours`, said('noTime', { text: row.hours }));
      // No times of day: a member's rows of one day follow each other from 09:00 local, in file order.
      const dayStart = local('startDate', row.startDate, 'hours', '09:00');
      const key = `${userKey}|${row.startDate}`;
      const start = harvestNext.get(key) ?? dayStart;
      harvestNext.set(key, start + seconds * 1000);
      return { start, end: start + seconds * 1000 };
    }
    const start = local('startDate', row.startDate, 'startTime', row.startTime);
    if (format === 'kimai') {
      let end = local('startDate', row.startDate, 'endTime', row.endTime);
      // Kimai writes one day: an end earlier than the start is on the next day.
      if (end < start) end = local('startDate', nextDay(row.startDate, options.order), 'endTime', row.endTime);
      return { start, end };
    }
    return { start, end: local('endDate', row.endDate, 'endTime', row.endTime) };
  }

  const name = (field: keyof SourceRow, text: string): string => nameOf(refuse, field, text);

  return (line: number, row: SourceRow): CheckedRow => {
    if (format === 'timetrack' && row.record !== '' && row.record.toLowerCase() !== 'entry') return recordRow(refuse, line, row, options);
    const userKey = options.fixedUser ? '' : userKeyOf(row);
    if (!options.fixedUser && userKey === '')
      refuse(format === 'harvest' ? 'name' : 'email', 'empty; every row needs its user', said('emptyUser'));
    // A user of the file may become a member (--create-members): their name follows the rules of names.
    if (!options.fixedUser && row.name !== '') name('name', row.name);
    const { start, end } = times(row, userKey);
    if (end <= start) refuse(format === 'timetrack' ? 'endIso' : 'endTime', 'the end is at or before the start', said('endBeforeStart'));
    if (end - start > MAX_ENTRY_MS)
      refuse(format === 'timetrack' ? 'endIso' : 'endTime', 'an entry spans at most 366 days', said('tooLong'));
    if (row.description.length > MAX_DESCRIPTION) {
      refuse(
        'description',
        `${row.description.length} characters; an entry's description holds at most ${MAX_DESCRIPTION}: shorten it`,
        said('description', { length: row.description.length, max: MAX_DESCRIPTION }),
      );
    }
    const tags = tagsOf(row.tags, format === 'timetrack');
    if (tags.length > MAX_TAGS)
      refuse('tags', `${tags.length} tags; an entry holds at most ${MAX_TAGS}`, said('tags', { tags: tags.length, max: MAX_TAGS }));
    for (const tag of tags) name('tags', tag);
    const project = name('project', row.project);
    const task = name('task', row.task);
    if (task !== '' && project === '')
      refuse('task', `task "${task}" has no project; a task belongs to a project`, said('taskWithoutProject', { task }));
    const currency = /([A-Za-z]{3})\s*$/.exec(row.currency)?.[1]?.toUpperCase();
    if (currency !== undefined && currency !== options.currency) {
      refuse(
        'currency',
        `${currency}, and the workspace's money is in ${options.currency}: export this row in ${options.currency}, or import it into a workspace in ${currency}`,
        said('currency', { currency, workspace: options.currency }),
      );
    }
    const { billable, hourlyRate, noRate, rateFrom } = moneyOf(format, refuse, row, start, end);
    return {
      line,
      userKey,
      start,
      end,
      description: row.description,
      client: project === '' ? '' : name('client', row.client),
      project,
      task,
      tags,
      billable,
      hourlyRate: options.rates ? hourlyRate : null,
      rateIgnored: !options.rates && (hourlyRate !== null || noRate),
      noRate: options.rates && noRate,
      rateFrom: options.rates ? rateFrom : null,
      // The timetrack format writes each entry's own zone, empty when it has none: kept so, not the import's zone.
      timeZone: row.timeZone === '' ? (format === 'timetrack' ? null : (options.zone?.name ?? null)) : zoneOf(refuse, row.timeZone),
      sourceId: row.sourceId === '' ? null : row.sourceId,
      catalog: null,
      restore: null,
      invoiceRef: row.invoice === '' ? null : row.invoice,
      runaway: format === 'timetrack' && row.data !== '' ? runawayOf(refuse, row) : null,
    };
  };
}

/** A row of the timetrack format that is no entry: a workspace record, or a catalog row. */
function recordRow(refuse: Refuse, line: number, row: SourceRow, options: { fixedUser: boolean; rates: boolean }): CheckedRow {
  if ((RESTORE_KINDS as readonly string[]).includes(row.record.toLowerCase()))
    return restoreRecord(refuse, line, row, options.fixedUser ? '' : userKeyOf(row));
  return catalogRecord(refuse, line, row, options.rates);
}

/** A row's `data` cell as JSON, or a refusal naming it. */
function dataOf(refuse: Refuse, row: SourceRow): Record<string, unknown> {
  if (row.data === '')
    return refuse('data', `empty; a ${row.record} row carries its record there`, said('dataEmpty', { record: row.record }));
  try {
    const data = JSON.parse(row.data) as unknown;
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as Record<string, unknown>;
  } catch {
    // refused below
  }
  return refuse(
    'data',
    `not a JSON object, as the export writes a ${row.record} row's record`,
    said('dataNotObject', { record: row.record }),
  );
}

/** The fields of a `workspace` record beside its rate: the columns of the workspace's row an import may set (issue 56 item 6). */
const WORKSPACE_FIELDS = ['name', 'runawayLimitSec', 'runawayAction', 'rateLimitPerMin', 'joinDomains'] as const;
/** The flags of a `member` record beside its rate. */
export const MEMBER_FLAGS = ['isOwner', 'canViewOthersTime', 'canViewOthersMoney'] as const;

/**
 * A rate record (`workspace`, `member`): version 1 and a rate or null; a workspace's also its name
 * and settings, a member's their owner role and what they see (each optional: an older export has
 * none). Values are checked by the rules of the Workspace and Members pages; fields this version
 * does not know are named.
 */
function rateRecord(
  refuse: Refuse,
  kind: 'workspace' | 'member',
  data: Record<string, unknown>,
): { checked: Record<string, unknown>; unknown: string[] } {
  if (data.v !== 1)
    refuse(
      'data',
      `a rate record of version ${JSON.stringify(data.v)}; this version of timetrack reads version 1`,
      said('version', { record: 'rate', version: shown(data.v) }),
    );
  const rate = data.hourlyRate;
  if (rate !== null && (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > MAX_RATE))
    refuse(
      'data',
      `hourlyRate ${JSON.stringify(rate)} is not a rate (a number from 0 to 1,000,000,000, or null)`,
      said('notRateValue', { value: shown(rate) }),
    );
  const known: readonly string[] = ['v', 'hourlyRate', ...(kind === 'workspace' ? WORKSPACE_FIELDS : MEMBER_FLAGS)];
  const unknown = Object.keys(data)
    .filter((key) => !known.includes(key))
    .map((key) => `${kind}.${key}`);
  if (kind === 'member') {
    const flags: Record<string, boolean> = {};
    for (const flag of MEMBER_FLAGS) {
      if (data[flag] === undefined) continue;
      if (typeof data[flag] !== 'boolean')
        refuse(
          'data',
          `${flag} ${JSON.stringify(data[flag])} is not true or false`,
          said('notTrueFalse', { field: flag, value: shown(data[flag]) }),
        );
      flags[flag] = data[flag] as boolean;
    }
    return { checked: { hourlyRate: rate, ...flags }, unknown };
  }
  const given = Object.fromEntries(WORKSPACE_FIELDS.filter((f) => data[f] !== undefined).map((f) => [f, data[f]]));
  if (given.name !== undefined && typeof given.name !== 'string')
    refuse('data', `name ${JSON.stringify(given.name)} is not a name`, said('notNameValue', { value: shown(given.name) }));
  for (const field of ['runawayLimitSec', 'rateLimitPerMin'] as const)
    if (given[field] !== undefined && given[field] !== null && typeof given[field] !== 'number')
      refuse(
        'data',
        `${field} ${JSON.stringify(given[field])} is not a number`,
        said('notNumberValue', { field, value: shown(given[field]) }),
      );
  if (given.runawayAction !== undefined && typeof given.runawayAction !== 'string')
    refuse(
      'data',
      `runawayAction ${JSON.stringify(given.runawayAction)} is not flagged, capped or stopped`,
      said('notAction', { field: 'runawayAction', value: shown(given.runawayAction) }),
    );
  if (given.joinDomains !== undefined && (!Array.isArray(given.joinDomains) || !given.joinDomains.every((d) => typeof d === 'string')))
    refuse('data', 'joinDomains must be a list of domain names', said('joinDomains'));
  if (given.runawayLimitSec === null) refuse('data', 'runawayLimitSec must be a number of seconds', said('runawayLimit'));
  let settings: Record<string, unknown>;
  try {
    settings = checkWorkspaceSettings(given as Parameters<typeof checkWorkspaceSettings>[0]);
  } catch (error) {
    return refuse('data', (error as Error).message, foreignSaid(error));
  }
  return { checked: { hourlyRate: rate, settings }, unknown };
}

/** An entry's `data` cell of the timetrack format: `{"v":1,"runaway":{…}}`, what the runaway check recorded on it. */
function runawayOf(refuse: Refuse, row: SourceRow): ExportedRunaway | null {
  const data = dataOf(refuse, row);
  if (data.v !== 1)
    refuse(
      'data',
      `an entry record of version ${JSON.stringify(data.v)}; this version of timetrack reads version 1`,
      said('versionEntry', { version: shown(data.v) }),
    );
  const r = data.runaway;
  if (r === undefined || r === null) return null;
  if (typeof r !== 'object' || Array.isArray(r))
    return refuse('data', 'runaway must be an object, as the export writes it', said('runawayObject'));
  const o = r as Record<string, unknown>;
  const whole = (key: string): number | null => {
    const value = o[key] ?? null;
    if (value !== null && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0))
      refuse(
        'data',
        `runaway.${key} ${JSON.stringify(value)} is not a whole number`,
        said('notWhole', { field: `runaway.${key}`, value: shown(value) }),
      );
    return value as number | null;
  };
  const action = o.action ?? null;
  if (action !== null && !['flagged', 'capped', 'stopped'].includes(action as string))
    refuse(
      'data',
      `runaway.action ${JSON.stringify(action)} is not flagged, capped or stopped`,
      said('notAction', { field: 'runaway.action', value: shown(action) }),
    );
  return {
    detectedAt: whole('detectedAt'),
    elapsedSec: whole('elapsedSec'),
    limitSec: whole('limitSec'),
    action: action as ExportedRunaway['action'],
    resolvedAt: whole('resolvedAt'),
  };
}

/** The head of an export that left out what its exporter may not read: version 1 and the names of what it left out. */
function withheldRecord(refuse: Refuse, data: Record<string, unknown>): Record<string, unknown> {
  if (data.v !== 1)
    refuse(
      'data',
      `a withheld record of version ${JSON.stringify(data.v)}; this version of timetrack reads version 1`,
      said('version', { record: 'withheld', version: shown(data.v) }),
    );
  const parts = data.withheld;
  if (!Array.isArray(parts) || !parts.every((part) => typeof part === 'string' && /^[A-Za-z]{1,40}$/.test(part)))
    refuse('data', 'withheld must be a list of the names of what the export left out', said('withheld'));
  return { withheld: parts };
}

/**
 * A workspace record of the timetrack format (its export writes them before the catalog): the
 * issuer profile, the invoicing settings, the workspace's and each member's rate, each invoice
 * (by its exported id, its client's name and its author's email). Checked here, before any write.
 */
function restoreRecord(refuse: Refuse, line: number, row: SourceRow, userKey: string): CheckedRow {
  const kind = row.record.toLowerCase() as RestoreKind;
  const data = dataOf(refuse, row);
  let checked: Record<string, unknown> = data;
  let unknown: string[] = [];
  try {
    if (kind === 'profile') checked = checkProfileRecord(data);
    else if (kind === 'invoicing') checked = checkSettingsRecord(data);
    else if (kind === 'workspace' || kind === 'member') ({ checked, unknown } = rateRecord(refuse, kind, data));
    else if (kind === 'withheld') checked = withheldRecord(refuse, data);
    else if (kind === 'approval') checked = checkApprovalRecord(data) as unknown as Record<string, unknown>;
    else if (kind === 'period') checked = checkPeriodRecord(data) as unknown as Record<string, unknown>;
    else if (kind === 'expense') checked = checkExpenseRecord(data) as unknown as Record<string, unknown>;
    else if (kind === 'receipt') checked = checkReceiptPart(data) as unknown as Record<string, unknown>;
    else unknown = checkInvoiceRecord(data).map((key) => `invoices.${key}`);
  } catch (error) {
    if (error instanceof RowRefusal) throw error;
    return refuse('data', (error as Error).message, foreignSaid(error));
  }
  const names = kind === 'member' || kind === 'invoice' || kind === 'period' || kind === 'expense';
  if (names && row.email === '' && userKey !== '')
    refuse('email', `empty; a ${kind} row names its member`, said('noMember', { record: kind }));
  if ((kind === 'expense' || kind === 'receipt') && row.sourceId === '')
    refuse('sourceId', `empty; an ${kind} row carries its expense's id`, said('noExpenseId', { record: kind }));
  if (kind === 'expense') {
    if (row.project.trim() === '') refuse('project', 'empty; an expense row names its project', said('noExpenseProject'));
    nameOf(refuse, 'client', row.client);
    nameOf(refuse, 'project', row.project);
  }
  if (kind === 'invoice') {
    if (row.sourceId === '') refuse('sourceId', 'empty; an invoice row carries its id (its entries name it)', said('noInvoiceId'));
    if (row.client.trim() === '') refuse('client', 'empty; an invoice row names its client', said('noInvoiceClient'));
    nameOf(refuse, 'client', row.client);
  }
  return {
    line,
    userKey: names ? userKey : '',
    start: 0,
    end: 0,
    description: '',
    client: kind === 'invoice' || kind === 'expense' ? row.client : '',
    project: kind === 'expense' ? row.project : '',
    task: '',
    tags: [],
    billable: null,
    hourlyRate: null,
    rateIgnored: false,
    noRate: false,
    rateFrom: null,
    timeZone: null,
    sourceId: row.sourceId === '' ? null : row.sourceId,
    catalog: null,
    restore: { kind, data: checked, unknown },
    invoiceRef: kind === 'expense' && row.invoice !== '' ? row.invoice : null,
    runaway: null,
  };
}

/** A name of the file: at most 200 characters, no control or bidirectional characters. */
function nameOf(refuse: Refuse, field: keyof SourceRow, text: string): string {
  if (text.length > MAX_NAME)
    refuse(field, `${text.length} characters; a name holds at most ${MAX_NAME}`, said('longName', { length: text.length, max: MAX_NAME }));
  const bad = unsafeCharacter(text);
  if (bad !== null)
    refuse(
      field,
      `holds a control character or a bidirectional control (${bad}); remove it from the file`,
      said('unsafeName', { found: bad }),
    );
  return text;
}

/** An entry's own zone (the timetrack format's `timeZone`), checked and written as IANA names it. */
function zoneOf(refuse: Refuse, text: string): string {
  try {
    return canonicalTimeZone(text);
  } catch {
    return refuse('timeZone', `"${text}" is not an IANA time zone such as Europe/Berlin`, said('zone', { text }));
  }
}

/** A catalog row's rate or budget: empty or `none` is none, else a number up to the largest the contract takes. */
function catalogAmount(refuse: Refuse, row: SourceRow, field: 'rate' | 'budgetAmount'): number | null {
  if (row[field] === '' || row[field].toLowerCase() === 'none') return null;
  const value = parseMoneyCell(row[field]);
  if (value === null) refuse(field, `"${row[field]}" is not a number`, said('notNumber', { text: row[field] }));
  const n = numberOf(value as FileDecimal);
  const max = field === 'budgetAmount' ? MAX_BUDGET : MAX_RATE;
  if (n > max)
    refuse(
      field,
      `${row[field]} is above the largest ${field === 'rate' ? 'rate' : 'budget'} (${max.toLocaleString('en')})`,
      said(field === 'rate' ? 'rateAbove' : 'budgetAbove', { text: row[field] }),
    );
  return n;
}

/**
 * A catalog row of the timetrack format (its export writes one for every client, project, task
 * and tag, so rows that no entry uses come back too): the names that place it, and what a new
 * row of it takes: archived, a project's color, billable default, rate, estimate and budget, a
 * task's rate and estimate. A member's import takes no rate or budget (rates are an owner's).
 */
function catalogRecord(refuse: Refuse, line: number, row: SourceRow, rates: boolean): CheckedRow {
  const kind = row.record.toLowerCase() as CatalogRecord['kind'];
  if (!(CATALOG_KINDS as readonly string[]).includes(kind)) {
    refuse('record', `"${row.record}" is none of entry, client, project, task, tag`, said('recordKind', { text: row.record }));
  }
  const named = (field: 'client' | 'project' | 'task', needed: boolean): string => {
    const text = nameOf(refuse, field, row[field]);
    if (needed && text.trim() === '') refuse(field, `empty; a ${kind} row names its ${field}`, said('emptyName', { record: kind, field }));
    return text;
  };
  const client = named('client', kind === 'client');
  const project = kind === 'project' || kind === 'task' ? named('project', true) : '';
  const task = kind === 'task' ? named('task', true) : '';
  const tags = kind === 'tag' ? tagsOf(row.tags, true) : [];
  if (kind === 'tag' && tags.length !== 1) refuse('tags', 'a tag row names one tag', said('oneTag'));
  for (const tag of tags) nameOf(refuse, 'tags', tag);
  const bool = (field: 'archived' | 'billable'): boolean | undefined => {
    if (row[field] === '') return undefined;
    const value = BOOLEANS[row[field].toLowerCase()];
    if (value === undefined) refuse(field, `"${row[field]}" is neither true/false, Yes/No nor 1/0`, said('notFlag', { text: row[field] }));
    return value;
  };
  const amount = (field: 'rate' | 'budgetAmount') => catalogAmount(refuse, row, field);
  let details: Record<string, unknown> | null = null;
  let unknown: string[] = [];
  if (kind === 'client' && row.data !== '') {
    try {
      const read = checkClientRecord(dataOf(refuse, row));
      details = read.values;
      unknown = read.unknown.map((key) => `clients.${key}`);
    } catch (error) {
      if (error instanceof RowRefusal) throw error;
      refuse('data', (error as Error).message, foreignSaid(error));
    }
  }
  const attrs: CatalogAttributes = {};
  if (kind !== 'tag') {
    const archived = bool('archived');
    if (archived !== undefined) attrs.archived = archived;
  }
  let rateIgnored = false;
  const money = (key: 'hourlyRate' | 'budgetAmount', value: number | null) => {
    if (rates) attrs[key] = value;
    else if (value !== null) rateIgnored = true;
  };
  if (kind === 'project') {
    const billable = bool('billable');
    if (billable !== undefined) attrs.billable = billable;
    if (row.color !== '') {
      if (!/^#[0-9a-fA-F]{6}$/.test(row.color))
        refuse('color', `"${row.color}" is not a color such as #1f77b4`, said('notColor', { text: row.color }));
      attrs.color = row.color.toLowerCase();
    }
    money('budgetAmount', amount('budgetAmount'));
  }
  if ((kind === 'project' || kind === 'task') && row.data !== '') {
    // Its own VAT (decisions §12), checked as the Catalog page and the command line check it; an owner's setting, as rates are.
    const data = dataOf(refuse, row);
    if (data.v !== 1)
      refuse(
        'data',
        `a ${kind} record of version ${JSON.stringify(data.v)}; this version of timetrack reads version 1`,
        said('version', { record: kind, version: shown(data.v) }),
      );
    let tax: OwnTax | null = null;
    try {
      tax = parseOwnTax(data.taxCategory, data.taxRate);
    } catch (error) {
      refuse('data', (error as Error).message, foreignSaid(error));
    }
    unknown = Object.keys(data)
      .filter((key) => !['v', 'taxCategory', 'taxRate'].includes(key))
      .map((key) => `${kind}s.${key}`);
    if (rates) Object.assign(attrs, { taxCategory: tax?.category ?? null, taxRate: tax?.rate ?? null });
    else if (tax !== null) rateIgnored = true;
  }
  if (kind === 'project' || kind === 'task') {
    money('hourlyRate', amount('rate'));
    if (row.estimateSec !== '') {
      if (!/^\d{1,11}$/.test(row.estimateSec) || Number(row.estimateSec) > MAX_ESTIMATE_SEC) {
        refuse(
          'estimateSec',
          `"${row.estimateSec}" is not a whole number of seconds up to ${MAX_ESTIMATE_SEC}`,
          said('notEstimate', { text: row.estimateSec }),
        );
      }
      attrs.estimateSec = Number(row.estimateSec);
    } else attrs.estimateSec = null;
  }
  return {
    line,
    userKey: '',
    start: 0,
    end: 0,
    description: '',
    client,
    project,
    task,
    tags,
    billable: null,
    hourlyRate: null,
    rateIgnored,
    noRate: false,
    rateFrom: null,
    timeZone: null,
    sourceId: null,
    catalog: { kind, attrs, details, unknown },
    restore: null,
    invoiceRef: null,
    runaway: null,
  };
}

/** Refuses a row naming the column a field comes from (never returns). */
type Refuse = (field: keyof SourceRow, message: string, reason?: ReturnType<typeof said>) => never;

function money(refuse: Refuse, field: 'rate' | 'amount', text: string): FileDecimal | null {
  if (text === '') return null;
  const value = parseMoneyCell(text);
  if (value === null)
    refuse(
      field,
      `"${text}" is not a number; write ${field === 'rate' ? 'a rate such as 80.05' : 'an amount such as 120.50'}`,
      said(field === 'rate' ? 'notRate' : 'notAmount', { text }),
    );
  return value;
}

/**
 * The row's billable flag and rate (decisions §10, and what each format does when it lacks a
 * column: docs/importing.md). The flag is the file's; without one, an amount says it (more
 * than 0: billable), Kimai's rows are billable (as in Kimai), and a row with a rate is billable;
 * else the project's default. A billable row's amount is what it earned, and wins (issue 45): it
 * takes the rate that gives the amount back, unless the file's rate gives it back already.
 */
function moneyOf(
  format: Format,
  refuse: Refuse,
  row: SourceRow,
  start: number,
  end: number,
): { billable: boolean | null; hourlyRate: number | null; noRate: boolean; rateFrom: 'rate' | 'amount' | null } {
  let billable: boolean | null = null;
  if (row.billable !== '') {
    const value = BOOLEANS[row.billable.toLowerCase()];
    if (value === undefined)
      refuse('billable', `"${row.billable}" is neither Yes/No, true/false nor 1/0`, said('notBillable', { text: row.billable }));
    billable = value as boolean;
  }
  // The timetrack format's `none`: the entry has no rate (its export writes it for such entries).
  const noRate = format === 'timetrack' && row.rate.toLowerCase() === 'none';
  const rateCell = noRate ? null : money(refuse, 'rate', row.rate);
  const amount = money(refuse, 'amount', row.amount);
  let hourlyRate = rateCell === null ? null : numberOf(rateCell);
  if (billable === null) {
    if (format === 'kimai') billable = true;
    else if (amount !== null) billable = amount.units > 0n;
    else if (hourlyRate !== null && hourlyRate > 0) billable = true;
  }
  const seconds = secondsBetween(start, end);
  let rateFrom: 'rate' | 'amount' | null = hourlyRate === null ? null : 'rate';
  if (
    billable === true &&
    amount !== null &&
    seconds > 0 &&
    (hourlyRate === null || amountCents(true, hourlyRate, seconds) !== centsOf(amount))
  ) {
    hourlyRate = rateFromAmount(amount, seconds);
    rateFrom = 'amount';
  }
  if (hourlyRate !== null && hourlyRate > MAX_RATE) {
    refuse(
      rateFrom === 'amount' ? 'amount' : 'rate',
      `the rate ${hourlyRate} is above the largest rate (1,000,000,000)`,
      said('rateTooHigh', { rate: String(hourlyRate) }),
    );
  }
  return { billable, hourlyRate, noRate, rateFrom };
}

/**
 * A cell of comma-separated tags: trimmed, empty ones dropped, each name once (as the catalog
 * compares names). `quoted` (the timetrack format): a name holding a comma or a quote is quoted
 * as in CSV (`"a,b",c`), as our export writes it.
 */
export function tagsOf(cell: string, quoted = false): string[] {
  if (cell === '') return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of quoted ? splitQuoted(cell) : cell.split(',')) {
    const tag = raw.trim();
    const key = nameKey(tag);
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

/** `"a,b", c,"d""e"` → `a,b`, ` c`, `d"e`: commas split, except inside a quoted name (quotes doubled). */
function splitQuoted(cell: string): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i <= cell.length) {
    while (cell[i] === ' ') i++;
    if (cell[i] === '"') {
      let text = '';
      i++;
      while (i < cell.length) {
        if (cell[i] === '"' && cell[i + 1] === '"') {
          text += '"';
          i += 2;
        } else if (cell[i] === '"') {
          i++;
          break;
        } else text += cell[i++];
      }
      const comma = cell.indexOf(',', i);
      parts.push(text + (comma < 0 ? cell.slice(i) : cell.slice(i, comma)));
      i = comma < 0 ? cell.length + 1 : comma + 1;
    } else {
      const comma = cell.indexOf(',', i);
      parts.push(comma < 0 ? cell.slice(i) : cell.slice(i, comma));
      i = comma < 0 ? cell.length + 1 : comma + 1;
    }
  }
  return parts;
}

function nextDay(day: string, order: DateOrder | null): string {
  const d = parseDay(day, order);
  const next = new Date(Date.UTC(d.year, d.month - 1, d.day + 1));
  return `${next.getUTCFullYear()}-${String(next.getUTCMonth() + 1).padStart(2, '0')}-${String(next.getUTCDate()).padStart(2, '0')}`;
}

/** A row's fingerprint: a hash of the format, the member, the times, the description, the work and the tags (names as the catalog compares them). */
export function fingerprintOf(format: Format, authorId: string, row: CheckedRow): string {
  // The source's own id where the file carries one (decisions §10): two equal entries stay two.
  if (row.sourceId !== null) {
    return createHash('sha256').update(`${format}\u0000id\u0000${row.sourceId}`).digest('base64url').slice(0, 22);
  }
  const tags = row.tags.map(nameKey).sort().join('\u0001');
  return createHash('sha256')
    .update(
      [format, authorId, row.start, row.end, row.description, nameKey(row.client), nameKey(row.project), nameKey(row.task), tags].join(
        '\u0000',
      ),
    )
    .digest('base64url')
    .slice(0, 22);
}
