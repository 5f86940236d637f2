import { webhookEnvelopeEventValues } from '../../../generated/openapi.js';
import { webhookErrors } from './errors.js';
import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { DomainError } from '../../errors.js';
import type { CursorCodec } from '../../kernel/cursor.js';
import type { Logger } from '../../logger.js';
import { type Actor, isOperator, type Principal } from '../../principal.js';
import type { Job } from '../../scheduler.js';
import { newId } from '../../ids.js';
import { subkey } from '../../kernel/keys.js';
import { decryptLegacySecret, encryptSecret, isLegacySealed, newSecret } from './crypto.js';
import { createDeliveryLog } from './delivery-log.js';
import { createOutbox } from './outbox.js';
import type { WebhookRow, WebhooksRepository } from './repository.js';
import { webhookView } from './views.js';

export { deliveryView, EVENT_DESCRIPTIONS, pingSentence, pingView, webhookView } from './views.js';

export { REDELIVERABLE } from './delivery-log.js';
export { DISABLE_AFTER_FAILED_DELIVERIES } from './queue.js';
/** The sender's queue writes as requests, which its thread sends to the server (src/threads/sender.ts). */
export type { QueueAnswer, QueueWrite, QueueWriter } from './sender.js';
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
  if (events.length === 0 || unknown.length > 0) throw webhookErrors.events(unknown, WEBHOOK_EVENTS);
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
    if (isOperator(principal))
      throw new DomainError('invalid', `url: ${error.message}${lifted ? ` ${PRIVATE_TARGETS_SETTING}` : ''}`, { field: 'url' });
    logger.info('webhook target refused', { userId: principal.userId, code: error.code, detail: error.message });
    if (error.code === 'invalid_url') throw new DomainError('invalid', `url: ${error.message}`, { field: 'url' });
    throw webhookErrors.targetNotAllowed(options.allowPrivateTargets);
  }
}

/** Test pings a member may send: one per subscription owner every this long. */
export const PING_INTERVAL_MS = 10_000;
/** Test pings a subscription's log keeps (the newest). */
const PINGS_KEPT = 20;

/**
 * Webhook subscriptions (managed with the CLI) and the outbox: `enqueue` runs inside the
 * transaction of every recorded event and writes one pending delivery per enabled subscription
 * of the workspace that chose the event, so a committed event always has its deliveries.
 */
