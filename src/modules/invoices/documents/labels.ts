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
  /** How a day is written: `medium` (31 Dec 2026, 31.12.2026) or `short` (31/12/2026, 31-12-2026). */
  dateStyle: 'medium' | 'short';
  /** What follows a percentage's number: "%" (19%) or a no-break space and "%" (19 %). */
  percentSign: string;
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
  dateStyle: 'medium',
  percentSign: '%',
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
  dateStyle: 'medium',
  percentSign: '\u00a0%',
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

// French: the mentions of art. 242 nonies A, annexe II CGI and the words of French invoice forms (docs/invoicing.md cites them).
const fr: Labels = {
  locale: 'fr-FR',
  dateStyle: 'short',
  percentSign: '\u00a0%',
  invoice: 'Facture',
  // A cancelling document is an "avoir" (a "facture d'avoir"); "auto-facturation" is self-billing.
  creditNote: 'Avoir',
  draft: 'BROUILLON',
  draftNotice: "Brouillon : pas encore une facture. Il n'a pas de numéro et ne peut être ni payé ni comptabilisé.",
  number: 'Numéro',
  issueDate: "Date d'émission",
  dueDate: "Date d'échéance",
  servicePeriod: 'Période de prestation',
  buyerReference: 'Votre référence',
  precedingInvoice: 'Annule la facture',
  precedingValue: (number, date) => `${number} du ${date}`,
  from: 'Émetteur',
  billedTo: 'Client',
  vatId: 'N° TVA intracom.',
  taxNumber: 'N° fiscal',
  registration: 'Immatriculation',
  seat: 'Siège social',
  managingDirectors: 'Dirigeants',
  customerVatId: 'Votre N° TVA',
  position: 'N°',
  description: 'Désignation',
  hours: 'Heures',
  rate: 'Tarif',
  quantity: 'Quantité',
  unitPrice: 'P.U. HT',
  tax: 'TVA',
  amount: 'Montant HT',
  netTotal: 'Total HT',
  taxOn: (category, rate, basis) => `${category} ${rate} sur ${basis}`,
  taxTotal: 'Total TVA',
  taxTotalIn: (currency, rate) => `Total TVA en ${currency} (taux de change ${rate})`,
  grossTotal: 'Total TTC',
  paid: 'Déjà réglé',
  amountDue: 'Net à payer',
  paymentTerms: 'Conditions de paiement',
  bankDetails: 'Coordonnées bancaires',
  accountHolder: 'Titulaire du compte',
  bank: 'Banque',
  iban: 'IBAN',
  bic: 'BIC',
  reference: 'Référence',
  contact: 'Contact',
  services: 'Prestations',
  page: (n, of) => `Page ${n} sur ${of}`,
  continued: 'suite',
  creditNoteTerms: (number, date) => `Cet avoir annule la facture ${number} du ${date}\u00a0; son montant vous est crédité.`,
  exemption: {
    // Art. 242 nonies A 13° CGI: the mention "Autoliquidation"; 12°: the exemption's provision (here the VAT directive's, whoever issues).
    AE: 'Autoliquidation (article 196 de la directive 2006/112/CE).',
    K: 'Exonération de TVA, livraison intracommunautaire (article 138 de la directive 2006/112/CE).',
    G: 'Exonération de TVA, exportation hors UE (article 146 de la directive 2006/112/CE).',
    O: 'Non soumis à la TVA.',
  },
  category: {
    S: 'TVA',
    AE: 'Autoliquidation',
    K: 'Livraison intracommunautaire',
    G: 'Exportation',
    E: 'Exonéré',
    Z: 'TVA taux zéro',
    O: 'Non soumis à la TVA',
  },
};

