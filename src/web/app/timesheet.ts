import type { Request, Response, Router } from 'express';
import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import type { EntryRowView, SheetChanges, SheetSaved } from '../../modules/entries/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import type { FieldErrors } from '../kit/fields.js';
import { field, fields, weekOf } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { colourMark } from '../kit/marks.js';
import { isFormRefusal, refusal, spoken } from '../kit/refusal.js';
import { checkDayTotal, durationOf, hoursText, LongDay } from '../kit/times.js';
import { formats, t } from '../../i18n/index.js';
import { APP_PATH } from '../paths.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { appPage } from './page.js';
import { entriesOf, projectChoices, taskChoices, zoneOf } from './week-routes.js';
import { dayColumn, dayHeading, durationHint, weekSpan } from './week.js';
import { type ApprovalStrip, lockedWords, periodStrip, stripOf } from './approval-strip.js';

/** Where a day's first added time starts when the day is empty. */
const DAY_STARTS_AT = { hour: 9 };
/** The form's id (a "Yes, save" in the notice above it belongs to it). */
const FORM = 'timesheet-form';

/** A row: a project and a task (either may be none), its label as it reads, and each day's time. */
interface SheetRow {
  /** `projectId.taskId`, `-` for none: the cells' names carry it. */
  key: string;
  projectId: string | null;
  taskId: string | null;
  color: string | null;
  client: string | null;
  /** The project (and task) as the row reads: `Audit / Fieldwork`, `No project` (in the reader's words). */
  work: string;
  /** Completed time per day (seconds), and the entries of each day's cell. */
  days: number[];
  cells: EntryRowView[][];
  /** A running timer's time per day (0 where none runs). */
  running: number[];
}

interface Sheet {
  session: SessionView;
  week: ReturnType<typeof weekOf>;
  /** The day shown on a phone (one at a time). */
  day: string;
  rows: SheetRow[];
  /** The member's entries of the week (where added time goes follows them). */
  entries: EntryRowView[];
  /** Projects and their tasks without a row this week, for a new row. */
  others: Array<{ key: string; label: string }>;
  sent: Record<string, string>;
  errors: FieldErrors;
  notice: Notice | null;
  /** The days asked about again (over 12 hours), with the day's total: the notice's "Yes, save" confirms them. */
  asked: boolean;
  /** The week's periods and the lock date (decisions §13): their state (submitting is the week page's). */
  approval: ApprovalStrip;
}

const NONE = 'none';
const keyOf = (projectId: string | null, taskId: string | null) => `${projectId ?? NONE}.${taskId ?? NONE}`;
const idsOf = (key: string) => {
  const [project, task] = key.split('.');
  return { projectId: !project || project === NONE ? null : project, taskId: !task || task === NONE ? null : task };
};
const cellName = (row: string, day: string) => `cell:${row}:${day}`;
const wasName = (row: string, day: string) => `was:${row}:${day}`;
/** A row's label as it reads: client, project and task. */
const labelOf = (r: Pick<SheetRow, 'client' | 'work'>) => `${r.client ? `${r.client} · ` : ''}${r.work}`;
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
/** A cell's time as its field shows it (`1:30`, empty for none). */
const shownOf = (seconds: number) => (seconds > 0 ? hoursText(seconds) : '');
const dayName = (d: { start: DateTime }) => dayHeading(d.start);

/**
 * Time the timesheet may take back from a cell (the entries service's `sheetTime`): completed,
 * from the web app, without a description or tags, not invoiced.
 */
const typedHere = (e: EntryRowView) =>
  e.end !== null && e.description === '' && e.tagIds.length === 0 && e.source === 'web' && e.invoiceId === null;

