import type { DomainEvent } from '../events/service.js';
import type { EventActor } from '../events/service.js';

type RecordEvent = (event: DomainEvent) => number;
import { recordOfRow, rowOfRecord } from '../../db/records.js';
import { newId } from '../../ids.js';
import { type CatalogDeps, type CatalogEntity, catalogEvent } from './common.js';
import { cleanName, nameKey } from './names.js';
import type { ClientRow, ProjectRow, ProjectWithTotals, TagRow, TaskRow } from './repository.js';
import { checkPartyDetails } from './clients.js';
import { clients } from './schema.js';
import { parseClientLanguage } from '../../kernel/document-languages.js';
import { parseClientRounding } from '../../kernel/rounding.js';
import { recordVersionRefusal } from '../../kernel/input.js';
import { DomainError } from '../../errors.js';
import { words } from '../../i18n/index.js';
import { clientView, projectView, tagView, taskView } from './views.js';

const PROJECT_COLOR = '#9e9e9e';

/** What an import may set on a catalog row it created (the timetrack format's catalog records); absent: left as created. */
export interface CatalogAttributes {
  archived?: boolean;
  /** Projects: the color, the billable default, the budget. */
  color?: string;
  billable?: boolean;
  budgetAmount?: number | null;
  /** Projects and tasks. */
  hourlyRate?: number | null;
  estimateSec?: number | null;
  /** Projects and tasks: their own VAT (decisions §12; null category: the invoice's own). */
  taxCategory?: string | null;
  taxRate?: number | null;
}

/** A row an import found or created (created rows are recorded by the import, for its undo). */
export interface Found<Row> {
  row: Row;
  created: boolean;
}

/**
 * The catalog as an import sees it: clients, projects (under their client), tasks (under their
 * project) and tags found by name the way the catalog compares names (trimmed, NFC,
 * case-insensitive), and created when missing, inside the import's write, each with its sync
 * event. Archived rows are used as they are. `find*` only look (a dry run).
 */
