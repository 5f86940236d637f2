import { toIso } from '../../kernel/time.js';
import { type Words, words } from '../../i18n/index.js';
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
