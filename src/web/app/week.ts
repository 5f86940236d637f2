import { DateTime } from 'luxon';
import type { EntryRowView, EntryView } from '../../modules/entries/service.js';
import type { SessionView } from '../../modules/sessions/service.js';
import { type FieldErrors, labelledInput } from '../kit/fields.js';
import type { weekOf } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import { csrfField, type Notice } from '../kit/layout.js';
import { colourMark } from '../kit/marks.js';
import { hoursText, timeText, type TimeFormat } from '../kit/times.js';
import { formats, t } from '../../i18n/index.js';
import { APP_PATH } from '../paths.js';
import {
  billableBox,
  descriptionCombo,
  type ProjectChoice,
  projectPicker,
  type TagChoice,
  tagChips,
  type TaskChoice,
  taskPicker,
} from './pickers.js';
import { newBillable, timerLine } from './timer.js';
import { type ApprovalStrip, lockedWords, periodStrip } from './approval-strip.js';

/** A local day (its wall date) formatted in the reader's locale: the day read as UTC, so no zone shifts it. */
const localDay = (d: DateTime, options: Intl.DateTimeFormatOptions): string =>
  new Intl.DateTimeFormat(formats().locale, { ...options, timeZone: 'UTC' }).format(Date.parse(`${d.toISODate() as string}T00:00:00Z`));
/** A day as its heading says it: `Monday 23 November`, `Montag, 23. November`. */
export const dayHeading = (d: DateTime): string => localDay(d, { weekday: 'long', day: 'numeric', month: 'long' });
/** A day as a column or tab says it: `Mon 23`, `Mo., 23.`. */
export const dayColumn = (d: DateTime): string => localDay(d, { weekday: 'short', day: 'numeric' });
/** A week's days as a heading says them: `23 Nov – 29 Nov 2026`, `23.11. – 29.11.2026`. */
export const weekSpan = (first: DateTime, last: DateTime): { from: string; to: string } => ({
  from: localDay(first, formats().language === 'de' ? { day: '2-digit', month: '2-digit' } : { day: 'numeric', month: 'short' }),
  to: formats().date(last.toISODate() as string),
});
/** The one duration rule as every duration field's hint says it (docs/pages.md, "One duration rule"). */
export const durationHint = (): string => t('week.durationHint');

export interface WeekModel {
  session: SessionView;
  zone: string;
  timeFormat: TimeFormat;
  week: ReturnType<typeof weekOf>;
  entries: EntryRowView[];
  running: EntryView | null;
  projects: ProjectChoice[];
  tasks: TaskChoice[];
  tags: TagChoice[];
  now: number;
  /** The member's zone's wall clock (src/web/kit/forms.ts wallClock). */
  clock: (ms: number) => { date: string; time: string };
  /** The entry whose form is open (`?edit=`), if any. */
  editId?: string;
  /** The day whose "Add time" form is open (`?add=`), if any. */
  addDay?: string;
  /** Whose week: the member's own id, a colleague's, or `team` (the latter two read-only here). */
  viewing: string;
  /** The colleagues one may switch to (empty without colleagues' time visibility). */
  members: Array<{ userId: string; name: string }>;
  /** A refused form, to show as sent with its message at the field: which form, the values, the errors. */
  refused?: { form: string; values: Record<string, string>; errors: FieldErrors; asked?: string };
  /** The page's notice (a save, a delete with its Undo), inside the region the script swaps. */
  notice?: Notice | null;
  /** One's own periods of the week and the workspace's lock date (decisions §13), when approval or a lock date is on. */
  approval?: ApprovalStrip;
  /** Entries of one's own week that overlap others of it, with what they overlap (made by `weekBody`). */
  overlaps?: Map<string, Overlap[]>;
}

/** Another entry an entry overlaps: what it is, and its times as the rows show them. */
export interface Overlap {
  description: string;
  span: string;
}

/**
 * Which of the member's own entries overlap one another (a backdated timer, time typed twice): a
 * sweep in start order, so a week of 500 rows costs about 500 comparisons, not 250,000.
 */
