import type { components } from '../../../generated/openapi.js';
import { DomainError } from '../../errors.js';
import { type Key, words } from '../../i18n/index.js';
import { checkBic, checkIban, checkParticipantId, checkVatId } from '../../kernel/identifiers.js';
import { requireSafeValue } from '../../kernel/input.js';
import { requireTaxCategory, requireVatexCode } from '../../kernel/tax.js';
import type { InvoiceDocumentLine } from './document.js';
import { breakdown } from './tax.js';

type Schemas = components['schemas'];

/*
 * The fields of invoice parties and e-invoice fills, and how a text value given for one is read
 * (the CLI's `--set field=value`). Pure: no database.
 */

/** How a text value given for a field is read (a blank value is null for every kind). */
export type Kind =
  | 'text'
  | 'lines'
  | 'country'
  | 'email'
  | 'days'
  | 'boolean'
  | 'percent'
  | 'category'
  | 'vatex'
  | 'iban'
  | 'bic'
  | 'vatId'
  | 'icd'
  | 'currency';
export type Fields = Record<string, Kind>;

/** The fields an issuer and a recipient both have, in the order both list them: where the party is, its tax id and email. */
const PARTY_FIELDS = {
  addressLines: 'lines',
  postalCode: 'text',
  city: 'text',
  country: 'country',
  taxId: 'text',
  email: 'email',
} as const;

export const ISSUER_FIELDS = {
  legalName: 'text',
  ...PARTY_FIELDS,
  phone: 'text',
  website: 'text',
  paymentDetails: 'text',
  paymentTermsDays: 'days',
  invoiceFooter: 'text',
  vatId: 'vatId',
  taxNumber: 'text',
  registrationNumber: 'text',
  registerCourt: 'text',
  seat: 'text',
  managingDirectors: 'text',
  sellerIdentifier: 'text',
  sellerIdentifierScheme: 'icd',
  contactName: 'text',
  electronicAddress: 'text',
  electronicAddressScheme: 'text',
  iban: 'iban',
  bic: 'bic',
  bankName: 'text',
  accountHolder: 'text',
  smallBusiness: 'boolean',
  vatCurrency: 'currency',
} as const satisfies Record<keyof Schemas['IssuerParty'], Kind>;

export const RECIPIENT_FIELDS = {
  name: 'text',
  legalName: 'text',
  ...PARTY_FIELDS,
  reference: 'text',
  vatId: 'vatId',
  electronicAddress: 'text',
  electronicAddressScheme: 'text',
} as const satisfies Record<keyof Schemas['RecipientParty'], Kind>;

const FILLABLE =
  'issuer.<field>, recipient.<field>, lines[N].taxCategory, lines[N].taxRate, paymentTerms, taxBreakdown=lines, taxBreakdown[N].exemptionReason, taxBreakdown[N].exemptionReasonCode';

const invalid = (message: string) => new DomainError('invalid', message);

/** What a value of a field must be, by key: the refusal's words say it after the field as written. */
const EXPECTED = {
  lines: 'input.value.lines',
  country: 'input.value.country',
  email: 'input.value.email',
  days: 'input.value.days',
  boolean: 'input.value.boolean',
  percent: 'input.value.percent',
  icd: 'input.value.icd',
  currency: 'input.value.currency',
  text500: 'input.value.text500',
  list: 'input.value.list',
  text: 'input.value.text',
} as const satisfies Record<string, Key>;
type Expected = keyof typeof EXPECTED;
/** A value refused at its field: the message names the field and the value; its words for people by key. */
const badValue = (what: string, value: unknown, expected: string, rule: Expected) =>
  new DomainError('invalid', `${what} must be ${expected} (got ${JSON.stringify(value)}).`, {
    field: what,
    words: words('input.refused.value', { what, got: String(JSON.stringify(value)), expected: EXPECTED[rule] }),
  });

/**
 * The ISO 6523 ICD codes EN 16931 accepts as an identifier's scheme (BR-CL-10, CEN's code list
 * as its rules 1.3.16 carry it): 0002 to 0248 but 0092, 0103, 0181 and 0182.
 */
