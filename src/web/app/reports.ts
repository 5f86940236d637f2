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
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { refusal, statusOf } from '../kit/refusal.js';
import { type Html, html } from '../kit/html.js';
import { clockOf } from '../kit/forms.js';
import { appPage } from './page.js';
import { barChart, barName, type ChartBar, chartBuckets, chartUnit } from './report-chart.js';
import type { WebDeps as AppDeps } from '../deps.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { APP_PATH } from '../paths.js';
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

/** The groupings the page offers (the API's own values), with what a person calls them. */
const GROUPINGS: Record<Grouping, { label: string; none: string }> = {
  project: { label: 'Project', none: '(no project)' },
  client: { label: 'Client', none: '(no client)' },
  task: { label: 'Task', none: '(no task)' },
  tag: { label: 'Tag', none: '(no tag)' },
  user: { label: 'Member', none: '(no member)' },
};
const isGrouping = (value: string): value is Grouping => Object.hasOwn(GROUPINGS, value);

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
    { label: 'This week', ...span(weekFirst, weekFirst.plus({ days: 6 })) },
    { label: 'Last week', ...span(weekFirst.minus({ days: 7 }), weekFirst.minus({ days: 1 })) },
    { label: 'This month', ...span(today.startOf('month'), today.endOf('month')) },
    { label: 'Last month', ...span(today.minus({ months: 1 }).startOf('month'), today.minus({ months: 1 }).endOf('month')) },
    { label: 'This year', ...span(today.startOf('year'), today.endOf('year')) },
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
      errors[name] = `${name}: "${form[name]}" is not a day such as 2026-11-23.`;
  if (!isGrouping(form.groupBy)) errors.groupBy = `groupBy: "${form.groupBy}" is not one of project, client, task, tag or member.`;
  if (form.subGroupBy !== '' && !isGrouping(form.subGroupBy))
    errors.subGroupBy = `subGroupBy: "${form.subGroupBy}" is not one of project, client, task, tag or member.`;
  if (ctx.members !== null && form.member !== EVERYONE && !ctx.members.some((m) => m.userId === form.member))
    errors.member = 'member: there is no such member in this workspace.';
  Object.assign(errors, filterErrors(form, ctx.choices));
  if (form.groups !== '' && !/^[1-9]\d{0,5}$/.test(form.groups))
    errors.form = `groups: "${form.groups}" is not a page number such as 2. Open the report again from the form.`;
  return errors;
}

