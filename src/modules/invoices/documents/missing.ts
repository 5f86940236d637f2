import type { InvoiceDocument } from '../document.js';
import { identifierProblem } from './identifiers.js';
import { electronicAddressOf, sellerIdentifierOf, text, taxNumberOf, type DocumentFormat, type RenderOptions } from './model.js';

/**
 * What a format needs that an invoice lacks, each value by its fill path, its EN 16931 number
 * and where it belongs, so the invoice page and the command line can say "ready" or list what to
 * set. `renderDocument` refuses while this list is not empty: no XML is written that the official
 * rules (EN 16931, and XRechnung's for XRechnung) would reject for a value that is not there.
 */

/**
 * Where a value is set: the workspace's business profile (issuer fields) or the client's details
 * (recipient fields) for the invoices made from now on, or, for this invoice, an e-invoice fill
 * (`path` is always a fill path, so any of them can also be filled on this invoice); `issue`: the
 * invoice must be issued first (a draft has no number), or voided after issuing (a credit note).
 */
export type MissingWhere = 'business-profile' | 'client' | 'fill' | 'issue';

export interface MissingValue {
  path: string;
  bt: string;
  label: string;
  where: MissingWhere;
}

const ISSUER: Record<string, [bt: string, label: string]> = {
  legalName: ['BT-27', "Seller name (the issuer's legal name)"],
  city: ['BT-37', 'Seller city'],
  postalCode: ['BT-38', 'Seller post code'],
  country: ['BT-40', 'Seller country code'],
  contactName: ['BT-41', 'Seller contact point (a name)'],
  phone: ['BT-42', 'Seller contact telephone number'],
  email: ['BT-43', 'Seller contact email address'],
  vatId: ['BT-31', 'Seller VAT identifier'],
  electronicAddress: ['BT-34', 'Seller electronic address'],
  electronicAddressScheme: ['BT-34-1', "Seller electronic address's scheme (an EAS code such as 0204, 9930 or EM)"],
  iban: ['BT-84', 'Payment account identifier (IBAN) for the payment instructions'],
};
const RECIPIENT: Record<string, [bt: string, label: string]> = {
  reference: ['BT-10', "Buyer reference (the client's reference; in German public procurement the Leitweg-ID)"],
  legalName: ['BT-44', "Buyer name (the client's legal name or name)"],
  city: ['BT-52', 'Buyer city'],
  postalCode: ['BT-53', 'Buyer post code'],
  country: ['BT-55', 'Buyer country code'],
  vatId: ['BT-48', 'Buyer VAT identifier'],
  electronicAddress: ['BT-49', 'Buyer electronic address'],
  electronicAddressScheme: ['BT-49-1', "Buyer electronic address's scheme (an EAS code such as 0204, 9930 or EM)"],
};

const PEPPOL_ADDRESS = (party: string) =>
  `${party} electronic address as a Peppol participant: an identifier with its Peppol scheme (e.g. 0208, 9930, 0204, 0088); an email address (EM) is not one`;

/**
 * Whether the invoice's PDF is a plain PDF (decisions 14, issue 56 item 2): its seller has no
 * seller identifier (BT-29), register entry (BT-30) or VAT identifier (BT-31), so no XML of it can
 * identify the seller as EN 16931 asks (BR-CO-26). Typically a small business under § 19 UStG with
 * a tax number only, which German law exempts from issuing e-invoices (§ 34a UStDV). Its PDF is a
 * PDF/A without embedded XML; its e-invoice formats are refused, naming BT-29/BT-30/BT-31.
 */
export function plainPdf(doc: Pick<InvoiceDocument, 'issuer'>): boolean {
  const i = doc.issuer;
  return !sellerIdentifierOf(i) && !text(i?.registrationNumber) && !text(i?.vatId);
}

