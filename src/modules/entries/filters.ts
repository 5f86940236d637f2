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

/** The conditions of a selection, and whether a search narrowed it to index candidates (then reading them beats reading the range). */
export interface Selection {
  conditions: SQL[];
  byCandidates: boolean;
}

/**
 * The conditions every listing and report applies to entries: the workspace, the caller's own
 * rows without canViewOthersTime, and the filters. Shared so lists and reports select alike.
 */
export function entrySelection(db: Db, actor: Actor, filters: EntryFilters, use: keyof typeof CANDIDATES): Selection {
  const cap = CANDIDATES[use];
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
  let byCandidates = false;
  if (filters.tagIds) {
    // Tags used on few entries: those entries are the candidates. Tags used on many: each row
    // of the range is checked, and a page fills quickly.
    const tagged = db
      .select({ id: entryTags.entryId })
      .from(entryTags)
      .where(inArray(entryTags.tagId, filters.tagIds))
      .limit(cap + 1)
      .all();
    byCandidates = tagged.length <= cap;
    conditions.push(
      byCandidates
        ? sql`${entries.id} in (select value from json_each(${JSON.stringify(tagged.map((t) => t.id))}))`
        : // One seek on the entry's tags (the unary + keeps SQLite from a seek per listed tag).
          sql`exists (select 1 from ${entryTags} where ${entryTags.entryId} = ${entries.id} and +${entryTags.tagId} in (${sql.join(
            filters.tagIds.map((tag) => sql`${tag}`),
            sql`, `,
          )}))`,
    );
  }
  if (filters.billable !== undefined) conditions.push(eq(entries.billable, filters.billable));
  if (filters.search === undefined || filters.search === '') return { conditions, byCandidates };
  const search = searchConditions(db, filters.search, cap);
  return { conditions: [...conditions, ...search.conditions], byCandidates: byCandidates || search.byCandidates };
}

/**
 * How many entries of the filtered tags, or found by a search in its index, are read as
 * candidates at most: a paged listing stops at its page (more candidates: reading the range in
 * order fills the page sooner); a report reads its whole range.
 */
export const CANDIDATES = { page: 10_000, report: 50_000 } as const;

/**
 * `search`: a case-insensitive substring of the description (both sides NFC-normalised and
 * lower-cased as JavaScript does). A pattern of 3 or more characters first looks its entries up
 * in the trigram index entries_fts (in NFC and NFD, whichever the description was stored in):
 * up to the cap (CANDIDATES) of them become the candidates the query reads; a pattern found more
 * often than that is common, and the query reads the range, where a page fills quickly. Every
 * row is then checked exactly: an all-ASCII description in SQL (lower() is ASCII's), any other
 * with the same folding in JavaScript (tt_fold).
 */
const isAscii = (text: string) => [...text].every((c) => c.charCodeAt(0) < 128);

function searchConditions(db: Db, search: string, cap: number): Selection {
  const folded = search.normalize('NFC').toLowerCase();
  const ascii = sql`length(${entries.description}) = length(cast(${entries.description} as blob))`;
  // An ASCII description folds to ASCII: it can only contain an ASCII pattern.
  const exact = isAscii(folded)
    ? sql`(case when ${ascii} then instr(lower(${entries.description}), ${folded}) > 0 else instr(tt_fold(${entries.description}), ${folded}) > 0 end)`
    : sql`(not ${ascii} and instr(tt_fold(${entries.description}), ${folded}) > 0)`;
  if ([...search].length < 3) return { conditions: [exact], byCandidates: false };
  const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
  const forms = [...new Set([search.normalize('NFC'), search.normalize('NFD')])];
  const match = forms.map(phrase).join(' OR ');
  const candidates = db.all<{ id: number }>(sql`select rowid as id from entries_fts where entries_fts match ${match} limit ${cap + 1}`);
  if (candidates.length > cap) return { conditions: [exact], byCandidates: false };
  const ids = JSON.stringify(candidates.map((c) => c.id));
  return { conditions: [sql`${entries}.rowid in (select value from json_each(${ids}))`, exact], byCandidates: true };
}
