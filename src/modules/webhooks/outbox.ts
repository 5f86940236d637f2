import type { Clock } from '../../clock.js';
import type { DomainEvent } from '../events/service.js';
import { newDeliveryId } from './crypto.js';
import type { WebhooksRepository } from './repository.js';

/**
 * The outbox: run by the event log inside the transaction of every recorded event, it writes one
 * pending delivery per enabled subscription of the workspace that chose the event, so a
 * committed event always has its deliveries. Returns how many it wrote.
 */
export function createOutbox(repo: WebhooksRepository, clock: Clock) {
  return (seq: number, event: DomainEvent): number => {
    if (event.event === null) return 0;
    const now = clock.now();
    // The prepared statements run on the connection that carries the event's transaction.
    const targets = repo
      .enabledWebhooks(event.workspaceId)
      .filter((w) => (JSON.parse(w.events) as string[]).includes(event.event as string));
    for (const target of targets)
      repo.insertDelivery({ id: newDeliveryId(), webhookId: target.id, eventSeq: seq, event: event.event, now });
    return targets.length;
  };
}
