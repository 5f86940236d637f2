import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { toIso } from '../../kernel/time.js';
import { errorFields, type Logger } from '../../logger.js';
import { createAttempt, createSignedPost, type SenderOptions } from './attempt.js';
import { newDeliveryId } from './crypto.js';
import { type EventRecord, laneConnection, type Owner } from './post.js';
import { type Attempted, createDeliveryQueue, type Lane, type Outcome } from './queue.js';
import type { WebhooksRepository } from './repository.js';
import { coalescing } from '../../kernel/coalesce.js';

/** What the sender reads of other modules: an event's record, and the subscription owner's membership now. */
export interface SenderPorts {
  eventOf: (seq: number) => EventRecord | undefined;
  ownerOf: (workspaceId: string, userId: string) => Owner | undefined;
}

export { DISABLE_AFTER_FAILED_DELIVERIES, LOG_RETENTION_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './queue.js';

/** A lane writes the outcomes it has after this long, even mid-batch (a slow receiver). */
const FLUSH_AFTER_MS = 1_000;
const PURGE_EVERY_MS = 3_600_000;

/**
 * The webhook sender. Each subscription is a lane: it leases up to 25 of its oldest due
 * deliveries (a lease, so no tick sends one twice and attempts left in flight by a crash are due
 * again), sends them one at a time in event order, and writes their outcomes in one short
 * transaction; up to `concurrency` lanes run at once. No network I/O happens inside a transaction.
 */
export function createWebhookSender({
  repo,
  write,
  ports,
  clock,
  logger,
  options,
}: {
  repo: WebhooksRepository;
  /** The sender's own write (on its thread's connection): its transactions record no events. */
  write: Write<never>;
  ports: SenderPorts;
  clock: Clock;
  logger: Logger;
  options: SenderOptions;
}) {
  let lastPurge = 0;
  /** Subscriptions whose lane runs in this process. */
  const active = new Set<string>();
  const queue = createDeliveryQueue({
    statements: repo.queue,
    write,
    clock,
    ownerOf: ports.ownerOf,
    onDisabled: (webhookId, failures) => logger.warn('webhook disabled after consecutive failed deliveries', { webhookId, failures }),
  });

  const attempt = createAttempt({ queue, eventOf: ports.eventOf, clock, options });
  const signedPost = createSignedPost({ clock, options });

  /** Sends a lane's deliveries one at a time, in event order, within its lease. */
  async function runLane(lane: Lane): Promise<void> {
    let outcomes: Attempted[] = [];
    let flushedAt = clock.now();
    let next = 0;
    // One connection for the lane's deliveries (to its one target), closed when the batch ends.
    const connection = laneConnection(options.ca);
    try {
      for (; next < lane.ids.length; next++) {
        // An attempt must end inside the lease, or another tick could send the same delivery.
        if (clock.now() + options.timeoutMs >= lane.leaseUntil) break;
        const id = lane.ids[next] as string;
        try {
          const done = await attempt(id, connection);
          if (done) outcomes.push(done);
        } catch (error) {
          logger.error('webhook attempt failed unexpectedly', { deliveryId: id, ...errorFields(error) });
        }
        if (clock.now() - flushedAt >= FLUSH_AFTER_MS) {
          queue.record(outcomes);
          outcomes = [];
          flushedAt = clock.now();
        }
      }
    } finally {
      connection.close();
      try {
        queue.record(outcomes, lane.ids.slice(next));
      } finally {
        active.delete(lane.webhookId);
      }
    }
  }

  function purge(): number {
    lastPurge = clock.now();
    return queue.purge();
  }

  async function runOnce(): Promise<void> {
    if (clock.now() - lastPurge >= PURGE_EVERY_MS) purge();
    // `concurrency` workers, each taking the next lane until no subscription has due deliveries.
    const worker = async (): Promise<void> => {
      for (let lane = claim(); lane; lane = claim()) await runLane(lane);
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  }

  function claim(): Lane | null {
    const lane = queue.claimLane(active);
    if (lane) active.add(lane.webhookId);
    return lane;
  }

  const job = coalescing(runOnce);
  return {
    /** Sends every due delivery; overlapping calls share one run (and trigger one more after it). */
    tick: job.tick,
    /** Releases claims left by a previous process (its attempts count as never made). */
    recover: () => queue.recover(),
    /** Deletes delivery log rows older than 30 days. */
    purge,
    idle: job.idle,
    /**
     * A test ping (the contract's `ping` webhook): one signed POST now, through the same target
     * checks as a delivery. It is not queued, not retried, not in the delivery log and does not
     * count toward auto-disable; the caller shows its outcome. Null for an unknown subscription.
     */
    async ping(webhookId: string): Promise<{ deliveryId: string; outcome: Outcome } | null> {
      const webhook = repo.webhook(webhookId);
      if (!webhook) return null;
      const deliveryId = newDeliveryId();
      const body = JSON.stringify({
        id: deliveryId,
        event: 'ping',
        workspaceId: webhook.workspaceId,
        createdAt: toIso(clock.now()),
        data: { kind: 'ping', webhookId: webhook.id },
      });
      return { deliveryId, outcome: await signedPost(webhook, deliveryId, 'ping', body) };
    },
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;
