import { errorAt, type FieldErrors, invalidAt } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { type Key, t, type Vars } from '../../i18n/index.js';

/** A project as the pickers offer it: its client (grouped under it), its colour and its Billable default. */
export interface ProjectChoice {
  id: string;
  name: string;
  billable: boolean;
  clientName: string | null;
  color: string;
}

export interface TagChoice {
  id: string;
  name: string;
}

/** A task as the pickers offer it: its project (the picker follows the chosen one); archived ones only where already chosen. */
export interface TaskChoice {
  id: string;
  name: string;
  projectId: string;
  archived: boolean;
}

/**
 * The project picker: projects grouped by client (clients by name, then those without one), each
 * option carrying its Billable default for the page's script; a filter field above it (shown by
 * the script) narrows the list as one types.
 */
export function projectPicker(
  id: string,
  projects: readonly ProjectChoice[],
  selected: string | null | undefined,
  label = t('reports.grouping.project'),
): Html {
  const groups = new Map<string, ProjectChoice[]>();
  for (const p of projects) groups.set(p.clientName ?? '', [...(groups.get(p.clientName ?? '') ?? []), p]);
  const order = [...groups.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  const option = (p: ProjectChoice) =>
    html`<option value="${p.id}" data-billable="${String(p.billable)}" ${p.id === selected ? html`selected` : ''}>${p.name}</option>`;
  return html`<div class="field picker">
    <label for="${id}">${label}</label>
    <input
      type="search"
      class="picker-filter"
      data-filter-for="${id}"
      aria-label="${t('timer.filterProjects')}"
      placeholder="${t('timer.filter')}"
      hidden
    />
    <select id="${id}" name="projectId">
      <option value="" data-billable="false">${t('timer.noProject')}</option>
      ${order.map((client) =>
        client === '' && groups.size === 1
          ? (groups.get(client) ?? []).map(option)
          : html`<optgroup label="${client === '' ? t('catalog.noClient') : client}">${(groups.get(client) ?? []).map(option)}</optgroup>`,
      )}
    </select>
  </div>`;
}

/**
 * The task picker: the tasks of each project in a group of its own (every form works without the
 * script: a task of another project than the one chosen is refused with the service's words); the
 * page's script shows only the chosen project's tasks, and hides the field when it has none.
 */
export function taskPicker(
  id: string,
  tasks: readonly TaskChoice[],
  projects: readonly ProjectChoice[],
  projectId: string | null | undefined,
  selected: string | null | undefined,
): Html {
  const shown = tasks.filter((task) => !task.archived || task.id === selected);
  const groups = projects
    .map((p) => ({ project: p, tasks: shown.filter((task) => task.projectId === p.id) }))
    .filter((g) => g.tasks.length > 0 || g.project.id === projectId);
  // A chosen task whose project is not offered (archived) keeps its place, so a save does not drop it.
  const orphans = shown.filter((task) => !projects.some((p) => p.id === task.projectId));
  const option = (task: TaskChoice) =>
    html`<option value="${task.id}" data-project="${task.projectId}" ${task.id === selected ? html`selected` : ''}>${task.name}</option>`;
  // A workspace without tasks gets no field (an entry of it has none to keep).
  if (shown.length === 0) return html``;
  return html`<div class="field task-picker" data-task-picker>
    <label for="${id}">${t('reports.grouping.task')}</label>
    <select id="${id}" name="taskId">
      <option value="">${t('timer.noTask')}</option>
      ${groups.map((g) => html`<optgroup label="${g.project.name}" data-project="${g.project.id}">${g.tasks.map(option)}</optgroup>`)}
      ${orphans.map(option)}
    </select>
  </div>`;
}

/**
 * Tags as checkable chips (checkboxes: every form works without the script), in a disclosure
 * that names the chosen ones; the script adds a filter and creates a tag on Enter.
 */
export function tagChips(id: string, tags: readonly TagChoice[], selected: readonly string[]): Html | string {
  const chosen = tags.filter((tag) => selected.includes(tag.id));
  return html`<details class="field tags" data-tags>
    <summary id="${id}-summary">
      ${t('reports.tags')}${chosen.length > 0 ? html`: <span class="chosen">${chosen.map((tag) => tag.name).join(', ')}</span>` : ''}
    </summary>
    <fieldset class="chips" aria-labelledby="${id}-summary">
      <input type="hidden" name="tagsShown" value="true" />
      <input
        type="search"
        class="chip-filter"
        aria-label="${t('timer.filterTags')}"
        placeholder="${t('timer.filterTagsPlaceholder')}"
        hidden
      />
      ${tags.length === 0 ? html`<span class="hint none">${t('timer.noTags')}</span>` : ''}
      ${tags.map(
        (tag) =>
          html`<label class="chip"
            ><input type="checkbox" name="tagIds" value="${tag.id}" ${selected.includes(tag.id) ? html`checked` : ''} /><span
              >${tag.name}</span
            ></label
          >`,
      )}
    </fieldset>
  </details>`;
}

/**
 * The Billable checkbox of a form and the project whose default it shows (`billableFor`): a
 * form posted with another project than that one (the project changed, the box not) leaves
 * Billable to the project; the page's script keeps both in step as the project changes.
 */
export function billableBox(id: string, checked: boolean, shownFor: string): Html {
  return html`<input type="hidden" name="billableFor" value="${shownFor}" />
    <label class="check billable" for="${id}"
      ><input id="${id}" type="checkbox" name="billable" value="true" data-billable-box ${checked ? html`checked` : ''} />
      ${t('reports.billable')}</label
    >`;
}

/** The suggestions' words, which the page's script says (it has none of its own): by name, `_one` and `_other` for a count. */
const SUGGEST_WORDS: readonly Key[] = [
  'week.suggest.project',
  'week.suggest.task',
  'week.suggest.tag',
  'week.suggest.inGroup',
  'week.suggest.noProject',
  'week.suggest.chosenProject',
  'week.suggest.chosenTask',
  'week.suggest.chosenTag',
  'week.suggest.noProjects',
  'week.suggest.noTags',
  'week.suggest.noPast',
  'week.suggest.filled',
  'week.suggest.filledProject',
];
const SUGGEST_COUNTED: readonly Key[] = ['week.suggest.projectsMatch', 'week.suggest.tagsMatch', 'week.suggest.pastMatch'];

/** The suggestions' words in the reader's language, their `{{placeholders}}` left for the script to fill. */
function suggestWords(): string {
  const unfilled = (key: Key, count?: number) =>
    t(key, { ...(count === undefined ? {} : { count }), skipInterpolation: true } as unknown as Vars);
  const name = (key: Key) => key.split('.').pop() as string;
  const words: Record<string, string> = {};
  for (const key of SUGGEST_WORDS) words[name(key)] = unfilled(key);
  for (const key of SUGGEST_COUNTED) {
    words[`${name(key)}_one`] = unfilled(key, 1);
    words[`${name(key)}_other`] = unfilled(key, 2);
  }
  return JSON.stringify(words);
}

/**
 * A description field that suggests the member's past entries as they type (a combobox: the
 * script fills the list from the app's suggest route, Up/Down/Enter/Esc, announced); choosing one fills
 * the form's project, task, tags and Billable. Quick entry in the same list: `@` offers the
 * form's projects (and `project / task`), `#` its tags; choosing one sets the picker and takes the
 * word out of the text. A name typed whole (`@Audit`, `@Audit / Fieldwork`, `#onsite`) needs no
 * choosing: the server reads it when the form is sent (./quick-entry.ts), with or without the
 * script. Without the script it is a plain text field.
 */
export function descriptionCombo(id: string, label: string, value: string, errors: FieldErrors, placeholder = ''): Html {
  return html`<div class="field combo">
    <label for="${id}">${label}</label>
    <input
      id="${id}"
      name="description"
      type="text"
      maxlength="500"
      value="${value}"
      autocomplete="off"
      role="combobox"
      aria-autocomplete="list"
      aria-expanded="false"
      aria-controls="${id}-list"
      data-suggest
      data-words="${suggestWords()}"
      ${placeholder ? html`placeholder="${placeholder}"` : ''}
      ${invalidAt(id, errors.description)}
    />
    <ul id="${id}-list" role="listbox" class="suggestions" aria-label="${t('timer.suggestions')}" hidden></ul>
    ${errorAt(id, errors.description)}
  </div>`;
}
