import { DateTime, IANAZone } from 'luxon';
import { DomainError } from '../../errors.js';
import { formats, type Words, words } from '../../i18n/index.js';

/** How a person wants times of day written: 24-hour (`14:05`) or 12-hour (`2:05 PM`). */
export type TimeFormat = '24h' | '12h';

const refuse = (field: string, message: string, said?: Words) =>
  new DomainError('invalid', message, { field, ...(said === undefined ? {} : { words: said }) });

/** The one duration rule, as every duration field's hint says it (docs/pages.md, "One duration rule"). */
export const DURATION_HINT = '2 or 1.5 = hours, 90m = minutes, 1:30 = 1 h 30 min';

/**
 * A duration as people type it, by the one rule of every page (docs/pages.md, "One duration rule"): a bare number is
 * **hours**, as Harvest's users type (`2`, `1.5`, `1,5`, `.5`); `90m` (or `90 min`) is minutes;
 * `1:30` hours and minutes (`1:30:15` with seconds); `1h30`, `1h 30m`, `2 h`, `1.5h`. Whole
 * seconds, or a refusal that says what to type.
 */
export function durationOf(text: string, field = 'duration'): number {
  const value = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const seconds = ((): number | null => {
    const clock = /^(\d{1,3}):([0-5]\d)(?::([0-5]\d))?$/.exec(value);
    if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3] ?? 0);
    const hours = /^(\d*[.,]\d+|\d+)\s?(?:h|hr|hrs|hours?)?$/.exec(value);
    if (hours) return Math.round(Number((hours[1] as string).replace(',', '.')) * 3600);
    const minutes = /^(\d+)\s?(?:m|min|mins|minutes?)$/.exec(value);
    if (minutes) return Number(minutes[1]) * 60;
    const mixed = /^(\d+)\s?h\s?(\d+)\s?(?:m|min)?$/.exec(value);
    if (mixed) return Number(mixed[1]) * 3600 + Number(mixed[2]) * 60;
    return null;
  })();
  if (seconds === null)
    throw refuse(
      field,
      `“${text.trim()}” is not a duration. Type hours as 2 or 1.5, minutes as 90m, or both as 1:30.`,
      words('week.notDuration', { text: text.trim() }),
    );
  if (seconds <= 0) throw refuse(field, 'The duration is zero. Type how long you worked, such as 1:30.', words('week.zeroDuration'));
  return seconds;
}

/** A day's time above which a page asks again before it saves (docs/pages.md)… */
export const DAY_ASK_SEC = 12 * 3600;
/** …and above which it refuses: no day holds more. */
export const DAY_MAX_SEC = 24 * 3600;

/**
 * A day's time asked about again (over 12 hours): the form comes back as it was sent, with this
 * question at its field and a button that saves it anyway (`longDay=true`). 409: nothing was
 * written, and sending it again confirmed writes it.
 */
export class LongDay extends DomainError {
  constructor(
    message: string,
    field: string,
    /** The day's time as the question and its button say it (`14:30`). */
    readonly total: string,
    said?: Words,
  ) {
    super('conflict', message, { field, people: message, ...(said === undefined ? {} : { words: said }) });
  }
}

/**
 * The rule of a day's total on every page: a day's time (the member's own entries that start on
 * it, with what the form adds) over 24 hours is refused, over 12 hours asked again unless the
 * person confirmed it (`confirmed`). `day` names the day as the page does ("Monday 2 November").
 */
export function checkDayTotal(totalSec: number, day: string, confirmed: boolean, field: string): void {
  const total = hoursText(totalSec);
  if (totalSec > DAY_MAX_SEC)
    throw refuse(
      field,
      `That makes ${total} on ${day}, more than the 24 hours a day has: nothing was saved. Check the duration (2 is two hours; type 90m for minutes).`,
      words('week.dayOver24', { total, day }),
    );
  if (totalSec > DAY_ASK_SEC && !confirmed)
    throw new LongDay(
      `That makes ${total} on ${day}, more than 12 hours. If that is right, save it again with “Yes, save ${total}”; else change it (2 is two hours, 90m is minutes).`,
      field,
      total,
      words('week.dayOver12', { total, day }),
    );
}

/** A time of day as people type it (`9`, `09:05`, `905`, `9:05 pm`, `21.05`): minutes after midnight, or a refusal. */
export function timeOfDay(text: string, field: string, what: 'time' | 'start time' | 'end time' = 'time'): number {
  const value = text.trim().toLowerCase().replace(/\./g, ':').replace(/\s+/g, '');
  const match = /^(\d{1,2})(?::?(\d{2}))?(am|pm|a|p)?$/.exec(value);
  const hour = match ? Number(match[1]) : NaN;
  const minute = match ? Number(match[2] ?? 0) : NaN;
  const half = match?.[3]?.[0];
  const ok = match !== null && minute < 60 && (half ? hour >= 1 && hour <= 12 : hour <= 24) && !(hour === 24 && minute > 0);
  if (!ok)
    throw refuse(
      field,
      `“${text.trim()}” is not a ${what}. Type it as 09:30, 930 or 9:30 am.`,
      words(what === 'start time' ? 'week.notStartTime' : what === 'end time' ? 'week.notEndTime' : 'week.notTime', { text: text.trim() }),
    );
  const h24 = half === 'p' ? (hour % 12) + 12 : half === 'a' ? hour % 12 : hour;
  return h24 * 60 + minute;
}

