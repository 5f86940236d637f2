import type { components } from '../../../generated/openapi.js';
import { fromCents, toCents } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
import type { InvoiceDocument, TaxBreakdownRow } from './document.js';
import type { InvoiceRow } from './repository.js';

/** An invoice as `invoice show` prints it, webhook payloads carry it and every document is made from it. */
export type InvoiceView = InvoiceDocument;

/** The whole invoice, a pure function of its stored row (decisions §11). */
export function view(row: InvoiceRow): InvoiceDocument {
  const extras = JSON.parse(row.extras) as { taxBreakdown?: TaxBreakdownRow[]; paymentTerms?: string };
  const taxCents = (extras.taxBreakdown ?? []).reduce((sum, r) => sum + toCents(r.taxAmount), 0);
  const grossCents = row.totalCents + taxCents;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    clientId: row.clientId,
    status: row.status,
    currency: row.currency,
    from: row.fromDay,
    to: row.toDay,
    timeZone: row.timeZone,
    issuer: JSON.parse(row.issuer ?? 'null'),
    recipient: JSON.parse(row.recipient ?? 'null'),
    lines: JSON.parse(row.lines),
    total: fromCents(row.totalCents),
    ...(extras.taxBreakdown === undefined ? {} : { taxBreakdown: extras.taxBreakdown }),
    ...(extras.paymentTerms === undefined ? {} : { paymentTerms: extras.paymentTerms }),
    einvoiceFills: JSON.parse(row.einvoiceFills),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
    number: row.number,
    issueDate: row.issueDate,
    dueDate: row.dueDate,
    paidDate: row.paidDate,
    netTotal: fromCents(row.totalCents),
    taxTotal: fromCents(taxCents),
    grossTotal: fromCents(grossCents),
    amountDue: row.status === 'paid' || row.status === 'void' ? 0 : fromCents(grossCents),
    creditNote:
      row.creditNoteNumber === null || row.creditNoteDate === null ? null : { number: row.creditNoteNumber, issueDate: row.creditNoteDate },
    note: row.note,
    language: row.language,
  };
}

/** The document is what the contract's webhook payloads promise: a change to either that parts them fails `tsc`. */
export const asContractInvoice = (document: InvoiceDocument): components['schemas']['Invoice'] => document;
