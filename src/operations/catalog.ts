import type { Services } from '../services.js';
import { type Handler, noContent, ok } from './types.js';

export function catalogHandlers({ catalog }: Pick<Services, 'catalog'>) {
  const { clients, projects, tasks, tags } = catalog;
  const list = <T>(data: T[]) => ok({ data, nextCursor: null });

  const listClients: Handler<'listClients'> = ({ actor, query }) => list(clients.list(actor, query));
  const createClient: Handler<'createClient'> = ({ actor, body }) => ok({ data: clients.create(actor, body) });
  const getClient: Handler<'getClient'> = ({ actor, path }) => ok({ data: clients.get(actor, path.id) });
  const updateClient: Handler<'updateClient'> = ({ actor, path, body }) => ok({ data: clients.update(actor, path.id, body) });
  const deleteClient: Handler<'deleteClient'> = ({ actor, path }) => {
    clients.delete(actor, path.id);
    return noContent;
  };

  const listProjects: Handler<'listProjects'> = ({ actor, query }) => list(projects.list(actor, query));
  const createProject: Handler<'createProject'> = ({ actor, body }) => ok({ data: projects.create(actor, body) });
  const getProject: Handler<'getProject'> = ({ actor, path }) => ok({ data: projects.get(actor, path.id) });
  const updateProject: Handler<'updateProject'> = ({ actor, path, body }) => ok({ data: projects.update(actor, path.id, body) });
  const deleteProject: Handler<'deleteProject'> = ({ actor, path }) => {
    projects.delete(actor, path.id);
    return noContent;
  };

  const listTasks: Handler<'listTasks'> = ({ actor, query }) => list(tasks.list(actor, query));
  const createTask: Handler<'createTask'> = ({ actor, body }) => ok({ data: tasks.create(actor, body) });
  const getTask: Handler<'getTask'> = ({ actor, path }) => ok({ data: tasks.get(actor, path.id) });
  const updateTask: Handler<'updateTask'> = ({ actor, path, body }) => ok({ data: tasks.update(actor, path.id, body) });
  const deleteTask: Handler<'deleteTask'> = ({ actor, path }) => {
    tasks.delete(actor, path.id);
    return noContent;
  };

  const listTags: Handler<'listTags'> = ({ actor }) => list(tags.list(actor));
  const createTag: Handler<'createTag'> = ({ actor, body }) => ok({ data: tags.create(actor, body) });
  const getTag: Handler<'getTag'> = ({ actor, path }) => ok({ data: tags.get(actor, path.id) });
  const updateTag: Handler<'updateTag'> = ({ actor, path, body }) => ok({ data: tags.update(actor, path.id, body) });
  const deleteTag: Handler<'deleteTag'> = ({ actor, path }) => {
    tags.delete(actor, path.id);
    return noContent;
  };

  // prettier-ignore
  return {
    listClients, createClient, getClient, updateClient, deleteClient,
    listProjects, createProject, getProject, updateProject, deleteProject,
    listTasks, createTask, getTask, updateTask, deleteTask,
    listTags, createTag, getTag, updateTag, deleteTag,
  };
}
