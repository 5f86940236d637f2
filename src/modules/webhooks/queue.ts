import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import type { QueueStatements } from './repository.js';

/** An event as a delivery sends it (the events module's record). */
export interface EventRecord {
  entity: string;
  event: string | null;
  payload: string | null;
  createdAt: number;
}

/** The subscription owner's visibility, at send time. */
export interface Owner {
  userId: string;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  /** Whether they read the workspace's invoices (the invoices module's rule, asked by the composition): invoice events go only to them. */
  readsInvoices: boolean;
}

/** Delay before attempt 2, 3, 4, 5 and 6 (the first is immediate). */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000, 21_600_000] as const;
export const MAX_ATTEMPTS = 6;
export const DISABLE_AFTER_FAILED_DELIVERIES = 15;
export const LOG_RETENTION_MS = 30 * 86_400_000;
const LEASE_MS = 60_000;
export const CANCELLED_DETAIL = 'The subscription was disabled before this delivery was made; it is not retried.';

/** Delivery log rows one purge write deletes at most. */
export const PURGE_CHUNK = 1_000;

/** Deliveries a subscription's lane leases at once; their outcomes are written in one transaction. */
const LANE_BATCH = 25;

/**
 * The delivery log's `error`: a stable code scripts can branch on (docs/webhooks.md lists them);
 * the human text is in `error_detail`.
 */
export const DELIVERY_ERRORS = [
  'invalid_url',
  'scheme_not_allowed',
  'unresolvable',
  'blocked_address',
  'timeout',
  'connection_refused',
  'connection_reset',
  'unreachable',
  'tls',
  'network',
  'http_status',
  'redirect_not_followed',
  'visibility_withheld',
  'owner_not_member',
  'subscription_disabled',
] as const;
export type DeliveryError = (typeof DELIVERY_ERRORS)[number];

/** What one attempt came to (a code and its text when it did not succeed). */
export type Outcome =
  | { status: 'success'; responseCode: number }
  | { status: 'failure' | 'redirect_not_followed'; responseCode: number | null; error: DeliveryError; detail: string }
  | { status: 'skipped_visibility'; error: DeliveryError; detail: string }
  | { status: 'cancelled'; error: 'subscription_disabled'; detail: string };

/** An attempt's outcome, with the delivery as it was before the attempt. */
export interface Attempted {
  id: string;
  webhookId: string;
  attempt: number;
  status: string;
  responseCode: number | null;
  outcome: Outcome;
  startedAt: number;
}

/** A subscription's leased deliveries, in event order. */
export interface Lane {
  webhookId: string;
  ids: string[];
  leaseUntil: number;
}

/**
 * The outbox as a queue: leases of each subscription's due deliveries, what an attempt needs to
 * know, and the writing of outcomes (the delivery log and the subscription's failure count).
 * Every statement is prepared once; every write is one short transaction without network I/O.
 */
