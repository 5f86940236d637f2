import { type Language, LOCALES } from './languages.js';

/**
 * The one formatting of money, numbers, dates, times and durations for a person reading
 * (decisions §14): the pages, the report PDFs and spreadsheets and the mail ask it, by the
 * reader's language (its locale, src/i18n/languages.ts), their clock (24- or 12-hour) and whether
 * they read durations with seconds. Everything through `Intl`, so `12.480,00 €` and `€12,480.00`
 * come from one place. The API and the command line keep their machine formats (ISO days,
 * `12480.00`) and never come here.
 */

/** How a person wants times of day written: 24-hour (`14:05`) or 12-hour (`2:05 PM`). */
export type TimeFormat = '24h' | '12h';

/** What a reader chose: their language, their clock, durations with seconds or without (Profile). */
export interface ReaderStyle {
  language: Language;
  timeFormat?: TimeFormat;
  seconds?: boolean;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A calendar day (`2026-11-23`) or a local wall time as milliseconds read as UTC: the instant to format in UTC. */
const utcOf = (day: string | number): number => (typeof day === 'number' ? day : Date.parse(`${day}T00:00:00Z`));

/** The day and month parts per language: British English spells the month, German writes numbers (23.11.2026). */
const DAY_OPTIONS: Record<Language, Intl.DateTimeFormatOptions> = {
  en: { day: 'numeric', month: 'short', year: 'numeric' },
  de: { day: '2-digit', month: '2-digit', year: 'numeric' },
};
const DAY_MONTH_OPTIONS: Record<Language, Intl.DateTimeFormatOptions> = {
  en: { weekday: 'short', day: 'numeric', month: 'short' },
  de: { weekday: 'short', day: '2-digit', month: '2-digit' },
};

export class Formats {
  readonly locale: string;
  readonly language: Language;
  readonly timeFormat: TimeFormat;
  /** Durations with seconds (`138:30:00`) rather than without (`138:30`). */
  readonly seconds: boolean;
  private readonly cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

  constructor(style: ReaderStyle) {
    this.language = style.language;
    this.locale = LOCALES[style.language];
    this.timeFormat = style.timeFormat ?? '24h';
    this.seconds = style.seconds ?? false;
  }

  private numberFormat(key: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
    let format = this.cache.get(`n:${key}`) as Intl.NumberFormat | undefined;
    if (!format) this.cache.set(`n:${key}`, (format = new Intl.NumberFormat(this.locale, options)));
    return format;
  }

  private dateFormat(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
    let format = this.cache.get(`d:${key}`) as Intl.DateTimeFormat | undefined;
    if (!format) {
      if (this.cache.size > 2_000) this.cache.clear();
      this.cache.set(`d:${key}`, (format = new Intl.DateTimeFormat(this.locale, options)));
    }
    return format;
  }

  /** An amount in its currency: `€12,480.00`, `12.480,00 €` (the currency's own decimals: JPY none). */
  money(amount: number, currency: string): string {
    return this.numberFormat(`money:${currency}`, { style: 'currency', currency }).format(amount);
  }

