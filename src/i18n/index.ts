import { AsyncLocalStorage } from 'node:async_hooks';
import i18next, { type TFunction } from 'i18next';
import { type Formats, formatsFor, type ReaderStyle } from './format.js';
import { type Language, LANGUAGES } from './languages.js';
import { de } from './messages/de.js';
import { en, type Messages } from './messages/en.js';

/*
 * The words of pages, page refusals and mail in each language (decisions §14), through i18next
 * (docs/design.md, "The user's language"). Each string lives once, under a key, in
 * ./messages/en.ts and its translation in ./messages/de.ts (the compiler and
 * test/fast/i18n-keys.test.ts check both have every key). A page reads its reader's words with
 * `t('nav.week')`: the language and formats ride the request (`withReader`, set once per request
 * by src/web/index.ts), so nothing between the route and the label passes them along. Mail and
 * report files, made outside a request, name their language (`translator`, `formatsFor`).
 */

export { type Language, LANGUAGES, LANGUAGE_NAMES, isLanguage, negotiate } from './languages.js';
export type { Messages };
export {
  type CsvDialect,
  CSV_DIALECTS,
  csvDialectOf,
  type Formats,
  formatsFor,
  isCsvDialect,
  type ReaderStyle,
  type TimeFormat,
} from './format.js';

/** A message's key with a plural's suffix taken off (`entries_one`, `entries_other`: `entries`). */
type Base<K extends string> = K extends `${infer B}_one` ? B : K extends `${infer B}_other` ? B : K;
/** Every key of the messages, dotted: `nav.week`, `profile.language.label`. */
type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${Base<K>}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];
export type Key = Leaves<Messages>;

/** What a message's placeholders are filled with (`{{name}}`); `count` picks a plural. */
export type Vars = Record<string, string | number>;

const instance = i18next.createInstance();
void instance.init({
  initAsync: false,
  resources: { en: { translation: en }, de: { translation: de } },
  supportedLngs: [...LANGUAGES],
  lng: 'en',
  // A key missing in German reads in English rather than as a key (the key test keeps them complete).
  fallbackLng: 'en',
  // Pages escape when they render (src/web/kit/html.ts), mail when it writes HTML: never twice.
  interpolation: { escapeValue: false },
  returnNull: false,
  returnEmptyString: false,
});

// `{{what, lower}}`: a word lower-cased where the language writes it so mid-sentence ("By project"; German keeps "Nach Projekt").
instance.services.formatter?.add('lower', (value: unknown) => String(value).toLowerCase());
// `{{what, capital}}`: a word that begins a sentence.
instance.services.formatter?.add('capital', (value: unknown) => `${String(value).slice(0, 1).toUpperCase()}${String(value).slice(1)}`);
// `{{from, day}}`: a day (`2026-10-26`) as the language writes it (26 Oct 2026, 26.10.2026), for words a service raises without a reader.
instance.services.formatter?.add('day', (value: unknown, lng: string | undefined) =>
  formatsFor({ language: lng === 'de' ? 'de' : 'en' }).date(String(value)),
);
// `{{due, money}}`: an amount as a service writes it (`630.50 EUR`) as the language writes money (€630.50, 630,50 €), for words a service raises without a reader.
instance.services.formatter?.add('money', (value: unknown, lng: string | undefined) => {
  const [amount, currency] = String(value).split(' ');
  if (currency === undefined || !/^[A-Z]{3}$/.test(currency) || !Number.isFinite(Number(amount))) return String(value);
  return formatsFor({ language: lng === 'de' ? 'de' : 'en' }).money(Number(amount), currency);
});

