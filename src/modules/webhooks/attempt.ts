import { performance } from 'node:perf_hooks';
import type { Clock } from '../../clock.js';
import { subkey } from '../../kernel/keys.js';
import { toIso } from '../../kernel/time.js';
import { decryptSecret, signature } from './crypto.js';
import { dataFor, type EventRecord, type LaneConnection, post } from './post.js';
import { type Attempted, CANCELLED_DETAIL, type DeliveryQueue, type Outcome } from './queue.js';
import type { WebhookOptions } from './service.js';
import { checkUrl, resolveTarget, TargetRefused } from './targets.js';

/** The sender's settings (sender.ts passes them through). */
export interface SenderOptions extends WebhookOptions {
  /** Each attempt's limit: 10 s, as the contract's webhook description promises. */
  timeoutMs: number;
  /** Subscriptions served at once (each sends its own deliveries one at a time, in event order). */
  concurrency: number;
  /** Extra trusted CA certificates (PEM), for tests with their own CA. */
  ca?: string | undefined;
}

/** What a signed POST needs of its subscription. */
export interface Target {
  id: string;
  url: string;
  secretCiphertext: string;
}

/**
 * Checks and pins a subscription's target, signs a body afresh with its secret and POSTs it,
 * all within one attempt's budget: the outcome, not yet written anywhere.
 */
export function createSignedPost({ clock, options }: { clock: Clock; options: SenderOptions }) {
  /** Decrypted secrets by ciphertext: AES-GCM once per subscription, not per attempt. */
  const secrets = new Map<string, string>();
  const sealing = subkey(options.secretKey, 'webhook-secrets');
  const secretOf = (webhookId: string, ciphertext: string): string => {
    let secret = secrets.get(ciphertext);
    if (secret === undefined) {
      secret = decryptSecret(sealing, webhookId, ciphertext);
      secrets.set(ciphertext, secret);
    }
    return secret;
  };

  return async (webhook: Target, deliveryId: string, event: string, body: string, connection?: LaneConnection): Promise<Outcome> => {
    try {
      const url = checkUrl(webhook.url, options.allowPrivateTargets);
      // One budget for the whole attempt, the name lookup included: it must end inside the lease.
      const began = performance.now();
      const pinned = await resolveTarget(url, options.allowPrivateTargets, options.resolve, options.timeoutMs);
      const left = Math.max(1, Math.floor(options.timeoutMs - (performance.now() - began)));
      const timestamp = Math.floor(clock.now() / 1000);
      const headers = {
        'X-Service-Event': event,
        'X-Service-Delivery': deliveryId,
        'X-Service-Timestamp': String(timestamp),
        'X-Service-Signature': signature(secretOf(webhook.id, webhook.secretCiphertext), timestamp, body),
      };
      return await post(url, pinned, body, headers, {
        ...options,
        timeoutMs: left,
        budgetMs: options.timeoutMs,
        ...(connection ? { connection } : {}),
      });
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      return { status: 'failure', responseCode: null, error: error.code, detail: error.message };
    }
  };
}

/**
 * One attempt of one delivery: read it with its subscription and event, withhold it by the
 * owner's visibility now, check and pin the target, sign it afresh and POST it. Returns the
 * outcome; the caller writes it.
 */
export function createAttempt({
  queue,
  eventOf,
  clock,
  options,
}: {
  queue: DeliveryQueue;
  /** The event a delivery carries (the events module's record; kept while a delivery refers to it). */
  eventOf: (seq: number) => EventRecord | undefined;
  clock: Clock;
  options: SenderOptions;
}) {
  const signedPost = createSignedPost({ clock, options });

  /** One attempt of one delivery: the outcome, not yet written. `connection`: the lane's kept connection. */
  async function attempt(id: string, connection?: LaneConnection): Promise<Attempted | null> {
    const startedAt = clock.now();
    // Deleted with its subscription meanwhile, or already final (a lease that expired).
    const row = queue.delivery(id);
    if (!row) return null;
    const { delivery, webhook } = row;
    const event = eventOf(delivery.eventSeq);
    if (!event) return null;
    const attempted = (outcome: Outcome): Attempted => ({
      id,
      webhookId: webhook.id,
      attempt: delivery.attempt,
      status: delivery.status,
      responseCode: delivery.responseCode,
      outcome,
      startedAt,
    });
    if (!webhook.enabled) return attempted({ status: 'cancelled', error: 'subscription_disabled', detail: CANCELLED_DETAIL });
    // Visibility is the owner's at send time.
    const owner = queue.owner(webhook.workspaceId, webhook.userId);
    const data = owner ? dataFor(event, owner) : null;
    if (!data)
      return attempted({
        status: 'skipped_visibility',
        error: owner ? 'visibility_withheld' : 'owner_not_member',
        detail: owner
          ? 'The subscription owner may not see this event (their visibility at send time).'
          : 'The subscription owner is no longer a member of the workspace.',
      });
    const body = JSON.stringify({
      id: delivery.id,
      event: delivery.event,
      workspaceId: webhook.workspaceId,
      createdAt: toIso(event.createdAt),
      data,
    });
    return attempted(await signedPost(webhook, delivery.id, delivery.event, body, connection));
  }

  return attempt;
}
