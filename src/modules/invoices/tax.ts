import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import { words } from '../../i18n/index.js';
import { fromCents, percentOfCents, toCents } from '../../kernel/money.js';
import { isTaxCategory, type OwnTax, type TaxCategoryCode } from '../../kernel/tax.js';
import type { DocumentLanguage, InvoiceDocumentLine, TaxBreakdownRow } from './document.js';
import type { InvoicingSettings } from './settings.js';

/*
 * The tax of an invoice (decisions §11) and the sentences it carries, in its language. Pure.
 */

/** What one invoice's lines carry: the category, the rate (null: not set yet) and, for a category without VAT, why. */
export interface TaxTreatment {
  category: TaxCategoryCode;
  /** The percentage; null while the workspace has no rate for S (a draft counts no tax for it; issuing refuses). */
  rate: number | null;
  exemptionReason: string | null;
  exemptionReasonCode: string | null;
  /** The settings the treatment still lacks (decisions 11a: a draft needs none; issuing names them). */
  missing: MissingTaxSetting[];
}

/** A tax setting an invoice cannot be issued without. */
export interface MissingTaxSetting {
  /** The setting's key (the invoicing settings' `--set` key). */
  setting: 'taxRate' | 'exemptionReason';
  /** What is wrong, in a sentence. */
  problem: string;
}

/** A client's override (null: the workspace's). */
export interface ClientTax {
  taxCategory: string | null;
  exemptionReason: string | null;
  exemptionReasonCode: string | null;
}

/** The usual reason and VATEX code of the categories without VAT that need one (E has none: it must be set). */
const USUAL: Partial<Record<TaxCategoryCode, { code: string } & Record<DocumentLanguage, string>>> = {
  AE: {
    code: 'VATEX-EU-AE',
    en: 'Reverse charge',
    de: 'Steuerschuldnerschaft des Leistungsempfängers',
    fr: 'Autoliquidation',
    nl: 'Btw verlegd',
  },
  K: {
    code: 'VATEX-EU-IC',
    en: 'Intra-community supply',
    de: 'Innergemeinschaftliche Lieferung',
    fr: 'Livraison intracommunautaire exonérée',
    nl: 'Intracommunautaire levering',
  },
  G: {
    code: 'VATEX-EU-G',
    en: 'Export outside the EU',
    de: 'Ausfuhr außerhalb der EU',
    fr: 'Exportation hors UE',
    nl: 'Uitvoer buiten de EU',
  },
  O: {
    code: 'VATEX-EU-O',
    en: 'Not subject to VAT',
    de: 'Nicht der Umsatzsteuer unterliegend',
    fr: 'Non soumis à la TVA',
    nl: 'Niet onderworpen aan btw',
  },
};

/** The category of a client's invoice: the client's when it has one, else E for a small business, else the workspace's. */
export function categoryOf(settings: InvoicingSettings, smallBusiness: boolean, client: ClientTax): TaxCategoryCode {
  const own: TaxCategoryCode = smallBusiness ? 'E' : settings.taxCategory;
  return isTaxCategory(client.taxCategory) ? client.taxCategory : own;
}

/**
 * Whether a tax of its own (a project's, a task's, an expense's, a manual line's: decisions §12)
 * applies on a client's invoices: not when the client's category is reverse charge,
 * intra-community supply or export (the client's treatment wins, decisions §12) or not subject
 * to VAT (an `O` invoice holds no other category, BR-O-11), nor for a small business (`E` in the
 * business profile: it charges no VAT on anything).
 */
export function ownTaxApplies(smallBusiness: boolean, client: Pick<ClientTax, 'taxCategory'>): boolean {
  return !smallBusiness && !['AE', 'K', 'G', 'O'].includes(client.taxCategory ?? '');
}

/** A line's category and rate: its own tax when it has one that applies, else the invoice's treatment (no rate while that has none). */
export function lineTax(own: OwnTax | null, base: Pick<TaxTreatment, 'category' | 'rate'>): { taxCategory: string; taxRate?: number } {
  if (own !== null) return { taxCategory: own.category, taxRate: own.rate };
  return { taxCategory: base.category, ...(base.rate === null ? {} : { taxRate: base.rate }) };
}

