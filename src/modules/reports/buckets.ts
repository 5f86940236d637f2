import { DateTime } from 'luxon';
import { reportErrors } from './errors.js';
import { dayStart, looksLikeCalendarDay, parseRange } from '../../kernel/time.js';

/*
 * Report time buckets: day, week and month cut in the report's IANA zone (luxon), so 23- and
 * 25-hour days at DST changes are single days.
 */
/** The groupings cut by the calendar. */
export type TimeGrouping = 'day' | 'week' | 'month';

export interface Bucket {
  key: string;
  start: number;
  end: number;
}

export const MAX_RANGE_DAYS = 366;

/** `from` and `to` of a report as instants: calendar days are read in `zone`; `to` is exclusive. */
export function reportRange(from: string, to: string, zone: string): { from: number; to: number } {
  const range = parseRange(from, to, zone);
  // `to` (a calendar day, or an instant) at most 366 calendar days after `from`, in the zone.
  const toRef = looksLikeCalendarDay(to) ? dayStart(to, 'to', zone) : range.to;
  if (toRef > DateTime.fromMillis(range.from, { zone }).plus({ days: MAX_RANGE_DAYS }).toMillis()) {
    throw reportErrors.rangeTooLong(MAX_RANGE_DAYS);
  }
  return range;
}

/** The seven local days from a calendar day, for the weekly report. */
export function weekFrom(day: string, zone: string): Bucket[] {
  const start = DateTime.fromMillis(dayStart(day, 'from', zone), { zone });
  return Array.from({ length: 7 }, (_, i) => {
    const begin = start.plus({ days: i }).startOf('day');
    return { key: begin.toISODate() as string, start: begin.toMillis(), end: begin.plus({ days: 1 }).startOf('day').toMillis() };
  });
}
