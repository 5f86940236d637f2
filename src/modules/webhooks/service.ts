import { and, eq } from 'drizzle-orm';
import { webhookEnvelopeEventValues } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { DomainError, notFound } from '../../errors.js';
import type { CursorCodec } from '../../kernel/cursor.js';
import type { Logger } from '../../logger.js';
import { type Actor, isOperator, type Principal } from '../../principal.js';
import { newId } from '../../ids.js';
import { toIso } from '../../kernel/time.js';
import { members, users } from '../accounts/schema.js';
import { subkey } from '../../kernel/keys.js';
import { decryptLegacySecret, encryptSecret, isLegacySealed, newSecret } from './crypto.js';
import { createDeliveryLog } from './delivery-log.js';
import { createOutbox } from './outbox.js';
import { webhooks } from './schema.js';

export { REDELIVERABLE } from './delivery-log.js';
import type { Outcome } from './queue.js';
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

/** A setting that lifts the target rules, named where a target is refused for them. */
const PRIVATE_TARGETS_SETTING =
  'WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows plain http and private addresses (local development only); the command line reads it too, so set it where timetrack runs as well as for the server.';

/**
 * The target rules at creation too: a clear refusal now beats failed deliveries later. The
 * operator (the command line) is told exactly why; a member on the settings page only that the
 * target is not allowed, since "resolves to 10.1.2.3" would tell any member how the server's
 * network resolves internal names (the log keeps the detail).
 */
async function checkTarget(raw: string, options: WebhookOptions, principal: Principal, logger: Logger): Promise<void> {
  try {
    const url = checkUrl(raw, options.allowPrivateTargets);
    await resolveTarget(url, options.allowPrivateTargets, options.resolve);
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    const lifted = !options.allowPrivateTargets && (error.code === 'scheme_not_allowed' || error.code === 'blocked_address');
    if (isOperator(principal)) throw new DomainError('invalid', `url: ${error.message}${lifted ? ` ${PRIVATE_TARGETS_SETTING}` : ''}`);
    logger.info('webhook target refused', { userId: principal.userId, code: error.code, detail: error.message });
    if (error.code === 'invalid_url') throw new DomainError('invalid', `url: ${error.message}`);
    const why = options.allowPrivateTargets
      ? 'its host name does not resolve.'
      : 'webhooks go to https URLs whose host name resolves to public addresses only.';
    const setting = options.allowPrivateTargets
      ? ''
      : ' The person who runs the server can allow plain http and private addresses for local development (WEBHOOK_ALLOW_PRIVATE_TARGETS).';
    throw new DomainError('invalid', `url: this target is not allowed: ${why}${setting}`);
  }
}

/** Test pings a member may send: one per subscription owner every this long. */
export const PING_INTERVAL_MS = 10_000;

/**
 * Webhook subscriptions (managed with the CLI) and the outbox: `enqueue` runs inside the
 * transaction of every recorded event and writes one pending delivery per enabled subscription
 * of the workspace that chose the event, so a committed event always has its deliveries.
 */
