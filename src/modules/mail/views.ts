import { toIso } from '../../kernel/time.js';
import type { MailLogRow } from './repository.js';

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
