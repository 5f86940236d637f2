import type { EntryView } from '../../modules/entries/service.js';
import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { clockOf } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import { csrfField } from '../kit/layout.js';
import { timeText, type TimeFormat } from '../kit/times.js';
import { APP_PATH } from '../paths.js';
import { t } from '../../i18n/index.js';
import { billableBox, descriptionCombo, projectPicker, tagChips, taskPicker } from './pickers.js';
import type { ProjectChoice, TagChoice, TaskChoice } from './pickers.js';

/** What the timer line needs of the week's model. */
export interface TimerModel {
  csrfToken: string;
  zone: string;
  now: number;
  timeFormat: TimeFormat;
  running: EntryView | null;
  projects: readonly ProjectChoice[];
  tasks: readonly TaskChoice[];
  tags: readonly TagChoice[];
  /** The form as sent, after a refusal of the timer's form… */
  sent: Record<string, string> | null;
  errors: FieldErrors;
  /** …or of the form that starts another timer while one runs (`n`). */
  nextSent: Record<string, string> | null;
  nextErrors: FieldErrors;
  /** The member's other entries the running timer overlaps (a backdated start): what they are, and when. */
  overlaps: Array<{ description: string; span: string }>;
}

/** The same runaway words as the API's: what happened to a timer that ran too long. */
const runawayWords = (action: string): string =>
  action === 'flagged'
    ? t('timer.runawayFlagged')
    : action === 'capped'
      ? t('timer.runawayCapped')
      : action === 'stopped'
        ? t('timer.runawayStopped')
        : t('timer.runaway');

/** The Billable box of a new entry: as sent, else the chosen project's default. */
export function newBillable(projects: readonly ProjectChoice[], sent: Record<string, string>) {
  const project = sent.projectId ?? '';
  const checked = sent.billableFor === project ? sent.billable === 'true' : projects.find((p) => p.id === project)?.billable === true;
  return { checked, shownFor: project };
}

/** The start field of a timer: empty (now), a time today (`09:12`) or minutes ago (`-10`). */
const startField = (m: TimerModel, id: string, value: string, errors: FieldErrors) =>
  html`<div class="field start">
    <label for="${id}">${t('timer.started')} <span class="hint">${t('timer.startedHint')}</span></label>
    <input
      id="${id}"
      name="startedAt"
      type="text"
      inputmode="text"
      size="8"
      value="${value}"
      placeholder="${m.running && id === 'timer-start' ? '' : t('week.now')}"
      ${invalidAt(id, errors.start)}
    />
    ${errorAt(id, errors.start)}
  </div>`;

/**
 * A form that starts a timer: what (with quick entry), project, task, tags, Billable, when it
 * started. `timer` is the one shown while none runs; `next` starts another now while one runs
 * (the running one stops), behind a disclosure that `n` opens.
 */
function startForm(m: TimerModel, week: string, prefix: 'timer' | 'next', sent: Record<string, string>, errors: FieldErrors): Html {
  const billable = newBillable(m.projects, sent);
  const label = prefix === 'timer' ? t('timer.whatOn') : t('timer.whatNext');
  return html`<form
    class="timer${prefix === 'next' ? ' next' : ''}"
    method="post"
    action="${APP_PATH}/timer/start"
    aria-label="${prefix === 'timer' ? t('timer.timer') : t('timer.another')}"
    data-inplace
  >
    ${csrfField(m.csrfToken)}<input type="hidden" name="week" value="${week}" />
    ${prefix === 'next' ? html`<input type="hidden" name="next" value="true" />` : ''}
    ${descriptionCombo(`${prefix}-description`, label, sent.description ?? '', errors, t('timer.placeholder'))}
    ${projectPicker(`${prefix}-project`, m.projects, sent.projectId)}
    ${taskPicker(`${prefix}-task`, m.tasks, m.projects, sent.projectId, sent.taskId)}
    ${tagChips(`${prefix}-tags`, m.tags, sent.tagIds ? sent.tagIds.split(',') : [])}
    ${billableBox(`${prefix}-billable`, billable.checked, billable.shownFor)}
    ${prefix === 'timer' ? startField(m, `${prefix}-start`, sent.startedAt ?? '', errors) : ''}
    <button type="submit" ${prefix === 'timer' ? html`data-shortcut="timer"` : ''}>
      ${t('timer.start')}${prefix === 'timer' ? html` <kbd>s</kbd>` : html`<span class="vh"> ${t('timer.thisTimer')}</span>`}
    </button>
  </form>`;
}

/**
 * The timer line: a new timer (what, project, task, tags, Billable, when it started: all the entry
 * needs in one form), or the running one editable in place with its time ticking, Stop, and
 * another timer to start (`n`).
 */
export function timerLine(m: TimerModel, week: string): Html {
  const sent = m.sent ?? {};
  const r = m.running;
  if (!r) return startForm(m, week, 'timer', sent, m.errors);
  const started = timeText(Date.parse(r.start), m.zone, m.timeFormat);
  const projectId = sent.projectId ?? r.projectId;
  return html`<div class="timer running">
      <form method="post" action="${APP_PATH}/timer/save" aria-label="${t('timer.runningTimer')}" data-inplace>
        ${csrfField(m.csrfToken)}<input type="hidden" name="week" value="${week}" />
        <input type="hidden" name="version" value="${r.updatedAt}" />
        ${descriptionCombo('timer-description', t('timer.running'), sent.description ?? r.description, m.errors)}
        ${projectPicker('timer-project', m.projects, projectId)}
        ${taskPicker('timer-task', m.tasks, m.projects, projectId, sent.taskId ?? r.taskId)}
        ${tagChips('timer-tags', m.tags, sent.tagsShown ? (sent.tagIds ?? '').split(',').filter(Boolean) : r.tagIds)}
        ${billableBox('timer-billable', sent.billableFor !== undefined ? sent.billable === 'true' : r.billable, sent.billableFor ?? r.projectId ?? '')}
        ${startField(m, 'timer-start', sent.startedAt ?? started, m.errors)}
        <button class="secondary" type="submit">${t('common.save')}</button>
      </form>
      <p class="elapsed" aria-live="off">
        <time data-elapsed-from="${r.start}" data-title="${r.description || t('timer.timer')}" datetime="${r.start}"
          >${clockOf((m.now - Date.parse(r.start)) / 1000)}</time
        >
        <span class="hint">${t('timer.since', { time: started })}</span>
      </p>
      ${r.runaway ? html`<p class="notice error runaway">${runawayWords(r.runaway.action)}</p>` : ''}
      ${
        m.overlaps.length > 0
          ? html`<p class="overlap-note" role="note">
              <span aria-hidden="true">⚠</span>
              ${t('timer.overlapNote', { what: m.overlaps.map((o) => `“${o.description || t('week.anEntry')}” (${o.span})`).join(', ') })}
            </p>`
          : ''
      }
      <form method="post" action="${APP_PATH}/timer/stop" data-inplace>
        ${csrfField(m.csrfToken)}<input type="hidden" name="week" value="${week}" />
        <button class="stop" type="submit" data-shortcut="timer">${t('timer.stop')} <kbd>s</kbd></button>
      </form>
    </div>
    <details class="next-timer" ${m.nextSent ? html`open` : ''}>
      <summary>${t('timer.startAnother')} <kbd>n</kbd> <span class="hint inline">${t('timer.thisOneStops')}</span></summary>
      ${startForm(m, week, 'next', m.nextSent ?? {}, m.nextErrors)}
    </details>`;
}
