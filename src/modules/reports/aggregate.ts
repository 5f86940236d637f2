import { and, eq, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import type { Db } from '../../db/database.js';
import { fromCents } from '../../kernel/money.js';
import { projects } from '../catalog/schema.js';
import { type EntryFilters, entryFilterConditions } from '../entries/filters.js';
import { entries, entryTags } from '../entries/schema.js';
import type { Bucket } from './buckets.js';

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

/** A grouping key of an aggregation; time groupings carry their buckets. */
export interface GroupKey {
  grouping: Grouping;
  buckets: Bucket[] | null;
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

/** The SQL expression of a grouping key (time buckets come from the joined bucket table). */
function keyExpression(grouping: Grouping, bucketAlias: string): SQL {
  switch (grouping) {
    case 'project':
      return sql`${entries.projectId}`;
    case 'client':
      // Aggregated by project here and folded into clients afterwards (see foldClients):
      // a per-row lookup of the project's client would cost more than the whole aggregate.
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
      return sql.raw(`${bucketAlias}.i`);
  }
}

// At most 367 day buckets (366-day ranges): within SQLite's 500 compound-select terms.
const bucketTable = (list: Bucket[]) =>
  sql`(${sql.join(
    list.map((b, i) => sql`select ${i} as i, ${b.start} as s, ${b.end} as e`),
    sql` union all `,
  )})`;

/**
 * Report aggregation in SQL over the covering index entries_report: completed entries whose
 * start lies in [from, to), with the caller's visibility and the filters, summed per group.
 */
export function createAggregator(db: Db) {
  /** Replaces project keys by their client's for `client` groupings, merging the rows. */
  function foldClients(workspaceId: string, keys: GroupKey[], rows: Aggregate[]): Aggregate[] {
    const positions = keys.map((k, i) => (k.grouping === 'client' ? i : -1)).filter((i) => i >= 0);
    if (positions.length === 0) return rows;
    const clientOf = new Map(
      db
        .select({ id: projects.id, clientId: projects.clientId })
        .from(projects)
        .where(eq(projects.workspaceId, workspaceId))
        .all()
        .map((p) => [p.id, p.clientId]),
    );
    const client = (key: string | number | null) => (key === null ? null : (clientOf.get(String(key)) ?? null));
    const merged = new Map<string, Aggregate>();
    for (const row of rows) {
      const k1 = positions.includes(0) ? client(row.k1) : row.k1;
      const k2 = positions.includes(1) ? client(row.k2) : row.k2;
      const id = JSON.stringify([k1, k2]);
      const into = merged.get(id);
      merged.set(id, into ? { ...into, ...addSums(into, row) } : { ...row, k1, k2 });
    }
    return [...merged.values()];
  }

  return function aggregate(actor: Actor, filters: EntryFilters, from: number, to: number, keys: GroupKey[]): Aggregate[] {
    const joins: SQL[] = [];
    keys.forEach((key, i) => {
      if (!key.buckets) return;
      const b = sql.raw(`b${i}`);
      joins.push(
        sql` join ${bucketTable(key.buckets)} as ${b} on ${entries.startAt} >= ${sql.raw(`b${i}.s`)} and ${entries.startAt} < ${sql.raw(`b${i}.e`)}`,
      );
    });
    if (keys.some((k) => k.grouping === 'tag')) joins.push(sql` left join ${entryTags} as et on et.entry_id = ${entries.id}`);
    const k1 = keys[0] ? keyExpression(keys[0].grouping, 'b0') : sql`null`;
    const k2 = keys[1] ? keyExpression(keys[1].grouping, 'b1') : sql`null`;
    const selection = and(
      ...entryFilterConditions(db, actor, filters),
      isNotNull(entries.endAt),
      gte(entries.startAt, from),
      lt(entries.startAt, to),
    );
    const query = sql`select ${k1} as k1, ${k2} as k2,
        total(${entries.durationSec}) as seconds,
        total(case when ${entries.billable} then ${entries.durationSec} else 0 end) as billableSeconds,
        total(round(coalesce(${entries.amount}, 0) * 100)) as cents,
        count(*) as count
      from ${entries} indexed by entries_report${sql.join(joins, sql``)}
      where ${selection}
      ${keys.length > 0 ? sql`group by 1, 2` : sql``}`;
    // total() sums in floating point: exact for integers below 2^53, and it never overflows.
    const rows = db
      .all<Aggregate>(query)
      .map((r) => ({ ...r, seconds: Math.round(r.seconds), billableSeconds: Math.round(r.billableSeconds), cents: Math.round(r.cents) }));
    return foldClients(actor.workspaceId, keys, rows);
  };
}

export type Aggregator = ReturnType<typeof createAggregator>;
