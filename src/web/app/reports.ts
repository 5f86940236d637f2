import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import type { components } from '../../../generated/openapi.js';
import { DomainError } from '../../errors.js';
import type { EntryRowView } from '../../modules/entries/service.js';
import { type ReportRounding, roundingSentence, type SummaryWindowed, type WindowGroup } from '../../modules/reports/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { OperationId } from '../../operations/types.js';
import { actorData, type ReadTask } from '../../threads/readers/tasks.js';
import { errorAt, type FieldErrors, invalidAt, optionsOf, selectField } from '../kit/fields.js';
import { refusal, statusOf } from '../kit/refusal.js';
import { type Html, html } from '../kit/html.js';
import { appPage } from './page.js';
import { barChart, barName, type ChartBar, chartBuckets, chartUnit } from './report-chart.js';
import type { WebDeps as AppDeps } from '../deps.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { APP_PATH } from '../paths.js';
import { csvDialectOf, currentReader, formats, type Key, t } from '../../i18n/index.js';
import {
  FILTERS,
  type FilterChoices,
  filterChoices,
  filterErrors,
  filterFields,
  type FilterForm,
  filterQuery,
  filtersOf,
  filterWords,
} from './report-filters.js';

type Summary = components['schemas']['SummaryReport'];
/** The summary as the page reads it: a window of its groups (see `GROUPS_SHOWN`). */
type Windowed = Omit<Summary, 'groups' | 'totals'> & SummaryWindowed;
type Grouping = 'project' | 'client' | 'task' | 'tag' | 'user';

/** The groupings the page offers (the API's own values). */
const GROUPING_KEYS: readonly Grouping[] = ['project', 'client', 'task', 'tag', 'user'];
const isGrouping = (value: string): value is Grouping => (GROUPING_KEYS as readonly string[]).includes(value);
/** What a person calls a grouping, its rows without a key, and how many of them there are, in the reader's language. */
const GROUP_WORDS: Record<Grouping, { label: Key; none: Key; many: Key }> = {
  project: { label: 'reports.grouping.project', none: 'reports.grouping.noProject', many: 'reports.grouping.projects' },
  client: { label: 'reports.grouping.client', none: 'reports.grouping.noClient', many: 'reports.grouping.clients' },
  task: { label: 'reports.grouping.task', none: 'reports.grouping.noTask', many: 'reports.grouping.tasks' },
  tag: { label: 'reports.grouping.tag', none: 'reports.grouping.noTag', many: 'reports.grouping.tags' },
  user: { label: 'reports.grouping.user', none: 'reports.grouping.noUser', many: 'reports.grouping.users' },
};
const groupingOf = (g: Grouping) => ({ label: t(GROUP_WORDS[g].label), none: t(GROUP_WORDS[g].none), key: g });

/** The detailed list's page (the API allows up to 500). */
export const DETAILED_PAGE = 100;
/** Groups on one page of the summary (more are paged, in the report's order)… */
export const GROUPS_SHOWN = 100;
/** …and sub-groups shown under each (its largest; the rest summed in one row). */
export const SUB_GROUPS_SHOWN = 10;
export const EVERYONE = 'everyone';
const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The form as typed (a GET form: the address is the report, so it can be bookmarked and shared); its filters by the API's names. */
export interface ReportForm extends FilterForm {
  from: string;
  to: string;
  groupBy: string;
  subGroupBy: string;
  member: string;
  cursor: string;
  /** The summary's page of groups, from 1 ('' is 1). */
  groups: string;
  /** `1`: each entry's time rounded as invoices round it (issue 56 item 4); '' as tracked. */
  rounded: string;
}

export interface Context {
  session: SessionView;
  zone: string;
  weekStart: 'monday' | 'sunday';
  now: number;
  /** Whom the member may report on besides themselves (null: only themselves, so no select). */
  members: Array<{ userId: string; name: string }> | null;
  /** What the filters offer. */
  choices: FilterChoices;
}

interface Report {
  summary: Windowed;
  /** The rounding rules the report applied (the member asked for it), or null: time as tracked. */
  rounding: ReportRounding | null;
  /** Colleagues' money withheld (time, not money): the page shows hours only. */
  moneyWithheld: boolean;
  unit: 'day' | 'week';
  bars: ChartBar[];
  rows: EntryRowView[];
  nextCursor: string | null;
  tags: Map<string, string>;
}

