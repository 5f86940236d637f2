import { DomainError } from '../../errors.js';
import { type Key, words } from '../../i18n/index.js';
import { requireSafeText } from '../../kernel/input.js';
import { productCents } from '../../kernel/money.js';
import { type OwnTax, parseOwnTax } from '../../kernel/tax.js';
import type { DocumentLanguage, ManualLine } from './document.js';

/*
 * Manual lines (decisions §12): what a draft bills that is not time: a description, a quantity in
 * a unit (its UN/ECE Recommendation 20 code, which the e-invoices carry as BT-130), a unit price
 * and a tax of its own (S with its rate, Z) or the invoice's. Its net is quantity × unit price
 * rounded once, half away from zero, to the cent. Pure.
 */

/** A unit a manual line may be counted in: its UN/ECE Rec 20 code, the words a person types, and its printed symbol per language. */
export interface LineUnit {
  code: string;
  /** What `--unit` and the form also take for it (lower case). */
  aliases: readonly string[];
  /** The unit as the PDF prints it after the quantity. */
  symbol: Record<DocumentLanguage, string>;
  /** The unit as the form's choice names it. */
  name: string;
}

/** A unit: its code, its name's word, the words typed for it, its symbol in every language (one string: the same in each) or per language (en, de, fr, nl). */
const unit = (
  code: string,
  word: string,
  aliases: readonly string[],
  symbol: string | readonly [string, string, string, string],
): LineUnit => {
  const [en, de, fr, nl] = typeof symbol === 'string' ? [symbol, symbol, symbol, symbol] : symbol;
  return { code, aliases, symbol: { en, de, fr, nl }, name: `${word} (${code})` };
};

/** The units of the Rec 20 code list a freelancer bills in (every code is in the list EN 16931's BR-CL-23 checks). */
export const LINE_UNITS: readonly LineUnit[] = [
  unit('C62', 'piece', ['piece', 'pieces', 'pcs', 'pc', 'unit', 'units', 'stk'], ['pcs', 'Stk.', 'pce', 'st.']),
  unit('LS', 'lump sum', ['lump sum', 'lumpsum', 'flat', 'flat rate', 'pauschal'], ['flat', 'pausch.', 'forfait', 'forfait']),
  unit('HUR', 'hour', ['hour', 'hours', 'h', 'std'], ['h', 'Std.', 'h', 'u']),
  unit('DAY', 'day', ['day', 'days', 'd', 'tag', 'tage'], ['days', 'Tage', 'jours', 'dagen']),
  unit('WEE', 'week', ['week', 'weeks', 'wk'], ['wk', 'Wo.', 'sem.', 'wk']),
  unit('MON', 'month', ['month', 'months', 'mo'], ['mo', 'Mon.', 'mois', 'mnd']),
  unit('ANN', 'year', ['year', 'years', 'yr'], ['yr', 'Jahr', 'an', 'jr']),
  unit('KMT', 'kilometre', ['km', 'kilometre', 'kilometres', 'kilometer', 'kilometers'], 'km'),
  unit('PG', 'page', ['page', 'pages', 'seite', 'seiten'], ['pages', 'Seiten', 'pages', "pagina's"]),
  unit('KGM', 'kilogram', ['kg', 'kilogram', 'kilograms'], 'kg'),
  unit('MTR', 'metre', ['m', 'metre', 'metres', 'meter', 'meters'], 'm'),
  unit('LTR', 'litre', ['l', 'litre', 'litres', 'liter', 'liters'], 'l'),
];

/** A unit by its code or a word for it (case-insensitive), or undefined. */
export const lineUnitOf = (given: string): LineUnit | undefined => {
  const text = given.trim().toLowerCase();
  return LINE_UNITS.find((u) => u.code.toLowerCase() === text || u.aliases.includes(text));
};

/** A line of time's unit: hours (BT-130 `HUR`). */
export const HOURS = LINE_UNITS.find((u) => u.code === 'HUR') as LineUnit;

/** The most a manual line's quantity and unit price may be (a typo of a few zeros is refused, not billed). */
const MAX_QUANTITY = 1_000_000;
const MAX_PRICE = 100_000_000;