/** The sheet's heading and its week's navigation. */
function sheetHead(s: Sheet, week: string): Html {
  return html`<div class="week-head">
    <h1>${t('timesheet.heading', weekSpan(s.week.start, s.week.end.minus({ days: 1 })))}</h1>
    <nav class="week-nav" aria-label="${t('week.weeks')}">
      <a href="${APP_PATH}/timesheet?date=${s.week.start.minus({ days: 7 }).toISODate()}"
        >${t('week.previous')}<span class="vh"> ${t('week.aWeek')}</span></a
      >
      <a href="${APP_PATH}/timesheet">${t('week.thisWeek')}</a>
      <a href="${APP_PATH}/timesheet?date=${s.week.start.plus({ days: 7 }).toISODate()}"
        >${t('week.next')}<span class="vh"> ${t('week.aWeek')}</span> →</a
      >
      <form method="get" action="${APP_PATH}/timesheet" class="inline">
        <label class="vh" for="sheet-date">${t('week.goTo')}</label>
        <input id="sheet-date" type="date" name="date" value="${week}" />
        <button class="secondary" type="submit">${t('week.go')}</button>
      </form>
      <a class="view" href="${APP_PATH}/week?date=${week}">${t('nav.week')}</a>
    </nav>
  </div>`;
}

function sheetBody(s: Sheet): Html {
  const week = s.week.start.toISODate() as string;
  const days = s.week.days;
  const dayTotal = (i: number) => s.rows.reduce((sum, r) => sum + (r.days[i] ?? 0) + (r.running[i] ?? 0), 0);
  const columns = days.map((_, i) => dayTotal(i));
  const current = (day: string) => (day === s.day ? ' current' : '');
  // A day of a period that waits or was approved, or before the lock date (decisions §13), takes no time: its cells show what it has.
  const held = new Set(
    days
      .filter((d) => lockedWords(s.approval, d.start.toISO() as string) && lockedWords(s.approval, d.end.minus(1).toISO() as string))
      .map((d) => d.key),
  );
  const open = held.size < days.length;
  const cell = (row: SheetRow | null, day: (typeof days)[number], i: number) => {
    const key = row?.key ?? 'new';
    const name = cellName(key, day.key);
    const error = s.errors[name];
    const id = `c-${key.replace('.', '-')}-${day.key}`;
    const seconds = row?.days[i] ?? 0;
    const running = row?.running[i] ?? 0;
    if (running > 0)
      return html`<td class="cell num${current(day.key)}" data-day="${day.key}">
        <span class="had">${hoursText(seconds + running)}</span><span class="hint running">${t('timesheet.timerRuns')}</span>
        ${error ? html`<span class="field-error">${error}</span>` : ''}
      </td>`;
    if (held.has(day.key))
      return html`<td class="cell num held${current(day.key)}" data-day="${day.key}">
        ${seconds > 0 ? html`<span class="had">${hoursText(seconds)}</span>` : ''}
      </td>`;
    const shown = shownOf(seconds);
    // What was typed stays after a refusal; a cell left as it was shows its time as it is now.
    const typed = s.sent[name];
    const value = typed !== undefined && typed.trim() !== (s.sent[wasName(key, day.key)] ?? '').trim() ? typed : shown;
    return html`<td class="cell num${current(day.key)}" data-day="${day.key}">
      <label class="vh" for="${id}">${row ? labelOf(row) : t('timesheet.newRow')}, ${dayName(day)}</label>
      <input
        id="${id}"
        name="${name}"
        type="text"
        inputmode="decimal"
        size="5"
        autocomplete="off"
        value="${value}"
        ${error ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}
      />${row ? html`<input type="hidden" name="${wasName(key, day.key)}" value="${shown}" />` : ''}
      ${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ''}
    </td>`;
  };
  return html`${sheetHead(s, week)}
    ${periodStrip(s.approval, { csrfToken: s.session.csrfToken, week, forms: false, first: s.week.start.toMillis(), last: s.week.end.toMillis() })}
    ${
      s.notice
        ? html`<div class="notice ${s.notice.kind}" role="${s.notice.kind === 'error' ? 'alert' : 'status'}">
            ${s.notice.body}
            ${s.asked ? html`<button type="submit" form="${FORM}" name="longDay" value="true">${t('timesheet.yesSave')}</button>` : ''}
          </div>`
        : ''
    }
    <p class="hint">${t('timesheet.hint', { hint: durationHint() })}</p>
    <nav class="day-tabs" aria-label="${t('timesheet.days')}">
      ${days.map((d) => html`<a href="${APP_PATH}/timesheet?date=${week}&amp;day=${d.key}" ${d.key === s.day ? html`aria-current="true"` : ''}>${dayColumn(d.start)}</a>`)}
    </nav>
    <form id="${FORM}" method="post" action="${APP_PATH}/timesheet" aria-label="${t('timesheet.title')}">
      ${csrfField(s.session.csrfToken)}<input type="hidden" name="week" value="${week}" /><input
        type="hidden"
        name="day"
        value="${s.day}"
      />
      <div class="scroll">
        <table class="rows sheet">
          <thead>
            <tr>
              <th scope="col">${t('timesheet.projectTask')}</th>
              ${days.map((d) => html`<th scope="col" class="cell num${current(d.key)}" data-day="${d.key}">${dayColumn(d.start)}</th>`)}
              <th scope="col" class="num">${t('reports.total')}</th>
            </tr>
          </thead>
          <tbody>
            ${s.rows.map(
              (r) =>
                html`<tr>
                  <th scope="row">
                    ${r.projectId ? colourMark(r.color, 'dot') : ''}${r.client ? html`<span class="client">${r.client}</span> · ` : ''}${r.work}
                  </th>
                  ${days.map((d, i) => cell(r, d, i))}
                  <td class="num">${hoursText(r.days.reduce((a, b) => a + b, 0) + r.running.reduce((a, b) => a + b, 0))}</td>
                </tr>`,
            )}
            ${
              s.others.length > 0
                ? html`<tr class="new-row">
                    <th scope="row">
                      <label class="vh" for="sheet-new">${t('timesheet.another')}</label>
                      <select id="sheet-new" name="newRow">
                        <option value="">${t('timesheet.another')}…</option>
                        ${s.others.map((o) => html`<option value="${o.key}" ${s.sent.newRow === o.key ? html`selected` : ''}>${o.label}</option>`)}
                      </select>
                      ${s.errors.newRow ? html`<span class="field-error">${s.errors.newRow}</span>` : ''}
                    </th>
                    ${days.map((d, i) => cell(null, d, i))}
                    <td></td>
                  </tr>`
                : ''
            }
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">${t('reports.total')}</th>
              ${columns.map((c, i) => html`<td class="num cell${current(days[i]?.key ?? '')}" data-day="${days[i]?.key ?? ''}">${hoursText(c)}</td>`)}
              <td class="num"><strong>${hoursText(columns.reduce((a, b) => a + b, 0))}</strong></td>
            </tr>
          </tfoot>
        </table>
      </div>
      ${open ? html`<div class="actions"><button type="submit">${t('common.save')}</button></div>` : ''}
    </form>`;
}

