import { decimalOf, toCents } from '../../../kernel/money.js';
import type { DocumentSource, EarlyPayment, InvoiceDocument, TaxCategory } from '../document.js';
import { formatsOf, labelsOf } from './labels.js';

/**
 * What every e-invoice syntax says, worked out once from the stored invoice: the EN 16931 values
 * (by their BT numbers) as the strings the XML carries. UBL and CII only arrange these; the PDF
 * reads the same values so the page a person reads and the XML a machine reads never differ.
 * Pure: no clock, no I/O.
 */

export { type DocumentFormat, DOCUMENT_FORMATS } from './formats.js';

export interface RenderOptions {
  /** The credit note of a voided invoice instead of the invoice itself. */
  creditNote?: boolean;
}

/** BT-24 (CustomizationID / guideline) and BT-23 (ProfileID / business process) of each XML. */
export const SPECIFICATION = {
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
  peppol: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
  facturX: 'urn:cen.eu:en16931:2017',
  peppolProcess: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
} as const;

/**
 * VATEX codes (BT-121) and the standard wording (BT-120) used when a zero-rated row of these
 * categories carries neither: each category has exactly one meaning, so nothing is guessed.
 * `E` (exempt) has many reasons (small business, medical, …) and is never defaulted.
 */
export const DEFAULT_EXEMPTION: Partial<Record<TaxCategory, string>> = {
  AE: 'VATEX-EU-AE',
  K: 'VATEX-EU-IC',
  G: 'VATEX-EU-G',
  O: 'VATEX-EU-O',
};

export interface Address {
  lines: string[];
  postalCode: string | null;
  city: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string | null;
}

export interface ElectronicAddress {
  value: string;
  scheme: string;
}

export interface Seller {
  name: string;
  /** BT-29, with its scheme (BT-29-1, an ISO 6523 ICD code) when it has one. */
  identifier: { value: string; scheme: string | null } | null;
  /** BT-30 */
  legalRegistration: string | null;
  /** BT-31 */
  vatId: string | null;
  /** BT-32 */
  taxNumber: string | null;
  address: Address;
  /** BG-6 */
  contact: { name: string | null; phone: string | null; email: string | null } | null;
  /** BT-34 */
  electronicAddress: ElectronicAddress | null;
}

export interface Buyer {
  /** BT-44: the client's legal name (its catalog name only when it has none). */
  name: string;
  /** BT-45: a trading name; none is kept for a client (its catalog name is not one), so always null today. */
  tradingName: string | null;
  /** BT-48 */
  vatId: string | null;
  address: Address;
  /** BT-49 */
  electronicAddress: ElectronicAddress | null;
}

export interface Line {
  /** BT-126: 1, 2, … */
  id: string;
  /** BT-153 */
  name: string;
  /** BT-129: a line of time's hours, 6 decimals; a manual line's quantity as given. */
  quantity: string;
  /** BT-130: `HUR` for time, a manual line's own UN/ECE Rec 20 code. */
  unit: string;
  /** BT-146: the hourly rate, or a manual line's unit price. */
  price: string;
  /** A manual line (its quantity is no time: printed as given, with its unit). */
  manual: boolean;
  /** BT-131 */
  net: string;
  /** BT-151 */
  category: TaxCategory;
  /** BT-152; null for category O (BR-O-05). */
  rate: string | null;
}

export interface TaxRow {
  category: TaxCategory;
  /** BT-119 (0 for O: XRechnung's BR-DE-14 wants a rate on every row). */
  rate: string;
  /** BT-116 */
  basis: string;
  /** BT-117 */
  tax: string;
  /** BT-120 */
  reason: string | null;
  /** BT-121 */
  reasonCode: string | null;
}

