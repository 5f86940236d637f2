import { DateTime } from 'luxon';
import type { EntryRowView, EntryView } from '../modules/entries/service.js';
import type { SessionView } from '../modules/sessions/service.js';
import { type FieldErrors, labelledInput } from '../settings/fields.js';
import { type Html, html } from '../settings/html.js';
import { csrfField } from '../settings/layout.js';
import { clockOf, type weekOf } from './forms.js';
import { colourMark } from './marks.js';

export interface WeekModel {
  session: SessionView;
  zone: string;
  week: ReturnType<typeof weekOf>;
  entries: EntryRowView[];
  running: EntryView | null;
  projects: Array<{ id: string; name: string; billable: boolean }>;
  tags: Array<{ id: string; name: string }>;
  now: number;
  /** The member's zone's wall clock (src/app/forms.ts wallClock). */
  clock: (ms: number) => { date: string; time: string };
  /** The entry whose form is open (`?edit=`), if any. */
  editId?: string;
  /** Whose week: the member's own id, a colleague's, or `team` (the latter two read-only here). */
  viewing: string;
  /** The colleagues one may switch to (empty without colleagues' time visibility). */
  members: Array<{ userId: string; name: string }>;
  /** A refused form, to show as sent with its message at the field: which form, the values, the errors. */
  refused?: { form: string; values: Record<string, string>; errors: FieldErrors };
}

const projectOptions = (projects: WeekModel['projects'], selected: string | null | undefined) =>
  html`<option value="" data-billable="false">No project</option>
    ${projects.map(
      (p) =>
        html`<option value="${p.id}" data-billable="${String(p.billable)}" ${p.id === selected ? html`selected` : ''}>${p.name}</option>`,
    )}`;

/**
 * The Billable checkbox of a form and the project whose default it shows (`billableFor`): a
 * form posted with another project than that one (the project changed, the box not) leaves
 * Billable to the project; the page's script keeps both in step as the project changes.
 */
function billableBox(id: string, checked: boolean, shownFor: string): Html {
  return html`<input type="hidden" name="billableFor" value="${shownFor}" />
    <label class="check" for="${id}"
      ><input id="${id}" type="checkbox" name="billable" value="true" data-billable-box ${checked ? html`checked` : ''} /> Billable</label
    >`;
}

/** A new entry's Billable as the form shows it: as sent, else the chosen project's default. */
const newBillable = (m: WeekModel, sent: Record<string, string>) => {
  const project = sent.projectId ?? '';
  const checked = sent.billableFor === project ? sent.billable === 'true' : m.projects.find((p) => p.id === project)?.billable === true;
  return { checked, shownFor: project };
};

/** The tags of an entry, chosen from the catalog's (a multiple select; nothing when the catalog has none). */
function tagSelect(id: string, tags: WeekModel['tags'], selected: readonly string[]): Html | string {
  if (tags.length === 0) return '';
  return html`<div class="field">
    <input type="hidden" name="tagsShown" value="true" />
    <label for="${id}">Tags</label>
    <select id="${id}" name="tagIds" multiple size="${String(Math.min(4, tags.length))}">
      ${tags.map((t) => html`<option value="${t.id}" ${selected.includes(t.id) ? html`selected` : ''}>${t.name}</option>`)}
    </select>
  </div>`;
}

/** The same runaway words as the API's: what happened to a timer that ran too long. */
const RUNAWAY: Record<string, string> = {
  flagged: 'Runaway: this timer ran past the workspace limit and was flagged; it keeps running.',
  capped: 'Runaway: this timer ran past the workspace limit and was stopped at the limit.',
  stopped: 'Runaway: this timer ran past the workspace limit and was stopped when that was noticed.',
};

/** The timer line: Start with a description and a project, or the running entry editable in place, its time ticking, and Stop. */
export function timerLine(m: WeekModel, week: string): Html {
  const errors = m.refused?.form === 'timer' ? m.refused.errors : {};
  const sent = m.refused?.form === 'timer' ? m.refused.values : {};
  const r = m.running;
  if (!r) {
    return html`<form class="timer" method="post" action="/app/timer/start" aria-label="Timer">
      ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
      ${labelledInput('timer-description', 'description', 'What are you working on?', sent.description ?? '', errors, html`maxlength="500" autocomplete="off"`)}
      <div class="field">
        <label for="timer-project">Project</label>
        <select id="timer-project" name="projectId">
          ${projectOptions(m.projects, sent.projectId)}
        </select>
      </div>
      ${tagSelect('timer-tags', m.tags, [])}
      ${(({ checked, shownFor }) => billableBox('timer-billable', checked, shownFor))(newBillable(m, sent))}
      <button type="submit" data-shortcut="timer">Start <kbd>s</kbd></button>
    </form>`;
  }
  return html`<div class="timer running">
    <form method="post" action="/app/timer/save" aria-label="Running timer">
      ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
      ${labelledInput('timer-description', 'description', 'Running', sent.description ?? r.description, errors, html`maxlength="500" autocomplete="off"`)}
      <div class="field">
        <label for="timer-project">Project</label>
        <select id="timer-project" name="projectId">
          ${projectOptions(m.projects, sent.projectId ?? r.projectId)}
        </select>
      </div>
      <button class="secondary" type="submit">Save</button>
    </form>
    <p class="elapsed" aria-live="off">
      <time data-elapsed-from="${r.start}" datetime="${r.start}">${clockOf((m.now - Date.parse(r.start)) / 1000)}</time>
      <span class="hint">since ${DateTime.fromISO(r.start, { zone: m.zone }).toFormat('HH:mm:ss')}</span>
    </p>
    ${r.runaway ? html`<p class="notice error runaway">${RUNAWAY[r.runaway.action] ?? 'Runaway timer.'}</p>` : ''}
    <form method="post" action="/app/timer/stop">
      ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
      <button class="stop" type="submit" data-shortcut="timer">Stop <kbd>s</kbd></button>
    </form>
  </div>`;
}

