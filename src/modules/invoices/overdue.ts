import { DateTime } from 'luxon';
import { dayEnd } from '../../kernel/time.js';

/*
 * When an invoice is overdue (issue 57 item 3, decisions §12): it is `sent`, something is still
 * due on it, and its due date has passed in the workspace's default zone. A due date is a
 * calendar day: the invoice is payable all of that day, and overdue from the next day's midnight
 * there (not 24 hours after a UTC midnight). Days overdue are calendar days of that zone, so a
 * DST change (a 23- or 25-hour day) counts as one day. Pure: no database.
 */

/** What of an invoice the rule reads: its status, due date and the cents still due. */
export interface OverdueSubject {
  status: 'draft' | 'sent' | 'paid' | 'void';
  dueDate: string | null;
  /** What is still due, in cents (its gross total less the payments and discounts recorded). */
  amountDueCents: number;
}

/** The instant an invoice due on `dueDate` becomes overdue: the midnight that ends its due date in `zone`. */
export const overdueFrom = (dueDate: string, zone: string): number => dayEnd(dueDate, 'dueDate', zone);

/** The calendar day `YYYY-MM-DD` of an instant in a zone. */
export const dayIn = (instant: number, zone: string): string => DateTime.fromMillis(instant, { zone }).toISODate() as string;

/**
 * How many days past its due date the invoice is at `now` in `zone` (1 on the day after the due
 * date), or null when it is not overdue: not sent, nothing due, no due date, or not past it yet.
 */
export function daysOverdue(invoice: OverdueSubject, zone: string, now: number): number | null {
  if (invoice.status !== 'sent' || invoice.dueDate === null || !(invoice.amountDueCents > 0)) return null;
  if (now < overdueFrom(invoice.dueDate, zone)) return null;
  const today = DateTime.fromISO(dayIn(now, zone), { zone: 'UTC' });
  const due = DateTime.fromISO(invoice.dueDate, { zone: 'UTC' });
  return Math.round(today.diff(due, 'days').days);
}
