import { and, eq, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import type { Db } from '../../db/database.js';
import { fromCents } from '../../kernel/money.js';
import { projects } from '../catalog/schema.js';
import { type EntryFilters, entrySelection } from '../entries/filters.js';
import { entries, entryTags } from '../entries/schema.js';
import { bucketKey, localDaySql, offsetStretches } from './local-days.js';
import { isTimeGrouping } from './names.js';

type Grouping = components['schemas']['ReportGrouping'];
type Figures = components['schemas']['ReportFigures'];

/** The sums of one group (or of the whole selection): seconds, billable seconds, cents, entries. */
export interface Sums {
  seconds: number;
  billableSeconds: number;
  cents: number;
  count: number;
}

/** One aggregated row: up to two grouping keys and their sums. */
export interface Aggregate extends Sums {
  k1: string | number | null;
  k2: string | number | null;
}

export const NO_SUMS: Sums = { seconds: 0, billableSeconds: 0, cents: 0, count: 0 };

export const addSums = (a: Sums, b: Sums): Sums => ({
  seconds: a.seconds + b.seconds,
  billableSeconds: a.billableSeconds + b.billableSeconds,
  cents: a.cents + b.cents,
  count: a.count + b.count,
});

export const figures = (a: Sums): Figures => ({
  durationSec: a.seconds,
  billableSec: a.billableSeconds,
  amount: fromCents(a.cents),
  entryCount: a.count,
});

/** What one aggregation reads and how it groups (up to two groupings). */
export interface AggregateRequest {
  actor: Actor;
  filters: EntryFilters;
  from: number;
  to: number;
  /** Time groupings are cut in this zone. */
  zone: string;
  weekStart?: 'monday' | 'sunday' | undefined;
  groupings: Grouping[];
}

/** The SQL expression of a grouping key; time groupings all read the local day number. */
function keyExpression(grouping: Grouping, localDay: SQL | null): SQL {
  switch (grouping) {
    case 'project':
    case 'client':
      // Clients are aggregated by project here and folded afterwards: a per-row lookup of the
      // project's client would cost more than the whole aggregate.
      return sql`${entries.projectId}`;
    case 'task':
      return sql`${entries.taskId}`;
    case 'user':
      return sql`${entries.authorId}`;
    case 'billable':
      return sql`${entries.billable}`;
    case 'tag':
      return sql`et.tag_id`;
    default:
      if (!localDay) throw new Error('a time grouping needs the local day expression');
      return localDay;
  }
}

/**
 * Report aggregation in SQL: completed entries whose start lies in [from, to), with the
 * caller's visibility and the filters, summed per group. A token that sees only its own
 * entries, or a filter on one user, reads the author's index; every other report reads the
 * covering index entries_report. Time groupings group by local day number, so the cost is linear
 * in the entries read whatever the grouping.
 */
export function createAggregator(db: Db) {
  /** Maps each row's raw keys to the report's keys (client of a project, bucket of a day) and merges rows that meet. */
  function rekey(rows: Aggregate[], mappers: Array<(key: string | number | null) => string | number | null>): Aggregate[] {
    if (mappers.every((m) => m === identity)) return rows;
    const first = mappers[0] ?? identity;
    const second = mappers[1] ?? identity;
    const merged = new Map<string, Aggregate>();
    for (const row of rows) {
      const k1 = first(row.k1);
      const k2 = second(row.k2);
      // Keys are ids, dates, 0/1 or null: typeof and value in one string, without JSON.
      const id = `${typeof k1}:${k1}\u0000${typeof k2}:${k2}`;
      const into = merged.get(id);
      if (into) {
        into.seconds += row.seconds;
        into.billableSeconds += row.billableSeconds;
        into.cents += row.cents;
        into.count += row.count;
      } else {
        merged.set(id, { ...row, k1, k2 });
      }
    }
    return [...merged.values()];
  }

  function mapperOf(request: AggregateRequest, grouping: Grouping, clientOf: () => Map<string, string | null>) {
    if (grouping === 'client') return (key: string | number | null) => (key === null ? null : (clientOf().get(String(key)) ?? null));
    if (isTimeGrouping(grouping)) return (key: string | number | null) => bucketKey(grouping, Number(key), request.weekStart);
    return identity;
  }

  return function aggregate(request: AggregateRequest): Aggregate[] {
    const { actor, filters, from, to, groupings } = request;
    const localDay = groupings.some(isTimeGrouping)
      ? sql.raw(localDaySql('"entries"."start_at"', offsetStretches(from, to, request.zone)))
      : null;
    const k1 = groupings[0] ? keyExpression(groupings[0], localDay) : sql`null`;
    const k2 = groupings[1] ? keyExpression(groupings[1], localDay) : sql`null`;
    const tags = groupings.includes('tag') ? sql` left join ${entryTags} as et on et.entry_id = ${entries.id}` : sql``;
    const { conditions, byCandidates } = entrySelection(db, actor, filters, 'report');
    // Search candidates: read them (the planner drives from their rowids). Else one author's
    // entries through the author's index, or the range through the covering index.
    const byAuthor = !actor.canViewOthersTime || filters.userIds?.length === 1;
    const index = byCandidates ? sql`` : sql.raw(byAuthor ? ' indexed by entries_ws_author_start' : ' indexed by entries_report');
    const selection = and(...conditions, isNotNull(entries.endAt), gte(entries.startAt, from), lt(entries.startAt, to));
    const query = sql`select ${k1} as k1, ${k2} as k2,
        total(${entries.durationSec}) as seconds,
        total(case when ${entries.billable} then ${entries.durationSec} else 0 end) as billableSeconds,
        total(round(coalesce(${entries.amount}, 0) * 100)) as cents,
        count(*) as count
      from ${entries}${index}${tags}
      where ${selection}
      ${groupings.length > 0 ? sql`group by 1, 2` : sql``}`;
    // total() sums in floating point: exact for integers below 2^53, and it never overflows.
    const rows = db
      .all<Aggregate>(query)
      .map((r) => ({ ...r, seconds: Math.round(r.seconds), billableSeconds: Math.round(r.billableSeconds), cents: Math.round(r.cents) }));
    let clients: Map<string, string | null> | null = null;
    const clientOf = () => {
      clients ??= new Map(
        db
          .select({ id: projects.id, clientId: projects.clientId })
          .from(projects)
          .where(eq(projects.workspaceId, actor.workspaceId))
          .all()
          .map((p) => [p.id, p.clientId]),
      );
      return clients;
    };
    return rekey(
      rows,
      groupings.map((g) => mapperOf(request, g, clientOf)),
    );
  };
}

const identity = (key: string | number | null) => key;

export type Aggregator = ReturnType<typeof createAggregator>;
