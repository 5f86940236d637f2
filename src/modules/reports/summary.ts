import type { components } from '../../../generated/openapi.js';
import { fromCents } from '../../kernel/money.js';
import { reportErrors } from './errors.js';
import type { Actor } from '../../principal.js';
import type { AggregateRounding, EntryFilters } from '../entries/service.js';
import { type Aggregate, type Aggregator, addSums, figures, NO_SUMS, namedFigures, type Sums } from './aggregate.js';
import { type Key, type Named, type Namer, order, ranks } from './names.js';

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
  /** Colleagues' money the reader may not see, withheld (the reports service's `withhold`): every amount is 0. */
  moneyWithheld?: boolean;
  /** Each entry rounded by its client's rule (the reader asked: issue 56 item 4). */
  rounding?: AggregateRounding | undefined;
}

/** One group, in the report's order: its name, its sums, and its sub-groups' rows in their order (null: no sub-grouping). */
interface Arranged extends Named {
  sums: Sums;
  subs: Aggregate[] | null;
}

/** The report's groups in order, before they are written as objects or as JSON text. */
interface Arrangement {
  totals: Sums;
  groups: Arranged[];
  /** The sub-groups' names (null without a sub-grouping). */
  second: ((raw: Key) => Named) | null;
}

/**
 * Aggregates and orders the summary: groups by `order`, each group's sub-groups by the rank of
 * their key. Sub-groups repeat the same keys under each group, so each key is named and ranked
 * once and all rows are put in rank order in one sort; splitting them by group afterwards keeps
 * that order in each group (no sort per group, no object per sub-group).
 */
function arrange(aggregate: Aggregator, namer: Namer, request: SummaryRequest): Arrangement {
  const { actor, zone, range, filters, groupBy, subGroupBy, weekStart, rounding } = request;
  if (subGroupBy === groupBy) throw reportErrors.sameSubGroup();
  const base = { actor, filters, ...range, zone, weekStart, rounding };
  // With tags grouped an entry counts under each of its tags; the totals count it once.
  const { rows, totals } = aggregate({ ...base, groupings: subGroupBy ? [groupBy, subGroupBy] : [groupBy] });
  if (request.moneyWithheld) {
    totals.cents = 0;
    for (const row of rows) row.cents = 0;
  }
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

  // The groups in the order their keys first occur (the order `order` breaks no tie in).
  const byKey = new Map<Key, Arranged>();
  for (const row of rows) {
    const group = byKey.get(row.k1);
    if (!group) {
      byKey.set(row.k1, { ...first(row.k1), sums: addSums(NO_SUMS, row), subs: second ? [] : null });
      continue;
    }
    // Summed in place (the group's own object): no object per row.
    const sums = group.sums;
    sums.seconds += row.seconds;
    sums.billableSeconds += row.billableSeconds;
    sums.cents += row.cents;
    sums.count += row.count;
  }
  if (second && subGroupBy) {
    const keys = [...new Set(rows.map((r) => r.k2))];
    const rank = ranks(subGroupBy, keys.map(second));
    const rankOf = new Map(keys.map((k) => [k, rank.get(second(k).key) ?? 0]));
    const rowRank = rows.map((r) => rankOf.get(r.k2) ?? 0);
    // A stable sort: rows of equal rank keep their order, as a sort per group would.
    const sorted = Array.from(rows.keys()).sort((a, b) => (rowRank[a] as number) - (rowRank[b] as number));
    for (const i of sorted) {
      const row = rows[i] as Aggregate;
      (byKey.get(row.k1) as Arranged).subs?.push(row);
    }
  }
  return { totals, groups: [...byKey.values()].sort(order(groupBy)), second };
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
  const { totals, groups, second } = arrange(aggregate, namer, request);
  return {
    totals: figures(totals),
    groups: groups.map(({ key, name, sums, subs }) => {
      const group: Schemas['SummaryGroup'] = { key, name, ...figures(sums) };
      if (subs && second) group.subGroups = subs.map((p) => namedFigures(second(p.k2), p));
      return group;
    }),
  };
}

