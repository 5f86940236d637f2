import { toIso } from '../../kernel/time.js';
import type { Outcome } from './queue.js';
import type { DeliveryRow, PingRow, WebhookRow } from './repository.js';

/** A subscription as the command line prints it and the settings page lists it: never its secret. */
export function webhookView(w: WebhookRow) {
  return {
    id: w.id,
    userId: w.userId,
    url: w.url,
    events: JSON.parse(w.events) as string[],
    enabled: w.enabled,
    consecutiveFailures: w.consecutiveFailures,
    disabledAt: w.disabledAt === null ? null : toIso(w.disabledAt),
    createdAt: toIso(w.createdAt),
  };
}

/** A delivery log row as the command line prints it and the settings page shows it. */
export function deliveryView(d: DeliveryRow) {
  return {
    id: d.id,
    event: d.event,
    status: d.status,
    attempt: d.attempt,
    responseCode: d.responseCode,
    error: d.error,
    errorDetail: d.errorDetail,
    nextAttemptAt: d.nextAttemptAt === null ? null : toIso(d.nextAttemptAt),
    createdAt: toIso(d.createdAt),
    updatedAt: toIso(d.updatedAt),
  };
}

/** A test ping as the delivery log shows it. */
export function pingView(p: PingRow) {
  return {
    id: p.id,
    status: p.status,
    responseCode: p.responseCode,
    error: p.error,
    errorDetail: p.errorDetail,
    createdAt: toIso(p.createdAt),
  };
}

/**
 * A test ping's outcome as a person reads it: one short sentence (the error codes and Node's
 * texts are for the log and the command line).
 */
export function pingSentence(outcome: Outcome): string {
  if (outcome.status === 'success') return `The receiver answered ${outcome.responseCode}.`;
  if (outcome.status !== 'failure' && outcome.status !== 'redirect_not_followed') return 'The ping was not sent.';
  switch (outcome.error) {
    case 'http_status':
      return `The receiver answered ${outcome.responseCode ?? 'with an error'}; a delivery needs a 2xx answer.`;
    case 'redirect_not_followed':
      return `The receiver answered with a redirect (${outcome.responseCode ?? '3xx'}); redirects are never followed, so use the final URL.`;
    case 'timeout':
      return 'The receiver did not answer within 10 seconds.';
    case 'connection_refused':
      return 'The receiver refused the connection: is it running, on that port?';
    case 'tls':
      return "The receiver's TLS certificate could not be verified for its host name.";
    case 'blocked_address':
    case 'scheme_not_allowed':
    case 'unresolvable':
    case 'invalid_url':
      return 'This target is not allowed, or its host name does not resolve.';
    default:
      return 'The receiver could not be reached.';
  }
}

/** Each event a subscription may choose, in one line (the specification's "fires when"). */
export const EVENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'entry.started': 'A timer starts.',
  'entry.stopped': 'A running timer stops.',
  'entry.created': 'A completed entry is created with a start and an end.',
  'entry.updated': 'An entry is edited.',
  'entry.deleted': 'An entry is deleted.',
  'invoice.created':
    'An invoice is created (sent only if you read invoices: you see colleagues’ money, and are an owner or see their time).',
  'invoice.status_changed':
    'An invoice moves between draft, sent, paid and void (sent only if you read invoices: you see colleagues’ money, and are an owner or see their time).',
};
