import { DomainError } from '../../errors.js';

/** The refusals of the catalog module, worded once. */
export const catalogErrors = {
  clientHasProjects: (id: string) => new DomainError('conflict', `Client ${id} still has projects; archive it instead.`),
  projectHasEntries: (id: string) => new DomainError('conflict', `Project ${id} still has entries; archive it instead.`),
  taskHasEntries: (id: string) => new DomainError('conflict', `Task ${id} still has entries; archive it instead.`),
  tagInUse: (id: string) => new DomainError('conflict', `Tag ${id} is still used by entries.`),
  clientArchived: (id: string) => new DomainError('invalid', `clientId: client ${id} is archived; unarchive it first.`),
  invalid: (message: string) => new DomainError('invalid', message),
  projectArchived: (id: string) => new DomainError('invalid', `projectId: project ${id} is archived; unarchive it first.`),
};
