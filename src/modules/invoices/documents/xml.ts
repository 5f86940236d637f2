/**
 * The smallest XML writer the e-invoices need: elements in the order the caller gives (the
 * schemas' sequences), text and attributes escaped, and nothing written for an absent value or
 * an element left with no content (Peppol's R008 forbids empty elements; no rule wants one).
 * A string builder, not a DOM: a 500-line invoice is written in a few milliseconds (see
 * docs/design.md for the comparison with xmlbuilder2).
 */

export type Content = string | null | undefined | false;

// XML 1.0 allows tab, newline and carriage return of the C0 controls, and no U+FFFE/U+FFFF.
// eslint-disable-next-line no-control-regex
const INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text or an attribute value, escaped; characters XML cannot carry are dropped. */
export const escapeXml = (value: string): string => value.replace(INVALID, '').replace(/[&<>"]/g, (c) => ENTITIES[c] as string);

function open(name: string, attrs: Record<string, string | null | undefined> | undefined): string {
  let tag = `<${name}`;
  if (attrs) for (const [key, value] of Object.entries(attrs)) if (value != null) tag += ` ${key}="${escapeXml(value)}"`;
  return tag;
}

/** `<name attrs>value</name>`, or nothing when the value is absent or blank. */
export function leaf(name: string, value: string | null | undefined, attrs?: Record<string, string | null | undefined>): string {
  if (value == null || value.trim() === '') return '';
  return `${open(name, attrs)}>${escapeXml(value)}</${name}>`;
}

/** An element holding other elements, or nothing when none of them was written. */
export function node(name: string, ...children: Content[]): string {
  return nodeWith(name, undefined, ...children);
}

export function nodeWith(name: string, attrs: Record<string, string | null | undefined> | undefined, ...children: Content[]): string {
  const inner = children.filter((child): child is string => typeof child === 'string' && child !== '').join('\n');
  return inner === '' ? '' : `${open(name, attrs)}>\n${inner}\n</${name}>`;
}

/** The document: declaration, root element and a final newline. */
export const xmlDocument = (root: string): string => `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