const query = (req: Request, name: string): string => (typeof req.query[name] === 'string' ? (req.query[name] as string).trim() : '');

/** The week holding `day` (the member's first day), the month, the year: [first, last] local days. */
function ranges(ctx: Context) {
  const today = DateTime.fromMillis(ctx.now, { zone: ctx.zone }).startOf('day');
  const weekFirst = today.minus({ days: ctx.weekStart === 'monday' ? today.weekday - 1 : today.weekday % 7 });
  const span = (a: DateTime, b: DateTime) => ({ from: a.toISODate() as string, to: b.toISODate() as string });
  return [
    { label: t('reports.range.thisWeek'), ...span(weekFirst, weekFirst.plus({ days: 6 })) },
    { label: t('reports.range.lastWeek'), ...span(weekFirst.minus({ days: 7 }), weekFirst.minus({ days: 1 })) },
    { label: t('reports.range.thisMonth'), ...span(today.startOf('month'), today.endOf('month')) },
    {
      label: t('reports.range.lastMonth'),
      ...span(today.minus({ months: 1 }).startOf('month'), today.minus({ months: 1 }).endOf('month')),
    },
    { label: t('reports.range.thisYear'), ...span(today.startOf('year'), today.endOf('year')) },
  ];
}

/** The form from the address; what is missing is this week, by project, the member's own time. */
export function formOf(req: Request, ctx: Context): ReportForm {
  const week = ranges(ctx)[0] as { from: string; to: string };
  const member = query(req, 'member');
  return {
    from: query(req, 'from') || week.from,
    to: query(req, 'to') || week.to,
    groupBy: query(req, 'groupBy') || 'project',
    subGroupBy: query(req, 'subGroupBy'),
    // Without colleagues' time there is no choice: the member's own.
    member: ctx.members === null || member === '' ? ctx.session.userId : member,
    cursor: query(req, 'cursor'),
    groups: query(req, 'groups'),
    // A checkbox: present (any value) is asked, absent is not.
    rounded: query(req, 'rounded') === '' ? '' : '1',
    ...filtersOf(req),
  };
}

/** What the page itself must read before the service: days as a date field sends them, groupings it offers, a member it listed. */
export function formErrors(form: ReportForm, ctx: Context): FieldErrors {
  const errors: FieldErrors = {};
  for (const name of ['from', 'to'] as const)
    if (!CALENDAR_DAY.test(form[name]) || !DateTime.fromISO(form[name]).isValid)
      errors[name] = t('reports.refused.day', { name, value: form[name] });
  if (!isGrouping(form.groupBy)) errors.groupBy = t('reports.refused.grouping', { name: 'groupBy', value: form.groupBy });
  if (form.subGroupBy !== '' && !isGrouping(form.subGroupBy))
    errors.subGroupBy = t('reports.refused.grouping', { name: 'subGroupBy', value: form.subGroupBy });
  if (ctx.members !== null && form.member !== EVERYONE && !ctx.members.some((m) => m.userId === form.member))
    errors.member = t('reports.refused.member');
  Object.assign(errors, filterErrors(form, ctx.choices));
  if (form.groups !== '' && !/^[1-9]\d{0,5}$/.test(form.groups)) errors.form = t('reports.refused.groups', { value: form.groups });
  return errors;
}

/** The service's refusal at its field (the report's parameters by their API names; members are the form's `member`). */
export function refusalOf(error: DomainError): { status: number; errors: FieldErrors } {
  if (error.code === 'money_visibility_required') {
    return {
      status: statusOf(error),
      errors: {
        member: t('reports.refused.money'),
      },
    };
  }
  const { status, errors } = refusal(error, { fields: { userIds: 'member' }, fallback: 'form' });
  return { status, errors };
}

/**
 * The report's three reads (the summary, the chart's days or weeks, a page of entries) as the
 * API's report routes make them: on the reader threads, as the member (the service decides what
 * they may see and refuses what the API refuses), in the member's zone.
 */
