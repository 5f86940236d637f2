import { and, desc, eq, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { DomainError, notFound } from '../../errors.js';
import { toIso } from '../../kernel/time.js';
import { webhookDeliveries, type webhooks } from './schema.js';

/** Where a page of the delivery log starts: after this delivery (newest first). */
export interface DeliveryPosition {
  createdAt: number;
  eventSeq: number;
}

/** Deliveries a person may send again: final, and not a success. */
export const REDELIVERABLE = new Set(['failure', 'redirect_not_followed', 'abandoned', 'cancelled', 'skipped_visibility']);

/**
 * A subscription's delivery log as a person reads it (paged, newest first) and the redelivery of
 * one delivery (part of the webhooks service).
 */
export function createDeliveryLog({
  db,
  clock,
  find,
  onQueued,
}: {
  db: Db;
  clock: Clock;
  find: (id: string) => typeof webhooks.$inferSelect;
  onQueued?: () => void;
}) {
  return {
    /** A page of the delivery log, newest first, after `after`; `next` continues it (null at the end). */
    deliveryPage(id: string, limit: number, after: DeliveryPosition | null) {
      find(id);
      const rows = db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.webhookId, id),
            after === null
              ? undefined
              : sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.eventSeq}) < (${after.createdAt}, ${after.eventSeq})`,
          ),
        )
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventSeq))
        .limit(limit + 1)
        .all();
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        deliveries: page.map(deliveryView),
        next: rows.length > limit && last ? { createdAt: last.createdAt, eventSeq: last.eventSeq } : null,
      };
    },

    /**
     * Sends a delivery that did not succeed again: a new attempt of the same delivery id (so a
     * receiver deduplicating by id sees it once), signed afresh when it is made, now. An abandoned
     * delivery gets one more attempt; one that ended early (cancelled, withheld) resumes its
     * schedule. The subscription must be enabled.
     */
    redeliver(webhookId: string, deliveryId: string): { id: string } {
      const webhook = find(webhookId);
      if (!webhook.enabled) throw new DomainError('invalid', 'The subscription is disabled: re-enable it first, then redeliver.');
      const delivery = db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
        .get();
      if (!delivery) throw notFound(`Delivery ${deliveryId}`);
      if (delivery.nextAttemptAt !== null)
        throw new DomainError('conflict', 'This delivery is still queued: its next attempt is already due.');
      if (!REDELIVERABLE.has(delivery.status))
        throw new DomainError('conflict', 'This delivery succeeded; only deliveries that did not succeed are sent again.');
      const now = clock.now();
      db.update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now, claimedUntil: null, updatedAt: now })
        .where(eq(webhookDeliveries.id, deliveryId))
        .run();
      if (onQueued) setImmediate(onQueued);
      return { id: deliveryId };
    },

    /** The delivery log of a subscription, newest first. */
    deliveries(id: string, limit = 1000) {
      find(id);
      return db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, id))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventSeq))
        .limit(limit)
        .all()
        .map(deliveryView);
    },
  };
}

export function deliveryView(d: typeof webhookDeliveries.$inferSelect) {
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
