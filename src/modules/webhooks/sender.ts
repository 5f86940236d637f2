import http from 'node:http';
import https from 'node:https';
import { and, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import got from 'got';
import type { Clock } from '../../clock.js';
import { toIso } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { errorFields, type Logger } from '../../logger.js';
import { members } from '../accounts/schema.js';
import { events } from '../events/schema.js';
import { decryptSecret, signature } from './crypto.js';
import { webhookDeliveries, webhooks } from './schema.js';
import type { WebhookOptions } from './service.js';
import { checkUrl, type ResolvedAddress, resolveTarget, TargetRefused } from './targets.js';

/** Delay before attempt 2, 3, 4, 5 and 6 (the first is immediate). */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000, 21_600_000] as const;
export const MAX_ATTEMPTS = 6;
export const DISABLE_AFTER_FAILED_DELIVERIES = 15;
export const LOG_RETENTION_MS = 30 * 86_400_000;
const LEASE_MS = 60_000;
const PURGE_EVERY_MS = 3_600_000;

export interface SenderOptions extends WebhookOptions {
  /** Each attempt's limit; 10 s by the spec. */
  timeoutMs: number;
  /** Subscriptions served at once (each sends its own deliveries one at a time, in event order). */
  concurrency: number;
  /** Extra trusted CA certificates (PEM), for tests with their own CA. */
  ca?: string | undefined;
}

/** Deliveries a subscription's lane leases at once; their outcomes are written in one transaction. */
const LANE_BATCH = 25;
/** A lane writes the outcomes it has after this long, even mid-batch (a slow receiver). */
const FLUSH_AFTER_MS = 1_000;

type Outcome =
  | { status: 'success'; responseCode: number }
  | { status: 'failure' | 'redirect_not_followed'; responseCode: number | null; error: string }
  | { status: 'skipped_visibility'; error: string }
  | { status: 'final'; error: string };

interface Attempted {
  id: string;
  webhookId: string;
  /** The delivery as it was before this attempt. */
  attempt: number;
  status: string;
  responseCode: number | null;
  outcome: Outcome;
  startedAt: number;
}

/**
 * The webhook sender. Each subscription is a lane: it leases up to 25 of its oldest due
 * deliveries (a lease, so no tick sends one twice and attempts left in flight by a crash are due
 * again), sends them one at a time in event order, and writes their outcomes in one short
 * transaction; up to `concurrency` lanes run at once. No network I/O happens inside a transaction.
 */
