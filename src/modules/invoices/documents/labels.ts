import type { DocumentLanguage, TaxCategory } from '../document.js';
import type { DocumentFormat } from './formats.js';

/**
 * The formats as people name them, in every language: what the invoice mail says it attaches
 * (the slugs, `xrechnung-ubl`, are the command line's and the file names').
 */
export const FORMAT_NAMES: Record<DocumentFormat, string> = {
  pdf: 'PDF',
  'xrechnung-ubl': 'XRechnung (UBL)',
  'xrechnung-cii': 'XRechnung (CII)',
  peppol: 'Peppol BIS Billing 3.0',
};

/**
 * The words of the documents in each language (`doc.language`), and how money, hours and days
 * are written in it. The XML carries none of these but the credit note's payment sentence and the
 * exemption wording a row lacks; the PDF carries them all.
 */
export interface Labels {
  locale: string;
  invoice: string;
  creditNote: string;
  draft: string;
  draftNotice: string;
  number: string;
  issueDate: string;
  dueDate: string;
  servicePeriod: string;
  buyerReference: string;
  precedingInvoice: string;
  /** The preceding invoice's number and date as the fact beside `precedingInvoice` says them. */
  precedingValue: (number: string, date: string) => string;
  from: string;
  billedTo: string;
  vatId: string;
  taxNumber: string;
  /** A register number without its court (with the court, the court names it: "Amtsgericht Charlottenburg HRB 245678"). */
  registration: string;
  /** The company's seat (§ 35a GmbHG). */
  seat: string;
  /** The managing directors (§ 35a GmbHG). */
  managingDirectors: string;
  customerVatId: string;
  position: string;
  description: string;
  hours: string;
  rate: string;
  /** The quantity and price columns' heads when an invoice has manual lines (each quantity then says its unit). */
  quantity: string;
  unitPrice: string;
  tax: string;
  amount: string;
  netTotal: string;
  taxOn: (category: string, rate: string, basis: string) => string;
  taxTotal: string;
  /** The VAT total in the VAT accounting currency (BT-111), with the rate it was converted at. */
  taxTotalIn: (currency: string, rate: string) => string;
  grossTotal: string;
  paid: string;
  amountDue: string;
  paymentTerms: string;
  bankDetails: string;
  accountHolder: string;
  bank: string;
  iban: string;
  bic: string;
  reference: string;
  contact: string;
  /** A line's name (BT-153, required) when its description is blank. */
  services: string;
  page: (n: number, of: number) => string;
  continued: string;
  /** The credit note's payment sentence (BT-20): what it cancels and that the amount is credited. */
  creditNoteTerms: (number: string, date: string) => string;
  /** The standard wording of a category's exemption (BT-120) when a row carries none. */
  exemption: Partial<Record<TaxCategory, string>>;
  category: Record<TaxCategory, string>;
}

const en: Labels = {
  locale: 'en-GB',
  invoice: 'Invoice',
  creditNote: 'Credit note',
  draft: 'DRAFT',
  draftNotice: 'Draft: not an invoice yet. It has no number and cannot be paid or booked.',
  number: 'Number',
  issueDate: 'Date',
  dueDate: 'Due',
  servicePeriod: 'Service period',
  buyerReference: 'Your reference',
  precedingInvoice: 'Cancels invoice',
  precedingValue: (number, date) => `${number} (${date})`,
  from: 'From',
  billedTo: 'Billed to',
  vatId: 'VAT ID',
  taxNumber: 'Tax number',
  registration: 'Registration',
  seat: 'Registered office',
  managingDirectors: 'Managing directors',
  customerVatId: 'Your VAT ID',
  position: '#',
  description: 'Description',
  hours: 'Hours',
  rate: 'Rate',
  quantity: 'Quantity',
  unitPrice: 'Price',
  tax: 'VAT',
  amount: 'Amount',
  netTotal: 'Net total',
  taxOn: (category, rate, basis) => `${category} ${rate} on ${basis}`,
  taxTotal: 'VAT total',
  taxTotalIn: (currency, rate) => `VAT total in ${currency} (rate ${rate})`,
  grossTotal: 'Total',
  paid: 'Paid',
  amountDue: 'Amount due',
  paymentTerms: 'Payment terms',
  bankDetails: 'Bank details',
  accountHolder: 'Account holder',
  bank: 'Bank',
  iban: 'IBAN',
  bic: 'BIC',
  reference: 'Reference',
  contact: 'Contact',
  services: 'Services',
  page: (n, of) => `Page ${n} of ${of}`,
  continued: 'continued',
  creditNoteTerms: (number, date) => `This credit note cancels invoice ${number} of ${date}; its amount is credited to you.`,
  exemption: {
    AE: 'Reverse charge: the recipient is liable for the VAT.',
    K: 'Intra-community supply, exempt from VAT.',
    G: 'Export outside the EU, exempt from VAT.',
    O: 'Not subject to VAT.',
  },
  category: {
    S: 'VAT',
    AE: 'Reverse charge',
    K: 'Intra-community supply',
    G: 'Export',
    E: 'Exempt',
    Z: 'VAT zero rate',
    O: 'Not subject to VAT',
  },
};

