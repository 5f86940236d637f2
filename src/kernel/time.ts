import { DateTime } from 'luxon';
import { DomainError } from '../errors.js';
import { type Key, words } from '../i18n/index.js';

/*
 * Time, read and written one way everywhere: instants are epoch milliseconds; a calendar day is
 * `YYYY-MM-DD`; a body date-time carries `Z` or `±hh:mm`; zones are IANA names (luxon does the
 * calendar arithmetic, so 23- and 25-hour days at DST changes are single days).
 */
/** One calendar day in UTC (zoned days may have 23 or 25 hours: use dayEnd). */
export const DAY_MS = 86_400_000;
/** Instants the API accepts: the years 1900 to 9998 (later ones cannot be echoed as timestamps). */
export const EARLIEST_INSTANT = Date.UTC(1900, 0, 1);
export const LATEST_INSTANT = Date.UTC(9999, 0, 1);

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A refusal at `field`; its words for people by key (`{{field}}: {{value}} …`, the value as the message shows it). */
const invalid = (field: string, message: string, key?: Key, value?: unknown) =>
  new DomainError('invalid', `${field}: ${message}`, {
    field,
    ...(key === undefined ? {} : { words: words(key, { field, value: String(JSON.stringify(value)) }) }),
  });

/** An ISO-8601 UTC timestamp, as every response emits them. */
export const toIso = (ms: number): string => new Date(ms).toISOString();

/** Whether the text has the form of a calendar day (`YYYY-MM-DD`); validity is parseCalendarDay's. */
export const looksLikeCalendarDay = (value: string): boolean => CALENDAR_DAY.test(value);

/** The parts of a real calendar day `YYYY-MM-DD` (2026-02-30 is not one), or null. */
function calendarDay(value: string): { year: number; month: number; day: number } | null {
  if (!CALENDAR_DAY.test(value)) return null;
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return { year, month, day };
}

/** A real calendar day `YYYY-MM-DD`, as its parts, or a 400 naming the field. */
export function parseCalendarDay(value: string, field: string): { year: number; month: number; day: number } {
  const parts = calendarDay(value);
  if (!parts)
    throw invalid(
      field,
      `${JSON.stringify(value)} is not a calendar day (YYYY-MM-DD, a date that exists).`,
      'input.refused.calendarDay',
      value,
    );
  return parts;
}

/** The start of a calendar day in a zone (UTC by default), as an instant. */
export function dayStart(value: string, field: string, zone = 'UTC'): number {
  const { year, month, day } = parseCalendarDay(value, field);
  const start = DateTime.fromObject({ year, month, day }, { zone });
  if (!start.isValid) throw new Error(`dayStart: ${zone} is not a zone (callers pass canonicalTimeZone's result)`);
  return checkBounds(start.toMillis(), value, field);
}

/** The start of the next calendar day in the zone: the exclusive end of `value`. */
export function dayEnd(value: string, field: string, zone = 'UTC'): number {
  return DateTime.fromMillis(dayStart(value, field, zone), { zone })
    .plus({ days: 1 })
    .startOf('day')
    .toMillis();
}

/** A date-time with `Z` or a numeric offset (the contract checks the form) as an instant. */
export function parseInstant(value: string, field: string): number {
  const ms = Date.parse(value);
  // Date.parse rolls impossible dates over (2026-02-30 becomes March 2): refuse them instead.
  if (Number.isNaN(ms))
    throw invalid(
      field,
      `${JSON.stringify(value)} is not a date-time: send YYYY-MM-DDThh:mm:ss with Z or an offset, e.g. "2026-11-02T09:00:00+01:00".`,
      'input.refused.instant',
      value,
    );
  if (!calendarDay(value.slice(0, 10)))
    throw invalid(
      field,
      `${JSON.stringify(value)} is not a date-time that exists (the calendar has no such day).`,
      'input.refused.instantDay',
      value,
    );
  return checkBounds(ms, value, field);
}

function checkBounds(ms: number, value: string, field: string): number {
  if (ms < EARLIEST_INSTANT || ms >= LATEST_INSTANT)
    throw invalid(field, `${JSON.stringify(value)} lies outside the years 1900 to 9998.`, 'input.refused.years', value);
  return ms;
}

/**
 * A range bound of a filter: a calendar day read in `zone` (as the end of a range, the end of
 * that day) or a date-time. An unencoded `+` in an offset arrives as a space and is read as `+`.
 */
export function parseRangeBound(value: string, field: string, end: boolean, zone = 'UTC'): number {
  if (CALENDAR_DAY.test(value)) return end ? dayEnd(value, field, zone) : dayStart(value, field, zone);
  return parseInstant(value.replace(/ (\d{2}:\d{2})$/, '+$1'), field);
}

/** `[from, to)` of a range filter; two calendar days compare as days (from=11-03&to=11-02 is backwards, though their instants meet). */
export function parseRange(from: string, to: string, zone = 'UTC'): { from: number; to: number } {
  const start = parseRangeBound(from, 'from', false, zone);
  const end = parseRangeBound(to, 'to', true, zone);
  if (start > end || (CALENDAR_DAY.test(from) && CALENDAR_DAY.test(to) && from > to))
    throw invalid('from', 'must not be after to.', 'input.refused.rangeOrder', to);
  return { from: start, to: end };
}

/** The canonical name of an IANA time zone (europe/berlin is Europe/Berlin), or a 400 naming the field. */
export function canonicalTimeZone(value: string, field = 'timeZone'): string {
  const refuse = () =>
    invalid(field, `${JSON.stringify(value)} is not an IANA time zone name such as Europe/Berlin.`, 'input.refused.timeZone', value);
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) throw refuse();
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw refuse();
  }
}

/** Whole seconds between two instants (never negative). */
export const secondsBetween = (startMs: number, endMs: number): number => Math.max(0, Math.floor((endMs - startMs) / 1000));
