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