  /** The decimals a currency's amounts have (JPY 0, EUR 2, BHD 3). */
  moneyDigits(currency: string): number {
    return this.numberFormat(`money:${currency}`, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  }

  /** A number with the language's separators: `12,480`, `12.480`; with `digits`, exactly that many decimals (`3.25`, `3,25`). */
  number(value: number, digits = 0): string {
    return this.numberFormat(`fixed:${digits}`, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  }

  /** A number with up to `digits` decimals, none written when they are zero: `1.5`, `1,5`, `19`. */
  decimal(value: number, digits = 2): string {
    return this.numberFormat(`upto:${digits}`, { maximumFractionDigits: digits }).format(value);
  }

  /** Seconds as decimal hours, two places: `3.25`, `3,25`. */
  hours(seconds: number): string {
    return this.number(seconds / 3600, 2);
  }

  /**
   * Seconds as people read a duration: hours and minutes (`138:30`; hours past 24 stay hours, a
   * thousand and more grouped as the language groups them: `1,234:30`, `1.234:30`), with seconds
   * (`138:30:00`) when the reader asked for them, or when `withSeconds` says so (a running timer).
   */
  duration(seconds: number, withSeconds = this.seconds): string {
    const s = Math.max(0, Math.floor(seconds));
    const hm = `${this.number(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}`;
    return withSeconds ? `${hm}:${pad(s % 60)}` : hm;
  }

  /** A calendar day: `23 Nov 2026`, `23.11.2026` (a `YYYY-MM-DD` day, or a local wall time as ms read as UTC). */
  date(day: string | number): string {
    return this.dateFormat('date', { ...DAY_OPTIONS[this.language], timeZone: 'UTC' }).format(utcOf(day));
  }

  /** A day of a week: `Mon 23 Nov`, `Mo., 23.11.`. */
  dayMonth(day: string | number): string {
    return this.dateFormat('daymonth', { ...DAY_MONTH_OPTIONS[this.language], timeZone: 'UTC' })
      .format(utcOf(day))
      .replace(/,(?= \d)/, this.language === 'en' ? '' : ',');
  }

  /** A calendar day with its day of the week: `Mon 23 Nov 2026`, `Mo., 23.11.2026`. */
  weekdayDate(day: string | number): string {
    return this.dateFormat('weekdaydate', { weekday: 'short', ...DAY_OPTIONS[this.language], timeZone: 'UTC' })
      .format(utcOf(day))
      .replace(/,(?= \d)/, this.language === 'en' ? '' : ',');
  }

  /** A day's short name: `Mon`, `Mo.`. */
  weekday(day: string | number): string {
    return this.dateFormat('weekday', { weekday: 'short', timeZone: 'UTC' }).format(utcOf(day));
  }

  /** A month and its year: `November 2026`. */
  month(day: string | number): string {
    return this.dateFormat('month', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(utcOf(day));
  }

  /** Two days, both included: `23 Nov 2026 – 29 Nov 2026`, or one when they are the same. */
  period(from: string, to: string): string {
    return from === to ? this.date(from) : `${this.date(from)} – ${this.date(to)}`;
  }

  /** Minutes after midnight as the reader's clock writes them: `14:05`, `2:05 PM`. */
  clock(minutes: number): string {
    const h = Math.floor(minutes / 60) % 24;
    const m = minutes % 60;
    if (this.timeFormat === '24h') return `${pad(h)}:${pad(m)}`;
    return `${h % 12 === 0 ? 12 : h % 12}:${pad(m)} ${h < 12 ? 'AM' : 'PM'}`;
  }

  /** A local wall time (ms read as UTC) as its time of day: `09:05`. */
  wallTime(local: number): string {
    const minutes = Math.floor((((local % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
    return this.clock(minutes);
  }

  /**
   * An instant as the reader reads it in a zone: the day, the time on their clock and the zone's
   * short name, `23 Nov 2026, 14:05 CET`, `23.11.2026, 14:05 MEZ`.
   */
  dateTime(ms: number, zone: string): string {
    const parts = Object.fromEntries(
      this.dateFormat(`dt:${zone}`, {
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZone: zone,
        timeZoneName: 'short',
      })
        .formatToParts(ms)
        .map((p) => [p.type, p.value]),
    ) as Record<string, string>;
    const day = `${parts.year}-${parts.month}-${parts.day}`;
    return `${this.date(day)}, ${this.clock(Number(parts.hour) * 60 + Number(parts.minute))} ${parts.timeZoneName}`;
  }

  /** Words joined as the language joins them: `a, b and c`, `a, b und c`. */
  list(items: string[]): string {
    return new Intl.ListFormat(this.locale, { type: 'conjunction' }).format(items);
  }
}

const known = new Map<string, Formats>();

/** The formats of a reader's choices (one instance each, its `Intl` formats made once). */
export function formatsFor(style: ReaderStyle): Formats {
  const key = `${style.language}:${style.timeFormat ?? '24h'}:${style.seconds ? 's' : ''}`;
  let formats = known.get(key);
  if (!formats) known.set(key, (formats = new Formats(style)));
  return formats;
}

/**
 * How a CSV is written: `comma` as today's files (and the API's and the command line's): commas,
 * a decimal point, ISO days; `semicolon` as a German Excel opens a file by double-click:
 * semicolons, a decimal comma, days as 23.11.2026. A German reader's download defaults to it,
 * anyone's may choose either.
 */
export type CsvDialect = 'comma' | 'semicolon';
export const CSV_DIALECTS: readonly CsvDialect[] = ['comma', 'semicolon'];
export const isCsvDialect = (value: unknown): value is CsvDialect => CSV_DIALECTS.includes(value as CsvDialect);
export const csvDialectOf = (language: Language): CsvDialect => (language === 'de' ? 'semicolon' : 'comma');
