import type { Services } from '../services.js';
import { byIdHandlers, type Handler, ok } from './types.js';

export function catalogHandlers({ catalog }: Pick<Services, 'catalog'>) {
  const { clients, projects, tasks, tags } = catalog;
  const list = <T>(data: T[]) => ok({ data, nextCursor: null });

  const listClients: Handler<'listClients'> = ({ actor, query }) => list(clients.list(actor, query));
  const client = byIdHandlers(clients);

  const listProjects: Handler<'listProjects'> = ({ actor, query }) => list(projects.list(actor, query));
  const project = byIdHandlers(projects);

  const listTasks: Handler<'listTasks'> = ({ actor, query }) => list(tasks.list(actor, query));
  const task = byIdHandlers(tasks);

  const listTags: Handler<'listTags'> = ({ actor }) => list(tags.list(actor));
  const tag = byIdHandlers(tags);

  // prettier-ignore
  return {
    listClients, createClient: client.create, getClient: client.get, updateClient: client.update, deleteClient: client.delete,
    listProjects, createProject: project.create, getProject: project.get, updateProject: project.update, deleteProject: project.delete,
    listTasks, createTask: task.create, getTask: task.get, updateTask: task.update, deleteTask: task.delete,
    listTags, createTag: tag.create, getTag: tag.get, updateTag: tag.update, deleteTag: tag.delete,
  };
}
