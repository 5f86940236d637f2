import { DomainError } from '../../errors.js';
import { fromCents, toCents } from '../../kernel/money.js';
import type { Principal } from '../../principal.js';
import type { Clock } from '../../clock.js';
import type { DomainWrite } from '../events/service.js';
import type { Access } from './access.js';
import type { InvoiceDocumentLine, TaxBreakdownRow } from './document.js';
import { invoiceErrors as errors } from './errors.js';
import { MAX_INVOICE_LINES } from './lines.js';
import { expenseLineDescriptions } from './creation.js';
import { checkManualLine, LINE_UNITS, manualAmountCents, type ManualLineInput } from './manual.js';
import type { InvoicePorts } from './ports.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';
import { settingsOf } from './settings.js';
import { breakdown, lineTax, ownTaxApplies, treatment, type ClientTax } from './tax.js';

/*
 * A draft's manual lines (decisions §12): added after its lines of time, removed again, while it
 * is a draft. Its breakdown and totals are made again from its lines at once, as issuing makes
 * them; the lines of time (and the entries they hold) stay as they are. Owners and the operator,
 * as creating; like a fill it sends no webhook: the next status change carries the lines.
 */

/** Why a line is not a draft's to change, in the command's and the page's words. */
const notDraft = (row: InvoiceRow) =>
  new DomainError(
    'conflict',
    `Invoice ${row.number ?? row.id} is ${row.status}: only a draft takes or loses lines (an issued invoice's lines are fixed; void it and make a new one).`,
    { people: 'Only a draft takes or loses lines: an issued invoice stays as it was issued (void it and make a new one).' },
  );

