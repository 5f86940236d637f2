import { IANAZone } from 'luxon';

/**
 * A cell a row cannot read (a day, a time of day, a duration, a local time the clocks skip): its
 * message in English (the report's, after the column's name) and its reason by name with the
 * values it says, for the Import page to say in the reader's language (src/modules/imports/rows.ts).
 */
export class CellError extends Error {
  constructor(
    message: string,
    readonly reason:
      | 'dayOrder'
      | 'notDate'
      | 'notDay'
      | 'notTimeOfDay'
      | 'twelveHour'
      | 'noTimeOfDay'
      | 'notDuration'
      | 'durationForm'
      | 'skipped',
    readonly vars: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** How a file writes its days: ISO only, or day/month/year, or month/day/year. */
export type DateOrder = 'YMD' | 'DMY' | 'MDY';

/** A calendar day and a time of day, as a file writes them (no zone). */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const ISO_DAY = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const OTHER_DAY = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp]\.?[Mm]\.?)?$/;

/** What one date cell says of the file's order: nothing (ISO, or both parts ≤ 12), day first, or month first. */
export function orderEvidence(cell: string): 'DMY' | 'MDY' | null {
  const m = OTHER_DAY.exec(cell.trim());
  if (!m) return null;
  const a = Number(m[1]);
  const b = Number(m[2]);
  if (a > 12 && b <= 12) return 'DMY';
  if (b > 12 && a <= 12) return 'MDY';
  return null;
}

/** Whether the cell is a day written day-or-month first (an order is needed to read it). */
export const needsOrder = (cell: string): boolean => OTHER_DAY.test(cell.trim());

/** A day cell read in the file's order; throws a message saying what was expected. */
export function parseDay(cell: string, order: DateOrder | null): { year: number; month: number; day: number } {
  const text = cell.trim();
  let year: number;
  let month: number;
  let day: number;
  const iso = ISO_DAY.exec(text);
  const other = iso ? null : OTHER_DAY.exec(text);
  if (iso) {
    [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else if (other && (order === 'DMY' || order === 'MDY')) {
    const a = Number(other[1]);
    const b = Number(other[2]);
    year = Number(other[3]);
    [day, month] = order === 'DMY' ? [a, b] : [b, a];
  } else {
    throw other
      ? new CellError(`"${text}" reads as day/month or month/day; the file is ISO (--date-format YMD) and this row is not`, 'dayOrder', {
          text,
        })
      : new CellError(`"${text}" is not a date: expected 2026-03-04, 04/03/2026 or 03/04/2026`, 'notDate', { text });
  }
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month))
    throw new CellError(`"${text}" is not a day of the calendar`, 'notDay', { text });
  return { year, month, day };
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** A time of day: 24-hour or 12-hour with AM/PM, seconds optional. */
export function parseTimeOfDay(cell: string): { hour: number; minute: number; second: number } {
  const text = cell.trim();
  const m = TIME.exec(text);
  if (!m) throw new CellError(`"${text}" is not a time of day: expected 14:05, 14:05:30 or 2:05 PM`, 'notTimeOfDay', { text });
  let hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = m[3] === undefined ? 0 : Number(m[3]);
  const meridiem = m[4]?.replace(/\./g, '').toUpperCase();
  if (meridiem) {
    if (hour < 1 || hour > 12) throw new CellError(`"${text}": a 12-hour time has hours from 1 to 12`, 'twelveHour', { text });
    hour = (hour % 12) + (meridiem === 'PM' ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) throw new CellError(`"${text}" is not a time of day`, 'noTimeOfDay', { text });
  return { hour, minute, second };
}

/** A duration: h:mm or h:mm:ss (exact seconds), or decimal hours (rounded to the nearest second). */
export function parseDuration(cell: string): number {
  const text = cell.trim().replace(',', '.');
  const clock = /^(\d+):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (clock) {
    if (Number(clock[2]) > 59 || Number(clock[3] ?? 0) > 59) throw new CellError(`"${text}" is not a duration`, 'notDuration', { text });
    return Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3] ?? 0);
  }
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 3600);
  throw new CellError(`"${cell.trim()}" is not a duration: expected 1:30, 1:30:00 or 1.5 (hours)`, 'durationForm', { text: cell.trim() });
}

/**
 * Local times of one IANA zone as instants, fast: the zone's offset (luxon's, from the platform's
 * time zone data) is looked up twice per day of the timeline and cached, since an import converts
 * millions of times that fall on a few thousand days.
 */
export class ZoneClock {
  private readonly zone: IANAZone;
  private readonly offsets = new Map<number, number>();

  constructor(readonly name: string) {
    if (!IANAZone.isValidZone(name)) throw new Error(`unknown time zone "${name}": use an IANA name such as Europe/Berlin`);
    this.zone = IANAZone.create(name);
  }

  /** The zone's offset from UTC at an instant, in ms. */
  offsetAt(ms: number): number {
    // A UTC day whose offset is the same at its first and last millisecond has no change of
    // offset inside (changes are months apart): one cached value serves all of its instants.
    const day = Math.floor(ms / 86_400_000);
    let offset = this.offsets.get(day);
    if (offset === undefined) {
      const first = this.zone.offset(day * 86_400_000) * 60_000;
      const last = this.zone.offset(day * 86_400_000 + 86_399_999) * 60_000;
      offset = first === last ? first : Number.NaN;
      this.offsets.set(day, offset);
    }
    return Number.isNaN(offset) ? this.zone.offset(ms) * 60_000 : offset;
  }

  /**
   * The instant of a local time: throws when it does not exist (a DST gap); the earlier of the two
   * when it exists twice (the repeated hour).
   */
  instant(t: LocalTime): number {
    const local = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
    const before = this.offsetAt(local - 43_200_000);
    const after = this.offsetAt(local + 43_200_000);
    let best: number | null = null;
    for (const offset of before === after ? [before] : [before, after]) {
      const candidate = local - offset;
      if (this.offsetAt(candidate) === offset && (best === null || candidate < best)) best = candidate;
    }
    if (best === null) {
      const text = `${pad(t.hour)}:${pad(t.minute)}`;
      throw new CellError(`${text} does not exist in ${this.name} on that day (the clocks skip it for daylight saving time)`, 'skipped', {
        text,
        zone: this.name,
      });
    }
    return best;
  }
}

const pad = (n: number) => String(n).padStart(2, '0');
