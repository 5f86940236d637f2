import { and, eq, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { DomainEvent } from '../events/service.js';
import { newDeliveryId } from './crypto.js';
import { webhookDeliveries, webhooks } from './schema.js';

/**
 * The outbox: run by the event log inside the transaction of every recorded event, it writes one
 * pending delivery per enabled subscription of the workspace that chose the event, so a
 * committed event always has its deliveries. Returns how many it wrote.
 */
export function createOutbox(db: Db, clock: Clock) {
  const enabledOf = db
    .select({ id: webhooks.id, events: webhooks.events })
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, sql.placeholder('workspaceId')), eq(webhooks.enabled, true)))
    .prepare();
  const insertDelivery = db
    .insert(webhookDeliveries)
    .values({
      id: sql.placeholder('id'),
      webhookId: sql.placeholder('webhookId'),
      eventSeq: sql.placeholder('eventSeq'),
      event: sql.placeholder('event'),
      status: 'pending',
      nextAttemptAt: sql.placeholder('now'),
      createdAt: sql.placeholder('now'),
      updatedAt: sql.placeholder('now'),
    })
    .prepare();

  return (_tx: Db, seq: number, event: DomainEvent): number => {
    if (event.event === null) return 0;
    const now = clock.now();
    // The prepared statements run on the connection that carries the event's transaction.
    const targets = enabledOf
      .all({ workspaceId: event.workspaceId })
      .filter((w) => (JSON.parse(w.events) as string[]).includes(event.event as string));
    for (const target of targets) insertDelivery.run({ id: newDeliveryId(), webhookId: target.id, eventSeq: seq, event: event.event, now });
    return targets.length;
  };
}
