import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import { DomainError } from '../../errors.js';
import type { EntryFilters } from '../entries/filters.js';
import { type Aggregate, type Aggregator, addSums, figures, type GroupKey, NO_SUMS } from './aggregate.js';
import { buckets } from './buckets.js';
import { isTimeGrouping, type Namer, order } from './names.js';

type Schemas = components['schemas'];
type Grouping = Schemas['ReportGrouping'];

export interface SummaryRequest {
  actor: Actor;
  zone: string;
  range: { from: number; to: number };
  filters: EntryFilters;
  groupBy: Grouping;
  subGroupBy: Grouping | null;
  weekStart?: 'monday' | 'sunday' | undefined;
}

/**
 * The summary report's totals and groups (with their sub-groups). An entry with several tags
 * counts under each tag, so with tags grouped the totals are counted apart, not summed.
 */
export function summarise(
  aggregate: Aggregator,
  namer: Namer,
  request: SummaryRequest,
): Pick<Schemas['SummaryReport'], 'totals' | 'groups'> {
  const { actor, zone, range, filters, groupBy, subGroupBy } = request;
  if (subGroupBy === groupBy) throw new DomainError('invalid', 'subGroupBy: must differ from groupBy.');
  const keyOf = (grouping: Grouping): GroupKey => ({
    grouping,
    buckets: isTimeGrouping(grouping) ? buckets(grouping, range.from, range.to, zone, request.weekStart) : null,
  });
  const keys = subGroupBy ? [keyOf(groupBy), keyOf(subGroupBy)] : [keyOf(groupBy)];
  const rows = aggregate(actor, filters, range.from, range.to, keys);
  const tagged = keys.some((k) => k.grouping === 'tag');
  const totals = tagged ? (aggregate(actor, filters, range.from, range.to, [])[0] ?? NO_SUMS) : rows.reduce(addSums, NO_SUMS);
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

  const parts = new Map<string, Aggregate[]>();
  for (const row of rows) {
    const id = JSON.stringify(row.k1);
    parts.set(id, [...(parts.get(id) ?? []), row]);
  }
  const groups = [...parts.values()].map((list) => {
    const group: Schemas['SummaryGroup'] = { ...first((list[0] as Aggregate).k1), ...figures(list.reduce(addSums, NO_SUMS)) };
    if (second && subGroupBy) group.subGroups = list.map((p) => ({ ...second(p.k2), ...figures(p) })).sort(order(subGroupBy));
    return group;
  });
  return { totals: figures(totals), groups: groups.sort(order(groupBy)) };
}
