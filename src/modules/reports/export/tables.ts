import type { components } from '../../../../generated/openapi.js';
import { DateTime } from 'luxon';
import type { Actor } from '../../../principal.js';
import { canonicalTimeZone } from '../../../kernel/time.js';
import { type EntryFilters, type ExportEntry, pickEntryFilters } from '../../entries/service.js';
import { reportRange } from '../buckets.js';
import { reportErrors } from '../errors.js';
import type { Namer } from '../names.js';
import { type ReportRounding, roundingSentence } from '../rounding.js';
import {
  type Cell,
  type Column,
  type ExportHead,
  type ExportRequest,
  type ExportTable,
  type ExportVoice,
  groupLabels,
  localClock,
  type Row,
  type TimesheetWeek,
  voiceOf,
} from './model.js';

type Summary = components['schemas']['SummaryReport'];
type Group = components['schemas']['SummaryGroup'];

type Grouping = ExportRequest['groupBy'];
interface ReportQuery {
  from: string;
  to: string;
  timeZone: string;
  userIds?: string[];
  projectIds?: string[];
  clientIds?: string[];
  taskIds?: string[];
  tagIds?: string[];
  billable?: boolean;
  search?: string;
}

/** The reports service's answer to money its reader may not see (./service.ts `UnseenMoney`), and whether each entry is rounded. */
type Options = { unseenMoney?: 'refuse' | 'withhold'; rounded?: boolean };

/** What the tables read: the reports service's own reports (each checks the range and who may see it). */
export interface TableSources {
  namer: Namer;
  /** Exports without a zone are read in the server's. */
  defaultTimeZone: string;
  checkVisibility(actor: Actor, filters: EntryFilters, unseenMoney?: Options['unseenMoney']): { moneyWithheld: boolean };
  /** The detailed report's rows in batches, in its order, as the entries module reads them for exports; the range as instants. */
  detailed(actor: Actor, query: ReportQuery, options: Options): { range: { from: number; to: number }; pages: Iterable<ExportEntry[]> };
  summary(
    actor: Actor,
    query: ReportQuery & { groupBy: Grouping; subGroupBy?: Grouping; weekStart: 'monday' | 'sunday' },
    options: Options,
  ): Summary;
  /** The rounding rules a rounded export reads (null: not rounded). */
  rounding(actor: Actor, options: Options): ReportRounding | null;
}

/** The export's report query: its range and zone, and the Reports page's filters (whose time, client, project, task, tag, billable, text). */
const queryOf = (request: ExportRequest): ReportQuery => ({
  from: request.from,
  to: request.to,
  timeZone: request.timeZone as string,
  ...pickEntryFilters(request.filters ?? {}),
  ...(request.userIds ? { userIds: request.userIds } : {}),
});
const optionsOf = (request: ExportRequest): Options => ({
  ...(request.unseenMoney ? { unseenMoney: request.unseenMoney } : {}),
  ...(request.rounded ? { rounded: true } : {}),
});
const summaryOf = (sources: TableSources, actor: Actor, request: ExportRequest, groupBy: Grouping, subGroupBy: Grouping | null) =>
  sources.summary(
    actor,
    { ...queryOf(request), weekStart: request.weekStart, groupBy, ...(subGroupBy ? { subGroupBy } : {}) },
    optionsOf(request),
  );

/**
 * The exports of the reports service: `exportTable` decides who may see what once, before the
 * first row (a refusal is the API's and the page's), and leaves money columns out for who may not
 * see that money; the detailed report's rows are read in batches while the export is written, so
 * its memory does not grow with the range.
 */
