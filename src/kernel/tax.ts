import { DomainError } from '../errors.js';

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
      { field: what },
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
      { field: what },
    );
  return code;
}