async function readReport(deps: AppDeps, ctx: Context, form: ReportForm & { groupBy: Grouping }): Promise<Report> {
  const { readers, clock, services } = deps;
  const actor = actorData(ctx.session.actor);
  const read = async <T>(operationId: OperationId, q: Record<string, unknown>, window?: ReadTask['window']): Promise<T> => {
    const now = clock.now();
    const task: ReadTask = {
      operationId,
      query: q,
      path: {},
      actor,
      now,
      requestId: `app-${randomUUID()}`,
      compression: null,
      // Colleagues' money the member may not see is left out of the page, not refused (the reports service decides what).
      unseenMoney: 'withhold',
      // Each entry rounded as invoices round it, when the member asked (the reports service applies each client's rule).
      ...(form.rounded ? { rounded: true as const } : {}),
      ...(window ? { window } : {}),
    };
    const answer = await readers.run(task);
    return JSON.parse(Buffer.from('bytes' in answer ? answer.bytes : answer).toString('utf8')) as T;
  };
  const base = {
    from: form.from,
    to: form.to,
    timeZone: ctx.zone,
    ...filterQuery(form),
    ...(form.member === EVERYONE ? {} : { userIds: [form.member] }),
  };
  const unit = chartUnit(form.from, form.to);
  const [summary, buckets, detailed] = await Promise.all([
    read<{ data: Windowed & { moneyWithheld: boolean; rounding: ReportRounding | null } }>(
      'getSummaryReport',
      { ...base, groupBy: form.groupBy, ...(form.subGroupBy ? { subGroupBy: form.subGroupBy } : {}), weekStart: ctx.weekStart },
      { offset: (Number(form.groups || 1) - 1) * GROUPS_SHOWN, limit: GROUPS_SHOWN, subGroups: SUB_GROUPS_SHOWN },
    ),
    read<{ data: Summary }>('getSummaryReport', { ...base, groupBy: unit, weekStart: ctx.weekStart }),
    read<{ data: EntryRowView[]; nextCursor: string | null }>('getDetailedReport', {
      ...base,
      limit: DETAILED_PAGE,
      ...(form.cursor ? { cursor: form.cursor } : {}),
    }),
  ]);
  const seconds = new Map(buckets.data.groups.map((g) => [g.key as string, g.durationSec]));
  const tagged = detailed.data.some((e) => e.tagIds.length > 0);
  return {
    summary: summary.data,
    rounding: summary.data.rounding,
    moneyWithheld: summary.data.moneyWithheld,
    unit,
    bars: chartBuckets(form.from, form.to, unit, ctx.weekStart, seconds),
    rows: detailed.data,
    nextCursor: detailed.nextCursor,
    tags: new Map(tagged ? services.catalog.tags.list(ctx.session.actor).map((t) => [t.id, t.name]) : []),
  };
}

/** The member's side of the page: zone, first day, whom they may report on. */
export function contextOf(deps: AppDeps, session: SessionView): Context {
  const { services } = deps;
  const prefs = services.accounts.preferences(session.userId);
  const members = session.actor.canViewOthersTime
    ? services.accounts
        .memberDirectory(session.workspaceId)
        .map((m) => ({ userId: m.userId, name: m.name }))
        .sort((a, b) => a.name.localeCompare(b.name))
    : null;
  return {
    session,
    zone: prefs.timeZone ?? deps.config.serverTimeZone,
    weekStart: prefs.weekStart ?? 'monday',
    now: deps.clock.now(),
    members,
    choices: filterChoices(deps, session),
  };
}

/** The page (the form, and the report when there is one) with a status: also the exports' refusals. */
export function renderReport(
  deps: AppDeps,
  res: Response,
  ctx: Context,
  status: number,
  form: ReportForm,
  errors: FieldErrors,
  report: Report | null,
): void {
  res
    .status(status)
    .type('html')
    .end(appPage(deps, ctx.session, { title: t('nav.reports'), current: 'reports', body: reportBody(ctx, form, errors, report) }));
}

/** The Reports page: a summary in two levels with a chart of the range's days or weeks, and the entries, in the member's zone. */
export function reportRoutes(router: Router, deps: AppDeps): void {
  router.get('/reports', async (req, res, next) => {
    const ctx = contextOf(deps, (signedOf(res) as SignedIn).session);
    const form = formOf(req, ctx);
    const errors = formErrors(form, ctx);
    if (Object.keys(errors).length > 0) return renderReport(deps, res, ctx, 400, form, errors, null);
    try {
      const report = await readReport(deps, ctx, { ...form, groupBy: form.groupBy as Grouping });
      renderReport(deps, res, ctx, 200, form, {}, report);
    } catch (error) {
      if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'money_visibility_required')) return next(error);
      const refused = refusalOf(error);
      renderReport(deps, res, ctx, refused.status, form, refused.errors, null);
    }
  });
}

