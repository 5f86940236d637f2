import { DomainError } from '../errors.js';
import { type Key, type Vars, words } from '../i18n/index.js';

/**
 * What a refusal is about, by the words its callers give (`what`), as pages name it in their
 * reader's language (`input.what.*`). A `what` not listed keeps its refusal in English: it is one
 * the command line, the API or an import reports, not a page.
 */
const WHAT: Record<string, Key> = {
  name: 'input.what.name',
  "workspace's name": 'input.what.workspace',
  'hourly rate': 'input.what.hourlyRate',
  'runaway limit': 'input.what.runawayLimit',
  'rate limit': 'input.what.rateLimit',
  description: 'input.what.description',
  note: 'input.what.note',
  'The note': 'input.what.note',
  exemptionReason: 'input.what.exemptionReason',
  // a restored invoice's note and payment note, a client's address line from a file (src/modules/invoices/restore.ts, catalog/clients.ts)
  'its note': 'input.what.note',
  'a payment note': 'input.what.paymentNote',
  'an address line': 'input.what.addressLine',
};

/** A refusal's words for pages about `what`, when pages name it (the message stays the English one given). */
const about = (what: string, key: Key, vars: Vars = {}): { words?: ReturnType<typeof words> } => {
  const noun = WHAT[what];
  return noun === undefined ? {} : { words: words(key, { what: noun, ...vars }) };
};

/**
 * Characters no name may hold: C0 and C1 control characters and DEL (a terminal runs them as
 * escape sequences, a page shows nothing), and the bidirectional formatting characters (U+061C,
 * U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) that reorder what is shown around them, so
 * "invoice\u202Efdp.exe" reads as "invoiceexe.pdf".
 */
// eslint-disable-next-line no-control-regex -- these are the characters refused
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

/** The first character of the text a name may not hold, as `U+XXXX`, or null. */
export function unsafeCharacter(text: string): string | null {
  const found = UNSAFE.exec(text);
  return found ? `U+${(found[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/**
 * A record of a file (a timetrack export's `data` cell) of a version this timetrack does not read:
 * the message names the record and its version; its words for people by key (the Import page).
 */
export function recordVersionRefusal(record: string, version: unknown): DomainError {
  const shown = String(JSON.stringify(version));
  return new DomainError(
    'invalid',
    `${/^[aeiou]/.test(record) ? 'an' : 'a'} ${record} record of version ${shown}; this version of timetrack reads version 1`,
    { words: words('integrations.imports.records.version', { record, version: shown }) },
  );
}

/**
 * Refuses a name holding a control or bidirectional character, naming the field and the character.
 * `lineBreaks`: text of several lines (an invoice's note) may hold line feeds, nothing else of them.
 */
export function requireSafeText(value: string, what: string, field?: string, options: { lineBreaks?: boolean } = {}): string {
  const bad = unsafeCharacter(options.lineBreaks ? value.replace(/\r?\n/g, ' ') : value);
  if (bad !== null) {
    throw new DomainError(
      'invalid',
      `${what} must not hold control characters or bidirectional controls (found ${bad}): type it again without them.`,
      {
        ...(field === undefined ? {} : { field }),
        // A `what` pages do not name is a field as a file or the API writes it (issuer.city, taxBreakdown[0].exemptionReason): said as written.
        ...(Object.hasOwn(WHAT, what)
          ? about(what, 'input.refused.unsafe', { found: bad })
          : { words: words('input.refused.unsafeField', { what, found: bad }) }),
      },
    );
  }
  return value;
}

/**
 * The one rule of the text an invoice carries (issue 54 N4; first the client fields' rule, issue 44
 * L5): a client's invoicing details, the issuer profile, the invoicing settings' exemption reason,
 * an e-invoice fill and an invoice's note hold no control character and no bidirectional control,
 * as names do. That text reaches the PDF, the XML and the invoice mail's headers (the From and
 * Reply-To names, the Subject), where U+202E would turn what a reader sees around. A value of text
 * or of lines of text (an address) is checked; any other value passes (its kind is checked apart).
 */
export function requireSafeValue(value: unknown, what: string, field: string): void {
  for (const text of Array.isArray(value) ? value : [value]) if (typeof text === 'string') requireSafeText(text, what, field);
}

/**
 * Text for one header line of a mail (a subject, a display name): control characters (CR, LF,
 * tab, NUL …) and line or paragraph separators become spaces and runs of spaces one, so no value
 * can end its header and start another; bidirectional controls are taken out (issue 54 N4), so a
 * mail client shows the name and the subject in the order they were written.
 */
export function headerLine(text: string): string {
  return stripUnsafe(text.replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The text without the characters a name may not hold (`keep` lists those to leave, such as a
 * line break): for what is shown but not refused, such as an uploaded file's name or the
 * command line's output on a terminal.
 */
export function stripUnsafe(text: string, keep = ''): string {
  return text.replace(UNSAFE_ALL, (ch) => (keep.includes(ch) ? ch : ''));
}

// Input rules of names, codes, rates and counts, shared by the modules (a refusal is a domain error).

/** `what` is the input in words (the message starts with it), `field` its API name (the refusal's `field`). */
export function requireName(value: string, what: string, field = 'name', max = 200): string {
  const name = value.trim();
  if (name === '') throw new DomainError('invalid', `${what} must not be empty.`, { field, ...about(what, 'input.refused.empty') });
  if (name.length > max)
    throw new DomainError('invalid', `${what} must be at most ${max} characters.`, {
      field,
      ...about(what, 'input.refused.tooLong', { max }),
    });
  return requireSafeText(name, what, field);
}

export function requireCurrency(value: string): string {
  if (!/^[A-Z]{3}$/.test(value))
    throw new DomainError('invalid', `currency must be an ISO 4217 code such as EUR (got ${JSON.stringify(value)}).`, {
      field: 'currency',
      words: words('input.refused.currency', { got: JSON.stringify(value) }),
    });
  return value;
}

export function requireRate(value: number | null, what: string, field = 'hourlyRate'): number | null {
  if (value === null) return null;
  if (!Number.isFinite(value) || value < 0 || value > 1_000_000_000) {
    throw new DomainError('invalid', `${what} must be a number from 0 to 1000000000.`, { field, ...about(what, 'input.refused.rate') });
  }
  return value;
}

export function requirePositiveInt(value: number, what: string, field: string, max = 1_000_000_000): number {
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new DomainError('invalid', `${what} must be a whole number from 1 to ${max}.`, {
      field,
      ...about(what, 'input.refused.positive', { max }),
    });
  }
  return value;
}

export function requireEmail(value: string): string {
  const email = value.trim();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new DomainError('invalid', `email must look like name@example.org (got ${JSON.stringify(value)}).`, {
      field: 'email',
      words: words('input.refused.email', { got: JSON.stringify(value) }),
    });
  }
  return email;
}
