import { and, asc, eq, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { clients, projects, projectTotals, tags, tasks } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type ClientRow = typeof clients.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
export type TagRow = typeof tags.$inferSelect;

const p = (name: string) => sql.placeholder(name);

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
  taxCategory: projects.taxCategory,
  taxRate: projects.taxRate,
  archived: projects.archived,
  createdAt: projects.createdAt,
  updatedAt: projects.updatedAt,
  trackedSec: projectTotals.trackedSec,
  billableSec: projectTotals.billableSec,
  amountCents: projectTotals.amountCents,
};

/** The catalog's statements run by every write and look-up, each prepared at its first use. */
function catalogStatements(db: Db) {
  const projectsWithTotals = () =>
    db.select(projectColumns).from(projects).leftJoin(projectTotals, eq(projectTotals.projectId, projects.id));
  return preparedOnFirstUse(db, {
    client: () =>
      db
        .select()
        .from(clients)
        .where(and(eq(clients.workspaceId, p('workspaceId')), eq(clients.id, p('id'))))
        .prepare(),
    project: () =>
      db
        .select()
        .from(projects)
        .where(and(eq(projects.workspaceId, p('workspaceId')), eq(projects.id, p('id'))))
        .prepare(),
    task: () =>
      db
        .select()
        .from(tasks)
        .where(and(eq(tasks.workspaceId, p('workspaceId')), eq(tasks.id, p('id'))))
        .prepare(),
    tag: () =>
      db
        .select()
        .from(tags)
        .where(and(eq(tags.workspaceId, p('workspaceId')), eq(tags.id, p('id'))))
        .prepare(),
    projectWithTotals: () =>
      projectsWithTotals()
        .where(and(eq(projects.workspaceId, p('workspaceId')), eq(projects.id, p('id'))))
        .prepare(),
    projectsWithTotals: () =>
      projectsWithTotals()
        .where(eq(projects.workspaceId, p('workspaceId')))
        .orderBy(asc(projects.nameKey), asc(projects.id))
        .prepare(),
    tags: () =>
      db
        .select()
        .from(tags)
        .where(eq(tags.workspaceId, p('workspaceId')))
        .orderBy(asc(tags.nameKey), asc(tags.id))
        .prepare(),
    clientByKey: () =>
      db
        .select()
        .from(clients)
        .where(and(eq(clients.workspaceId, p('workspaceId')), eq(clients.nameKey, p('key'))))
        .prepare(),
    projectByKey: () =>
      db
        .select()
        .from(projects)
        .where(and(eq(projects.workspaceId, p('workspaceId')), eq(projects.clientKey, p('clientKey')), eq(projects.nameKey, p('key'))))
        .prepare(),
    taskByKey: () =>
      db
        .select()
        .from(tasks)
        .where(and(eq(tasks.projectId, p('projectId')), eq(tasks.nameKey, p('key'))))
        .prepare(),
    tagByKey: () =>
      db
        .select()
        .from(tags)
        .where(and(eq(tags.workspaceId, p('workspaceId')), eq(tags.nameKey, p('key'))))
        .prepare(),
    taskOfProject: () =>
      db
        .select({ id: tasks.id })
        .from(tasks)
        .where(eq(tasks.projectId, p('id')))
        .limit(1)
        .prepare(),
    projectOfClient: () =>
      db
        .select({ id: projects.id })
        .from(projects)
        .where(eq(projects.clientId, p('id')))
        .limit(1)
        .prepare(),
  });
}

/**
 * Every SQL statement of the catalog module, over its own tables (clients, projects, their
 * stored totals, tasks, tags): lookups by id within a workspace (404 when missing), the
 * listings, the names reports and entry lists show, and the writes.
 */
