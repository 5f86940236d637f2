import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import { parseRangeBound } from '../entries/time.js';

/**
 * Calendar arithmetic in IANA zones (luxon): reading calendar days in a zone and cutting day,
 * week and month buckets there, so 23- and 25-hour days at DST changes are single days.
 */
export type TimeGrouping = 'day' | 'week' | 'month';

export interface Bucket {
  key: string;
  start: number;
  end: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const MAX_RANGE_DAYS = 366;
/** Report instants are echoed as ISO timestamps, which end with the year 9999. */
const LATEST_END = Date.UTC(9999, 11, 31);

function checkEnd(end: number, field: string): void {
  if (end > LATEST_END) throw new DomainError('invalid', `${field}: reports end by 9999-12-30.`);
}

function localDay(value: string, zone: string, field: string): DateTime {
  const day = DateTime.fromISO(value, { zone });
  if (!day.isValid) throw new DomainError('invalid', `${field}: ${JSON.stringify(value)} is not a valid date.`);
  return day.startOf('day');
}

/** `from` and `to` of a report as instants: calendar days are read in `zone`; `to` is exclusive. */
export function reportRange(from: string, to: string, zone: string): { from: number; to: number } {
  const start = DAY.test(from) ? localDay(from, zone, 'from').toMillis() : parseRangeBound(from, 'from', false);
  const end = DAY.test(to) ? localDay(to, zone, 'to').plus({ days: 1 }).startOf('day').toMillis() : parseRangeBound(to, 'to', true);
  if (start > end || (DAY.test(from) && DAY.test(to) && from > to)) throw new DomainError('invalid', 'from: must not be after to.');
  checkEnd(end, 'to');
  if (end - start > (MAX_RANGE_DAYS + 1) * 86_400_000) {
    throw new DomainError('invalid', `to: a report spans at most ${MAX_RANGE_DAYS} days; split longer ranges.`);
  }
  return { from: start, to: end };
}

/** The buckets covering [from, to) in `zone`, each keyed by its local date (month: YYYY-MM). */
export function buckets(
  grouping: TimeGrouping,
  from: number,
  to: number,
  zone: string,
  weekStart: 'monday' | 'sunday' = 'monday',
): Bucket[] {
  let cursor = DateTime.fromMillis(from, { zone }).startOf('day');
  if (grouping === 'month') cursor = cursor.startOf('month');
  if (grouping === 'week') {
    // luxon weekdays: Monday 1 … Sunday 7.
    const back = weekStart === 'monday' ? cursor.weekday - 1 : cursor.weekday % 7;
    cursor = cursor.minus({ days: back }).startOf('day');
  }
  const step = grouping === 'day' ? { days: 1 } : grouping === 'week' ? { weeks: 1 } : { months: 1 };
  const result: Bucket[] = [];
  while (cursor.toMillis() < to) {
    const next = cursor.plus(step).startOf('day');
    result.push({
      key: grouping === 'month' ? cursor.toFormat('yyyy-MM') : (cursor.toISODate() as string),
      start: cursor.toMillis(),
      end: next.toMillis(),
    });
    cursor = next;
  }
  return result;
}

/** The seven local days from a calendar day, for the weekly report. */
export function weekFrom(day: string, zone: string): Bucket[] {
  const start = localDay(day, zone, 'from');
  checkEnd(start.plus({ days: 7 }).toMillis(), 'from');
  return Array.from({ length: 7 }, (_, i) => {
    const begin = start.plus({ days: i }).startOf('day');
    return { key: begin.toISODate() as string, start: begin.toMillis(), end: begin.plus({ days: 1 }).startOf('day').toMillis() };
  });
}