/** The service's refusal at its field (the report's parameters by their API names; members are the form's `member`). */
export function refusalOf(error: DomainError): { status: number; errors: FieldErrors } {
  if (error.code === 'money_visibility_required') {
    return {
      status: statusOf(error),
      errors: {
        member:
          "You may see your colleagues' time but not what it is worth, and a report shows both. Choose yourself, or ask an owner of the workspace to let you see colleagues' money.",
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
    .end(appPage(deps, ctx.session, { title: 'Reports', current: 'reports', body: reportBody(ctx, form, errors, report) }));
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

function select(id: string, name: string, label: string, value: string, options: Array<[string, string]>, errors: FieldErrors): Html {
  return html`<div class="field">
    <label for="${id}">${label}</label>
    <select id="${id}" name="${name}" ${invalidAt(id, errors[name])}>
      ${options.map(([v, text]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${text}</option>`)}
    </select>
    ${errorAt(id, errors[name])}
  </div>`;
}

/** The form: the range (and quick ranges), the two groupings, whose time. */
function reportForm(ctx: Context, form: ReportForm, errors: FieldErrors): Html {
  const groupings = Object.entries(GROUPINGS).map(([v, g]) => [v, g.label] as [string, string]);
  const day = (name: 'from' | 'to', label: string) =>
    html`<div class="field">
      <label for="report-${name}">${label}</label>
      <input id="report-${name}" type="date" name="${name}" value="${form[name]}" required ${invalidAt(`report-${name}`, errors[name])} />
      ${errorAt(`report-${name}`, errors[name])}
    </div>`;
  const members = ctx.members;
  return html`<form class="report-form" method="get" action="${APP_PATH}/reports" aria-label="Report">
      <div class="grid">
        ${day('from', 'From')} ${day('to', 'To (included)')}
        ${select('report-group', 'groupBy', 'Group by', form.groupBy, groupings, errors)}
        ${select('report-subgroup', 'subGroupBy', 'Then by', form.subGroupBy, [['', 'Nothing'], ...groupings], errors)}
        ${
          members
            ? select(
                'report-member',
                'member',
                'Whose time',
                form.member,
                [
                  [ctx.session.userId, 'Mine'],
                  ...members.filter((m) => m.userId !== ctx.session.userId).map((m) => [m.userId, m.name] as [string, string]),
                  [EVERYONE, 'Everyone'],
                ],
                errors,
              )
            : ''
        }
      </div>
      ${filterFields(form, ctx.choices, errors)}
      <label class="check rounded-choice" for="report-rounded"
        ><input id="report-rounded" type="checkbox" name="rounded" value="1" ${form.rounded ? html`checked` : ''} />
        <span>Round each entry as invoices do <span class="hint inline">(its client’s rule, else the workspace’s)</span></span></label
      >
      <div class="actions"><button type="submit">Show</button></div>
      ${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
    </form>
    <nav class="ranges" aria-label="Ranges">
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

const moneyFormats = new Map<string, Intl.NumberFormat>();
/** An amount in its currency (one formatter per currency: making one costs more than using it). */
const moneyOf = (amount: number, currency: string) => {
  let format = moneyFormats.get(currency);
  if (!format) moneyFormats.set(currency, (format = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' })));
  return format.format(amount);
};

/** The page: the form, then (when served) the totals, the chart, the summary and the entries. */
function reportBody(ctx: Context, form: ReportForm, errors: FieldErrors, report: Report | null): Html {
  const heading = html`<div class="report-head">
    <h1>Reports</h1>
    <p class="hint">Days and times in ${ctx.zone}.</p>
  </div>`;
  if (!report) return html`${heading}${reportForm(ctx, form, errors)}`;
  const s = report.summary;
  // Money stands only where the report has any: the service has withheld what the member may not see.
  const money = !report.moneyWithheld && s.totals.amount !== 0;
  const narrowed = filterWords(form, ctx.choices);
  const last = DateTime.fromISO(form.to).toFormat('d LLL yyyy');
  const first = DateTime.fromISO(form.from).toFormat(form.from.slice(0, 4) === form.to.slice(0, 4) ? 'd LLL' : 'd LLL yyyy');
  return html`${heading}${reportForm(ctx, form, errors)}
    <section aria-labelledby="totals-heading">
      <h2 id="totals-heading">${form.from === form.to ? last : `${first} – ${last}`}</h2>
      ${narrowed.length > 0 ? html`<p class="hint narrowed">Only entries of: ${narrowed.join(' · ')}.</p>` : ''}
      ${report.rounding ? html`<p class="hint rounded-rule">${roundingSentence(report.rounding)}</p>` : ''}
      ${
        report.moneyWithheld
          ? html`<p class="hint">
              Hours only: you may see your colleagues' time, not what it is worth (an owner can change that on the Members page).
            </p>`
          : ''
      }
      <ul class="report-totals">
        <li><span class="hint">Total</span><strong>${clockOf(s.totals.durationSec)}</strong></li>
        <li><span class="hint">Billable</span><strong>${clockOf(s.totals.billableSec)}</strong></li>
        ${money ? html`<li class="amount"><span class="hint">Amount</span><strong>${moneyOf(s.totals.amount, s.currency)}</strong></li>` : ''}
        <li><span class="hint">Entries</span><strong>${s.totals.entryCount}</strong></li>
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
    <h2 id="download-heading">Download</h2>
    ${moneyWithheld ? html`<p class="hint">Hours only, as on this page.</p>` : ''}
    <form class="report-download" method="get" action="${APP_PATH}/reports/export" aria-labelledby="download-heading">
      ${hidden}
      <div class="grid">
        ${select(
          'download-kind',
          'kind',
          'What',
          'detailed',
          [
            ['detailed', 'Entries (every one)'],
            ['summary', 'Summary (every group)'],
            ['weekly', 'Timesheet (by week and day)'],
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
  const caption = `Hours by ${report.unit}`;
  return html`<section aria-labelledby="chart-heading">
    <h2 id="chart-heading">${caption}</h2>
    <figure class="chart">
      ${barChart(report.bars, report.unit, caption, 'wide')} ${barChart(report.bars, report.unit, caption, 'narrow')}
      <details>
        <summary>The chart as a table</summary>
        <table class="rows">
          <thead>
            <tr>
              <th scope="col">${report.unit === 'day' ? 'Day' : 'Week'}</th>
              <th scope="col">Time</th>
            </tr>
          </thead>
          <tbody>
            ${report.bars.map(
              (b) =>
                html`<tr>
                  <td data-label="${report.unit === 'day' ? 'Day' : 'Week'}">${barName(b, report.unit)}</td>
                  <td data-label="Time" class="num">${clockOf(b.seconds)}</td>
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
  const by = GROUPINGS[s.groupBy as Grouping] ?? GROUPINGS.project;
  const then = s.subGroupBy ? (GROUPINGS[s.subGroupBy as Grouping] ?? null) : null;
  const share = (seconds: number) =>
    s.totals.durationSec === 0 ? '' : `${Math.round((seconds / s.totals.durationSec) * 1000) / 10}%`.replace('.0%', '%');
  const cells = (g: Omit<components['schemas']['SummarySubGroup'], 'key' | 'name'>) =>
    html`<td data-label="Time" class="num">${clockOf(g.durationSec)}</td>
      <td data-label="Share" class="num">${share(g.durationSec)}</td>
      <td data-label="Billable" class="num">${clockOf(g.billableSec)}</td>
      ${money ? html`<td data-label="Amount" class="num">${moneyOf(g.amount, s.currency)}</td>` : ''}`;
  const row = (g: components['schemas']['SummarySubGroup'], level: 'group' | 'sub', names: { label: string; none: string }) =>
    html`<tr class="${level}">
      <th scope="row" data-label="${names.label}">${g.name ?? names.none}</th>
      ${cells(g)}
    </tr>`;
  // The sub-groups left out of a group, in one row (the largest are shown).
  const others = (g: WindowGroup, names: { label: string }) =>
    g.otherSubGroups
      ? html`<tr class="sub others">
          <th scope="row" data-label="${names.label}">
            ${g.otherSubGroups.count} more ${plural(g.otherSubGroups.count, names.label.toLowerCase())}
          </th>
          ${cells(g.otherSubGroups)}
        </tr>`
      : '';
  return html`<section aria-labelledby="summary-heading">
    <h2 id="summary-heading">By ${by.label.toLowerCase()}${then ? `, then ${then.label.toLowerCase()}` : ''}</h2>
    ${
      s.groupBy === 'tag' || s.subGroupBy === 'tag'
        ? html`<p class="hint">An entry with several tags counts under each of them; the totals count it once.</p>`
        : ''
    }
    ${then && s.groups.some((g) => g.otherSubGroups) ? html`<p class="hint">Under each ${by.label.toLowerCase()}, its ${SUB_GROUPS_SHOWN} largest by time; the rest in one row.</p>` : ''}
    ${
      s.groupCount === 0
        ? html`<p class="hint">No time tracked in this range.</p>`
        : s.groups.length === 0
          ? html`<p class="hint">
              This report has ${s.groupCount} ${plural(s.groupCount, by.label.toLowerCase())}; there are none this far.
              <a href="${linkOf(form, {})}">Back to the first</a>
            </p>`
          : html`<table class="rows summary">
                <thead>
                  <tr>
                    <th scope="col">${by.label}${then ? html` <span class="hint inline">then ${then.label.toLowerCase()}</span>` : ''}</th>
                    <th scope="col" class="num">Time</th>
                    <th scope="col" class="num">Share</th>
                    <th scope="col" class="num">Billable</th>
                    ${money ? html`<th scope="col" class="num">Amount</th>` : ''}
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
              ${groupPager(form, s.groupCount, by.label.toLowerCase())}`
    }
  </section>`;
}

const capitalised = (text: string) => `${text.slice(0, 1).toUpperCase()}${text.slice(1)}`;
const plural = (n: number, noun: string) => (n === 1 ? noun : noun.endsWith('y') ? `${noun.slice(0, -1)}ies` : `${noun}s`);

/** Which groups the page shows, with the pages before and after (only when there is more than one page). */
function groupPager(form: ReportForm, count: number, noun: string): Html | '' {
  if (count <= GROUPS_SHOWN) return '';
  const page = Number(form.groups || 1);
  const first = (page - 1) * GROUPS_SHOWN + 1;
  const last = Math.min(count, page * GROUPS_SHOWN);
  const pages = Math.ceil(count / GROUPS_SHOWN);
  return html`<nav class="more" aria-label="Pages of the summary">
    <p>${capitalised(plural(count, noun))} ${first}–${last} of ${count}, by name.</p>
    ${
      page > 1
        ? html`<a class="button secondary" href="${linkOf(form, { groups: page === 2 ? '' : String(page - 1) })}#summary-heading"
            >Previous ${GROUPS_SHOWN}</a
          >`
        : ''
    }
    ${
      page < pages
        ? html`<a class="button secondary" href="${linkOf(form, { groups: String(page + 1) })}#summary-heading"
            >Next ${Math.min(GROUPS_SHOWN, count - last)}</a
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
    const span = `${start.toFormat('HH:mm')}–${e.end ? local(e.end).toFormat('HH:mm') : ''}`;
    return html`<tr>
      <td data-label="Date" class="c-date"><time datetime="${e.start}">${start.toFormat('ccc d LLL')}</time></td>
      <td data-label="Time" class="c-time">${span}</td>
      ${whose ? html`<td data-label="Member" class="c-member">${names.get(e.authorId) ?? ''}</td>` : ''}
      <td data-label="Description" class="c-what">${e.description || html`<span class="hint inline">(no description)</span>`}</td>
      <td data-label="Project" class="c-project">${project(e)}</td>
      ${tagged ? html`<td data-label="Tags" class="c-tags">${e.tagIds.map((id) => report.tags.get(id) ?? '').join(', ')}</td>` : ''}
      <td data-label="Duration" class="num c-duration">${clockOf(e.durationSec)}</td>
      ${money ? html`<td data-label="Amount" class="num c-amount">${e.amount === null ? '' : moneyOf(e.amount, e.currency)}</td>` : ''}
    </tr>`;
  };
  const table = html`<table class="rows detailed">
    <thead>
      <tr>
        <th scope="col">Date</th>
        <th scope="col">Time</th>
        ${whose ? html`<th scope="col">Member</th>` : ''}
        <th scope="col">Description</th>
        <th scope="col">Project</th>
        ${tagged ? html`<th scope="col">Tags</th>` : ''}
        <th scope="col" class="num">Duration</th>
        ${money ? html`<th scope="col" class="num">Amount</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${report.rows.map(row)}
    </tbody>
  </table>`;
  const more = report.nextCursor
    ? html`<a class="button secondary" href="${linkOf(form, { cursor: report.nextCursor, groups: form.groups })}#entries"
        >More entries<span class="vh"> (the next ${DETAILED_PAGE})</span></a
      >`
    : '';
  return html`<section aria-labelledby="entries">
    <h2 id="entries" tabindex="-1">Entries${form.cursor ? ' (continued)' : ''}</h2>
    ${report.rows.length === 0 ? html`<p class="hint">${form.cursor ? 'No more entries.' : 'No entries in this range.'}</p>` : table}
    <p class="more">
      ${more} ${form.cursor ? html`<a href="${linkOf(form, { groups: form.groups })}#entries">Back to the first entries</a>` : ''}
    </p>
  </section>`;
}
