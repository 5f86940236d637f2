import type { DocumentSource, InvoiceDocument } from '../document.js';
import { invoiceErrors } from '../errors.js';
import { ciiOf } from './cii.js';
import { missingFor, type MissingValue, plainPdf } from './missing.js';
import { DOCUMENT_FORMATS, einvoiceOf, type DocumentFormat, type RenderOptions } from './model.js';
import { pdfOf } from './pdf.js';
import { ublOf } from './ubl.js';

/**
 * The invoice documents: pure functions from the stored invoice (document.ts) to bytes. No
 * database, no clock, no network: the same invoice gives the same bytes, so they can run on a
 * worker thread and be checked by comparing bytes.
 *
 * - `pdf`: what a client reads, a Factur-X/ZUGFeRD EN 16931 PDF/A-3b with `factur-x.xml` (CII)
 *   attached; a plain PDF/A-2b without XML when the seller has no BT-29/BT-30/BT-31 (`plainPdf`);
 *   a draft's says DRAFT and has no number and no XML.
 * - `xrechnung-ubl`, `xrechnung-cii`: XRechnung 3.0 (UBL 2.1 Invoice / CII D16B).
 * - `peppol`: Peppol BIS Billing 3.0 (UBL).
 * `creditNote` renders the credit note of a voided invoice instead (UBL CreditNote, CII 381).
 */
export { DOCUMENT_FORMATS, type DocumentFormat, type RenderOptions } from './model.js';
export { missingFor, type MissingValue, type MissingWhere, plainPdf } from './missing.js';

/** The file name a download should carry: `<number>.pdf`, `<number>-xrechnung-ubl.xml`, … */
export function documentFileName(doc: InvoiceDocument, format: DocumentFormat, options: RenderOptions = {}): string {
  const number = (options.creditNote ? doc.creditNote?.number : doc.number) ?? `draft-${doc.id}`;
  const safe = number.replace(/[^\p{L}\p{N}._-]+/gu, '_');
  return format === 'pdf' ? `${safe}.pdf` : `${safe}-${format}.xml`;
}

/** Why a document cannot be made: each value it lacks (empty when another rule refuses it), and the sentence that says so. */
export interface DocumentRefusal {
  missing: MissingValue[];
  message: string;
}

/**
 * The one check before a document is made (issue 45 item 6): an unknown format, every value the
 * format needs that the invoice lacks (`missingFor`, naming each with its BT number and where to
 * set it), and a VAT mix EN 16931 forbids. null: the document can be made. The invoices service
 * asks it before it hands a document to the renderer (the page, the command line and the mail
 * all go through the service); `renderDocument` asks it again as its own guard.
 */
export function documentRefusal(doc: InvoiceDocument, format: DocumentFormat, options: RenderOptions = {}): DocumentRefusal | null {
  if (!DOCUMENT_FORMATS.includes(format))
    return { missing: [], message: `Unknown document format ${JSON.stringify(format)}: use one of ${DOCUMENT_FORMATS.join(', ')}.` };
  const creditNote = options.creditNote === true;
  const missing = missingFor(doc, format, { creditNote });
  if (missing.length > 0) {
    const what = creditNote ? `The credit note of invoice ${doc.number ?? doc.id}` : `Invoice ${doc.number ?? doc.id}`;
    const list = missing.map((m) => `${m.label} (${m.bt}: ${m.path}, ${whereText[m.where]})`).join('; ');
    // The e-invoices of a seller who gives no identifier: why there is none, then what to enter.
    if (format !== 'pdf' && doc.number && plainPdf(doc))
      return {
        missing,
        message: `${what} has a plain PDF and no e-invoice: its seller has no seller identifier, register entry or VAT identifier (BT-29/BT-30/BT-31), and every e-invoice must identify the seller by one (EN 16931 BR-CO-26). It cannot be made as ${format}: it lacks ${list}.`,
      };
    return { missing, message: `${what} cannot be made as ${format}: it lacks ${list}.` };
  }
  const categories = new Set((doc.taxBreakdown ?? []).map((row) => row.category));
  if (categories.has('O') && categories.size > 1)
    return {
      missing: [],
      message: `Invoice ${doc.number ?? doc.id} mixes "not subject to VAT" (O) with other VAT categories; EN 16931 (BR-O-11) allows O only alone: make two invoices.`,
    };
  return null;
}

/** The media type a document is downloaded and mailed as. */
export const documentMediaType = (format: DocumentFormat): string => (format === 'pdf' ? 'application/pdf' : 'application/xml');

/**
 * The bytes of one document. Refuses (DomainError `invalid`) what `documentRefusal` refuses: an
 * unknown format, a document whose required values are missing (naming each with its BT number
 * and where to set it), a VAT mix the rules forbid.
 */
export async function renderDocument(doc: DocumentSource, format: DocumentFormat, options: RenderOptions = {}): Promise<Buffer> {
  const refused = documentRefusal(doc, format, options);
  if (refused) throw invoiceErrors.invalid(refused.message);
  const creditNote = options.creditNote === true;
  if (format === 'pdf') return pdfOf(doc, { creditNote });
  const einvoice = einvoiceOf(doc, creditNote);
  const xml =
    format === 'xrechnung-ubl'
      ? ublOf(einvoice, 'xrechnung')
      : format === 'peppol'
        ? ublOf(einvoice, 'peppol')
        : ciiOf(einvoice, 'xrechnung');
  return Buffer.from(xml, 'utf8');
}

/** Where a missing value is set, in the words of a refusal's message. */
export const whereText = {
  'business-profile': "set it in the workspace's business profile, or fill it on this invoice",
  client: "set it in the client's details, or fill it on this invoice",
  fill: 'fill it on this invoice',
  issue: 'issue the invoice first',
} as const;