/**
 * The treatment of a client's invoice in `category` (categoryOf's): S takes the workspace's rate;
 * every other category is 0 %. S and Z carry no exemption reason (EN 16931 forbids one); the
 * others take the client's reason and code, else the workspace's when the category is the
 * workspace's own, else the category's usual one. What is not set yet (S without a rate or at
 * 0 %, E without a reason) is listed in `missing`, not refused: a draft needs no tax settings.
 */
export function treatment(
  settings: InvoicingSettings,
  smallBusiness: boolean,
  client: ClientTax,
  language: DocumentLanguage,
  category: TaxCategoryCode = categoryOf(settings, smallBusiness, client),
): TaxTreatment {
  if (category === 'S') {
    if (settings.taxRate === null || settings.taxRate === 0)
      return {
        category,
        rate: null,
        exemptionReason: null,
        exemptionReasonCode: null,
        missing: [
          {
            setting: 'taxRate',
            problem:
              settings.taxRate === null
                ? 'the workspace has no VAT rate for the standard rate (category S)'
                : "the standard rate (category S) must be above 0 % and the workspace's taxRate is 0 (zero-rated supplies are category Z)",
          },
        ],
      };
    return { category, rate: settings.taxRate, exemptionReason: null, exemptionReasonCode: null, missing: [] };
  }
  if (category === 'Z') return { category, rate: 0, exemptionReason: null, exemptionReasonCode: null, missing: [] };
  const own: TaxCategoryCode = smallBusiness ? 'E' : settings.taxCategory;
  const fromWorkspace = category === own;
  const usual = USUAL[category];
  const exemptionReason = client.exemptionReason ?? (fromWorkspace ? settings.exemptionReason : null) ?? usual?.[language] ?? null;
  const exemptionReasonCode = client.exemptionReasonCode ?? (fromWorkspace ? settings.exemptionReasonCode : null) ?? usual?.code ?? null;
  const missing: MissingTaxSetting[] =
    exemptionReason === null && exemptionReasonCode === null
      ? [
          {
            setting: 'exemptionReason',
            problem: `an exempt invoice (category E${smallBusiness && !isTaxCategory(client.taxCategory) ? ': smallBusiness is true in the business profile' : ''}) must say why it carries no VAT, and neither the workspace nor the client gives an exemptionReason (the sentence printed on it, e.g. "Kleinunternehmer gemäß § 19 UStG") or exemptionReasonCode (a VATEX code)`,
          },
        ]
      : [];
  return { category, rate: 0, exemptionReason, exemptionReasonCode, missing };
}

/**
 * What is missing of an invoice's tax, and where to set it (decisions 11a): each setting in a
 * sentence for the command line (with the commands) and one for people (the pages' words).
 */
export function missingTaxSentences(workspaceId: string, missing: readonly MissingTaxSetting[]): { text: string; people: string } {
  const where = (m: MissingTaxSetting) =>
    m.setting === 'taxRate'
      ? `set taxRate on the Workspace page (Settings › Workspace, Invoicing) or with timetrack workspace invoicing ${workspaceId} --set taxRate=19 (your rate); a small business that charges no VAT sets smallBusiness=true in the business profile and an exemptionReason instead`
      : `set exemptionReason or exemptionReasonCode on the Workspace page (Settings › Workspace, Invoicing) or with timetrack workspace invoicing ${workspaceId} --set exemptionReason=…, or on the client (the Catalog page's Invoicing details)`;
  const unique = [...new Map(missing.map((m) => [`${m.setting} ${m.problem}`, m])).values()];
  return {
    text: unique.map((m) => `${m.setting}: ${m.problem}; ${where(m)}.`).join(' '),
    people: unique
      .map((m) =>
        m.setting === 'taxRate'
          ? 'Set the standard VAT rate under Settings › Workspace › Invoicing (a small business that charges no VAT says so in the business profile there and gives the exemption reason; a client taxed otherwise gets its own VAT category in the Catalog).'
          : 'Give the exemption reason (the sentence printed on it, such as “Kleinunternehmer gemäß § 19 UStG”) or its VATEX code under Settings › Workspace › Invoicing, or on the client in the Catalog.',
      )
      .join(' '),
  };
}

/** The words for people of what is missing of an invoice's tax: the rate, the exemption reason, or both. */
const missingTaxWords = (missing: readonly MissingTaxSetting[]) => {
  const rate = missing.some((m) => m.setting === 'taxRate');
  const reason = missing.some((m) => m.setting !== 'taxRate');
  return rate && reason ? 'invoicing.refused.tax.both' : rate ? 'invoicing.refused.tax.taxRate' : 'invoicing.refused.tax.exemptionReason';
};