const de: Labels = {
  locale: 'de-DE',
  invoice: 'Rechnung',
  // A "Gutschrift" is self-billing in German VAT law (§ 14 Abs. 2 UStG); cancelling one's own invoice is a correction.
  creditNote: 'Rechnungskorrektur',
  draft: 'ENTWURF',
  draftNotice: 'Entwurf: noch keine Rechnung. Er hat keine Nummer und kann weder bezahlt noch gebucht werden.',
  number: 'Nummer',
  issueDate: 'Datum',
  dueDate: 'Fällig',
  servicePeriod: 'Leistungszeitraum',
  buyerReference: 'Ihr Zeichen',
  // What lexoffice, sevDesk and FastBill print on a cancellation ("Storno zu Rechnung …"; docs/invoicing.md cites them).
  precedingInvoice: 'Storno zu Rechnung',
  precedingValue: (number, date) => `${number} vom ${date}`,
  from: 'Von',
  billedTo: 'Rechnungsempfänger',
  vatId: 'USt-IdNr.',
  taxNumber: 'Steuernummer',
  registration: 'Registernummer',
  seat: 'Sitz',
  managingDirectors: 'Geschäftsführung',
  customerVatId: 'Ihre USt-IdNr.',
  position: 'Pos.',
  description: 'Beschreibung',
  hours: 'Stunden',
  rate: 'Satz',
  quantity: 'Menge',
  unitPrice: 'Einzelpreis',
  tax: 'USt.',
  amount: 'Betrag',
  netTotal: 'Summe netto',
  taxOn: (category, rate, basis) => `${category} ${rate} auf ${basis}`,
  taxTotal: 'Summe USt.',
  taxTotalIn: (currency, rate) => `Summe USt. in ${currency} (Kurs ${rate})`,
  grossTotal: 'Gesamtbetrag',
  paid: 'Bezahlt',
  amountDue: 'Zu zahlen',
  paymentTerms: 'Zahlungsbedingungen',
  bankDetails: 'Bankverbindung',
  accountHolder: 'Kontoinhaber',
  bank: 'Bank',
  iban: 'IBAN',
  bic: 'BIC',
  reference: 'Verwendungszweck',
  contact: 'Kontakt',
  services: 'Leistungen',
  page: (n, of) => `Seite ${n} von ${of}`,
  continued: 'Fortsetzung',
  creditNoteTerms: (number, date) =>
    `Diese Rechnungskorrektur storniert die Rechnung ${number} vom ${date}; der Betrag wird Ihnen gutgeschrieben.`,
  exemption: {
    AE: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge).',
    K: 'Steuerfreie innergemeinschaftliche Lieferung.',
    G: 'Steuerfreie Ausfuhrlieferung.',
    O: 'Nicht steuerbar.',
  },
  category: {
    S: 'USt.',
    AE: 'Reverse Charge',
    K: 'Innergemeinschaftliche Lieferung',
    G: 'Ausfuhr',
    E: 'Steuerbefreit',
    Z: 'USt. Nullsatz',
    O: 'Nicht steuerbar',
  },
};

export const LABELS: Record<DocumentLanguage, Labels> = { en, de };

export const labelsOf = (language: DocumentLanguage | undefined): Labels => LABELS[language ?? 'en'] ?? en;

/** Formatters of one language and currency (Intl formatters cost about a millisecond to make). */
export interface Formats {
  money: (amount: string | number) => string;
  /** A decimal written exactly as given ("19.682222" → "19,682222"), with the language's separators. */
  decimal: (decimalText: string) => string;
  /** A unit price with as many places as it has (2 to 4), so quantity × price is the amount printed. */
  price: (decimalText: string) => string;
  percent: (rateText: string) => string;
  date: (day: string) => string;
  /** A country's name (ISO 3166-1 alpha-2) in the language: AT → Österreich, Austria. */
  country: (code: string) => string;
}

const formats = new Map<string, Formats>();

/** The formatters of a language and currency, made once per process. */
export function formatsOf(labels: Labels, currency: string): Formats {
  const key = `${labels.locale}/${currency}`;
  let made = formats.get(key);
  if (!made) {
    made = makeFormats(labels, currency);
    formats.set(key, made);
  }
  return made;
}

function makeFormats(labels: Labels, currency: string): Formats {
  const money = new Intl.NumberFormat(labels.locale, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
  // A price as exact as it was given (a manual line's 33.335, a rate's 12.3456): 2 to 4 places.
  const price = new Intl.NumberFormat(labels.locale, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 4 });
  const integer = new Intl.NumberFormat(labels.locale, { maximumFractionDigits: 0 });
  const separator = new Intl.NumberFormat(labels.locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  const percent = new Intl.NumberFormat(labels.locale, { maximumFractionDigits: 3 });
  const date = new Intl.DateTimeFormat(labels.locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const regions = new Intl.DisplayNames([labels.locale], { type: 'region', fallback: 'code' });
  return {
    money: (amount) => money.format(Number(amount)),
    price: (amount) => price.format(Number(amount)),
    decimal: (value) => {
      const [whole = '0', fraction] = value.replace(/^-/, '').split('.');
      return `${value.startsWith('-') ? '-' : ''}${integer.format(BigInt(whole))}${fraction ? `${separator}${fraction}` : ''}`;
    },
    percent: (value) => `${percent.format(Number(value))}${labels.locale.startsWith('de') ? '\u00a0%' : '%'}`,
    date: (day) => date.format(new Date(`${day}T00:00:00Z`)),
    country: (code) => regions.of(code) ?? code,
  };
}
