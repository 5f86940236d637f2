import { DateTime } from 'luxon';
import { DAY_MS } from './time.js';

/*
 * Report time groupings without a join: SQLite computes each entry's local day number (days
 * since 1970-01-01 in the report's zone) from its start and the zone's UTC offsets over the
 * range, and groups by it; day, week and month keys are then taken from the few hundred day
 * numbers in JavaScript. The cost is linear in the entries read, whatever the grouping.
 */

/** A stretch of time with one UTC offset: from `from` (ms) on, until the next stretch. */
export interface OffsetStretch {
  from: number;
  offsetMs: number;
}

const HOUR_MS = 3_600_000;
/** Local day numbers are computed over a positive bias (SQLite's integer division truncates toward zero). */
const BIAS_DAYS = 40_000;

const offsetAt = (ms: number, zone: string): number => DateTime.fromMillis(ms, { zone }).offset * 60_000;

/**
 * The zone's offsets over [from, to): one stretch per offset in effect, each transition found to
 * the millisecond (sampled every 12 hours, then bisected; zones change offset at most a few times
 * a year, never twice within 12 hours).
 */
export function offsetStretches(from: number, to: number, zone: string): OffsetStretch[] {
  const stretches: OffsetStretch[] = [{ from, offsetMs: offsetAt(from, zone) }];
  const step = 12 * HOUR_MS;
  for (let at = from; at < to; at += step) {
    const next = Math.min(at + step, to);
    const current = (stretches[stretches.length - 1] as OffsetStretch).offsetMs;
    const offsetMs = offsetAt(next, zone);
    if (offsetMs === current) continue;
    // The first instant with the new offset lies in (at, next].
    let low = at;
    let high = next;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(middle, zone) === current) low = middle;
      else high = middle;
    }
    stretches.push({ from: high, offsetMs });
  }
  return stretches;
}

/**
 * The SQL text of the local day number of an instant column over the given stretches: the offset
 * by a CASE on the instant (one branch per transition), then whole days.
 */
export function localDaySql(column: string, stretches: readonly OffsetStretch[]): string {
  const [first, ...rest] = stretches;
  if (!first) throw new Error('localDaySql needs at least one stretch');
  let offset = String(first.offsetMs);
  if (rest.length > 0) {
    // Later transitions first: the first branch whose bound the instant reaches wins.
    const branches = [...rest].reverse().map((s) => `when ${column} >= ${s.from} then ${s.offsetMs}`);
    offset = `case ${branches.join(' ')} else ${first.offsetMs} end`;
  }
  return `((${column} + ${offset} + ${BIAS_DAYS * DAY_MS}) / ${DAY_MS} - ${BIAS_DAYS})`;
}

/** The local day number of an instant in a zone (what localDaySql computes). */
export const localDayOf = (ms: number, zone: string): number => Math.floor((ms + offsetAt(ms, zone)) / DAY_MS);

const isoDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The bucket key of a local day number: the day itself, the first day of its week, or its month. */
export function bucketKey(grouping: 'day' | 'week' | 'month', day: number, weekStart: 'monday' | 'sunday' = 'monday'): string {
  if (grouping === 'day') return isoDate(day);
  if (grouping === 'month') return isoDate(day).slice(0, 7);
  // 1970-01-01 (day 0) was a Thursday: (day + 3) mod 7 counts days since Monday, (day + 4) since Sunday.
  const since = weekStart === 'monday' ? (((day + 3) % 7) + 7) % 7 : (((day + 4) % 7) + 7) % 7;
  return isoDate(day - since);
}