/** A day and a time typed in a form, in the member's zone: the instant (ms). A time that does not exist (a DST gap) is refused. */
export function instantAt(day: string, minutes: number, zone: string, field: string): number {
  const date = DateTime.fromISO(day, { zone });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !date.isValid)
    throw refuse('day', `“${day}” is not a day. Choose one, such as 2026-11-23.`, words('week.notDay', { day }));
  const at = date.startOf('day').plus({ minutes });
  if (at.hour * 60 + at.minute !== minutes % 1440 && minutes < 1440)
    throw refuse(
      field,
      `${clockText(minutes)} does not exist on ${day} in ${zone} (the clocks moved). Choose another time.`,
      words('week.noSuchTime', { time: formats().clock(minutes), day: formats().date(day), zone }),
    );
  return at.toMillis();
}

/**
 * A span typed in a form: a day, a start, and an end or a duration. An end at or before the
 * start is the next day only when the person says so (`nextDay`), else refused with that question.
 */
export function spanOf(
  input: { day: string; start: string; end: string; duration: string; nextDay: boolean },
  zone: string,
): { start: number; end: number } {
  const startMin = timeOfDay(input.start, 'start', 'start time');
  const start = instantAt(input.day, startMin, zone, 'start');
  if (input.duration.trim() !== '') return { start, end: start + durationOf(input.duration) * 1000 };
  if (input.end.trim() === '') throw refuse('end', 'Give an end time or a duration, such as 17:00 or 1:30.', words('week.needEnd'));
  const endMin = timeOfDay(input.end, 'end', 'end time');
  if (endMin <= startMin && !input.nextDay)
    throw refuse(
      'end',
      `The end (${clockText(endMin)}) is before the start (${clockText(startMin)}). Did you mean the next day? Tick “ends the next day”.`,
      words('week.endBeforeStart', { end: formats().clock(endMin), start: formats().clock(startMin) }),
    );
  const endDay = endMin <= startMin ? (DateTime.fromISO(input.day).plus({ days: 1 }).toISODate() as string) : input.day;
  return { start, end: instantAt(endDay, endMin, zone, 'end') };
}

/**
 * A timer's start typed as a time today (`09:12`) or a duration ago, by the one rule (`-15m` or
 * `15m ago` fifteen minutes ago, `-1:30` an hour and a half, `-2` two hours): the instant, never in
 * the future.
 */
export function timerStartOf(text: string, now: number, zone: string): number {
  const value = text.trim().toLowerCase();
  const ago = /^(?:[-−]\s?(.+)|(.+?)\s?ago)$/.exec(value);
  if (ago) return now - durationOf((ago[1] ?? ago[2]) as string, 'start') * 1000;
  const minutes = timeOfDay(text, 'start', 'start time');
  const today = DateTime.fromMillis(now, { zone }).toISODate() as string;
  const at = instantAt(today, minutes, zone, 'start');
  // A time later than now is yesterday's (a timer started before midnight).
  return at > now ? instantAt(DateTime.fromMillis(now, { zone }).minus({ days: 1 }).toISODate() as string, minutes, zone, 'start') : at;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Minutes after midnight as `14:05` (24-hour) or `2:05 PM`. */
export function clockText(minutes: number, format: TimeFormat = '24h'): string {
  const h = Math.floor(minutes / 60) % 24;
  const m = minutes % 60;
  if (format === '24h') return `${pad(h)}:${pad(m)}`;
  return `${h % 12 === 0 ? 12 : h % 12}:${pad(m)} ${h < 12 ? 'AM' : 'PM'}`;
}

/**
 * The zone's offset from UTC at an instant, in minutes, remembered per quarter hour (zones change
 * their offset on quarter hours): a week of 500 rows asks luxon about a handful of quarters, not
 * 1,000 times (its offset lookup was the largest part of the week page's own time).
 */
const offsets = new Map<string, { zone: IANAZone; at: Map<number, number> }>();
export function zoneOffset(zone: string, ms: number): number {
  let known = offsets.get(zone);
  if (known === undefined) {
    if (offsets.size > 1_000) offsets.clear();
    known = { zone: IANAZone.create(zone), at: new Map() };
    offsets.set(zone, known);
  }
  const bucket = Math.floor(ms / 900_000);
  let offset = known.at.get(bucket);
  if (offset === undefined) {
    if (known.at.size > 10_000) known.at.clear();
    offset = known.zone.offset(ms);
    known.at.set(bucket, offset);
  }
  return offset;
}

/** An instant's time of day in the zone, as the member writes times. */
export const timeText = (ms: number, zone: string, format: TimeFormat = '24h'): string => {
  const local = Math.floor((ms + zoneOffset(zone, ms) * 60_000) / 60_000);
  return clockText(((local % 1440) + 1440) % 1440, format);
};

/**
 * Seconds as the week's rows and totals show them: `1:05` (hours and minutes), or `1:05:09`
 * for a member who reads durations with seconds (Profile; src/i18n/format.ts).
 */
export function hoursText(seconds: number): string {
  return formats().duration(seconds);
}