/** One cell as typed: its row (null: the new row), its day, the time it should hold and holds now. */
interface Change {
  name: string;
  key: string;
  day: number;
  target: number;
  now: number;
}

/**
 * How a changed cell maps to entries (docs/pages.md, "The timesheet"): more time is one new
 * entry of the difference after the day's last entry (or from 09:00); less is taken from the
 * cell's time typed here (`typedHere`), the latest first, deleting whole entries and ending the
 * last one earlier. What the cell cannot give back is refused at it.
 */
function planOf(sheet: Sheet, changes: Change[], zone: string): { plan: SheetChanges; errors: FieldErrors } {
  const plan: SheetChanges = { add: [], shorten: [], remove: [] };
  const errors: FieldErrors = {};
  const ends = sheet.week.days.map((d) => {
    const last = sheet.entries
      .filter((e) => e.end !== null && Date.parse(e.start) >= d.start.toMillis() && Date.parse(e.start) < d.end.toMillis())
      .reduce((max, e) => Math.max(max, Date.parse(e.end as string)), 0);
    return last > 0 ? last : d.start.set(DAY_STARTS_AT).toMillis();
  });
  for (const change of changes) {
    const delta = change.target - change.now;
    if (delta > 0) {
      const start = ends[change.day] as number;
      ends[change.day] = start + delta * 1000;
      plan.add.push({
        description: '',
        ...idsOf(change.key),
        start: new Date(start).toISOString(),
        end: new Date(start + delta * 1000).toISOString(),
        timeZone: zone,
        source: 'web',
      });
      continue;
    }
    const row = sheet.rows.find((r) => r.key === change.key);
    const typed = (row?.cells[change.day] ?? []).filter(typedHere).sort((a, b) => Date.parse(b.start) - Date.parse(a.start));
    let need = -delta;
    const can = typed.reduce((sum, e) => sum + e.durationSec, 0);
    if (can < need) {
      errors[change.name] = t('timesheet.notBelow', { time: hoursText(change.now - can) });
      continue;
    }
    for (const e of typed) {
      if (need <= 0) break;
      if (e.durationSec <= need) {
        plan.remove.push({ id: e.id, updatedAt: e.updatedAt });
        need -= e.durationSec;
      } else {
        plan.shorten.push({ id: e.id, updatedAt: e.updatedAt, end: new Date(Date.parse(e.end as string) - need * 1000).toISOString() });
        need = 0;
      }
    }
  }
  return { plan, errors };
}

