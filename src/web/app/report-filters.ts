import type { Request } from 'express';
import type { SessionView } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import type { ExportRequest } from '../../modules/reports/service.js';
import { type FieldErrors, inputField, selectField } from '../kit/fields.js';
import { type Html, html } from '../kit/html.js';
import { type Key, t } from '../../i18n/index.js';

/**
 * The Reports page's filters besides the range and whose time: client, project, task, tag,
 * billable and text, by the API's own parameter names (the address is the report: it can be kept
 * and shared). Each narrows the page, its chart and its downloads alike (AND across them).
 */
export const FILTERS = ['clientIds', 'projectIds', 'taskIds', 'tagIds', 'billable', 'search'] as const;
export type FilterName = (typeof FILTERS)[number];
export type FilterForm = Record<FilterName, string>;

/** What the filters offer: the workspace's catalog as the member may see it (archived ones marked). */
export interface FilterChoices {
  clients: Array<{ id: string; name: string; archived: boolean }>;
  projects: Array<{ id: string; name: string; archived: boolean; clientId: string | null }>;
  tasks: Array<{ id: string; name: string; archived: boolean; projectId: string }>;
  tags: Array<{ id: string; name: string }>;
}

/** The longest text the API searches for (its Search parameter). */
const SEARCH_MAX = 200;

const byName = <T extends { name: string }>(list: T[]): T[] => [...list].sort((a, b) => a.name.localeCompare(b.name));

export function filterChoices(deps: Pick<WebDeps, 'services'>, session: SessionView): FilterChoices {
  const { catalog } = deps.services;
  return {
    clients: byName(catalog.clients.list(session.actor, {}).map((c) => ({ id: c.id, name: c.name, archived: c.archived }))),
    projects: byName(
      catalog.projects.list(session.actor, {}).map((p) => ({ id: p.id, name: p.name, archived: p.archived, clientId: p.clientId })),
    ),
    tasks: byName(
      catalog.tasks.list(session.actor, {}).map((t) => ({ id: t.id, name: t.name, archived: t.archived, projectId: t.projectId })),
    ),
    tags: byName(catalog.tags.list(session.actor).map((t) => ({ id: t.id, name: t.name }))),
  };
}

const query = (req: Request, name: string): string => (typeof req.query[name] === 'string' ? (req.query[name] as string).trim() : '');

/** The filters from the address ('' where none). */
export const filtersOf = (req: Request): FilterForm => Object.fromEntries(FILTERS.map((name) => [name, query(req, name)])) as FilterForm;

/** A filter naming what the member cannot choose is refused at its field, with what to do. */
export function filterErrors(form: FilterForm, choices: FilterChoices): FieldErrors {
  const errors: FieldErrors = {};
  const known: Array<[FilterName, Array<{ id: string }>, Key]> = [
    ['clientIds', choices.clients, 'reports.filters.noClient'],
    ['projectIds', choices.projects, 'reports.filters.noProject'],
    ['taskIds', choices.tasks, 'reports.filters.noTask'],
    ['tagIds', choices.tags, 'reports.filters.noTag'],
  ];
  for (const [name, list, refusal] of known)
    if (form[name] !== '' && !list.some((item) => item.id === form[name])) errors[name] = t(refusal);
  if (!['', 'true', 'false'].includes(form.billable)) errors.billable = t('reports.filters.billableRefused');
  if (form.search.length > SEARCH_MAX) errors.search = t('reports.filters.searchTooLong', { count: SEARCH_MAX });
  return errors;
}

/** The filters as the reports service reads them (the API's query). */
export function filterQuery(form: FilterForm): NonNullable<ExportRequest['filters']> {
  return {
    ...(form.clientIds ? { clientIds: [form.clientIds] } : {}),
    ...(form.projectIds ? { projectIds: [form.projectIds] } : {}),
    ...(form.taskIds ? { taskIds: [form.taskIds] } : {}),
    ...(form.tagIds ? { tagIds: [form.tagIds] } : {}),
    ...(form.billable === '' ? {} : { billable: form.billable === 'true' }),
    ...(form.search ? { search: form.search } : {}),
  };
}