export function createCatalogRepository(db: Db) {
  const statements = catalogStatements(db);

  const found = <T>(row: T | undefined, what: string): T => {
    if (!row) throw notFound(what);
    return row;
  };
  const archived = (column: typeof clients.archived | typeof tasks.archived, value?: boolean): SQL | undefined =>
    value === undefined ? undefined : eq(column, value);

  return {
    client: (workspaceId: string, id: string): ClientRow => found(statements.client.get({ workspaceId, id }), `Client ${id}`),
    project: (workspaceId: string, id: string): ProjectRow => found(statements.project.get({ workspaceId, id }), `Project ${id}`),
    task: (workspaceId: string, id: string): TaskRow => found(statements.task.get({ workspaceId, id }), `Task ${id}`),
    tag: (workspaceId: string, id: string): TagRow => found(statements.tag.get({ workspaceId, id }), `Tag ${id}`),
    projectWithTotals: (workspaceId: string, id: string) => found(statements.projectWithTotals.get({ workspaceId, id }), `Project ${id}`),
    projectsWithTotals: (workspaceId: string) => statements.projectsWithTotals.all({ workspaceId }),
    clients: (workspaceId: string, filter: { archived?: boolean }): ClientRow[] =>
      db
        .select()
        .from(clients)
        .where(and(eq(clients.workspaceId, workspaceId), archived(clients.archived, filter.archived)))
        .orderBy(asc(clients.nameKey), asc(clients.id))
        .all(),
    tasks: (workspaceId: string, filter: { archived?: boolean; projectIds?: string[] }): TaskRow[] =>
      db
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.workspaceId, workspaceId),
            archived(tasks.archived, filter.archived),
            filter.projectIds ? inArray(tasks.projectId, filter.projectIds) : undefined,
          ),
        )
        .orderBy(asc(tasks.nameKey), asc(tasks.id))
        .all(),
    tags: (workspaceId: string): TagRow[] => statements.tags.all({ workspaceId }),
    /** Whether a project still refers to the client (a delete then answers 409: archive it instead). */
    clientHasProjects: (id: string) => statements.projectOfClient.get({ id }) !== undefined,
    projectHasTasks: (id: string) => statements.taskOfProject.get({ id }) !== undefined,
    /** Rows by name key (an import finds the names of its file the way the catalog compares them). */
    clientByKey: (workspaceId: string, key: string): ClientRow | undefined => statements.clientByKey.get({ workspaceId, key }),
    projectByKey: (workspaceId: string, clientKey: string, key: string): ProjectRow | undefined =>
      statements.projectByKey.get({ workspaceId, clientKey, key }),
    taskByKey: (projectId: string, key: string): TaskRow | undefined => statements.taskByKey.get({ projectId, key }),
    tagByKey: (workspaceId: string, key: string): TagRow | undefined => statements.tagByKey.get({ workspaceId, key }),
    ...names(db),
    ...writes(db),
  };
}

/** Names and links other modules show beside their rows (entry lists, reports, invoices). */
function names(db: Db) {
  // The ids as one JSON text: each statement is prepared once whatever the number of ids, not
  // built and compiled at every call (entry lists, reports and suggestions name rows on every
  // request: ~0.4 ms of a suggestion's, issue 60).
  const inList = sql`(select value from json_each(${p('ids')}))`;
  const statements = preparedOnFirstUse(db, {
    projectLabels: () =>
      db
        .select({ id: projects.id, name: projects.name, color: projects.color, clientId: projects.clientId, clientName: clients.name })
        .from(projects)
        .leftJoin(clients, eq(clients.id, projects.clientId))
        .where(and(eq(projects.workspaceId, p('workspaceId')), sql`${projects.id} in ${inList}`))
        .prepare(),
    taskNames: () =>
      db
        .select({ id: tasks.id, name: tasks.name })
        .from(tasks)
        .where(and(eq(tasks.workspaceId, p('workspaceId')), sql`${tasks.id} in ${inList}`))
        .prepare(),
    clientNames: () =>
      db
        .select({ id: clients.id, name: clients.name })
        .from(clients)
        .where(and(eq(clients.workspaceId, p('workspaceId')), sql`${clients.id} in ${inList}`))
        .prepare(),
    tagNames: () =>
      db
        .select({ id: tags.id, name: tags.name })
        .from(tags)
        .where(and(eq(tags.workspaceId, p('workspaceId')), sql`${tags.id} in ${inList}`))
        .prepare(),
  });
  const listed = (workspaceId: string, ids: string[]) => ({ workspaceId, ids: JSON.stringify(ids) });
  return {
    /** The projects of the workspace of this name key (one per client at most), with their client's name, by name key then id. */
    projectsNamed: (workspaceId: string, key: string) =>
      db
        .select({ id: projects.id, name: projects.name, clientName: clients.name })
        .from(projects)
        .leftJoin(clients, eq(clients.id, projects.clientId))
        .where(and(eq(projects.workspaceId, workspaceId), eq(projects.nameKey, key)))
        .orderBy(asc(projects.id))
        .all(),
    /** Projects of these ids in the workspace, with their client's name. */
    projectLabels: (workspaceId: string, ids: string[]) => (ids.length === 0 ? [] : statements.projectLabels.all(listed(workspaceId, ids))),
    taskNames: (workspaceId: string, ids: string[]) => (ids.length === 0 ? [] : statements.taskNames.all(listed(workspaceId, ids))),
    clientNames: (workspaceId: string, ids: string[]) => (ids.length === 0 ? [] : statements.clientNames.all(listed(workspaceId, ids))),
    tagNames: (workspaceId: string, ids: string[]) => (ids.length === 0 ? [] : statements.tagNames.all(listed(workspaceId, ids))),
    /** Every project's client in the workspace (reports fold projects into clients). */
    clientsOfProjects: (workspaceId: string) =>
      db.select({ id: projects.id, clientId: projects.clientId }).from(projects).where(eq(projects.workspaceId, workspaceId)).all(),
    /** The projects of these clients (an entry filter by client is a filter by their projects). */
    projectsOfClients: (workspaceId: string, clientIds: string[]): string[] =>
      db
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.workspaceId, workspaceId), inArray(projects.clientId, clientIds)))
        .all()
        .map((r) => r.id),
    /** Which of these tag ids exist in the workspace. */
    existingTags: (workspaceId: string, ids: string[]): Set<string> =>
      new Set(
        db
          .select({ id: tags.id })
          .from(tags)
          .where(and(eq(tags.workspaceId, workspaceId), inArray(tags.id, ids)))
          .all()
          .map((t) => t.id),
      ),
  };
}

