import type { components } from '../../../generated/openapi.js';
import type { DocumentLanguage } from '../../kernel/document-languages.js';

/*
 * The whole invoice as it is stored and shown (decisions §11): what `invoice show --json` prints
 * and what every document (PDF, XRechnung UBL/CII, Peppol) is made from. A document is a pure
 * function of this value: the same invoice gives the same bytes every time.
 *
 * Dates are calendar days `YYYY-MM-DD`; amounts are decimal numbers with at most two places
 * (they are summed as integer cents in the service); rates are percentages (19, 7.7).
 */

type Schemas = components['schemas'];

/** UNCL 5305 VAT category codes that invoices use (EN 16931 BT-118 / BT-151). */
export type TaxCategory = 'S' | 'AE' | 'K' | 'G' | 'E' | 'Z' | 'O';
export const TAX_CATEGORIES: readonly TaxCategory[] = ['S', 'AE', 'K', 'G', 'E', 'Z', 'O'];

/** The documents' languages and which of them invoices are made in: kept in one place (decisions §12). */
export { DOCUMENT_LANGUAGES, type DocumentLanguage, INVOICE_LANGUAGES, type InvoiceLanguage } from '../../kernel/document-languages.js';

/** How an invoice's entries become lines (`invoice create --group-by`). */
export type LineGrouping = 'project' | 'task' | 'member' | 'entry' | 'single';

export type IssuerParty = Schemas['IssuerParty'];
export type RecipientParty = Schemas['RecipientParty'];

export interface InvoiceDocumentLine {
  /** What the line is for, as the client reads it (project name; task; member; the entry's day and description). */
  description: string;
  /** The project of the line's entries (null for a `single` line over several projects). */
  projectId: string | null;
  /** Seconds of time on the line; the documents show hours (to 6 decimals in the XML). */
  quantitySec: number;
  /** The price per hour (the entries' rate). */
  hourlyRate: number | null;
  /** The line's net: rate × seconds / 3600, rounded once to the cent (an entry line: the entry's amount). */
  amount: number;
  taxCategory?: string;
  taxRate?: number;
  /**
   * A manual line's quantity, unit and price (decisions §12); absent on a line of time. Such a
   * line has `projectId` null, `quantitySec` 0 and `hourlyRate` null (the contract's webhook
   * payloads carry it so, without this field), its `amount` quantity × unit price rounded once.
   */
  manual?: ManualLine;
}

/** What a manual line bills: `quantity` of `unit` (a UN/ECE Rec 20 code: C62, LS, DAY, KMT …) at `unitPrice` (net) each. */
export interface ManualLine {
  quantity: number;
  unit: string;
  unitPrice: number;
}

export interface TaxBreakdownRow {
  category: string;
  rate: number;
  /** The exact sum of its lines' amounts. */
  basisAmount: number;
  /** basisAmount × rate / 100, rounded once half away from zero to the cent. */
  taxAmount: number;
  exemptionReason: string | null;
  /** A VATEX code (e.g. `VATEX-EU-AE`). */
  exemptionReasonCode: string | null;
}

export interface InvoiceDocument {
  id: string;
  workspaceId: string;
  clientId: string;
  status: 'draft' | 'sent' | 'paid' | 'void';
  /** ISO 4217, the workspace's at creation. */
  currency: string;
  /** The service period (BT-73/BT-74): the invoiced range's first and last day. */
  from: string;
  to: string;
  /** The IANA zone whose days `from` and `to` are: the creating member's (decisions 11a); `UTC` on invoices made before. */
  timeZone: string;
  issuer: IssuerParty | null;
  recipient: RecipientParty | null;
  lines: InvoiceDocumentLine[];
  /** The lines' sum (= netTotal), as webhook payloads have always carried it. */
  total: number;
  taxBreakdown?: TaxBreakdownRow[];
  /** The due sentence, in the documents' language. */
  paymentTerms?: string;
  /**
   * Written at issue when the invoice's currency is not the issuer's VAT accounting currency (VAT
   * Directive art. 230): that currency, the owner's exchange rate (units of it per unit of
   * `currency`) and the VAT total in it (BT-6, BT-111).
   */
  vatCurrency?: { currency: string; exchangeRate: number; taxTotal: number };
  einvoiceFills: Array<{ at: string; by: string; fields: Record<string, unknown> }>;
  createdAt: string;
  updatedAt: string;

  /** Given when issued (draft: null); unique in the workspace, never reused. */
  number: string | null;
  issueDate: string | null;
  dueDate: string | null;
  paidDate: string | null;
  netTotal: number;
  taxTotal: number;
  grossTotal: number;
  /** grossTotal less the payments recorded (and an early-payment discount they settled with); 0 once paid, and for a void invoice. */
  amountDue: number;
  /** The credit note made when an issued invoice was voided: its own number from the same series and its date. */
  creditNote: { number: string; issueDate: string } | null;
  /** Free text the owner gave at creation (BT-22), or null. */
  note: string | null;
  /** The documents' labels, from the workspace's invoicing settings at creation. */
  language: DocumentLanguage;
}

/** Early-payment discount terms (Skonto): P % of the amount due when paid within N days of the issue date. */
export interface EarlyPayment {
  /** Above 0 and below 100, at most two decimals. */
  percent: number;
  /** 1 to 365. */
  days: number;
}

/**
 * An invoice as its documents are made from it: the invoice (as webhooks carry it), and what only
 * its documents say: the early-payment discount it was issued with (issue 57 item 4; XRechnung's
 * BT-20 line `#SKONTO#…#`), which is not part of the contract's invoice.
 */
export type DocumentSource = InvoiceDocument & { earlyPayment?: EarlyPayment };
