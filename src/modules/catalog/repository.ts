import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { entries, entryTags } from '../entries/schema.js';
import { clients, projects, projectTotals, tags, tasks } from './schema.js';

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
  archived: projects.archived,
  createdAt: projects.createdAt,
  updatedAt: projects.updatedAt,
  trackedSec: projectTotals.trackedSec,
  billableSec: projectTotals.billableSec,
  amountCents: projectTotals.amountCents,
};

/**
 * The catalog's queries, prepared once: lookups by id within a workspace (404 when missing),
 * the listings, and the reference checks that decide whether a row may be deleted.
 */
export function createCatalogRepository(db: Db) {
  const projectsWithTotals = () =>
    db.select(projectColumns).from(projects).leftJoin(projectTotals, eq(projectTotals.projectId, projects.id));
  const statements = {
    client: db
      .select()
      .from(clients)
      .where(and(eq(clients.workspaceId, p('workspaceId')), eq(clients.id, p('id'))))
      .prepare(),
    project: db
      .select()
      .from(projects)
      .where(and(eq(projects.workspaceId, p('workspaceId')), eq(projects.id, p('id'))))
      .prepare(),
    task: db
      .select()
      .from(tasks)
      .where(and(eq(tasks.workspaceId, p('workspaceId')), eq(tasks.id, p('id'))))
      .prepare(),
    tag: db
      .select()
      .from(tags)
      .where(and(eq(tags.workspaceId, p('workspaceId')), eq(tags.id, p('id'))))
      .prepare(),
    projectWithTotals: projectsWithTotals()
      .where(and(eq(projects.workspaceId, p('workspaceId')), eq(projects.id, p('id'))))
      .prepare(),
    projectsWithTotals: projectsWithTotals()
      .where(eq(projects.workspaceId, p('workspaceId')))
      .orderBy(asc(projects.nameKey), asc(projects.id))
      .prepare(),
    // Read through the partial index of running timers (one per member at most).
    runningOfWorkspace: db
      .select({ projectId: entries.projectId, startAt: entries.startAt, billable: entries.billable, hourlyRate: entries.hourlyRate })
      .from(entries)
      .where(and(eq(entries.workspaceId, p('workspaceId')), isNull(entries.endAt)))
      .prepare(),
    tags: db
      .select()
      .from(tags)
      .where(eq(tags.workspaceId, p('workspaceId')))
      .orderBy(asc(tags.nameKey), asc(tags.id))
      .prepare(),
    projectOfClient: db
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects.clientId, p('id')))
      .limit(1)
      .prepare(),
    entryOfProject: db
      .select({ id: entries.id })
      .from(entries)
      .where(eq(entries.projectId, p('id')))
      .limit(1)
      .prepare(),
    entryOfTask: db
      .select({ id: entries.id })
      .from(entries)
      .where(eq(entries.taskId, p('id')))
      .limit(1)
      .prepare(),
    entryOfTag: db
      .select({ id: entryTags.entryId })
      .from(entryTags)
      .where(eq(entryTags.tagId, p('id')))
      .limit(1)
      .prepare(),
  };

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
    runningOfWorkspace: (workspaceId: string) => statements.runningOfWorkspace.all({ workspaceId }),
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
    /** Whether anything still refers to the row (a delete then answers 409: archive it instead). */
    clientHasProjects: (id: string) => statements.projectOfClient.get({ id }) !== undefined,
    projectHasEntries: (id: string) => statements.entryOfProject.get({ id }) !== undefined,
    taskHasEntries: (id: string) => statements.entryOfTask.get({ id }) !== undefined,
    tagHasEntries: (id: string) => statements.entryOfTag.get({ id }) !== undefined,
  };
}

export type CatalogRepository = ReturnType<typeof createCatalogRepository>;
export type ProjectWithTotals = ReturnType<CatalogRepository['projectWithTotals']>;
