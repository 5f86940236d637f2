import { DomainError } from '../../errors.js';

/** A body date-time (validated by the contract: Z or ±hh:mm) as epoch milliseconds. */
/** Instants the API accepts: the years 1900 to 9998 (later ones cannot be echoed as timestamps). */
export const EARLIEST_INSTANT = Date.UTC(1900, 0, 1);
export const LATEST_INSTANT = Date.UTC(9999, 0, 1);

export function parseInstant(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new DomainError('invalid', `${field}: ${JSON.stringify(value)} is not a valid date-time.`);
  if (ms < EARLIEST_INSTANT || ms >= LATEST_INSTANT) {
    throw new DomainError('invalid', `${field}: ${JSON.stringify(value)} lies outside the years 1900 to 9998.`);
  }
  // Date.parse rolls impossible dates over (2026-02-30 becomes March 2): refuse them instead.
  const day = value.slice(0, 10);
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, m - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) {
    throw new DomainError('invalid', `${field}: ${JSON.stringify(value)} is not a valid date-time.`);
  }
  return ms;
}

/**
 * A range bound of GET /entries: a calendar day (UTC; as the end of a range, the end of that day)
 * or a date-time. An unencoded `+` in an offset arrives as a space and is read as `+`.
 */
export function parseRangeBound(value: string, field: string, end: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = parseInstant(`${value}T00:00:00Z`, field);
    return end ? start + 86_400_000 : start;
  }
  return parseInstant(value.replace(/ (\d{2}:\d{2})$/, '+$1'), field);
}

/** The canonical name of an IANA time zone, or a 400 naming the field. */
export function canonicalTimeZone(value: string, field = 'timeZone'): string {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) throw invalidZone(value, field);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw invalidZone(value, field);
  }
}

const invalidZone = (value: string, field: string) =>
  new DomainError('invalid', `${field}: ${JSON.stringify(value)} is not an IANA time zone name such as Europe/Berlin.`);
