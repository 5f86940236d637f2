import { DomainError } from '../../errors.js';
import { type Key, type Vars, words } from '../../i18n/index.js';
import { requireSafeValue } from '../../kernel/input.js';
import { parseInvoiceLanguage } from '../../kernel/document-languages.js';
import { parseRounding, type RoundingText } from '../../kernel/rounding.js';
import { requireTaxCategory, requireVatexCode, type TaxCategoryCode } from '../../kernel/tax.js';
import type { EarlyPayment, InvoiceLanguage } from './document.js';

/*
 * A workspace's invoicing settings (decisions §11) and its number series: what each key takes,
 * its default, and how a number is written from the pattern. Pure: no database.
 */

export interface InvoicingSettings {
  /** Tokens {yyyy} {yy} {mm} {seq} {seq:N}; {seq} exactly once. */
  numberPattern: string;
  taxCategory: TaxCategoryCode;
  /** A percentage (19, 7.7); null until set. */
  taxRate: number | null;
  exemptionReason: string | null;
  exemptionReasonCode: string | null;
  language: InvoiceLanguage;
  /**
   * How each entry's time is rounded before it is invoiced (issue 56 item 4): `up-15`,
   * `nearest-6`, `down-1` …; null: not at all (the default: today's amounts). A client may
   * have its own (Catalog › Invoicing details).
   */
  rounding: RoundingText | null;
  /**
   * An early-payment discount (Skonto, issue 57 item 4) offered on every invoice issued from now
   * on: `2 % within 10 days` (P % of the amount due when paid within N days of the issue date);
   * null: none (the default).
   */
  earlyPayment: string | null;
  /**
   * Payment reminders by mail (issue 57 item 3): the days past the due date of each level, rising
   * (`7, 21`: a first reminder 7 days after the due date, a second after 21); null: no reminders
   * (the default). `on` sets the default levels.
   */
  reminders: string | null;
}

export const DEFAULT_SETTINGS: InvoicingSettings = Object.freeze({
  numberPattern: '{yyyy}-{seq:4}',
  taxCategory: 'S',
  taxRate: null,
  exemptionReason: null,
  exemptionReasonCode: null,
  language: 'en',
  rounding: null,
  earlyPayment: null,
  reminders: null,
});

/** The settings as stored (no row: the defaults). */
export function settingsOf(
  row:
    | (Omit<InvoicingSettings, 'taxCategory' | 'rounding' | 'reminders'> & {
        taxCategory: string;
        rounding: string | null;
        reminders?: string | null;
      })
    | undefined,
): InvoicingSettings {
  if (row === undefined) return { ...DEFAULT_SETTINGS };
  const { numberPattern, taxCategory, taxRate, exemptionReason, exemptionReasonCode, language, rounding, earlyPayment, reminders } = row;
  return {
    numberPattern,
    taxCategory: taxCategory as TaxCategoryCode,
    taxRate,
    exemptionReason,
    exemptionReasonCode,
    language,
    rounding: rounding as RoundingText | null,
    earlyPayment,
    reminders: reminders ?? null,
  };
}

const EARLY_PAYMENT_EXAMPLE = 'such as "2 % within 10 days" (or 2/10)';
/**
 * Early-payment terms as typed: `2 % within 10 days`, `2% 10 days`, `2,5 % innerhalb von 10 Tagen`
 * or `2/10`: the percentage (above 0, below 100, at most two decimals) and the days (1 to 365).
 */
export function parseEarlyPayment(value: string, field = 'earlyPayment'): EarlyPayment {
  const match =
    /^(\d{1,2}(?:[.,]\d{1,2})?)\s*(?:%|\/)\s*(?:(?:within|in|innerhalb(?:\s+von)?)\s+)?(\d{1,3})(?:\s*(?:days?|tagen?|d))?$/i.exec(
      value.trim(),
    );
  const refuse = (why: string) =>
    new DomainError('invalid', `${field} ${JSON.stringify(value)} ${why}: give the percentage and the days, ${EARLY_PAYMENT_EXAMPLE}.`, {
      field,
      people:
        'Type the discount and the days, such as 2 % within 10 days: a percentage above 0 and below 100 with at most two decimals, and 1 to 365 days.',
      words: words('invoicing.refused.settings.earlyPayment'),
    });
  if (!match) throw refuse('is not early-payment terms');
  const percent = Number((match[1] as string).replace(',', '.'));
  const days = Number(match[2]);
  if (!(percent > 0 && percent < 100)) throw refuse('is no discount above 0 % and below 100 %');
  if (!(days >= 1 && days <= 365)) throw refuse('is no number of days from 1 to 365');
  return { percent, days };
}

/** Early-payment terms as the settings keep and show them: `2 % within 10 days`, `2.5 % within 1 day`. */
export const earlyPaymentText = ({ percent, days }: EarlyPayment): string => `${percent} % within ${days} ${days === 1 ? 'day' : 'days'}`;