/** Every value `format` needs that `doc` lacks; empty when the document can be rendered. */
export function missingFor(doc: InvoiceDocument, format: DocumentFormat, options: RenderOptions = {}): MissingValue[] {
  const missing: MissingValue[] = [];
  const seen = new Set<string>();
  const add = (path: string, bt: string, label: string, where: MissingWhere) => {
    if (!seen.has(path)) missing.push({ path, bt, label, where });
    seen.add(path);
  };
  const issuer = (field: string) => add(`issuer.${field}`, ...(ISSUER[field] as [string, string]), 'business-profile');
  const recipient = (field: string) => add(`recipient.${field}`, ...(RECIPIENT[field] as [string, string]), 'client');

  if (options.creditNote && !doc.creditNote) {
    add('creditNote', 'BT-1', 'Credit note: only an issued invoice that was voided has one', 'issue');
    return missing;
  }
  if (!doc.number || !doc.issueDate) {
    // A draft's PDF says DRAFT and carries no XML; no e-invoice exists before the number.
    if (format !== 'pdf') add('number', 'BT-1', 'Invoice number and issue date (BT-2): given when the invoice is issued', 'issue');
    return missing;
  }
  const i = doc.issuer;
  const r = doc.recipient;
  const xrechnung = format === 'xrechnung-ubl' || format === 'xrechnung-cii';

  // EN 16931, every syntax: the parties' names and countries (BR-6, BR-7, BR-9, BR-11).
  if (!text(i?.legalName)) issuer('legalName');
  if (!text(i?.country)) issuer('country');
  if (!text(r?.legalName) && !text(r?.name)) recipient('legalName');
  if (!text(r?.country)) recipient('country');

  // Peppol applies Germany's national rules (DE-R-001 … DE-R-031, XRechnung's BR-DE-* again) when
  // both parties' addresses are in Germany.
  const germanPeppol = format === 'peppol' && text(i?.country)?.toUpperCase() === 'DE' && text(r?.country)?.toUpperCase() === 'DE';
  if (xrechnung || germanPeppol) {
    if (!text(r?.reference)) recipient('reference'); // BR-DE-15
    if (!text(i?.city)) issuer('city'); // BR-DE-3
    if (!text(i?.postalCode)) issuer('postalCode'); // BR-DE-4
    if (!text(i?.contactName)) issuer('contactName'); // BR-DE-2, BR-DE-5
    if (!text(i?.phone)) issuer('phone'); // BR-DE-6
    if (!text(i?.email)) issuer('email'); // BR-DE-7
    if (!text(r?.city)) recipient('city'); // BR-DE-8
    if (!text(r?.postalCode)) recipient('postalCode'); // BR-DE-9
    if (!text(i?.iban)) issuer('iban'); // BR-DE-1 (payment instructions), BR-DE-23
  }
  if (format === 'peppol' && !text(r?.reference)) recipient('reference'); // PEPPOL-EN16931-R003
  if (xrechnung || format === 'peppol') {
    // XRechnung 3.0 and Peppol (R010, R020) need both electronic addresses, each with its scheme (BR-62, BR-63).
    if (!text(i?.electronicAddress)) issuer('electronicAddress');
    else if (!electronicAddressOf(i?.electronicAddress, i?.electronicAddressScheme)) issuer('electronicAddressScheme');
    if (!text(r?.electronicAddress)) recipient('electronicAddress');
    else if (!electronicAddressOf(r?.electronicAddress, r?.electronicAddressScheme)) recipient('electronicAddressScheme');
  }

  if (format === 'peppol') {
    // PEPPOL-EN16931-CL008: Peppol routes by participant identifiers, whose schemes are ISO 6523
    // ICDs and Peppol's own four-digit codes (0208, 9930, 0204, 0088 …); an email address (EM) is none.
    // (An address without any scheme is listed above already.)
    const notPeppol = (value: string | null | undefined, scheme: string | null | undefined) => {
      const address = electronicAddressOf(value, scheme);
      return address !== null && !/^\d{4}$/.test(address.scheme);
    };
    if (notPeppol(i?.electronicAddress, i?.electronicAddressScheme))
      add('issuer.electronicAddress', 'BT-34', PEPPOL_ADDRESS('Seller'), 'business-profile');
    if (notPeppol(r?.electronicAddress, r?.electronicAddressScheme))
      add('recipient.electronicAddress', 'BT-49', PEPPOL_ADDRESS('Buyer'), 'client');
  }

  // A plain PDF carries no XML, so nothing in it must identify the seller by BT-29/30/31.
  if (format !== 'pdf' || !plainPdf(doc)) sellerIdentification(doc, format, add);
  taxes(doc, add, issuer, recipient);

  // BR-CO-25: an amount due needs a due date or payment terms (a credit note carries its own sentence).
  if (!options.creditNote && doc.status !== 'paid' && doc.grossTotal > 0 && !doc.dueDate && !text(doc.paymentTerms))
    add('paymentTerms', 'BT-20', 'Payment terms (or a due date, BT-9)', 'fill');
  return missing;
}

/**
 * BR-CO-26: the buyer must be able to identify the seller by a seller identifier (BT-29), the
 * register entry (BT-30) or the VAT identifier (BT-31). A tax number (BT-32) alone is none of them,
 * and an invoice not subject to VAT (O) carries no VAT identifier (BR-O-02). KoSIT's XRechnung test
 * suite identifies such sellers the same two ways: a register entry (01.04a, a Vereinsregister entry
 * beside the tax number) or a seller identifier (01.05, its minimal O invoice). Every e-invoice
 * format needs one, and so does the PDF of a seller who has one of them (its factur-x.xml); the
 * PDF of a seller who has none is plain (`plainPdf`), without XML.
 */