export function createManualLines({
  repo,
  ports,
  clock,
  write,
  access,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  write: DomainWrite;
  access: Access;
}) {
  const { findInvoice, requireOwner } = access;

  /** The draft's lines stored again with the breakdown and totals they make (each row keeping the reason its category had). */
  const store = (row: InvoiceRow, lines: InvoiceDocumentLine[], reasonOf: (category: string) => ClientTaxReason | null) => {
    const extras = JSON.parse(row.extras) as { taxBreakdown?: TaxBreakdownRow[] } & Record<string, unknown>;
    const kept = extras.taxBreakdown ?? [];
    extras.taxBreakdown = breakdown(lines, (category) => {
      const known = kept.find((r) => r.category === category);
      return known ? { exemptionReason: known.exemptionReason, exemptionReasonCode: known.exemptionReasonCode } : reasonOf(category);
    });
    repo.update(row.id, {
      lines: JSON.stringify(lines),
      totalCents: lines.reduce((sum, line) => sum + toCents(line.amount), 0),
      extras: JSON.stringify(extras),
      updatedAt: clock.now(),
    });
  };

  /** The draft, read for a change by an owner (or the operator); refused unless it is a draft. */
  const draftFor = (principal: Principal, id: string): InvoiceRow => {
    const row = findInvoice(principal, id);
    requireOwner(principal, row.workspaceId, 'change invoices', () => errors.notFound(id));
    if (row.status !== 'draft') throw notDraft(row);
    return row;
  };

  /**
   * An expense's line left the draft: its expense is free again (it can be invoiced again and
   * edited), in the same write. A line does not store its expense's id (the contract's lines and
   * the documents carry none), so it is the expense the draft holds whose line this is: its day
   * and description (the day as the invoice's language writes it, or as drafts made before
   * 113ebf7 wrote it, the ISO day: expenseLineDescriptions), one piece at its net. Of expenses
   * alike, one is released for each such line gone (those still on the draft keep theirs, a line
   * of either form counting); a manual line typed to look like one releases nothing while the
   * draft holds no expense beyond its lines.
   */
  const releaseExpenseOf = (invoice: Pick<InvoiceRow, 'id' | 'language'>, line: InvoiceDocumentLine, rest: InvoiceDocumentLine[]) => {
    const expenses = ports.expenses;
    if (!expenses?.held || !expenses.release || !line.manual) return;
    const cents = toCents(line.amount);
    const piece = (l: InvoiceDocumentLine) =>
      l.manual !== undefined && toCents(l.amount) === cents && l.manual.quantity === 1 && l.manual.unit === EXPENSE_UNIT;
    if (!piece(line)) return;
    const theirs = expenses
      .held(invoice.id)
      .filter((e) => e.amountCents === cents && expenseLineDescriptions(e, invoice.language).includes(line.description));
    if (theirs.length === 0) return;
    // Expenses alike share their day and description, so the ways their lines read.
    const forms = expenseLineDescriptions(theirs[0] as { day: string; description: string }, invoice.language);
    const still = rest.filter((l) => piece(l) && forms.includes(l.description)).length;
    if (theirs.length > still)
      expenses.release(
        invoice.id,
        theirs.slice(still).map((e) => e.id),
      );
  };

  return {
    /**
     * Adds a manual line to a draft (after its other lines): description, quantity, unit (a UN/ECE
     * Rec 20 code or its word), unit price and its own tax (`S` with a rate, `Z`) or, blank, the
     * invoice's; the client's reverse charge, export or "not subject", and a small business, win
     * over a line's own tax as over a project's. Its position (1-based).
     */
    addLine(principal: Principal, id: string, input: ManualLineInput): { id: string; line: number } {
      const checked = checkManualLine(input);
      return write(() => {
        const row = draftFor(principal, id);
        const lines = JSON.parse(row.lines) as InvoiceDocumentLine[];
        if (lines.length >= MAX_INVOICE_LINES)
          throw errors.invalid(`Invoice ${id} has ${lines.length} lines already; an invoice holds at most ${MAX_INVOICE_LINES}.`);
        const client = ports.client(row.workspaceId, row.clientId);
        const clientTax: ClientTax = {
          taxCategory: (client.taxCategory as string | null) ?? null,
          exemptionReason: (client.exemptionReason as string | null) ?? null,
          exemptionReasonCode: (client.exemptionReasonCode as string | null) ?? null,
        };
        const smallBusiness = ports.businessProfile(row.workspaceId)?.smallBusiness === true;
        const settings = settingsOf(repo.settings(row.workspaceId));
        const base = treatment(settings, smallBusiness, clientTax, row.language);
        const own = ownTaxApplies(smallBusiness, clientTax) ? checked.tax : null;
        lines.push({
          description: checked.description,
          projectId: null,
          quantitySec: 0,
          hourlyRate: null,
          amount: fromCents(manualAmountCents(checked.manual)),
          ...lineTax(own, base),
          manual: checked.manual,
        });
        store(row, lines, (category) =>
          category === base.category ? { exemptionReason: base.exemptionReason, exemptionReasonCode: base.exemptionReasonCode } : null,
        );
        return { id, line: lines.length };
      });
    },

    /**
     * Removes a draft's manual line by its position (1-based, as the page and the PDF number it);
     * an expense's line releases its expense in the same write; a line of time is refused.
     */
    removeLine(principal: Principal, id: string, position: number): { id: string } {
      return write(() => {
        const row = draftFor(principal, id);
        const lines = JSON.parse(row.lines) as InvoiceDocumentLine[];
        const line = Number.isSafeInteger(position) ? lines[position - 1] : undefined;
        if (!line)
          throw new DomainError('invalid', `Invoice ${id} has no line ${position}: its lines are 1 to ${lines.length}.`, {
            field: 'line',
            people: 'This line is not on the draft any more: reload the page.',
          });
        if (!line.manual)
          throw new DomainError(
            'invalid',
            `Line ${position} of invoice ${id} is time, not a manual line: time leaves an invoice only when the invoice is voided (which releases its entries).`,
            { field: 'line', people: 'This line is time: it leaves the invoice only when the invoice is voided.' },
          );
        lines.splice(position - 1, 1);
        store(row, lines, () => null);
        releaseExpenseOf(row, line, lines);
        return { id };
      });
    },
  };
}

/** The unit of an expense's line (one piece, `C62`: creation.ts). */
const EXPENSE_UNIT = (LINE_UNITS[0] as { code: string }).code;

type ClientTaxReason = Pick<ClientTax, 'exemptionReason' | 'exemptionReasonCode'>;
