import { DateTime } from 'luxon';
import type { Clock } from '../../clock.js';
import { BudgetSpent, DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import { fromCents, toCents } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
import type { Logger } from '../../logger.js';
import type { Principal } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import type { Access } from './access.js';
import { DOCUMENT_FORMATS, type DocumentFormat, documentFileName, documentMediaType, documentRefusal } from './documents/index.js';
import { invoiceErrors as errors } from './errors.js';
import { issuerNameOf, queueToClient } from './mailing.js';
import { dayIn, daysOverdue } from './overdue.js';
import type { DocumentRenderer, InvoicePorts } from './ports.js';
import { handOut } from './publishing.js';
import { composeReminder } from './reminder-mail.js';
import type { InvoiceReminderRow, InvoiceRow, InvoicesRepository } from './repository.js';
import { parseReminders, settingsOf } from './settings.js';
import { documentSource, type InvoiceView, view } from './views.js';

/*
 * Overdue invoices and payment reminders (issue 57 item 3, its second half; decisions §12): the
 * Overdue list, read in the workspace's default zone (overdue.ts), and the reminders the
 * scheduler's tick mails for the workspaces that turned them on: one per invoice and level, with
 * the invoice's documents attached, queued and recorded in one write.
 */

/** A reminder sent, as the invoice page, the Overdue view and `invoice show` show it. */
export interface InvoiceReminderView {
  level: number;
  /** When it was queued (ISO 8601, UTC). */
  at: string;
  daysOverdue: number;
  /** What was due when it was sent. */
  amountDue: number;
  to: string;
  files: string[];
  /** The mail message (the Mail page's and `mail list`'s id). */
  mailId: string;
  /** Where that message stands now; null once the mail log no longer holds it (30 days). */
  delivery: 'queued' | 'sent' | 'failed' | 'cancelled' | null;
}

/**
 * A reminder the scheduler's tick could not send (issue 57), while it is still due: its level,
 * the day it was due since, why (`budget`: the workspace's mail budget was spent; `document`:
 * its document failed its rules; `address`: the invoice's recipient has no email address mail
 * can reach), the refusal's words and when it was last tried (hourly).
 */
export interface InvoiceReminderSkipView {
  level: number;
  since: string;
  reason: 'budget' | 'document' | 'address';
  detail: string;
  /** When it was last tried (ISO 8601, UTC). */
  at: string;
}

/** A reminder's documents refused by their rules: the tick records it as skipped (not the invoice that changed meanwhile). */
class DocumentRefused extends Error {}

/** An overdue invoice as the Overdue view shows it. */
export interface OverdueView {
  invoice: InvoiceView;
  /** Calendar days past the due date in the workspace's default zone (1 on the day after it). */
  daysOverdue: number;
  amountDue: number;
  /** The last reminder sent for it, or null. */
  lastReminder: InvoiceReminderView | null;
}

const amountDueCents = (row: InvoiceRow): number => toCents(view(row).amountDue);

/** The overdue reading of a stored invoice at `now` in `zone`, or null when it is not overdue. */
export function overdueOf(row: InvoiceRow, zone: string, now: number): number | null {
  return daysOverdue({ status: row.status, dueDate: row.dueDate, amountDueCents: amountDueCents(row) }, zone, now);
}

/** The highest level an invoice overdue by `days` has reached under the levels' days (0: none). */
export function levelReached(levels: readonly number[], days: number): number {
  let level = 0;
  levels.forEach((d, i) => {
    if (days >= d) level = i + 1;
  });
  return level;
}

/** The e-invoice XML to attach: the one its last mail carried, when it can still be made; else none (the PDF alone). */
function xmlOf(repo: InvoicesRepository, invoice: InvoiceView): DocumentFormat | null {
  const last = repo
    .sends(invoice.id)
    .filter((s) => s.document === 'invoice')
    .at(-1);
  if (!last) return null;
  const files = JSON.parse(last.files) as string[];
  const format = DOCUMENT_FORMATS.find((f) => f !== 'pdf' && files.includes(documentFileName(invoice, f)));
  return format !== undefined && documentRefusal(invoice, format) === null ? format : null;
}

type Deps = {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  write: DomainWrite;
  access: Access;
  render: DocumentRenderer;
  defaultTimeZone: string;
  logger?: Logger;
};

/** The level an invoice is due now (one it has not had, the highest reached), with its days overdue; or null. */
function levelDueOf(
  { repo, clock, defaultTimeZone }: Deps,
  row: InvoiceRow,
  reminders: string | null,
): { level: number; days: number } | null {
  const days = overdueOf(row, defaultTimeZone, clock.now());
  if (days === null || reminders === null) return null;
  const level = levelReached(parseReminders(reminders) ?? [], days);
  const had = Math.max(0, ...repo.reminders(row.id).map((r) => r.level));
  return level > had ? { level, days } : null;
}

/**
 * Where a reminder goes: the recipient's email as the invoice stores it, when mail can be
 * addressed to it; else why not (no email, or one the mail module refuses, in its words).
 */
function addressOf(ports: InvoicePorts, invoice: InvoiceView): { to: string } | { problem: string } {
  const address = (invoice.recipient?.email ?? '').trim();
  if (address === '') return { problem: "the invoice's recipient has no email address" };
  const problem = ports.mail.undeliverable(address);
  return problem === null
    ? { to: address }
    : { problem: `the recipient's email ${JSON.stringify(address)} cannot receive mail: ${problem}` };
}

/** Makes the documents, then one write checks again, spends the workspace's mail budget, queues the mail and records the reminder. */
async function sendReminder(deps: Deps, row: InvoiceRow, due: { level: number }): Promise<void> {
  const { repo, ports, clock, write, render } = deps;
  const invoice = view(row);
  const address = addressOf(ports, invoice);
  if (!('to' in address)) return;
  const { to } = address;
  const xml = xmlOf(repo, invoice);
  const formats: DocumentFormat[] = xml === null ? ['pdf'] : ['pdf', xml];
  const made: Array<{ format: DocumentFormat; bytes: Buffer }> = [];
  for (const format of formats) {
    try {
      made.push({ format, bytes: await render(documentSource(row, invoice), format, { creditNote: false }) });
    } catch (error) {
      if (error instanceof DomainError) throw new DocumentRefused(error.message);
      throw error;
    }
  }
  write(() => {
    const current = repo.invoice(row.id);
    const again = current ? levelDueOf(deps, current, settingsOf(repo.settings(row.workspaceId)).reminders) : null;
    if (current === undefined || again === null || again.level !== due.level)
      throw new DomainError('conflict', `Invoice ${row.id} changed while its reminder was made.`);
    // Counted against the workspace's mail budget only: nobody asked for it (the scheduler's tick sends it).
    ports.mail.spend({ kind: 'reminder', userId: null, workspaceId: row.workspaceId });
    const issuerName = issuerNameOf(invoice, ports.workspaceName(invoice.workspaceId));
    const files = made.map((m) => ({ name: documentFileName(invoice, m.format), type: documentMediaType(m.format), bytes: m.bytes }));
    const amountDue = amountDueCents(current);
    const composed = composeReminder(invoice, {
      level: again.level,
      daysOverdue: again.days,
      amountDue: fromCents(amountDue),
      issuerName,
      xmlFile: files[1]?.name ?? null,
    });
    const mailId = queueToClient(ports, invoice, { kind: 'invoice-reminder', to, composed, attachments: files, issuerName });
    // The documents mailed are handed out: the fills they carry are fixed from now on (decisions 14).
    handOut(repo, clock, row.id, invoice, 'the next tick sends it');
    // Sent: a skip recorded on an earlier tick is no longer so.
    if (current.reminderSkip !== null) repo.update(row.id, { reminderSkip: null });
    repo.insertReminder({
      id: newId('irem'),
      workspaceId: row.workspaceId,
      invoiceId: row.id,
      level: again.level,
      daysOverdue: again.days,
      amountDueCents: amountDue,
      recipient: to,
      files: JSON.stringify(files.map((f) => f.name)),
      mailId,
      createdAt: clock.now(),
    });
  });
}

/** The day a level became due: its days past the due date (1 on the day after it). */
function dueSince(dueDate: string, levels: readonly number[], level: number): string {
  return DateTime.fromISO(dueDate, { zone: 'UTC' })
    .plus({ days: levels[level - 1] ?? 0 })
    .toISODate() as string;
}

/** Records (and logs) a reminder the tick could not send, in a write of its own; the next tick tries again. */
function recordSkip(
  { repo, clock, write, logger }: Deps,
  row: InvoiceRow,
  reminders: string | null,
  level: number,
  reason: InvoiceReminderSkipView['reason'],
  detail: string,
): void {
  const since = dueSince(row.dueDate as string, parseReminders(reminders ?? '') ?? [], level);
  logger?.warn('payment reminder not sent', { invoiceId: row.id, number: row.number, reminder: level, since, reason, detail });
  write(() => repo.update(row.id, { reminderSkip: JSON.stringify({ level, since, reason, detail, at: clock.now() }) }));
}

/** Overdue invoices and payment reminders (part of the invoices service). */
export function createReminders(deps: Deps) {
  const { repo, ports, clock, access, defaultTimeZone } = deps;
  const reminderView = (row: InvoiceReminderRow): InvoiceReminderView => ({
    level: row.level,
    at: toIso(row.createdAt),
    daysOverdue: row.daysOverdue,
    amountDue: fromCents(row.amountDueCents),
    to: row.recipient,
    files: JSON.parse(row.files) as string[],
    mailId: row.mailId,
    delivery: ports.mail.delivery(row.mailId)?.status ?? null,
  });

  return {
    /** What the Overdue view says above its list: the zone due dates are read in, and the reminder levels (null: off). */
    reminderPlan(principal: Principal, workspaceId: string): { zone: string; reminders: string | null } {
      if (!access.mayRead(principal, workspaceId)) throw errors.hidden(workspaceId);
      return { zone: defaultTimeZone, reminders: settingsOf(repo.settings(workspaceId)).reminders };
    },

    /**
     * A workspace's overdue invoices, most days overdue first: sent, something still due, the due
     * date passed in the workspace's default zone (owners and who sees colleagues' money, as the list).
     */
    overdue(principal: Principal, workspaceId: string): OverdueView[] {
      if (!access.mayRead(principal, workspaceId)) throw errors.hidden(workspaceId);
      ports.requireWorkspace(workspaceId);
      const now = clock.now();
      const found: OverdueView[] = [];
      // Due before today in the workspace's zone (overdueOf then keeps those with something still due).
      for (const row of repo.sentDueBefore(workspaceId, dayIn(now, defaultTimeZone))) {
        const days = overdueOf(row, defaultTimeZone, now);
        if (days === null) continue;
        const invoice = view(row);
        const last = repo.reminders(row.id).at(-1);
        found.push({ invoice, daysOverdue: days, amountDue: invoice.amountDue, lastReminder: last ? reminderView(last) : null });
      }
      return found.sort((a, b) => b.daysOverdue - a.daysOverdue || (a.invoice.number ?? '').localeCompare(b.invoice.number ?? ''));
    },

    /**
     * The reminder the tick could not send, while it is still due (the invoice sent and that
     * level not sent since), or null (whoever reads the invoice).
     */
    reminderSkip(principal: Principal, id: string): InvoiceReminderSkipView | null {
      const row = access.findInvoice(principal, id);
      if (row.reminderSkip === null || row.status !== 'sent') return null;
      const skip = JSON.parse(row.reminderSkip) as Omit<InvoiceReminderSkipView, 'at'> & { at: number };
      if (repo.reminders(id).some((r) => r.level >= skip.level)) return null;
      return { ...skip, at: toIso(skip.at) };
    },

    /** An invoice's reminders, the first level first (whoever reads the invoice). */
    reminders(principal: Principal, id: string): InvoiceReminderView[] {
      access.findInvoice(principal, id);
      return repo.reminders(id).map(reminderView);
    },

    /**
     * The scheduler's job (every tick): for each workspace with reminders on, each overdue invoice
     * that has reached a level it has not had is sent one reminder, of the highest level reached
     * (an invoice 25 days late when reminders are turned on at 7 and 21 days gets the second, not
     * both at once). Not sent, and tried again on the next tick: mail off, no recipient address
     * mail can reach (a fill of recipient.email gives it one), a document that cannot be made, the
     * invoice changed meanwhile. A workspace whose mail budget is spent waits for a later tick. A
     * reminder not sent for its budget, its document or its address is logged (warn) and recorded
     * on the invoice (`reminderSkip`: its page and `invoice show` say it) until one is sent. How
     * many were queued.
     */
    async remind(): Promise<number> {
      if (!ports.mail.enabled()) return 0;
      const today = dayIn(clock.now(), defaultTimeZone);
      const spent = new Map<string, string>();
      let queued = 0;
      for (const { invoice: row, reminders } of repo.remindable(today)) {
        const due = levelDueOf(deps, row, reminders);
        if (due === null) continue;
        const address = addressOf(ports, view(row));
        if ('problem' in address) {
          recordSkip(deps, row, reminders, due.level, 'address', address.problem);
          continue;
        }
        const budget = spent.get(row.workspaceId);
        if (budget !== undefined) {
          recordSkip(deps, row, reminders, due.level, 'budget', budget);
          continue;
        }
        try {
          await sendReminder(deps, row, due);
          queued += 1;
        } catch (error) {
          if (error instanceof BudgetSpent) {
            spent.set(row.workspaceId, error.message);
            recordSkip(deps, row, reminders, due.level, 'budget', error.message);
          } else if (error instanceof DocumentRefused) recordSkip(deps, row, reminders, due.level, 'document', error.message);
          else if (!(error instanceof DomainError)) throw error;
        }
      }
      return queued;
    },
  };
}
