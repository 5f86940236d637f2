import { DateTime } from 'luxon';
import { parseCalendarDay } from '../../kernel/time.js';

export type PeriodKind = 'weekly' | 'monthly';

/** A member's week (Monday to Sunday) or calendar month, in their zone. */
export interface PeriodSpan {
  kind: PeriodKind;
  /** Its first and last day, `YYYY-MM-DD`, in `timeZone`. */
  startDay: string;
  endDay: string;
  timeZone: string;
  /** [fromAt, toAt): the instants of its first day's start and of the next period's. */
  fromAt: number;
  toAt: number;
}

const spanFrom = (kind: PeriodKind, start: DateTime, timeZone: string): PeriodSpan => {
  const next = kind === 'weekly' ? start.plus({ weeks: 1 }) : start.plus({ months: 1 });
  return {
    kind,
    startDay: start.toISODate() as string,
    endDay: next.minus({ days: 1 }).toISODate() as string,
    timeZone,
    fromAt: start.toMillis(),
    toAt: next.toMillis(),
  };
};

/** The period of a calendar day (`YYYY-MM-DD`) in a zone: its week from Monday, or its month (a DST day is one day). */
export function periodOfDay(kind: PeriodKind, day: string, timeZone: string, field = 'day'): PeriodSpan {
  const { year, month, day: date } = parseCalendarDay(day, field);
  const local = DateTime.fromObject({ year, month, day: date }, { zone: timeZone });
  return spanFrom(kind, local.startOf(kind === 'weekly' ? 'week' : 'month'), timeZone);
}

/** The period an instant falls in, read in a zone (an entry's start, in its author's zone). */
export function periodAt(kind: PeriodKind, at: number, timeZone: string): PeriodSpan {
  const local = DateTime.fromMillis(at, { zone: timeZone });
  return spanFrom(kind, local.startOf(kind === 'weekly' ? 'week' : 'month'), timeZone);
}

/** The calendar day of an instant in a zone. */
export const dayAt = (at: number, timeZone: string): string => DateTime.fromMillis(at, { zone: timeZone }).toISODate() as string;