/** The days past due of the reminder levels when reminders are turned on without days (decisions §12). */
export const DEFAULT_REMINDER_DAYS: readonly number[] = Object.freeze([7, 21]);
/** The most reminder levels a workspace may have. */
export const MAX_REMINDER_LEVELS = 3;
const REMINDERS_EXAMPLE =
  'type the days past the due date of each reminder, rising, such as 7, 21 (at most 3 levels, each 1 to 365 days), on for 7, 21, or off';

/**
 * Reminder levels as typed: `on` (7, 21), `off` (none), or the days past due of each level
 * (`7, 21`, `7 21 35`, `14`): whole days from 1 to 365, rising, at most 3. The days, or null: off.
 */
export function parseReminders(value: string, field = 'reminders'): number[] | null {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'off' || text === 'none' || text === 'no') return null;
  if (text === 'on' || text === 'yes') return [...DEFAULT_REMINDER_DAYS];
  const refuse = (why: string) =>
    new DomainError('invalid', `${field} ${JSON.stringify(value)} ${why}: ${REMINDERS_EXAMPLE}.`, {
      field,
      people: `Type the days past the due date of each reminder, rising, such as 7, 21 (at most ${MAX_REMINDER_LEVELS}, each 1 to 365 days); leave it empty for no reminders.`,
      words: words('invoicing.refused.settings.reminders', { max: MAX_REMINDER_LEVELS }),
    });
  const parts = text.replace(/\s*days?$/, '').split(/\s*[,;]\s*|\s+/);
  if (!parts.every((p) => /^\d{1,3}$/.test(p))) throw refuse('is not a list of days');
  const days = parts.map(Number);
  if (days.length > MAX_REMINDER_LEVELS) throw refuse(`has ${days.length} levels, more than ${MAX_REMINDER_LEVELS}`);
  if (!days.every((d) => d >= 1 && d <= 365)) throw refuse('has a day outside 1 to 365');
  if (!days.every((d, i) => i === 0 || d > (days[i - 1] as number)))
    throw refuse('does not rise (each level comes later than the one before)');
  return days;
}

/** The reminder levels of stored settings: the days past due of each (empty: reminders off). */
export const reminderDaysOf = (settings: Pick<InvoicingSettings, 'reminders'>): number[] =>
  settings.reminders === null ? [] : (parseReminders(settings.reminders) ?? []);

export type SettingsKey = keyof InvoicingSettings;
export const SETTINGS_KEYS = Object.keys(DEFAULT_SETTINGS) as SettingsKey[];
/** A change of settings: a value, or null to clear it (a key with a default goes back to it). */
export type SettingsPatch = { [K in SettingsKey]?: InvoicingSettings[K] | null };

/** A refusal, at the setting it is about (the Workspace page shows it there). */
const invalid = (message: string, field: SettingsKey | undefined, key: Key, vars?: Vars) =>
  new DomainError('invalid', message, { ...(field === undefined ? {} : { field }), words: words(key, vars) });

const TOKEN = /\{(yyyy|yy|mm|seq(?::(\d+))?)\}/g;
const EXAMPLE = 'For example {yyyy}-{seq:4} gives 2026-0001, RE-{yy}{mm}-{seq:3} gives RE-2611-001';

