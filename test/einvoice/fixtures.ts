import { amountCents, fromCents, percentOfCents, timesCents } from '../../src/kernel/money.js';
import { roundSeconds, type RoundingText } from '../../src/kernel/rounding.js';
import type {
  DocumentLanguage,
  DocumentSource,
  InvoiceDocument,
  IssuerParty,
  RecipientParty,
  TaxBreakdownRow,
} from '../../src/modules/invoices/document.js';
import { earlyPaymentTerms, paymentTerms } from '../../src/modules/invoices/tax.js';

/**
 * Stored invoices as the lifecycle makes them (decisions §11), written here by hand: each line's
 * net is rate × seconds / 3600 rounded once to the cent, the breakdown one row per (category,
 * rate) with tax = basis × rate / 100 rounded half away from zero, the totals their sums. Names
 * carry umlauts, ß, € (in the text), & and < on purpose.
 */

export const issuer = (patch: Partial<IssuerParty> = {}): IssuerParty => ({
  legalName: 'Müller & Söhne <Beratung> GmbH',
  addressLines: ['Hauptstraße 5', 'Hinterhaus, 2. OG'],
  postalCode: '10115',
  city: 'Berlin',
  country: 'DE',
  taxId: null,
  email: 'rechnung@mueller-soehne.example',
  phone: '+49 30 1234567',
  website: 'https://mueller-soehne.example',
  paymentDetails: null,
  paymentTermsDays: 14,
  invoiceFooter: 'Müller & Söhne <Beratung> GmbH · Geschäftsführer: Jörg Weiß · Amtsgericht Charlottenburg HRB 12345 B',
  vatId: 'DE136695976',
  taxNumber: '30/123/45678',
  registrationNumber: 'HRB 12345 B',
  sellerIdentifier: null,
  sellerIdentifierScheme: null,
  contactName: 'Jörg Weiß',
  // A German VAT identifier as a Peppol participant (9930); XRechnung takes any EAS scheme.
  electronicAddress: 'DE136695976',
  electronicAddressScheme: '9930',
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  bankName: 'Commerzbank',
  accountHolder: 'Müller & Söhne GmbH',
  smallBusiness: false,
  vatCurrency: null,
  ...patch,
});

export const recipient = (patch: Partial<RecipientParty> = {}): RecipientParty => ({
  name: 'Bäckerei Groß',
  legalName: 'Bäckerei Groß & Töchter <KG>',
  addressLines: ['Königsallee 1'],
  postalCode: '40212',
  city: 'Düsseldorf',
  country: 'DE',
  taxId: null,
  email: 'einkauf@baeckerei-gross.example',
  reference: '04011000-12345-03',
  vatId: 'DE129273398',
  // The Leitweg-ID, as German public buyers are addressed on Peppol (0204).
  electronicAddress: '04011000-12345-03',
  electronicAddressScheme: '0204',
  ...patch,
});

export interface LineSpec {
  description: string;
  seconds: number;
  rate: number;
  category?: string;
  taxRate?: number;
}

export interface InvoiceSpec {
  id?: string;
  lines: LineSpec[];
  category?: string;
  taxRate?: number;
  exemptionReason?: string | null;
  exemptionReasonCode?: string | null;
  status?: InvoiceDocument['status'];
  currency?: string;
  language?: DocumentLanguage;
  issuer?: IssuerParty | null;
  recipient?: RecipientParty | null;
  number?: string | null;
  creditNote?: InvoiceDocument['creditNote'];
  note?: string | null;
  /** Issued in another currency than the VAT currency: that currency and the rate (units of it per unit of `currency`). */
  exchange?: { currency: string; rate: number };
  /** Payments recorded against the issued invoice, in cents (issue 57): its amount due falls by them. */
  paidCents?: number;
  /** An early-payment discount it was issued with (issue 57 item 4): said after the due sentence, and XRechnung's #SKONTO# line. */
  earlyPayment?: { percent: number; days: number };
}

