import { and, count, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { webhookDeliveries, webhookPings, webhooks } from './schema.js';
import { onFirstUse, preparedOnFirstUse } from '../../db/prepared.js';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type PingRow = typeof webhookPings.$inferSelect;

const p = (name: string) => sql.placeholder(name);

/**
 * Every SQL statement of the webhooks module, over its own tables: the subscriptions, and the
 * deliveries (the outbox, the sender's queue and the delivery log at once).
 */
export function createWebhooksRepository(db: Db) {
  return { ...subscriptions(db), ...outbox(db), ...deliveryLog(db), queue: queueStatements(db), figures: figures(db) };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
export type QueueStatements = WebhooksRepository['queue'];

function subscriptions(db: Db) {
  return {
    webhook: (id: string): WebhookRow | undefined => db.select().from(webhooks).where(eq(webhooks.id, id)).get(),
    /** A workspace's subscriptions, or only one member's, oldest first. */
    webhooks: (workspaceId: string, userId?: string): WebhookRow[] =>
      db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.workspaceId, workspaceId), userId === undefined ? undefined : eq(webhooks.userId, userId)))
        .orderBy(webhooks.createdAt, webhooks.id)
        .all(),
    insertWebhook: (values: typeof webhooks.$inferInsert): void => {
      db.insert(webhooks).values(values).run();
    },
    enableWebhook: (id: string, now: number): void => {
      db.update(webhooks).set({ enabled: true, consecutiveFailures: 0, disabledAt: null, updatedAt: now }).where(eq(webhooks.id, id)).run();
    },
    deleteWebhook: (id: string): void => {
      db.delete(webhooks).where(eq(webhooks.id, id)).run();
    },
    deleteWebhooksOf: (userId: string): void => {
      db.delete(webhooks).where(eq(webhooks.userId, userId)).run();
    },
    sealedSecrets: (): Array<{ id: string; sealed: string }> =>
      db.select({ id: webhooks.id, sealed: webhooks.secretCiphertext }).from(webhooks).all(),
    setSealedSecret: (id: string, sealed: string): void => {
      db.update(webhooks).set({ secretCiphertext: sealed }).where(eq(webhooks.id, id)).run();
    },
  };
}

/** The outbox's two statements, run inside the transaction of every entry and invoice event. */
function outbox(db: Db) {
  const enabledOf = onFirstUse(db, () =>
    db
      .select({ id: webhooks.id, events: webhooks.events })
      .from(webhooks)
      .where(and(eq(webhooks.workspaceId, p('workspaceId')), eq(webhooks.enabled, true)))
      .prepare(),
  );
  const insertDelivery = onFirstUse(db, () =>
    db
      .insert(webhookDeliveries)
      .values({
        id: p('id'),
        webhookId: p('webhookId'),
        eventSeq: p('eventSeq'),
        event: p('event'),
        status: 'pending',
        nextAttemptAt: p('now'),
        createdAt: p('now'),
        updatedAt: p('now'),
      })
      .prepare(),
  );
  return {
    enabledWebhooks: (workspaceId: string): Array<{ id: string; events: string }> => enabledOf().all({ workspaceId }),
    insertDelivery: (values: { id: string; webhookId: string; eventSeq: number; event: string; now: number }): void => {
      insertDelivery().run(values);
    },
  };
}

