import type { components } from '../../../generated/openapi.js';
import { reportErrors } from './errors.js';
import type { Actor } from '../../principal.js';
import type { EntryFilters } from '../entries/service.js';
import { type Aggregate, type Aggregator, addSums, figures, NO_SUMS, namedFigures } from './aggregate.js';
import { type Namer, order, ranks } from './names.js';

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
 * counts under each tag, so with tags grouped the totals (each entry once) are not the sum of
 * the groups.
 */
export function summarise(
  aggregate: Aggregator,
  namer: Namer,
  request: SummaryRequest,
): Pick<Schemas['SummaryReport'], 'totals' | 'groups'> {
  const { actor, zone, range, filters, groupBy, subGroupBy, weekStart } = request;
  if (subGroupBy === groupBy) throw reportErrors.sameSubGroup();
  const base = { actor, filters, ...range, zone, weekStart };
  // With tags grouped an entry counts under each of its tags; the totals count it once.
  const { rows, totals } = aggregate({ ...base, groupings: subGroupBy ? [groupBy, subGroupBy] : [groupBy] });
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

  const parts = new Map<string | number | null, Aggregate[]>();
  for (const row of rows) {
    const list = parts.get(row.k1);
    if (list) list.push(row);
    else parts.set(row.k1, [row]);
  }
  // Sub-groups repeat the same keys under each group: ranked once, sorted by rank.
  const rank = second && subGroupBy ? ranks(subGroupBy, [...new Set(rows.map((r) => r.k2))].map(second)) : null;
  const groups = [...parts.values()].map((list) => {
    const group: Schemas['SummaryGroup'] = { ...first((list[0] as Aggregate).k1), ...figures(list.reduce(addSums, NO_SUMS)) };
    if (second && rank) {
      const subGroups = list.map((p) => namedFigures(second(p.k2), p));
      group.subGroups = subGroups.sort((a, b) => (rank.get(a.key) ?? 0) - (rank.get(b.key) ?? 0));
    }
    return group;
  });
  return { totals: figures(totals), groups: groups.sort(order(groupBy)) };
}