export function isIcdCode(code: string): boolean {
  if (!/^\d{4}$/.test(code)) return false;
  const n = Number(code);
  return n >= 2 && n <= 248 && ![92, 103, 181, 182].includes(n);
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
/** An ISO 4217 code the runtime knows (EUR, CHF, USD …). */
export const isCurrencyCode = (code: string): boolean => /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
/**
 * Reads a field's text value by its kind; blank is null. Every value first follows the one rule of
 * an invoice's text (src/kernel/input.ts `requireSafeValue`: no control or bidirectional character),
 * whoever gives it: the Workspace page, the command line, an e-invoice fill, an import's restore.
 */
export function parseValue(kind: Kind, raw: string, what: string): unknown {
  const text = raw.trim();
  if (text === '') return null;
  requireSafeValue(text, what, what);
  const bad = (expected: string, rule: Expected) => badValue(what, raw, expected, rule);
  switch (kind) {
    case 'lines': {
      const lines = text
        .split('|')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      if (lines.length > 6 || lines.some((line) => line.length > 200))
        throw bad('at most 6 lines separated by |, each at most 200 characters', 'lines');
      return lines.length === 0 ? null : lines;
    }
    case 'country':
      if (!/^[A-Z]{2}$/.test(text)) throw bad('an ISO 3166-1 alpha-2 code such as DE', 'country');
      return text;
    case 'email':
      if (text.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(text)) throw bad('an email address', 'email');
      return text;
    case 'days':
      if (!/^\d{1,3}$/.test(text) || Number(text) > 365) throw bad('a whole number of days from 0 to 365', 'days');
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw bad('true or false', 'boolean');
      return text === 'true';
    case 'percent':
      if (!/^\d{1,3}(\.\d+)?$/.test(text) || Number(text) > 100) throw bad('a percentage from 0 to 100', 'percent');
      return Number(text);
    case 'category':
      return requireTaxCategory(text, what);
    case 'vatex':
      return requireVatexCode(text, what);
    case 'iban':
      return checkIban(text, what);
    case 'bic':
      return checkBic(text, what);
    case 'vatId':
      return checkVatId(text, what);
    case 'icd':
      if (!isIcdCode(text))
        throw bad(
          'an ISO 6523 ICD code of EN 16931 (four digits, 0002 to 0248, such as 0088 for a GLN or 0060 for a D-U-N-S number)',
          'icd',
        );
      return text;
    case 'currency':
      if (!isCurrencyCode(text)) throw bad('an ISO 4217 currency code such as EUR', 'currency');
      return text;
    case 'text':
      if (text.length > 500) throw bad('at most 500 characters', 'text500');
      return text;
  }
}

/** The issuer fields' types, as the contract's IssuerParty has them; null clears a field. */
export type IssuerProfilePatch = { [K in keyof Schemas['IssuerParty']]?: Schemas['IssuerParty'][K] | null };
export type IssuerField = keyof typeof ISSUER_FIELDS;

/**
 * Checks a typed value of a field by its kind and returns it as stored (trimmed; blank is
 * null), with the same rules and messages as the text forms (parseValue).
 */
export function checkValue(kind: Kind, value: unknown, what: string): unknown {
  if (value === null || value === undefined) return null;
  const bad = (expected: string, rule: Expected) => badValue(what, value, expected, rule);
  switch (kind) {
    case 'lines': {
      if (!Array.isArray(value) || value.some((line) => typeof line !== 'string')) throw bad('a list of lines', 'list');
      return parseValue('lines', (value as string[]).map((line) => line.replace(/\|/g, '/')).join('|'), what);
    }
    case 'days':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 365)
        throw bad('a whole number of days from 0 to 365', 'days');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('true or false', 'boolean');
      return value;
    case 'percent':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100)
        throw bad('a percentage from 0 to 100', 'percent');
      return value;
    default:
      if (typeof value !== 'string') throw bad('text', 'text');
      return parseValue(kind, value, what);
  }
}

/**
 * A party's electronic address checked against its scheme (a Peppol participant identifier:
 * `checkParticipantId`), when the change touched either; `prefix` names the fields as the caller
 * knows them (`issuer.` in a fill). Values stored before the check are not checked again.
 */
export function checkElectronicAddress(party: Record<string, unknown>, touched: Iterable<string>, prefix = ''): void {
  const keys = [...touched];
  if (!keys.some((key) => key === `${prefix}electronicAddress` || key === `${prefix}electronicAddressScheme`)) return;
  const address = party.electronicAddress;
  const scheme = party.electronicAddressScheme;
  if (typeof address !== 'string' || address.trim() === '') return;
  checkParticipantId(address, typeof scheme === 'string' && scheme.trim() !== '' ? scheme : null, {
    address: `${prefix}electronicAddress`,
    scheme: `${prefix}electronicAddressScheme`,
  });
}

/** A party with every field of `fields`; blank, empty and missing values are null. */
export function partyOf<T>(fields: Fields, source: Record<string, unknown>): T {
  const blank = (value: unknown) =>
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0);
  return Object.fromEntries(Object.keys(fields).map((field) => [field, blank(source[field]) ? null : source[field]])) as T;
}

/** The editable parts of an invoice, as a fill sees them. */
export interface Doc {
  issuer: Record<string, unknown> | null;
  recipient: Record<string, unknown> | null;
  lines: Record<string, unknown>[];
  extras: Record<string, unknown>;
}

