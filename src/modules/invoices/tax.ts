import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import { fromCents, percentOfCents, toCents } from '../../kernel/money.js';
import { isTaxCategory, type TaxCategoryCode } from '../../kernel/tax.js';
import type { DocumentLanguage, InvoiceDocumentLine, TaxBreakdownRow } from './document.js';
import type { InvoicingSettings } from './settings.js';

/*
 * The tax of an invoice (decisions §11) and the sentences it carries, in its language. Pure.
 */

/** What one invoice's lines carry: the category, the rate and, for a category without VAT, why. */
export interface TaxTreatment {
  category: TaxCategoryCode;
  rate: number;
  exemptionReason: string | null;
  exemptionReasonCode: string | null;
}

/** A client's override (null: the workspace's). */
export interface ClientTax {
  taxCategory: string | null;
  exemptionReason: string | null;
  exemptionReasonCode: string | null;
}

/** The usual reason and VATEX code of the categories without VAT that need one (E has none: it must be set). */
const USUAL: Partial<Record<TaxCategoryCode, { code: string; en: string; de: string }>> = {
  AE: { code: 'VATEX-EU-AE', en: 'Reverse charge', de: 'Steuerschuldnerschaft des Leistungsempfängers' },
  K: { code: 'VATEX-EU-IC', en: 'Intra-community supply', de: 'Innergemeinschaftliche Lieferung' },
  G: { code: 'VATEX-EU-G', en: 'Export outside the EU', de: 'Ausfuhr außerhalb der EU' },
  O: { code: 'VATEX-EU-O', en: 'Not subject to VAT', de: 'Nicht der Umsatzsteuer unterliegend' },
};

/**
 * The treatment of a client's invoice: the client's category when it has one, else E for a small
 * business (smallBusiness in the issuer profile), else the workspace's. S takes the workspace's
 * rate; every other category is 0 %. S and Z carry no exemption reason (EN 16931 forbids one);
 * the others take the client's reason and code, else the workspace's when the category is the
 * workspace's own, else the category's usual one. Refuses what cannot make a valid invoice.
 */
export function treatment(
  settings: InvoicingSettings,
  smallBusiness: boolean,
  client: ClientTax,
  language: DocumentLanguage,
  settingsHint: string,
): TaxTreatment {
  const own: TaxCategoryCode = smallBusiness ? 'E' : settings.taxCategory;
  const category: TaxCategoryCode = isTaxCategory(client.taxCategory) ? client.taxCategory : own;
  if (category === 'S') {
    if (settings.taxRate === null)
      throw new DomainError(
        'invalid',
        `This invoice is taxed at the standard rate (category S), but the workspace has no tax rate: set it in the invoicing settings (${settingsHint} --set taxRate=19, with your rate). A small business that charges no VAT sets smallBusiness=true in the business profile and an exemptionReason; a client taxed otherwise gets its own taxCategory.`,
        {
          people:
            'This invoice is taxed at the standard rate, but the workspace has no VAT rate: set it under Settings › Workspace › Invoicing. A small business that charges no VAT says so in the business profile there and gives the exemption reason; a client taxed otherwise gets its own VAT category in the Catalog.',
        },
      );
    if (settings.taxRate === 0)
      throw new DomainError(
        'invalid',
        `The standard rate (category S) must be above 0 % (the workspace's taxRate is 0): set the rate, or use taxCategory=Z for zero-rated supplies (${settingsHint} --set …).`,
        {
          people:
            "The workspace's standard VAT rate is 0 %: set the rate under Settings › Workspace › Invoicing, or choose Z (zero rated) as the VAT category there or on the client.",
        },
      );
    return { category, rate: settings.taxRate, exemptionReason: null, exemptionReasonCode: null };
  }
  if (category === 'Z') return { category, rate: 0, exemptionReason: null, exemptionReasonCode: null };
  const fromWorkspace = category === own;
  const usual = USUAL[category];
  const exemptionReason = client.exemptionReason ?? (fromWorkspace ? settings.exemptionReason : null) ?? usual?.[language] ?? null;
  const exemptionReasonCode = client.exemptionReasonCode ?? (fromWorkspace ? settings.exemptionReasonCode : null) ?? usual?.code ?? null;
  if (exemptionReason === null && exemptionReasonCode === null)
    throw new DomainError(
      'invalid',
      `An exempt invoice (category E${smallBusiness && !isTaxCategory(client.taxCategory) ? ': smallBusiness is true in the business profile' : ''}) must say why it carries no VAT: set exemptionReason (the sentence printed on it, e.g. "Kleinunternehmer gemäß § 19 UStG") or exemptionReasonCode (a VATEX code) in the invoicing settings (${settingsHint} --set exemptionReason=…), or on the client.`,
      {
        people: `An invoice exempt from VAT${smallBusiness && !isTaxCategory(client.taxCategory) ? ' (a small business, as the business profile says)' : ''} must say why it carries none: give the exemption reason (the sentence printed on it, such as “Kleinunternehmer gemäß § 19 UStG”) or its VATEX code under Settings › Workspace › Invoicing, or on the client in the Catalog.`,
      },
    );
  return { category, rate: 0, exemptionReason, exemptionReasonCode };
}

