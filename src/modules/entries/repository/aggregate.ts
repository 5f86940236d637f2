import { and, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';
import { localDaySql, type OffsetStretch } from '../../../kernel/local-days.js';
import type { Actor } from '../../../principal.js';
import { entries } from '../schema.js';
import { entrySelection, type ResolvedFilters } from './selection.js';

/**
 * A grouping key of an aggregation: a column of the entry, its tag list (each entry's tags,
 * counted under each tag by the caller), or its local day number in the report's zone.
 */
export type AggregateKey = 'project' | 'task' | 'user' | 'billable' | 'tag' | 'localDay';

export interface AggregateQuery {
  actor: Actor;
  filters: ResolvedFilters;
  from: number;
  to: number;
  /** Up to two keys. */
  keys: AggregateKey[];
  /** The zone's offsets over the range, for a `localDay` key. */
  stretches?: OffsetStretch[];
}

/** The sums of one group's entries, with up to two raw keys (and the tag list when a key is `tag`). */
export interface AggregateRow {
  k1: string | number | null;
  k2: string | number | null;
  seconds: number;
  billableSeconds: number;
  cents: number;
  count: number;
  tl?: string | null;
}

/** The SQL expression of a key; a tag key is taken from each row's tag list afterwards. */
function keyExpression(key: AggregateKey, localDay: SQL | null): SQL {
  switch (key) {
    case 'project':
      return sql`${entries.projectId}`;
    case 'task':
      return sql`${entries.taskId}`;
    case 'user':
      return sql`${entries.authorId}`;
    case 'billable':
      return sql`${entries.billable}`;
    case 'tag':
      return sql`null`;
    case 'localDay':
      if (!localDay) throw new Error('a localDay key needs the zone offsets');
      return localDay;
  }
}

/**
 * Report aggregation in SQL: completed entries whose start lies in [from, to), with the
 * caller's visibility and the filters, summed per group. A token that sees only its own
 * entries, or a filter on one user, reads the author's index; every other report reads the
 * covering index entries_report. Local days are computed by a CASE over the zone's offsets, so
 * the cost is linear in the entries read whatever the grouping.
 */
export function aggregateEntries(db: Db, query: AggregateQuery): AggregateRow[] {
  const { actor, filters, from, to, keys } = query;
  const localDay = keys.includes('localDay') ? sql.raw(localDaySql('"entries"."start_at"', query.stretches ?? [])) : null;
  const { conditions, byCandidates } = entrySelection(db, actor, filters, 'report');
  // Search candidates: read them (the planner drives from their rowids). Else one author's
  // entries through the author's index, or the range through the covering index.
  const byAuthor = !actor.canViewOthersTime || filters.userIds?.length === 1;
  const index = byCandidates ? sql`` : sql.raw(byAuthor ? ' indexed by entries_ws_author_start' : ' indexed by entries_report');
  const selection = and(...conditions, isNotNull(entries.endAt), gte(entries.startAt, from), lt(entries.startAt, to));
  const sums = sql`total(${entries.durationSec}) as seconds,
      total(case when ${entries.billable} then ${entries.durationSec} else 0 end) as billableSeconds,
      total(coalesce(${entries.amountCents}, 0)) as cents,
      count(*) as count`;
  const columns = [0, 1].map((i) => (keys[i] ? keyExpression(keys[i], localDay) : sql`null`));
  const tagged = keys.includes('tag');
  // By tag: summed per other key and tag list (each entry read once; few distinct lists).
  const rows = db.all<AggregateRow>(sql`select ${columns[0]} as k1, ${columns[1]} as k2, ${sums}
      ${tagged ? sql`, ${entries.tagList} as tl` : sql``}
    from ${entries}${index} where ${selection}
    ${keys.length === 0 ? sql`` : tagged ? sql`group by 1, 2, tl` : sql`group by 1, 2`}`);
  // total() sums in floating point: exact for integers below 2^53, and it never overflows.
  for (const r of rows) {
    r.seconds = Math.round(r.seconds);
    r.billableSeconds = Math.round(r.billableSeconds);
    r.cents = Math.round(r.cents);
  }
  return rows;
}
