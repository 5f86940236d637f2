import { DomainError } from '../../errors.js';
import { type Words, words } from '../../i18n/index.js';
import { fromCents, timesCents, toCents } from '../../kernel/money.js';
import type { InvoiceDocument } from './document.js';

/*
 * The VAT accounting currency (decisions 11a, "Foreign currency"): an invoice in another currency
 * than the one its issuer accounts for VAT in states its VAT total in that currency too (VAT
 * Directive 2006/112/EC art. 230: "the amount of VAT payable … expressed in the national currency
 * of the Member State"; EN 16931 BT-6 and BT-111), converted at an exchange rate the owner gives
 * when issuing it (in Germany § 16 Abs. 6 UStG: the monthly average rate the Federal Ministry of
 * Finance publishes, or the day's rate with the tax office's consent). Pure.
 */

/** The national currency of each EU member state: the euro area's EUR (Bulgaria's since 1 January 2026), the others their own. */
const EU_CURRENCIES: Record<string, string> = {
  AT: 'EUR',
  BE: 'EUR',
  BG: 'EUR',
  CY: 'EUR',
  DE: 'EUR',
  EE: 'EUR',
  ES: 'EUR',
  FI: 'EUR',
  FR: 'EUR',
  GR: 'EUR',
  HR: 'EUR',
  IE: 'EUR',
  IT: 'EUR',
  LT: 'EUR',
  LU: 'EUR',
  LV: 'EUR',
  MT: 'EUR',
  NL: 'EUR',
  PT: 'EUR',
  SI: 'EUR',
  SK: 'EUR',
  CZ: 'CZK',
  DK: 'DKK',
  HU: 'HUF',
  PL: 'PLN',
  RO: 'RON',
  SE: 'SEK',
};

type Issuer = { vatCurrency?: string | null; country?: string | null } | null | undefined;

/**
 * The issuer's VAT accounting currency: its `vatCurrency`, else the national currency of an
 * issuer in the EU (EUR in the euro area); null for an issuer elsewhere without one (its invoices
 * state VAT in their own currency only).
 */
export function vatCurrencyOf(issuer: Issuer): string | null {
  const given = issuer?.vatCurrency?.trim();
  if (given) return given;
  return EU_CURRENCIES[issuer?.country?.trim().toUpperCase() ?? ''] ?? null;
}

/** The VAT currency an invoice must also state its VAT in, or null when it is its own currency (or the issuer has none). */
export function otherVatCurrency(invoice: Pick<InvoiceDocument, 'issuer' | 'currency'>): string | null {
  const vat = vatCurrencyOf(invoice.issuer);
  return vat !== null && vat !== invoice.currency ? vat : null;
}

/**
 * Whether issuing the invoice asks for an exchange rate: it is in another currency than its
 * issuer's VAT currency and states VAT (issue 56 item 10: an invoice that carries none, reverse
 * charge, an export, a small business, has no VAT to state in another currency, art. 230). A
 * draft whose lines still lack their rate may carry VAT once issued: asked too.
 */
export function asksExchangeRate(invoice: Pick<InvoiceDocument, 'issuer' | 'currency' | 'taxTotal' | 'lines'>): string | null {
  const vat = otherVatCurrency(invoice);
  if (vat === null) return null;
  const unrated = invoice.lines.some((line) => line.taxRate === undefined && line.taxCategory !== 'O');
  return invoice.taxTotal !== 0 || unrated ? vat : null;
}

/** A refusal of the exchange rate given (or of giving one), at its field, with its words for people. */
const refusedRate = (message: string, said: Words) => new DomainError('invalid', message, { field: 'exchangeRate', words: said });

/** An exchange rate as given on the command line or the page: a positive decimal (a decimal comma is taken too: 1,0634). */
export function parseExchangeRate(raw: string): number {
  const text = raw.trim().replace(/^(\d+),(\d+)$/, '$1.$2');
  if (!/^\d{1,9}(\.\d{1,10})?$/.test(text) || Number(text) <= 0)
    throw new DomainError('invalid', `The exchange rate must be a positive decimal such as 1.0634 (got ${JSON.stringify(raw)}).`, {
      field: 'exchangeRate',
      words: words('invoicing.refused.currency.rateFormat', { given: JSON.stringify(raw) }),
    });
  return Number(text);
}

/**
 * What issuing writes (`extras.vatCurrency`), or null when the invoice states VAT in its own
 * currency or carries none (no VAT payable: nothing to state in another currency, art. 230).
 * Refuses a missing rate where one is needed, and a rate where none is.
 */
export function vatCurrencyAtIssue(
  invoice: Pick<InvoiceDocument, 'issuer' | 'currency'>,
  taxCents: number,
  exchangeRate: number | undefined,
  where: { page: string; command: string },
): InvoiceDocument['vatCurrency'] | null {
  const vat = otherVatCurrency(invoice);
  if (vat === null) {
    if (exchangeRate === undefined) return null;
    throw refusedRate(
      `This invoice is in ${invoice.currency}, the currency its issuer accounts for VAT in${vatCurrencyOf(invoice.issuer) === null ? ' (none is set: vatCurrency in the business profile)' : ''}: it takes no exchange rate. Issue it without one.`,
      words('invoicing.refused.currency.ownCurrency', { currency: invoice.currency }),
    );
  }
  if (taxCents === 0) {
    if (exchangeRate === undefined) return null;
    throw refusedRate(
      `This invoice carries no VAT, so it states none in ${vat} either: it takes no exchange rate. Issue it without one.`,
      words('invoicing.refused.currency.noVat', { vat }),
    );
  }
  if (exchangeRate === undefined)
    throw refusedRate(
      `This invoice is in ${invoice.currency} but its issuer accounts for VAT in ${vat}: it states its VAT in ${vat} too (BT-111, VAT Directive art. 230), so issuing it needs the exchange rate of the issue date, how many ${vat} one ${invoice.currency} is worth (in Germany the monthly rate the Federal Ministry of Finance publishes, § 16 Abs. 6 UStG). Give it ${where.page}, or ${where.command}.`,
      words('invoicing.refused.currency.rateNeeded', { currency: invoice.currency, vat }),
    );
  if (!(exchangeRate > 0) || !Number.isFinite(exchangeRate))
    throw new DomainError('invalid', `The exchange rate must be a positive number (got ${exchangeRate}).`, {
      field: 'exchangeRate',
      words: words('invoicing.refused.currency.rateFormat', { given: String(exchangeRate) }),
    });
  return { currency: vat, exchangeRate, taxTotal: fromCents(timesCents(taxCents, exchangeRate)) };
}

/** What issuing the stored draft `row` adds to its extras: `{vatCurrency}` or nothing (its issuer as stored, its VAT from its breakdown). */
export function vatCurrencyOfIssue(
  row: { id: string; currency: string; extras: string },
  issuer: unknown,
  exchangeRate: number | undefined,
): { vatCurrency?: InvoiceDocument['vatCurrency'] } {
  const stored = JSON.parse(row.extras) as { taxBreakdown?: Array<{ taxAmount: number }> };
  const taxCents = (stored.taxBreakdown ?? []).reduce((sum, r) => sum + toCents(r.taxAmount), 0);
  const vatCurrency = vatCurrencyAtIssue({ issuer: issuer as InvoiceDocument['issuer'], currency: row.currency }, taxCents, exchangeRate, {
    page: "in the Issue form's exchange rate",
    command: `timetrack invoice status ${row.id} --to sent --exchange-rate R`,
  });
  return vatCurrency ? { vatCurrency } : {};
}