/** The week's sheet as it is now: its rows, each day's time, what a new row may be. */
function sheetOf(
  deps: WebDeps,
  req: Request,
  session: SessionView,
  sent: Record<string, string>,
  errors: FieldErrors,
  notice: Notice | null,
): Sheet {
  const { zone, weekStart } = zoneOf(deps, session);
  const now = deps.clock.now();
  const date = typeof req.query.date === 'string' ? req.query.date : field(req, 'week') || undefined;
  const week = weekOf(date, zone, weekStart, now);
  const entries = entriesOf(deps, session, week.start.toISO() as string, week.end.toISO() as string, [session.userId]);
  const rows = new Map<string, SheetRow>();
  for (const e of entries) {
    const day = week.days.findIndex((d) => Date.parse(e.start) >= d.start.toMillis() && Date.parse(e.start) < d.end.toMillis());
    if (day < 0) continue;
    const key = keyOf(e.projectId, e.taskId);
    let row = rows.get(key);
    if (!row) {
      const work = `${e.projectName ?? t('timer.noProject')}${e.taskName ? ` / ${e.taskName}` : ''}`;
      const zeros = () => week.days.map(() => 0);
      row = {
        key,
        projectId: e.projectId,
        taskId: e.taskId,
        color: e.projectColor,
        client: e.clientName,
        work,
        days: zeros(),
        running: zeros(),
        cells: week.days.map(() => []),
      };
      rows.set(key, row);
    }
    if (e.end === null) row.running[day] = (row.running[day] ?? 0) + Math.max(0, Math.floor((now - Date.parse(e.start)) / 1000));
    else {
      row.days[day] = (row.days[day] ?? 0) + e.durationSec;
      row.cells[day]?.push(e);
    }
  }
  // Rows in the order their labels read; time without a project last.
  const ordered = [...rows.values()].sort((a, b) =>
    a.projectId === null ? 1 : b.projectId === null ? -1 : collator.compare(labelOf(a), labelOf(b)),
  );
  const projects = projectChoices(deps, session);
  const tasks = taskChoices(deps, session).filter((task) => !task.archived);
  const others = projects
    .flatMap((p) => {
      const client = p.clientName ? `${p.clientName} · ` : '';
      return [
        { key: keyOf(p.id, null), label: `${client}${p.name}` },
        ...tasks
          .filter((task) => task.projectId === p.id)
          .map((task) => ({ key: keyOf(p.id, task.id), label: `${client}${p.name} / ${task.name}` })),
      ];
    })
    .filter((o) => !rows.has(o.key))
    .sort((a, b) => collator.compare(a.label, b.label));
  const today = DateTime.fromMillis(now, { zone }).toISODate() as string;
  const asked = typeof req.query.day === 'string' ? req.query.day : field(req, 'day');
  const day = week.days.some((d) => d.key === asked)
    ? asked
    : week.days.some((d) => d.key === today)
      ? today
      : (week.days[0]?.key as string);
  const approval = stripOf(deps, session, week.start.toISODate() as string, week.end.minus({ days: 1 }).toISODate() as string);
  return { session, week, day, rows: ordered, entries, others, sent, errors, notice, asked: false, approval };
}