const translators = new Map<Language, TFunction>(LANGUAGES.map((l) => [l, instance.getFixedT(l)]));
// `{{what, noun}}`: a key of the words that name what was refused (`input.what.name`: The name, Der Name), said in the message's language.
instance.services.formatter?.add('noun', (value: unknown, lng: string | undefined) =>
  String((translators.get(lng === 'de' ? 'de' : 'en') as TFunction)(String(value))),
);
// `{{country, country}}`: a country code (or a VAT prefix: EL, XI) as the language names the country.
const SPOKEN_COUNTRIES: Record<Language, Record<string, string>> = {
  en: { EL: 'Greece', XI: 'Northern Ireland', NL: 'the Netherlands', GB: 'the United Kingdom', CZ: 'Czechia' },
  de: { EL: 'Griechenland', XI: 'Nordirland' },
};
// Made on first use: two region tables cost ~13 ms of ICU at every start, the command line's too.
const regionNames = new Map<Language, Intl.DisplayNames>();
const regionsIn = (language: Language): Intl.DisplayNames => {
  let names = regionNames.get(language);
  if (!names) regionNames.set(language, (names = new Intl.DisplayNames([language], { type: 'region' })));
  return names;
};
instance.services.formatter?.add('country', (value: unknown, lng: string | undefined) => {
  const language: Language = lng === 'de' ? 'de' : 'en';
  const code = String(value);
  return SPOKEN_COUNTRIES[language][code] ?? regionsIn(language).of(code) ?? code;
});
// `{{record, a}}`: a noun after its English article (a profile, an invoice); other languages say the noun alone.
instance.services.formatter?.add('a', (value: unknown, lng: string | undefined) =>
  lng === 'en' ? `${/^[aeiou]/i.test(String(value)) ? 'an' : 'a'} ${String(value)}` : String(value),
);
// `{{reason, words}}`: a key said with the message's own values (another refusal's words inside this one: the Import page's `data` cell).
instance.services.formatter?.add('words', (value: unknown, lng: string | undefined, options: Record<string, unknown>) =>
  String((translators.get(lng === 'de' ? 'de' : 'en') as TFunction)(String(value), options as never)),
);
// `{{carries, nouns}}`: keys (space-separated) said with the message's own values and listed with commas (a restored invoice's dates and records).
instance.services.formatter?.add('nouns', (value: unknown, lng: string | undefined, options: Record<string, unknown>) =>
  String(value)
    .split(' ')
    .filter((key) => key !== '')
    .map((key) => String((translators.get(lng === 'de' ? 'de' : 'en') as TFunction)(key, options as never)))
    .join(', '),
);

/** A function that says a key in a language: mail, report files, anything made outside a request. */
export type Translate = (key: Key, vars?: Vars) => string;
export const translator = (language: Language): Translate => {
  const say = translators.get(language) as TFunction;
  const plain = plainWords.get(language) as Map<string, string>;
  return (key, vars) => {
    if (vars !== undefined) return String(say(key, vars as never));
    let text = plain.get(key);
    if (text === undefined) plain.set(key, (text = String(say(key))));
    return text;
  };
};
/**
 * Words said without values, by language, each looked up once: the messages never change while a
 * process runs, and i18next's lookup (~9 µs) said a column's "yes" per row of an export and a
 * page's labels on every render (issue 60). A key said with values is looked up every time.
 */
const plainWords = new Map<Language, Map<string, string>>(LANGUAGES.map((l) => [l, new Map()]));

/** Whether the messages hold this key (plain or as a plural) in English: the key test asks it. */
export const hasKey = (key: string): boolean =>
  instance.exists(key, { lng: 'en', fallbackLng: false, count: 1 }) || instance.exists(key, { lng: 'en', fallbackLng: false });

/** Who a request's pages speak to: their language, clock and durations (src/web/index.ts sets it per request). */
export interface Reader extends ReaderStyle {
  language: Language;
}

interface ReaderContext {
  reader: Reader;
  say: Translate;
  formats: Formats;
}

const ENGLISH: ReaderContext = { reader: { language: 'en' }, say: translator('en'), formats: formatsFor({ language: 'en' }) };
const readers = new AsyncLocalStorage<ReaderContext>();

/** Runs `fn` (and everything it awaits) speaking to this reader. */
export function withReader<T>(reader: Reader, fn: () => T): T {
  return readers.run({ reader, say: translator(reader.language), formats: formatsFor(reader) }, fn);
}

/** The reader of the request being answered (English with a 24-hour clock outside one). */
export const currentReader = (): Reader => (readers.getStore() ?? ENGLISH).reader;

/** A message in the reader's language: `t('nav.week')`, `t('reports.entries', { count: 3 })`. */
export const t: Translate = (key, vars) => (readers.getStore() ?? ENGLISH).say(key, vars);

/** The reader's formats of money, numbers, dates, times and durations. */
export const formats = (): Formats => (readers.getStore() ?? ENGLISH).formats;

/**
 * A refusal's words for people by key, for a service to raise (`DomainError.words`) and a page to
 * say in its reader's language (src/web/kit/refusal.ts `spoken`). The API and the command line
 * keep the error's English `message`.
 */
export interface Words {
  key: Key;
  vars?: Vars;
}
export const words = (key: Key, vars?: Vars): Words => (vars === undefined ? { key } : { key, vars });