export interface EInvoice {
  /** BT-3: 380 commercial invoice, 381 credit note. */
  typeCode: '380' | '381';
  creditNote: boolean;
  /** BT-1 */
  number: string;
  /** BT-2 */
  issueDate: string;
  /** BT-9 */
  dueDate: string | null;
  /** BT-5 */
  currency: string;
  /** BT-6 and BT-111: the VAT accounting currency and the VAT total in it, when it differs from BT-5. */
  vatCurrency: { code: string; taxTotal: string } | null;
  /** BT-10 */
  buyerReference: string | null;
  /** BT-22 */
  note: string | null;
  /** BT-20 */
  paymentTerms: string | null;
  /** The early-payment discount of an invoice (not of its credit note), in words in BT-20; XRechnung adds its `#SKONTO#` line. */
  earlyPayment: EarlyPayment | null;
  /** BG-14 (BT-73, BT-74): the service period, days in `timeZone` (the invoice's: decisions 11a). */
  period: { from: string; to: string; timeZone: string };
  /** BG-3: BT-25, BT-26 (a credit note's invoice). */
  preceding: { number: string; issueDate: string } | null;
  seller: Seller;
  buyer: Buyer;
  /** BG-13/BG-15: where the service was supplied; given for intra-community supply (BR-IC-12). */
  deliverTo: { name: string; address: Address } | null;
  /** BG-16/BG-17: SEPA credit transfer (code 58) to the issuer's IBAN. */
  payment: { code: '58'; iban: string; bic: string | null; accountName: string | null; reference: string } | null;
  lines: Line[];
  taxes: TaxRow[];
  /** BG-22 */
  totals: { lines: string; taxBasis: string; tax: string; grand: string; prepaid: string; payable: string };
}