/** The filters set, as a person reads them: `Client Acme`, `Billable only`, `Text “kickoff”`. */
export function filterWords(form: FilterForm, choices: FilterChoices): string[] {
  const name = (list: Array<{ id: string; name: string }>, id: string) => list.find((item) => item.id === id)?.name ?? id;
  return [
    form.clientIds ? t('reports.filters.client', { name: name(choices.clients, form.clientIds) }) : '',
    form.projectIds ? t('reports.filters.project', { name: name(choices.projects, form.projectIds) }) : '',
    form.taskIds ? t('reports.filters.task', { name: name(choices.tasks, form.taskIds) }) : '',
    form.tagIds ? t('reports.filters.tag', { name: name(choices.tags, form.tagIds) }) : '',
    form.billable === 'true' ? t('reports.filters.billableOnly') : form.billable === 'false' ? t('reports.filters.notBillableOnly') : '',
    form.search ? t('reports.filters.text', { text: form.search }) : '',
  ].filter((word) => word !== '');
}

const archived = (item: { archived?: boolean }) => (item.archived ? ` ${t('reports.filters.archived')}` : '');

/** The filters of the Reports form, in a disclosure that is open while any is set (or refused). */
export function filterFields(form: FilterForm, choices: FilterChoices, errors: FieldErrors): Html {
  const set = filterWords(form, choices);
  const refused = FILTERS.some((name) => errors[name] !== undefined);
  const option = (item: { id: string; name: string; archived?: boolean }, value: string) =>
    html`<option value="${item.id}" ${item.id === value ? html`selected` : ''}>${item.name}${archived(item)}</option>`;
  const tasksByProject = choices.projects
    .map((p) => ({ project: p, tasks: choices.tasks.filter((t) => t.projectId === p.id) }))
    .filter((g) => g.tasks.length > 0);
  return html`<details class="filters" ${set.length > 0 || refused ? html`open` : ''}>
    <summary>${t('reports.filters.heading')}${set.length > 0 ? html`: <span class="chosen">${set.join(' · ')}</span>` : ''}</summary>
    <div class="grid">
      ${selectField(
        'report-client',
        'clientIds',
        t('reports.grouping.client'),
        html`<option value="">${t('reports.filters.anyClient')}</option>
          ${choices.clients.map((c) => option(c, form.clientIds))}`,
        errors.clientIds,
      )}
      ${selectField(
        'report-project',
        'projectIds',
        t('reports.grouping.project'),
        html`<option value="">${t('reports.filters.anyProject')}</option>
          ${choices.projects.map((p) => option(p, form.projectIds))}`,
        errors.projectIds,
      )}
      ${selectField(
        'report-task',
        'taskIds',
        t('reports.grouping.task'),
        html`<option value="">${t('reports.filters.anyTask')}</option>
          ${tasksByProject.map((g) => html`<optgroup label="${g.project.name}">${g.tasks.map((t) => option(t, form.taskIds))}</optgroup>`)}`,
        errors.taskIds,
      )}
      ${selectField(
        'report-tag',
        'tagIds',
        t('reports.grouping.tag'),
        html`<option value="">${t('reports.filters.anyTag')}</option>
          ${choices.tags.map((t) => option(t, form.tagIds))}`,
        errors.tagIds,
      )}
      ${selectField(
        'report-billable',
        'billable',
        t('reports.billable'),
        html`<option value="" ${form.billable === '' ? html`selected` : ''}>${t('reports.filters.either')}</option>
          <option value="true" ${form.billable === 'true' ? html`selected` : ''}>${t('reports.filters.billableOnly')}</option>
          <option value="false" ${form.billable === 'false' ? html`selected` : ''}>${t('reports.filters.notBillableOnly')}</option>`,
        errors.billable,
      )}
      ${inputField(
        'report-search',
        t('reports.filters.search'),
        html`type="search" name="search"`,
        form.search,
        errors.search,
        html`placeholder="${t('reports.filters.searchPlaceholder')}" maxlength="${SEARCH_MAX}"`,
      )}
    </div>
  </details>`;
}
