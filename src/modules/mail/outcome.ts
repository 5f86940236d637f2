/**
 * What one attempt at the relay came to, and how the outbox answers it: a temporary failure is
 * tried again later (backoff), a permanent one is given up with its reason kept.
 */

/** Delay before attempt 2, 3, … 9 (the first is at once): about two days in all. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * A failed attempt's stable code (docs/operations.md lists them); its text, what the relay said
 * or what went wrong before it could, is kept beside it.
 */
export const MAIL_ERRORS = [
  'connection_refused',
  'timeout',
  'connection_closed',
  'dns',
  'tls',
  'auth',
  'network',
  'rejected_temporarily',
  'rejected',
  'link_expired',
  'unreadable',
] as const;
export type MailError = (typeof MAIL_ERRORS)[number];

/** Codes that say the relay could not be reached at all (GET /readyz's mail check is degraded while mail waits). */
export const UNREACHABLE: ReadonlySet<MailError> = new Set(['connection_refused', 'timeout', 'connection_closed', 'dns', 'tls', 'network']);

export type Outcome = { status: 'sent'; response: string } | { status: 'temporary' | 'permanent'; error: MailError; detail: string };

/** The error nodemailer hands back (a Node socket error underneath, or the relay's reply). */
interface SendError {
  code?: string;
  originalCode?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  command?: string;
}

/**
 * Classifies a failed send: a reply of the relay by its class (4xx temporary, 5xx permanent,
 * except 503, a wrong moment of the session), anything before a reply by what it was. An
 * authentication failure waits (the operator fixes SMTP_URL, and the queue goes out then).
 */
export function classify(error: unknown): Extract<Outcome, { status: 'temporary' | 'permanent' }> {
  const e = (error ?? {}) as SendError;
  const detail = oneLine(e.response ?? e.message ?? String(error));
  const code = e.code ?? '';
  const underneath = e.originalCode ?? code;
  if (code === 'EAUTH' || code === 'ENOAUTH') return { status: 'temporary', error: 'auth', detail };
  // STARTTLS refused or failed (a relay that does not offer it, a certificate not trusted): nothing was sent in the clear; it waits for the operator.
  if (code === 'ETLS' || e.command === 'STARTTLS') return { status: 'temporary', error: 'tls', detail };
  if (typeof e.responseCode === 'number' && e.responseCode >= 400) {
    const permanent = e.responseCode >= 500 && e.responseCode !== 503;
    return { status: permanent ? 'permanent' : 'temporary', error: permanent ? 'rejected' : 'rejected_temporarily', detail };
  }
  if (underneath === 'ECONNREFUSED') return { status: 'temporary', error: 'connection_refused', detail };
  if (code === 'ETIMEDOUT' || underneath === 'ETIMEDOUT') return { status: 'temporary', error: 'timeout', detail };
  if (code === 'EDNS' || underneath === 'ENOTFOUND' || underneath === 'EAI_AGAIN') return { status: 'temporary', error: 'dns', detail };
  if (/certificate|TLS|SSL/i.test(detail)) return { status: 'temporary', error: 'tls', detail };
  if (code === 'ECONNECTION' || underneath === 'ECONNRESET' || underneath === 'EPIPE')
    return { status: 'temporary', error: 'connection_closed', detail };
  return { status: 'temporary', error: 'network', detail };
}

/** A reply or message on one line, at most 500 characters (it is shown on a page and in the log). */
export const oneLine = (text: string): string =>
  text
    .replace(/[\p{Cc}]+/gu, ' ')
    .trim()
    .slice(0, 500);
