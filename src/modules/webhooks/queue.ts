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
/** Deliveries a subscription's lane leases at once; their outcomes are written in one transaction. */
const LANE_BATCH = 25;

/** What one attempt came to. */
export type Outcome =
  | { status: 'success'; responseCode: number }
  | { status: 'failure' | 'redirect_not_followed'; responseCode: number | null; error: string }
  | { status: 'skipped_visibility'; error: string }
  | { status: 'final'; error: string };

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

  /** A delivery whose attempts are used up (or that no longer exists) is done; a failure counts once toward auto-disable. */
  function settleFailure(
    done: Attempted & { outcome: Extract<Outcome, { status: 'failure' | 'redirect_not_followed' }> },
    now: number,
  ): void {
    const attempt = done.attempt + 1;
    const abandoned = attempt >= MAX_ATTEMPTS;
    statements.settle.run({
      id: done.id,
      now,
      status: abandoned ? 'abandoned' : done.outcome.status,
      attempt,
      responseCode: done.outcome.responseCode,
      error: done.outcome.error,
      nextAttemptAt: abandoned ? null : done.startedAt + (RETRY_DELAYS_MS[attempt - 1] as number),
    });
    if (!abandoned) return;
    const hook = statements.failed.get({ webhookId: done.webhookId, now });
    if (hook && hook.failures >= DISABLE_AFTER_FAILED_DELIVERIES) {
      statements.disable.run({ webhookId: done.webhookId, now });
      onDisabled(done.webhookId, hook.failures);
    }
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

    /** Writes attempts' outcomes in one transaction; `unsent` leases are released. */
    record(attempts: Attempted[], unsent: string[] = []): void {
      if (attempts.length === 0 && unsent.length === 0) return;
      write(() => {
        const now = clock.now();
        for (const id of unsent) statements.release.run({ id });
        for (const done of attempts) {
          // No attempt made (final, skipped): the delivery keeps its count, status and last code.
          const settle = {
            id: done.id,
            now,
            attempt: done.attempt,
            responseCode: done.responseCode,
            error: null as string | null,
            nextAttemptAt: null,
          };
          const { outcome } = done;
          if (outcome.status === 'final') statements.settle.run({ ...settle, status: done.status, error: outcome.error });
          else if (outcome.status === 'skipped_visibility')
            statements.settle.run({ ...settle, status: 'skipped_visibility', error: outcome.error });
          else if (outcome.status === 'success') {
            statements.settle.run({ ...settle, status: 'success', attempt: done.attempt + 1, responseCode: outcome.responseCode });
            statements.succeeded.run({ webhookId: done.webhookId });
          } else settleFailure({ ...done, outcome }, now);
        }
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
        nextAttemptAt: sql`${p('nextAttemptAt')}`,
        claimedUntil: null,
        updatedAt: sql`${p('now')}`,
      })
      .where(eq(webhookDeliveries.id, p('id')))
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
