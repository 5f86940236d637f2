import { and, desc, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { mailBudgetUses, mailMessages } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type MailRow = typeof mailMessages.$inferSelect;

/** A row as the log shows it (no content). */
const logColumns = {
  id: mailMessages.id,
  workspaceId: mailMessages.workspaceId,
  kind: mailMessages.kind,
  recipient: mailMessages.recipient,
  subject: mailMessages.subject,
  messageId: mailMessages.messageId,
  status: mailMessages.status,
  attempts: mailMessages.attempts,
  error: mailMessages.error,
  detail: mailMessages.detail,
  nextAttemptAt: mailMessages.nextAttemptAt,
  sentAt: mailMessages.sentAt,
  createdAt: mailMessages.createdAt,
  updatedAt: mailMessages.updatedAt,
};
export type MailLogRow = Pick<MailRow, keyof typeof logColumns>;

/** What an attempt's outcome writes. */
export interface Settle {
  id: string;
  now: number;
  status: 'queued' | 'sent' | 'failed';
  attempts: number;
  error: string | null;
  detail: string | null;
  nextAttemptAt: number | null;
  sentAt: number | null;
  /** Sent or given up for good: the sealed content goes (a retry of a failed one keeps it). */
  clearContent: boolean;
}

/** Every SQL statement of the mail module, over its own tables: mail_messages and mail_budget_uses. */
export function createMailRepository(db: Db) {
  const statements = preparedOnFirstUse(db, {
    // The sender's tick: the due, unleased messages, oldest due first (the partial queue index).
    due: () =>
      db
        .select({ id: mailMessages.id })
        .from(mailMessages)
        .where(
          and(
            isNotNull(mailMessages.nextAttemptAt),
            lte(mailMessages.nextAttemptAt, sql.placeholder('now')),
            or(isNull(mailMessages.claimedUntil), lte(mailMessages.claimedUntil, sql.placeholder('now'))),
          ),
        )
        .orderBy(mailMessages.nextAttemptAt, mailMessages.id)
        .limit(sql.placeholder('limit'))
        .prepare(),
    queued: () =>
      db
        .select({ count: sql<number>`count(*)` })
        .from(mailMessages)
        .where(isNotNull(mailMessages.nextAttemptAt))
        .prepare(),
  });
  return {
    insert: (values: typeof mailMessages.$inferInsert): void => {
      db.insert(mailMessages).values(values).run();
    },
    due: (now: number, limit: number): string[] => statements.due.all({ now, limit }).map((row) => row.id),
    /** Leases a due message (false when another process leased it, or it is no longer due). */
    lease: (id: string, now: number, until: number): boolean =>
      db
        .update(mailMessages)
        .set({ claimedUntil: until })
        .where(
          and(
            eq(mailMessages.id, id),
            isNotNull(mailMessages.nextAttemptAt),
            or(isNull(mailMessages.claimedUntil), lte(mailMessages.claimedUntil, now)),
          ),
        )
        .run().changes === 1,
    /** Ends a lease without an attempt (the batch ran out of time): due again at once. */
    release: (id: string): void => {
      db.update(mailMessages).set({ claimedUntil: null }).where(eq(mailMessages.id, id)).run();
    },
    byId: (id: string): MailRow | undefined => db.select().from(mailMessages).where(eq(mailMessages.id, id)).get(),
    settle: (s: Settle): void => {
      db.update(mailMessages)
        .set({
          status: s.status,
          attempts: s.attempts,
          error: s.error,
          detail: s.detail,
          nextAttemptAt: s.nextAttemptAt,
          claimedUntil: null,
          sentAt: s.sentAt,
          updatedAt: s.now,
          ...(s.clearContent ? { sealed: null } : {}),
        })
        .where(eq(mailMessages.id, s.id))
        .run();
    },
    /** Makes a given-up message due again at once (its content kept). */
    requeue: (id: string, now: number): boolean =>
      db
        .update(mailMessages)
        .set({ status: 'queued', nextAttemptAt: now, claimedUntil: null, updatedAt: now })
        .where(and(eq(mailMessages.id, id), eq(mailMessages.status, 'failed'), isNotNull(mailMessages.sealed)))
        .run().changes === 1,
    /** Messages waiting to be sent (a first attempt or a retry). */
    queuedCount: (): number => statements.queued.get()?.count ?? 0,
    /** A workspace's log, or every message (null), newest first, before an id (paging). */
    log: (workspaceId: string | null, before: string | null, limit: number): MailLogRow[] =>
      db
        .select(logColumns)
        .from(mailMessages)
        .where(
          and(
            workspaceId === null ? undefined : eq(mailMessages.workspaceId, workspaceId),
            before === null ? undefined : lt(mailMessages.id, before),
          ),
        )
        .orderBy(desc(mailMessages.id))
        .limit(limit)
        .all(),
    /** Leases left by a previous process: due again at once. */
    recover: (): number =>
      db
        .update(mailMessages)
        .set({ claimedUntil: null })
        .where(and(isNotNull(mailMessages.nextAttemptAt), isNotNull(mailMessages.claimedUntil)))
        .run().changes,
    /** An account was deleted: its waiting mail is cancelled and its content dropped. */
    cancelOfUser: (userId: string, now: number, detail: string): number =>
      db
        .update(mailMessages)
        .set({ status: 'cancelled', nextAttemptAt: null, claimedUntil: null, sealed: null, error: null, detail, updatedAt: now })
        .where(and(eq(mailMessages.userId, userId), isNotNull(mailMessages.nextAttemptAt)))
        .run().changes,
    /** The newest uses of a budget's key since `since`, newest first, at most `limit`. */
    budgetUses: (key: string, since: number, limit: number): number[] =>
      db
        .select({ at: mailBudgetUses.at })
        .from(mailBudgetUses)
        .where(and(eq(mailBudgetUses.key, key), sql`${mailBudgetUses.at} > ${since}`))
        .orderBy(desc(mailBudgetUses.at))
        .limit(limit)
        .all()
        .map((row) => row.at),
    insertBudgetUse: (key: string, at: number): void => {
      db.insert(mailBudgetUses).values({ key, at }).run();
    },
    /** Uses older than every budget's window go (the hourly retention job). */
    purgeBudgetUses: (before: number): number => db.delete(mailBudgetUses).where(lt(mailBudgetUses.at, before)).run().changes,
    /** Final messages made before the id `before` (ids are ordered by time): the log's retention. */
    purge: (before: string): number =>
      db
        .delete(mailMessages)
        .where(and(lt(mailMessages.id, before), isNull(mailMessages.nextAttemptAt)))
        .run().changes,
  };
}

export type MailRepository = ReturnType<typeof createMailRepository>;
