import type { components } from '../../../generated/openapi.js';
import { reportErrors } from './errors.js';
import type { Actor } from '../../principal.js';
import type { Clock } from '../../clock.js';
import { DEFAULT_PAGE_SIZE, type Page } from '../../kernel/paging.js';
import { canonicalTimeZone, toIso } from '../../kernel/time.js';
import { type EntryFilters, type EntryLister, type EntryRowView, pickEntryFilters } from '../entries/service.js';
import { type AggregatorPorts, createAggregator } from './aggregate.js';
import { reportRange, weekFrom } from './buckets.js';
import { createNamer, type NamePorts } from './names.js';
import { summarise, type SummaryRequest, summaryText, type SummaryWindow, type SummaryWindowed, summaryWindow } from './summary.js';
import { timesheet } from './weekly.js';
import { createRounding, type ReportRounding, roundedRow, type RoundingPorts } from './rounding.js';
import { roundSeconds } from '../../kernel/rounding.js';
export { type ReportRounding, roundingSentence, type RoundingPorts } from './rounding.js';
import { createExporter } from './export/tables.js';

/** Rows of the detailed report an export reads at a time. */
const EXPORT_BATCH = 1000;

type Schemas = components['schemas'];
type Grouping = Schemas['ReportGrouping'];

export interface ReportQuery extends EntryFilters {
  from: string;
  to: string;
  timeZone?: string;
}

/**
 * What a report does when it would span colleagues' money its reader may not see (time, not
 * money): the API's and the command line's `refuse` (the contract's 403 money-visibility-required),
 * or a person's page's `withhold` (the web app's Reports page and its downloads: the hours are
 * shown, every amount and rate left out). Who may see what is the principal's, decided here.
 */
export type UnseenMoney = 'refuse' | 'withhold';
export interface ReportOptions {
  unseenMoney?: UnseenMoney;
  /**
   * Each entry's time rounded as invoices round it (issue 56 item 4): by its client's rule,
   * else the workspace's; its amount made of the rounded time. A person's page and its
   * downloads ask for it when the member chooses; the REST API never does.
   */
  rounded?: boolean;
}

/**
 * The contract's rule (money-visibility-required): own data only without canViewOthersTime;
 * with time but not money, 403 unless the request is narrowed to the caller's own entries
 * (userIds naming the caller alone), whose worth the caller may always see.
 */
function checkVisibility(actor: Actor, filters: EntryFilters, unseenMoney: UnseenMoney = 'refuse'): { moneyWithheld: boolean } {
  if (!actor.canViewOthersTime || actor.canViewOthersMoney) return { moneyWithheld: false };
  if (filters.userIds !== undefined && filters.userIds.length > 0 && filters.userIds.every((id) => id === actor.userId))
    return { moneyWithheld: false };
  if (unseenMoney === 'withhold') return { moneyWithheld: true };
  throw reportErrors.moneyVisibilityRequired(actor.userId);
}

const echo = (range: { from: number; to: number }, zone: string, actor: Actor) => ({
  from: toIso(range.from),
  to: toIso(range.to),
  timeZone: zone,
  currency: actor.currency,
});

const summaryHead = ({ actor, range, zone, groupBy, subGroupBy }: SummaryRequest) => ({
  ...echo(range, zone, actor),
  groupBy,
  subGroupBy,
});

/**
 * Summary, detailed and weekly reports over completed entries whose start lies in the range, as
 * read in the report's zone. Totals and groups are aggregated by SQLite; the detailed report pages
 * with the same lister as GET /entries.
 */