export function createDeliveryQueue({
  statements,
  write,
  clock,
  ownerOf,
  onDisabled,
}: {
  statements: QueueStatements;
  write: Write<never>;
  clock: Clock;
  /** The subscription owner's membership now (the accounts module's), or undefined when they left. */
  ownerOf: (workspaceId: string, userId: string) => Owner | undefined;
  onDisabled: (webhookId: string, failures: number) => void;
}) {
  /**
   * A failed attempt: retried later, or abandoned when its attempts are used up; an abandoned
   * delivery counts once toward auto-disable. Returns true when it disabled the subscription.
   */
  function settleFailure(
    done: Attempted & { outcome: Extract<Outcome, { status: 'failure' | 'redirect_not_followed' }> },
    now: number,
  ): boolean {
    const attempt = done.attempt + 1;
    const abandoned = attempt >= MAX_ATTEMPTS;
    statements.settle.run({
      id: done.id,
      now,
      status: abandoned ? 'abandoned' : done.outcome.status,
      attempt,
      responseCode: done.outcome.responseCode,
      error: done.outcome.error,
      errorDetail: done.outcome.detail,
      nextAttemptAt: abandoned ? null : done.startedAt + (RETRY_DELAYS_MS[attempt - 1] as number),
    });
    if (!abandoned) return false;
    // A redelivery of an abandoned delivery (attempt 7 on) failing again is not counted twice.
    if (attempt > MAX_ATTEMPTS) return false;
    const hook = statements.failed.get({ webhookId: done.webhookId, now });
    if (!hook || hook.failures < DISABLE_AFTER_FAILED_DELIVERIES) return false;
    statements.disable.run({ webhookId: done.webhookId, now });
    onDisabled(done.webhookId, hook.failures);
    return true;
  }

  return {
    /** Leases the due deliveries of the idle subscription whose oldest due delivery is oldest. */
    claimLane(busy: ReadonlySet<string>): Lane | null {
      return write(() => {
        const now = clock.now();
        let best: { webhookId: string; nextAttemptAt: number; eventSeq: number } | null = null;
        for (const { id } of statements.subscriptions.all()) {
          if (busy.has(id)) continue;
          const head = statements.head.get({ webhookId: id, now });
          if (!head || head.nextAttemptAt === null) continue;
          if (
            !best ||
            head.nextAttemptAt < best.nextAttemptAt ||
            (head.nextAttemptAt === best.nextAttemptAt && head.eventSeq < best.eventSeq)
          ) {
            best = { webhookId: id, nextAttemptAt: head.nextAttemptAt, eventSeq: head.eventSeq };
          }
        }
        if (!best) return null;
        const ids = statements.batch.all({ webhookId: best.webhookId, now, limit: LANE_BATCH }).map((row) => row.id);
        const leaseUntil = now + LEASE_MS;
        for (const id of ids) statements.lease.run({ id, until: leaseUntil });
        return { webhookId: best.webhookId, ids, leaseUntil };
      });
    },

    /** A delivery with its subscription, or null when it is gone or final (a lease that expired). */
    delivery(id: string) {
      const row = statements.delivery.get({ id });
      return row && row.delivery.nextAttemptAt !== null ? row : null;
    },

    /** The subscription owner's membership now (visibility is the owner's at send time), or null when removed. */
    owner: (workspaceId: string, userId: string): Owner | null => ownerOf(workspaceId, userId) ?? null,

    /**
     * Writes attempts' outcomes in one transaction; `unsent` leases are released. A subscription
     * disabled by these outcomes has its other open deliveries cancelled in the same transaction
     * (after the outcomes of attempts already made, which are written as they came).
     */
    record(attempts: Attempted[], unsent: string[] = []): void {
      if (attempts.length === 0 && unsent.length === 0) return;
      write(() => {
        const now = clock.now();
        const disabled: string[] = [];
        for (const id of unsent) statements.release.run({ id });
        for (const done of attempts) {
          // No attempt made (cancelled, skipped): the delivery keeps its count and last code.
          const settle = {
            id: done.id,
            now,
            attempt: done.attempt,
            responseCode: done.responseCode,
            error: null as string | null,
            errorDetail: null as string | null,
            nextAttemptAt: null,
          };
          const { outcome } = done;
          if (outcome.status === 'cancelled' || outcome.status === 'skipped_visibility')
            statements.settle.run({ ...settle, status: outcome.status, error: outcome.error, errorDetail: outcome.detail });
          else if (outcome.status === 'success') {
            statements.settle.run({ ...settle, status: 'success', attempt: done.attempt + 1, responseCode: outcome.responseCode });
            statements.succeeded.run({ webhookId: done.webhookId });
          } else if (settleFailure({ ...done, outcome }, now)) disabled.push(done.webhookId);
        }
        for (const webhookId of disabled) statements.cancelOpen.run({ webhookId, now, detail: CANCELLED_DETAIL });
      });
    },

    /** Releases leases left by a previous process (its attempts count as never made). */
    recover: (): number => write(() => statements.recover()),

    /**
     * Deletes up to PURGE_CHUNK of the delivery log rows older than 30 days, in one write: a caller
     * that gets PURGE_CHUNK back asks again. So a large purge (the first after a long stop) never
     * holds the server's writes for more than one chunk's time.
     */
    purge: (): number => write(() => statements.purge(clock.now() - LOG_RETENTION_MS, PURGE_CHUNK)),
  };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;
