import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { toIso } from '../../kernel/time.js';
import { errorFields, type Logger } from '../../logger.js';
import { createAttempt, createSignedPost, type SenderOptions } from './attempt.js';
import { newDeliveryId } from './crypto.js';
import { type EventRecord, laneConnection, type Owner } from './post.js';
import { type Attempted, createDeliveryQueue, type Lane, type Outcome, PURGE_CHUNK } from './queue.js';
import type { WebhooksRepository } from './repository.js';
import { coalescing } from '../../kernel/coalesce.js';

/** What the sender reads of other modules: an event's record, and the subscription owner's membership now. */
export interface SenderPorts {
  eventOf: (seq: number) => EventRecord | undefined;
  ownerOf: (workspaceId: string, userId: string) => Owner | undefined;
}

export { DISABLE_AFTER_FAILED_DELIVERIES, LOG_RETENTION_MS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './queue.js';

/**
 * The queue's writes (leases, outcomes, the purge) as requests. The sender in the server's
 * process makes them on its own connection; the sender's thread sends them to the server, whose
 * one write path makes them in its batch (src/threads/sender.ts): so the thread's connection never
 * takes the write lock that the requests' writes would wait for.
 */
export type QueueWrite = { op: 'claim'; busy: string[] } | { op: 'record'; attempts: Attempted[]; unsent: string[] } | { op: 'purge' };

/** A queue write's answer: a lane or null for a claim, the rows deleted for a purge, nothing for a record. */
export type QueueAnswer = Lane | null | number | undefined;

/** Makes a queue write somewhere. */
export type QueueWriter = (request: QueueWrite) => Promise<QueueAnswer>;

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
  writer,
}: {
  repo: WebhooksRepository;
  /** The sender's own write on its connection (its transactions record no events): the queue's writes when no `writer` is given. */
  write: Write<never>;
  ports: SenderPorts;
  clock: Clock;
  logger: Logger;
  options: SenderOptions;
  /** Where the queue's writes are made: by default on `write`'s connection, here (see QueueWrite). */
  writer?: QueueWriter | undefined;
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

  /** A queue write made on this connection. */
  function apply(request: QueueWrite): QueueAnswer {
    if (request.op === 'claim') return queue.claimLane(new Set(request.busy));
    if (request.op === 'purge') return queue.purge();
    queue.record(request.attempts, request.unsent);
    return undefined;
  }
  const send: QueueWriter = writer ?? ((request) => Promise.resolve(apply(request)));
  const record = async (attempts: Attempted[], unsent: string[] = []): Promise<void> => {
    if (attempts.length > 0 || unsent.length > 0) await send({ op: 'record', attempts, unsent });
  };

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
          await record(outcomes);
          outcomes = [];
          flushedAt = clock.now();
        }
      }
    } finally {
      connection.close();
      try {
        await record(outcomes, lane.ids.slice(next));
      } finally {
        active.delete(lane.webhookId);
      }
    }
  }

  /** Deletes every delivery log row older than 30 days, a chunk per write; how many. */
  function purge(): number {
    lastPurge = clock.now();
    let total = 0;
    for (let n = PURGE_CHUNK; n === PURGE_CHUNK; total += n) n = queue.purge();
    return total;
  }

  async function runOnce(): Promise<void> {
    if (clock.now() - lastPurge >= PURGE_EVERY_MS) {
      lastPurge = clock.now();
      // A chunk per write: the server's requests run between them.
      for (let n = PURGE_CHUNK; n === PURGE_CHUNK;) n = (await send({ op: 'purge' })) as number;
    }
    // `concurrency` workers, each taking the next lane until no subscription has due deliveries.
    const worker = async (): Promise<void> => {
      for (let lane = await claim(); lane; lane = await claim()) await runLane(lane);
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  }

  /** Claims run one at a time: each lane is marked active before the next claim, which then passes it by. */
  let claiming: Promise<unknown> = Promise.resolve();
  function claim(): Promise<Lane | null> {
    const next = claiming.then(async () => {
      const lane = (await send({ op: 'claim', busy: [...active] })) as Lane | null;
      if (lane) active.add(lane.webhookId);
      return lane;
    });
    claiming = next.catch(() => undefined);
    return next;
  }

  const job = coalescing(runOnce);
  return {
    /** Sends every due delivery; overlapping calls share one run (and trigger one more after it). */
    tick: job.tick,
    /** Releases claims left by a previous process (its attempts count as never made). */
    recover: () => queue.recover(),
    /** Deletes delivery log rows older than 30 days. */
    purge,
    /** Makes a queue write that the sender's thread sent (the server's side of QueueWrite). */
    apply,
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
