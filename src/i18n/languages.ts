/**
 * The languages pages, page refusals and mail speak (decisions §14, "Language"), and how a
 * browser's `Accept-Language` picks one. Each language has one locale its numbers, money, dates
 * and times are written in (src/i18n/format.ts).
 */
export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

export const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);

/** Each language by its own name, as a chooser lists it. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', de: 'Deutsch' };

/**
 * The locale a language formats in: British English (23 Nov 2026, €12,480.00, 14:05: day before
 * month and a 24-hour clock, read alike on both sides of the Atlantic) and German (23.11.2026,
 * 12.480,00 €).
 */
export const LOCALES: Record<Language, string> = { en: 'en-GB', de: 'de-DE' };

/**
 * The language an `Accept-Language` header prefers among ours, by its weights (`de-AT,de;q=0.9,
 * en;q=0.8` is German; `fr-FR,fr;q=0.9,en;q=0.5` English; `*` any: `any`, English unless said),
 * or null when it names none of them or is absent or empty. A page that knows a better language
 * than English for "any" (a link's workspace's) passes `any: null` and chooses itself.
 */
export function negotiate(header: string | undefined | null, options: { any?: Language | null } = {}): Language | null {
  if (!header) return null;
  const ranges = header
    .split(',')
    .slice(0, 40)
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), order };
    })
    .filter((r) => r.tag !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const range of ranges) {
    if (range.tag === '*') {
      if (options.any === null) continue;
      return options.any ?? 'en';
    }
    const primary = range.tag.split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return null;
}