export function createExporter(sources: TableSources) {
  const tables = exportTables(sources);
  return {
    exportTable(actor: Actor, request: ExportRequest): ExportTable {
      const filters = pickEntryFilters(request.userIds ? { userIds: request.userIds } : {});
      // The money of every entry the selection covers, or none: refused (the API's rule) or withheld (a person's page).
      const { moneyWithheld } = sources.checkVisibility(actor, filters, request.unseenMoney);
      const timeZone = canonicalTimeZone(request.timeZone ?? sources.defaultTimeZone);
      // The range is checked before the first byte (a range too long is the page's 400).
      reportRange(request.from, request.to, timeZone);
      if (request.kind === 'summary' && request.subGroupBy === request.groupBy) throw reportErrors.sameSubGroup();
      const members = request.userIds ? sources.namer('user', actor.workspaceId, request.userIds) : null;
      const rounding = sources.rounding(actor, optionsOf(request));
      const voice = voiceOf(request.reader);
      const head: ExportHead = {
        kind: request.kind,
        from: request.from,
        to: request.to,
        timeZone,
        currency: actor.currency,
        members: request.userIds && members ? request.userIds.map((id) => members(id).name ?? id) : null,
        groupBy: request.groupBy,
        subGroupBy: request.kind === 'summary' ? request.subGroupBy : null,
        weekStart: request.weekStart,
        money: !moneyWithheld,
        only: filterWords(sources.namer, actor.workspaceId, request.filters ?? {}, voice),
        rounded: rounding === null ? null : roundingSentence(rounding),
        client: oneClient(sources.namer, actor.workspaceId, request.filters ?? {}),
        voice,
      };
      return tables[request.kind](actor, { ...request, timeZone }, head);
    },
  };
}

/** The client a report is for: the one its filters name (several, or none: an internal report, which no client signs). */
function oneClient(namer: Namer, workspaceId: string, filters: NonNullable<ExportRequest['filters']>): string | null {
  const ids = filters.clientIds ?? [];
  if (ids.length !== 1) return null;
  const id = ids[0] as string;
  return namer('client', workspaceId, [id])(id).name ?? id;
}

/** The filters of an export, as its head names them: `Client Acme`, `Tag onsite`, `Billable only`, `Text “kickoff”`. */
function filterWords(namer: Namer, workspaceId: string, filters: NonNullable<ExportRequest['filters']>, { say }: ExportVoice): string[] {
  const named = (grouping: 'client' | 'project' | 'task' | 'tag', ids: string[] | undefined) => {
    if (!ids || ids.length === 0) return [];
    const name = namer(grouping, workspaceId, ids);
    return [say(`reports.filters.${grouping}`, { name: ids.map((id) => name(id).name ?? id).join(', ') })];
  };
  return [
    ...named('client', filters.clientIds),
    ...named('project', filters.projectIds),
    ...named('task', filters.taskIds),
    ...named('tag', filters.tagIds),
    ...(filters.billable === undefined ? [] : [say(filters.billable ? 'reports.filters.billableOnly' : 'reports.filters.notBillableOnly')]),
    ...(filters.search ? [say('reports.filters.text', { text: filters.search })] : []),
  ];
}

const text = (header: string, width: number): Column => ({ header, type: 'text', width });

/** The columns of the entries (decisions §11): date, start, end, hours, member, client, project, task, tags, description, billable, rate, amount. */
function detailedColumns(money: boolean, { say }: ExportVoice): Column[] {
  const columns: Column[] = [
    { header: say('reports.date'), type: 'date', width: 11 },
    { header: say('export.start'), type: 'datetime', width: 17 },
    { header: say('export.end'), type: 'datetime', width: 17 },
    { header: say('export.hours'), type: 'duration', width: 9 },
    text(say('reports.grouping.user'), 18),
    text(say('reports.grouping.client'), 18),
    text(say('reports.grouping.project'), 22),
    text(say('reports.grouping.task'), 18),
    text(say('reports.tags'), 16),
    text(say('reports.description'), 40),
    { header: say('reports.billable'), type: 'boolean', width: 8 },
  ];
  if (money)
    columns.push(
      { header: say('export.rate'), type: 'money', width: 10, money },
      { header: say('reports.amount'), type: 'money', width: 11, money },
    );
  return columns;
}

