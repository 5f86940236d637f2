import type { Clock } from '../../clock.js';
import { BudgetSpent, DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import { fromCents, toCents } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
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

/** Where a reminder goes: the recipient's email as the invoice stores it, when mail can be addressed to it. */
function addressOf(ports: InvoicePorts, invoice: InvoiceView): string | null {
  const address = (invoice.recipient?.email ?? '').trim();
  return address !== '' && ports.mail.deliverable(address) ? address : null;
}

/** Makes the documents, then one write checks again, spends the workspace's mail budget, queues the mail and records the reminder. */
async function sendReminder(deps: Deps, row: InvoiceRow, due: { level: number }): Promise<void> {
  const { repo, ports, clock, write, render } = deps;
  const invoice = view(row);
  const to = addressOf(ports, invoice);
  if (to === null) return;
  const xml = xmlOf(repo, invoice);
  const formats: DocumentFormat[] = xml === null ? ['pdf'] : ['pdf', xml];
  const made: Array<{ format: DocumentFormat; bytes: Buffer }> = [];
  for (const format of formats) made.push({ format, bytes: await render(documentSource(row, invoice), format, { creditNote: false }) });
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
      for (const row of repo.list(workspaceId, { status: 'sent' })) {
        const days = overdueOf(row, defaultTimeZone, now);
        if (days === null) continue;
        const invoice = view(row);
        const last = repo.reminders(row.id).at(-1);
        found.push({ invoice, daysOverdue: days, amountDue: invoice.amountDue, lastReminder: last ? reminderView(last) : null });
      }
      return found.sort((a, b) => b.daysOverdue - a.daysOverdue || (a.invoice.number ?? '').localeCompare(b.invoice.number ?? ''));
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
     * mail can reach, a document that cannot be made, the invoice changed meanwhile. A workspace
     * whose mail budget is spent waits for a later tick. How many were queued.
     */
    async remind(): Promise<number> {
      if (!ports.mail.enabled()) return 0;
      const today = dayIn(clock.now(), defaultTimeZone);
      const spent = new Set<string>();
      let queued = 0;
      for (const { invoice: row, reminders } of repo.remindable(today)) {
        if (spent.has(row.workspaceId)) continue;
        const due = levelDueOf(deps, row, reminders);
        if (due === null || addressOf(ports, view(row)) === null) continue;
        try {
          await sendReminder(deps, row, due);
          queued += 1;
        } catch (error) {
          if (error instanceof BudgetSpent) spent.add(row.workspaceId);
          else if (!(error instanceof DomainError)) throw error;
        }
      }
      return queued;
    },
  };
}