/** The cells typed differently from how the page showed them, each with the time it should hold; refusals at their cells. */
function cellChanges(sheet: Sheet, sent: Record<string, string>): { changes: Change[]; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const changes: Change[] = [];
  for (const [name, text] of Object.entries(sent)) {
    const match = /^cell:([^:]+):(\d{4}-\d{2}-\d{2})$/.exec(name);
    if (!match) continue;
    const day = sheet.week.days.findIndex((d) => d.key === match[2]);
    if (day < 0) continue;
    const typed = text.trim();
    if (match[1] === 'new') {
      if (typed === '') continue;
      if (!sheet.others.some((o) => o.key === sent.newRow)) {
        errors[name] = sheet.rows.some((r) => r.key === sent.newRow) ? t('timesheet.ownRow') : t('timesheet.chooseRow');
        continue;
      }
    }
    const key = match[1] === 'new' ? (sent.newRow as string) : (match[1] as string);
    const row = sheet.rows.find((r) => r.key === key);
    const now = row?.days[day] ?? 0;
    if (match[1] !== 'new') {
      const was = (sent[wasName(key, match[2] as string)] ?? '').trim();
      if (typed === was) continue;
      if ((row?.running[day] ?? 0) > 0) {
        errors[name] = t('timesheet.timerInCell');
        continue;
      }
      if (was !== shownOf(now)) {
        errors[name] = t('timesheet.changed', { time: shownOf(now) || t('timesheet.nothing') });
        continue;
      }
    }
    try {
      const target = typed === '' ? 0 : durationOf(typed, name);
      if (target !== now) changes.push({ name, key, day, target, now });
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      errors[name] = spoken(error);
    }
  }
  return { changes, errors };
}

/** Each day that gains time: over 24 hours refused at its cells, over 12 asked again (docs/pages.md). */
function dayLimits(sheet: Sheet, changes: Change[], confirmed: boolean, errors: FieldErrors): { asked: boolean; notices: string[] } {
  let asked = false;
  const notices: string[] = [];
  sheet.week.days.forEach((d, i) => {
    const gained = changes.filter((c) => c.day === i && c.target > c.now);
    const delta = changes.filter((c) => c.day === i).reduce((sum, c) => sum + c.target - c.now, 0);
    const first = gained[0];
    if (first === undefined || delta <= 0) return;
    const total = sheet.rows.reduce((sum, r) => sum + (r.days[i] ?? 0) + (r.running[i] ?? 0), 0) + delta;
    try {
      checkDayTotal(total, dayName(d), confirmed, first.name);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error instanceof LongDay) asked = true;
      else for (const c of gained) errors[c.name] = spoken(error);
      notices.push(spoken(error));
    }
  });
  return { asked, notices };
}

