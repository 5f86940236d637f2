import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';
import { fold } from '../../../kernel/fold.js';
import type { Actor } from '../../../principal.js';
import type { EntryFilters } from '../filters.js';
import { entries, entryTags } from '../schema.js';

/** The conditions of a selection, and whether a search narrowed it to index candidates (then reading them beats reading the range). */
export interface Selection {
  conditions: SQL[];
  byCandidates: boolean;
}

/** The filters with the clients resolved: `clientIds` is a filter on these projects (the catalog's). */
export interface ResolvedFilters extends EntryFilters {
  projectsOfClients?: string[];
}

/**
 * The conditions every listing and report applies to entries: the workspace, the caller's own
 * rows without canViewOthersTime, and the filters. Shared so lists and reports select alike.
 */
export function entrySelection(db: Db, actor: Actor, filters: ResolvedFilters, use: keyof typeof CANDIDATES): Selection {
  const cap = CANDIDATES[use];
  const conditions: SQL[] = [eq(entries.workspaceId, actor.workspaceId)];
  // Without canViewOthersTime the rows are the caller's own.
  if (!actor.canViewOthersTime) conditions.push(eq(entries.authorId, actor.userId));
  if (filters.userIds) conditions.push(inArray(entries.authorId, filters.userIds));
  if (filters.projectIds) conditions.push(inArray(entries.projectId, filters.projectIds));
  if (filters.taskIds) conditions.push(inArray(entries.taskId, filters.taskIds));
  if (filters.clientIds) {
    // No project of those clients: a list no entry matches ('' is no id), not a constant false,
    // which leaves a query that names its index (INDEXED BY) without a plan.
    const ids = filters.projectsOfClients ?? [];
    conditions.push(inArray(entries.projectId, ids.length === 0 ? [''] : ids));
  }
  let byCandidates = false;
  if (filters.tagIds) {
    const listed = sql.join(
      filters.tagIds.map((tag) => sql`${tag}`),
      sql`, `,
    );
    // Each entry's own tags are in its row (tag_list, also in the covering report index).
    const tagged = sql`exists (select 1 from json_each(${entries.tagList}) where value in (${listed}))`;
    // A page of a listing: the entries of rarely used tags are the candidates (else the walk of
    // the range could be long); tags used on many entries fill a page in a few rows.
    const ids = use === 'page' ? tagCandidates(db, filters.tagIds, cap) : null;
    byCandidates = ids !== null;
    conditions.push(ids ? sql`${entries.id} in (select value from json_each(${JSON.stringify(ids)}))` : tagged);
  }
  if (filters.billable !== undefined) conditions.push(eq(entries.billable, filters.billable));
  if (filters.search === undefined || filters.search === '') return { conditions, byCandidates };
  const search = searchConditions(db, filters.search, cap);
  return { conditions: [...conditions, ...search.conditions], byCandidates: byCandidates || search.byCandidates };
}

/** The ids of the entries carrying any of the tags, or null when there are more than `cap`. */
function tagCandidates(db: Db, tagIds: string[], cap: number): string[] | null {
  const tagged = db
    .select({ id: entryTags.entryId })
    .from(entryTags)
    .where(inArray(entryTags.tagId, tagIds))
    .limit(cap + 1)
    .all();
  return tagged.length > cap ? null : tagged.map((t) => t.id);
}

/**
 * How many entries of the filtered tags, or found by a search in its index, are read as
 * candidates at most: a paged listing stops at its page (more candidates: reading the range in
 * order fills the page sooner); a report reads its whole range.
 */
export const CANDIDATES = { page: 20_000, report: 50_000 } as const;

/**
 * `search`: a case-insensitive substring of the description (both sides NFC-normalised and
 * lower-cased as JavaScript does: tt_fold). The trigram index entries_fts holds every
 * description folded that way (followed by two U+0001), so it finds a superset of the matches:
 * for a pattern of 3 or more characters, the entries containing its rarest trigram; for one of 1
 * or 2 characters, the entries with a trigram starting with it. Up to the cap (CANDIDATES) of
 * them become the candidates the query reads; a pattern found more often than that is common,
 * and the query reads the range instead (a page fills quickly; a report reads its range anyway).
 * Every row is then checked exactly: an all-ASCII description in SQL (lower() is ASCII's), any
 * other with the same folding in JavaScript (tt_fold).
 */
function searchConditions(db: Db, search: string, cap: number): Selection {
  const folded = fold(search);
  const ascii = sql`length(${entries.description}) = length(cast(${entries.description} as blob))`;
  // An ASCII description folds to ASCII: it can only contain an ASCII pattern.
  const exact = isAscii(folded)
    ? sql`(case when ${ascii} then instr(lower(${entries.description}), ${folded}) > 0 else instr(tt_fold(${entries.description}), ${folded}) > 0 end)`
    : sql`(not ${ascii} and instr(tt_fold(${entries.description}), ${folded}) > 0)`;
  const ids = searchCandidates(db, folded, cap);
  if (ids === null) return { conditions: [exact], byCandidates: false };
  return { conditions: [sql`${entries}.rowid in (select value from json_each(${JSON.stringify(ids)}))`, exact], byCandidates: true };
}

const isAscii = (text: string) => [...text].every((c) => c.charCodeAt(0) < 128);

/** The highest code point twice: every trigram starting with a pattern sorts below pattern + this. */
const TERMS_END = '\u{10FFFF}\u{10FFFF}';

/**
 * The rowids of the entries whose folded description may contain `folded`, or null when more
 * than `cap`: the index's matches, and every entry written since the index last caught up
 * (entries_fts_pending: a second's writes, usually none).
 */
export function searchCandidates(db: Db, folded: string, cap: number): number[] | null {
  const queued = db.all<{ id: number }>(sql`select entry_rowid as id from entries_fts_pending limit ${cap + 1}`);
  const indexed = queued.length > cap ? null : indexedCandidates(db, folded, cap - queued.length);
  if (indexed === null) return null;
  return queued.length === 0 ? indexed : [...new Set([...indexed, ...queued.map((r) => r.id)])];
}

function indexedCandidates(db: Db, folded: string, cap: number): number[] | null {
  const points = [...folded];
  if (points.length < 3) {
    const rows = db.all<{ id: number }>(
      sql`select distinct doc as id from entries_fts_terms where term >= ${folded} and term < ${folded + TERMS_END} limit ${cap + 1}`,
    );
    return rows.length > cap ? null : rows.map((r) => r.id);
  }
  // The rarest trigram: each one counted up to the rarest so far (a common one stops early).
  // The pattern's end first: its distinctive part (a number, a name) is often there.
  const trigrams = [...new Set(points.slice(2).map((_, i) => points.slice(i, i + 3).join('')))].reverse();
  let rarest: string | null = null;
  let fewest = cap + 1;
  for (const trigram of trigrams) {
    const { n } = db.get<{ n: number }>(
      sql`select count(*) as n from (select rowid from entries_fts where entries_fts match ${phrase(trigram)} limit ${fewest})`,
    );
    if (n < fewest) [rarest, fewest] = [trigram, n];
  }
  if (rarest === null) return null;
  return db.all<{ id: number }>(sql`select rowid as id from entries_fts where entries_fts match ${phrase(rarest)}`).map((r) => r.id);
}

const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