export function createCatalogImports({ clock, repo, entries }: CatalogDeps) {
  const by = (workspaceId: string, actor: EventActor) => ({ workspaceId, userId: actor.userId, tokenId: actor.tokenId });
  const stamp = () => {
    const now = clock.now();
    return { createdAt: now, updatedAt: now };
  };
  return {
    findClient: (workspaceId: string, name: string) => repo.clientByKey(workspaceId, nameKey(name)),
    findProject: (workspaceId: string, clientId: string | null, name: string) =>
      repo.projectByKey(workspaceId, clientId ?? '', nameKey(name)),
    findTask: (projectId: string, name: string) => repo.taskByKey(projectId, nameKey(name)),
    findTag: (workspaceId: string, name: string) => repo.tagByKey(workspaceId, nameKey(name)),

    client(record: RecordEvent, workspaceId: string, actor: EventActor, name: string): Found<ClientRow> {
      const found = repo.clientByKey(workspaceId, nameKey(name));
      if (found) return { row: found, created: false };
      const clean = cleanName(name);
      const row = repo.insertClient({ id: newId('cli'), workspaceId, name: clean, nameKey: nameKey(clean), ...stamp() });
      record(catalogEvent(by(workspaceId, actor), 'client', row.id, 'create', clientView(row)));
      return { row, created: true };
    },

    project(record: RecordEvent, workspaceId: string, actor: EventActor, clientId: string | null, name: string): Found<ProjectRow> {
      const found = repo.projectByKey(workspaceId, clientId ?? '', nameKey(name));
      if (found) return { row: found, created: false };
      const clean = cleanName(name);
      const id = newId('prj');
      repo.insertProject({
        id,
        workspaceId,
        clientId,
        clientKey: clientId ?? '',
        name: clean,
        nameKey: nameKey(clean),
        color: PROJECT_COLOR,
        billable: false,
        hourlyRate: null,
        estimateSec: null,
        budgetAmount: null,
        ...stamp(),
      });
      record(
        catalogEvent(
          by(workspaceId, actor),
          'project',
          id,
          'create',
          projectView(repo.projectWithTotals(workspaceId, id), undefined, true),
        ),
      );
      return { row: repo.project(workspaceId, id), created: true };
    },

    task(record: RecordEvent, workspaceId: string, actor: EventActor, projectId: string, name: string): Found<TaskRow> {
      const found = repo.taskByKey(projectId, nameKey(name));
      if (found) return { row: found, created: false };
      const clean = cleanName(name);
      const row = repo.insertTask({
        id: newId('tsk'),
        workspaceId,
        projectId,
        name: clean,
        nameKey: nameKey(clean),
        estimateSec: null,
        hourlyRate: null,
        ...stamp(),
      });
      record(catalogEvent(by(workspaceId, actor), 'task', row.id, 'create', taskView(row, true)));
      return { row, created: true };
    },

    tag(record: RecordEvent, workspaceId: string, actor: EventActor, name: string): Found<TagRow> {
      const found = repo.tagByKey(workspaceId, nameKey(name));
      if (found) return { row: found, created: false };
      const clean = cleanName(name);
      const row = repo.insertTag({ id: newId('tag'), workspaceId, name: clean, nameKey: nameKey(clean), ...stamp() });
      record(catalogEvent(by(workspaceId, actor), 'tag', row.id, 'create', tagView(row)));
      return { row, created: true };
    },

    ...transfer({ clock, repo }),

    /**
     * Deletes a row an import created, inside the caller's write, when nothing references it any
     * more (an entry, a task of a project, a project of a client); whether it went.
     */
    deleteIfUnused(record: RecordEvent, workspaceId: string, actor: EventActor, kind: CatalogEntity, id: string): boolean {
      const inUse =
        kind === 'tag'
          ? entries().usesTag(id)
          : kind === 'task'
            ? entries().usesTask(id)
            : kind === 'project'
              ? entries().usesProject(id) || repo.projectHasTasks(id)
              : repo.clientHasProjects(id);
      if (inUse) return false;
      if (kind === 'tag') repo.deleteTag(id);
      else if (kind === 'task') repo.deleteTask(id);
      else if (kind === 'project') repo.deleteProject(id);
      else repo.deleteClient(id);
      record(catalogEvent(by(workspaceId, actor), kind, id, 'delete', { id }));
      return true;
    },
  };
}

export type CatalogImports = ReturnType<typeof createCatalogImports>;

/** The columns of a client its record leaves out: what an import gives (id, workspace) or reads from its own columns (name, archived). */
const CLIENT_IDENTITY = ['id', 'workspaceId', 'name', 'nameKey', 'archived', 'createdAt', 'updatedAt'] as const;
/** The version of a client's record; an import refuses one of a version it does not know. */
export const CLIENT_RECORD_VERSION = 1;

/**
 * A client's invoicing details as a file carries them (the timetrack format's `data` of a client
 * row), checked before anything is written: the version, each column by its type (the address a
 * list of lines), then by the rules of the API and the Catalog page (`checkPartyDetails`). Returns the
 * values as they will be stored and the names of columns this version does not know (left out).
 */
export function checkClientRecord(data: unknown): { values: Record<string, unknown>; unknown: string[] } {
  const record = data as { v?: unknown; client?: unknown };
  if (record?.v !== CLIENT_RECORD_VERSION) throw recordVersionRefusal('client', record?.v);
  if (typeof record.client !== 'object' || record.client === null)
    throw new DomainError('invalid', 'the client record has no client object', {
      words: words('integrations.imports.records.noObject', { record: 'client' }),
    });
  const read = rowOfRecord(clients, record.client as Record<string, unknown>, CLIENT_IDENTITY);
  const lines = read.values.addressLines;
  if (lines !== undefined && lines !== null && !(Array.isArray(lines) && lines.every((line) => typeof line === 'string')))
    throw new DomainError('invalid', `addressLines must be a list of lines (got ${JSON.stringify(lines)})`, {
      words: words('integrations.imports.records.addressLines', { got: String(JSON.stringify(lines)) }),
    });
  // The rules of the API and the Catalog page (issue 54 N3): a file's details are stored only as they would be.
  try {
    const values = checkPartyDetails(read.values);
    // Its rounding rule over the workspace's (issue 56 item 4), as the Catalog page and the command line check it.
    if (read.values.rounding !== undefined) values.rounding = parseClientRounding(read.values.rounding, 'rounding');
    // Its document language over the workspace's (decisions §12), as the Catalog page and the command line check it.
    if (read.values.language !== undefined) values.language = parseClientLanguage(read.values.language, 'language');
    return { values, unknown: read.unknown };
  } catch (error) {
    if (error instanceof DomainError) throw new Error(`the client's invoicing details: ${error.message}`, { cause: error });
    throw error;
  }
}

