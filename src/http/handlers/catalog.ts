import type { CatalogService } from '../../modules/catalog/service.js';
import { type Handler, noContent, ok } from './types.js';

export function catalogHandlers({ catalog }: { catalog: CatalogService }) {
  const list = <T>(data: T[]) => ok({ data, nextCursor: null });

  const listClients: Handler<'listClients'> = ({ actor, query }) => list(catalog.listClients(actor, query));
  const createClient: Handler<'createClient'> = ({ actor, body }) => ok({ data: catalog.createClient(actor, body) });
  const getClient: Handler<'getClient'> = ({ actor, path }) => ok({ data: catalog.getClient(actor, path.id) });
  const updateClient: Handler<'updateClient'> = ({ actor, path, body }) => ok({ data: catalog.updateClient(actor, path.id, body) });
  const deleteClient: Handler<'deleteClient'> = ({ actor, path }) => {
    catalog.deleteClient(actor, path.id);
    return noContent;
  };

  const listProjects: Handler<'listProjects'> = ({ actor, query }) => list(catalog.listProjects(actor, query));
  const createProject: Handler<'createProject'> = ({ actor, body }) => ok({ data: catalog.createProject(actor, body) });
  const getProject: Handler<'getProject'> = ({ actor, path }) => ok({ data: catalog.getProject(actor, path.id) });
  const updateProject: Handler<'updateProject'> = ({ actor, path, body }) => ok({ data: catalog.updateProject(actor, path.id, body) });
  const deleteProject: Handler<'deleteProject'> = ({ actor, path }) => {
    catalog.deleteProject(actor, path.id);
    return noContent;
  };

  const listTasks: Handler<'listTasks'> = ({ actor, query }) => list(catalog.listTasks(actor, query));
  const createTask: Handler<'createTask'> = ({ actor, body }) => ok({ data: catalog.createTask(actor, body) });
  const getTask: Handler<'getTask'> = ({ actor, path }) => ok({ data: catalog.getTask(actor, path.id) });
  const updateTask: Handler<'updateTask'> = ({ actor, path, body }) => ok({ data: catalog.updateTask(actor, path.id, body) });
  const deleteTask: Handler<'deleteTask'> = ({ actor, path }) => {
    catalog.deleteTask(actor, path.id);
    return noContent;
  };

  const listTags: Handler<'listTags'> = ({ actor }) => list(catalog.listTags(actor));
  const createTag: Handler<'createTag'> = ({ actor, body }) => ok({ data: catalog.createTag(actor, body) });
  const getTag: Handler<'getTag'> = ({ actor, path }) => ok({ data: catalog.getTag(actor, path.id) });
  const updateTag: Handler<'updateTag'> = ({ actor, path, body }) => ok({ data: catalog.updateTag(actor, path.id, body) });
  const deleteTag: Handler<'deleteTag'> = ({ actor, path }) => {
    catalog.deleteTag(actor, path.id);
    return noContent;
  };

  return {
    listClients,
    createClient,
    getClient,
    updateClient,
    deleteClient,
    listProjects,
    createProject,
    getProject,
    updateProject,
    deleteProject,
    listTasks,
    createTask,
    getTask,
    updateTask,
    deleteTask,
    listTags,
    createTag,
    getTag,
    updateTag,
    deleteTag,
  };
}