/**
 * What a person's page shows of a summary (the web app's Reports page): `limit` groups from
 * `offset`, in the report's order, each with its `subGroups` largest sub-groups (by time; kept in
 * the report's order) and the rest summed. A year by tag then project has 50,814 sub-groups; a
 * page of them is 15 MB of HTML no one reads.
 */
export interface SummaryWindow {
  offset: number;
  limit: number;
  subGroups: number;
}

type Figures = ReturnType<typeof figures>;

/** A group of the window: the sub-groups left out, counted and summed. */
export type WindowGroup = Schemas['SummaryGroup'] & { otherSubGroups?: Figures & { count: number } };

export interface SummaryWindowed {
  totals: Figures;
  /** How many groups the whole report has. */
  groupCount: number;
  groups: WindowGroup[];
}

/** The summary's window (see `SummaryWindow`). */
export function summaryWindow(aggregate: Aggregator, namer: Namer, request: SummaryRequest, window: SummaryWindow): SummaryWindowed {
  const { totals, groups, second } = arrange(aggregate, namer, request);
  return {
    totals: figures(totals),
    groupCount: groups.length,
    groups: groups.slice(window.offset, window.offset + window.limit).map(({ key, name, sums, subs }) => {
      const group: WindowGroup = { key, name, ...figures(sums) };
      if (!subs || !second) return group;
      // The largest by time (the earlier one on a tie), shown in the report's order.
      const kept = new Set(
        Array.from(subs.keys())
          .sort((a, b) => (subs[b] as Aggregate).seconds - (subs[a] as Aggregate).seconds || a - b)
          .slice(0, window.subGroups),
      );
      group.subGroups = subs.filter((_, i) => kept.has(i)).map((p) => namedFigures(second(p.k2), p));
      const left = subs.filter((_, i) => !kept.has(i));
      if (left.length > 0) group.otherSubGroups = { count: left.length, ...figures(left.reduce<Sums>(addSums, NO_SUMS)) };
      return group;
    }),
  };
}

/** A group's or sub-group's figures as JSON members, in the order `figures` writes them (the object left open). */
const figuresText = (a: Sums): string =>
  `"durationSec":${a.seconds},"billableSec":${a.billableSeconds},"amount":${JSON.stringify(fromCents(a.cents))},"entryCount":${a.count}`;

/** `{"key":…,"name":…,` of a name: the opening of its group's object. */
const namedText = (named: Named): string => `{"key":${JSON.stringify(named.key)},"name":${JSON.stringify(named.name)},`;

/**
 * The same report as JSON text, byte for byte what `JSON.stringify` makes of `summarise`'s
 * objects after `head` (the members before `groups`, as an object). The largest summary (50,814
 * sub-groups, 6 MB) made no object per sub-group this way: each key's opening is written once
 * and reused under every group.
 */
export function summaryText(aggregate: Aggregator, namer: Namer, request: SummaryRequest, head: Record<string, unknown>): string {
  const { totals, groups, second } = arrange(aggregate, namer, request);
  const opening = JSON.stringify({ ...head, totals: figures(totals) });
  // Each group's text in a part of its own, joined once: appending 50,814 sub-groups to one
  // string makes a rope of as many pieces, which the encoding flattens (and the collector moves).
  const parts: string[] = [];
  const openings = new Map<Key, string>();
  for (let g = 0; g < groups.length; g++) {
    const { key, name, sums, subs } = groups[g] as Arranged;
    let text = `${namedText({ key, name })}${figuresText(sums)}`;
    if (!subs || !second) {
      parts.push(`${text}}`);
      continue;
    }
    text += ',"subGroups":[';
    for (let s = 0; s < subs.length; s++) {
      const row = subs[s] as Aggregate;
      let open = openings.get(row.k2);
      if (open === undefined) openings.set(row.k2, (open = namedText(second(row.k2))));
      text += `${s === 0 ? '' : ','}${open}${figuresText(row)}}`;
    }
    parts.push(`${text}]}`);
  }
  return `${opening.slice(0, -1)},"groups":[${parts.join(',')}]}`;
}