function exportTables(sources: TableSources) {
  /** The names of members and tags, looked up once per export for the ids not seen before. */
  function cachedNames(actor: Actor, grouping: 'user' | 'tag') {
    const known = new Map<string, string>();
    return {
      learn(ids: Iterable<string>) {
        const missing = [...new Set(ids)].filter((id) => !known.has(id));
        if (missing.length === 0) return;
        const name = sources.namer(grouping, actor.workspaceId, missing);
        for (const id of missing) known.set(id, name(id).name ?? id);
      },
      of: (id: string) => known.get(id) ?? id,
    };
  }

  function detailed(actor: Actor, request: ExportRequest, head: ExportHead): ExportTable {
    const { range, pages } = sources.detailed(actor, queryOf(request), optionsOf(request));
    const local = localClock(head.timeZone, range.from, range.to);
    const members = cachedNames(actor, 'user');
    const tags = cachedNames(actor, 'tag');
    // An entry's tags as the cell shows them, by its tag list (a workspace has few distinct ones).
    const tagCells = new Map<string, string>();
    const tagCell = (list: string | null): string => {
      if (list === null) return '';
      let cell = tagCells.get(list);
      if (cell === undefined) {
        const ids = JSON.parse(list) as string[];
        tags.learn(ids);
        tagCells.set(list, (cell = ids.map(tags.of).join(', ')));
      }
      return cell;
    };
    const totals = { seconds: 0, amount: 0, cents: 0, count: 0 };
    function* batches(): Generator<Row[]> {
      for (const page of pages) {
        members.learn(page.map((e) => e[3]));
        const rows: Row[] = new Array(page.length);
        for (let i = 0; i < page.length; i++) {
          const e = page[i] as ExportEntry;
          const start = local(e[0]);
          const cells: Cell[] = [
            Math.floor(start / 86_400_000) * 86_400_000,
            start,
            local(e[1]),
            e[2],
            members.of(e[3]),
            e[4],
            e[5],
            e[6],
            tagCell(e[7]),
            e[8],
            e[9],
          ];
          if (head.money) cells.push(e[10], e[11]);
          totals.seconds += e[2];
          totals.cents += Math.round((e[11] ?? 0) * 100);
          totals.count += 1;
          rows[i] = { cells };
        }
        yield rows;
      }
    }
    return {
      head,
      columns: detailedColumns(head.money, head.voice),
      batches: batches(),
      totals: () => ({ seconds: totals.seconds, amount: totals.cents / 100, count: totals.count }),
      // One aggregate of the range, read only when asked (a PDF's page cap).
      rows: () => summaryOf(sources, actor, request, 'billable', null).totals.entryCount,
    };
  }

  /** Every group and sub-group of the summary (not only the page's window), a row each, then the total. */
  function summary(actor: Actor, request: ExportRequest, head: ExportHead): ExportTable {
    const report = summaryOf(sources, actor, request, request.groupBy, request.subGroupBy);
    const { say } = head.voice;
    const by = groupLabels(say, request.groupBy);
    const then = request.subGroupBy ? groupLabels(say, request.subGroupBy) : null;
    const figures = (g: Omit<Group, 'key' | 'name' | 'subGroups'>): Cell[] => [
      g.durationSec,
      g.billableSec,
      g.entryCount,
      ...(head.money ? [g.amount] : []),
    ];
    const rows: Row[] = [];
    for (const g of report.groups) {
      const name = g.name ?? by.none;
      // With sub-groups a group's row sums them: the PDF's sub-total, not a spreadsheet's row.
      rows.push({ cells: [name, ...(then ? [''] : []), ...figures(g)], role: 'group', ...(then ? { summed: true as const } : {}) });
      if (then) for (const s of g.subGroups ?? []) rows.push({ cells: [name, s.name ?? then.none, ...figures(s)], role: 'sub' });
    }
    rows.push({ cells: [say('reports.total'), ...(then ? [''] : []), ...figures(report.totals)], role: 'total', summed: true });
    const columns: Column[] = [
      text(by.label, 28),
      ...(then ? [text(then.label, 28)] : []),
      { header: say('export.hours'), type: 'duration', width: 10 },
      { header: say('export.billableHours'), type: 'duration', width: 14 },
      { header: say('reports.entries'), type: 'count', width: 9 },
      ...(head.money ? [{ header: say('reports.amount'), type: 'money', width: 12, money: true } as Column] : []),
    ];
    return {
      head,
      columns,
      batches: [rows],
      totals: () => ({ seconds: report.totals.durationSec, amount: report.totals.amount, count: report.totals.entryCount }),
      rows: () => rows.length,
    };
  }

  const weekly = (actor: Actor, request: ExportRequest, head: ExportHead) => weeklyTable(sources, actor, request, head);

  return { detailed, summary, weekly };
}

/**
 * The timesheet: the range's weeks (the member's first day), in each a row per group with its
 * seven days, then the week's total. One aggregation by day, then by the grouping: a day's
 * figures are its own (an entry with two tags counts once in its day's total).
 */
