import { isNotNull } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, primaryId, reference, timestamps } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';
import { events } from '../events/schema.js';

/** Webhook subscriptions, owned by a member, managed with the CLI. */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    /** The owner, whose visibility decides what is sent. */
    userId: reference('user_id', () => users.id),
    url: text('url').notNull(),
    /** JSON array of event names. */
    events: text('events').notNull(),
    /** The signing secret, AES-256-GCM encrypted with the server key (base64url of iv|tag|ciphertext). */
    secretCiphertext: text('secret_ciphertext').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    /** Consecutive failed deliveries (after all their attempts); 15 disables the subscription. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    disabledAt: integer('disabled_at'),
    ...timestamps(),
  },
  (t) => [index('webhooks_workspace').on(t.workspaceId), index('webhooks_user').on(t.userId)],
);

/**
 * The outbox and delivery log: one row per delivery, written in the transaction of the event,
 * updated after every attempt. `next_attempt_at` is null once the delivery is final;
 * `claimed_until` leases an attempt in flight, so a crash leaves it due again (at least once).
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    /** 24 lowercase hex characters: the X-Service-Delivery header and the envelope id. */
    id: primaryId(),
    webhookId: reference('webhook_id', () => webhooks.id, { onDelete: 'cascade' }),
    eventSeq: integer('event_seq')
      .notNull()
      .references(() => events.seq),
    event: text('event').notNull(),
    status: text('status', {
      enum: ['pending', 'success', 'failure', 'redirect_not_followed', 'skipped_visibility', 'abandoned', 'cancelled'],
    }).notNull(),
    attempt: integer('attempt').notNull().default(0),
    responseCode: integer('response_code'),
    /** A stable code (queue.ts DELIVERY_ERRORS) when the last attempt did not succeed. */
    error: text('error'),
    /** The human text of `error`: the receiver's status, the refused address, the TLS failure. */
    errorDetail: text('error_detail'),
    nextAttemptAt: integer('next_attempt_at'),
    claimedUntil: integer('claimed_until'),
    ...timestamps(),
  },
  (t) => [
    // The sender's queue: each subscription's due deliveries in event order, covering the lease
    // check; partial, so final deliveries (nearly all of the log) are not in it.
    index('webhook_deliveries_queue').on(t.webhookId, t.nextAttemptAt, t.eventSeq, t.claimedUntil, t.id).where(isNotNull(t.nextAttemptAt)),
    index('webhook_deliveries_webhook').on(t.webhookId, t.createdAt),
    index('webhook_deliveries_created').on(t.createdAt),
    // Deleting an old sync event looks up the deliveries that still refer to it (the foreign
    // key's check, and the retention's own).
    index('webhook_deliveries_event').on(t.eventSeq),
  ],
);

/**
 * Test pings, shown in the subscription's delivery log marked as pings (they are not
 * deliveries: no event, no retries, never counted toward auto-disable). A subscription keeps
 * its newest 20.
 */
export const webhookPings = sqliteTable(
  'webhook_pings',
  {
    /** The X-Service-Delivery id the ping was sent with. */
    id: primaryId(),
    webhookId: reference('webhook_id', () => webhooks.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    responseCode: integer('response_code'),
    error: text('error'),
    errorDetail: text('error_detail'),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_pings_webhook').on(t.webhookId, t.createdAt)],
);