export function createWebhooksService({
  repo,
  write,
  isMember,
  clock,
  options,
  cursors,
  logger,
  sendPing,
  deliver,
  onQueued,
}: {
  repo: WebhooksRepository;
  write: Write<never>;
  /** Whether the account is a live member of the workspace (the accounts module's). */
  isMember: (workspaceId: string, userId: string) => boolean;
  clock: Clock;
  options: WebhookOptions;
  /** Signs the delivery log's page links (opaque, tamper-evident). */
  cursors: CursorCodec;
  logger: Logger;
  /** One signed test POST now (the sender's); null for a subscription that is gone. */
  sendPing: (webhookId: string) => Promise<{ deliveryId: string; outcome: Outcome } | null>;
  /** Sends what is due: the sender's run, in this process or on its thread (the scheduler's job). */
  deliver: () => unknown;
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
  const find = (principal: Principal, id: string): WebhookRow => {
    const row = repo.webhook(id);
    if (!row || (!isOperator(principal) && (row.userId !== principal.userId || row.workspaceId !== principal.workspaceId)))
      throw webhookErrors.notFound(id, isOperator(principal));
    return row;
  };

  /** Whose subscription a new one is: a member's own; the operator names workspace and member. */
  const ownerOf = (principal: Principal, input: { workspaceId?: string; userId?: string }) => {
    if (!isOperator(principal)) return { workspaceId: principal.workspaceId, userId: principal.userId };
    if (!input.workspaceId || !input.userId) throw webhookErrors.whoseSubscription();
    return { workspaceId: input.workspaceId, userId: input.userId };
  };

  /** A member may send one test ping every 10 seconds (each is a request to the receiver). */
  const pingAllowed = (member: Actor) => {
    const key = `${member.workspaceId}|${member.userId}`;
    const now = clock.now();
    const last = lastPing.get(key);
    if (last !== undefined && now - last < PING_INTERVAL_MS) {
      const wait = Math.ceil((last + PING_INTERVAL_MS - now) / 1000);
      throw webhookErrors.pingTooSoon(wait);
    }
    if (lastPing.size > 10_000) lastPing.clear();
    lastPing.set(key, now);
  };

  return {
    /** The module's periodic job: the sender's tick (deliveries due, retries). */
    jobs: [{ name: 'webhook deliveries', every: 'tick', run: deliver }] satisfies Job[],

    async create(
      principal: Principal,
      input: { workspaceId?: string; userId?: string; url: string; events: string[] },
    ): Promise<{ id: string; secret: string }> {
      const owner = ownerOf(principal, input);
      checkEvents(input.events);
      await checkTarget(input.url, options, principal, logger);
      if (!isMember(owner.workspaceId, owner.userId)) throw webhookErrors.memberNotFound(owner.workspaceId, owner.userId);
      const secret = newSecret();
      const now = clock.now();
      const id = newId('whk');
      write(() =>
        repo.insertWebhook({
          id,
          workspaceId: owner.workspaceId,
          userId: owner.userId,
          url: input.url,
          events: JSON.stringify([...new Set(input.events)]),
          secretCiphertext: encryptSecret(sealing, id, secret),
          createdAt: now,
          updatedAt: now,
        }),
      );
      return { id, secret };
    },

    /** A member's own subscriptions in their workspace; for the operator, a workspace's. */
    list(principal: Principal, workspaceId?: string) {
      const rows = isOperator(principal) ? repo.webhooks(workspaceId ?? '') : repo.webhooks(principal.workspaceId, principal.userId);
      return rows.map(webhookView);
    },

    /** One subscription (`not_found` when unknown, or not the member's). */
    get: (principal: Principal, id: string) => webhookView(find(principal, id)),

    ...createDeliveryLog({ repo, write, clock, cursors, find, ...(onQueued ? { onQueued } : {}) }),

    enable(principal: Principal, id: string): { id: string } {
      return write(() => {
        find(principal, id);
        repo.enableWebhook(id, clock.now());
        return { id };
      });
    },

    delete(principal: Principal, id: string): { id: string } {
      return write(() => {
        find(principal, id);
        repo.deleteWebhook(id);
        return { id };
      });
    },

    /** The delivery figures of GET /metrics: the open queue and the settled outcomes. */
    figures: repo.figures,

    /** An account was deleted: its subscriptions (and their delivery logs) go, inside the accounts write. */
    deleteOfUser: (userId: string): void => repo.deleteWebhooksOf(userId),

    /**
     * A test ping (the contract's `ping` webhook): one signed POST now. A member may send one
     * every 10 seconds; every ping is logged with the subscription and its outcome.
     */
    async ping(principal: Principal, id: string): Promise<{ deliveryId: string; outcome: Outcome; advice: string | null }> {
      const hook = find(principal, id);
      if (!isOperator(principal)) pingAllowed(principal);
      const sent = await sendPing(hook.id);
      if (!sent) throw webhookErrors.notFound(id, true);
      const { outcome } = sent;
      recordPing({ repo, write, clock, logger }, hook.id, principal, sent);
      // A target refused for being plain http or private: name the setting that allows it.
      const lifted =
        !options.allowPrivateTargets &&
        'error' in outcome &&
        (outcome.error === 'scheme_not_allowed' || outcome.error === 'blocked_address');
      return { ...sent, advice: lifted ? PRIVATE_TARGETS_SETTING : null };
    },

    /** Seals the secrets stored before subkeys again (at start); returns how many. */
    resealLegacySecrets: () => write(() => resealLegacySecrets(repo, options.secretKey, sealing)),

    /** The outbox: called by the event log inside the event's transaction. */
    enqueue: createOutbox(repo, clock),
  };
}

/** A ping goes in the delivery log, marked as a ping (never counted toward auto-disable), and in the server's log. */
function recordPing(
  { repo, write, clock, logger }: { repo: WebhooksRepository; write: Write<never>; clock: Clock; logger: Logger },
  webhookId: string,
  principal: Principal,
  { deliveryId, outcome }: { deliveryId: string; outcome: Outcome },
): void {
  write(() => {
    repo.insertPing({
      id: deliveryId,
      webhookId,
      status: outcome.status,
      responseCode: 'responseCode' in outcome ? outcome.responseCode : null,
      error: 'error' in outcome ? outcome.error : null,
      errorDetail: 'detail' in outcome ? outcome.detail : null,
      createdAt: clock.now(),
    });
    repo.prunePings(webhookId, PINGS_KEPT);
  });
  logger.info('webhook ping', {
    webhookId,
    deliveryId,
    by: isOperator(principal) ? 'operator' : principal.userId,
    status: outcome.status,
    ...('responseCode' in outcome ? { responseCode: outcome.responseCode } : {}),
    ...('error' in outcome ? { error: outcome.error } : {}),
  });
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

/**
 * Seals again, with the webhook-secrets subkey and bound to their subscription, the secrets
 * stored before subkeys (sealed with the server key itself), in one transaction.
 */
function resealLegacySecrets(repo: WebhooksRepository, serverKey: Buffer, sealing: Buffer): number {
  const legacy = repo.sealedSecrets().filter((w) => isLegacySealed(w.sealed));
  for (const w of legacy) repo.setSealedSecret(w.id, encryptSecret(sealing, w.id, decryptLegacySecret(serverKey, w.sealed)));
  return legacy.length;
}
