import fc from 'fast-check';
import { otherVatCurrency } from '../../src/modules/invoices/currency.js';
import type { InvoiceDocument } from '../../src/modules/invoices/document.js';
import { invoice, issuer, recipient, type LineSpec } from './fixtures.js';

/**
 * Random issuer / client / tax combinations for the property "each document is either refused
 * naming BT numbers, or passes every rule set it claims" (rules.test.ts). Each combination is a
 * stored invoice as the lifecycle makes it (fixtures.invoice computes every amount), with the
 * values the profile, the client's details and the settings accept: what a user can set up.
 */

/** A seller identifier as a profile may hold one: none, a supplier number, a GLN (good or bad check digit), a D-U-N-S number. */
const sellerIdentifiers = [
  null,
  { sellerIdentifier: 'K-100234', sellerIdentifierScheme: null },
  { sellerIdentifier: '4260123456788', sellerIdentifierScheme: '0088' },
  { sellerIdentifier: '4260123456780', sellerIdentifierScheme: '0088' },
  { sellerIdentifier: '314159265', sellerIdentifierScheme: '0060' },
] as const;

/** Electronic addresses as the forms take them: none, an email (EM), a VAT id (9930), a GLN (0088), a Leitweg-ID (0204). */
const addresses = [
  { electronicAddress: null, electronicAddressScheme: null },
  { electronicAddress: 'rechnung@example.org', electronicAddressScheme: 'EM' },
  { electronicAddress: 'DE136695976', electronicAddressScheme: '9930' },
  { electronicAddress: '4260123456788', electronicAddressScheme: '0088' },
  { electronicAddress: '04011000-12345-03', electronicAddressScheme: '0204' },
] as const;

/** Where a party is, with a VAT id of that country. */
const places = {
  DE: { addressLines: ['Hauptstraße 5'], postalCode: '10115', city: 'Berlin', country: 'DE', vatId: 'DE136695976' },
  AT: { addressLines: ['Mariahilfer Straße 12'], postalCode: '1070', city: 'Wien', country: 'AT', vatId: 'ATU13585627' },
  FR: { addressLines: ['12 rue de la Paix'], postalCode: '75002', city: 'Paris', country: 'FR', vatId: 'FR40303265045' },
  CH: { addressLines: ['Bahnhofstrasse 1'], postalCode: '8001', city: 'Zürich', country: 'CH', vatId: 'CHE100155212' },
  US: { addressLines: ['1 Market Street'], postalCode: '94105', city: 'San Francisco', country: 'US', vatId: null },
} as const;
type Place = keyof typeof places;

/** The tax situations of docs/invoicing.md, with what the settings accept for each. */
const taxes = fc.oneof(
  fc.record({ category: fc.constant('S'), rate: fc.constantFrom(19, 7, 8.1, 20), reason: fc.constant(null), code: fc.constant(null) }),
  fc.record({ category: fc.constant('Z'), rate: fc.constant(0), reason: fc.constant(null), code: fc.constant(null) }),
  fc.record({
    category: fc.constant('E'),
    rate: fc.constant(0),
    reason: fc.constantFrom('Kleinunternehmer gemäß § 19 UStG', null),
    code: fc.constantFrom('VATEX-EU-132', null),
  }),
  fc.record({
    category: fc.constantFrom('AE', 'K', 'G', 'O'),
    rate: fc.constant(0),
    reason: fc.constantFrom(null, 'See the note'),
    code: fc.constant(null),
  }),
);

const lineSpec: fc.Arbitrary<LineSpec> = fc.record({
  description: fc.constantFrom('Beratung', 'Entwicklung <API> & Tests', 'Größenänderung – Ü', ''),
  seconds: fc.integer({ min: 1, max: 200 * 3600 }),
  // Rates as the catalog takes them: up to two places.
  rate: fc.integer({ min: 1, max: 50_000 }).map((cents) => cents / 100),
});

export interface Combination {
  seller: {
    place: Place;
    legalName: string;
    vatId: boolean;
    taxNumber: boolean;
    registration: boolean;
    identifier: number;
    contact: boolean;
    iban: boolean;
    address: number;
    vatCurrency: string | null;
  };
  buyer: { place: Place | null; legalName: boolean; vatId: boolean; reference: boolean; address: number };
  tax: { category: string; rate: number; reason: string | null; code: string | null };
  currency: string;
  language: 'en' | 'de';
  status: 'sent' | 'paid' | 'credit-note';
  lines: LineSpec[];
}