/** What a form or a command gave for a manual line. */
export interface ManualLineInput {
  description?: unknown;
  quantity?: unknown;
  unit?: unknown;
  unitPrice?: unknown;
  /** Blank: the invoice's own tax; `S` with `taxRate`; `Z`. */
  taxCategory?: unknown;
  taxRate?: unknown;
}

/** A checked manual line: what it bills and its own tax (null: the invoice's). */
export interface CheckedManualLine {
  description: string;
  manual: ManualLine;
  tax: OwnTax | null;
}

/** A manual line's refusals for people, by key (a page says them in its reader's language; the API keeps the message). */
const PEOPLE = {
  description: 'invoicing.refused.manual.description',
  descriptionLong: 'invoicing.refused.manual.descriptionLong',
  quantity: 'invoicing.refused.manual.quantity',
  unit: 'invoicing.refused.manual.unit',
  unitPrice: 'invoicing.refused.manual.unitPrice',
} as const satisfies Record<string, Key>;

const refuse = (field: string, text: string, people: keyof typeof PEOPLE) =>
  new DomainError('invalid', text, { field, words: words(PEOPLE[people]) });

/** A decimal as typed (a comma or a point) with at most `places` decimals, above 0 (or at 0 when `zero`), at most `max`; NaN when not. */
function decimalIn(value: unknown, places: number, max: number, zero: boolean): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().replace(',', '.') : '';
  if (!new RegExp(`^\\d{1,9}(\\.\\d{1,${places}})?$`).test(text)) return Number.NaN;
  const n = Number(text);
  return (zero ? n >= 0 : n > 0) && n <= max ? n : Number.NaN;
}

/** Checks a manual line, each refusal at its field (`description`, `quantity`, `unit`, `unitPrice`, `taxCategory`, `taxRate`) saying what to give. */
export function checkManualLine(input: ManualLineInput): CheckedManualLine {
  const description = typeof input.description === 'string' ? input.description.trim() : '';
  if (description === '')
    throw refuse('description', 'description is required: what the line bills, as the client reads it.', 'description');
  if (description.length > 500)
    throw refuse('description', `description must be at most 500 characters (got ${description.length}).`, 'descriptionLong');
  requireSafeText(description, 'description', 'description');
  const quantity = decimalIn(input.quantity, 4, MAX_QUANTITY, false);
  if (Number.isNaN(quantity))
    throw refuse(
      'quantity',
      `quantity must be a number above 0 and at most ${MAX_QUANTITY.toLocaleString('en')} with at most 4 decimals, such as 1, 2.5 or 0,75 (got ${JSON.stringify(input.quantity ?? null)}).`,
      'quantity',
    );
  const unitText = typeof input.unit === 'string' ? input.unit : '';
  const unit = unitText.trim() === '' ? LINE_UNITS[0] : lineUnitOf(unitText);
  if (!unit)
    throw refuse(
      'unit',
      `unit must be one of ${LINE_UNITS.map((u) => `${u.code} (${u.aliases[0] as string})`).join(', ')}: a UN/ECE Recommendation 20 code or its word (got ${JSON.stringify(input.unit)}).`,
      'unit',
    );
  const unitPrice = decimalIn(input.unitPrice, 4, MAX_PRICE, true);
  if (Number.isNaN(unitPrice))
    throw refuse(
      'unitPrice',
      `unitPrice must be a net price per unit of 0 or more, at most ${MAX_PRICE.toLocaleString('en')}, with at most 4 decimals, such as 250 or 0.30 (got ${JSON.stringify(input.unitPrice ?? null)}).`,
      'unitPrice',
    );
  const tax = parseOwnTax(input.taxCategory, input.taxRate);
  return { description, manual: { quantity, unit: unit.code, unitPrice }, tax };
}

/** A manual line's net in cents: quantity × unit price, rounded once, half away from zero, to the cent (exact decimals). */
export function manualAmountCents(line: ManualLine): number {
  return productCents(line.quantity, line.unitPrice);
}

/** A manual line's unit as the PDF prints it in a language (its code when unknown). */
export const unitSymbol = (code: string, language: DocumentLanguage): string =>
  LINE_UNITS.find((u) => u.code === code)?.symbol[language] ?? code;