/** A number pattern as stored: trimmed, known tokens only, {seq} exactly once, a few literal characters. */
export function checkPattern(raw: string): string {
  const pattern = raw.trim();
  if (pattern === '' || pattern.length > 40)
    throw invalid(`numberPattern must be 1 to 40 characters. ${EXAMPLE}.`, 'numberPattern', 'invoicing.refused.settings.patternLength');
  const literal = pattern.replace(TOKEN, '');
  if (/[{}]/.test(literal))
    throw invalid(
      `numberPattern ${JSON.stringify(pattern)} has an unknown token: the tokens are {yyyy}, {yy}, {mm}, {seq} and {seq:N}. ${EXAMPLE}.`,
      'numberPattern',
      'invoicing.refused.settings.patternToken',
      { pattern: JSON.stringify(pattern) },
    );
  if (!/^[A-Za-z0-9 ._/#-]*$/.test(literal))
    throw invalid(
      `numberPattern ${JSON.stringify(pattern)} may hold, besides its tokens, only letters, digits, spaces and . _ / # - (a number is part of file names). ${EXAMPLE}.`,
      'numberPattern',
      'invoicing.refused.settings.patternCharacters',
      { pattern: JSON.stringify(pattern) },
    );
  const seqs = [...pattern.matchAll(TOKEN)].filter((m) => (m[1] as string).startsWith('seq'));
  if (seqs.length !== 1)
    throw invalid(
      `numberPattern ${JSON.stringify(pattern)} must hold {seq} (or {seq:N}, padded with zeros to N digits) exactly once: the running number is what makes every invoice number unique. ${EXAMPLE}.`,
      'numberPattern',
      'invoicing.refused.settings.patternSeq',
      { pattern: JSON.stringify(pattern) },
    );
  const width = (seqs[0] as RegExpMatchArray)[2];
  if (width !== undefined && (Number(width) < 1 || Number(width) > 9))
    throw invalid(
      `numberPattern: {seq:N} pads to N digits, N from 1 to 9 (got {seq:${width}}).`,
      'numberPattern',
      'invoicing.refused.settings.patternWidth',
      {
        width,
      },
    );
  return pattern;
}

/** Whether the series restarts each year: the pattern holds the year. */
export const restartsYearly = (pattern: string): boolean => /\{yy(?:yy)?\}/.test(pattern);

/** The number of the `seq`-th document of its series, issued on `issueDate` (YYYY-MM-DD). */
export function formatNumber(pattern: string, issueDate: string, seq: number): string {
  const [yyyy, mm] = issueDate.split('-') as [string, string];
  return pattern.replace(TOKEN, (_token, name: string, width: string | undefined) => {
    if (name === 'yyyy') return yyyy;
    if (name === 'yy') return yyyy.slice(2);
    if (name === 'mm') return mm;
    return String(seq).padStart(width === undefined ? 0 : Number(width), '0');
  });
}

/** A tax rate as stored: a percentage from 0 to 100 with at most 4 decimals. */
function checkRate(value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 100 || Math.round(value * 10_000) !== value * 10_000)
    throw invalid(
      `taxRate must be a percentage from 0 to 100, such as 19 or 7.7 (got ${JSON.stringify(value)}).`,
      'taxRate',
      'invoicing.refused.settings.taxRate',
      {
        got: String(JSON.stringify(value)),
      },
    );
  return value;
}

/** A key that is no invoicing setting: the message lists the settings; its words by key. */
const unknownSetting = (key: string) =>
  invalid(
    `${key} is not an invoicing setting; the settings are ${SETTINGS_KEYS.join(', ')}.`,
    undefined,
    'invoicing.refused.settings.unknown',
    {
      name: key,
      names: SETTINGS_KEYS.join(', '),
    },
  );

/** Checks one typed value of a key and returns it as stored; null (or blank text) clears it. */
export function checkSetting(key: string, value: unknown): unknown {
  if (!(SETTINGS_KEYS as string[]).includes(key)) throw unknownSetting(key);
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null;
  if (key === 'taxRate') {
    if (typeof value !== 'number')
      throw invalid(
        `taxRate must be a percentage such as 19 or 7.7 (got ${JSON.stringify(value)}).`,
        'taxRate',
        'invoicing.refused.settings.taxRateNumber',
        {
          got: String(JSON.stringify(value)),
        },
      );
    return checkRate(value);
  }
  if (typeof value !== 'string')
    throw invalid(`${key} must be text (got ${JSON.stringify(value)}).`, key as SettingsKey, 'invoicing.refused.settings.text', {
      name: key,
      got: String(JSON.stringify(value)),
    });
  switch (key as Exclude<SettingsKey, 'taxRate'>) {
    case 'numberPattern':
      return checkPattern(value);
    case 'taxCategory':
      return requireTaxCategory(value, 'taxCategory');
    case 'exemptionReasonCode':
      return requireVatexCode(value, 'exemptionReasonCode');
    case 'exemptionReason': {
      const text = value.trim();
      if (text.length > 200)
        throw invalid('exemptionReason must be at most 200 characters.', 'exemptionReason', 'input.refused.exemptionReasonLong');
      // Printed on the invoices, as a client's reason is: the one rule of an invoice's text (issue 54 N4).
      requireSafeValue(text, 'exemptionReason', 'exemptionReason');
      return text;
    }
    case 'rounding':
      return parseRounding(value, 'rounding');
    case 'earlyPayment':
      return earlyPaymentText(parseEarlyPayment(value));
    case 'reminders':
      return parseReminders(value)?.join(', ') ?? null;
    case 'language':
      // The languages invoices are made in, kept in one place (French and Dutch refused as not offered yet).
      return parseInvoiceLanguage(value, 'language');
  }
}

/** `--set key=value` of the command line, as a typed patch (taxRate a number; blank clears). */
export function settingsPatchOfText(assignments: ReadonlyArray<[key: string, text: string]>): SettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const [key, text] of assignments) {
    if (!(SETTINGS_KEYS as string[]).includes(key)) throw unknownSetting(key);
    const trimmed = text.trim();
    if (key === 'taxRate' && trimmed !== '') {
      if (!/^\d{1,3}(\.\d{1,4})?$/.test(trimmed))
        throw invalid(
          `taxRate must be a percentage from 0 to 100, such as 19 or 7.7, without % (got ${JSON.stringify(text)}).`,
          'taxRate',
          'invoicing.refused.settings.taxRateText',
          { got: JSON.stringify(text) },
        );
      patch[key] = Number(trimmed);
    } else patch[key] = trimmed === '' ? null : trimmed;
  }
  return patch as SettingsPatch;
}

/** The settings after a patch (checked): null clears a key, back to its default. */
export function applySettings(current: InvoicingSettings, patch: SettingsPatch): InvoicingSettings {
  const next: Record<string, unknown> = { ...current };
  for (const [key, given] of Object.entries(patch)) {
    const value = checkSetting(key, given);
    next[key] = value ?? DEFAULT_SETTINGS[key as SettingsKey];
  }
  return next as unknown as InvoicingSettings;
}