/**
 * The refusal of issuing an invoice whose tax is not complete (decisions 11a): each missing
 * setting, what is wrong and where to set it (the Workspace page and the command line; a
 * client's reason on the Catalog page). Null when nothing is missing.
 */
export function missingTaxRefusal(workspaceId: string, missing: readonly MissingTaxSetting[]): DomainError | null {
  if (missing.length === 0) return null;
  const { text, people } = missingTaxSentences(workspaceId, missing);
  return new DomainError(
    'conflict',
    `This invoice cannot be issued yet: its tax is not set. ${text} Then issue it again: the draft takes the settings when it is issued.`,
    {
      field: 'tax',
      people: `This invoice cannot be issued yet: its VAT is not set. ${people} Then issue it again.`,
      words: words(missingTaxWords(missing)),
    },
  );
}

/**
 * One row per (category, rate) of the lines: its basis the exact sum of those lines' amounts, its
 * tax that basis × rate / 100 rounded once, half away from zero, to the cent.
 */
export function breakdown(
  lines: ReadonlyArray<InvoiceDocumentLine>,
  reasons: (category: string) => Pick<TaxTreatment, 'exemptionReason' | 'exemptionReasonCode'> | null,
): TaxBreakdownRow[] {
  const groups = new Map<string, { category: string; rate: number; cents: number }>();
  for (const line of lines) {
    // A line whose rate (or category) is not set yet (a draft's) counts no tax: it is in no row.
    if (line.taxRate === undefined || line.taxRate === null || !line.taxCategory) continue;
    const category = line.taxCategory as string;
    const rate = line.taxRate;
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

/** A calendar day as the language writes it: 16 November 2026, 16.11.2026, 16/11/2026, 16-11-2026. */
export function longDate(day: string, language: DocumentLanguage): string {
  const [y, m, d] = day.split('-') as [string, string, string];
  if (language === 'de') return `${d}.${m}.${y}`;
  if (language === 'fr') return `${d}/${m}/${y}`;
  if (language === 'nl') return `${d}-${m}-${y}`;
  return `${Number(d)} ${MONTHS[Number(m) - 1]} ${y}`;
}

/** The day `days` after `day` (YYYY-MM-DD). */
export const addDays = (day: string, days: number): string => DateTime.fromISO(day, { zone: 'UTC' }).plus({ days }).toISODate() as string;

/** The due sentence of an invoice issued with these terms. */
export function paymentTerms(days: number, dueDate: string, language: DocumentLanguage): string {
  const due = longDate(dueDate, language);
  const unit = (one: string, many: string) => (days === 1 ? one : many);
  switch (language) {
    case 'de':
      return days === 0 ? `Zahlbar sofort (${due}).` : `Zahlbar innerhalb von ${days} ${unit('Tag', 'Tagen')} bis zum ${due}.`;
    case 'fr':
      return days === 0 ? `Payable à réception (${due}).` : `Payable sous ${days} ${unit('jour', 'jours')}, au plus tard le ${due}.`;
    case 'nl':
      return days === 0 ? `Direct te voldoen (${due}).` : `Te betalen binnen ${days} ${unit('dag', 'dagen')}, uiterlijk op ${due}.`;
    default:
      return days === 0 ? `Due on receipt (${due}).` : `Payable within ${days} ${unit('day', 'days')}, by ${due}.`;
  }
}

/**
 * The early-payment discount's sentence (Skonto, issue 57 item 4), after the due sentence: the
 * percentage and the last day it applies (the issue date plus its days).
 */
export function earlyPaymentTerms(terms: { percent: number; days: number }, issueDate: string, language: DocumentLanguage): string {
  const until = longDate(addDays(issueDate, terms.days), language);
  const unit = (one: string, many: string) => (terms.days === 1 ? one : many);
  const comma = String(terms.percent).replace('.', ',');
  switch (language) {
    case 'de':
      return `Bei Zahlung innerhalb von ${terms.days} ${unit('Tag', 'Tagen')} bis zum ${until} ${comma} % Skonto.`;
    case 'fr':
      return `Escompte pour paiement anticipé de ${comma} % si le règlement intervient sous ${terms.days} ${unit('jour', 'jours')}, au plus tard le ${until}.`;
    case 'nl':
      return `${comma}% korting bij betaling binnen ${terms.days} ${unit('dag', 'dagen')}, uiterlijk op ${until}.`;
    default:
      return `${terms.percent} % early-payment discount if paid within ${terms.days} ${unit('day', 'days')}, by ${until}.`;
  }
}

/** The one line of a `single` invoice: the service period. */
export function periodDescription(from: string, to: string, language: DocumentLanguage): string {
  const [a, b] = [longDate(from, language), longDate(to, language)];
  switch (language) {
    case 'de':
      return `Leistungen vom ${a} bis ${b}`;
    case 'fr':
      return `Prestations du ${a} au ${b}`;
    case 'nl':
      return `Diensten van ${a} tot en met ${b}`;
    default:
      return `Services from ${a} to ${b}`;
  }
}

/**
 * The tax an invoice is issued with (decisions 11a and 14): each line whose rate is not set gets
 * its category's rate from the settings as they are now, and the breakdown is made again from the
 * lines, always (issue 56 item 8: a rate filled into a draft's line counts like any other), each
 * row keeping the exemption reason the draft's row of its category had, else taking the
 * category's from the settings. `missing` names every setting still lacking (then the lines that
 * need it stay without rate); nothing is refused here, so a draft's page can show the same.
 */
export function projectTax(
  invoice: { lines: InvoiceDocumentLine[]; taxBreakdown: TaxBreakdownRow[]; language: DocumentLanguage },
  current: { settings: InvoicingSettings; smallBusiness: boolean; client: ClientTax },
): { lines: InvoiceDocumentLine[]; taxBreakdown: TaxBreakdownRow[]; missing: MissingTaxSetting[] } {
  const unrated = (line: InvoiceDocumentLine) => isTaxCategory(line.taxCategory) && (line.taxRate === undefined || line.taxRate === null);
  const unexplained = (row: Pick<TaxBreakdownRow, 'category' | 'exemptionReason' | 'exemptionReasonCode'>) =>
    row.category === 'E' && !row.exemptionReason && !row.exemptionReasonCode;
  const treatments = new Map<TaxCategoryCode, TaxTreatment>();
  const of = (category: TaxCategoryCode): TaxTreatment => {
    const known = treatments.get(category);
    if (known) return known;
    const made = treatment(current.settings, current.smallBusiness, current.client, invoice.language, category);
    treatments.set(category, made);
    return made;
  };
  const missing: MissingTaxSetting[] = [];
  const lines = invoice.lines.map((line) => {
    if (!unrated(line)) return line;
    const rate = of(line.taxCategory as TaxCategoryCode).rate;
    if (rate === null) {
      missing.push(...of(line.taxCategory as TaxCategoryCode).missing);
      return line;
    }
    return { ...line, taxRate: rate };
  });
  const reasons = new Map<string, Pick<TaxTreatment, 'exemptionReason' | 'exemptionReasonCode'> | null>();
  const reasonOf = (category: string) => {
    if (reasons.has(category)) return reasons.get(category) ?? null;
    const kept = invoice.taxBreakdown.find((row) => row.category === category && !unexplained(row));
    const reason = kept ?? (isTaxCategory(category) ? of(category) : null);
    if (reason && unexplained({ exemptionReason: reason.exemptionReason, exemptionReasonCode: reason.exemptionReasonCode, category }))
      missing.push(...of(category as TaxCategoryCode).missing);
    reasons.set(category, reason);
    return reason;
  };
  const taxBreakdown = breakdown(lines, reasonOf);
  const unique = [...new Map(missing.map((m) => [`${m.setting} ${m.problem}`, m])).values()];
  return { lines, taxBreakdown, missing: unique };
}

/**
 * `projectTax`, refused (naming every setting still missing and where to set it) unless complete:
 * the lines and breakdown an invoice is issued with.
 */
export function taxAtIssue(
  invoice: { workspaceId: string; lines: InvoiceDocumentLine[]; taxBreakdown: TaxBreakdownRow[]; language: DocumentLanguage },
  current: { settings: InvoicingSettings; smallBusiness: boolean; client: ClientTax },
): { lines: InvoiceDocumentLine[]; taxBreakdown: TaxBreakdownRow[] } {
  const { lines, taxBreakdown, missing } = projectTax(invoice, current);
  const refusal = missingTaxRefusal(invoice.workspaceId, missing);
  if (refusal) throw refusal;
  return { lines, taxBreakdown };
}
