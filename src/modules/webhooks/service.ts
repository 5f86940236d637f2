import { and, eq, sql } from 'drizzle-orm';
import { webhookEnvelopeEventValues } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { toIso } from '../../kernel/time.js';
import { members, users } from '../accounts/schema.js';
import type { DomainEvent } from '../events/service.js';
import { subkey } from '../../kernel/keys.js';
import { decryptLegacySecret, encryptSecret, isLegacySealed, newDeliveryId, newSecret } from './crypto.js';
import { createDeliveryLog } from './delivery-log.js';
import { webhookDeliveries, webhooks } from './schema.js';

export { type DeliveryPosition, REDELIVERABLE } from './delivery-log.js';
import { checkUrl, type Resolver, resolveTarget, TargetRefused } from './targets.js';

/** The events a subscription may choose: the contract's list (`WebhookEnvelope.event`). */
export const WEBHOOK_EVENTS: readonly string[] = webhookEnvelopeEventValues;

export interface WebhookOptions {
  secretKey: Buffer;
  allowPrivateTargets: boolean;
  resolve: Resolver;
}

/** The events of a new subscription: at least one, each a known event name. */
function checkEvents(events: string[]): void {
  const unknown = events.filter((e) => !WEBHOOK_EVENTS.includes(e));
  if (events.length === 0 || unknown.length > 0) {
    const what = unknown.length > 0 ? `unknown ${unknown.join(', ')}; ` : 'name at least one; ';
    throw new DomainError('invalid', `events: ${what}choose from ${WEBHOOK_EVENTS.join(', ')}.`);
  }
}

/** The target rules at creation too: a clear refusal now beats failed deliveries later. */
async function checkTarget(raw: string, options: WebhookOptions): Promise<void> {
  try {
    const url = checkUrl(raw, options.allowPrivateTargets);
    await resolveTarget(url, options.allowPrivateTargets, options.resolve);
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    // Plain http and private addresses have a setting: say so, and that `timetrack` reads it too.
    const setting =
      !options.allowPrivateTargets && (error.code === 'scheme_not_allowed' || error.code === 'blocked_address')
        ? ' WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows plain http and private addresses (local development only); the command line reads it too, so set it where timetrack runs as well as for the server.'
        : '';
    throw new DomainError('invalid', `url: ${error.message}${setting}`);
  }
}

/**
 * Webhook subscriptions (managed with the CLI) and the outbox: `enqueue` runs inside the
 * transaction of every recorded event and writes one pending delivery per enabled subscription
 * of the workspace that chose the event, so a committed event always has its deliveries.
 */
export function createWebhooksService({
  db,
  clock,
  options,
  onQueued,
}: {
  db: Db;
  clock: Clock;
  options: WebhookOptions;
  /** Called after a redelivery was queued (the server wakes its sender). */
  onQueued?: () => void;
}) {
  const sealing = subkey(options.secretKey, 'webhook-secrets');
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

  const find = (id: string) => {
    const row = db.select().from(webhooks).where(eq(webhooks.id, id)).get();
    if (!row) throw notFound(`Webhook ${id}`);
    return row;
  };

  return {
    async create(input: { workspaceId: string; userId: string; url: string; events: string[] }): Promise<{ id: string; secret: string }> {
      checkEvents(input.events);
      await checkTarget(input.url, options);
      const member = db
        .select({ userId: members.userId })
        .from(members)
        .innerJoin(users, eq(users.id, members.userId))
        .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
        .get();
      if (!member) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
      const secret = newSecret();
      const now = clock.now();
      const id = newId('whk');
      db.insert(webhooks)
        .values({
          id,
          workspaceId: input.workspaceId,
          userId: input.userId,
          url: input.url,
          events: JSON.stringify([...new Set(input.events)]),
          secretCiphertext: encryptSecret(sealing, id, secret),
          createdAt: now,
          updatedAt: now,
        })
        .run();
      return { id, secret };
    },

    /** A workspace's subscriptions, or only those `userId` owns. */
    list(workspaceId: string, userId?: string) {
      return db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.workspaceId, workspaceId), userId === undefined ? undefined : eq(webhooks.userId, userId)))
        .orderBy(webhooks.createdAt, webhooks.id)
        .all()
        .map(webhookView);
    },

    /** One subscription (`not_found` when unknown). */
    get: (id: string) => webhookView(find(id)),

    ...createDeliveryLog({ db, clock, find, ...(onQueued ? { onQueued } : {}) }),

    enable(id: string): { id: string } {
      find(id);
      db.update(webhooks)
        .set({ enabled: true, consecutiveFailures: 0, disabledAt: null, updatedAt: clock.now() })
        .where(eq(webhooks.id, id))
        .run();
      return { id };
    },

    delete(id: string): { id: string } {
      find(id);
      db.delete(webhooks).where(eq(webhooks.id, id)).run();
      return { id };
    },

    /** Seals the secrets stored before subkeys again (at start); returns how many. */
    resealLegacySecrets: () => resealLegacySecrets(db, options.secretKey, sealing),

    /** The outbox: called by the event log inside the event's transaction. */
    enqueue(_tx: Db, seq: number, event: DomainEvent): number {
      if (event.event === null) return 0;
      const now = clock.now();
      // The prepared statements run on the connection that carries the event's transaction.
      const targets = enabledOf
        .all({ workspaceId: event.workspaceId })
        .filter((w) => (JSON.parse(w.events) as string[]).includes(event.event as string));
      for (const target of targets)
        insertDelivery.run({ id: newDeliveryId(), webhookId: target.id, eventSeq: seq, event: event.event, now });
      return targets.length;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

function webhookView(w: typeof webhooks.$inferSelect) {
  return {
    id: w.id,
    userId: w.userId,
    url: w.url,
    events: JSON.parse(w.events) as string[],
    enabled: w.enabled,
    consecutiveFailures: w.consecutiveFailures,
    disabledAt: w.disabledAt === null ? null : toIso(w.disabledAt),
    createdAt: toIso(w.createdAt),
  };
}

/**
 * Seals again, with the webhook-secrets subkey and bound to their subscription, the secrets
 * stored before subkeys (sealed with the server key itself), in one transaction.
 */
function resealLegacySecrets(db: Db, serverKey: Buffer, sealing: Buffer): number {
  return db.transaction(() => {
    const legacy = db
      .select({ id: webhooks.id, sealed: webhooks.secretCiphertext })
      .from(webhooks)
      .all()
      .filter((w) => isLegacySealed(w.sealed));
    for (const w of legacy) {
      const secret = decryptLegacySecret(serverKey, w.sealed);
      db.update(webhooks)
        .set({ secretCiphertext: encryptSecret(sealing, w.id, secret) })
        .where(eq(webhooks.id, w.id))
        .run();
    }
    return legacy.length;
  });
}