/** One entry: its times in the zone, description, project, duration; edit in place (a disclosure), delete after a confirmation; invoiced ones read-only. */
function entryItem(m: WeekModel, e: EntryRowView, week: string): Html {
  const local = (iso: string) => m.clock(Date.parse(iso)).time.slice(0, 5);
  const localValue = (iso: string) => {
    const at = m.clock(Date.parse(iso));
    return `${at.date}T${at.time}`;
  };
  const span = `${local(e.start)}–${e.end ? local(e.end) : 'now'}`;
  const seconds = e.end ? e.durationSec : (m.now - Date.parse(e.start)) / 1000;
  const editing = m.refused?.form === e.id;
  const errors = editing ? (m.refused?.errors ?? {}) : {};
  const sent = editing ? (m.refused?.values ?? {}) : {};
  const id = e.id;
  const summary = html`<span class="when">${span}</span>
    <span class="what">${e.description || html`<span class="hint">(no description)</span>`}</span>
    <span class="project">${e.projectName ? html`${colourMark(e.projectColor, 'dot')}${e.projectName}` : ''}</span>
    <span class="duration">${clockOf(seconds)}</span>`;
  if (m.viewing !== m.session.userId) {
    const author = m.members.find((x) => x.userId === e.authorId)?.name ?? '';
    return html`<li class="entry locked">
      <div class="row">${summary}</div>
      ${m.viewing === 'team' ? html`<p class="hint">${author}</p>` : ''}
    </li>`;
  }
  if (e.invoiceId) {
    return html`<li class="entry locked">
      <div class="row">${summary}</div>
      <p class="hint">Invoiced: read-only. Void or delete the invoice to change it.</p>
    </li>`;
  }
  if (!e.end) return html`<li class="entry live"><div class="row">${summary}</div></li>`;
  // Only the entry being edited carries its form (a week of 500 entries stays a light page): the others link to it.
  if (!editing && m.editId !== id)
    return html`<li class="entry" id="e-${id}">
      <a class="row" href="/app/week?date=${week}&amp;edit=${id}#e-${id}">${summary}<span class="vh"> Edit</span></a>
    </li>`;
  return html`<li class="entry" id="e-${id}">
    <details open>
      <summary class="row">${summary}<span class="vh"> Edit</span></summary>
      <form class="edit" method="post" action="/app/entries/${id}" aria-label="Edit entry ${span}">
        ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
        ${labelledInput(`${id}-description`, 'description', 'Description', sent.description ?? e.description, errors, html`maxlength="500"`)}
        ${labelledInput(`${id}-start`, 'start', 'Start', sent.start ?? localValue(e.start), errors, html`type="datetime-local" step="1" required`)}
        ${labelledInput(`${id}-end`, 'end', 'End', sent.end ?? localValue(e.end), errors, html`type="datetime-local" step="1" required`)}
        <div class="field">
          <label for="${id}-project">Project</label>
          <select id="${id}-project" name="projectId">
            ${projectOptions(m.projects, sent.projectId ?? e.projectId)}
          </select>
        </div>
        ${tagSelect(`${id}-tags`, m.tags, e.tagIds)}
        ${billableBox(
          `${id}-billable`,
          editing ? sent.billable === 'true' : e.billable,
          editing ? (sent.billableFor ?? '') : (e.projectId ?? ''),
        )}
        <div class="actions"><button type="submit">Save</button></div>
      </form>
      <form
        class="apart"
        method="post"
        action="/app/entries/${id}/delete"
        data-confirm="Delete this entry (${span}${e.description ? `, ${e.description}` : ''})?"
      >
        ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
        <button class="danger" type="submit">Delete<span class="vh"> the entry ${span}</span></button>
      </form>
    </details>
  </li>`;
}