function overlapsOf(m: WeekModel): Map<string, Overlap[]> {
  const found = new Map<string, Overlap[]>();
  if (m.viewing !== m.session.userId) return found;
  const spans = m.entries
    .map((e) => ({ e, start: Date.parse(e.start), end: e.end ? Date.parse(e.end) : m.now }))
    .sort((a, b) => a.start - b.start);
  const note = (a: (typeof spans)[number], b: (typeof spans)[number]) => {
    const span = `${timeText(b.start, m.zone, m.timeFormat)}–${b.e.end ? timeText(b.end, m.zone, m.timeFormat) : t('week.now')}`;
    found.set(a.e.id, [...(found.get(a.e.id) ?? []), { description: b.e.description, span }]);
  };
  for (let i = 0; i < spans.length; i++) {
    const a = spans[i] as (typeof spans)[number];
    for (let j = i + 1; j < spans.length && (spans[j] as (typeof spans)[number]).start < a.end; j++) {
      const b = spans[j] as (typeof spans)[number];
      if (b.end <= a.start) continue;
      note(a, b);
      note(b, a);
    }
  }
  return found;
}

/** A row's word on its overlaps: with what, so the person can tell which to change. */
function overlapMark(m: WeekModel, e: EntryRowView): Html | string {
  const others = m.overlaps?.get(e.id);
  if (!others || others.length === 0) return '';
  const what = others.map((o) => `“${o.description || t('week.anEntry')}” (${o.span})`).join(', ');
  return html`<span class="overlap" title="${t('week.overlapsWith', { what })}"
    ><span aria-hidden="true">⚠</span> ${t('week.overlaps')}<span class="vh"> ${what}</span></span
  >`;
}

/** The sign of a currency (`€`, `$`, `CHF`) as the Billable mark. */
const currencySymbol = (currency: string) =>
  new Intl.NumberFormat('en', { style: 'currency', currency }).formatToParts(0).find((p) => p.type === 'currency')?.value ?? currency;

const seconds = (m: WeekModel, e: EntryRowView) => (e.end ? e.durationSec : (m.now - Date.parse(e.start)) / 1000);

/** The Billable mark: the currency's sign, "billable" to a screen reader. */
const billableMark = (currency: string) => {
  const [title, symbol, word] = [t('reports.billable'), currencySymbol(currency), t('week.billable')];
  return html`<span class="money" title="${title}"><span aria-hidden="true">${symbol}</span><span class="vh">${word}</span></span>`;
};

/** A row's facts: the project's colour, client and name, its task, the tags, the Billable mark. */
function facts(m: WeekModel, e: EntryRowView): Html {
  const tagNames = e.tagIds.map((id) => m.tags.find((tag) => tag.id === id)?.name).filter((n): n is string => n !== undefined);
  const project = html`<span class="project"
    >${e.projectName ? html`${colourMark(e.projectColor, 'dot')}${e.clientName ? html`<span class="client">${e.clientName}</span> · ` : ''}${e.projectName}${e.taskName ? html` / <span class="task">${e.taskName}</span>` : ''}` : ''}</span
  >`;
  const tags =
    tagNames.length > 0 ? html`<span class="tags">${tagNames.map((name) => html`<span class="tag">${name}</span>`)}</span>` : null;
  // The Billable mark is one flex item with the piece before it (.marked), so it never wraps alone
  // to a line of its own under a long project and task (seen at 1280 px); that piece's words wrap beside it.
  const last = tags ?? project;
  const marked = e.billable ? html`<span class="marked">${last}${billableMark(e.currency)}</span>` : last;
  return html`<span class="meta">${tags ? html`${project} ${marked}` : marked} ${overlapMark(m, e)}</span>`;
}