export function createReportsService({
  clock,
  lister,
  ports,
  defaultTimeZone,
}: {
  clock: Clock;
  lister: EntryLister;
  /** The entries' sums, the names of the catalog and the accounts, the rounding rules: the reports module has no tables. */
  ports: AggregatorPorts & NamePorts & RoundingPorts;
  defaultTimeZone: string;
}) {
  const aggregate = createAggregator(ports);
  const namer = createNamer(ports);
  const roundingOf = createRounding(ports, namer);

  const zoneOf = (query: { timeZone?: string }) => (query.timeZone === undefined ? defaultTimeZone : canonicalTimeZone(query.timeZone));

  function prepare(actor: Actor, query: ReportQuery, options: ReportOptions = {}) {
    const filters = pickEntryFilters(query);
    const { moneyWithheld } = checkVisibility(actor, filters, options.unseenMoney);
    const zone = zoneOf(query);
    const rounding = options.rounded ? roundingOf(actor.workspaceId) : null;
    return { zone, range: reportRange(query.from, query.to, zone), filters, moneyWithheld, rounding };
  }

  type SummaryQuery = ReportQuery & { groupBy?: Grouping; subGroupBy?: Grouping; weekStart?: 'monday' | 'sunday' };

  function summaryRequest(
    actor: Actor,
    query: SummaryQuery,
    options: ReportOptions = {},
  ): SummaryRequest & { roundingView: ReportRounding | null } {
    const { zone, range, filters, moneyWithheld, rounding } = prepare(actor, query, options);
    return {
      actor,
      zone,
      range,
      filters,
      moneyWithheld,
      groupBy: query.groupBy ?? 'project',
      subGroupBy: query.subGroupBy ?? null,
      weekStart: query.weekStart,
      ...(rounding ? { rounding: rounding.aggregate } : {}),
      roundingView: rounding?.view ?? null,
    };
  }

  const exporter = createExporter({
    namer,
    defaultTimeZone,
    checkVisibility,
    detailed(actor, query, options) {
      const { range, filters, rounding } = prepare(actor, query, options);
      const round = rounding && ((projectId: string | null, sec: number) => roundSeconds(sec, rounding.ruleOf(projectId)));
      return { range, pages: lister.exportBatches(actor, { ...range, filters }, EXPORT_BATCH, round) };
    },
    summary(actor, query, options) {
      const prepared = summaryRequest(actor, query, options);
      return { ...summaryHead(prepared), ...summarise(aggregate, namer, prepared) };
    },
    rounding(actor, options) {
      return options.rounded ? roundingOf(actor.workspaceId).view : null;
    },
  });

  return {
    summary(actor: Actor, query: SummaryQuery): Schemas['SummaryReport'] {
      const request = summaryRequest(actor, query);
      return { ...summaryHead(request), ...summarise(aggregate, namer, request) };
    },

    /** The same report as its JSON text, made without an object per group (the reader threads answer with it). */
    summaryJson(actor: Actor, query: SummaryQuery, options: ReportOptions = {}): string {
      const request = summaryRequest(actor, query, options);
      return summaryText(aggregate, namer, request, summaryHead(request));
    },

    /**
     * What a person's page shows of the same report: a window of its groups, each with its largest
     * sub-groups (the web app's Reports page), and whether money was withheld (`withhold`: every
     * amount is 0 and says nothing).
     */
    summaryWindow(
      actor: Actor,
      query: SummaryQuery,
      window: SummaryWindow,
      options: ReportOptions = {},
    ): Omit<Schemas['SummaryReport'], 'groups' | 'totals'> & SummaryWindowed & { moneyWithheld: boolean; rounding: ReportRounding | null } {
      const request = summaryRequest(actor, query, options);
      return {
        ...summaryHead(request),
        ...summaryWindow(aggregate, namer, request, window),
        moneyWithheld: request.moneyWithheld === true,
        rounding: request.roundingView,
      };
    },

    /** The detailed report; with `withhold`, colleagues' entries come without their rate and amount (as GET /entries gives them). */
    detailed(actor: Actor, query: ReportQuery & { cursor?: string; limit?: number }, options: ReportOptions = {}): Page<EntryRowView> {
      const { range, filters, rounding } = prepare(actor, query, options);
      const page = lister.page(
        actor,
        {
          listing: 'reports.detailed',
          select: 'startedCompleted',
          order: 'asc',
          ...range,
          filters,
          ...(query.cursor ? { cursor: query.cursor } : {}),
          limit: query.limit ?? DEFAULT_PAGE_SIZE,
        },
        { now: clock.now(), currency: actor.currency },
      );
      return rounding ? { ...page, rows: page.rows.map(roundedRow(rounding.ruleOf)) } : page;
    },

    /**
     * An export of the report (the Reports page's downloads, `timetrack report export`): who may
     * see what is decided here, before the first row (a refusal is the API's and the page's), and
     * money columns are left out for who may not see that money. The detailed report's rows are
     * read in batches while the export is written, so its memory does not grow with the range.
     */
    exportTable: exporter.exportTable,

    weekly(actor: Actor, query: Omit<ReportQuery, 'to'> & { groupBy?: 'project' | 'client' | 'user' }): Schemas['WeeklyReport'] {
      const filters = pickEntryFilters(query);
      checkVisibility(actor, filters);
      const zone = zoneOf(query);
      const days = weekFrom(query.from, zone);
      const groupBy = query.groupBy ?? 'project';
      const range = { from: days[0]?.start ?? 0, to: days[days.length - 1]?.end ?? 0 };
      const result = timesheet(aggregate, namer, { actor, days, zone, filters, groupBy });
      return { ...echo(range, zone, actor), groupBy, days: days.map((d) => d.key), ...result };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
export type { SummaryWindow, SummaryWindowed, WindowGroup } from './summary.js';
export {
  checkExport,
  CONTENT_TYPES,
  ExportCancelled,
  exportFileName,
  exportFormatOf,
  exportKindOf,
  type ExportRequest,
  type ExportSink,
  writeExport,
} from './export/index.js';
