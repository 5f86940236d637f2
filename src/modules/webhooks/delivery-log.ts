import type { Clock } from '../../clock.js';
import { webhookErrors } from './errors.js';
import type { Write } from '../../db/write.js';
import type { CursorCodec } from '../../kernel/cursor.js';
import { isOperator, type Principal } from '../../principal.js';
import type { WebhookRow, WebhooksRepository } from './repository.js';
import { deliveryView, pingView } from './views.js';

/**
 * Deliveries a redelivery can change: final, not a success, and not withheld by visibility
 * (sent again, a withheld one is withheld again). A cancelled one (its subscription was
 * disabled) resumes its schedule.
 */
export const REDELIVERABLE = new Set(['failure', 'redirect_not_followed', 'abandoned', 'cancelled']);

/** The delivery log's page links name their listing in the signed cursor. */
const LOG_LISTING = 'webhook-deliveries';

/**
 * A subscription's delivery log as a person reads it (paged, newest first) and the redelivery of
 * one delivery (part of the webhooks service). A member never sees the deliveries withheld from
 * them (`skipped_visibility`: a colleague's entry they may not see, an invoice without money
 * visibility, events while they were not a member): those are only counted.
 */
export function createDeliveryLog({
  repo,
  write,
  clock,
  cursors,
  find,
  onQueued,
}: {
  repo: WebhooksRepository;
  write: Write<never>;
  clock: Clock;
  cursors: CursorCodec;
  find: (principal: Principal, id: string) => WebhookRow;
  onQueued?: () => void;
}) {
  /** The subscription, when the principal may manage it and it is enabled (a disabled one sends nothing). */
  const enabledSubscription = (principal: Principal, webhookId: string): void => {
    if (!find(principal, webhookId).enabled) throw webhookErrors.disabled();
  };
  /** A delivery of the subscription, unless withheld from this member (to whom it does not exist). */
  const visibleDelivery = (principal: Principal, webhookId: string, deliveryId: string) => {
    const delivery = repo.delivery(webhookId, deliveryId);
    if (!delivery || (!isOperator(principal) && delivery.status === 'skipped_visibility')) throw webhookErrors.deliveryNotFound(deliveryId);
    return delivery;
  };

  return {
    /**
     * A page of the delivery log, newest first, after the page link `cursor` (opaque, signed:
     * an altered one is refused); `next` continues it (null at the end). For a member, the
     * deliveries withheld from them are left out and counted in `withheld`.
     */
    deliveryPage(principal: Principal, id: string, page: { limit: number; cursor?: string | null }) {
      find(principal, id);
      const member = !isOperator(principal);
      const after = page.cursor ? cursors.decode(LOG_LISTING, { id }, page.cursor) : null;
      const rows = repo.deliveryPage(id, page.limit + 1, after && { createdAt: after.start, eventSeq: Number(after.id) }, member);
      const withheld = member ? repo.withheldCount(id) : 0;
      const list = rows.slice(0, page.limit);
      const last = list[list.length - 1];
      const more = rows.length > page.limit;
      // The test pings made in this page's span of time, to show among its deliveries.
      const pings = repo.pingsBetween(id, more && last ? last.createdAt : null, after ? after.start : null);
      return {
        deliveries: list.map(deliveryView),
        pings: pings.map(pingView),
        withheld,
        next: more && last ? cursors.encode(LOG_LISTING, { id }, { start: last.createdAt, id: String(last.eventSeq) }) : null,
      };
    },

    /**
     * Sends a delivery that did not succeed again: a new attempt of the same delivery id (so a
     * receiver deduplicating by id sees it once), signed afresh when it is made, now. An abandoned
     * delivery gets one more attempt; a cancelled one resumes its schedule. The subscription must
     * be enabled.
     */
    redeliver(principal: Principal, webhookId: string, deliveryId: string): { id: string } {
      enabledSubscription(principal, webhookId);
      write(() => {
        const delivery = visibleDelivery(principal, webhookId, deliveryId);
        if (delivery.nextAttemptAt !== null) throw webhookErrors.stillQueued();
        if (delivery.status === 'success') throw webhookErrors.succeeded();
        if (!REDELIVERABLE.has(delivery.status)) throw webhookErrors.withheld();
        repo.requeue(deliveryId, clock.now());
      });
      if (onQueued) setImmediate(onQueued);
      return { id: deliveryId };
    },

    /**
     * "Retry now": a delivery waiting for its next attempt is made due at once (the sender picks
     * it up within a second); one in flight, final, or withheld is refused with the reason.
     */
    retryNow(principal: Principal, webhookId: string, deliveryId: string): { id: string } {
      enabledSubscription(principal, webhookId);
      write(() => {
        const delivery = visibleDelivery(principal, webhookId, deliveryId);
        if (delivery.nextAttemptAt === null) throw webhookErrors.notWaiting();
        if (!repo.dueNow(webhookId, deliveryId, clock.now())) throw webhookErrors.inFlight();
      });
      if (onQueued) setImmediate(onQueued);
      return { id: deliveryId };
    },

    /** The whole delivery log of a subscription, newest first (the command line). */
    deliveries(principal: Principal, id: string, limit = 1000) {
      find(principal, id);
      return repo.deliveryPage(id, limit, null, false).map(deliveryView);
    },
  };
}
