import { toIso } from '../../kernel/time.js';
import { type Key, type Words, words } from '../../i18n/index.js';
import type { MailError } from './outcome.js';
import type { MailLogRow } from './repository.js';

/** The details the mail module writes itself (the relay's own replies are the rest), as the log, the command line and the API keep them. */
export const OUR_DETAILS = {
  linkExpired: 'The link in it expired before the relay accepted the message; ask for a new one.',
  unreadable: 'Its content cannot be opened with this server key (SECRET_KEY or secret.key changed since it was queued).',
  accountDeleted: 'Cancelled: the account was deleted before it was sent.',
  notAccepted: 'the relay did not accept the recipient',
} as const;
/** How a message given up after its tries says so, before the last answer (the relay's, as it came). */
export const gaveUpDetail = (attempts: number, last: string): string => `Gave up after ${attempts} attempts; the last: ${last}`;

/**
 * A message's detail in words for people (the Mail page says them in its reader's language), where
 * the words are ours: our own sentences by key, a give-up framing the relay's last answer, which
 * stays as it came; null for a relay's own reply.
 */
export function detailWords(detail: string | null): Words | null {
  if (detail === null) return null;
  if (detail === OUR_DETAILS.linkExpired) return words('settings.mail.details.linkExpired');
  if (detail === OUR_DETAILS.unreadable) return words('settings.mail.details.unreadable');
  if (detail === OUR_DETAILS.accountDeleted) return words('settings.mail.details.accountDeleted');
  if (detail === OUR_DETAILS.notAccepted) return words('settings.mail.details.notAccepted');
  const gaveUp = /^Gave up after (\d+) attempts; the last: ([\s\S]*)$/.exec(detail);
  return gaveUp ? words('settings.mail.details.gaveUp', { count: Number(gaveUp[1]), last: gaveUp[2] as string }) : null;
}

/** The codes of a failed attempt at the relay that a sentence says for people, by key (link_expired and unreadable: their detail says it). */
const ERROR_WORDS = {
  connection_refused: 'settings.mail.errors.connection_refused',
  timeout: 'settings.mail.errors.timeout',
  connection_closed: 'settings.mail.errors.connection_closed',
  dns: 'settings.mail.errors.dns',
  tls: 'settings.mail.errors.tls',
  auth: 'settings.mail.errors.auth',
  network: 'settings.mail.errors.network',
  rejected_temporarily: 'settings.mail.errors.rejected_temporarily',
  rejected: 'settings.mail.errors.rejected',
} as const satisfies Partial<Record<MailError, Key>>;

/**
 * A failed attempt's code (`connection_refused`) in a sentence for people, which the Mail page says
 * in its reader's language beside the code and the relay's own words; null for a code whose
 * detail says it (a link expired, content unreadable) and for none. The log, the command line and
 * the API keep the code alone.
 */
export function errorWords(error: string | null): Words | null {
  const key = error !== null && Object.hasOwn(ERROR_WORDS, error) ? ERROR_WORDS[error as keyof typeof ERROR_WORDS] : undefined;
  return key === undefined ? null : words(key);
}

/** A message as the Mail page and `timetrack mail list` show it: never its content. */
export interface MailView {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  messageId: string;
  status: 'queued' | 'sent' | 'failed' | 'cancelled';
  attempts: number;
  error: string | null;
  /** What the relay answered last (its reply line), or why the last attempt failed. */
  detail: string | null;
  nextAttemptAt: string | null;
  sentAt: string | null;
  createdAt: string;
}

export function mailView(row: MailLogRow): MailView {
  return {
    id: row.id,
    kind: row.kind,
    recipient: row.recipient,
    subject: row.subject,
    messageId: row.messageId,
    status: row.status,
    attempts: row.attempts,
    error: row.error,
    detail: row.detail,
    nextAttemptAt: row.nextAttemptAt === null ? null : toIso(row.nextAttemptAt),
    sentAt: row.sentAt === null ? null : toIso(row.sentAt),
    createdAt: toIso(row.createdAt),
  };
}