/** The timesheet: rows of project and task × the week's days; a cell's time is typed, changed or cleared; at 390 px one day at a time. */
export function timesheetRoutes(router: Router, deps: WebDeps): void {
  const { services } = deps;

  const render = (res: Response, status: number, sheet: Sheet) =>
    res
      .status(status)
      .type('html')
      .end(appPage(deps, sheet.session, { title: t('timesheet.title'), current: 'week', body: sheetBody(sheet) }));

  router.get('/timesheet', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    render(res, 200, sheetOf(deps, req, signed.session, {}, {}, deps.flashes.take(signed.secret)));
  });

  router.post('/timesheet', (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    const { session } = signed;
    const sent = Object.fromEntries(
      Object.entries(req.body as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    const sheet = sheetOf(deps, req, session, sent, {}, null);
    const { zone } = zoneOf(deps, session);
    // Every cell, read first: a refused one is shown at its cell and nothing is saved.
    let read: { changes: Change[]; errors: FieldErrors };
    try {
      read = cellChanges(sheet, sent);
    } catch (error) {
      return next(error);
    }
    const { changes, errors } = read;
    const { asked, notices } = dayLimits(sheet, changes, sent.longDay === 'true', errors);
    const planned = planOf(sheet, changes, zone);
    Object.assign(errors, planned.errors);
    if (Object.keys(errors).length > 0)
      return render(res, 400, {
        ...sheet,
        errors,
        notice: { kind: 'error', body: t('timesheet.someCells') },
      });
    if (asked) return render(res, 409, { ...sheet, asked: true, notice: { kind: 'error', body: notices.join(' ') } });
    const { plan } = planned;
    const week = field(req, 'week');
    if (plan.add.length + plan.shorten.length + plan.remove.length === 0) {
      deps.flashes.put(signed.secret, { kind: 'ok', body: t('timesheet.nothingChanged') });
      return res.redirect(303, `${APP_PATH}/timesheet?date=${week}&day=${sheet.day}`);
    }
    let saved: SheetSaved;
    try {
      saved = services.entries.saveSheet(session.actor, plan);
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const refused = refusal(error);
      return render(res, refused.status, { ...sheet, notice: { kind: 'error', body: refused.message } });
    }
    deps.flashes.put(signed.secret, undoNotice(session, saved, changes.length, week, sheet.day));
    res.redirect(303, `${APP_PATH}/timesheet?date=${week}&day=${sheet.day}`);
  });

  undoRoute(router, deps);
}

/** Undo: a save of the sheet is taken back, all or none, each entry only as the save left it. */
function undoRoute(router: Router, deps: WebDeps): void {
  const { services } = deps;
  router.post('/timesheet/undo', (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    const versions = (name: string) =>
      fields(req, name).flatMap((text) => {
        const [id, updatedAt, end] = text.split(' ');
        return id && updatedAt ? [{ id, updatedAt, end: end ?? '' }] : [];
      });
    const saved: SheetSaved = {
      added: versions('added').map(({ id, updatedAt }) => ({ id, updatedAt })),
      shortened: versions('shortened').filter((s) => s.end !== ''),
      removed: fields(req, 'removed').filter((id) => id !== ''),
    };
    let notice: Notice;
    try {
      services.entries.undoSheet(signed.session.actor, saved);
      notice = { kind: 'ok', body: t('timesheet.undone') };
    } catch (error) {
      if (!(error instanceof DomainError) || !['conflict', 'not_found', 'invalid'].includes(error.code)) return next(error);
      // Its week submitted or approved, or locked, since (decisions §13): said as the approvals service says it.
      const held = error.code === 'conflict' && error.field !== 'version';
      notice = {
        kind: 'error',
        body: held
          ? t('timesheet.notUndoneHeld', {
              // English goes on in lower case after the colon; German keeps its capitals (its nouns).
              why: formats().language === 'en' ? `${spoken(error).charAt(0).toLowerCase()}${spoken(error).slice(1)}` : spoken(error),
            })
          : t('timesheet.notUndone'),
      };
    }
    deps.flashes.put(signed.secret, notice);
    const week = field(req, 'week');
    const day = field(req, 'day');
    res.redirect(
      303,
      `${APP_PATH}/timesheet?date=${/^\d{4}-\d{2}-\d{2}$/.test(week) ? week : ''}&day=${/^\d{4}-\d{2}-\d{2}$/.test(day) ? day : ''}`,
    );
  });
}

/** What a save changed, with its Undo (a form: works without the script; gone from the page after 10 seconds). */
function undoNotice(session: SessionView, saved: SheetSaved, cells: number, week: string, day: string): Notice {
  return {
    kind: 'ok',
    body: html`${t('timesheet.saved', { count: cells })}
      <form class="inline undo" method="post" action="${APP_PATH}/timesheet/undo" data-undo-ms="10000">
        ${csrfField(session.csrfToken)}<input type="hidden" name="week" value="${week}" /><input type="hidden" name="day" value="${day}" />
        ${saved.added.map((e) => html`<input type="hidden" name="added" value="${e.id} ${e.updatedAt}" />`)}
        ${saved.shortened.map((e) => html`<input type="hidden" name="shortened" value="${e.id} ${e.updatedAt} ${e.end}" />`)}
        ${saved.removed.map((id) => html`<input type="hidden" name="removed" value="${id}" />`)}
        <button class="secondary" type="submit">${t('week.undo')}</button>
      </form>`,
  };
}
