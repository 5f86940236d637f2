import type { components } from '../../../generated/openapi.js';
import { fromCents, toCents } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
import type { DocumentSource, EarlyPayment, InvoiceDocument, TaxBreakdownRow } from './document.js';
import type { InvoiceRow } from './repository.js';

/** An invoice as `invoice show` prints it, webhook payloads carry it and every document is made from it. */
export type InvoiceView = InvoiceDocument;

/** The whole invoice, a pure function of its stored row (decisions §11). */
export function view(row: InvoiceRow): InvoiceDocument {
  const extras = JSON.parse(row.extras) as {
    taxBreakdown?: TaxBreakdownRow[];
    paymentTerms?: string;
    vatCurrency?: InvoiceDocument['vatCurrency'];
  };
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
    ...(extras.vatCurrency === undefined ? {} : { vatCurrency: extras.vatCurrency }),
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
    amountDue: row.status === 'paid' || row.status === 'void' ? 0 : fromCents(grossCents - row.paidCents - row.discountCents),
    creditNote:
      row.creditNoteNumber === null || row.creditNoteDate === null ? null : { number: row.creditNoteNumber, issueDate: row.creditNoteDate },
    note: row.note,
    language: row.language,
  };
}

/** The invoice as its documents are made from it: its view, and the early-payment discount it was issued with (not in the view). */
export function documentSource(row: InvoiceRow, invoice: InvoiceDocument = view(row)): DocumentSource {
  const { earlyPayment } = JSON.parse(row.extras) as { earlyPayment?: EarlyPayment };
  return earlyPayment === undefined ? invoice : { ...invoice, earlyPayment };
}

/** The document is what the contract's webhook payloads promise: a change to either that parts them fails `tsc`. */
export const asContractInvoice = (document: InvoiceDocument): components['schemas']['Invoice'] => ({
  ...document,
  language: contractLanguage(document.language),
});

/**
 * An invoice's language as the contract names it (en, de). A French or Dutch invoice cannot be
 * made (the settings take en and de): one that reached here would be served against the contract.
 */
function contractLanguage(language: InvoiceDocument['language']): components['schemas']['Invoice']['language'] {
  if (language === 'en' || language === 'de') return language;
  throw new Error(`An invoice in ${language} cannot be served: the contract's Invoice.language is en or de.`);
}

/**
 * The invoice as webhook payloads and sync events carry it: the contract's shape, whose lines
 * hold no more than it names (a manual line's quantity, unit and price stay in the web app, the
 * command line and the documents; decisions §12: the REST API does not change for them).
 */
export function payloadView(row: InvoiceRow): components['schemas']['Invoice'] {
  const invoice = view(row);
  return asContractInvoice({ ...invoice, lines: invoice.lines.map(({ manual: _manual, ...line }) => line) });
}

/** A credit note as the invoice list shows it (a row of its own beside the invoice it cancels). */
export interface CreditNoteView {
  /** The credit note's own number and date. */
  number: string;
  issueDate: string;
  /** The invoice it cancels (now void): its id, number and date. */
  invoiceId: string;
  invoiceNumber: string | null;
  invoiceIssueDate: string | null;
  clientId: string;
  clientName: string | null;
  currency: string;
  /** The amounts it credits: the cancelled invoice's (positive, as the document states them). */
  netTotal: number;
  taxTotal: number;
  grossTotal: number;
}

/** The credit note of an invoice voided after it was issued, or null. */
export function creditNoteOf(invoice: InvoiceDocument): CreditNoteView | null {
  if (!invoice.creditNote) return null;
  return {
    number: invoice.creditNote.number,
    issueDate: invoice.creditNote.issueDate,
    invoiceId: invoice.id,
    invoiceNumber: invoice.number,
    invoiceIssueDate: invoice.issueDate,
    clientId: invoice.clientId,
    clientName: invoice.recipient?.name ?? invoice.recipient?.legalName ?? null,
    currency: invoice.currency,
    netTotal: invoice.netTotal,
    taxTotal: invoice.taxTotal,
    grossTotal: invoice.grossTotal,
  };
}