function sellerIdentification(
  doc: InvoiceDocument,
  format: DocumentFormat,
  add: (path: string, bt: string, label: string, where: MissingWhere) => void,
): void {
  const i = doc.issuer;
  const identifier = sellerIdentifierOf(i);
  const notSubject = [...(doc.taxBreakdown ?? []).map((row) => row.category), ...doc.lines.map((line) => line.taxCategory)].includes('O');
  const vatId = text(i?.vatId);
  if (!identifier && !text(i?.registrationNumber) && (notSubject || !vatId)) {
    const vat = notSubject
      ? vatId
        ? 'the VAT identifier (BT-31) cannot serve: an invoice not subject to VAT (O) carries none'
        : 'a VAT identifier (BT-31) would not serve: an invoice not subject to VAT (O) carries none'
      : 'or a VAT identifier (BT-31: issuer.vatId)';
    add(
      'issuer.sellerIdentifier',
      'BT-29/BT-30/BT-31',
      `An identifier of the seller the buyer can use (BR-CO-26; a tax number, BT-32, is not one): a seller identifier (BT-29: issuer.sellerIdentifier, with issuer.sellerIdentifierScheme when it has one, e.g. 0088 for a GLN; without scheme, e.g. the supplier number your client gave you), your register entry (BT-30: issuer.registrationNumber, e.g. HRB 12345 B), ${vat}`,
      'business-profile',
    );
  }
  // Peppol checks the check digits of the identifier schemes it knows (PEPPOL-COMMON-R040 …).
  const problem = format === 'peppol' && identifier ? identifierProblem(identifier.scheme, identifier.value) : null;
  if (problem)
    add(
      'issuer.sellerIdentifier',
      'BT-29',
      `Seller identifier: ${JSON.stringify(identifier?.value)} ${problem} (scheme ${identifier?.scheme ?? ''}); correct it, or its scheme (issuer.sellerIdentifierScheme)`,
      'business-profile',
    );
}

/** The VAT values: each line's category and rate, the breakdown, and what each category asks of the parties. */
function taxes(
  doc: InvoiceDocument,
  add: (path: string, bt: string, label: string, where: MissingWhere) => void,
  issuer: (field: string) => void,
  recipient: (field: string) => void,
): void {
  doc.lines.forEach((line, n) => {
    if (!line.taxCategory) add(`lines[${n}].taxCategory`, 'BT-151', `VAT category code of line ${n + 1}`, 'fill');
    if (line.taxRate === undefined && line.taxCategory !== 'O') add(`lines[${n}].taxRate`, 'BT-152', `VAT rate of line ${n + 1}`, 'fill');
    // A rate its category forbids (BR-S-05: S above 0 %; BR-Z-05, BR-E-05, BR-AE-05, BR-IC-05, BR-G-05: the others 0 %).
    else if (line.taxCategory === 'S' && line.taxRate === 0)
      add(
        `lines[${n}].taxRate`,
        'BT-152',
        `VAT rate of line ${n + 1}: the standard rate (category S) is above 0 % (zero-rated supplies are category Z)`,
        'fill',
      );
    else if (['Z', 'E', 'AE', 'K', 'G'].includes(line.taxCategory ?? '') && line.taxRate !== undefined && line.taxRate !== 0)
      add(`lines[${n}].taxRate`, 'BT-152', `VAT rate of line ${n + 1}: category ${line.taxCategory ?? ''} carries 0 %`, 'fill');
  });
  const rows = doc.taxBreakdown ?? [];
  if (rows.length === 0)
    add('taxBreakdown', 'BG-23', 'VAT breakdown (fill taxBreakdown=lines once every line has its category and rate)', 'fill');
  const categories = new Set([...rows.map((row) => row.category), ...doc.lines.flatMap((line) => line.taxCategory ?? [])]);
  rows.forEach((row, n) => {
    // E has many reasons (small business, medical, …): the invoice must say which (BR-E-10).
    if (row.category === 'E' && !text(row.exemptionReason) && !text(row.exemptionReasonCode))
      add(`taxBreakdown[${n}].exemptionReason`, 'BT-120', 'VAT exemption reason (e.g. the small business rule that applies)', 'fill');
  });
  const i = doc.issuer;
  // Reverse charge, intra-community supply and export name the seller's VAT identifier (BR-AE-02, BR-IC-02, BR-G-02).
  if ((categories.has('AE') || categories.has('K') || categories.has('G')) && !text(i?.vatId)) issuer('vatId');
  // The others a VAT identifier or the tax number (BR-S-02, BR-Z-02, BR-E-02, BR-DE-16).
  else if (['S', 'Z', 'E'].some((c) => categories.has(c)) && !text(i?.vatId) && !taxNumberOf(doc))
    add('issuer.vatId', 'BT-31', 'Seller VAT identifier (or the tax number, BT-32: issuer.taxNumber)', 'business-profile');
  // Reverse charge and intra-community supply also the buyer's (BR-AE-02, BR-IC-02).
  if ((categories.has('AE') || categories.has('K')) && !text(doc.recipient?.vatId)) recipient('vatId');
}