/** A whole stored invoice from its lines, with every amount computed as the lifecycle does. */
export function invoice(spec: InvoiceSpec): DocumentSource {
  const language = spec.language ?? 'en';
  const lines = spec.lines.map((l) => {
    const cents = amountCents(true, l.rate, l.seconds) as number;
    return {
      description: l.description,
      projectId: 'prj_1',
      quantitySec: l.seconds,
      hourlyRate: l.rate,
      amount: fromCents(cents),
      taxCategory: l.category ?? spec.category ?? 'S',
      taxRate: l.taxRate ?? spec.taxRate ?? 19,
      cents,
    };
  });
  const groups = new Map<string, { category: string; rate: number; cents: number }>();
  for (const l of lines) {
    const key = `${l.taxCategory}/${l.taxRate}`;
    const g = groups.get(key) ?? { category: l.taxCategory, rate: l.taxRate, cents: 0 };
    g.cents += l.cents;
    groups.set(key, g);
  }
  const taxBreakdown: TaxBreakdownRow[] = [...groups.values()].map((g) => ({
    category: g.category,
    rate: g.rate,
    basisAmount: fromCents(g.cents),
    taxAmount: fromCents(percentOfCents(g.cents, g.rate)),
    exemptionReason: g.category === 'S' || g.category === 'Z' ? null : (spec.exemptionReason ?? null),
    exemptionReasonCode: g.category === 'S' || g.category === 'Z' ? null : (spec.exemptionReasonCode ?? null),
  }));
  const net = lines.reduce((sum, l) => sum + l.cents, 0);
  const tax = [...groups.values()].reduce((sum, g) => sum + percentOfCents(g.cents, g.rate), 0);
  const status = spec.status ?? 'sent';
  const number = spec.number === undefined ? (status === 'draft' ? null : '2026-0042') : spec.number;
  const issued = number !== null;
  return {
    id: spec.id ?? 'inv_7f3k2m9q4x1z',
    workspaceId: 'ws_1',
    clientId: 'cli_1',
    status,
    currency: spec.currency ?? 'EUR',
    from: '2026-10-01',
    to: '2026-10-31',
    timeZone: 'Europe/Berlin',
    issuer: spec.issuer === undefined ? issuer() : spec.issuer,
    recipient: spec.recipient === undefined ? recipient() : spec.recipient,
    lines: lines.map(({ cents: _cents, ...line }) => line),
    total: fromCents(net),
    taxBreakdown,
    ...(issued
      ? {
          paymentTerms:
            language === 'fr' || language === 'nl'
              ? // French and Dutch as the lifecycle writes them (issued 2026-11-03, due in 14 days).
                [
                  paymentTerms(14, '2026-11-17', language),
                  ...(spec.earlyPayment ? [earlyPaymentTerms(spec.earlyPayment, '2026-11-03', language)] : []),
                ].join(' ')
              : spec.earlyPayment
                ? language === 'de'
                  ? `Zahlbar innerhalb von 14 Tagen bis zum 17.11.2026. Bei Zahlung innerhalb von ${spec.earlyPayment.days} Tagen bis zum 13.11.2026 ${String(spec.earlyPayment.percent).replace('.', ',')} % Skonto.`
                  : `Payable within 14 days, by 17 November 2026. ${spec.earlyPayment.percent} % early-payment discount if paid within ${spec.earlyPayment.days} days, by 13 November 2026.`
                : language === 'de'
                  ? 'Zahlbar ohne Abzug bis zum 17.11.2026 (14 Tage).'
                  : 'Payable without deduction by 17 Nov 2026 (14 days).',
        }
      : {}),
    ...(spec.earlyPayment && issued ? { earlyPayment: spec.earlyPayment } : {}),
    einvoiceFills: [],
    createdAt: '2026-11-02T09:15:00.000Z',
    updatedAt: '2026-11-03T10:00:00.000Z',
    number,
    issueDate: issued ? '2026-11-03' : null,
    dueDate: issued ? '2026-11-17' : null,
    paidDate: status === 'paid' ? '2026-11-10' : null,
    netTotal: fromCents(net),
    taxTotal: fromCents(tax),
    grossTotal: fromCents(net + tax),
    amountDue: status === 'paid' || status === 'void' ? 0 : fromCents(net + tax - (spec.paidCents ?? 0)),
    ...(spec.exchange && issued
      ? {
          vatCurrency: {
            currency: spec.exchange.currency,
            exchangeRate: spec.exchange.rate,
            taxTotal: fromCents(timesCents(tax, spec.exchange.rate)),
          },
        }
      : {}),
    creditNote: spec.creditNote ?? null,
    note: spec.note === undefined ? null : spec.note,
    language,
  };
}