/** Cents as a decimal with two places: 123456 → "1234.56". */
export function centsText(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** An amount (at most two places) as the XML writes it: always two places. */
export const amountText = (amount: number): string => centsText(toCents(amount));

/** A number as the exact decimal it was written as, with at least `min` places: 7.7 → "7.70", 1.005 → "1.005". */
export function decimalText(n: number, min = 2): string {
  const { units, scale } = decimalOf(n);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  let fraction = digits.slice(digits.length - scale);
  while (fraction.length < min) fraction += '0';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Seconds as hours with six places, rounded half up: 5400 → "1.500000", 1 → "0.000278". */
export function hoursText(seconds: number): string {
  const micro = Math.round((seconds * 1_000_000) / 3600);
  return `${Math.floor(micro / 1_000_000)}.${String(micro % 1_000_000).padStart(6, '0')}`;
}

/**
 * A line's quantity as printed: its hours with the fewest decimals (at least two; the XML's six,
 * trailing zeros dropped, or more where those do not suffice) such that printed quantity × printed
 * price, rounded to the cent, is the printed amount. Exact decimal arithmetic.
 */
export function printedHours(seconds: number, xmlQuantity: string, price: string, net: string): string {
  const [priceWhole = '0', priceFraction = ''] = price.split('.');
  const priceUnits = BigInt(priceWhole + priceFraction);
  const priceScale = priceFraction.length;
  const [netWhole = '0', netFraction = ''] = net.split('.');
  const netCents = BigInt(netWhole + netFraction.padEnd(2, '0').slice(0, 2));
  const sec = BigInt(Math.round(seconds));
  const trimmed = xmlQuantity.replace(/0+$/, '');
  const start = Math.max(2, trimmed.length - trimmed.indexOf('.') - 1);
  const text = (units: bigint, d: number) => {
    const digits = units.toString().padStart(d + 1, '0');
    return `${digits.slice(0, -d)}.${digits.slice(-d)}`;
  };
  for (let d = start; d <= 12; d++) {
    const scale = 10n ** BigInt(d);
    // Hours to d places, half up: sec × 10^d / 3600.
    const units = (sec * scale * 2n + 3600n) / 7200n;
    // × price, to cents, half away from zero (every amount here is positive).
    const divisor = scale * 10n ** BigInt(priceScale);
    const cents = (units * priceUnits * 100n * 2n + divisor) / (2n * divisor);
    if (cents === netCents) return text(units, d);
  }
  return xmlQuantity;
}

/** A stored line's hours as the documents print them (printedHours); two places for a line without a rate. */
export function printedLineHours(line: { quantitySec: number; hourlyRate: number | null; amount: number }): string {
  if (line.hourlyRate === null) return (line.quantitySec / 3600).toFixed(2);
  return printedHours(line.quantitySec, hoursText(line.quantitySec), decimalText(line.hourlyRate), amountText(line.amount));
}

const blank = (value: string | null | undefined): value is null | undefined => value === null || value === undefined || value.trim() === '';
/** A value, trimmed, or null when blank. */
export const text = (value: string | null | undefined): string | null => (blank(value) ? null : value.trim());

/** The EAS scheme of an electronic address: the one given, or EM for an email address given without one. */
export function electronicAddressOf(value: string | null | undefined, scheme: string | null | undefined): ElectronicAddress | null {
  const address = text(value);
  if (!address) return null;
  const given = text(scheme);
  if (given) return { value: address, scheme: given };
  return /^[^\s@]+@[^\s@]+$/.test(address) ? { value: address, scheme: 'EM' } : null;
}

/** The seller identifier (BT-29) with its scheme, or null. */
export function sellerIdentifierOf(
  issuer: { sellerIdentifier?: string | null; sellerIdentifierScheme?: string | null } | null | undefined,
): Seller['identifier'] {
  const value = text(issuer?.sellerIdentifier);
  return value ? { value, scheme: text(issuer?.sellerIdentifierScheme) } : null;
}

/** The seller's tax number (BT-32): `taxNumber`, else the older `taxId`. */
export const taxNumberOf = (doc: InvoiceDocument): string | null => text(doc.issuer?.taxNumber) ?? text(doc.issuer?.taxId);

/** The tax category of every line and row, as a code (unknown codes pass through for the rules to name). */
const categoryOf = (value: string | undefined): TaxCategory => (value ?? 'S') as TaxCategory;

function addressOf(party: {
  addressLines: string[] | null;
  postalCode: string | null;
  city: string | null;
  country: string | null;
}): Address {
  return {
    lines: (party.addressLines ?? []).map((line) => line.trim()).filter((line) => line !== ''),
    postalCode: text(party.postalCode),
    city: text(party.city),
    country: text(party.country),
  };
}

/**
 * The EN 16931 values of an invoice (or of its credit note). Assumes `missingFor` found nothing
 * missing for the format: required values that are absent come out empty here, and the rules
 * would name them.
 */
export function einvoiceOf(doc: DocumentSource, creditNote: boolean): EInvoice {
  const issuer = doc.issuer;
  const recipient = doc.recipient;
  const categories = new Set((doc.taxBreakdown ?? []).map((row) => row.category));
  // BR-O-02: an invoice "not subject to VAT" names no VAT identifier at all.
  const notSubject = categories.has('O');
  const number = creditNote ? (doc.creditNote?.number ?? '') : (doc.number ?? '');
  const issueDate = creditNote ? (doc.creditNote?.issueDate ?? '') : (doc.issueDate ?? '');
  const grossCents = toCents(doc.grossTotal);
  // What was paid (BT-113): the payments recorded against an issued invoice, all of it once paid;
  // nothing of a credit note or a void invoice (issue 57: a later document says what is still due).
  const prepaidCents = !creditNote && (doc.status === 'paid' || doc.status === 'sent') ? grossCents - toCents(doc.amountDue) : 0;
  const iban = text(issuer?.iban);
  const seller: Seller = {
    name: text(issuer?.legalName) ?? '',
    identifier: sellerIdentifierOf(issuer),
    legalRegistration: text(issuer?.registrationNumber),
    vatId: notSubject ? null : text(issuer?.vatId),
    taxNumber: taxNumberOf(doc),
    address: addressOf(issuer ?? { addressLines: null, postalCode: null, city: null, country: null }),
    contact:
      text(issuer?.contactName) || text(issuer?.phone) || text(issuer?.email)
        ? { name: text(issuer?.contactName), phone: text(issuer?.phone), email: text(issuer?.email) }
        : null,
    electronicAddress: electronicAddressOf(issuer?.electronicAddress, issuer?.electronicAddressScheme),
  };
  const buyer: Buyer = {
    // The legal name; the catalog name is how the workspace calls the client, not a trading name (BT-45).
    name: text(recipient?.legalName) ?? text(recipient?.name) ?? '',
    tradingName: null,
    vatId: notSubject ? null : text(recipient?.vatId),
    address: addressOf(recipient ?? { addressLines: null, postalCode: null, city: null, country: null }),
    electronicAddress: electronicAddressOf(recipient?.electronicAddress, recipient?.electronicAddressScheme),
  };
  return {
    typeCode: creditNote ? '381' : '380',
    creditNote,
    number,
    issueDate,
    dueDate: creditNote ? null : doc.dueDate,
    currency: doc.currency,
    vatCurrency: doc.vatCurrency ? { code: doc.vatCurrency.currency, taxTotal: amountText(doc.vatCurrency.taxTotal) } : null,
    buyerReference: text(recipient?.reference),
    note: text(doc.note),
    // BR-CO-25: an amount due needs a due date or payment terms; a credit note says what it cancels.
    paymentTerms:
      creditNote && doc.number && doc.issueDate
        ? labelsOf(doc.language).creditNoteTerms(doc.number, formatsOf(labelsOf(doc.language), doc.currency).date(doc.issueDate))
        : text(doc.paymentTerms),
    earlyPayment: creditNote ? null : (doc.earlyPayment ?? null),
    period: { from: doc.from, to: doc.to, timeZone: doc.timeZone },
    preceding: creditNote && doc.number && doc.issueDate ? { number: doc.number, issueDate: doc.issueDate } : null,
    seller,
    buyer,
    deliverTo: categories.has('K') ? { name: buyer.name, address: buyer.address } : null,
    payment: iban
      ? {
          code: '58',
          iban: iban.replace(/\s+/g, ''),
          bic: text(issuer?.bic)?.replace(/\s+/g, '') ?? null,
          accountName: text(issuer?.accountHolder) ?? (seller.name || null),
          reference: number,
        }
      : null,
    lines: doc.lines.map((line, i) => {
      const category = categoryOf(line.taxCategory);
      if (line.manual)
        return {
          id: String(i + 1),
          name: text(line.description) ?? labelsOf(doc.language).services,
          quantity: decimalText(line.manual.quantity, 0),
          unit: line.manual.unit,
          price: decimalText(line.manual.unitPrice),
          manual: true,
          net: amountText(line.amount),
          category,
          rate: category === 'O' ? null : decimalText(line.taxRate ?? 0),
        };
      const price =
        line.hourlyRate ?? (line.quantitySec > 0 ? Math.round((line.amount * 3600 * 1e6) / line.quantitySec) / 1e6 : line.amount);
      return {
        id: String(i + 1),
        // BR-25: every line has a name; a blank description gets the language's word for services.
        name: text(line.description) ?? labelsOf(doc.language).services,
        quantity: hoursText(line.quantitySec),
        unit: 'HUR',
        price: decimalText(price),
        manual: false,
        net: amountText(line.amount),
        category,
        rate: category === 'O' ? null : decimalText(line.taxRate ?? 0),
      };
    }),
    taxes: (doc.taxBreakdown ?? []).map((row) => {
      const category = categoryOf(row.category);
      const reason = text(row.exemptionReason);
      const reasonCode = text(row.exemptionReasonCode) ?? (reason ? null : (DEFAULT_EXEMPTION[category] ?? null));
      return {
        category,
        rate: decimalText(row.rate),
        basis: amountText(row.basisAmount),
        tax: amountText(row.taxAmount),
        reason,
        reasonCode,
      };
    }),
    totals: {
      lines: amountText(doc.netTotal),
      taxBasis: amountText(doc.netTotal),
      tax: amountText(doc.taxTotal),
      grand: centsText(grossCents),
      prepaid: centsText(prepaidCents),
      payable: centsText(grossCents - prepaidCents),
    },
  };
}

/**
 * BT-20 as a flavour writes it: the terms in words, and for XRechnung each early-payment discount
 * in KoSIT's form (BR-DE-18) on a line of its own after them, `#SKONTO#TAGE=10#PROZENT=2.00#`,
 * ended by a line break. The days count from the issue date; the basis is the amount due (BT-115),
 * so no BASISBETRAG is given.
 */
export function paymentTermsFor(e: EInvoice, flavour: 'xrechnung' | 'other'): string | null {
  if (flavour !== 'xrechnung' || e.earlyPayment === null) return e.paymentTerms;
  const { days, percent } = e.earlyPayment;
  return `${e.paymentTerms ?? ''}\n#SKONTO#TAGE=${days}#PROZENT=${percent.toFixed(2)}#\n`;
}