function weeklyTable(sources: TableSources, actor: Actor, request: ExportRequest, head: ExportHead): ExportTable {
  const groupBy = request.groupBy;
  const report = summaryOf(sources, actor, request, 'day', groupBy);
  const days = new Map(report.groups.map((g) => [g.key as string, g]));
  const first = DateTime.fromISO(request.from, { zone: 'UTC' });
  const shift = request.weekStart === 'monday' ? first.weekday - 1 : first.weekday % 7;
  const last = DateTime.fromISO(request.to, { zone: 'UTC' });
  const weeks: Array<TimesheetWeek & { spreadsheet: { keys: string[]; rows: TimesheetWeek['rows']; totals: TimesheetWeek['totals'] } }> =
    [];
  const { say, people } = head.voice;
  const none = groupLabels(say, groupBy).none;
  const inRange = (key: string) => key >= request.from && key <= request.to;
  for (let start = first.minus({ days: shift }); start <= last; start = start.plus({ days: 7 })) {
    const keys = Array.from({ length: 7 }, (_, i) => start.plus({ days: i }).toISODate() as string);
    const byGroup = new Map<string, { name: string; seconds: number[]; amount: number }>();
    const totals = { seconds: keys.map(() => 0), amount: 0 };
    keys.forEach((key, i) => {
      const day = days.get(key);
      if (!day) return;
      totals.seconds[i] = day.durationSec;
      totals.amount += day.amount;
      for (const s of day.subGroups ?? []) {
        const id = s.key ?? '';
        let row = byGroup.get(id);
        if (!row) byGroup.set(id, (row = { name: s.name ?? none, seconds: keys.map(() => 0), amount: 0 }));
        row.seconds[i] = (row.seconds[i] ?? 0) + s.durationSec;
        row.amount += s.amount;
      }
    });
    const collator = new Intl.Collator(people?.locale);
    const rows = [...byGroup.values()].sort((a, b) => (a.name === none ? 1 : b.name === none ? -1 : collator.compare(a.name, b.name)));
    totals.amount = Math.round(totals.amount * 100) / 100;
    for (const r of rows) r.amount = Math.round(r.amount * 100) / 100;
    // The PDF's grid: the whole week from the member's first day, as the timesheet page shows it (issue 58);
    // the days of its first and last weeks outside the range are there, empty and marked so.
    weeks.push({
      days: keys,
      within: keys.map(inRange),
      rows,
      totals,
      spreadsheet: { keys, rows, totals },
    });
  }
  // The days' short names: a week from 2026-11-23, a Monday (or the Sunday before), in the reader's language; English for the command line.
  const weekday = (i: number) =>
    people
      ? people.weekday(`2026-11-${String((request.weekStart === 'monday' ? 23 : 22) + i).padStart(2, '0')}`)
      : ((request.weekStart === 'monday'
          ? ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
          : ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
        )[i] as string);
  const columns: Column[] = [
    { header: say('export.weekOf'), type: 'date', width: 11 },
    text(groupLabels(say, groupBy).label, 28),
    ...Array.from({ length: 7 }, (_, i): Column => ({ header: weekday(i), type: 'duration', width: 8 })),
    { header: say('reports.total'), type: 'duration', width: 10 },
    ...(head.money ? [{ header: say('reports.amount'), type: 'money', width: 12, money: true } as Column] : []),
  ];
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const rows: Row[] = [];
  for (const { spreadsheet: week } of weeks) {
    const date = Date.parse(`${week.keys[0]}T00:00:00Z`);
    // A day outside the range is an empty cell, not a zero.
    const days = (seconds: number[]) => seconds.map((s, i) => (inRange(week.keys[i] as string) ? s : null));
    for (const r of week.rows)
      rows.push({ cells: [date, r.name, ...days(r.seconds), sum(r.seconds), ...(head.money ? [r.amount] : [])], role: 'sub' });
    rows.push({
      cells: [
        date,
        say('reports.total'),
        ...days(week.totals.seconds),
        sum(week.totals.seconds),
        ...(head.money ? [week.totals.amount] : []),
      ],
      role: 'total',
      summed: true,
    });
  }
  return {
    head,
    columns,
    batches: [rows],
    weeks: weeks.map(({ days, within, rows: grid, totals }) => ({ days, within, rows: grid, totals })),
    totals: () => ({ seconds: report.totals.durationSec, amount: report.totals.amount, count: report.totals.entryCount }),
    rows: () => rows.length,
  };
}
