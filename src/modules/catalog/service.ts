import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { DomainWrite } from '../events/service.js';
import { createClientsService } from './clients.js';
import { createProjectsService } from './projects.js';
import { createCatalogRepository } from './repository.js';
import { createTagsService } from './tags.js';
import { createTasksService } from './tasks.js';

/**
 * The catalog: clients, projects, tasks and tags over shared queries. Every write records a
 * sync event (the entity's API view) in its transaction; catalog writes send no webhooks. Names
 * are unique per parent by unique indexes on name keys, so two concurrent creates cannot both win.
 */
export function createCatalogService({ db, clock, write }: { db: Db; clock: Clock; write: DomainWrite }) {
  const deps = { db, clock, write, repo: createCatalogRepository(db) };
  const clients = createClientsService(deps);
  return {
    clients,
    projects: createProjectsService(deps, clients),
    tasks: createTasksService(deps),
    tags: createTagsService(deps),
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