const two: LineSpec[] = [
  { description: 'Website <Relaunch> & Shop: Konzeption, Gestaltung', seconds: 12 * 3600 + 30 * 60, rate: 95 },
  { description: 'Beratung Datenschutz (Größe & Maß)', seconds: 3 * 3600 + 20 * 60 + 17, rate: 120.5 },
];

/**
 * Lines of time rounded per entry as an invoice with a rounding rule makes them (issue 56 item
 * 4): each entry's seconds rounded by the rule, then summed per line. The issue's timers (30:40,
 * 10 s) and entries whose rounded hours at 12.34 €/h fall on half a cent (3.75 h × 12.34 = 46.275).
 */
export const roundedLines = (rule: RoundingText): LineSpec[] => {
  const sum = (entries: number[]) => entries.reduce((total, seconds) => total + roundSeconds(seconds, rule), 0);
  return [
    { description: 'Timer 30:40', seconds: sum([1840]), rate: 95 },
    { description: 'Timer 0:10', seconds: sum([10]), rate: 95 },
    { description: 'Wartung (5 Einträge)', seconds: sum([601, 1578, 2555, 3532, 4400]), rate: 12.34 },
    { description: 'Beratung (3 Einträge)', seconds: sum([5399, 61, 2701]), rate: 120.5 },
  ];
};