/** The address of the report with some of its fields changed (the pages of groups and entries dropped unless given). */
function linkOf(form: ReportForm, changes: Partial<ReportForm>): string {
  const all = { ...form, cursor: '', groups: '', ...changes };
  const params = new URLSearchParams();
  for (const name of ['from', 'to', 'groupBy', 'subGroupBy', 'member', ...FILTERS, 'rounded', 'groups', 'cursor'] as const)
    if (all[name] !== '') params.set(name, all[name]);
  return `${APP_PATH}/reports?${params.toString()}`;
}

const select = (id: string, name: string, label: string, value: string, options: Array<[string, string]>, errors: FieldErrors) =>
  selectField(id, name, label, optionsOf(options, value), errors[name]);

/** The form: the range (and quick ranges), the two groupings, whose time. */
function reportForm(ctx: Context, form: ReportForm, errors: FieldErrors): Html {
  const groupings = GROUPING_KEYS.map((g) => [g, t(GROUP_WORDS[g].label)] as [string, string]);
  const day = (name: 'from' | 'to', label: string) =>
    html`<div class="field">
      <label for="report-${name}">${label}</label>
      <input id="report-${name}" type="date" name="${name}" value="${form[name]}" required ${invalidAt(`report-${name}`, errors[name])} />
      ${errorAt(`report-${name}`, errors[name])}
    </div>`;
  const members = ctx.members;
  return html`<form class="report-form" method="get" action="${APP_PATH}/reports" aria-label="${t('reports.form.label')}">
      <div class="grid">
        ${day('from', t('reports.form.from'))} ${day('to', t('reports.form.to'))}
        ${select('report-group', 'groupBy', t('reports.form.groupBy'), form.groupBy, groupings, errors)}
        ${select('report-subgroup', 'subGroupBy', t('reports.form.thenBy'), form.subGroupBy, [['', t('reports.form.nothing')], ...groupings], errors)}
        ${
          members
            ? select(
                'report-member',
                'member',
                t('reports.form.whose'),
                form.member,
                [
                  [ctx.session.userId, t('reports.form.mine')],
                  ...members.filter((m) => m.userId !== ctx.session.userId).map((m) => [m.userId, m.name] as [string, string]),
                  [EVERYONE, t('reports.form.everyone')],
                ],
                errors,
              )
            : ''
        }
      </div>
      ${filterFields(form, ctx.choices, errors)}
      <label class="check rounded-choice" for="report-rounded"
        ><input id="report-rounded" type="checkbox" name="rounded" value="1" ${form.rounded ? html`checked` : ''} />
        <span>${t('reports.form.rounded')} <span class="hint inline">${t('reports.form.roundedHint')}</span></span></label
      >
      <div class="actions"><button type="submit">${t('reports.form.show')}</button></div>
      ${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
    </form>
    <nav class="ranges" aria-label="${t('reports.range.label')}">
      <ul>
        ${ranges(ctx).map(
          (r) =>
            html`<li>
              <a
                href="${linkOf(form, { from: r.from, to: r.to })}"
                ${r.from === form.from && r.to === form.to ? html`aria-current="true"` : ''}
                >${r.label}</a
              >
            </li>`,
        )}
      </ul>
    </nav>`;
}

/** An amount in its currency, as the reader writes money (src/i18n/format.ts). */
const moneyOf = (amount: number, currency: string) => formats().money(amount, currency);
/** A duration as the reader reads them: hours and minutes, or with seconds when they asked. */
const durationOf = (seconds: number) => formats().duration(seconds);

