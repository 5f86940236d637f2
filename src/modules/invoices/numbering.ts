import { DateTime } from 'luxon';
import type { Clock } from '../../clock.js';
import { parseCalendarDay } from '../../kernel/time.js';
import { invoiceErrors as errors } from './errors.js';
import type { InvoicePorts } from './ports.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';
import { formatNumber, restartsYearly, settingsOf } from './settings.js';

/**
 * The days and numbers of issued documents (decisions §11): a document is dated the acting
 * member's today (their zone, else the server's) or a day given, never after today and never
 * before the workspace's last document; its number is the next of the series, recorded in the
 * register whose unique index refuses a number given twice. Runs inside the move's write.
 */
export function createNumbering({
  repo,
  ports,
  clock,
  defaultTimeZone,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  defaultTimeZone: string;
}) {
  /** The member's today: in their own zone, else the server's. */
  function today(userId: string): { day: string; zone: string } {
    const zone = ports.timeZoneOf(userId) ?? defaultTimeZone;
    return { day: DateTime.fromMillis(clock.now(), { zone }).toISODate() as string, zone };
  }

  /** The day a move is dated: the one given (a real day, not after today) or today. */
  function moveDate(userId: string, given: string | undefined, what: string): string {
    const now = today(userId);
    if (given === undefined) return now.day;
    parseCalendarDay(given, 'date');
    if (given > now.day)
      throw errors.invalid(
        `The ${what} ${given} is after today (${now.day} in ${now.zone}, the acting member's zone): date it today or earlier.`,
      );
    return given;
  }

  /** The {seq} of the next document of the series dated `date` (per year when the pattern holds one). */
  function nextSeq(workspaceId: string, pattern: string, date: string): number {
    const year = Number(date.slice(0, 4));
    const range = restartsYearly(pattern) ? { from: `${year}-01-01`, to: `${year + 1}-01-01` } : null;
    return repo.issuedCount(workspaceId, range) + 1;
  }

  /**
   * The number the next document would get if `userId` issued it today (or on the last
   * document's day, when that is later), with that day: the settings page's example. Reads only.
   */
  function upcoming(workspaceId: string, userId: string): { number: string; date: string } {
    const last = repo.lastIssued(workspaceId);
    const now = today(userId).day;
    const date = last && last.issueDate > now ? last.issueDate : now;
    const { numberPattern } = settingsOf(repo.settings(workspaceId));
    return { number: formatNumber(numberPattern, date, nextSeq(workspaceId, numberPattern, date)), date };
  }

  /**
   * A number of the workspace's series for a document dated `date`: never dated before the last
   * document, the next {seq} of the series (per year when the pattern holds one), recorded in the
   * numbers' register, whose unique index refuses a number given before. Inside the move's write.
   */
  function nextNumber(invoice: InvoiceRow, date: string, kind: 'invoice' | 'credit_note'): string {
    const last = repo.lastIssued(invoice.workspaceId);
    if (last && date < last.issueDate)
      throw errors.conflict(
        `The ${kind === 'invoice' ? 'issue' : 'credit note'} date ${date} is before ${last.issueDate}, the date of ${last.number}, the last document issued in this workspace: numbers and dates run together. Date it ${last.issueDate} or later.`,
      );
    const { numberPattern } = settingsOf(repo.settings(invoice.workspaceId));
    const number = formatNumber(numberPattern, date, nextSeq(invoice.workspaceId, numberPattern, date));
    repo.insertNumber({ workspaceId: invoice.workspaceId, number, invoiceId: invoice.id, kind, issueDate: date, createdAt: clock.now() });
    return number;
  }

  /**
   * The refusal of a number the unique index turned down (the pattern was changed to give old
   * numbers again), in the words of whom it is for: the operator's command line, or a member's
   * Workspace page.
   */
  const numberTaken = (workspaceId: string, toOperator = true) =>
    toOperator
      ? `The number this document would get is already taken in workspace ${workspaceId} (the number pattern was changed since): change numberPattern so that it gives new numbers (timetrack workspace invoicing ${workspaceId} --set numberPattern=…), then try again. Nothing was changed.`
      : 'The number this document would get is already taken (the number pattern was changed since): change the number pattern under Settings › Workspace › Invoicing so that it gives new numbers, then try again. Nothing was changed.';

  return { moveDate, nextNumber, numberTaken, upcoming };
}