/** The edit form of an entry: its day and times (an end before the start: the next day, when ticked), work, tags, Billable; its version. */
function editForm(m: WeekModel, e: EntryRowView, week: string): Html {
  const id = e.id;
  const editing = m.refused?.form === id;
  const errors = editing ? (m.refused?.errors ?? {}) : {};
  const sent = editing ? (m.refused?.values ?? {}) : {};
  const start = Date.parse(e.start);
  const end = e.end ? Date.parse(e.end) : start;
  const day = m.clock(start).date;
  const nextDay = m.clock(end).date !== day;
  const times = (name: string, label: string, value: string) =>
    labelledInput(`${id}-${name}`, name, label, value, errors, html`type="text" inputmode="text" size="8" required`);
  return html`<form
      class="edit"
      method="post"
      action="${APP_PATH}/entries/${id}"
      aria-label="${t('week.editEntry', { time: timeText(start, m.zone, m.timeFormat) })}"
      data-inplace
    >
      ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
      <input type="hidden" name="version" value="${sent.version ?? e.updatedAt}" />
      ${descriptionCombo(`${id}-description`, t('reports.description'), sent.description ?? e.description, errors)}
      ${labelledInput(`${id}-day`, 'day', t('week.day'), sent.day ?? day, errors, html`type="date" required`)}
      ${times('start', t('export.start'), sent.start ?? timeText(start, m.zone, m.timeFormat))}
      ${times('end', t('export.end'), sent.end ?? timeText(end, m.zone, m.timeFormat))}
      <label class="check" for="${id}-nextday"
        ><input
          id="${id}-nextday"
          type="checkbox"
          name="nextDay"
          value="true"
          ${(editing ? sent.nextDay === 'true' : nextDay) ? html`checked` : ''}
        />
        ${t('week.nextDay')}</label
      >
      ${projectPicker(`${id}-project`, m.projects, sent.projectId ?? e.projectId)}
      ${taskPicker(`${id}-task`, m.tasks, m.projects, sent.projectId ?? e.projectId, editing ? sent.taskId : e.taskId)}
      ${tagChips(`${id}-tags`, m.tags, editing && sent.tagsShown ? (sent.tagIds ?? '').split(',').filter(Boolean) : e.tagIds)}
      ${billableBox(`${id}-billable`, editing ? sent.billable === 'true' : e.billable, editing ? (sent.billableFor ?? '') : (e.projectId ?? ''))}
      <div class="actions">
        ${editing && m.refused?.asked ? longDayButton(m.refused.asked) : html`<button type="submit">${t('common.save')}</button>`}
      </div>
    </form>
    <form class="apart" method="post" action="${APP_PATH}/entries/${id}/delete" data-inplace>
      ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
      <button class="danger" type="submit">${t('catalog.delete')}<span class="vh"> ${t('week.thisEntry')}</span></button>
      <span class="hint">${t('week.undoFor')}</span>
    </form>`;
}

/** One entry: its times in the zone, what and for whom, tags, Billable, duration; ▶ continues it; the description opens its form. */
function entryItem(m: WeekModel, e: EntryRowView, week: string): Html {
  const start = Date.parse(e.start);
  const span = `${timeText(start, m.zone, m.timeFormat)}–${e.end ? timeText(Date.parse(e.end), m.zone, m.timeFormat) : t('week.now')}`;
  const duration = e.end
    ? hoursText(e.durationSec)
    : html`<time data-elapsed-from="${e.start}" datetime="${e.start}">${hoursText(seconds(m, e))}</time>`;
  const what = e.description || html`<span class="hint">${t('reports.noDescription')}</span>`;
  const own = m.viewing === m.session.userId;
  const row = (link: Html | string) =>
    html`<span class="when">${span}</span> ${link} ${facts(m, e)} <span class="duration">${duration}</span>`;
  if (!own) {
    const author = m.members.find((x) => x.userId === e.authorId)?.name ?? '';
    // The team's week: whose it is, inside the row (under what it was), so it reads with its row, not the next.
    const whose = m.viewing === 'team' ? html`<span class="member">${author}</span>` : '';
    return html`<li class="entry locked">
      <div class="row">${row(html`<span class="what">${what}${whose}</span>`)}</div>
    </li>`;
  }
  // The row's buttons belong to the page's one row form (ROW_FORM): a row carries no token of its own.
  const continueButton = html`<button
    class="icon"
    type="submit"
    form="${ROW_FORM}"
    formaction="${APP_PATH}/entries/${e.id}/continue"
    data-continue
    data-ended="${e.end ?? ''}"
    title="${t('week.continueTitle')}"
    aria-label="${t('week.continueWhat', { what: e.description || t('week.thisEntry') })}"
  >
    ▶
  </button>`;
  if (e.invoiceId)
    return html`<li class="entry locked" id="e-${e.id}">
      <div class="row">${row(html`<span class="what">${what}</span>`)} <span class="entry-actions">${continueButton}</span></div>
      <p class="hint">${t('week.invoiced')}</p>
    </li>`;
  // Its period submitted or approved, or its day locked (decisions §13): read-only; the week's approval line says why.
  const locked = lockedWords(m.approval, e.start);
  if (locked)
    return html`<li class="entry locked" id="e-${e.id}" title="${locked}">
      <div class="row">
        ${row(html`<span class="what">${what}<span class="vh"> (${locked})</span></span>`)}
        <span class="entry-actions">${continueButton}</span>
      </div>
    </li>`;
  if (!e.end)
    return html`<li class="entry live" id="e-${e.id}"><div class="row">${row(html`<span class="what">${what}</span>`)}</div></li>`;
  const open = m.refused?.form === e.id || m.editId === e.id;
  return html`<li class="entry${open ? ' open' : ''}" id="e-${e.id}">
    <div class="row">
      ${row(html`<a class="what" href="${APP_PATH}/week?date=${week}&amp;edit=${e.id}#e-${e.id}" data-edit="${e.id}">${what}<span class="vh"> ${t('week.edit')}</span></a>`)}
      <span class="entry-actions">${continueButton}${deleteButton(e)}</span>
    </div>
    ${open ? editForm(m, e, week) : ''}
  </li>`;
}