/** The page: the form, then (when served) the totals, the chart, the summary and the entries. */
function reportBody(ctx: Context, form: ReportForm, errors: FieldErrors, report: Report | null): Html {
  const heading = html`<div class="report-head">
    <h1>${t('nav.reports')}</h1>
    <p class="hint">${t('reports.zone', { zone: ctx.zone })}</p>
  </div>`;
  if (!report) return html`${heading}${reportForm(ctx, form, errors)}`;
  const s = report.summary;
  // Money stands only where the report has any: the service has withheld what the member may not see.
  const money = !report.moneyWithheld && s.totals.amount !== 0;
  const narrowed = filterWords(form, ctx.choices);
  return html`${heading}${reportForm(ctx, form, errors)}
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">${formats().period(form.from, form.to)}</h2>
      ${narrowed.length > 0 ? html`<p class="hint narrowed">${t('reports.only', { filters: narrowed.join(' · ') })}</p>` : ''}
      ${report.rounding ? html`<p class="hint rounded-rule">${roundingSentence(report.rounding)}</p>` : ''}
      ${report.moneyWithheld ? html`<p class="hint">${t('reports.hoursOnly')}</p>` : ''}
      <ul class="report-totals">
        <li><span class="hint">${t('reports.total')}</span><strong>${durationOf(s.totals.durationSec)}</strong></li>
        <li><span class="hint">${t('reports.billable')}</span><strong>${durationOf(s.totals.billableSec)}</strong></li>
        ${money ? html`<li class="amount"><span class="hint">${t('reports.amount')}</span><strong>${moneyOf(s.totals.amount, s.currency)}</strong></li>` : ''}
        <li><span class="hint">${t('reports.entries')}</span><strong>${formats().number(s.totals.entryCount)}</strong></li>
      </ul>
    </section>
    ${downloadSection(form, report.moneyWithheld)} ${chartSection(report)} ${summarySection(form, report, money)}
    ${entriesSection(ctx, form, report, money)}`;
}

/**
 * The downloads of what the page shows (./report-export.ts): the same range, groupings and
 * member, as entries, the summary (every group) or the timesheet, in CSV, Excel or PDF. A GET
 * form: the chosen button's format joins the address.
 */
function downloadSection(form: ReportForm, moneyWithheld: boolean): Html {
  const hidden = (['from', 'to', 'groupBy', 'subGroupBy', 'member', ...FILTERS, 'rounded'] as const)
    .filter((name) => form[name] !== '')
    .map((name) => html`<input type="hidden" name="${name}" value="${form[name]}" />`);
  return html`<section aria-labelledby="download-heading">
    <h2 id="download-heading">${t('reports.download.heading')}</h2>
    ${moneyWithheld ? html`<p class="hint">${t('reports.download.hoursOnly')}</p>` : ''}
    <form class="report-download" method="get" action="${APP_PATH}/reports/export" aria-labelledby="download-heading">
      ${hidden}
      <div class="grid">
        ${select(
          'download-kind',
          'kind',
          t('reports.download.what'),
          'detailed',
          [
            ['detailed', t('reports.download.detailed')],
            ['summary', t('reports.download.summary')],
            ['weekly', t('reports.download.weekly')],
          ],
          {},
        )}
        ${select(
          'download-csv',
          'csv',
          t('reports.download.csv'),
          csvDialectOf(currentReader().language),
          [
            ['comma', t('reports.download.csvComma')],
            ['semicolon', t('reports.download.csvSemicolon')],
          ],
          {},
        )}
      </div>
      <div class="actions">
        <button type="submit" name="format" value="csv" class="secondary">CSV</button>
        <button type="submit" name="format" value="xlsx" class="secondary">Excel</button>
        <button type="submit" name="format" value="pdf" class="secondary">PDF</button>
      </div>
    </form>
  </section>`;
}