/** The delivery log as a person reads it, and a redelivery. */
function deliveryLog(db: Db) {
  return {
    /** A page of a subscription's log, newest first, after (createdAt, eventSeq); withheld deliveries left out on request. */
    deliveryPage: (
      webhookId: string,
      limit: number,
      after: { createdAt: number; eventSeq: number } | null,
      hideWithheld: boolean,
    ): DeliveryRow[] =>
      db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.webhookId, webhookId),
            hideWithheld ? ne(webhookDeliveries.status, 'skipped_visibility') : undefined,
            after === null
              ? undefined
              : sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.eventSeq}) < (${after.createdAt}, ${after.eventSeq})`,
          ),
        )
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventSeq))
        .limit(limit)
        .all(),
    withheldCount: (webhookId: string): number =>
      db
        .select({ n: count() })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, 'skipped_visibility')))
        .get()?.n ?? 0,
    delivery: (webhookId: string, id: string): DeliveryRow | undefined =>
      db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.webhookId, webhookId)))
        .get(),
    /** Which of these sync events a delivery log row still refers to (they stay while it does). */
    eventsInUse: (seqs: number[]): Set<number> =>
      new Set(
        seqs.length === 0
          ? []
          : db
              .selectDistinct({ seq: webhookDeliveries.eventSeq })
              .from(webhookDeliveries)
              .where(sql`${webhookDeliveries.eventSeq} in (select value from json_each(${JSON.stringify(seqs)}))`)
              .all()
              .map((r) => r.seq),
      ),
    /** A delivery waiting for its next attempt, made due now (not one in flight); whether it was. */
    dueNow: (webhookId: string, id: string, now: number): boolean =>
      db
        .update(webhookDeliveries)
        .set({ nextAttemptAt: now, updatedAt: now })
        .where(
          and(
            eq(webhookDeliveries.id, id),
            eq(webhookDeliveries.webhookId, webhookId),
            isNotNull(webhookDeliveries.nextAttemptAt),
            or(isNull(webhookDeliveries.claimedUntil), lt(webhookDeliveries.claimedUntil, now)),
          ),
        )
        .run().changes === 1,
    insertPing: (values: typeof webhookPings.$inferInsert): void => {
      db.insert(webhookPings).values(values).run();
    },
    /** Keeps a subscription's newest `keep` pings. */
    prunePings: (webhookId: string, keep: number): void => {
      const newest = db
        .select({ id: webhookPings.id })
        .from(webhookPings)
        .where(eq(webhookPings.webhookId, webhookId))
        .orderBy(desc(webhookPings.createdAt))
        .limit(keep);
      db.delete(webhookPings)
        .where(and(eq(webhookPings.webhookId, webhookId), notInArray(webhookPings.id, newest)))
        .run();
    },
    /** A subscription's pings made after `after` and at or before `until` (either open), newest first. */
    pingsBetween: (webhookId: string, after: number | null, until: number | null): PingRow[] =>
      db
        .select()
        .from(webhookPings)
        .where(
          and(
            eq(webhookPings.webhookId, webhookId),
            after === null ? undefined : gt(webhookPings.createdAt, after),
            until === null ? undefined : lte(webhookPings.createdAt, until),
          ),
        )
        .orderBy(desc(webhookPings.createdAt))
        .all(),
    /** Queues a final delivery again: a new attempt now. */
    requeue: (id: string, now: number): void => {
      db.update(webhookDeliveries)
        .set({ status: 'pending', nextAttemptAt: now, claimedUntil: null, updatedAt: now })
        .where(eq(webhookDeliveries.id, id))
        .run();
    },
  };
}

/** The delivery figures of GET /metrics, read once per scrape. */
function figures(db: Db) {
  // Open deliveries are exactly the rows of the partial index webhook_deliveries_queue.
  const open = onFirstUse(db, () =>
    db
      .select({
        pending: count(),
        due: sql<number>`coalesce(sum(${webhookDeliveries.nextAttemptAt} <= ${p('now')}), 0)`,
        oldest: sql<number | null>`min(${webhookDeliveries.createdAt})`,
      })
      .from(webhookDeliveries)
      .where(isNotNull(webhookDeliveries.nextAttemptAt))
      .prepare(),
  );
  // Settled deliveries created in [from, to): the created_at index.
  const settled = onFirstUse(db, () =>
    db
      .select({ status: webhookDeliveries.status, n: count() })
      .from(webhookDeliveries)
      .where(
        and(
          sql`${webhookDeliveries.createdAt} >= ${p('from')}`,
          sql`${webhookDeliveries.createdAt} < ${p('to')}`,
          isNull(webhookDeliveries.nextAttemptAt),
        ),
      )
      .groupBy(webhookDeliveries.status)
      .prepare(),
  );
  return {
    open: (now: number) => open().get({ now }) ?? { pending: 0, due: 0, oldest: null },
    settled: (from: number, to: number) => settled().all({ from, to }),
  };
}

/** The sender's queue, prepared once: leases, outcomes, the failure count; each write is one short transaction of the sender. */
function queueStatements(db: Db) {
  const due = and(
    eq(webhookDeliveries.webhookId, p('webhookId')),
    isNotNull(webhookDeliveries.nextAttemptAt),
    lte(webhookDeliveries.nextAttemptAt, p('now')),
    or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, p('now'))),
  );
  const statements = preparedOnFirstUse(db, {
    subscriptions: () => db.select({ id: webhooks.id }).from(webhooks).prepare(),
    // Both read the covering partial index webhook_deliveries_queue, in event order.
    head: () =>
      db
        .select({ nextAttemptAt: webhookDeliveries.nextAttemptAt, eventSeq: webhookDeliveries.eventSeq })
        .from(webhookDeliveries)
        .where(due)
        .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.eventSeq)
        .limit(1)
        .prepare(),
    batch: () =>
      db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(due)
        .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.eventSeq)
        .limit(p('limit'))
        .prepare(),
    lease: () =>
      db
        .update(webhookDeliveries)
        .set({ claimedUntil: sql`${p('until')}` })
        .where(eq(webhookDeliveries.id, p('id')))
        .prepare(),
    delivery: () =>
      db
        .select({ delivery: webhookDeliveries, webhook: webhooks })
        .from(webhookDeliveries)
        .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
        .where(eq(webhookDeliveries.id, p('id')))
        .prepare(),
    settle: () =>
      db
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
    cancelOpen: () =>
      db
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
    release: () =>
      db
        .update(webhookDeliveries)
        .set({ claimedUntil: null })
        .where(eq(webhookDeliveries.id, p('id')))
        .prepare(),
    succeeded: () =>
      db
        .update(webhooks)
        .set({ consecutiveFailures: 0 })
        .where(eq(webhooks.id, p('webhookId')))
        .prepare(),
    failed: () =>
      db
        .update(webhooks)
        .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`, updatedAt: sql`${p('now')}` })
        .where(eq(webhooks.id, p('webhookId')))
        .returning({ failures: webhooks.consecutiveFailures })
        .prepare(),
    disable: () =>
      db
        .update(webhooks)
        .set({ enabled: false, disabledAt: sql`${p('now')}` })
        .where(eq(webhooks.id, p('webhookId')))
        .prepare(),
  });
  return Object.assign(statements, {
    /** Releases every lease (a previous process's attempts count as never made). */
    recover: (): number =>
      db.update(webhookDeliveries).set({ claimedUntil: null }).where(isNotNull(webhookDeliveries.claimedUntil)).run().changes,
    /** Deletes up to `limit` of the oldest delivery log rows created before `before` (through webhook_deliveries_created). */
    purge: (before: number, limit: number): number =>
      db
        .delete(webhookDeliveries)
        .where(
          inArray(
            webhookDeliveries.id,
            db
              .select({ id: webhookDeliveries.id })
              .from(webhookDeliveries)
              .where(lt(webhookDeliveries.createdAt, before))
              .orderBy(webhookDeliveries.createdAt)
              .limit(limit),
          ),
        )
        .run().changes,
  });
}