/** The matrix: every tax situation and shape the documents must carry, each a stored invoice. */
export function matrix(): Record<string, DocumentSource> {
  const long = Array.from({ length: 500 }, (_, n) => ({
    description:
      n % 7 === 0
        ? `2026-10-${String((n % 28) + 1).padStart(2, '0')} Entwicklung der Schnittstelle <API> & Tests für Größenänderungen, Fehlerbehebung im Überweisungs-Export, Abstimmung mit dem Team (Ticket #${1000 + n})`
        : `2026-10-${String((n % 28) + 1).padStart(2, '0')} Implementierung Modul ${n + 1}`,
    seconds: 900 + ((n * 337) % 14400),
    rate: 95,
  }));
  return {
    'standard-19': invoice({ lines: two, note: 'Thank you for the order <№ 17> & the kind cooperation.' }),
    // Rounded per entry (issue 56 item 4): up to 15 minutes (hours print with two decimals) and to the nearest 5 (they cannot).
    'rounded-up-15-de': invoice({ lines: roundedLines('up-15'), language: 'de' }),
    'rounded-nearest-5': invoice({ lines: roundedLines('nearest-5') }),
    'reduced-7': invoice({
      lines: [{ description: 'Schulung Barrierefreiheit (ermäßigter Satz)', seconds: 6 * 3600, rate: 80 }],
      taxRate: 7,
      language: 'de',
    }),
    'two-rates': invoice({
      lines: [
        { description: 'Beratung', seconds: 7200, rate: 100, taxRate: 19 },
        { description: 'Lehrgang', seconds: 5400, rate: 60, taxRate: 7 },
      ],
      language: 'de',
    }),
    'reverse-charge-ae': invoice({
      lines: two,
      category: 'AE',
      taxRate: 0,
      exemptionReason: 'Reverse charge: the recipient is liable for the VAT (Art. 196 VAT Directive).',
      exemptionReasonCode: 'VATEX-EU-AE',
      recipient: recipient({
        legalName: 'Österreicher & Partner GmbH',
        name: 'Österreicher',
        addressLines: ['Mariahilfer Straße 12'],
        postalCode: '1070',
        city: 'Wien',
        country: 'AT',
        vatId: 'ATU13585627',
      }),
    }),
    'intra-community-k': invoice({
      lines: two,
      category: 'K',
      taxRate: 0,
      recipient: recipient({
        legalName: 'Société Générale d’Études <SGE>',
        name: 'SGE',
        addressLines: ['12 rue de la Paix'],
        postalCode: '75002',
        city: 'Paris',
        country: 'FR',
        vatId: 'FR40303265045',
      }),
    }),
    'export-g': invoice({
      lines: two,
      category: 'G',
      taxRate: 0,
      exemptionReason: 'Export outside the EU',
      recipient: recipient({
        legalName: 'Acme & Co. <Inc.>',
        name: 'Acme',
        addressLines: ['1 Market Street'],
        postalCode: '94105',
        city: 'San Francisco',
        country: 'US',
        vatId: null,
      }),
    }),
    'small-business-e': invoice({
      lines: two,
      category: 'E',
      taxRate: 0,
      exemptionReason: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).',
      issuer: issuer({ vatId: null, smallBusiness: true, legalName: 'Jörg Weiß – Übersetzungen & Lektorat' }),
      language: 'de',
    }),
    'zero-z': invoice({ lines: two, category: 'Z', taxRate: 0 }),
    // Email addresses (EAS scheme EM): fine for XRechnung and Factur-X, not for Peppol.
    'email-addresses': invoice({
      lines: two,
      issuer: issuer({ electronicAddress: 'rechnung@mueller-soehne.example', electronicAddressScheme: 'EM' }),
      recipient: recipient({ electronicAddress: 'einkauf@baeckerei-gross.example', electronicAddressScheme: null }),
    }),
    'not-subject-o': invoice({ lines: two, category: 'O', taxRate: 0, exemptionReason: 'Not subject to VAT' }),
    'credit-note': invoice({ lines: two, status: 'void', creditNote: { number: '2026-0043', issueDate: '2026-11-05' } }),
    'credit-note-de': invoice({ lines: two, status: 'void', creditNote: { number: '2026-0043', issueDate: '2026-11-05' }, language: 'de' }),
    paid: invoice({ lines: two, status: 'paid' }),
    // Issue 57: a payment of a part recorded; a later document states it (BT-113) and what is still due (BT-115).
    'partly-paid': invoice({ lines: two, paidCents: 50_000 }),
    'partly-paid-de': invoice({ lines: two, paidCents: 123_456, language: 'de' }),
    // Issue 57 item 4: an early-payment discount (Skonto), in words, and in XRechnung's BT-20 form.
    skonto: invoice({ lines: two, earlyPayment: { percent: 2, days: 10 } }),
    'skonto-de': invoice({ lines: two, earlyPayment: { percent: 2.5, days: 10 }, language: 'de' }),
    '500-lines': invoice({ lines: long, language: 'de' }),
    // A § 19 small business with a tax number only, identified by the supplier number its client gave it (BT-29, no scheme).
    'small-business-tax-number': invoice({
      lines: two,
      category: 'E',
      taxRate: 0,
      exemptionReason: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).',
      issuer: issuer({
        legalName: 'Jörg Weiß',
        vatId: null,
        registrationNumber: null,
        smallBusiness: true,
        sellerIdentifier: 'K-100234',
        invoiceFooter: null,
        electronicAddress: 'rechnung@joerg-weiss.example',
        electronicAddressScheme: 'EM',
      }),
      recipient: recipient({ electronicAddress: 'einkauf@baeckerei-gross.example', electronicAddressScheme: 'EM' }),
      language: 'de',
    }),
    // A freelancer without VAT id charging VAT on the tax number (BR-S-02), identified by a GLN (BT-29, scheme 0088).
    'freelancer-tax-number-gln': invoice({
      lines: two,
      issuer: issuer({
        legalName: 'Ada Lovelace Design',
        vatId: null,
        registrationNumber: null,
        sellerIdentifier: '4260123456788',
        sellerIdentifierScheme: '0088',
        invoiceFooter: null,
        electronicAddress: '4260123456788',
        electronicAddressScheme: '0088',
      }),
    }),
    // Services to a business outside the EU: not taxable here (O), so no VAT id in the XML (BR-O-02); a D-U-N-S number identifies the seller.
    'not-subject-o-identifier': invoice({
      lines: two,
      category: 'O',
      taxRate: 0,
      exemptionReason: 'Not subject to German VAT: place of supply outside Germany (§ 3a (2) UStG, Art. 44 VAT Directive)',
      exemptionReasonCode: 'VATEX-EU-O',
      issuer: issuer({ registrationNumber: null, sellerIdentifier: '314159265', sellerIdentifierScheme: '0060' }),
      recipient: recipient({
        legalName: 'Northwind Traders Inc.',
        name: 'Northwind',
        addressLines: ['500 Fifth Avenue'],
        postalCode: '10110',
        city: 'New York',
        country: 'US',
        vatId: null,
        electronicAddress: '987654321',
        electronicAddressScheme: '0060',
      }),
    }),
    // The longest legal name a profile takes, a register entry and a long footer: the footer wraps, never cuts.
    'long-legal-name': invoice({
      lines: long.slice(0, 80),
      issuer: issuer({
        legalName:
          'Müller & Söhne Beratungsgesellschaft für Informationstechnik, Datenschutz und digitale Barrierefreiheit mit beschränkter Haftung & Co. Kommanditgesellschaft auf Aktien',
        registrationNumber: 'Amtsgericht Charlottenburg (Berlin) HRB 123456 B',
        invoiceFooter:
          'Persönlich haftende Gesellschafterin: Müller & Söhne Verwaltungs-GmbH, Sitz Berlin, Amtsgericht Charlottenburg HRB 654321 B · Geschäftsführer: Jörg Weiß, Dr. Anna-Lena Schmidt-Överhaus · Vorsitzende des Aufsichtsrats: Prof. Dr. Beate Groß',
      }),
      language: 'de',
    }),
    // A German GmbH (§ 35a GmbHG): its seat, register court and number and its managing directors in the footer.
    'gmbh-de': gmbh(two),
    // German VAT on an invoice in Swiss francs: the VAT total in euros too (Art. 230 VAT Directive; BT-6, BT-111).
    'foreign-currency-vat': invoice({ lines: two, currency: 'CHF', exchange: { currency: 'EUR', rate: 1.0634 } }),
    // Reverse charge in francs, stored with a rate as issuing took one before (issue 56 item 10): no VAT to state in euros.
    'foreign-currency-no-vat': invoice({
      lines: two,
      currency: 'CHF',
      category: 'AE',
      taxRate: 0,
      exemptionReasonCode: 'VATEX-EU-AE',
      recipient: recipient({ country: 'AT', city: 'Wien', postalCode: '1010', vatId: 'ATU13585627' }),
      exchange: { currency: 'EUR', rate: 1.0634 },
    }),
    'currency-chf': invoice({
      lines: two,
      currency: 'CHF',
      taxRate: 8.1,
      issuer: issuer({
        legalName: 'Zürcher Büro für Gestaltung AG',
        addressLines: ['Bahnhofstrasse 1'],
        postalCode: '8001',
        city: 'Zürich',
        country: 'CH',
        vatId: 'CHE100155212',
        taxNumber: null,
        iban: 'CH9300762011623852957',
        bic: 'UBSWCHZH80A',
      }),
      recipient: recipient({
        legalName: 'Genève & Lausanne SA',
        name: 'G&L',
        addressLines: ['Rue du Rhône 8'],
        postalCode: '1204',
        city: 'Genève',
        country: 'CH',
        vatId: 'CHE116281710',
      }),
    }),
    // A § 19 small business with a tax number only (issue 56 item 2): no BT-29/BT-30/BT-31, so a plain PDF/A without XML; no e-invoice.
    'small-business-plain': invoice({ ...PLAIN, lines: two }),
    'credit-note-small-business-plain': invoice({
      ...PLAIN,
      lines: two,
      status: 'void',
      creditNote: { number: '2026-0043', issueDate: '2026-11-05' },
    }),
  };
}