/** Delete in one click, on the row: no dialog, the page offers Undo for 10 seconds instead. */
function deleteButton(e: EntryRowView): Html {
  return html`<button
    class="icon"
    type="submit"
    form="${ROW_FORM}"
    formaction="${APP_PATH}/entries/${e.id}/delete"
    title="${t('week.deleteTitle')}"
    aria-label="${t('week.deleteWhat', { what: e.description || t('week.thisEntry') })}"
  >
    ✕
  </button>`;
}

/**
 * The form of every row's ▶ and ✕ (each button names its own `formaction`): the session's token
 * and the week once, not on each of 500 rows.
 */
const ROW_FORM = 'row-actions-form';
const rowForm = (m: WeekModel, week: string) =>
  html`<form id="${ROW_FORM}" method="post" action="${APP_PATH}/week" data-inplace>
    ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
  </form>`;

/** A long day asked about again: the form's button that saves it anyway (the form's values as sent), beside which it can be changed. */
const longDayButton = (total: string) => html`<button type="submit" name="longDay" value="true">${t('week.yesSave', { total })}</button>`;

/** The form that adds time on a day: a start, and an end or a duration, and what it was. */
function addForm(m: WeekModel, week: string, day: string): Html {
  const sent = m.refused?.form === 'add' ? m.refused.values : {};
  const errors = m.refused?.form === 'add' ? m.refused.errors : {};
  const billable = newBillable(m.projects, sent);
  const text = (id: string, name: string, label: Html | string, value: string, attrs: Html) =>
    labelledInput(id, name, label, value, errors, attrs);
  return html`<form class="add" id="add-form" method="post" action="${APP_PATH}/entries" aria-labelledby="add-heading" data-inplace>
    ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
    <h3 id="add-heading">${t('week.addTime')}</h3>
    <div class="grid">
      ${descriptionCombo('add-description', t('reports.description'), sent.description ?? '', errors)}
      ${text('add-day', 'day', t('week.day'), sent.day ?? day, html`type="date" required`)}
      ${text('add-start', 'startTime', t('export.start'), sent.startTime ?? '09:00', html`type="text" inputmode="text" size="8" required`)}
      ${text('add-end', 'endTime', t('export.end'), sent.endTime ?? '', html`type="text" inputmode="text" size="8" placeholder="17:00"`)}
      ${text('add-duration', 'duration', html`${t('week.orDuration')} <span class="hint">${durationHint()}</span>`, sent.duration ?? '', html`type="text" inputmode="text" size="8" placeholder="1:30"`)}
      <label class="check" for="add-nextday"
        ><input id="add-nextday" type="checkbox" name="nextDay" value="true" ${sent.nextDay === 'true' ? html`checked` : ''} />
        ${t('week.nextDay')}</label
      >
      ${projectPicker('add-project', m.projects, sent.projectId)}
      ${taskPicker('add-task', m.tasks, m.projects, sent.projectId, sent.taskId)}
      ${tagChips('add-tags', m.tags, (sent.tagIds ?? '').split(',').filter(Boolean))}
      ${billableBox('add-billable', billable.checked, billable.shownFor)}
    </div>
    <div class="actions">
      ${m.refused?.form === 'add' && m.refused.asked ? longDayButton(m.refused.asked) : html`<button type="submit">${t('week.add')}</button>`}
      <a href="${APP_PATH}/week?date=${week}" class="button secondary">${t('week.cancel')}</a>
    </div>
  </form>`;
}

