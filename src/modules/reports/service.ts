import { and, eq, gte, inArray, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import { type Clock, toIso } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { DomainError } from '../../errors.js';
import { users, workspaces } from '../accounts/schema.js';
import { clients, projects, tags, tasks } from '../catalog/schema.js';
import { type EntryFilters, type EntryLister, entryFilterConditions, type Page } from '../entries/list.js';
import { entries, entryTags } from '../entries/schema.js';
import { DEFAULT_PAGE_SIZE } from '../entries/service.js';
import { canonicalTimeZone } from '../entries/time.js';
import { type Bucket, buckets, reportRange, weekFrom } from './buckets.js';

type Schemas = components['schemas'];
type Grouping = Schemas['ReportGrouping'];
type Figures = Schemas['ReportFigures'];

export interface ReportQuery extends EntryFilters {
  from: string;
  to: string;
  timeZone?: string;
}

interface Aggregate {
  k1: string | number | null;
  k2: string | number | null;
  seconds: number;
  billableSeconds: number;
  cents: number;
  count: number;
}

const TIME_GROUPINGS = new Set<Grouping>(['day', 'week', 'month']);

/**
 * Summary, detailed and weekly reports. Totals and groups are aggregated by SQLite over the
 * (workspace[, author], start) indexes; time buckets are cut in the report's zone (luxon) and
 * joined as a VALUES table, so no entry is loaded into JavaScript for a summary.
 */
export function createReportsService({
  db,
  clock,
  lister,
  defaultTimeZone,
}: {
  db: Db;
  clock: Clock;
  lister: EntryLister;
  defaultTimeZone: string;
}) {
  /** The spec's rule: own data only without canViewOthersTime; 403 with time but not money. */
  function checkVisibility(actor: Actor): void {
    if (actor.canViewOthersTime && !actor.canViewOthersMoney) {
      throw new DomainError(
        'money_visibility_required',
        "This report would span other members' time, and this token may not see what it is worth. Mint a token with money visibility, or use one without canViewOthersTime to report on your own entries.",
      );
    }
  }

  function prepare(actor: Actor, query: ReportQuery) {
    checkVisibility(actor);
    const zone = query.timeZone === undefined ? defaultTimeZone : canonicalTimeZone(query.timeZone);
    const range = reportRange(query.from, query.to, zone);
    const {
      from: _f,
      to: _t,
      timeZone: _z,
      ...filters
    } = query as ReportQuery & { cursor?: string; limit?: number; groupBy?: string; subGroupBy?: string; weekStart?: string };
    const { cursor: _c, limit: _l, groupBy: _g, subGroupBy: _s, weekStart: _w, ...entryFilters } = filters;
    return { zone, range, filters: entryFilters as EntryFilters };
  }

  /** Completed entries whose start lies in [from, to), with the caller's visibility and the filters. */
  const selection = (actor: Actor, filters: EntryFilters, from: number, to: number): SQL =>
    and(...entryFilterConditions(db, actor, filters), isNotNull(entries.endAt), gte(entries.startAt, from), lt(entries.startAt, to)) as SQL;

  // At most 367 day buckets (366-day ranges): within SQLite's 500 compound-select terms.
  const bucketTable = (list: Bucket[]) =>
    sql`(${sql.join(
      list.map((b, i) => sql`select ${i} as i, ${b.start} as s, ${b.end} as e`),
      sql` union all `,
    )})`;

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

  function aggregate(
    actor: Actor,
    filters: EntryFilters,
    from: number,
    to: number,
    keys: Array<{ grouping: Grouping; buckets: Bucket[] | null }>,
  ): Aggregate[] {
    const joins: SQL[] = [];
    keys.forEach((key, i) => {
      if (key.buckets)
        joins.push(
          sql` join ${bucketTable(key.buckets)} as ${sql.raw(`b${i}`)} on ${entries.startAt} >= ${sql.raw(`b${i}.s`)} and ${entries.startAt} < ${sql.raw(`b${i}.e`)}`,
        );
    });
    if (keys.some((k) => k.grouping === 'tag')) joins.push(sql` left join ${entryTags} as et on et.entry_id = ${entries.id}`);
    const k1 = keys[0] ? keyExpression(keys[0].grouping, 'b0') : sql`null`;
    const k2 = keys[1] ? keyExpression(keys[1].grouping, 'b1') : sql`null`;
    const query = sql`select ${k1} as k1, ${k2} as k2,
        total(${entries.durationSec}) as seconds,
        total(case when ${entries.billable} then ${entries.durationSec} else 0 end) as billableSeconds,
        total(round(coalesce(${entries.amount}, 0) * 100)) as cents,
        count(*) as count
      from ${entries} indexed by entries_report${sql.join(joins, sql``)}
      where ${selection(actor, filters, from, to)}
      ${keys.length > 0 ? sql`group by 1, 2` : sql``}`;
    // total() sums in floating point: exact for integers below 2^53, and it never overflows.
    const rows = db
      .all<Aggregate>(query)
      .map((r) => ({ ...r, seconds: Math.round(r.seconds), billableSeconds: Math.round(r.billableSeconds), cents: Math.round(r.cents) }));
    return foldClients(actor.workspaceId, keys, rows);
  }

  /** Replaces project keys by their client's for `client` groupings, merging the rows. */
  function foldClients(workspaceId: string, keys: Array<{ grouping: Grouping }>, rows: Aggregate[]): Aggregate[] {
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
    const merged = new Map<string, Aggregate>();
    for (const row of rows) {
      const k1 = positions.includes(0) ? (row.k1 === null ? null : (clientOf.get(String(row.k1)) ?? null)) : row.k1;
      const k2 = positions.includes(1) ? (row.k2 === null ? null : (clientOf.get(String(row.k2)) ?? null)) : row.k2;
      const id = JSON.stringify([k1, k2]);
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

  /** Totals of the selection: summed from the groups unless tags (which count an entry once per tag) are grouped. */
  function totalsOf(rows: Aggregate[], keys: Array<{ grouping: Grouping }>, recount: () => Aggregate | undefined): Figures {
    if (keys.some((k) => k.grouping === 'tag')) return figures(recount() ?? { seconds: 0, billableSeconds: 0, cents: 0, count: 0 });
    return figures(
      rows.reduce(
        (acc, r) => ({
          seconds: acc.seconds + r.seconds,
          billableSeconds: acc.billableSeconds + r.billableSeconds,
          cents: acc.cents + r.cents,
          count: acc.count + r.count,
        }),
        {
          seconds: 0,
          billableSeconds: 0,
          cents: 0,
          count: 0,
        },
      ),
    );
  }

  const figures = (a: Pick<Aggregate, 'seconds' | 'billableSeconds' | 'cents' | 'count'>): Figures => ({
    durationSec: a.seconds,
    billableSec: a.billableSeconds,
    amount: a.cents / 100,
    entryCount: a.count,
  });

  /** Display names of the keys of a grouping, looked up for just the keys present. */
  function namer(grouping: Grouping, workspaceId: string, keys: Array<string | number | null>, bucketList: Bucket[] | null) {
    const ids = [...new Set(keys.filter((k): k is string => typeof k === 'string'))];
    let names = new Map<string, string>();
    const lookup = <T extends { id: string; name: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r.name]));
    if (ids.length > 0) {
      if (grouping === 'project')
        names = lookup(
          db
            .select({ id: projects.id, name: projects.name })
            .from(projects)
            .where(and(eq(projects.workspaceId, workspaceId), inArray(projects.id, ids)))
            .all(),
        );
      if (grouping === 'client')
        names = lookup(
          db
            .select({ id: clients.id, name: clients.name })
            .from(clients)
            .where(and(eq(clients.workspaceId, workspaceId), inArray(clients.id, ids)))
            .all(),
        );
      if (grouping === 'task')
        names = lookup(
          db
            .select({ id: tasks.id, name: tasks.name })
            .from(tasks)
            .where(and(eq(tasks.workspaceId, workspaceId), inArray(tasks.id, ids)))
            .all(),
        );
      if (grouping === 'tag')
        names = lookup(
          db
            .select({ id: tags.id, name: tags.name })
            .from(tags)
            .where(and(eq(tags.workspaceId, workspaceId), inArray(tags.id, ids)))
            .all(),
        );
      if (grouping === 'user')
        names = lookup(db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids)).all());
    }
    return (raw: string | number | null): { key: string | null; name: string | null } => {
      if (raw === null) return { key: null, name: null };
      if (grouping === 'billable') return raw ? { key: 'true', name: 'Billable' } : { key: 'false', name: 'Non-billable' };
      if (bucketList) {
        const bucket = bucketList[Number(raw)] as Bucket;
        return { key: bucket.key, name: bucket.key };
      }
      return { key: String(raw), name: names.get(String(raw)) ?? String(raw) };
    };
  }

  /** Entity groups by name (null last), time buckets chronologically, billable first. */
  const order =
    (grouping: Grouping) => (a: { key: string | null; name: string | null }, b: { key: string | null; name: string | null }) => {
      if (a.key === null || b.key === null) return a.key === null ? (b.key === null ? 0 : 1) : -1;
      if (TIME_GROUPINGS.has(grouping)) return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
      if (grouping === 'billable') return a.key === 'true' ? -1 : 1;
      const byName = (a.name ?? '').toLowerCase().localeCompare((b.name ?? '').toLowerCase());
      return byName !== 0 ? byName : a.key < b.key ? -1 : 1;
    };

  const echo = (range: { from: number; to: number }, zone: string, actor: Actor) => ({
    from: toIso(range.from),
    to: toIso(range.to),
    timeZone: zone,
    currency: actor.currency,
  });

  return {
    summary(
      actor: Actor,
      query: ReportQuery & { groupBy?: Grouping; subGroupBy?: Grouping; weekStart?: 'monday' | 'sunday' },
    ): Schemas['SummaryReport'] {
      const { zone, range, filters } = prepare(actor, query);
      const groupBy = query.groupBy ?? 'project';
      const subGroupBy = query.subGroupBy ?? null;
      if (subGroupBy === groupBy) throw new DomainError('invalid', 'subGroupBy: must differ from groupBy.');
      const keyOf = (grouping: Grouping) => ({
        grouping,
        buckets: TIME_GROUPINGS.has(grouping)
          ? buckets(grouping as 'day' | 'week' | 'month', range.from, range.to, zone, query.weekStart)
          : null,
      });
      const keys = subGroupBy ? [keyOf(groupBy), keyOf(subGroupBy)] : [keyOf(groupBy)];
      const rows = aggregate(actor, filters, range.from, range.to, keys);
      const totals = totalsOf(rows, keys, () => aggregate(actor, filters, range.from, range.to, [])[0]);
      const first = namer(
        groupBy,
        actor.workspaceId,
        rows.map((r) => r.k1),
        keys[0]?.buckets ?? null,
      );
      const second = subGroupBy
        ? namer(
            subGroupBy,
            actor.workspaceId,
            rows.map((r) => r.k2),
            keys[1]?.buckets ?? null,
          )
        : null;

      const groups = new Map<string, Schemas['SummaryGroup'] & { parts: Aggregate[] }>();
      for (const row of rows) {
        const id = JSON.stringify(row.k1);
        let group = groups.get(id);
        if (!group) {
          group = { ...first(row.k1), durationSec: 0, billableSec: 0, amount: 0, entryCount: 0, parts: [] };
          groups.set(id, group);
        }
        group.parts.push(row);
      }
      const list = [...groups.values()].map(({ parts, ...group }) => {
        const sum = parts.reduce(
          (acc, p) => ({
            seconds: acc.seconds + p.seconds,
            billableSeconds: acc.billableSeconds + p.billableSeconds,
            cents: acc.cents + p.cents,
            count: acc.count + p.count,
          }),
          {
            seconds: 0,
            billableSeconds: 0,
            cents: 0,
            count: 0,
          },
        );
        const result: Schemas['SummaryGroup'] = { key: group.key, name: group.name, ...figures(sum) };
        if (second) {
          result.subGroups = parts.map((p) => ({ ...second(p.k2), ...figures(p) })).sort(order(subGroupBy as Grouping));
        }
        return result;
      });
      return {
        ...echo(range, zone, actor),
        groupBy,
        subGroupBy,
        totals,
        groups: list.sort(order(groupBy)),
      };
    },

    detailed(actor: Actor, query: ReportQuery & { cursor?: string; limit?: number }): Page {
      const { range, filters } = prepare(actor, query);
      return lister.page(
        actor,
        {
          listing: 'reports.detailed',
          select: 'startedCompleted',
          order: 'asc',
          from: range.from,
          to: range.to,
          filters,
          ...(query.cursor ? { cursor: query.cursor } : {}),
          limit: query.limit ?? DEFAULT_PAGE_SIZE,
        },
        { now: clock.now(), currency: actor.currency },
      );
    },

    weekly(actor: Actor, query: Omit<ReportQuery, 'to'> & { groupBy?: 'project' | 'client' | 'user' }): Schemas['WeeklyReport'] {
      checkVisibility(actor);
      const zone = query.timeZone === undefined ? defaultTimeZone : canonicalTimeZone(query.timeZone);
      const days = weekFrom(query.from, zone);
      const range = { from: days[0]?.start ?? 0, to: days[days.length - 1]?.end ?? 0 };
      const { from: _f, timeZone: _z, groupBy: _g, ...filters } = query;
      const groupBy = query.groupBy ?? 'project';
      const rows = aggregate(actor, filters, range.from, range.to, [
        { grouping: groupBy, buckets: null },
        { grouping: 'day', buckets: days },
      ]);
      const name = namer(
        groupBy,
        actor.workspaceId,
        rows.map((r) => r.k1),
        null,
      );
      const empty = () => days.map(() => ({ durationSec: 0, amount: 0 }));
      const byKey = new Map<
        string,
        { key: string | null; name: string | null; days: Array<{ durationSec: number; amount: number }>; cents: number[] }
      >();
      const totalCents = days.map(() => 0);
      const totals = { days: empty(), durationSec: 0, amount: 0 };
      for (const row of rows) {
        const id = JSON.stringify(row.k1);
        let line = byKey.get(id);
        if (!line) {
          line = { ...name(row.k1), days: empty(), cents: days.map(() => 0) };
          byKey.set(id, line);
        }
        const day = Number(row.k2);
        const cell = line.days[day];
        const total = totals.days[day];
        if (!cell || !total) continue;
        cell.durationSec += row.seconds;
        total.durationSec += row.seconds;
        line.cents[day] = (line.cents[day] ?? 0) + row.cents;
        totalCents[day] = (totalCents[day] ?? 0) + row.cents;
      }
      const lines = [...byKey.values()].map((line) => {
        line.days.forEach((cell, i) => {
          cell.amount = (line.cents[i] ?? 0) / 100;
        });
        return {
          key: line.key,
          name: line.name,
          days: line.days,
          durationSec: line.days.reduce((s, d) => s + d.durationSec, 0),
          amount: line.cents.reduce((s, c) => s + c, 0) / 100,
        };
      });
      totals.days.forEach((cell, i) => {
        cell.amount = (totalCents[i] ?? 0) / 100;
      });
      totals.durationSec = totals.days.reduce((s, d) => s + d.durationSec, 0);
      totals.amount = totalCents.reduce((s, c) => s + c, 0) / 100;
      return {
        ...echo(range, zone, actor),
        groupBy,
        days: days.map((d) => d.key),
        rows: lines.sort(order(groupBy)),
        totals,
      };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
