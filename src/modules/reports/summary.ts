import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import { DomainError } from '../../errors.js';
import type { EntryFilters } from '../entries/filters.js';
import { type Aggregate, type Aggregator, addSums, figures, NO_SUMS } from './aggregate.js';
import { type Namer, order } from './names.js';

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
  const { actor, zone, range, filters, groupBy, subGroupBy, weekStart } = request;
  if (subGroupBy === groupBy) throw new DomainError('invalid', 'subGroupBy: must differ from groupBy.');
  const base = { actor, filters, ...range, zone, weekStart };
  const rows = aggregate({ ...base, groupings: subGroupBy ? [groupBy, subGroupBy] : [groupBy] });
  const tagged = groupBy === 'tag' || subGroupBy === 'tag';
  const totals = tagged ? (aggregate({ ...base, groupings: [] })[0] ?? NO_SUMS) : rows.reduce(addSums, NO_SUMS);
  const first = namer(
    groupBy,
    actor.workspaceId,
    rows.map((r) => r.k1),
  );
  const second = subGroupBy
    ? namer(
        subGroupBy,
        actor.workspaceId,
        rows.map((r) => r.k2),
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
