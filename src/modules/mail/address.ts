import addressparser from 'nodemailer/lib/addressparser';
import { headerLine } from '../../kernel/input.js';

/**
 * A mailbox the relay is given as one recipient: a dot-atom local part (RFC 5322's atext, no
 * quoted strings, no comments) and a domain of letters, digits and hyphens (Unicode letters too:
 * nodemailer turns an international domain into punycode). Nothing that an address parser could
 * read as two addresses, a group, a display name or a route: no comma, semicolon, angle bracket,
 * quote, colon, space or control character.
 */
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** Why an address cannot receive mail from here, or null when it can. */
export function addressProblem(address: string): string | null {
  if (address.length > 254) return 'it is longer than 254 characters';
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return 'it is not of the form name@example.org';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > 64 || !LOCAL.test(local))
    return "its part before the @ may hold only letters, digits, dots and !#$%&'*+/=?^_`{|}~- (one address, no name, comma or quote)";
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label)))
    return 'its domain must be a name such as example.org (letters, digits, hyphens, dots)';
  return null;
}

/**
 * Text for a header (a subject, a display name): one line (src/kernel/input.ts `headerLine`:
 * control characters become spaces, so no value can end its header and start another, and
 * bidirectional controls go, so U+202E cannot turn a From name or a Subject around: issue 54
 * N4); nodemailer then encodes anything beyond ASCII (RFC 2047).
 */
export const headerText = (text: string, max = 200): string => headerLine(text).slice(0, max);

/** A sender or recipient: an address and an optional display name. */
export interface Mailbox {
  address: string;
  name: string | null;
}

/**
 * MAIL_FROM: one mailbox, `time@example.org` or `Timetrack <time@example.org>` (a name with
 * quotes or commas must itself be quoted: `"Acme, Inc." <time@example.org>`). The reason it is
 * refused otherwise.
 */
export function parseFrom(raw: string): Mailbox | string {
  if (/[\p{Cc}]/u.test(raw)) return 'it must not contain control characters (a line break, a tab)';
  const parsed = addressparser(raw, { flatten: true });
  if (parsed.length !== 1 || !parsed[0] || typeof parsed[0].address !== 'string')
    return `it must name exactly one address, such as "Timetrack <time@example.org>" (got ${parsed.length})`;
  const { name, address } = parsed[0];
  const problem = addressProblem(address);
  if (problem) return `its address ${JSON.stringify(address)} cannot send mail: ${problem}`;
  return { address, name: name === '' ? null : headerText(name) };
}
