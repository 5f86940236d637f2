import { formats, type Key, t, type Vars } from '../../i18n/index.js';
import { type Html, html } from '../kit/html.js';

/**
 * A message with markup in it, in the reader's language: `{{header}}` filled with
 * `<code>X-Service-Signature</code>`, where the words around it stand where the language puts
 * them. The words are escaped as any text; only the parts given here are markup.
 */
export function sentence(key: Key, vars: Vars, parts: Record<string, Html>): Html {
  const marks = Object.fromEntries(Object.keys(parts).map((name, i) => [name, `\uE000${i}\uE000`]));
  const said = t(key, { ...vars, ...marks });
  const names = Object.keys(parts);
  return html`${said.split(/\uE000(\d+)\uE000/).map((piece, i) => (i % 2 === 1 ? (parts[names[Number(piece)] as string] as Html) : piece))}`;
}

/**
 * A day (`2026-11-02`) in a delivery log or an import's preview, where times go to the minute or
 * the second: as these pages have always written it in English (ISO, in order with the time
 * after it), and as the reader writes days in another language (`02.11.2026`).
 */
export const logDay = (day: string): string => (formats().language === 'en' ? day : formats().date(day));
