import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import { type Clock, toIso } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { entries, entryTags } from '../entries/schema.js';
import type { EventLog } from '../events/service.js';
import { cleanName, nameKey } from './names.js';
import { clients, projects, projectTotals, tags, tasks } from './schema.js';

type Schemas = components['schemas'];
export type ClientView = Schemas['Client'];
export type ProjectView = Schemas['Project'];
export type TaskView = Schemas['Task'];
export type TagView = Schemas['Tag'];

type ClientRow = typeof clients.$inferSelect;
type ProjectRow = typeof projects.$inferSelect;
type TaskRow = typeof tasks.$inferSelect;
type TagRow = typeof tags.$inferSelect;

const DEFAULT_COLOR = '#9e9e9e';
const PARTY_FIELDS = [
  'legalName',
  'addressLines',
  'postalCode',
  'city',
  'country',
  'taxId',
  'email',
  'reference',
  'vatId',
  'electronicAddress',
  'electronicAddressScheme',
] as const;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Copies the fields a partial edit gives (null included: it clears), leaving absent ones alone. */
function copyGiven<T extends object, K extends keyof T>(into: Partial<Record<K, unknown>>, patch: T, keys: readonly K[]): void {
  for (const key of keys) if (patch[key] !== undefined) into[key] = patch[key];
}
const round4 = (n: number) => Math.round(n * 10000) / 10000;

/**
 * Clients, projects, tasks and tags. Every write records a sync event in its transaction;
 * catalog writes send no webhooks. Names are unique per parent by unique indexes on name keys.
 */
