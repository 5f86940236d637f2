import type { Clock } from '../../clock.js';
import { toCents } from '../../kernel/money.js';
import type { Principal } from '../../principal.js';
import type { Access } from './access.js';
import { invoiceErrors as errors } from './errors.js';
import { daysOverdue } from './overdue.js';
import type { InvoicePorts } from './ports.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';
import { type InvoiceView, view } from './views.js';

/*
 * Overdue invoices and payment reminders (issue 57 item 3, its second half; decisions §12): the
 * Overdue list, read in the workspace's default zone (src/modules/invoices/overdue.ts).
 */

/** An overdue invoice as the Overdue view and the command line show it. */
export interface OverdueView {
  invoice: InvoiceView;
  /** Calendar days past the due date in the workspace's default zone (1 on the day after it). */
  daysOverdue: number;
  amountDue: number;
}

const amountDueCents = (row: InvoiceRow): number => toCents(view(row).amountDue);

/** The overdue reading of a stored invoice at `now` in `zone`, or null when it is not overdue. */
export function overdueOf(row: InvoiceRow, zone: string, now: number): number | null {
  return daysOverdue({ status: row.status, dueDate: row.dueDate, amountDueCents: amountDueCents(row) }, zone, now);
}

/** Overdue invoices (part of the invoices service): read by whoever reads the workspace's invoices. */
export function createReminders({
  repo,
  ports,
  clock,
  access,
  defaultTimeZone,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  access: Access;
  defaultTimeZone: string;
}) {
  return {
    /** The workspace's default zone, in which due dates are read (the Overdue view names it). */
    overdueZone: (): string => defaultTimeZone,

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
        found.push({ invoice, daysOverdue: days, amountDue: invoice.amountDue });
      }
      return found.sort((a, b) => b.daysOverdue - a.daysOverdue || (a.invoice.number ?? '').localeCompare(b.invoice.number ?? ''));
    },
  };
}