// Dutch: the Belastingdienst's factuureisen and the words of Dutch invoice forms (docs/invoicing.md cites them).
const nl: Labels = {
  locale: 'nl-NL',
  dateStyle: 'short',
  percentSign: '%',
  invoice: 'Factuur',
  creditNote: 'Creditnota',
  draft: 'CONCEPT',
  draftNotice: 'Concept: nog geen factuur. Het heeft geen nummer en kan niet worden betaald of geboekt.',
  number: 'Nummer',
  // One word for an invoice's and a credit note's date ("Factuurdatum" would be wrong on the credit note).
  issueDate: 'Datum',
  dueDate: 'Vervaldatum',
  servicePeriod: 'Leveringsperiode',
  buyerReference: 'Uw referentie',
  precedingInvoice: 'Crediteert factuur',
  precedingValue: (number, date) => `${number} van ${date}`,
  from: 'Van',
  billedTo: 'Aan',
  vatId: 'Btw-nummer',
  taxNumber: 'Fiscaal nummer',
  registration: 'Handelsregister',
  seat: 'Statutaire zetel',
  managingDirectors: 'Bestuurders',
  customerVatId: 'Uw btw-nummer',
  position: 'Nr.',
  description: 'Omschrijving',
  hours: 'Uren',
  rate: 'Tarief',
  quantity: 'Aantal',
  unitPrice: 'Prijs',
  tax: 'Btw',
  amount: 'Bedrag',
  netTotal: 'Totaal excl. btw',
  taxOn: (category, rate, basis) => `${category} ${rate} over ${basis}`,
  taxTotal: 'Totaal btw',
  taxTotalIn: (currency, rate) => `Totaal btw in ${currency} (koers ${rate})`,
  grossTotal: 'Totaal incl. btw',
  paid: 'Betaald',
  amountDue: 'Te betalen',
  paymentTerms: 'Betalingsvoorwaarden',
  bankDetails: 'Bankgegevens',
  accountHolder: 'Ten name van',
  bank: 'Bank',
  iban: 'IBAN',
  bic: 'BIC',
  reference: 'Betalingskenmerk',
  contact: 'Contact',
  services: 'Diensten',
  page: (n, of) => `Pagina ${n} van ${of}`,
  continued: 'vervolg',
  creditNoteTerms: (number, date) =>
    `Deze creditnota crediteert factuur ${number} van ${date}; het bedrag wordt aan u terugbetaald of verrekend.`,
  exemption: {
    // The Belastingdienst asks for the words "btw verlegd" when the customer owes the VAT.
    AE: 'Btw verlegd (artikel 196 Btw-richtlijn 2006/112/EG).',
    K: 'Intracommunautaire levering, vrijgesteld van btw (artikel 138 Btw-richtlijn 2006/112/EG).',
    G: 'Uitvoer buiten de EU, vrijgesteld van btw (artikel 146 Btw-richtlijn 2006/112/EG).',
    O: 'Niet onderworpen aan btw.',
  },
  category: {
    S: 'Btw',
    AE: 'Btw verlegd',
    K: 'Intracommunautaire levering',
    G: 'Uitvoer',
    E: 'Vrijgesteld',
    Z: 'Btw nultarief',
    O: 'Niet onderworpen aan btw',
  },
};

export const LABELS: Record<DocumentLanguage, Labels> = { en, de, fr, nl };

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
  const date = new Intl.DateTimeFormat(labels.locale, { dateStyle: labels.dateStyle, timeZone: 'UTC' });
  const regions = new Intl.DisplayNames([labels.locale], { type: 'region', fallback: 'code' });
  return {
    money: (amount) => money.format(Number(amount)),
    price: (amount) => price.format(Number(amount)),
    decimal: (value) => {
      const [whole = '0', fraction] = value.replace(/^-/, '').split('.');
      return `${value.startsWith('-') ? '-' : ''}${integer.format(BigInt(whole))}${fraction ? `${separator}${fraction}` : ''}`;
    },
    percent: (value) => `${percent.format(Number(value))}${labels.percentSign}`,
    date: (day) => date.format(new Date(`${day}T00:00:00Z`)),
    country: (code) => regions.of(code) ?? code,
  };
}