export function createCatalogService({ db, clock, events }: { db: Db; clock: Clock; events: EventLog }) {
  const actorOf = (actor: Actor) => ({ userId: actor.userId, tokenId: actor.tokenId });

  /** Runs a write in an immediate transaction, turning a unique-index clash into 409. */
  function write<T>(clash: () => string, body: () => T): T {
    try {
      return db.transaction(body, { behavior: 'immediate' });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DomainError('conflict', clash());
      throw error;
    }
  }

  const clientView = (row: ClientRow): ClientView => ({
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    archived: row.archived,
    legalName: row.legalName,
    addressLines: row.addressLines ?? null,
    postalCode: row.postalCode,
    city: row.city,
    country: row.country,
    taxId: row.taxId,
    email: row.email,
    reference: row.reference,
    vatId: row.vatId,
    electronicAddress: row.electronicAddress,
    electronicAddressScheme: row.electronicAddressScheme,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  });

  const taskView = (row: TaskRow, actor: Actor | null): TaskView => ({
    id: row.id,
    workspaceId: row.workspaceId,
    projectId: row.projectId,
    name: row.name,
    estimateSec: row.estimateSec,
    hourlyRate: actor && !actor.canViewOthersMoney ? null : row.hourlyRate,
    archived: row.archived,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  });

  const tagView = (row: TagRow): TagView => ({
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  });

  /** A project with the stored totals of its completed entries, in one flat row. */
  const projectColumns = {
    id: projects.id,
    workspaceId: projects.workspaceId,
    clientId: projects.clientId,
    name: projects.name,
    color: projects.color,
    billable: projects.billable,
    hourlyRate: projects.hourlyRate,
    estimateSec: projects.estimateSec,
    budgetAmount: projects.budgetAmount,
    archived: projects.archived,
    createdAt: projects.createdAt,
    updatedAt: projects.updatedAt,
    trackedSec: projectTotals.trackedSec,
    billableSec: projectTotals.billableSec,
    amountCents: projectTotals.amountCents,
  };
  const projectsWithTotals = () =>
    db.select(projectColumns).from(projects).leftJoin(projectTotals, eq(projectTotals.projectId, projects.id));
  type ProjectWithTotals = ReturnType<ReturnType<typeof projectsWithTotals>['all']>[number];
  const allProjects = projectsWithTotals()
    .where(eq(projects.workspaceId, sql.placeholder('workspaceId')))
    .orderBy(asc(projects.nameKey), asc(projects.id))
    .prepare();
  const oneProject = projectsWithTotals()
    .where(and(eq(projects.workspaceId, sql.placeholder('workspaceId')), eq(projects.id, sql.placeholder('id'))))
    .prepare();
  const runningOfWorkspace = db
    .select({ projectId: entries.projectId, startAt: entries.startAt, billable: entries.billable, hourlyRate: entries.hourlyRate })
    .from(entries)
    .where(and(eq(entries.workspaceId, sql.placeholder('workspaceId')), isNull(entries.endAt)))
    .prepare();

  /** Progress adds the running timers (read through their partial index) to the stored totals. */
  function projectViews(rows: ProjectWithTotals[], actor: Actor): ProjectView[] {
    const withheld = !actor.canViewOthersMoney;
    const live = new Map<string, { trackedSec: number; billableSec: number; cents: number }>();
    if (!withheld && rows.length > 0) {
      const now = clock.now();
      for (const entry of runningOfWorkspace.all({ workspaceId: actor.workspaceId })) {
        if (entry.projectId === null) continue;
        const elapsed = Math.max(0, Math.floor((now - entry.startAt) / 1000));
        const sum = live.get(entry.projectId) ?? { trackedSec: 0, billableSec: 0, cents: 0 };
        sum.trackedSec += elapsed;
        if (entry.billable) {
          sum.billableSec += elapsed;
          if (entry.hourlyRate !== null) sum.cents += Math.round(round2((entry.hourlyRate * elapsed) / 3600) * 100);
        }
        live.set(entry.projectId, sum);
      }
    }
    return rows.map((row) => {
      const extra = live.get(row.id);
      const trackedSec = (row.trackedSec ?? 0) + (extra?.trackedSec ?? 0);
      const amount = ((row.amountCents ?? 0) + (extra?.cents ?? 0)) / 100;
      return {
        id: row.id,
        workspaceId: row.workspaceId,
        clientId: row.clientId,
        name: row.name,
        color: row.color,
        billable: row.billable,
        hourlyRate: withheld ? null : row.hourlyRate,
        estimateSec: row.estimateSec,
        budgetAmount: withheld ? null : row.budgetAmount,
        archived: row.archived,
        progress: withheld
          ? null
          : {
              trackedSec,
              billableSec: (row.billableSec ?? 0) + (extra?.billableSec ?? 0),
              amount,
              estimateRatio: row.estimateSec ? round4(trackedSec / row.estimateSec) : null,
              budgetRatio: row.budgetAmount ? round4(amount / row.budgetAmount) : null,
            },
        createdAt: toIso(row.createdAt),
        updatedAt: toIso(row.updatedAt),
      };
    });
  }

  function projectView(actor: Actor, id: string): ProjectView {
    const row = oneProject.get({ workspaceId: actor.workspaceId, id });
    if (!row) throw notFound(`Project ${id}`);
    return projectViews([row], actor)[0] as ProjectView;
  }

  const archivedFilter = (
    column: typeof clients.archived | typeof projects.archived | typeof tasks.archived,
    archived?: boolean,
  ): SQL | undefined => (archived === undefined ? undefined : eq(column, archived));

  function findClient(workspaceId: string, id: string): ClientRow {
    const row = db
      .select()
      .from(clients)
      .where(and(eq(clients.workspaceId, workspaceId), eq(clients.id, id)))
      .get();
    if (!row) throw notFound(`Client ${id}`);
    return row;
  }
  function findProject(workspaceId: string, id: string): ProjectRow {
    const row = db
      .select()
      .from(projects)
      .where(and(eq(projects.workspaceId, workspaceId), eq(projects.id, id)))
      .get();
    if (!row) throw notFound(`Project ${id}`);
    return row;
  }
  function findTask(workspaceId: string, id: string): TaskRow {
    const row = db
      .select()
      .from(tasks)
      .where(and(eq(tasks.workspaceId, workspaceId), eq(tasks.id, id)))
      .get();
    if (!row) throw notFound(`Task ${id}`);
    return row;
  }
  function findTag(workspaceId: string, id: string): TagRow {
    const row = db
      .select()
      .from(tags)
      .where(and(eq(tags.workspaceId, workspaceId), eq(tags.id, id)))
      .get();
    if (!row) throw notFound(`Tag ${id}`);
    return row;
  }
  /** A client a project may be put under: in the workspace (else 404) and not archived (else 400). */
  function usableClient(workspaceId: string, id: string | null | undefined): string | null {
    if (id === null || id === undefined) return null;
    const client = findClient(workspaceId, id);
    if (client.archived) throw new DomainError('invalid', `clientId: client ${id} is archived; unarchive it first.`);
    return client.id;
  }

  const partyValues = (input: Partial<Record<(typeof PARTY_FIELDS)[number], unknown>>) => {
    const values: Partial<typeof clients.$inferInsert> = {};
    for (const field of PARTY_FIELDS) {
      if (input[field] === undefined) continue;
      const value = input[field];
      // Blank party fields are null.
      if (typeof value === 'string') (values as Record<string, unknown>)[field] = value.trim() === '' ? null : value.trim();
      else if (Array.isArray(value)) {
        // Blank lines are dropped; an address of blank lines is a blank field: null.
        const lines = value.map((line: string) => line.trim()).filter((line: string) => line !== '');
        (values as Record<string, unknown>)[field] = lines.length === 0 ? null : lines;
      } else (values as Record<string, unknown>)[field] = value;
    }
    return values;
  };

  const projectParentLabel = (clientId: string | null) => (clientId ? `client ${clientId}` : 'projects without a client');

  return {
    // Clients -----------------------------------------------------------------------------------
    listClients(actor: Actor, query: { archived?: boolean }): ClientView[] {
      return db
        .select()
        .from(clients)
        .where(and(eq(clients.workspaceId, actor.workspaceId), archivedFilter(clients.archived, query.archived)))
        .orderBy(asc(clients.nameKey), asc(clients.id))
        .all()
        .map(clientView);
    },
    getClient(actor: Actor, id: string): ClientView {
      return clientView(findClient(actor.workspaceId, id));
    },
    createClient(actor: Actor, input: Schemas['ClientCreate']): ClientView {
      const name = cleanName(input.name);
      return write(
        () => `A client named "${name}" exists already in this workspace.`,
        () => {
          const now = clock.now();
          const row = db
            .insert(clients)
            .values({
              id: newId('cli'),
              workspaceId: actor.workspaceId,
              name,
              nameKey: nameKey(name),
              ...partyValues(input),
              createdAt: now,
              updatedAt: now,
            })
            .returning()
            .get();
          const view = clientView(row);
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'client',
            entityId: row.id,
            operation: 'create',
            event: null,
            actor: actorOf(actor),
            payload: view,
          });
          return view;
        },
      );
    },
    updateClient(actor: Actor, id: string, patch: Schemas['ClientPatch']): ClientView {
      const name = patch.name === undefined ? undefined : cleanName(patch.name);
      return write(
        () => `A client named "${name}" exists already in this workspace.`,
        () => {
          findClient(actor.workspaceId, id);
          const values: Partial<typeof clients.$inferInsert> = { ...partyValues(patch), updatedAt: clock.now() };
          if (name !== undefined) Object.assign(values, { name, nameKey: nameKey(name) });
          if (patch.archived !== undefined) values.archived = patch.archived;
          const row = db.update(clients).set(values).where(eq(clients.id, id)).returning().get();
          const view = clientView(row as ClientRow);
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'client',
            entityId: id,
            operation: 'update',
            event: null,
            actor: actorOf(actor),
            payload: view,
          });
          return view;
        },
      );
    },
    deleteClient(actor: Actor, id: string): void {
      remove(actor, 'client', id, () => {
        findClient(actor.workspaceId, id);
        const used = db.select({ id: projects.id }).from(projects).where(eq(projects.clientId, id)).limit(1).get();
        if (used) throw new DomainError('conflict', `Client ${id} still has projects (${used.id}, …); archive it instead.`);
        db.delete(clients).where(eq(clients.id, id)).run();
      });
    },

    // Projects ----------------------------------------------------------------------------------
    listProjects(actor: Actor, query: { archived?: boolean; clientIds?: string[] }): ProjectView[] {
      const clientIds = query.clientIds ? new Set(query.clientIds) : null;
      const rows = allProjects
        .all({ workspaceId: actor.workspaceId })
        .filter(
          (row) =>
            (query.archived === undefined || row.archived === query.archived) &&
            (!clientIds || (row.clientId !== null && clientIds.has(row.clientId))),
        );
      return projectViews(rows, actor);
    },
    getProject(actor: Actor, id: string): ProjectView {
      return projectView(actor, id);
    },
    createProject(actor: Actor, input: Schemas['ProjectCreate']): ProjectView {
      const name = cleanName(input.name);
      let clientId: string | null = null;
      return write(
        () => `A project named "${name}" exists already among ${projectParentLabel(clientId)}.`,
        () => {
          clientId = usableClient(actor.workspaceId, input.clientId);
          const now = clock.now();
          const row = db
            .insert(projects)
            .values({
              id: newId('prj'),
              workspaceId: actor.workspaceId,
              clientId,
              clientKey: clientId ?? '',
              name,
              nameKey: nameKey(name),
              color: (input.color ?? DEFAULT_COLOR).toLowerCase(),
              billable: input.billable ?? false,
              hourlyRate: input.hourlyRate ?? null,
              estimateSec: input.estimateSec ?? null,
              budgetAmount: input.budgetAmount ?? null,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
            .get();
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'project',
            entityId: row.id,
            operation: 'create',
            event: null,
            actor: actorOf(actor),
            payload: row,
          });
          return projectView(actor, row.id);
        },
      );
    },
    updateProject(actor: Actor, id: string, patch: Schemas['ProjectPatch']): ProjectView {
      const name = patch.name === undefined ? undefined : cleanName(patch.name);
      let parent: string | null = null;
      let shownName = name ?? '';
      return write(
        () => `A project named "${shownName}" exists already among ${projectParentLabel(parent)}.`,
        () => {
          const current = findProject(actor.workspaceId, id);
          shownName = name ?? current.name;
          const values: Partial<typeof projects.$inferInsert> = { updatedAt: clock.now() };
          parent = current.clientId;
          if (patch.clientId !== undefined) {
            parent = patch.clientId === current.clientId ? current.clientId : usableClient(actor.workspaceId, patch.clientId);
            Object.assign(values, { clientId: parent, clientKey: parent ?? '' });
          }
          if (name !== undefined) Object.assign(values, { name, nameKey: nameKey(name) });
          if (patch.color !== undefined) values.color = patch.color.toLowerCase();
          copyGiven(values, patch, ['billable', 'hourlyRate', 'estimateSec', 'budgetAmount', 'archived']);
          const row = db.update(projects).set(values).where(eq(projects.id, id)).returning().get() as ProjectRow;
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'project',
            entityId: id,
            operation: 'update',
            event: null,
            actor: actorOf(actor),
            payload: row,
          });
          return projectView(actor, id);
        },
      );
    },
    deleteProject(actor: Actor, id: string): void {
      remove(actor, 'project', id, () => {
        findProject(actor.workspaceId, id);
        const used = db.select({ id: entries.id }).from(entries).where(eq(entries.projectId, id)).limit(1).get();
        if (used) throw new DomainError('conflict', `Project ${id} still has entries (${used.id}, …); archive it instead.`);
        db.delete(tasks).where(eq(tasks.projectId, id)).run();
        db.delete(projectTotals).where(eq(projectTotals.projectId, id)).run();
        db.delete(projects).where(eq(projects.id, id)).run();
      });
    },

    // Tasks -------------------------------------------------------------------------------------
    listTasks(actor: Actor, query: { archived?: boolean; projectIds?: string[] }): TaskView[] {
      return db
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.workspaceId, actor.workspaceId),
            archivedFilter(tasks.archived, query.archived),
            query.projectIds ? inArray(tasks.projectId, query.projectIds) : undefined,
          ),
        )
        .orderBy(asc(tasks.nameKey), asc(tasks.id))
        .all()
        .map((row) => taskView(row, actor));
    },
    getTask(actor: Actor, id: string): TaskView {
      return taskView(findTask(actor.workspaceId, id), actor);
    },
    createTask(actor: Actor, input: Schemas['TaskCreate']): TaskView {
      const name = cleanName(input.name);
      return write(
        () => `A task named "${name}" exists already in project ${input.projectId}.`,
        () => {
          const project = findProject(actor.workspaceId, input.projectId);
          if (project.archived) throw new DomainError('invalid', `projectId: project ${project.id} is archived; unarchive it first.`);
          const now = clock.now();
          const row = db
            .insert(tasks)
            .values({
              id: newId('tsk'),
              workspaceId: actor.workspaceId,
              projectId: project.id,
              name,
              nameKey: nameKey(name),
              estimateSec: input.estimateSec ?? null,
              hourlyRate: input.hourlyRate ?? null,
              createdAt: now,
              updatedAt: now,
            })
            .returning()
            .get();
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'task',
            entityId: row.id,
            operation: 'create',
            event: null,
            actor: actorOf(actor),
            payload: row,
          });
          return taskView(row, actor);
        },
      );
    },
    updateTask(actor: Actor, id: string, patch: Schemas['TaskPatch']): TaskView {
      const name = patch.name === undefined ? undefined : cleanName(patch.name);
      let projectId = '';
      return write(
        () => `A task named "${name}" exists already in project ${projectId}.`,
        () => {
          const current = findTask(actor.workspaceId, id);
          projectId = current.projectId;
          const values: Partial<typeof tasks.$inferInsert> = { updatedAt: clock.now() };
          if (name !== undefined) Object.assign(values, { name, nameKey: nameKey(name) });
          copyGiven(values, patch, ['estimateSec', 'hourlyRate', 'archived']);
          const row = db.update(tasks).set(values).where(eq(tasks.id, id)).returning().get() as TaskRow;
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'task',
            entityId: id,
            operation: 'update',
            event: null,
            actor: actorOf(actor),
            payload: row,
          });
          return taskView(row, actor);
        },
      );
    },
    deleteTask(actor: Actor, id: string): void {
      remove(actor, 'task', id, () => {
        findTask(actor.workspaceId, id);
        const used = db.select({ id: entries.id }).from(entries).where(eq(entries.taskId, id)).limit(1).get();
        if (used) throw new DomainError('conflict', `Task ${id} still has entries (${used.id}, …); archive it instead.`);
        db.delete(tasks).where(eq(tasks.id, id)).run();
      });
    },

    // Tags --------------------------------------------------------------------------------------
    listTags(actor: Actor): TagView[] {
      return db
        .select()
        .from(tags)
        .where(eq(tags.workspaceId, actor.workspaceId))
        .orderBy(asc(tags.nameKey), asc(tags.id))
        .all()
        .map(tagView);
    },
    getTag(actor: Actor, id: string): TagView {
      return tagView(findTag(actor.workspaceId, id));
    },
    createTag(actor: Actor, input: Schemas['TagCreate']): TagView {
      const name = cleanName(input.name);
      return write(
        () => `A tag named "${name}" exists already in this workspace.`,
        () => {
          const now = clock.now();
          const row = db
            .insert(tags)
            .values({ id: newId('tag'), workspaceId: actor.workspaceId, name, nameKey: nameKey(name), createdAt: now, updatedAt: now })
            .returning()
            .get();
          const view = tagView(row);
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'tag',
            entityId: row.id,
            operation: 'create',
            event: null,
            actor: actorOf(actor),
            payload: view,
          });
          return view;
        },
      );
    },
    updateTag(actor: Actor, id: string, patch: Schemas['TagPatch']): TagView {
      const name = cleanName(patch.name);
      return write(
        () => `A tag named "${name}" exists already in this workspace.`,
        () => {
          findTag(actor.workspaceId, id);
          const row = db
            .update(tags)
            .set({ name, nameKey: nameKey(name), updatedAt: clock.now() })
            .where(eq(tags.id, id))
            .returning()
            .get() as TagRow;
          const view = tagView(row);
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity: 'tag',
            entityId: id,
            operation: 'update',
            event: null,
            actor: actorOf(actor),
            payload: view,
          });
          return view;
        },
      );
    },
    deleteTag(actor: Actor, id: string): void {
      remove(actor, 'tag', id, () => {
        findTag(actor.workspaceId, id);
        const used = db.select({ id: entryTags.entryId }).from(entryTags).where(eq(entryTags.tagId, id)).limit(1).get();
        if (used) throw new DomainError('conflict', `Tag ${id} is still used by entries (${used.id}, …).`);
        db.delete(tags).where(eq(tags.id, id)).run();
      });
    },
  };

  /** A delete with its sync event; a foreign-key failure (a reference made meanwhile) is 409. */
  function remove(actor: Actor, entity: 'client' | 'project' | 'task' | 'tag', id: string, body: () => void): void {
    try {
      db.transaction(
        () => {
          body();
          events.record(db, {
            workspaceId: actor.workspaceId,
            entity,
            entityId: id,
            operation: 'delete',
            event: null,
            actor: actorOf(actor),
            payload: { id },
          });
        },
        { behavior: 'immediate' },
      );
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new DomainError('conflict', `The ${entity} ${id} is still referenced; archive it instead.`);
      throw error;
    }
  }
}

export type CatalogService = ReturnType<typeof createCatalogService>;
