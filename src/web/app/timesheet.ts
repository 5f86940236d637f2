import type { Request, Response, Router } from 'express';
import { DomainError } from '../../errors.js';
import { DateTime } from 'luxon';
import type { EntryRowView } from '../../modules/entries/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import type { FieldErrors } from '../kit/fields.js';
import { field, fields, weekOf } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { colourMark } from '../kit/marks.js';
import { isFormRefusal, refusal, spoken } from '../kit/refusal.js';
import { durationOf, hoursText } from '../kit/times.js';
import { APP_PATH } from '../paths.js';
import { type SignedIn, signedOf } from '../session/guard.js';
import { appPage } from './page.js';
import type { ProjectChoice } from './pickers.js';
import { entriesOf, projectChoices, zoneOf } from './week-routes.js';
import { type ApprovalStrip, lockedWords, periodStrip, stripOf } from './approvals.js';

/** Where a day's first added time starts when the day is empty. */
const DAY_STARTS_AT = { hour: 9 };

interface Sheet {
  session: SessionView;
  week: ReturnType<typeof weekOf>;
  /** The day shown on a phone (one at a time). */
  day: string;
  rows: Array<{ key: string; project: ProjectChoice | null; days: number[] }>;
  /** Projects without time this week, for a new row. */
  others: ProjectChoice[];
  sent: Record<string, string>;
  errors: FieldErrors;
  notice: Notice | null;
  /** The week's periods and the lock date (decisions §13): their state (submitting is the week page's). */
  approval: ApprovalStrip;
}

const cellName = (row: string, day: string) => `cell:${row}:${day}`;

function sheetBody(s: Sheet): Html {
  const week = s.week.start.toISODate() as string;
  const days = s.week.days;
  const columns = days.map((_, i) => s.rows.reduce((sum, r) => sum + (r.days[i] ?? 0), 0));
  // A day of a period that waits or was approved, or before the lock date (decisions §13), takes no time: its cells show what it has.
  const held = new Set(
    days
      .filter((d) => lockedWords(s.approval, d.start.toISO() as string) && lockedWords(s.approval, d.end.minus(1).toISO() as string))
      .map((d) => d.key),
  );
  const open = held.size < days.length;
  const cell = (row: string, day: string, seconds: number, label: string) => {
    const name = cellName(row, day);
    const error = s.errors[name];
    const id = `c-${row}-${day}`;
    const had = seconds > 0 ? html`<span class="had">${hoursText(seconds)}</span>` : '';
    if (held.has(day)) return html`<td class="cell held${day === s.day ? ' current' : ''}" data-day="${day}">${had}</td>`;
    return html`<td class="cell${day === s.day ? ' current' : ''}" data-day="${day}">
      ${had}
      <label class="vh" for="${id}">Add to ${label} on ${day}</label>
      <input
        id="${id}"
        name="${name}"
        type="text"
        inputmode="text"
        size="5"
        placeholder="+"
        value="${s.sent[name] ?? ''}"
        ${error ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}
      />
      ${error ? html`<span class="field-error" id="${id}-error">${error}</span>` : ''}
    </td>`;
  };
  return html`<div class="week-head">
      <h1>Timesheet: ${s.week.start.toFormat('d LLL')} – ${s.week.end.minus({ days: 1 }).toFormat('d LLL yyyy')}</h1>
      <nav class="week-nav" aria-label="Weeks">
        <a href="${APP_PATH}/timesheet?date=${s.week.start.minus({ days: 7 }).toISODate()}">← Previous<span class="vh"> week</span></a>
        <a href="${APP_PATH}/timesheet">This week</a>
        <a href="${APP_PATH}/timesheet?date=${s.week.start.plus({ days: 7 }).toISODate()}">Next<span class="vh"> week</span> →</a>
        <a class="view" href="${APP_PATH}/week?date=${week}">Week</a>
      </nav>
    </div>
    ${periodStrip(s.approval, { csrfToken: s.session.csrfToken, week, forms: false, first: s.week.start.toMillis(), last: s.week.end.toMillis() })}
    ${s.notice ? html`<div class="notice ${s.notice.kind}" role="${s.notice.kind === 'error' ? 'alert' : 'status'}">${s.notice.body}</div>` : ''}
    ${
      open
        ? html`<p class="hint">
            Type hours into a day to add that time (2 is two hours, 0.5 half an hour, 1:30 an hour and a half, 90m ninety minutes): it
            follows the day's last entry, or starts at 09:00.
          </p>`
        : ''
    }
    <nav class="day-tabs" aria-label="Days">
      ${days.map((d) => html`<a href="${APP_PATH}/timesheet?date=${week}&amp;day=${d.key}" ${d.key === s.day ? html`aria-current="true"` : ''}>${d.start.toFormat('ccc d')}</a>`)}
    </nav>
    <form method="post" action="${APP_PATH}/timesheet" aria-label="Timesheet">
      ${csrfField(s.session.csrfToken)}<input type="hidden" name="week" value="${week}" /><input
        type="hidden"
        name="day"
        value="${s.day}"
      />
      <div class="scroll">
        <table class="rows sheet">
          <thead>
            <tr>
              <th scope="col">Project</th>
              ${days.map((d) => html`<th scope="col" class="cell${d.key === s.day ? ' current' : ''}" data-day="${d.key}">${d.start.toFormat('ccc d')}</th>`)}
              <th scope="col" class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            ${s.rows.map((r) => {
              const label = r.project?.name ?? 'No project';
              return html`<tr>
                <th scope="row">
                  ${r.project ? html`${colourMark(r.project.color, 'dot')}${r.project.clientName ? html`<span class="client">${r.project.clientName}</span> · ` : ''}` : ''}${label}
                </th>
                ${days.map((d, i) => cell(r.key, d.key, r.days[i] ?? 0, label))}
                <td class="num">${hoursText(r.days.reduce((a, b) => a + b, 0))}</td>
              </tr>`;
            })}
            ${
              s.others.length > 0 && open
                ? html`<tr class="new-row">
                    <th scope="row">
                      <label class="vh" for="sheet-new">Another project</label>
                      <select id="sheet-new" name="newProject">
                        <option value="">Another project…</option>
                        ${s.others.map((p) => html`<option value="${p.id}" ${s.sent.newProject === p.id ? html`selected` : ''}>${p.clientName ? `${p.clientName} · ` : ''}${p.name}</option>`)}
                      </select>
                    </th>
                    ${days.map((d) => cell('new', d.key, 0, 'the project chosen'))}
                    <td></td>
                  </tr>`
                : ''
            }
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              ${columns.map((c, i) => html`<td class="num cell${days[i]?.key === s.day ? ' current' : ''}" data-day="${days[i]?.key ?? ''}">${hoursText(c)}</td>`)}
              <td class="num"><strong>${hoursText(columns.reduce((a, b) => a + b, 0))}</strong></td>
            </tr>
          </tfoot>
        </table>
      </div>
      ${open ? html`<div class="actions"><button type="submit">Add the time</button></div>` : ''}
    </form>`;
}