/** The week's time by project (the largest first), a line each. */
function byProject(m: WeekModel, inWeek: EntryRowView[]): Html | string {
  const sums = new Map<string, { name: string; color: string | null; seconds: number }>();
  for (const e of inWeek) {
    const key = e.projectId ?? '';
    const known = sums.get(key) ?? { name: e.projectName ?? t('timer.noProject'), color: e.projectColor, seconds: 0 };
    known.seconds += seconds(m, e);
    sums.set(key, known);
  }
  if (sums.size === 0) return '';
  return html`<ul class="by-project" aria-label="${t('week.byProject')}">
    ${[...sums.values()]
      .sort((a, b) => b.seconds - a.seconds)
      .map((p) => html`<li>${colourMark(p.color, 'dot')}${p.name} <strong>${hoursText(p.seconds)}</strong></li>`)}
  </ul>`;
}

/** One day: its date, its total and its "+" (Add time on it), the add form when open there, its entries. */
function daySection(m: WeekModel, d: WeekModel['week']['days'][number], entries: EntryRowView[], week: string, today: string): Html {
  // A day whose time is read-only (its period submitted or approved, or before the lock date) offers no "+".
  const own = m.viewing === m.session.userId && lockedWords(m.approval, d.start.toISO() as string) === null;
  const list = [...entries].sort((a, b) => (a.start < b.start ? -1 : 1));
  const adding = own && m.addDay === d.key;

  return html`<section class="day${d.key === today ? ' today' : ''}" id="day-${d.key}" aria-labelledby="day-${d.key}-h">
    <h2 id="day-${d.key}-h">
      <span>${dayHeading(d.start)}</span>
      <span class="day-side">
        ${
          own
            ? html`<a
                class="add-here"
                href="${APP_PATH}/week?date=${week}&amp;add=${d.key}#add-form"
                data-add-day="${d.key}"
                title="${t('week.addOnThisDay')}"
                >+<span class="vh"> ${t('week.addOn', { day: dayHeading(d.start) })}</span></a
              >`
            : ''
        }
        <span class="day-total">${hoursText(list.reduce((s, e) => s + seconds(m, e), 0))}</span>
      </span>
    </h2>
    ${adding ? addForm(m, week, d.key) : ''}
    ${
      list.length === 0
        ? adding
          ? ''
          : html`<p class="hint">${t('week.noTime')}</p>`
        : html`<ul class="entries">
            ${list.map((e) => entryItem(m, e, week))}
          </ul>`
    }
  </section>`;
}

/** The list of shortcuts (`?` opens it). */
const shortcuts = () =>
  html`<dialog id="shortcuts" aria-labelledby="shortcuts-h">
    <h2 id="shortcuts-h">${t('week.shortcuts')}</h2>
    <dl class="facts compact">
      <dt><kbd>n</kbd></dt>
      <dd>${t('week.shortcutNew')}</dd>
      <dt><kbd>s</kbd></dt>
      <dd>${t('week.shortcutTimer')}</dd>
      <dt><kbd>c</kbd></dt>
      <dd>${t('week.shortcutContinue')}</dd>
      <dt><kbd>m</kbd></dt>
      <dd>${t('week.shortcutAdd')}</dd>
      <dt><kbd>/</kbd></dt>
      <dd>${t('week.find')}</dd>
      <dt><kbd>?</kbd></dt>
      <dd>${t('week.shortcutList')}</dd>
    </dl>
    <form method="dialog"><button class="secondary">${t('week.close')}</button></form>
  </dialog>`;

