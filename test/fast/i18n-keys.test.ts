import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { hasKey, translator } from '../../src/i18n/index.js';
import { de } from '../../src/i18n/messages/de.js';
import { en } from '../../src/i18n/messages/en.js';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * The words of every language (decisions §14; src/i18n): each language has every key, with the
 * same placeholders, and every key the code names exists. A key missing would show as its key
 * on a page (test/http/app/language.test.ts looks for that in German over HTTP).
 */
type Tree = { [key: string]: string | Tree };

/** The messages as `dotted.key → text`. */
function flat(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out.set(`${prefix}${key}`, value);
    else for (const [k, v] of flat(value, `${prefix}${key}.`)) out.set(k, v);
  }
  return out;
}

const english = flat(en as unknown as Tree);
const languages = { de: flat(de as unknown as Tree) };
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();
const links = (text: string) => [...text.matchAll(/\[[^\]]+\]/g)].length;

const SRC = join(PACKAGE_ROOT, 'src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
const sources = files(SRC).filter((f) => !f.includes('/i18n/messages/'));
const namespaces = [...new Set([...english.keys()].map((k) => k.split('.')[0]))];
/**
 * A string literal that names a key: it begins with one of the messages' namespaces and a dot
 * (not a listing's name in its cursors, `listing: 'reports.detailed'`, which is no message).
 */
const keyLiteral = new RegExp(`(?<!listing: )'((?:${namespaces.join('|')})\\.[A-Za-z0-9_.]+)'`, 'g');
const named = sources.flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(keyLiteral)].map((m) => ({ file: relative(PACKAGE_ROOT, file), key: m[1] as string })),
);

describe('i18n: the messages of every language', () => {
  it('every language has every English key and no other', () => {
    for (const [language, messages] of Object.entries(languages)) {
      expect(
        [...english.keys()].filter((k) => !messages.has(k)),
        `missing in ${language}`,
      ).to.deep.equal([]);
      expect(
        [...messages.keys()].filter((k) => !english.has(k)),
        `only in ${language}`,
      ).to.deep.equal([]);
    }
  });

  it('a translation fills the same placeholders and links as the English, and none is empty', () => {
    const wrong: string[] = [];
    for (const [language, messages] of Object.entries(languages))
      for (const [key, text] of english) {
        const translated = messages.get(key) ?? '';
        if (translated.trim() === '' || text.trim() === '') wrong.push(`${language} ${key}: empty`);
        if (placeholders(translated).join() !== placeholders(text).join()) wrong.push(`${language} ${key}: placeholders`);
        if (links(translated) !== links(text)) wrong.push(`${language} ${key}: links`);
      }
    expect(wrong).to.deep.equal([]);
  });

  it('every key named in src exists', () => {
    expect(named.length).to.be.above(50);
    expect(named.filter(({ key }) => !hasKey(key)).map(({ file, key }) => `${file}: ${key}`)).to.deep.equal([]);
  });

  it('every key is named in src (a key nobody says is a string kept twice)', () => {
    const used = new Set(named.map(({ key }) => key));
    const unused = [...english.keys()].map((k) => k.replace(/_(one|other)$/, '')).filter((k) => !used.has(k));
    expect([...new Set(unused)]).to.deep.equal([]);
  });

  it('says a key in each language, with its plural and placeholders', () => {
    expect(translator('en')('errors.busyReports', { count: 1 })).to.equal(
      'The server is busy with other reports. Reload the page in 1 second.',
    );
    expect(translator('de')('errors.busyReports', { count: 5 })).to.equal(
      'Der Server ist mit anderen Berichten beschäftigt. Laden Sie die Seite in 5 Sekunden neu.',
    );
    expect(translator('de')('nav.week')).to.equal('Woche');
  });
});