/** The form that adds an entry by hand: a day, a start, and an end or a duration. */
function addForm(m: WeekModel, week: string): Html {
  const errors = m.refused?.form === 'add' ? m.refused.errors : {};
  const v = m.refused?.form === 'add' ? m.refused.values : {};
  const today = DateTime.fromMillis(m.now, { zone: m.zone }).toISODate() as string;
  return html`<form class="add" method="post" action="/app/entries" aria-labelledby="add-heading">
    ${csrfField(m.session.csrfToken)}<input type="hidden" name="week" value="${week}" />
    <h2 id="add-heading">Add time</h2>
    <div class="grid">
      ${labelledInput('add-description', 'description', 'Description', v.description ?? '', errors, html`maxlength="500"`)}
      ${labelledInput('add-day', 'day', 'Day', v.day ?? (m.week.days.some((d) => d.key === today) ? today : (m.week.days[0]?.key ?? today)), errors, html`type="date" required`)}
      ${labelledInput('add-start', 'startTime', 'Start', v.startTime ?? '09:00', errors, html`type="time" step="1" required`)}
      ${labelledInput('add-end', 'endTime', 'End', v.endTime ?? '', errors, html`type="time" step="1"`)}
      ${labelledInput('add-duration', 'duration', 'or duration', v.duration ?? '', errors, html`placeholder="1:30" inputmode="text"`)}
      <div class="field">
        <label for="add-project">Project</label>
        <select id="add-project" name="projectId">
          ${projectOptions(m.projects, v.projectId)}
        </select>
      </div>
      ${tagSelect('add-tags', m.tags, [])}
    </div>
    ${(({ checked, shownFor }) => billableBox('add-billable', checked, shownFor))(newBillable(m, v))}
    <div class="actions"><button type="submit">Add</button></div>
  </form>`;
}

/** The week: its days in the member's zone, each with its entries and total, and the week's total. */
export function weekBody(m: WeekModel): Html {
  const week = m.week.start.toISODate() as string;
  const byDay = new Map<string, EntryRowView[]>(m.week.days.map((d) => [d.key, []]));
  for (const e of m.entries) {
    const key = m.clock(Date.parse(e.start)).date;
    byDay.get(key)?.push(e);
  }
  const seconds = (e: EntryRowView) => (e.end ? e.durationSec : (m.now - Date.parse(e.start)) / 1000);
  const total = m.entries.filter((e) => byDay.has(m.clock(Date.parse(e.start)).date)).reduce((s, e) => s + seconds(e), 0);
  const first = m.week.start;
  const last = m.week.end.minus({ days: 1 });
  const own = m.viewing === m.session.userId;
  const whose = own ? '' : `&member=${encodeURIComponent(m.viewing)}`;
  const switcher =
    m.members.length === 0
      ? ''
      : html`<form method="get" action="/app/week" class="inline whose">
          <input type="hidden" name="date" value="${week}" />
          <label for="week-member">Whose week</label>
          <select id="week-member" name="member">
            <option value="me" ${own ? html`selected` : ''}>Mine</option>
            <option value="team" ${m.viewing === 'team' ? html`selected` : ''}>The team</option>
            ${m.members
              .filter((x) => x.userId !== m.session.userId)
              .map((x) => html`<option value="${x.userId}" ${m.viewing === x.userId ? html`selected` : ''}>${x.name}</option>`)}
          </select>
          <button class="secondary" type="submit">Show</button>
        </form>`;
  return html`<div id="live-region">
    ${timerLine(m, week)}
    <div class="week-head">
      <h1>Week of ${first.toFormat('d LLL')} – ${last.toFormat('d LLL yyyy')}</h1>
      <nav class="week-nav" aria-label="Weeks">
        <a href="/app/week?date=${first.minus({ days: 7 }).toISODate()}${whose}">← Previous<span class="vh"> week</span></a>
        <a href="/app/week${own ? '' : `?member=${encodeURIComponent(m.viewing)}`}">This week</a>
        <a href="/app/week?date=${first.plus({ days: 7 }).toISODate()}${whose}">Next<span class="vh"> week</span> →</a>
        <form method="get" action="/app/week" class="inline">
          ${own ? '' : html`<input type="hidden" name="member" value="${m.viewing}" />`}
          <label class="vh" for="week-date">Go to the week of</label>
          <input id="week-date" type="date" name="date" value="${week}" />
          <button class="secondary" type="submit">Go</button>
        </form>
      </nav>
      ${switcher}
      <p class="total">
        ${own ? '' : html`<strong>${m.viewing === 'team' ? 'The team' : (m.members.find((x) => x.userId === m.viewing)?.name ?? '')}</strong>, read-only. `}Week
        total <strong>${clockOf(total)}</strong> <span class="hint">times in ${m.zone}</span>
      </p>
    </div>
    ${m.week.days.map((d) => {
      const list = byDay.get(d.key) ?? [];
      return html`<section class="day" aria-labelledby="day-${d.key}">
        <h2 id="day-${d.key}">
          ${d.start.toFormat('cccc d LLLL')} <span class="day-total">${clockOf(list.reduce((s, e) => s + seconds(e), 0))}</span>
        </h2>
        ${
          list.length === 0
            ? html`<p class="hint">No time tracked.</p>`
            : html`<ul class="entries">
                ${[...list].sort((a, b) => (a.start < b.start ? -1 : 1)).map((e) => entryItem(m, e, week))}
              </ul>`
        }
      </section>`;
    })}
    ${own ? addForm(m, week) : ''}
  </div>`;
}
