import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Actor } from '../../actor.js';
import type { Db } from '../../db/database.js';
import { projects } from '../catalog/schema.js';
import { entries, entryTags } from './schema.js';

/** The filters of GET /entries and the reports (AND across filters, any of the values within one). */
export interface EntryFilters {
  projectIds?: string[];
  clientIds?: string[];
  taskIds?: string[];
  tagIds?: string[];
  userIds?: string[];
  billable?: boolean;
  search?: string;
}

const LIST_FILTERS = ['projectIds', 'clientIds', 'taskIds', 'tagIds', 'userIds'] as const;

/**
 * The entry filters of a validated query, picked by name (never by rest-spread: a new query
 * parameter must not silently become a filter, or change a cursor's fingerprint). Lists are
 * sets: deduplicated and sorted, so their order in the query string means nothing.
 */
export function pickEntryFilters(query: EntryFilters): EntryFilters {
  const filters: EntryFilters = {};
  for (const name of LIST_FILTERS) {
    const values = query[name];
    if (values !== undefined) filters[name] = [...new Set(values)].sort();
  }
  if (query.billable !== undefined) filters.billable = query.billable;
  if (query.search !== undefined) filters.search = query.search;
  return filters;
}

/** Whether any filter is set. */
export const isFiltered = (filters: EntryFilters): boolean => Object.values(filters).some((value) => value !== undefined);

/**
 * The conditions every listing and report applies to entries: the workspace, the caller's own
 * rows without canViewOthersTime, and the filters. Shared so lists and reports select alike.
 */
export function entryFilterConditions(db: Db, actor: Actor, filters: EntryFilters): SQL[] {
  const conditions: SQL[] = [eq(entries.workspaceId, actor.workspaceId)];
  // Without canViewOthersTime the rows are the caller's own.
  if (!actor.canViewOthersTime) conditions.push(eq(entries.authorId, actor.userId));
  if (filters.userIds) conditions.push(inArray(entries.authorId, filters.userIds));
  if (filters.projectIds) conditions.push(inArray(entries.projectId, filters.projectIds));
  if (filters.taskIds) conditions.push(inArray(entries.taskId, filters.taskIds));
  if (filters.clientIds) {
    conditions.push(
      inArray(entries.projectId, db.select({ id: projects.id }).from(projects).where(inArray(projects.clientId, filters.clientIds))),
    );
  }
  if (filters.tagIds) {
    conditions.push(
      sql`exists (select 1 from ${entryTags} where ${entryTags.entryId} = ${entries.id} and ${inArray(entryTags.tagId, filters.tagIds)})`,
    );
  }
  if (filters.billable !== undefined) conditions.push(eq(entries.billable, filters.billable));
  if (filters.search !== undefined && filters.search !== '') {
    conditions.push(sql`instr(tt_fold(${entries.description}), ${filters.search.normalize('NFC').toLowerCase()}) > 0`);
  }
  return conditions;
}
