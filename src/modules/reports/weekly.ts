import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../principal.js';
import { fromCents } from '../../kernel/money.js';
import type { EntryFilters } from '../entries/service.js';
import type { Aggregator } from './aggregate.js';
import type { Bucket } from './buckets.js';
import { type Named, type Namer, order } from './names.js';

type Schemas = components['schemas'];
type Cell = { durationSec: number; amount: number };

/** One line of the timesheet, with its amounts kept in cents until the end. */
interface Line extends Named {
  seconds: number[];
  cents: number[];
}

const cells = (line: { seconds: number[]; cents: number[] }): Cell[] =>
  line.seconds.map((durationSec, i) => ({ durationSec, amount: fromCents(line.cents[i] ?? 0) }));
const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);

/** The weekly report's rows (one per project, client or user, seven days each) and totals. */
export function timesheet(
  aggregate: Aggregator,
  namer: Namer,
  request: { actor: Actor; days: Bucket[]; zone: string; filters: EntryFilters; groupBy: 'project' | 'client' | 'user' },
): Pick<Schemas['WeeklyReport'], 'rows' | 'totals'> {
  const { actor, days, zone, filters, groupBy } = request;
  const range = { from: days[0]?.start ?? 0, to: days[days.length - 1]?.end ?? 0 };
  const { rows } = aggregate({ actor, filters, ...range, zone, groupings: [groupBy, 'day'] });
  const name = namer(
    groupBy,
    actor.workspaceId,
    rows.map((r) => r.k1),
  );
  const dayIndex = new Map(days.map((d, i) => [d.key, i]));
  const zeros = () => days.map(() => 0);
  const lines = new Map<string, Line>();
  const total = { seconds: zeros(), cents: zeros() };
  for (const row of rows) {
    const day = dayIndex.get(String(row.k2));
    if (day === undefined) continue;
    const id = JSON.stringify(row.k1);
    let line = lines.get(id);
    if (!line) {
      line = { ...name(row.k1), seconds: zeros(), cents: zeros() };
      lines.set(id, line);
    }
    for (const into of [line, total]) {
      into.seconds[day] = (into.seconds[day] ?? 0) + row.seconds;
      into.cents[day] = (into.cents[day] ?? 0) + row.cents;
    }
  }
  return {
    rows: [...lines.values()]
      .map((line) => ({
        key: line.key,
        name: line.name,
        days: cells(line),
        durationSec: sum(line.seconds),
        amount: fromCents(sum(line.cents)),
      }))
      .sort(order(groupBy)),
    totals: { days: cells(total), durationSec: sum(total.seconds), amount: fromCents(sum(total.cents)) },
  };
}
