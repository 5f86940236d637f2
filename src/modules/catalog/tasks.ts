import type { components } from '../../../generated/openapi.js';
import { catalogErrors } from './errors.js';
import type { Actor } from '../../principal.js';
import { type CatalogDeps, catalogEvent, copyGiven, stillReferenced } from './common.js';
import { acceptedName, nameKey, newNamedRow } from './names.js';
import type { tasks } from './schema.js';
import { type TaskView, taskView } from './views.js';
import { requireMoneyVisible } from './money.js';

type Schemas = components['schemas'];

/** Tasks of a project; their rate is withheld like the project's. */
export function createTasksService({ clock, write, repo, entries }: CatalogDeps) {
  const moneyVisible = (actor: Actor) => actor.canViewOthersMoney;

  return {
    list(actor: Actor, query: { archived?: boolean; projectIds?: string[] }): TaskView[] {
      return repo.tasks(actor.workspaceId, query).map((row) => taskView(row, moneyVisible(actor)));
    },

    get(actor: Actor, id: string): TaskView {
      return taskView(repo.task(actor.workspaceId, id), moneyVisible(actor));
    },

    create(actor: Actor, input: Schemas['TaskCreate']): TaskView {
      requireMoneyVisible(actor, input, ['hourlyRate']);
      const name = acceptedName(input.name);
      return write(
        (record) => {
          const project = repo.project(actor.workspaceId, input.projectId);
          if (project.archived) throw catalogErrors.projectArchived(project.id);
          const row = repo.insertTask({
            ...newNamedRow('tsk', actor.workspaceId, name, clock.now()),
            projectId: project.id,
            estimateSec: input.estimateSec ?? null,
            hourlyRate: input.hourlyRate ?? null,
          });
          record(catalogEvent(actor, 'task', row.id, 'create', taskView(row, true)));
          return taskView(row, moneyVisible(actor));
        },
        { conflict: () => `A task named "${name}" exists already in project ${input.projectId}.`, conflictField: 'name' },
      );
    },

    update(actor: Actor, id: string, patch: Schemas['TaskPatch']): TaskView {
      requireMoneyVisible(actor, patch, ['hourlyRate']);
      const name = patch.name === undefined ? undefined : acceptedName(patch.name);
      let projectId = '';
      return write(
        (record) => {
          const current = repo.task(actor.workspaceId, id);
          projectId = current.projectId;
          const values: Partial<typeof tasks.$inferInsert> = { updatedAt: clock.now() };
          if (name !== undefined) Object.assign(values, { name, nameKey: nameKey(name) });
          copyGiven(values, patch, ['estimateSec', 'hourlyRate', 'archived']);
          const row = repo.updateTask(id, values);
          record(catalogEvent(actor, 'task', id, 'update', taskView(row, true)));
          return taskView(row, moneyVisible(actor));
        },
        { conflict: () => `A task named "${name}" exists already in project ${projectId}.`, conflictField: 'name' },
      );
    },

    delete(actor: Actor, id: string): void {
      write(
        (record) => {
          repo.task(actor.workspaceId, id);
          if (entries().usesTask(id)) throw catalogErrors.taskHasEntries(id);
          repo.deleteTask(id);
          record(catalogEvent(actor, 'task', id, 'delete', { id }));
        },
        { referenced: stillReferenced('task', id) },
      );
    },
  };
}

export type TasksService = ReturnType<typeof createTasksService>;
