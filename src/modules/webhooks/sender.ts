import http from 'node:http';
import https from 'node:https';
import { and, asc, eq, isNotNull, lt, lte, or, isNull, sql } from 'drizzle-orm';
import got from 'got';
import type { Clock } from '../../clock.js';
import { toIso } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { errorFields, type Logger } from '../../logger.js';
import { members } from '../accounts/schema.js';
import { events } from '../events/schema.js';
import { decryptSecret, signature } from './crypto.js';
import { webhookDeliveries, webhooks } from './schema.js';
import { checkUrl, resolveTarget, TargetRefused, type ResolvedAddress } from './targets.js';
import type { WebhookOptions } from './service.js';

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
  /** Attempts in flight at once. */
  concurrency: number;
  /** Extra trusted CA certificates (PEM), for tests with their own CA. */
  ca?: string | undefined;
}

type Outcome =
  | { status: 'success'; responseCode: number }
  | { status: 'failure' | 'redirect_not_followed'; responseCode: number | null; error: string }
  | { status: 'skipped_visibility'; error: string }
  | { status: 'final'; error: string };

/**
 * The webhook sender. `tick` claims due deliveries (a lease, so no tick sends one twice and an
 * attempt left in flight by a crash is due again), makes the attempts with bounded concurrency
 * and records each outcome in its own short transaction; no network I/O happens inside one.
 */