export function createWebhooksService({
  db,
  clock,
  options,
  cursors,
  logger,
  sendPing,
  onQueued,
}: {
  db: Db;
  clock: Clock;
  options: WebhookOptions;
  /** Signs the delivery log's page links (opaque, tamper-evident). */
  cursors: CursorCodec;
  logger: Logger;
  /** One signed test POST now (the sender's); null for a subscription that is gone. */
  sendPing: (webhookId: string) => Promise<{ deliveryId: string; outcome: Outcome } | null>;
  /** Called after a redelivery was queued (the server wakes its sender). */
  onQueued?: () => void;
}) {
  const sealing = subkey(options.secretKey, 'webhook-secrets');
  /** When each member last sent a test ping. */
  const lastPing = new Map<string, number>();

  /**
   * The subscription, when the principal may manage it: a member only their own, in the
   * workspace they act in (anyone else's is "not found"); the operator any.
   */
  const find = (principal: Principal, id: string) => {
    const row = db.select().from(webhooks).where(eq(webhooks.id, id)).get();
    if (!row || (!isOperator(principal) && (row.userId !== principal.userId || row.workspaceId !== principal.workspaceId)))
      throw notFound(isOperator(principal) ? `Webhook ${id}` : 'That subscription');
    return row;
  };

  /** Whose subscription a new one is: a member's own; the operator names workspace and member. */
  const ownerOf = (principal: Principal, input: { workspaceId?: string; userId?: string }) => {
    if (!isOperator(principal)) return { workspaceId: principal.workspaceId, userId: principal.userId };
    if (!input.workspaceId || !input.userId) throw new DomainError('invalid', 'name the workspace and the member the subscription is for.');
    return { workspaceId: input.workspaceId, userId: input.userId };
  };

  /** A member may send one test ping every 10 seconds (each is a request to the receiver). */
  const pingAllowed = (member: Actor) => {
    const key = `${member.workspaceId}|${member.userId}`;
    const now = clock.now();
    const last = lastPing.get(key);
    if (last !== undefined && now - last < PING_INTERVAL_MS) {
      const wait = Math.ceil((last + PING_INTERVAL_MS - now) / 1000);
      throw new DomainError('rate_limited', `Send one test ping at a time: try again in ${wait} second${wait === 1 ? '' : 's'}.`);
    }
    if (lastPing.size > 10_000) lastPing.clear();
    lastPing.set(key, now);
  };

  return {
    async create(
      principal: Principal,
      input: { workspaceId?: string; userId?: string; url: string; events: string[] },
    ): Promise<{ id: string; secret: string }> {
      const owner = ownerOf(principal, input);
      checkEvents(input.events);
      await checkTarget(input.url, options, principal, logger);
      const member = db
        .select({ userId: members.userId })
        .from(members)
        .innerJoin(users, eq(users.id, members.userId))
        .where(and(eq(members.workspaceId, owner.workspaceId), eq(members.userId, owner.userId)))
        .get();
      if (!member) throw notFound(`Member ${owner.userId} of workspace ${owner.workspaceId}`);
      const secret = newSecret();
      const now = clock.now();
      const id = newId('whk');
      db.insert(webhooks)
        .values({
          id,
          workspaceId: owner.workspaceId,
          userId: owner.userId,
          url: input.url,
          events: JSON.stringify([...new Set(input.events)]),
          secretCiphertext: encryptSecret(sealing, id, secret),
          createdAt: now,
          updatedAt: now,
        })
        .run();
      return { id, secret };
    },

    /** A member's own subscriptions in their workspace; for the operator, a workspace's. */
    list(principal: Principal, workspaceId?: string) {
      const where = isOperator(principal)
        ? eq(webhooks.workspaceId, workspaceId ?? '')
        : and(eq(webhooks.workspaceId, principal.workspaceId), eq(webhooks.userId, principal.userId));
      return db.select().from(webhooks).where(where).orderBy(webhooks.createdAt, webhooks.id).all().map(webhookView);
    },

    /** One subscription (`not_found` when unknown, or not the member's). */
    get: (principal: Principal, id: string) => webhookView(find(principal, id)),

    ...createDeliveryLog({ db, clock, cursors, find, ...(onQueued ? { onQueued } : {}) }),

    enable(principal: Principal, id: string): { id: string } {
      find(principal, id);
      db.update(webhooks)
        .set({ enabled: true, consecutiveFailures: 0, disabledAt: null, updatedAt: clock.now() })
        .where(eq(webhooks.id, id))
        .run();
      return { id };
    },

    delete(principal: Principal, id: string): { id: string } {
      find(principal, id);
      db.delete(webhooks).where(eq(webhooks.id, id)).run();
      return { id };
    },

    /**
     * A test ping (the contract's `ping` webhook): one signed POST now. A member may send one
     * every 10 seconds; every ping is logged with the subscription and its outcome.
     */
    async ping(principal: Principal, id: string): Promise<{ deliveryId: string; outcome: Outcome }> {
      const hook = find(principal, id);
      if (!isOperator(principal)) pingAllowed(principal);
      const sent = await sendPing(hook.id);
      if (!sent) throw notFound(`Webhook ${id}`);
      const { outcome } = sent;
      logger.info('webhook ping', {
        webhookId: hook.id,
        deliveryId: sent.deliveryId,
        by: isOperator(principal) ? 'operator' : principal.userId,
        status: outcome.status,
        ...('responseCode' in outcome ? { responseCode: outcome.responseCode } : {}),
        ...('error' in outcome ? { error: outcome.error } : {}),
      });
      return sent;
    },

    /** Seals the secrets stored before subkeys again (at start); returns how many. */
    resealLegacySecrets: () => resealLegacySecrets(db, options.secretKey, sealing),

    /** The outbox: called by the event log inside the event's transaction. */
    enqueue: createOutbox(db, clock),
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

/**
 * A test ping's outcome as a person reads it: one short sentence (the error codes and Node's
 * texts are for the log and the command line).
 */
export function pingSentence(outcome: Outcome): string {
  if (outcome.status === 'success') return `The receiver answered ${outcome.responseCode}.`;
  if (outcome.status !== 'failure' && outcome.status !== 'redirect_not_followed') return 'The ping was not sent.';
  switch (outcome.error) {
    case 'http_status':
      return `The receiver answered ${outcome.responseCode ?? 'with an error'}; a delivery needs a 2xx answer.`;
    case 'redirect_not_followed':
      return `The receiver answered with a redirect (${outcome.responseCode ?? '3xx'}); redirects are never followed, so use the final URL.`;
    case 'timeout':
      return 'The receiver did not answer within 10 seconds.';
    case 'connection_refused':
      return 'The receiver refused the connection: is it running, on that port?';
    case 'tls':
      return "The receiver's TLS certificate could not be verified for its host name.";
    case 'blocked_address':
    case 'scheme_not_allowed':
    case 'unresolvable':
    case 'invalid_url':
      return 'This target is not allowed, or its host name does not resolve.';
    default:
      return 'The receiver could not be reached.';
  }
}