/** The timesheet: projects × the week's days, durations typed into cells become entries; at 390 px one day at a time. */
export function timesheetRoutes(router: Router, deps: WebDeps): void {
  const { services } = deps;

  const sheetOf = (req: Request, session: SessionView, sent: Record<string, string>, errors: FieldErrors, notice: Notice | null): Sheet => {
    const { zone, weekStart } = zoneOf(deps, session);
    const now = deps.clock.now();
    const date = typeof req.query.date === 'string' ? req.query.date : field(req, 'week') || undefined;
    const week = weekOf(date, zone, weekStart, now);
    const entries = entriesOf(deps, session, week.start.toISO() as string, week.end.toISO() as string, [session.userId]);
    const projects = projectChoices(deps, session);
    const byProject = new Map<string, number[]>();
    for (const e of entries) {
      const day = week.days.findIndex((d) => Date.parse(e.start) >= d.start.toMillis() && Date.parse(e.start) < d.end.toMillis());
      if (day < 0) continue;
      const key = e.projectId ?? 'none';
      const days = byProject.get(key) ?? Array.from({ length: 7 }, () => 0);
      days[day] = (days[day] ?? 0) + (e.end ? e.durationSec : Math.floor((now - Date.parse(e.start)) / 1000));
      byProject.set(key, days);
    }
    const rows = [...byProject.entries()]
      .map(([key, days]) => ({ key, project: projects.find((p) => p.id === key) ?? null, days }))
      .sort((a, b) => (a.project?.name ?? '~').localeCompare(b.project?.name ?? '~'));
    const today = DateTime.fromMillis(now, { zone }).toISODate() as string;
    const asked = typeof req.query.day === 'string' ? req.query.day : field(req, 'day');
    const day = week.days.some((d) => d.key === asked)
      ? asked
      : week.days.some((d) => d.key === today)
        ? today
        : (week.days[0]?.key as string);
    const approval = stripOf(deps, session, week.start.toISODate() as string, week.end.minus({ days: 1 }).toISODate() as string);
    return { session, week, day, rows, others: projects.filter((p) => !byProject.has(p.id)), sent, errors, notice, approval };
  };
  const render = (req: Request, res: Response, status: number, sheet: Sheet) =>
    res
      .status(status)
      .type('html')
      .end(appPage(deps, sheet.session, { title: 'Timesheet', current: 'week', body: sheetBody(sheet) }));

  router.get('/timesheet', (req, res) => {
    const signed = signedOf(res) as SignedIn;
    render(req, res, 200, sheetOf(req, signed.session, {}, {}, deps.flashes.take(signed.secret)));
  });

  router.post('/timesheet', (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    const { session } = signed;
    const sent = Object.fromEntries(
      Object.entries(req.body as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    const sheet = sheetOf(req, session, sent, {}, null);
    const { zone } = zoneOf(deps, session);
    // Every typed cell, read first: a bad one is shown at its cell and nothing is added.
    const errors: FieldErrors = {};
    const adds: Array<{ projectId: string | null; day: number; seconds: number }> = [];
    for (const [name, text] of Object.entries(sent)) {
      const match = /^cell:([^:]+):(\d{4}-\d{2}-\d{2})$/.exec(name);
      if (!match || text.trim() === '') continue;
      const day = sheet.week.days.findIndex((d) => d.key === match[2]);
      if (day < 0) continue;
      const row = match[1] as string;
      if (row === 'new' && !sent.newProject) {
        errors[name] = 'Choose the project of this row first.';
        continue;
      }
      try {
        adds.push({
          projectId: row === 'new' ? (sent.newProject as string) : row === 'none' ? null : row,
          day,
          seconds: durationOf(text, name, 'hours'),
        });
      } catch (error) {
        if (!isFormRefusal(error)) return next(error);
        errors[name] = spoken(error);
      }
    }
    if (Object.keys(errors).length > 0)
      return render(req, res, 400, {
        ...sheet,
        errors,
        notice: { kind: 'error', body: 'Some cells are not durations: see them below. Nothing was added.' },
      });
    // Each day's new time follows its last entry (the member's), or starts at 09:00.
    const entries = entriesOf(deps, session, sheet.week.start.toISO() as string, sheet.week.end.toISO() as string, [session.userId]);
    const ends = sheet.week.days.map((d) => {
      const last = entries
        .filter((e: EntryRowView) => e.end !== null && Date.parse(e.start) >= d.start.toMillis() && Date.parse(e.start) < d.end.toMillis())
        .reduce((max, e) => Math.max(max, Date.parse(e.end as string)), 0);
      return last > 0 ? last : d.start.set(DAY_STARTS_AT).toMillis();
    });
    const bodies = adds.map((add) => {
      const start = ends[add.day] as number;
      ends[add.day] = start + add.seconds * 1000;
      return {
        description: '',
        projectId: add.projectId,
        start: new Date(start).toISOString(),
        end: new Date(start + add.seconds * 1000).toISOString(),
        timeZone: zone,
        source: 'web' as const,
      };
    });
    let made: Array<{ id: string; updatedAt: string }> = [];
    try {
      if (bodies.length > 0) made = services.entries.createMany(session.actor, bodies).map((e) => ({ id: e.id, updatedAt: e.updatedAt }));
    } catch (error) {
      if (!isFormRefusal(error)) return next(error);
      const refused = refusal(error);
      return render(req, res, refused.status, { ...sheet, notice: { kind: 'error', body: refused.message } });
    }
    const week = field(req, 'week');
    deps.flashes.put(
      signed.secret,
      made.length === 0 ? { kind: 'ok', body: 'Nothing typed, nothing added.' } : undoAdded(session, made, week, sheet.day),
    );
    res.redirect(303, `${APP_PATH}/timesheet?date=${week}&day=${sheet.day}`);
  });

  undoRoute(router, deps);
}

/** Undo: the entries a post of the sheet just added go again, all or none, each only as it was added. */
function undoRoute(router: Router, deps: WebDeps): void {
  const { services } = deps;
  router.post('/timesheet/undo', (req, res, next) => {
    const signed = signedOf(res) as SignedIn;
    const added = fields(req, 'added').flatMap((text) => {
      const [id, updatedAt] = text.split(' ');
      return id && updatedAt ? [{ id, updatedAt }] : [];
    });
    let notice: Notice;
    try {
      services.entries.deleteAdded(signed.session.actor, added);
      notice = { kind: 'ok', body: `Undone: ${added.length === 1 ? 'the entry' : `the ${added.length} entries`} just added went again.` };
    } catch (error) {
      if (!(error instanceof DomainError) || (error.code !== 'conflict' && error.code !== 'not_found')) return next(error);
      // Its week submitted or approved, or locked, since (decisions §13): said as the approvals service says it.
      const held = error.code === 'conflict' && error.field !== 'version';
      notice = {
        kind: 'error',
        body: held
          ? `Nothing was undone: ${spoken(error).charAt(0).toLowerCase()}${spoken(error).slice(1)}`
          : 'Nothing was undone: the time added was changed or deleted since (on the week, or in another tab). Change it there.',
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

/** What a post of the sheet added, with its Undo (a form: works without the script; gone from the page after 10 seconds). */
function undoAdded(session: SessionView, made: ReadonlyArray<{ id: string; updatedAt: string }>, week: string, day: string): Notice {
  return {
    kind: 'ok',
    body: html`Added ${made.length} ${made.length === 1 ? 'entry' : 'entries'}.
      <form class="inline undo" method="post" action="${APP_PATH}/timesheet/undo" data-undo-ms="10000">
        ${csrfField(session.csrfToken)}<input type="hidden" name="week" value="${week}" /><input type="hidden" name="day" value="${day}" />
        ${made.map((e) => html`<input type="hidden" name="added" value="${e.id} ${e.updatedAt}" />`)}
        <button class="secondary" type="submit">Undo</button>
      </form>`,
  };
}
