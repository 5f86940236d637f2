import { and, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { members } from '../accounts/schema.js';
import { events } from '../events/schema.js';
import { webhookDeliveries, webhooks } from './schema.js';

/** Delay before attempt 2, 3, 4, 5 and 6 (the first is immediate). */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000, 21_600_000] as const;
export const MAX_ATTEMPTS = 6;
export const DISABLE_AFTER_FAILED_DELIVERIES = 15;
export const LOG_RETENTION_MS = 30 * 86_400_000;
const LEASE_MS = 60_000;
export const CANCELLED_DETAIL = 'The subscription was disabled before this delivery was made; it is not retried.';

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

const p = (name: string) => sql.placeholder(name);

/**
 * The outbox as a queue: leases of each subscription's due deliveries, what an attempt needs to
 * know, and the writing of outcomes (the delivery log and the subscription's failure count).
 * Every statement is prepared once; every write is one short transaction without network I/O.
 */
export function createDeliveryQueue({
  db,
  write,
  clock,
  onDisabled,
}: {
  db: Db;
  write: Write<never>;
  clock: Clock;
  onDisabled: (webhookId: string, failures: number) => void;
}) {
  const statements = prepareStatements(db);

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

    /** A delivery with its subscription and event, or null when it is gone or final (a lease that expired). */
    delivery(id: string) {
      const row = statements.delivery.get({ id });
      return row && row.delivery.nextAttemptAt !== null ? row : null;
    },

    /** The subscription owner's membership now (visibility is the owner's at send time), or null when removed. */
    owner: (workspaceId: string, userId: string) => statements.owner.get({ workspaceId, userId }) ?? null,

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
    recover(): number {
      return db.update(webhookDeliveries).set({ claimedUntil: null }).where(isNotNull(webhookDeliveries.claimedUntil)).run().changes;
    },

    /** Deletes delivery log rows older than 30 days. */
    purge(): number {
      return db
        .delete(webhookDeliveries)
        .where(lt(webhookDeliveries.createdAt, clock.now() - LOG_RETENTION_MS))
        .run().changes;
    },
  };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;

/** The queue's statements, prepared once. */
function prepareStatements(db: Db) {
  const due = and(
    eq(webhookDeliveries.webhookId, p('webhookId')),
    isNotNull(webhookDeliveries.nextAttemptAt),
    lte(webhookDeliveries.nextAttemptAt, p('now')),
    or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, p('now'))),
  );
  return {
    subscriptions: db.select({ id: webhooks.id }).from(webhooks).prepare(),
    // Both read the covering partial index webhook_deliveries_queue, in event order.
    head: db
      .select({ nextAttemptAt: webhookDeliveries.nextAttemptAt, eventSeq: webhookDeliveries.eventSeq })
      .from(webhookDeliveries)
      .where(due)
      .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.eventSeq)
      .limit(1)
      .prepare(),
    batch: db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(due)
      .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.eventSeq)
      .limit(p('limit'))
      .prepare(),
    lease: db
      .update(webhookDeliveries)
      .set({ claimedUntil: sql`${p('until')}` })
      .where(eq(webhookDeliveries.id, p('id')))
      .prepare(),
    delivery: db
      .select({ delivery: webhookDeliveries, webhook: webhooks, event: events })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .innerJoin(events, eq(events.seq, webhookDeliveries.eventSeq))
      .where(eq(webhookDeliveries.id, p('id')))
      .prepare(),
    owner: db
      .select({ userId: members.userId, canViewOthersTime: members.canViewOthersTime, canViewOthersMoney: members.canViewOthersMoney })
      .from(members)
      .where(and(eq(members.workspaceId, p('workspaceId')), eq(members.userId, p('userId'))))
      .prepare(),
    settle: db
      .update(webhookDeliveries)
      .set({
        status: sql`${p('status')}`,
        attempt: sql`${p('attempt')}`,
        responseCode: sql`${p('responseCode')}`,
        error: sql`${p('error')}`,
        errorDetail: sql`${p('errorDetail')}`,
        nextAttemptAt: sql`${p('nextAttemptAt')}`,
        claimedUntil: null,
        updatedAt: sql`${p('now')}`,
      })
      .where(eq(webhookDeliveries.id, p('id')))
      .prepare(),
    // A disabled subscription's deliveries still open end as cancelled (not retried; re-enabling
    // the subscription does not resume them).
    cancelOpen: db
      .update(webhookDeliveries)
      .set({
        status: 'cancelled',
        error: 'subscription_disabled',
        errorDetail: sql`${p('detail')}`,
        nextAttemptAt: null,
        claimedUntil: null,
        updatedAt: sql`${p('now')}`,
      })
      .where(and(eq(webhookDeliveries.webhookId, p('webhookId')), isNotNull(webhookDeliveries.nextAttemptAt)))
      .prepare(),
    release: db
      .update(webhookDeliveries)
      .set({ claimedUntil: null })
      .where(eq(webhookDeliveries.id, p('id')))
      .prepare(),
    succeeded: db
      .update(webhooks)
      .set({ consecutiveFailures: 0 })
      .where(eq(webhooks.id, p('webhookId')))
      .prepare(),
    failed: db
      .update(webhooks)
      .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`, updatedAt: sql`${p('now')}` })
      .where(eq(webhooks.id, p('webhookId')))
      .returning({ failures: webhooks.consecutiveFailures })
      .prepare(),
    disable: db
      .update(webhooks)
      .set({ enabled: false, disabledAt: sql`${p('now')}` })
      .where(eq(webhooks.id, p('webhookId')))
      .prepare(),
  };
}