export function createWebhookSender({ db, clock, logger, options }: { db: Db; clock: Clock; logger: Logger; options: SenderOptions }) {
  let running: Promise<void> | null = null;
  let again = false;
  let lastPurge = 0;
  /** Subscriptions whose lane runs in this process. */
  const active = new Set<string>();
  /** Decrypted secrets by ciphertext: AES-GCM once per subscription, not per attempt. */
  const secrets = new Map<string, string>();

  const due = and(
    eq(webhookDeliveries.webhookId, sql.placeholder('webhookId')),
    isNotNull(webhookDeliveries.nextAttemptAt),
    lte(webhookDeliveries.nextAttemptAt, sql.placeholder('now')),
    or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, sql.placeholder('now'))),
  );
  const statements = {
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
      .limit(sql.placeholder('limit'))
      .prepare(),
    lease: db
      .update(webhookDeliveries)
      .set({ claimedUntil: sql`${sql.placeholder('until')}` })
      .where(eq(webhookDeliveries.id, sql.placeholder('id')))
      .prepare(),
    delivery: db
      .select({ delivery: webhookDeliveries, webhook: webhooks, event: events })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .innerJoin(events, eq(events.seq, webhookDeliveries.eventSeq))
      .where(eq(webhookDeliveries.id, sql.placeholder('id')))
      .prepare(),
    owner: db
      .select({ userId: members.userId, canViewOthersTime: members.canViewOthersTime, canViewOthersMoney: members.canViewOthersMoney })
      .from(members)
      .where(and(eq(members.workspaceId, sql.placeholder('workspaceId')), eq(members.userId, sql.placeholder('userId'))))
      .prepare(),
    settle: db
      .update(webhookDeliveries)
      .set({
        status: sql`${sql.placeholder('status')}`,
        attempt: sql`${sql.placeholder('attempt')}`,
        responseCode: sql`${sql.placeholder('responseCode')}`,
        error: sql`${sql.placeholder('error')}`,
        nextAttemptAt: sql`${sql.placeholder('nextAttemptAt')}`,
        claimedUntil: null,
        updatedAt: sql`${sql.placeholder('now')}`,
      })
      .where(eq(webhookDeliveries.id, sql.placeholder('id')))
      .prepare(),
    release: db
      .update(webhookDeliveries)
      .set({ claimedUntil: null })
      .where(eq(webhookDeliveries.id, sql.placeholder('id')))
      .prepare(),
    succeeded: db
      .update(webhooks)
      .set({ consecutiveFailures: 0 })
      .where(eq(webhooks.id, sql.placeholder('webhookId')))
      .prepare(),
    failed: db
      .update(webhooks)
      .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`, updatedAt: sql`${sql.placeholder('now')}` })
      .where(eq(webhooks.id, sql.placeholder('webhookId')))
      .returning({ failures: webhooks.consecutiveFailures })
      .prepare(),
    disable: db
      .update(webhooks)
      .set({ enabled: false, disabledAt: sql`${sql.placeholder('now')}` })
      .where(eq(webhooks.id, sql.placeholder('webhookId')))
      .prepare(),
  };

  interface Lane {
    webhookId: string;
    ids: string[];
    leaseUntil: number;
  }

  /** Leases the due deliveries of the idle subscription whose oldest due delivery is oldest. */
  function claimLane(): Lane | null {
    return db.transaction(
      () => {
        const now = clock.now();
        let best: { webhookId: string; nextAttemptAt: number; eventSeq: number } | null = null;
        for (const { id } of statements.subscriptions.all()) {
          if (active.has(id)) continue;
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
        active.add(best.webhookId);
        return { webhookId: best.webhookId, ids, leaseUntil };
      },
      { behavior: 'immediate' },
    );
  }

  /** The envelope `data` for the owner's current visibility, or null when the event is withheld. */
  function dataFor(
    event: typeof events.$inferSelect,
    owner: { userId: string; canViewOthersTime: boolean; canViewOthersMoney: boolean },
  ): object | null {
    const payload = JSON.parse(event.payload ?? 'null') as Record<string, unknown>;
    if (event.entity === 'invoice') {
      if (!owner.canViewOthersMoney) return null;
      return event.event === 'invoice.status_changed'
        ? { kind: 'invoice-status', invoice: payload.invoice, from: payload.from, to: payload.to }
        : { kind: 'invoice', invoice: payload.invoice };
    }
    const colleague = payload.authorId !== owner.userId;
    if (colleague && !owner.canViewOthersTime) return null;
    if (event.event === 'entry.deleted') return { kind: 'entry-deleted', id: payload.id, authorId: payload.authorId };
    return { kind: 'entry', entry: colleague && !owner.canViewOthersMoney ? { ...payload, hourlyRate: null } : payload };
  }

  async function post(url: URL, pinned: ResolvedAddress, body: string, headers: Record<string, string>): Promise<Outcome> {
    // A fresh agent per attempt: no pooled socket or TLS session can skip the address check.
    const agent = {
      https: new https.Agent({ keepAlive: false, maxCachedSessions: 0, ...(options.ca ? { ca: options.ca } : {}) }),
      http: new http.Agent({ keepAlive: false }),
    };
    try {
      const stream = got.stream.post(url.href, {
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'timetrack-webhooks/1.0', ...headers },
        // Pinned: the checked address is the one connected to; Host, SNI and the certificate
        // check keep the hostname of the URL.
        dnsLookup: ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          opts.all
            ? callback(null, [{ address: pinned.address, family: pinned.family }])
            : callback(null, pinned.address, pinned.family)) as never,
        dnsCache: false,
        followRedirect: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { request: options.timeoutMs },
        agent,
      });
      const responseCode = await new Promise<number>((resolve, reject) => {
        stream.on('response', (response: { statusCode: number }) => {
          resolve(response.statusCode);
          // The body is not needed: drop it rather than buffer whatever the receiver sends.
          stream.destroy();
        });
        stream.on('error', reject);
      });
      if (responseCode >= 200 && responseCode < 300) return { status: 'success', responseCode };
      if (responseCode >= 300 && responseCode < 400)
        return { status: 'redirect_not_followed', responseCode, error: `redirect (${responseCode}) not followed` };
      return { status: 'failure', responseCode, error: `HTTP ${responseCode}` };
    } catch (error) {
      const code = (error as { code?: string }).code;
      return {
        status: 'failure',
        responseCode: null,
        error: code === 'ETIMEDOUT' ? `timeout after ${options.timeoutMs} ms` : `${code ?? 'error'}: ${(error as Error).message}`,
      };
    } finally {
      agent.https.destroy();
      agent.http.destroy();
    }
  }

  /** One attempt of one delivery: the outcome, not yet written. */
  async function attempt(id: string): Promise<Attempted | null> {
    const startedAt = clock.now();
    const row = statements.delivery.get({ id });
    // Deleted with its subscription meanwhile, or already final (a lease that expired).
    if (!row || row.delivery.nextAttemptAt === null) return null;
    const { delivery, webhook, event } = row;
    const attempted = (outcome: Outcome): Attempted => ({
      id,
      webhookId: webhook.id,
      attempt: delivery.attempt,
      status: delivery.status,
      responseCode: delivery.responseCode,
      outcome,
      startedAt,
    });
    if (!webhook.enabled) return attempted({ status: 'final', error: 'subscription disabled' });
    // Visibility is the owner's at send time.
    const owner = statements.owner.get({ workspaceId: webhook.workspaceId, userId: webhook.userId });
    const data = owner ? dataFor(event, owner) : null;
    if (!data)
      return attempted({
        status: 'skipped_visibility',
        error: owner ? 'withheld by the owner’s visibility' : 'the owner is no longer a member',
      });
    const body = JSON.stringify({
      id: delivery.id,
      event: delivery.event,
      workspaceId: webhook.workspaceId,
      createdAt: toIso(event.createdAt),
      data,
    });
    try {
      const url = checkUrl(webhook.url, options.allowPrivateTargets);
      const pinned = await resolveTarget(url, options.allowPrivateTargets, options.resolve);
      const timestamp = Math.floor(clock.now() / 1000);
      let secret = secrets.get(webhook.secretCiphertext);
      if (secret === undefined) {
        secret = decryptSecret(options.secretKey, webhook.secretCiphertext);
        secrets.set(webhook.secretCiphertext, secret);
      }
      return attempted(
        await post(url, pinned, body, {
          'X-Service-Event': delivery.event,
          'X-Service-Delivery': delivery.id,
          'X-Service-Timestamp': String(timestamp),
          'X-Service-Signature': signature(secret, timestamp, body),
        }),
      );
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      return attempted({
        status: 'failure',
        responseCode: null,
        error: error.code === 'blocked_address' ? `blocked_address: ${error.message}` : `${error.code}: ${error.message}`,
      });
    }
  }

  /**
   * Writes attempts' outcomes in one transaction: each delivery's state and next attempt, and its
   * subscription's failure count; `unsent` leases are released.
   */
  function record(attempts: Attempted[], unsent: string[] = []): void {
    if (attempts.length === 0 && unsent.length === 0) return;
    db.transaction(
      () => {
        const now = clock.now();
        for (const id of unsent) statements.release.run({ id });
        for (const { id, webhookId, attempt: made, status, responseCode, outcome, startedAt } of attempts) {
          // No attempt made (final, skipped): the delivery keeps its count, status and last code.
          const settle = { id, now, attempt: made, responseCode, error: null as string | null, nextAttemptAt: null as number | null };
          if (outcome.status === 'final') {
            statements.settle.run({ ...settle, status, error: outcome.error });
          } else if (outcome.status === 'skipped_visibility') {
            statements.settle.run({ ...settle, status: 'skipped_visibility', error: outcome.error });
          } else if (outcome.status === 'success') {
            statements.settle.run({ ...settle, status: 'success', attempt: made + 1, responseCode: outcome.responseCode });
            statements.succeeded.run({ webhookId });
          } else {
            const attempt = made + 1;
            const abandoned = attempt >= MAX_ATTEMPTS;
            statements.settle.run({
              ...settle,
              status: abandoned ? 'abandoned' : outcome.status,
              attempt,
              responseCode: outcome.responseCode,
              error: outcome.error,
              nextAttemptAt: abandoned ? null : startedAt + (RETRY_DELAYS_MS[attempt - 1] as number),
            });
            if (abandoned) {
              // A failed delivery (all attempts used) counts once toward auto-disable.
              const hook = statements.failed.get({ webhookId, now });
              if (hook && hook.failures >= DISABLE_AFTER_FAILED_DELIVERIES) {
                statements.disable.run({ webhookId, now });
                logger.warn('webhook disabled after consecutive failed deliveries', { webhookId, failures: hook.failures });
              }
            }
          }
        }
      },
      { behavior: 'immediate' },
    );
  }

  /** Sends a lane's deliveries one at a time, in event order, within its lease. */
  async function runLane(lane: Lane): Promise<void> {
    let outcomes: Attempted[] = [];
    let flushedAt = clock.now();
    let next = 0;
    try {
      for (; next < lane.ids.length; next++) {
        // An attempt must end inside the lease, or another tick could send the same delivery.
        if (clock.now() + options.timeoutMs >= lane.leaseUntil) break;
        const id = lane.ids[next] as string;
        try {
          const done = await attempt(id);
          if (done) outcomes.push(done);
        } catch (error) {
          logger.error('webhook attempt failed unexpectedly', { deliveryId: id, ...errorFields(error) });
        }
        if (clock.now() - flushedAt >= FLUSH_AFTER_MS) {
          record(outcomes);
          outcomes = [];
          flushedAt = clock.now();
        }
      }
    } finally {
      try {
        record(outcomes, lane.ids.slice(next));
      } finally {
        active.delete(lane.webhookId);
      }
    }
  }

  /** Deletes delivery log rows older than 30 days. */
  function purge(): number {
    lastPurge = clock.now();
    return db
      .delete(webhookDeliveries)
      .where(lt(webhookDeliveries.createdAt, clock.now() - LOG_RETENTION_MS))
      .run().changes;
  }

  async function runOnce(): Promise<void> {
    if (clock.now() - lastPurge >= PURGE_EVERY_MS) purge();
    // `concurrency` workers, each taking the next lane until no subscription has due deliveries.
    const worker = async (): Promise<void> => {
      for (let lane = claimLane(); lane; lane = claimLane()) await runLane(lane);
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  }

  return {
    /** Sends every due delivery; overlapping calls share one run (and trigger one more after it). */
    tick(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            again = false;
            await runOnce();
          } while (again);
        } finally {
          running = null;
        }
      })();
      return running;
    },
    /** Releases claims left by a previous process (its attempts count as never made). */
    recover(): number {
      return db.update(webhookDeliveries).set({ claimedUntil: null }).where(isNotNull(webhookDeliveries.claimedUntil)).run().changes;
    },
    purge,
    idle(): Promise<void> {
      return running ?? Promise.resolve();
    },
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;