/**
 * One row per (category, rate) of the lines: its basis the exact sum of those lines' amounts, its
 * tax that basis × rate / 100 rounded once, half away from zero, to the cent.
 */
export function breakdown(
  lines: ReadonlyArray<InvoiceDocumentLine>,
  reasons: (category: string) => TaxTreatment | null,
): TaxBreakdownRow[] {
  const groups = new Map<string, { category: string; rate: number; cents: number }>();
  for (const line of lines) {
    const category = line.taxCategory as string;
    const rate = line.taxRate as number;
    const key = `${category} ${rate}`;
    const group = groups.get(key) ?? { category, rate, cents: 0 };
    group.cents += toCents(line.amount);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => (a.category < b.category ? -1 : a.category > b.category ? 1 : a.rate - b.rate))
    .map((g) => ({
      category: g.category,
      rate: g.rate,
      basisAmount: fromCents(g.cents),
      taxAmount: fromCents(percentOfCents(g.cents, g.rate)),
      exemptionReason: reasons(g.category)?.exemptionReason ?? null,
      exemptionReasonCode: reasons(g.category)?.exemptionReasonCode ?? null,
    }));
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A calendar day as the language writes it: 16 November 2026, 16.11.2026. */
export function longDate(day: string, language: DocumentLanguage): string {
  const [y, m, d] = day.split('-') as [string, string, string];
  return language === 'de' ? `${d}.${m}.${y}` : `${Number(d)} ${MONTHS[Number(m) - 1]} ${y}`;
}

/** The day `days` after `day` (YYYY-MM-DD). */
export const addDays = (day: string, days: number): string => DateTime.fromISO(day, { zone: 'UTC' }).plus({ days }).toISODate() as string;

/** The due sentence of an invoice issued with these terms. */
export function paymentTerms(days: number, dueDate: string, language: DocumentLanguage): string {
  const due = longDate(dueDate, language);
  if (language === 'de')
    return days === 0 ? `Zahlbar sofort (${due}).` : `Zahlbar innerhalb von ${days} ${days === 1 ? 'Tag' : 'Tagen'} bis zum ${due}.`;
  return days === 0 ? `Due on receipt (${due}).` : `Payable within ${days} ${days === 1 ? 'day' : 'days'}, by ${due}.`;
}

/** The one line of a `single` invoice: the service period. */
export function periodDescription(from: string, to: string, language: DocumentLanguage): string {
  return language === 'de'
    ? `Leistungen vom ${longDate(from, 'de')} bis ${longDate(to, 'de')}`
    : `Services from ${longDate(from, 'en')} to ${longDate(to, 'en')}`;
}
