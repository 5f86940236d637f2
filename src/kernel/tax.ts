import { DomainError } from '../errors.js';
import { words } from '../i18n/index.js';

/*
 * The VAT values an invoice line carries (EN 16931): the category code (UNCL 5305) and, for an
 * exemption, a VATEX code. Written once: the catalog checks a client's override with them, the
 * invoices module its settings and fills.
 */

/** S standard, AE reverse charge, K intra-community, G export, E exempt, Z zero rated, O not subject. */
export const TAX_CATEGORY_CODES = ['S', 'AE', 'K', 'G', 'E', 'Z', 'O'] as const;
export type TaxCategoryCode = (typeof TAX_CATEGORY_CODES)[number];

/** A VATEX code as the CEF code list writes them: `VATEX-EU-AE`, `VATEX-EU-132-1A`, `VATEX-FR-FRANCHISE`. */
const VATEX = /^VATEX-[A-Z]{2}-[A-Z0-9]+(?:-[A-Z0-9]+)*$/;

export const isTaxCategory = (value: unknown): value is TaxCategoryCode =>
  typeof value === 'string' && (TAX_CATEGORY_CODES as readonly string[]).includes(value);

/** A tax category code, or a refusal that lists them (at the field `what`). */
export function requireTaxCategory(value: string, what: string): TaxCategoryCode {
  const code = value.trim();
  if (!isTaxCategory(code))
    throw new DomainError(
      'invalid',
      `${what} must be one of ${TAX_CATEGORY_CODES.join(', ')} (S standard rate, AE reverse charge, K intra-community supply, G export, E exempt, Z zero rated, O not subject to VAT); got ${JSON.stringify(value)}.`,
      { field: what, words: words('input.refused.taxCategory', { what, got: JSON.stringify(value) }) },
    );
  return code;
}

/** A VATEX exemption reason code, or a refusal with an example (at the field `what`). */
export function requireVatexCode(value: string, what: string): string {
  const code = value.trim();
  if (code.length > 40 || !VATEX.test(code))
    throw new DomainError(
      'invalid',
      `${what} must be a VATEX code such as VATEX-EU-AE or VATEX-EU-132 (the CEF VATEX code list, upper case); got ${JSON.stringify(value)}.`,
      { field: what, words: words('input.refused.vatex', { what, got: JSON.stringify(value) }) },
    );
  return code;
}

/**
 * A tax of its own on a project, a task, an expense or a manual line (decisions §12): the standard
 * category at a rate of its own (7 % for a book's text, 19 % for consulting), or zero rated.
 * Exemption, reverse charge, intra-community supply, export and "not subject" are the client's or
 * the workspace's (they need a reason, or they cannot be mixed with other rates: BR-O-11), so a
 * line takes them from there. Null: the invoice's own (the client's, else the workspace's).
 */
export type OwnTax = { category: 'S'; rate: number } | { category: 'Z'; rate: 0 };

/** The categories a project, task, expense or manual line may carry of its own. */
export const OWN_TAX_CATEGORIES = ['S', 'Z'] as const;

/**
 * A tax of its own from what a form, a command or a file gave (blank category: none, the
 * invoice's own): `S` needs a rate above 0 and below 100 with at most 4 decimals (typed as text
 * with a comma or a point, or a number), `Z` takes none or 0. Refusals name the field
 * (`taxCategory`, `taxRate`) and say what to give, in a person's words too.
 */
export function parseOwnTax(category: unknown, rate: unknown): OwnTax | null {
  const code = typeof category === 'string' ? category.trim().toUpperCase() : category === null || category === undefined ? '' : category;
  const rateText =
    typeof rate === 'number' ? String(rate) : typeof rate === 'string' ? rate.trim().replace(',', '.') : rate == null ? '' : null;
  if (code === '') {
    if (rateText !== '')
      throw new DomainError(
        'invalid',
        `taxRate is given with a taxCategory (S with a rate such as 7 or 19); without a category the invoice's own tax applies (got taxRate ${JSON.stringify(rate)}).`,
        {
          field: 'taxCategory',
          people: 'Choose the VAT category for this rate (standard rate), or leave the rate empty to use the invoice’s own VAT.',
          words: words('input.refused.ownTax.rateWithoutCategory'),
        },
      );
    return null;
  }
  if (code === 'Z') {
    if (rateText !== '' && Number(rateText) !== 0)
      throw new DomainError('invalid', `taxCategory Z (zero rated) takes no rate but 0 (got taxRate ${JSON.stringify(rate)}).`, {
        field: 'taxRate',
        people: 'A zero-rated item has no rate: leave the rate empty, or choose the standard rate.',
        words: words('input.refused.ownTax.zeroRate'),
      });
    return { category: 'Z', rate: 0 };
  }
  if (code !== 'S')
    throw new DomainError(
      'invalid',
      `taxCategory of a project, task, expense or line must be S (a rate of its own) or Z (zero rated), or empty for the invoice's own; reverse charge, intra-community supply, export, exempt and not subject are the client's or the workspace's (got ${JSON.stringify(category)}).`,
      {
        field: 'taxCategory',
        people:
          'Choose the standard rate with its percentage, zero rated, or the invoice’s own VAT. Reverse charge, exports and exemptions are set on the client or the workspace.',
        words: words('input.refused.ownTax.category'),
      },
    );
  const value = rateText === null || !/^\d{1,2}(\.\d{1,4})?$/.test(rateText) ? Number.NaN : Number(rateText);
  if (!(value > 0 && value < 100))
    throw new DomainError(
      'invalid',
      `taxCategory S needs taxRate, a percentage above 0 and below 100 with at most 4 decimals, such as 7 or 19 (got ${JSON.stringify(rate ?? null)}).`,
      {
        field: 'taxRate',
        people: 'Give the VAT rate as a percentage such as 7 or 19 (without %).',
        words: words('input.refused.ownTax.rate'),
      },
    );
  return { category: 'S', rate: value };
}

/** An own tax from stored columns (null category: none). */
export const ownTaxOf = (category: string | null | undefined, rate: number | null | undefined): OwnTax | null =>
  category === 'S' && typeof rate === 'number' ? { category: 'S', rate } : category === 'Z' ? { category: 'Z', rate: 0 } : null;

/** An own tax as a person reads it: "7 %", "zero rated". */
export const ownTaxWords = (tax: OwnTax): string => (tax.category === 'Z' ? 'zero rated' : `${tax.rate} % VAT`);