/** Mostly there: a value a profile usually has, missing one time in five (so both sides of the property are reached). */
const mostly = fc.constantFrom(true, true, true, true, false);
/** An electronic address: mostly a Peppol participant id, sometimes an email or none. */
const address = fc.constantFrom(2, 3, 4, 2, 3, 4, 1, 0);

export const combinations: fc.Arbitrary<Combination> = fc.record({
  seller: fc.record({
    place: fc.constantFrom<Place>('DE', 'DE', 'AT', 'CH'),
    legalName: fc.constantFrom(
      'Ada Lovelace Design',
      'Müller & Söhne <Beratung> GmbH',
      'Ä'.repeat(3) + ' Beratungsgesellschaft '.repeat(10),
    ),
    vatId: mostly,
    taxNumber: fc.boolean(),
    registration: fc.boolean(),
    identifier: fc.integer({ min: 0, max: sellerIdentifiers.length - 1 }),
    contact: mostly,
    iban: mostly,
    address,
    vatCurrency: fc.constantFrom(null, null, 'EUR', 'CHF'),
  }),
  buyer: fc.record({
    place: fc.constantFrom<Place | null>('DE', 'DE', 'AT', 'FR', 'CH', 'US', null),
    legalName: mostly,
    vatId: mostly,
    reference: mostly,
    address,
  }),
  tax: taxes,
  currency: fc.constantFrom('EUR', 'EUR', 'CHF', 'USD'),
  language: fc.constantFrom('en', 'de'),
  status: fc.constantFrom('sent', 'paid', 'credit-note'),
  // One VAT category and rate per invoice: lines of two rates come with the billing issue that
  // makes them (decisions 12); then let each line draw its own `tax` here.
  lines: fc.array(lineSpec, { minLength: 1, maxLength: 4 }),
});

/** The stored invoice of a combination, issued (with the exchange rate issuing asks for), paid, or voided into its credit note. */
export function invoiceOf(c: Combination): InvoiceDocument {
  const s = c.seller;
  const sellerPlace = places[s.place];
  const seller = issuer({
    legalName: s.legalName.trim(),
    ...sellerPlace,
    addressLines: [...sellerPlace.addressLines],
    vatId: s.vatId ? sellerPlace.vatId : null,
    taxNumber: s.taxNumber ? '30/123/45678' : null,
    taxId: null,
    registrationNumber: s.registration ? 'HRB 12345 B' : null,
    ...(sellerIdentifiers[s.identifier] ?? { sellerIdentifier: null, sellerIdentifierScheme: null }),
    contactName: s.contact ? 'Jörg Weiß' : null,
    phone: s.contact ? '+49 30 1234567' : null,
    email: s.contact ? 'rechnung@example.org' : null,
    iban: s.iban ? 'DE89370400440532013000' : null,
    bic: s.iban ? 'COBADEFFXXX' : null,
    ...addresses[s.address],
    vatCurrency: s.vatCurrency,
    smallBusiness: c.tax.category === 'E',
  });
  const b = c.buyer;
  const buyerPlace = b.place === null ? { addressLines: [], postalCode: null, city: null, country: null, vatId: null } : places[b.place];
  const buyer = recipient({
    name: 'Kunde',
    legalName: b.legalName ? 'Kunde & Partner <GmbH>' : null,
    ...buyerPlace,
    addressLines: [...buyerPlace.addressLines],
    vatId: b.vatId ? buyerPlace.vatId : null,
    reference: b.reference ? '04011000-12345-03' : null,
    ...addresses[b.address],
  });
  const vat = otherVatCurrency({ issuer: seller, currency: c.currency });
  return invoice({
    lines: c.lines,
    category: c.tax.category,
    taxRate: c.tax.rate,
    exemptionReason: c.tax.reason,
    exemptionReasonCode: c.tax.code,
    issuer: seller,
    recipient: buyer,
    currency: c.currency,
    language: c.language,
    status: c.status === 'credit-note' ? 'void' : c.status,
    ...(c.status === 'credit-note' ? { creditNote: { number: '2026-0043', issueDate: '2026-11-05' } } : {}),
    // Issuing asks for the rate exactly when the currencies differ (currency.ts); 0.9377 of the VAT currency per unit.
    ...(vat ? { exchange: { currency: vat, rate: 0.9377 } } : {}),
  });
}