/** A § 19 small business with a tax number only, in German: its invoices have a plain PDF (issue 56 item 2). */
const PLAIN: Omit<InvoiceSpec, 'lines'> = {
  category: 'E',
  taxRate: 0,
  exemptionReason: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).',
  issuer: issuer({
    legalName: 'Jörg Weiß – Übersetzungen & Lektorat',
    vatId: null,
    registrationNumber: null,
    sellerIdentifier: null,
    smallBusiness: true,
    invoiceFooter: null,
    electronicAddress: null,
    electronicAddressScheme: null,
  }),
  language: 'de',
};

/** The invoices of the matrix whose PDF is plain (no XML), so which have no e-invoice. */
export const PLAIN_PDF = ['small-business-plain', 'credit-note-small-business-plain'];

export const DRAFT = (): InvoiceDocument => invoice({ lines: two, status: 'draft' });

/** The issuer of a German GmbH: every value § 35a GmbHG asks of its invoices, and no footer text of its own. */
export const gmbhIssuer = (): IssuerParty =>
  issuer({
    legalName: 'Nordlicht Software GmbH',
    addressLines: ['Torstraße 5'],
    postalCode: '10119',
    registrationNumber: 'HRB 245678 B',
    registerCourt: 'Amtsgericht Charlottenburg',
    seat: 'Berlin',
    managingDirectors: 'Jörg Weiß, Dr. Anna-Lena Schmidt',
    invoiceFooter: null,
    accountHolder: 'Nordlicht Software GmbH',
  });

/** A German GmbH's invoice of the lines given (19 %). */
export const gmbh = (lines: LineSpec[]): InvoiceDocument => invoice({ lines, issuer: gmbhIssuer(), language: 'de' });
