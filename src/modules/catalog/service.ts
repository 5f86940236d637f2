import type { Clock } from '../../clock.js';
import type { DomainEvent, DomainWrite, EventActor } from '../events/service.js';
import type { InvoiceLanguage } from '../../kernel/document-languages.js';
import type { ClientRounding } from '../../kernel/rounding.js';
import { type OwnTax, ownTaxOf } from '../../kernel/tax.js';
import { createClientsService } from './clients.js';
import { nameKey } from './names.js';
import type { CatalogEntries } from './common.js';
import { createProjectsService } from './projects.js';
import type { CatalogRepository } from './repository.js';
import { createTagsService } from './tags.js';
import { createTasksService } from './tasks.js';
import { createCatalogImports } from './import.js';
import { catalogEvent } from './common.js';
import { clientView, projectView, taskView } from './views.js';

/**
 * The catalog: clients, projects, tasks and tags over shared queries. Every write records a
 * sync event (the entity's API view) in its transaction; catalog writes send no webhooks. Names
 * are unique per parent by unique indexes on name keys, so two concurrent creates cannot both win.
 */
export function createCatalogService(deps: {
  repo: CatalogRepository;
  clock: Clock;
  write: DomainWrite;
  /** The entries module (built after the catalog): whether rows are in use, the running timers. */
  entries: () => CatalogEntries;
}) {
  const { repo } = deps;
  const clients = createClientsService(deps);
  return {
    clients,
    projects: createProjectsService(deps, clients),
    tasks: createTasksService(deps),
    tags: createTagsService(deps),
    /** What an import finds and creates of the catalog (the imports module). */
    imports: createCatalogImports(deps),
    ...lookups(repo),

    /**
     * Stores a client's rounding rule (checked: kernel/rounding.ts), inside the caller's write, with
     * its sync event: the invoices module's port, which decides who may set it (issue 56 item 4).
     * The rule is not part of the API's client, so its view does not change but for `updatedAt`.
     */
    storeClientRounding(
      record: (event: DomainEvent) => number,
      workspaceId: string,
      actor: EventActor,
      id: string,
      rounding: ClientRounding,
    ): void {
      repo.client(workspaceId, id);
      const row = repo.updateClient(id, { rounding, updatedAt: deps.clock.now() });
      record(catalogEvent({ workspaceId, ...actor }, 'client', id, 'update', clientView(row)));
    },

    /**
     * Stores a client's own document language (checked: kernel/document-languages.ts; null: the
     * workspace's), inside the caller's write, with its sync event: the invoices module's port,
     * which decides who may set it (decisions §12). Not part of the API's client, so its view does
     * not change but for `updatedAt`.
     */
    storeClientLanguage(
      record: (event: DomainEvent) => number,
      workspaceId: string,
      actor: EventActor,
      id: string,
      language: InvoiceLanguage | null,
    ): void {
      repo.client(workspaceId, id);
      const row = repo.updateClient(id, { language, updatedAt: deps.clock.now() });
      record(catalogEvent({ workspaceId, ...actor }, 'client', id, 'update', clientView(row)));
    },

    /**
     * Stores a project's or a task's VAT of its own (decisions §12; checked by the caller with
     * kernel/tax.ts `parseOwnTax`; null: the invoice's own), inside the caller's write, with its
     * sync event: the invoices module's port, which decides who may set it. Not part of the API's
     * project or task, so their views do not change but for `updatedAt`.
     */
    storeWorkTax(
      record: (event: DomainEvent) => number,
      workspaceId: string,
      actor: EventActor,
      work: { kind: 'project' | 'task'; id: string },
      tax: OwnTax | null,
    ): void {
      const values = { taxCategory: tax?.category ?? null, taxRate: tax?.rate ?? null, updatedAt: deps.clock.now() };
      const by = { workspaceId, ...actor };
      if (work.kind === 'project') {
        repo.project(workspaceId, work.id);
        repo.updateProject(work.id, values);
        record(catalogEvent(by, 'project', work.id, 'update', projectView(repo.projectWithTotals(workspaceId, work.id), undefined, true)));
      } else {
        repo.task(workspaceId, work.id);
        record(catalogEvent(by, 'task', work.id, 'update', taskView(repo.updateTask(work.id, values), true)));
      }
    },

    /** The projects and tasks of a workspace with a VAT of their own, by id (the rest: the invoice's own, or their project's). */
    workTaxes(workspaceId: string): { projects: Map<string, OwnTax>; tasks: Map<string, OwnTax> } {
      const mapOf = (rows: Array<{ id: string; taxCategory: string; taxRate: number | null }>) =>
        new Map(rows.flatMap((r) => (ownTaxOf(r.taxCategory, r.taxRate) ? [[r.id, ownTaxOf(r.taxCategory, r.taxRate) as OwnTax]] : [])));
      return { projects: mapOf(repo.projectTaxes(workspaceId)), tasks: mapOf(repo.taskTaxes(workspaceId)) };
    },
  };
}

/** What other modules read of the catalog, for a workspace they act in already (no principal). */
function lookups(repo: CatalogRepository) {
  return {
    /** A project or task of the workspace (`not_found` otherwise), as entries resolve their work. */
    project: repo.project,
    task: repo.task,
    existingTags: repo.existingTags,
    projectLabels: repo.projectLabels,
    /** The projects of the workspace named so (compared as the catalog compares names; one per client at most), with their client's name. */
    projectsNamed: (workspaceId: string, name: string) => repo.projectsNamed(workspaceId, nameKey(name)),
    taskNames: repo.taskNames,
    clientNames: repo.clientNames,
    tagNames: repo.tagNames,
    clientsOfProjects: repo.clientsOfProjects,
    projectsOfClients: repo.projectsOfClients,
    client: repo.client,
    /** The clients with a rounding rule of their own: `{id, rounding}` (`none` or a rule). */
    clientRoundings: repo.clientRoundings,
    /** The clients with a document language of their own: `{id, language}`. */
    clientLanguages: repo.clientLanguages,
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
export type { CatalogEntries } from './common.js';
export type { ProjectRow, ProjectWithTotals, TaskRow, ClientRow, TagRow } from './repository.js';
export type { CatalogAttributes, CatalogImports } from './import.js';
export { checkClientRecord } from './import.js';
/** How the catalog compares names (an import keys what it found by it). */
export { nameKey } from './names.js';