/** Where a fill path points: the object, the key and how its value is read. */
export function fillSlot(doc: Doc, path: string): { holder: Record<string, unknown>; key: string; kind: Kind } {
  const match =
    /^(?:(issuer|recipient)\.(\w+)|lines\[(\d+)\]\.(taxCategory|taxRate)|(paymentTerms)|taxBreakdown\[(\d+)\]\.(exemptionReason|exemptionReasonCode))$/.exec(
      path,
    );
  const [, party, field, line, lineKey, invoiceKey, row, rowKey] = match ?? [];
  if (party && field) {
    const fields: Fields = party === 'issuer' ? ISSUER_FIELDS : RECIPIENT_FIELDS;
    if (Object.hasOwn(fields, field)) {
      const key = party as 'issuer' | 'recipient';
      const holder = doc[key] ?? partyOf<Record<string, unknown>>(fields, {});
      doc[key] = holder;
      return { holder, key: field, kind: fields[field] as Kind };
    }
  } else if (line !== undefined && lineKey) {
    const holder = doc.lines[Number(line)];
    if (!holder) {
      const lines =
        doc.lines.length === 0
          ? 'no lines'
          : doc.lines.length === 1
            ? 'one line, lines[0]'
            : `${doc.lines.length} lines, lines[0] to lines[${doc.lines.length - 1}]`;
      throw invalid(`${path}: the invoice has ${lines}.`);
    }
    return { holder, key: lineKey, kind: lineKey === 'taxRate' ? 'percent' : 'category' };
  } else if (invoiceKey) {
    return { holder: doc.extras, key: invoiceKey, kind: 'text' };
  } else if (row !== undefined && rowKey) {
    const rows = (doc.extras.taxBreakdown ?? []) as Record<string, unknown>[];
    const holder = rows[Number(row)];
    if (!holder)
      throw invalid(
        `${path}: the invoice has ${rows.length === 0 ? 'no taxBreakdown (fill taxBreakdown=lines first)' : `${rows.length} taxBreakdown rows`}.`,
      );
    return { holder, key: rowKey, kind: rowKey === 'exemptionReasonCode' ? 'vatex' : 'text' };
  }
  throw invalid(
    `${path} cannot be filled: a fill only adds e-invoice values (${FILLABLE}); amounts, quantities, rates, descriptions, totals and the status never change.`,
  );
}

/**
 * Applies a fill to the document: each path must point at a value that is null or absent (else
 * 409), or be one of `replace` (a correction of a value a fill set: fills.ts decides which), and
 * the value given must not be blank. Returns the values set, by path; all or none.
 */
export function applyFill(
  doc: Doc,
  assignments: ReadonlyArray<[path: string, value: string]>,
  replace: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  if (assignments.length === 0) throw invalid('A fill needs at least one path=value.');
  const set: Record<string, unknown> = {};
  // The breakdown is computed from the lines' tax values, so those of the same fill come first.
  const ordered = [...assignments].sort(([a], [b]) => Number(a === 'taxBreakdown') - Number(b === 'taxBreakdown'));
  for (const [path, raw] of ordered) {
    if (path === 'taxBreakdown') {
      set[path] = fillTaxBreakdown(doc, raw);
      continue;
    }
    const { holder, key, kind } = fillSlot(doc, path);
    const current = holder[key];
    if (current !== null && current !== undefined && !replace.has(path)) {
      throw new DomainError(
        'conflict',
        `${path} is already set (${JSON.stringify(current)}); a fill only adds values that are null or absent.`,
        { field: path, people: 'This value is already set; a fill only adds missing values and corrects those it added.' },
      );
    }
    const value = parseValue(kind, raw, path);
    if (value === null)
      throw new DomainError('invalid', `${path}: a fill adds a value; a blank one adds nothing.`, {
        field: path,
        people: 'Type a value, or leave the field as it was.',
      });
    holder[key] = value;
    set[path] = value;
  }
  for (const party of ['issuer', 'recipient'] as const) {
    const holder = doc[party];
    if (holder) checkElectronicAddress(holder, Object.keys(set), `${party}.`);
  }
  return set;
}

/**
 * `taxBreakdown=lines`: one row per tax category and rate of the lines (all of which must have
 * both), its basis the exact sum of those lines' amounts and its tax that basis × rate / 100
 * rounded once, half away from zero, to the cent. Only when the invoice has none yet; it changes
 * no amount. Exemption reasons are filled per row afterwards (taxBreakdown[N].exemptionReason).
 */
function fillTaxBreakdown(doc: Doc, raw: string): unknown[] {
  if (doc.extras.taxBreakdown !== undefined && doc.extras.taxBreakdown !== null) {
    throw new DomainError('conflict', 'taxBreakdown is already set; a fill only adds values that are null or absent.');
  }
  if (raw.trim() !== 'lines')
    throw invalid(
      `taxBreakdown: the only value is "lines" (computed from the lines' taxCategory and taxRate); got ${JSON.stringify(raw)}.`,
    );
  const missing = doc.lines.flatMap((line, i) => (line.taxCategory == null || line.taxRate == null ? [`lines[${i}]`] : []));
  if (doc.lines.length === 0 || missing.length > 0) {
    throw invalid(
      `taxBreakdown: every line needs taxCategory and taxRate first (missing on ${missing.length > 0 ? missing.join(', ') : 'an invoice without lines'}).`,
    );
  }
  const rows = breakdown(doc.lines as unknown as InvoiceDocumentLine[], () => null);
  doc.extras.taxBreakdown = rows;
  return rows;
}
