import { type Key, t } from '../../i18n/index.js';
import { escapeHtml, Html, raw } from './html.js';

/**
 * A message of these pages with markup in it, in the reader's language: each value is escaped,
 * or placed as it is when it is `Html` (a name in `<strong>`), and each `[…]` of the message
 * becomes a link to the next address of `links` (the words of a link stay in the sentence where
 * each language puts them). `count` picks a plural as in `t`.
 */
export function said(key: Key, vars: Record<string, string | number | Html> = {}, links: readonly string[] = []): Html {
  const values: string[] = [];
  const marked: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(vars)) {
    if (name === 'count' && typeof value === 'number') {
      marked[name] = value;
      continue;
    }
    marked[name] = `\uE000${values.length}\uE000`;
    values.push(value instanceof Html ? value.text : escapeHtml(String(value)));
  }
  let link = 0;
  const text = escapeHtml(t(key, marked)).replace(/\[([^\]]*)\]/g, (_whole, words: string) => {
    const href = links[link++];
    return href === undefined ? words : `<a href="${escapeHtml(href)}">${words}</a>`;
  });
  return raw(text.replace(/\uE000(\d+)\uE000/g, (_whole, i: string) => values[Number(i)] ?? ''));
}