/** The catalog's writes (each inside a write of the service). */
function writes(db: Db) {
  return {
    insertClient: (values: typeof clients.$inferInsert): ClientRow => db.insert(clients).values(values).returning().get(),
    /** The clients with a rounding rule of their own (the rest round as the workspace does). */
    clientRoundings: (workspaceId: string): Array<{ id: string; rounding: string }> =>
      db
        .select({ id: clients.id, rounding: sql<string>`${clients.rounding}` })
        .from(clients)
        .where(and(eq(clients.workspaceId, workspaceId), isNotNull(clients.rounding)))
        .all(),
    /** The clients with a document language of their own (decisions §12; the rest take the workspace's). */
    clientLanguages: (workspaceId: string): Array<{ id: string; language: string }> =>
      db
        .select({ id: clients.id, language: sql<string>`${clients.language}` })
        .from(clients)
        .where(and(eq(clients.workspaceId, workspaceId), isNotNull(clients.language)))
        .all(),
    /** The projects with a VAT of their own (decisions §12; the rest take the invoice's). */
    projectTaxes: (workspaceId: string): Array<{ id: string; taxCategory: string; taxRate: number | null }> =>
      db
        .select({ id: projects.id, taxCategory: sql<string>`${projects.taxCategory}`, taxRate: projects.taxRate })
        .from(projects)
        .where(and(eq(projects.workspaceId, workspaceId), isNotNull(projects.taxCategory)))
        .all(),
    /** The tasks with a VAT of their own (the rest take their project's). */
    taskTaxes: (workspaceId: string): Array<{ id: string; taxCategory: string; taxRate: number | null }> =>
      db
        .select({ id: tasks.id, taxCategory: sql<string>`${tasks.taxCategory}`, taxRate: tasks.taxRate })
        .from(tasks)
        .where(and(eq(tasks.workspaceId, workspaceId), isNotNull(tasks.taxCategory)))
        .all(),
    updateClient: (id: string, values: Partial<typeof clients.$inferInsert>): ClientRow =>
      db.update(clients).set(values).where(eq(clients.id, id)).returning().get() as ClientRow,
    deleteClient: (id: string): void => {
      db.delete(clients).where(eq(clients.id, id)).run();
    },
    insertProject: (values: typeof projects.$inferInsert): void => {
      db.insert(projects).values(values).run();
    },
    updateProject: (id: string, values: Partial<typeof projects.$inferInsert>): void => {
      db.update(projects).set(values).where(eq(projects.id, id)).run();
    },
    /** A project, its tasks and its stored totals. */
    deleteProject: (id: string): void => {
      db.delete(tasks).where(eq(tasks.projectId, id)).run();
      db.delete(projectTotals).where(eq(projectTotals.projectId, id)).run();
      db.delete(projects).where(eq(projects.id, id)).run();
    },
    insertTask: (values: typeof tasks.$inferInsert): TaskRow => db.insert(tasks).values(values).returning().get(),
    updateTask: (id: string, values: Partial<typeof tasks.$inferInsert>): TaskRow =>
      db.update(tasks).set(values).where(eq(tasks.id, id)).returning().get() as TaskRow,
    deleteTask: (id: string): void => {
      db.delete(tasks).where(eq(tasks.id, id)).run();
    },
    insertTag: (values: typeof tags.$inferInsert): TagRow => db.insert(tags).values(values).returning().get(),
    updateTag: (id: string, values: Partial<typeof tags.$inferInsert>): TagRow =>
      db.update(tags).set(values).where(eq(tags.id, id)).returning().get() as TagRow,
    deleteTag: (id: string): void => {
      db.delete(tags).where(eq(tags.id, id)).run();
    },
  };
}

export type CatalogRepository = ReturnType<typeof createCatalogRepository>;
export type ProjectWithTotals = ReturnType<CatalogRepository['projectWithTotals']>;