/** What an import sets on the rows it created, and what an export reads: a workspace's whole catalog. */
function transfer({ clock, repo }: Pick<CatalogDeps, 'clock' | 'repo'>) {
  const by = (workspaceId: string, actor: EventActor) => ({ workspaceId, userId: actor.userId, tokenId: actor.tokenId });
  return {
    /**
     * Sets what a file says of a row the import created (archived, a project's color, default,
     * rate, estimate and budget, a task's rate and estimate), inside the caller's write, with
     * its sync event. Rows the import found are left as they are: the workspace's settings win.
     */
    configure(
      record: RecordEvent,
      workspaceId: string,
      actor: EventActor,
      kind: CatalogEntity,
      id: string,
      attrs: CatalogAttributes,
    ): void {
      const updatedAt = clock.now();
      const given = <K extends keyof CatalogAttributes>(keys: K[]) =>
        Object.fromEntries(keys.filter((k) => attrs[k] !== undefined).map((k) => [k, attrs[k]])) as Pick<CatalogAttributes, K>;
      if (kind === 'client') {
        const row = repo.updateClient(id, { ...given(['archived']), updatedAt });
        record(catalogEvent(by(workspaceId, actor), 'client', id, 'update', clientView(row)));
      } else if (kind === 'project') {
        repo.updateProject(id, {
          ...given(['archived', 'color', 'billable', 'budgetAmount', 'hourlyRate', 'estimateSec', 'taxCategory', 'taxRate']),
          updatedAt,
        });
        record(
          catalogEvent(
            by(workspaceId, actor),
            'project',
            id,
            'update',
            projectView(repo.projectWithTotals(workspaceId, id), undefined, true),
          ),
        );
      } else if (kind === 'task') {
        const row = repo.updateTask(id, { ...given(['archived', 'hourlyRate', 'estimateSec', 'taxCategory', 'taxRate']), updatedAt });
        record(catalogEvent(by(workspaceId, actor), 'task', id, 'update', taskView(row, true)));
      }
    },

    /** A client's record in a workspace's export: every column but those of its identity (its invoicing details, decisions 11a). */
    clientRecord: (row: ClientRow): { v: number; client: Record<string, unknown> } => ({
      v: CLIENT_RECORD_VERSION,
      client: recordOfRow(row, CLIENT_IDENTITY),
    }),

    /** Sets a client's details from its record (checkClientRecord's values) on a client the import created, inside its write. */
    restoreClient(record: RecordEvent, workspaceId: string, actor: EventActor, id: string, values: Record<string, unknown>): void {
      if (Object.keys(values).length === 0) return;
      const row = repo.updateClient(id, { ...(values as Partial<ClientRow>), updatedAt: clock.now() });
      record(catalogEvent(by(workspaceId, actor), 'client', id, 'update', clientView(row)));
    },

    /** A workspace's whole catalog, archived rows included (its export). */
    snapshot(workspaceId: string): { clients: ClientRow[]; projects: ProjectWithTotals[]; tasks: TaskRow[]; tags: TagRow[] } {
      return {
        clients: repo.clients(workspaceId, {}),
        projects: repo.projectsWithTotals(workspaceId),
        tasks: repo.tasks(workspaceId, {}),
        tags: repo.tags(workspaceId),
      };
    },
  };
}