function chartSection(report: Report): Html {
  const caption = report.unit === 'day' ? t('reports.chart.byDay') : t('reports.chart.byWeek');
  return html`<section aria-labelledby="chart-heading">
    <h2 id="chart-heading">${caption}</h2>
    <figure class="chart">
      ${barChart(report.bars, report.unit, caption, 'wide')} ${barChart(report.bars, report.unit, caption, 'narrow')}
      <details>
        <summary>${t('reports.chart.asTable')}</summary>
        <table class="rows">
          <thead>
            <tr>
              <th scope="col">${report.unit === 'day' ? t('reports.chart.day') : t('reports.chart.week')}</th>
              <th scope="col">${t('reports.time')}</th>
            </tr>
          </thead>
          <tbody>
            ${report.bars.map(
              (b) =>
                html`<tr>
                  <td data-label="${report.unit === 'day' ? t('reports.chart.day') : t('reports.chart.week')}">
                    ${barName(b, report.unit)}
                  </td>
                  <td data-label="${t('reports.time')}" class="num">${durationOf(b.seconds)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </details>
    </figure>
  </section>`;
}

function summarySection(form: ReportForm, report: Report, money: boolean): Html {
  const s = report.summary;
  const by = groupingOf(isGrouping(s.groupBy) ? s.groupBy : 'project');
  const then = s.subGroupBy && isGrouping(s.subGroupBy) ? groupingOf(s.subGroupBy) : null;
  const share = (seconds: number) =>
    s.totals.durationSec === 0
      ? ''
      : new Intl.NumberFormat(formats().locale, { style: 'percent', maximumFractionDigits: 1 }).format(
          Math.round((seconds / s.totals.durationSec) * 1000) / 1000,
        );
  const cells = (g: Omit<components['schemas']['SummarySubGroup'], 'key' | 'name'>) =>
    html`<td data-label="${t('reports.time')}" class="num">${durationOf(g.durationSec)}</td>
      <td data-label="${t('reports.share')}" class="num">${share(g.durationSec)}</td>
      <td data-label="${t('reports.billable')}" class="num">${durationOf(g.billableSec)}</td>
      ${money ? html`<td data-label="${t('reports.amount')}" class="num">${moneyOf(g.amount, s.currency)}</td>` : ''}`;
  const row = (g: components['schemas']['SummarySubGroup'], level: 'group' | 'sub', names: { label: string; none: string }) =>
    html`<tr class="${level}">
      <th scope="row" data-label="${names.label}">${g.name ?? names.none}</th>
      ${cells(g)}
    </tr>`;
  // The sub-groups left out of a group, in one row (the largest are shown).
  const others = (g: WindowGroup, names: { label: string; key: Grouping }) =>
    g.otherSubGroups
      ? html`<tr class="sub others">
          <th scope="row" data-label="${names.label}">
            ${t('reports.summary.more', { count: g.otherSubGroups.count, what: t(GROUP_WORDS[names.key].many, { count: g.otherSubGroups.count }) })}
          </th>
          ${cells(g.otherSubGroups)}
        </tr>`
      : '';
  const heading = then ? t('reports.summary.byThen', { by: by.label, then: then.label }) : t('reports.summary.by', { by: by.label });
  return html`<section aria-labelledby="summary-heading">
    <h2 id="summary-heading">${heading}</h2>
    ${s.groupBy === 'tag' || s.subGroupBy === 'tag' ? html`<p class="hint">${t('reports.summary.tags')}</p>` : ''}
    ${then && s.groups.some((g) => g.otherSubGroups) ? html`<p class="hint">${t('reports.summary.largest', { by: by.label, count: SUB_GROUPS_SHOWN })}</p>` : ''}
    ${
      s.groupCount === 0
        ? html`<p class="hint">${t('reports.summary.none')}</p>`
        : s.groups.length === 0
          ? html`<p class="hint">
              ${t('reports.summary.noneThisFar', { count: s.groupCount, what: t(GROUP_WORDS[by.key].many, { count: s.groupCount }) })}
              <a href="${linkOf(form, {})}">${t('reports.summary.backToFirst')}</a>
            </p>`
          : html`<table class="rows summary">
                <thead>
                  <tr>
                    <th scope="col">
                      ${by.label}${then ? html` <span class="hint inline">${t('reports.summary.then', { then: then.label })}</span>` : ''}
                    </th>
                    <th scope="col" class="num">${t('reports.time')}</th>
                    <th scope="col" class="num">${t('reports.share')}</th>
                    <th scope="col" class="num">${t('reports.billable')}</th>
                    ${money ? html`<th scope="col" class="num">${t('reports.amount')}</th>` : ''}
                  </tr>
                </thead>
                ${s.groups.map(
                  (g) =>
                    html`<tbody>
                      ${row(g, 'group', by)} ${then ? (g.subGroups ?? []).map((sub) => row(sub, 'sub', then)) : ''}
                      ${then ? others(g, then) : ''}
                    </tbody>`,
                )}
              </table>
              ${groupPager(form, s.groupCount, by.key)}`
    }
  </section>`;
}

/** Which groups the page shows, with the pages before and after (only when there is more than one page). */
function groupPager(form: ReportForm, count: number, grouping: Grouping): Html | '' {
  if (count <= GROUPS_SHOWN) return '';
  const page = Number(form.groups || 1);
  const first = (page - 1) * GROUPS_SHOWN + 1;
  const last = Math.min(count, page * GROUPS_SHOWN);
  const pages = Math.ceil(count / GROUPS_SHOWN);
  return html`<nav class="more" aria-label="${t('reports.summary.pages')}">
    <p>${t('reports.summary.window', { what: t(GROUP_WORDS[grouping].many, { count }), first, last, count })}</p>
    ${
      page > 1
        ? html`<a class="button secondary" href="${linkOf(form, { groups: page === 2 ? '' : String(page - 1) })}#summary-heading"
            >${t('reports.summary.previous', { count: GROUPS_SHOWN })}</a
          >`
        : ''
    }
    ${
      page < pages
        ? html`<a class="button secondary" href="${linkOf(form, { groups: String(page + 1) })}#summary-heading"
            >${t('reports.summary.next', { count: Math.min(GROUPS_SHOWN, count - last) })}</a
          >`
        : ''
    }
  </nav>`;
}

function entriesSection(ctx: Context, form: ReportForm, report: Report, money: boolean): Html {
  const local = (iso: string) => DateTime.fromISO(iso, { zone: ctx.zone });
  const names = new Map((ctx.members ?? []).map((m) => [m.userId, m.name]));
  const whose = form.member === EVERYONE;
  const tagged = report.rows.some((e) => e.tagIds.length > 0);
  const project = (e: EntryRowView) =>
    e.projectName === null
      ? ''
      : html`${e.projectName}${e.taskName ? ` / ${e.taskName}` : ''}${e.clientName ? html` <span class="hint inline">· ${e.clientName}</span>` : ''}`;
  const row = (e: EntryRowView) => {
    const start = local(e.start);
    const clock = (at: DateTime) => formats().clock(at.hour * 60 + at.minute);
    const span = `${clock(start)}–${e.end ? clock(local(e.end)) : ''}`;
    return html`<tr>
      <td data-label="${t('reports.date')}" class="c-date">
        <time datetime="${e.start}">${formats().dayMonth(start.toISODate() as string)}</time>
      </td>
      <td data-label="${t('reports.time')}" class="c-time">${span}</td>
      ${whose ? html`<td data-label="${t('reports.grouping.user')}" class="c-member">${names.get(e.authorId) ?? ''}</td>` : ''}
      <td data-label="${t('reports.description')}" class="c-what">
        ${e.description || html`<span class="hint inline">${t('reports.noDescription')}</span>`}
      </td>
      <td data-label="${t('reports.grouping.project')}" class="c-project">${project(e)}</td>
      ${tagged ? html`<td data-label="${t('reports.tags')}" class="c-tags">${e.tagIds.map((id) => report.tags.get(id) ?? '').join(', ')}</td>` : ''}
      <td data-label="${t('reports.duration')}" class="num c-duration">${durationOf(e.durationSec)}</td>
      ${money ? html`<td data-label="${t('reports.amount')}" class="num c-amount">${e.amount === null ? '' : moneyOf(e.amount, e.currency)}</td>` : ''}
    </tr>`;
  };
  const table = html`<table class="rows detailed">
    <thead>
      <tr>
        <th scope="col">${t('reports.date')}</th>
        <th scope="col">${t('reports.time')}</th>
        ${whose ? html`<th scope="col">${t('reports.grouping.user')}</th>` : ''}
        <th scope="col">${t('reports.description')}</th>
        <th scope="col">${t('reports.grouping.project')}</th>
        ${tagged ? html`<th scope="col">${t('reports.tags')}</th>` : ''}
        <th scope="col" class="num">${t('reports.duration')}</th>
        ${money ? html`<th scope="col" class="num">${t('reports.amount')}</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${report.rows.map(row)}
    </tbody>
  </table>`;
  const more = report.nextCursor
    ? html`<a class="button secondary" href="${linkOf(form, { cursor: report.nextCursor, groups: form.groups })}#entries"
        >${t('reports.moreEntries')}<span class="vh"> ${t('reports.theNext', { count: DETAILED_PAGE })}</span></a
      >`
    : '';
  return html`<section aria-labelledby="entries">
    <h2 id="entries" tabindex="-1">${form.cursor ? t('reports.entriesContinued') : t('reports.entries')}</h2>
    ${report.rows.length === 0 ? html`<p class="hint">${form.cursor ? t('reports.noMoreEntries') : t('reports.noEntries')}</p>` : table}
    <p class="more">
      ${more} ${form.cursor ? html`<a href="${linkOf(form, { groups: form.groups })}#entries">${t('reports.backToFirstEntries')}</a>` : ''}
    </p>
  </section>`;
}