export function createWebhookSender({ db, clock, logger, options }: { db: Db; clock: Clock; logger: Logger; options: SenderOptions }) {
  let running: Promise<void> | null = null;
  let again = false;
  let lastPurge = 0;

  /** Claims the oldest due delivery of each subscription, up to `concurrency` of them. */
  function claim(): string[] {
    return db.transaction(
      () => {
        const now = clock.now();
        const due = db
          .select({ id: webhookDeliveries.id, webhookId: webhookDeliveries.webhookId })
          .from(webhookDeliveries)
          .where(and(isNotNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, now), or(isNull(webhookDeliveries.claimedUntil), lte(webhookDeliveries.claimedUntil, now))))
          .orderBy(asc(webhookDeliveries.nextAttemptAt), asc(webhookDeliveries.eventSeq))
          .limit(options.concurrency * 10)
          .all();
        // One attempt per subscription at a time, oldest first: event order where possible.
        const busy = new Set<string>();
        const picked: string[] = [];
        for (const row of due) {
          if (picked.length >= options.concurrency || busy.has(row.webhookId)) continue;
          busy.add(row.webhookId);
          picked.push(row.id);
        }
        for (const id of picked) db.update(webhookDeliveries).set({ claimedUntil: now + LEASE_MS }).where(eq(webhookDeliveries.id, id)).run();
        return picked;
      },
      { behavior: 'immediate' },
    );
  }

  /** The envelope `data` for the owner's current visibility, or null when the event is withheld. */
  function dataFor(event: typeof events.$inferSelect, owner: { userId: string; canViewOthersTime: boolean; canViewOthersMoney: boolean }): object | null {
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
          opts.all ? callback(null, [{ address: pinned.address, family: pinned.family }]) : callback(null, pinned.address, pinned.family)) as never,
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
      if (responseCode >= 300 && responseCode < 400) return { status: 'redirect_not_followed', responseCode, error: `redirect (${responseCode}) not followed` };
      return { status: 'failure', responseCode, error: `HTTP ${responseCode}` };
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { status: 'failure', responseCode: null, error: code === 'ETIMEDOUT' ? `timeout after ${options.timeoutMs} ms` : `${code ?? 'error'}: ${(error as Error).message}` };
    } finally {
      agent.https.destroy();
      agent.http.destroy();
    }
  }

  async function attempt(id: string): Promise<void> {
    const now = clock.now();
    const row = db
      .select({ delivery: webhookDeliveries, webhook: webhooks, event: events })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .innerJoin(events, eq(events.seq, webhookDeliveries.eventSeq))
      .where(eq(webhookDeliveries.id, id))
      .get();
    if (!row) return;
    const { delivery, webhook, event } = row;
    let outcome: Outcome;
    if (!webhook.enabled) {
      outcome = { status: 'final', error: 'subscription disabled' };
    } else {
      const owner = db
        .select({ userId: members.userId, canViewOthersTime: members.canViewOthersTime, canViewOthersMoney: members.canViewOthersMoney })
        .from(members)
        .where(and(eq(members.workspaceId, webhook.workspaceId), eq(members.userId, webhook.userId)))
        .get();
      const data = owner ? dataFor(event, owner) : null;
      if (!data) {
        outcome = { status: 'skipped_visibility', error: owner ? 'withheld by the owner’s visibility' : 'the owner is no longer a member' };
      } else {
        const body = JSON.stringify({ id: delivery.id, event: delivery.event, workspaceId: webhook.workspaceId, createdAt: toIso(event.createdAt), data });
        try {
          const url = checkUrl(webhook.url, options.allowPrivateTargets);
          const pinned = await resolveTarget(url, options.allowPrivateTargets, options.resolve);
          const timestamp = Math.floor(clock.now() / 1000);
          outcome = await post(url, pinned, body, {
            'X-Service-Event': delivery.event,
            'X-Service-Delivery': delivery.id,
            'X-Service-Timestamp': String(timestamp),
            'X-Service-Signature': signature(decryptSecret(options.secretKey, webhook.secretCiphertext), timestamp, body),
          });
        } catch (error) {
          if (!(error instanceof TargetRefused)) throw error;
          outcome = { status: 'failure', responseCode: null, error: error.code === 'blocked_address' ? `blocked_address: ${error.message}` : `${error.code}: ${error.message}` };
        }
      }
    }
    record(delivery, outcome, now);
  }

  /** Writes an attempt's outcome, the schedule of the next one, and the subscription's failure count. */
  function record(delivery: typeof webhookDeliveries.$inferSelect, outcome: Outcome, startedAt: number): void {
    db.transaction(
      () => {
        const now = clock.now();
        const base = { claimedUntil: null, updatedAt: now };
        if (outcome.status === 'final') {
          db.update(webhookDeliveries).set({ ...base, error: outcome.error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, delivery.id)).run();
          return;
        }
        if (outcome.status === 'skipped_visibility') {
          db.update(webhookDeliveries).set({ ...base, status: 'skipped_visibility', error: outcome.error, nextAttemptAt: null }).where(eq(webhookDeliveries.id, delivery.id)).run();
          return;
        }
        const attempt = delivery.attempt + 1;
        if (outcome.status === 'success') {
          db.update(webhookDeliveries)
            .set({ ...base, status: 'success', attempt, responseCode: outcome.responseCode, error: null, nextAttemptAt: null })
            .where(eq(webhookDeliveries.id, delivery.id))
            .run();
          db.update(webhooks).set({ consecutiveFailures: 0 }).where(eq(webhooks.id, delivery.webhookId)).run();
          return;
        }
        const abandoned = attempt >= MAX_ATTEMPTS;
        db.update(webhookDeliveries)
          .set({
            ...base,
            status: abandoned ? 'abandoned' : outcome.status,
            attempt,
            responseCode: outcome.responseCode,
            error: outcome.error,
            nextAttemptAt: abandoned ? null : startedAt + (RETRY_DELAYS_MS[attempt - 1] as number),
          })
          .where(eq(webhookDeliveries.id, delivery.id))
          .run();
        if (abandoned) {
          // A failed delivery (all attempts used) counts once toward auto-disable.
          const hook = db
            .update(webhooks)
            .set({ consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`, updatedAt: now })
            .where(eq(webhooks.id, delivery.webhookId))
            .returning({ failures: webhooks.consecutiveFailures })
            .get();
          if (hook && hook.failures >= DISABLE_AFTER_FAILED_DELIVERIES) {
            db.update(webhooks).set({ enabled: false, disabledAt: now }).where(eq(webhooks.id, delivery.webhookId)).run();
            logger.warn('webhook disabled after consecutive failed deliveries', { webhookId: delivery.webhookId, failures: hook.failures });
          }
        }
      },
      { behavior: 'immediate' },
    );
  }

  /** Deletes delivery log rows older than 30 days. */
  function purge(): number {
    lastPurge = clock.now();
    return db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, clock.now() - LOG_RETENTION_MS)).run().changes;
  }

  async function runOnce(): Promise<void> {
    if (clock.now() - lastPurge >= PURGE_EVERY_MS) purge();
    for (;;) {
      const ids = claim();
      if (ids.length === 0) return;
      await Promise.all(
        ids.map((id) =>
          attempt(id).catch((error: unknown) => {
            logger.error('webhook attempt failed unexpectedly', { deliveryId: id, ...errorFields(error) });
          }),
        ),
      );
    }
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