/** The week: its days in the member's zone, each with its entries, its total and its "+"; the week's total by project; the timer on top. */
export function weekBody(model: WeekModel): Html {
  const overlaps = overlapsOf(model);
  const m: WeekModel = { ...model, overlaps };
  const week = m.week.start.toISODate() as string;
  const byDay = new Map<string, EntryRowView[]>(m.week.days.map((d) => [d.key, []]));
  for (const e of m.entries) byDay.get(m.clock(Date.parse(e.start)).date)?.push(e);
  const inWeek = [...byDay.values()].flat();
  const total = inWeek.reduce((s, e) => s + seconds(m, e), 0);
  const first = m.week.start;
  const last = m.week.end.minus({ days: 1 });
  const own = m.viewing === m.session.userId;
  const whose = own ? '' : `&member=${encodeURIComponent(m.viewing)}`;
  const today = DateTime.fromMillis(m.now, { zone: m.zone }).toISODate() as string;
  const refusedTimer = m.refused?.form === 'timer' ? m.refused : null;
  const refusedNext = m.refused?.form === 'next' ? m.refused : null;
  const switcher =
    m.members.length === 0
      ? ''
      : html`<form method="get" action="${APP_PATH}/week" class="inline whose">
          <input type="hidden" name="date" value="${week}" />
          <label for="week-member">${t('week.whose')}</label>
          <select id="week-member" name="member">
            <option value="me" ${own ? html`selected` : ''}>${t('week.mine')}</option>
            <option value="team" ${m.viewing === 'team' ? html`selected` : ''}>${t('week.team')}</option>
            ${m.members
              .filter((x) => x.userId !== m.session.userId)
              .map((x) => html`<option value="${x.userId}" ${m.viewing === x.userId ? html`selected` : ''}>${x.name}</option>`)}
          </select>
          <button class="secondary" type="submit">${t('week.show')}</button>
        </form>`;
  const notice = m.notice
    ? html`<div class="notice ${m.notice.kind} toast" role="${m.notice.kind === 'error' ? 'alert' : 'status'}">${m.notice.body}</div>`
    : '';
  return html`<div id="live-region">
    ${notice} ${rowForm(m, week)}
    ${
      own
        ? timerLine(
            {
              csrfToken: m.session.csrfToken,
              zone: m.zone,
              now: m.now,
              timeFormat: m.timeFormat,
              running: m.running,
              projects: m.projects,
              tasks: m.tasks,
              tags: m.tags,
              sent: refusedTimer?.values ?? null,
              errors: refusedTimer?.errors ?? {},
              nextSent: refusedNext?.values ?? null,
              nextErrors: refusedNext?.errors ?? {},
              overlaps: m.running ? (overlaps.get(m.running.id) ?? []) : [],
            },
            week,
          )
        : ''
    }
    <div class="week-head">
      <h1>${t('week.heading', weekSpan(first, last))}</h1>
      <nav class="week-nav" aria-label="${t('week.weeks')}">
        <a href="${APP_PATH}/week?date=${first.minus({ days: 7 }).toISODate()}${whose}"
          >${t('week.previous')}<span class="vh"> ${t('week.aWeek')}</span></a
        >
        <a href="${APP_PATH}/week${own ? '' : `?member=${encodeURIComponent(m.viewing)}`}">${t('week.thisWeek')}</a>
        <a href="${APP_PATH}/week?date=${first.plus({ days: 7 }).toISODate()}${whose}"
          >${t('week.next')}<span class="vh"> ${t('week.aWeek')}</span> →</a
        >
        <form method="get" action="${APP_PATH}/week" class="inline">
          ${own ? '' : html`<input type="hidden" name="member" value="${m.viewing}" />`}
          <label class="vh" for="week-date">${t('week.goTo')}</label>
          <input id="week-date" type="date" name="date" value="${week}" />
          <button class="secondary" type="submit">${t('week.go')}</button>
        </form>
        ${
          own
            ? html`<a
                  class="button add-time"
                  href="${APP_PATH}/week?date=${week}&amp;add=${m.week.days.some((d) => d.key === today) ? today : week}#add-form"
                  data-add-day="${m.week.days.some((d) => d.key === today) ? today : week}"
                  >${t('week.addTime')} <kbd>m</kbd></a
                >
                <a class="view" href="${APP_PATH}/timesheet?date=${week}">${t('timesheet.title')}</a>`
            : ''
        }
      </nav>
      ${switcher}
      <div class="total">
        <p>
          ${own ? '' : html`<strong>${m.viewing === 'team' ? t('week.team') : (m.members.find((x) => x.userId === m.viewing)?.name ?? '')}</strong>, ${t('week.readOnly')} `}${t('week.total')}
          <strong>${hoursText(total)}</strong> <span class="hint">${t('week.timesIn', { zone: m.zone })}</span>
        </p>
        ${byProject(m, inWeek)}
      </div>
      ${own ? periodStrip(m.approval, { csrfToken: m.session.csrfToken, week, forms: true, first: first.toMillis(), last: m.week.end.toMillis() }) : ''}
      ${
        own
          ? html`<label class="vh" for="week-filter">${t('week.find')}</label
              ><input id="week-filter" type="search" class="week-filter" placeholder="${t('week.findPlaceholder')}" hidden />`
          : ''
      }
    </div>
    ${m.week.days.map((d) => daySection(m, d, byDay.get(d.key) ?? [], week, today))} ${shortcuts()}
  </div>`;
}
