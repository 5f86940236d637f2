import { isNotNull } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { primaryId, timestamps } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';

/**
 * The mail outbox and the log of sent mail: one row per message, written in the transaction of
 * the change that causes it (an invitation, a reset link, a runaway timer), sent by the
 * scheduler's tick, updated after every attempt. `next_attempt_at` is null once the message is
 * final (sent, given up, cancelled); `claimed_until` leases an attempt in flight, so a crash
 * leaves it due again (at least once: the relay may get it twice, with the same Message-ID).
 */
export const mailMessages = sqliteTable(
  'mail_messages',
  {
    /** `mail_…`, ordered by time. */
    id: primaryId(),
    /** The workspace whose owners see it on the Mail page; null for an account's own mail (a reset, an email change). */
    workspaceId: text('workspace_id').references(() => workspaces.id),
    /** The account it is for, when it is for one (its queued mail is cancelled when the account is deleted). */
    userId: text('user_id').references(() => users.id),
    /** What caused it: invitation, password-reset, address-confirmation, email-change, runaway-reminder, or message (the module's API). */
    kind: text('kind').notNull(),
    /** The recipient's address (one, checked) and display name. */
    recipient: text('recipient').notNull(),
    recipientName: text('recipient_name'),
    subject: text('subject').notNull(),
    /** `<id@domain>`: the same on every attempt, so a receiver can drop a repeat. */
    messageId: text('message_id').notNull(),
    /**
     * The bodies and attachments, AES-256-GCM sealed with the mail subkey and bound to the id
     * (they carry a link's secret); cleared once the message is sent or cancelled.
     */
    sealed: text('sealed'),
    status: text('status', { enum: ['queued', 'sent', 'failed', 'cancelled'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** A stable code (queue.ts MAIL_ERRORS) when the last attempt did not succeed. */
    error: text('error'),
    /** What the relay answered last (its reply line), or what went wrong before it answered. */
    detail: text('detail'),
    nextAttemptAt: integer('next_attempt_at'),
    claimedUntil: integer('claimed_until'),
    /** When the link it carries stops working: a message not sent by then is given up. */
    expiresAt: integer('expires_at'),
    sentAt: integer('sent_at'),
    ...timestamps(),
  },
  (t) => [
    // The sender's queue: due messages, oldest first; partial, so the log of final ones is not in it.
    index('mail_messages_queue').on(t.nextAttemptAt, t.id).where(isNotNull(t.nextAttemptAt)),
    // The Mail page and `mail list --workspace`: a workspace's messages, newest first.
    index('mail_messages_workspace').on(t.workspaceId, t.id),
    index('mail_messages_user').on(t.userId),
  ],
);

/**
 * The uses of the mail budgets (src/modules/mail/budget.ts, issue 44 M5): one row per message a
 * person caused, under each key it counts against (the person and kind, the workspace), written
 * in the write that queued the message. Rows older than the longest window (a day) are purged
 * hourly.
 */
export const mailBudgetUses = sqliteTable(
  'mail_budget_uses',
  {
    /** `person:<kind>:<userId>` or `workspace:<workspaceId>`. */
    key: text('key').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('mail_budget_uses_key').on(t.key, t.at)],
);
