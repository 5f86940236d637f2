import type { components } from '../../generated/openapi.js';
import { DomainError } from '../errors.js';
import { words } from '../i18n/index.js';

/*
 * The languages of invoice documents (decisions §12): which label sets exist, and which of them an
 * invoice may be made in (the workspace's invoicing `language`, a client's own language). Written
 * once: the invoices module checks its settings and a client's language by it, the catalog checks
 * an imported client's, the pages and the command line list and refuse by it. Pure.
 */

/** The documents' label sets (English, German, French, Dutch). */
export type DocumentLanguage = 'en' | 'de' | 'fr' | 'nl';
/** Every document language, in the order the pages and the command line offer them. */
export const DOCUMENT_LANGUAGES: readonly DocumentLanguage[] = ['en', 'de', 'fr', 'nl'];

/**
 * The languages an invoice is stored and served in: the REST API contract's `Invoice.language`
 * (en, de), which the API's invoices and webhook payloads follow.
 */
export type InvoiceLanguage = components['schemas']['Invoice']['language'];

/**
 * The languages an invoice may be made in, offered by the Workspace page, the Catalog page and
 * the command line: the one place. French and Dutch labels exist but wait on the contract's
 * `Invoice.language` enum; once it names them, adding them here offers them everywhere (the
 * type refuses them until then).
 */
export const INVOICE_LANGUAGES: readonly InvoiceLanguage[] = ['en', 'de'];

/** Each document language by its own name, as a chooser lists it. */
export const DOCUMENT_LANGUAGE_NAMES: Record<DocumentLanguage, string> = { en: 'English', de: 'Deutsch', fr: 'Français', nl: 'Nederlands' };
/** Each document language's name in English (the command line's and the API's messages). */
const ENGLISH_NAMES: Record<DocumentLanguage, string> = { en: 'English', de: 'German', fr: 'French', nl: 'Dutch' };

/** The languages offered, by their own names, for people: "English, Deutsch". */
const offeredNames = (): string => INVOICE_LANGUAGES.map((code) => DOCUMENT_LANGUAGE_NAMES[code]).join(', ');

const offered = (): string => {
  const codes = INVOICE_LANGUAGES.map((code) => code as string);
  return codes.length === 1 ? (codes[0] as string) : `${codes.slice(0, -1).join(', ')} or ${codes.at(-1) as string}`;
};

/** The label sets that exist but are not offered yet (French and Dutch, today). */
export const WAITING_LANGUAGES: readonly DocumentLanguage[] = DOCUMENT_LANGUAGES.filter(
  (code) => !(INVOICE_LANGUAGES as readonly string[]).includes(code),
);

/**
 * A document language as typed (`de`, ` DE `), refused at `field` unless it is one invoices are
 * made in: a language whose labels exist but are not offered yet is refused saying so.
 */
export function parseInvoiceLanguage(value: unknown, field = 'language'): InvoiceLanguage {
  const code = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if ((INVOICE_LANGUAGES as readonly unknown[]).includes(code)) return code as InvoiceLanguage;
  if ((WAITING_LANGUAGES as readonly unknown[]).includes(code)) {
    const name = ENGLISH_NAMES[code as DocumentLanguage];
    throw new DomainError(
      'invalid',
      `${field} ${code as string} (${name}) is not offered yet: the ${name} labels exist, but invoices are made in ${offered()} only until the REST API's contract names ${code as string} (decisions §12).`,
      {
        field,
        words: words('invoicing.refused.documentLanguage.notOffered', {
          name: DOCUMENT_LANGUAGE_NAMES[code as DocumentLanguage],
          code: code as string,
          offered: offeredNames(),
        }),
      },
    );
  }
  throw new DomainError('invalid', `${field} must be ${offered()} (the documents' labels; got ${JSON.stringify(value)}).`, {
    field,
    words: words('invoicing.refused.documentLanguage.invalid', { offered: offeredNames() }),
  });
}

/** A client's own language as typed: blank or null is the workspace's (null), else a language invoices are made in. */
export function parseClientLanguage(value: unknown, field = 'language'): InvoiceLanguage | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null;
  return parseInvoiceLanguage(value, field);
}
