import type { EntryView } from '../../modules/entries/service.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { clockOf } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import { csrfField } from '../kit/layout.js';
import { timeText, type TimeFormat } from '../kit/times.js';
import { APP_PATH } from '../paths.js';
import { billableBox, descriptionCombo, type ProjectChoice, projectPicker, type TagChoice, tagChips } from './pickers.js';

/** What the timer line needs of the week's model. */
export interface TimerModel {
  csrfToken: string;
  zone: string;
  now: number;
  timeFormat: TimeFormat;
  running: EntryView | null;
  projects: readonly ProjectChoice[];
  tags: readonly TagChoice[];
  /** The form as sent, after a refusal of the timer's form. */
  sent: Record<string, string> | null;
  errors: FieldErrors;
}

/** The same runaway words as the API's: what happened to a timer that ran too long. */
const RUNAWAY: Record<string, string> = {
  flagged: 'Runaway: this timer ran past the workspace limit and was flagged; it keeps running.',
  capped: 'Runaway: this timer ran past the workspace limit and was stopped at the limit.',
  stopped: 'Runaway: this timer ran past the workspace limit and was stopped when that was noticed.',
};

/** The Billable box of a new entry: as sent, else the chosen project's default. */
export function newBillable(projects: readonly ProjectChoice[], sent: Record<string, string>) {
  const project = sent.projectId ?? '';
  const checked = sent.billableFor === project ? sent.billable === 'true' : projects.find((p) => p.id === project)?.billable === true;
  return { checked, shownFor: project };
}

/** The start field of a timer: empty (now), a time today (`09:12`) or minutes ago (`-10`). */
const startField = (m: TimerModel, value: string) =>
  html`<div class="field start">
    <label for="timer-start">Started <span class="hint">time, or −10 for 10 min ago</span></label>
    <input
      id="timer-start"
      name="startedAt"
      type="text"
      inputmode="text"
      size="8"
      value="${value}"
      placeholder="${m.running ? '' : 'now'}"
      ${invalidAt('timer-start', m.errors.start)}
    />
    ${errorAt('timer-start', m.errors.start)}
  </div>`;

/**
 * The timer line: a new timer (what, project, tags, Billable, when it started: all the entry
 * needs in one form), or the running one editable in place with its time ticking, and Stop.
 */
export function timerLine(m: TimerModel, week: string): Html {
  const sent = m.sent ?? {};
  const r = m.running;
  if (!r) {
    const billable = newBillable(m.projects, sent);
    return html`<form class="timer" method="post" action="${APP_PATH}/timer/start" aria-label="Timer" data-inplace>
      ${csrfField(m.csrfToken)}<input type="hidden" name="week" value="${week}" />
      ${descriptionCombo('timer-description', 'What are you working on?', sent.description ?? '', m.errors, sent.taskId || null)}
      ${projectPicker('timer-project', m.projects, sent.projectId)}
      ${tagChips('timer-tags', m.tags, sent.tagIds ? sent.tagIds.split(',') : [])}
      ${billableBox('timer-billable', billable.checked, billable.shownFor)} ${startField(m, sent.startedAt ?? '')}
      <button type="submit" data-shortcut="timer">Start <kbd>s</kbd></button>
    </form>`;
  }
  const started = timeText(Date.parse(r.start), m.zone, m.timeFormat);
  return html`<div class="timer running">
    <form method="post" action="${APP_PATH}/timer/save" aria-label="Running timer" data-inplace>
      ${csrfField(m.csrfToken)}<input type="hidden" name="week" value="${week}" />
      <input type="hidden" name="version" value="${r.updatedAt}" />
      ${descriptionCombo('timer-description', 'Running', sent.description ?? r.description, m.errors, sent.taskId ?? r.taskId)}
      ${projectPicker('timer-project', m.projects, sent.projectId ?? r.projectId)}
      ${tagChips('timer-tags', m.tags, sent.tagsShown ? (sent.tagIds ?? '').split(',').filter(Boolean) : r.tagIds)}
      ${billableBox('timer-billable', sent.billableFor !== undefined ? sent.billable === 'true' : r.billable, sent.billableFor ?? r.projectId ?? '')}
      ${startField(m, sent.startedAt ?? started)}
      <button class="secondary" type="submit">Save</button>
    </form>
    <p class="elapsed" aria-live="off">
      <time data-elapsed-from="${r.start}" data-title="${r.description || 'Timer'}" datetime="${r.start}"
        >${clockOf((m.now - Date.parse(r.start)) / 1000)}</time
      >
      <span class="hint">since ${started}</span>
    </p>
    ${r.runaway ? html`<p class="notice error runaway">${RUNAWAY[r.runaway.action] ?? 'Runaway timer.'}</p>` : ''}
    <form method="post" action="${APP_PATH}/timer/stop" data-inplace>
      ${csrfField(m.csrfToken)}<input type="hidden" name="week" value="${week}" />
      <button class="stop" type="submit" data-shortcut="timer">Stop <kbd>s</kbd></button>
    </form>
  </div>`;
}
