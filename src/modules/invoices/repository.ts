import { and, asc, desc, eq, gte, isNotNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { preparedOnFirstUse } from '../../db/prepared.js';
import { invoiceNumbers, invoicePayments, invoiceReminders, invoiceSends, invoices, invoiceSettings } from './schema.js';

export type InvoiceRow = typeof invoices.$inferSelect;
export type InvoiceSettingsRow = typeof invoiceSettings.$inferSelect;
export type InvoiceSendRow = typeof invoiceSends.$inferSelect;
export type InvoicePaymentRow = typeof invoicePayments.$inferSelect;
export type InvoiceReminderRow = typeof invoiceReminders.$inferSelect;

/**
 * Statements prepared once (at their first use): the settings are read by every page a member
 * opens (the language its workspace's documents speak), ~200 µs a page when built and compiled
 * per request (issue 60).
 */
function invoiceStatements(db: Db) {
  return preparedOnFirstUse(db, {
    settings: () =>
      db
        .select()
        .from(invoiceSettings)
        .where(eq(invoiceSettings.workspaceId, sql.placeholder('workspaceId')))
        .prepare(),
  });
}

/** Every SQL statement of the invoices module, over its tables only (invoices, their numbers, sends and payments, the settings). */
export function createInvoicesRepository(db: Db) {
  const statements = invoiceStatements(db);
  return {
    invoice: (id: string): InvoiceRow | undefined => db.select().from(invoices).where(eq(invoices.id, id)).get(),
    insert: (values: typeof invoices.$inferInsert): InvoiceRow => db.insert(invoices).values(values).returning().get(),
    update: (id: string, values: Partial<typeof invoices.$inferInsert>): InvoiceRow =>
      db.update(invoices).set(values).where(eq(invoices.id, id)).returning().get() as InvoiceRow,
    /** Records that a document of the invoice was handed out (downloaded or sent) at `at`: the first time once, the last time always. */
    markHandedOut: (id: string, at: number): void => {
      db.update(invoices)
        .set({ firstHandedOutAt: sql`coalesce(${invoices.firstHandedOutAt}, ${at})`, lastHandedOutAt: at })
        .where(eq(invoices.id, id))
        .run();
    },
    /** A workspace's invoices, newest first, optionally of one status and one client. */
    list: (workspaceId: string, filter: { status?: InvoiceRow['status']; clientId?: string }): InvoiceRow[] =>
      db
        .select()
        .from(invoices)
        .where(
          and(
            eq(invoices.workspaceId, workspaceId),
            filter.status === undefined ? undefined : eq(invoices.status, filter.status),
            filter.clientId === undefined ? undefined : eq(invoices.clientId, filter.clientId),
          ),
        )
        .orderBy(desc(invoices.createdAt), desc(invoices.id))
        .all(),

    /** The document the workspace issued last (the latest issue date; the next may not be dated before it). */
    lastIssued: (workspaceId: string): { number: string; issueDate: string } | undefined =>
      db
        .select({ number: invoiceNumbers.number, issueDate: invoiceNumbers.issueDate })
        .from(invoiceNumbers)
        .where(eq(invoiceNumbers.workspaceId, workspaceId))
        .orderBy(desc(invoiceNumbers.issueDate))
        .limit(1)
        .get(),
    /** How many documents the workspace issued (dated in [from, to) when given: a series restarting each year). */
    issuedCount: (workspaceId: string, range: { from: string; to: string } | null): number =>
      (
        db
          .select({ count: sql<number>`count(*)` })
          .from(invoiceNumbers)
          .where(
            and(
              eq(invoiceNumbers.workspaceId, workspaceId),
              range === null ? undefined : gte(invoiceNumbers.issueDate, range.from),
              range === null ? undefined : lt(invoiceNumbers.issueDate, range.to),
            ),
          )
          .get() as { count: number }
      ).count,
    /** Records an issued number; the unique index refuses a number the workspace gave already. */
    insertNumber: (values: typeof invoiceNumbers.$inferInsert): void => {
      db.insert(invoiceNumbers).values(values).run();
    },

    /** Every number a workspace issued, oldest first (a workspace's export carries them with their invoices). */
    numbersOf: (workspaceId: string): Array<typeof invoiceNumbers.$inferSelect> =>
      db
        .select()
        .from(invoiceNumbers)
        .where(eq(invoiceNumbers.workspaceId, workspaceId))
        .orderBy(invoiceNumbers.issueDate, invoiceNumbers.createdAt)
        .all(),
    /** Whether the workspace issued this number already (an import's check before it restores one). */
    numberTaken: (workspaceId: string, number: string): boolean =>
      db
        .select({ number: invoiceNumbers.number })
        .from(invoiceNumbers)
        .where(and(eq(invoiceNumbers.workspaceId, workspaceId), eq(invoiceNumbers.number, number)))
        .get() !== undefined,
    /** Deletes an invoice, its numbers, sends and payments (the undo of the import that restored it). */
    deleteRestored: (id: string): void => {
      db.delete(invoiceReminders).where(eq(invoiceReminders.invoiceId, id)).run();
      db.delete(invoicePayments).where(eq(invoicePayments.invoiceId, id)).run();
      db.delete(invoiceSends).where(eq(invoiceSends.invoiceId, id)).run();
      db.delete(invoiceNumbers).where(eq(invoiceNumbers.invoiceId, id)).run();
      db.delete(invoices).where(eq(invoices.id, id)).run();
    },
    /** Records a send by mail (in the write that queues its message). */
    insertSend: (values: typeof invoiceSends.$inferInsert): void => {
      db.insert(invoiceSends).values(values).run();
    },
    /** An invoice's sends by mail, oldest first; two in one millisecond in the order they were recorded (rowid), not by their random ids. */
    sends: (invoiceId: string): InvoiceSendRow[] =>
      db
        .select()
        .from(invoiceSends)
        .where(eq(invoiceSends.invoiceId, invoiceId))
        .orderBy(asc(invoiceSends.createdAt), sql`rowid`)
        .all(),

    /** Records a payment (in the write that changes the invoice's sums). */
    insertPayment: (values: typeof invoicePayments.$inferInsert): void => {
      db.insert(invoicePayments).values(values).run();
    },
    /** An invoice's payments in the order they were recorded. */
    payments: (invoiceId: string): InvoicePaymentRow[] =>
      db
        .select()
        .from(invoicePayments)
        .where(eq(invoicePayments.invoiceId, invoiceId))
        .orderBy(asc(invoicePayments.createdAt), sql`rowid`)
        .all(),

    /** Records a reminder sent (in the write that queues its message); the unique index refuses a level twice. */
    insertReminder: (values: typeof invoiceReminders.$inferInsert): void => {
      db.insert(invoiceReminders).values(values).run();
    },
    /** An invoice's reminders, the first level first. */
    reminders: (invoiceId: string): InvoiceReminderRow[] =>
      db.select().from(invoiceReminders).where(eq(invoiceReminders.invoiceId, invoiceId)).orderBy(asc(invoiceReminders.level)).all(),
    /** A workspace's sent invoices due before `day`, the earliest due first (the Overdue view: it reads their amounts due). */
    sentDueBefore: (workspaceId: string, day: string): InvoiceRow[] =>
      db
        .select()
        .from(invoices)
        .where(and(eq(invoices.workspaceId, workspaceId), eq(invoices.status, 'sent'), lt(invoices.dueDate, day)))
        .orderBy(asc(invoices.dueDate), asc(invoices.id))
        .all(),
    /** The sent invoices due before `day` of every workspace that has reminders on, with its levels (the reminders' tick). */
    remindable: (day: string): Array<{ invoice: InvoiceRow; reminders: string | null }> =>
      db
        .select({ invoice: invoices, reminders: invoiceSettings.reminders })
        .from(invoices)
        .innerJoin(invoiceSettings, eq(invoiceSettings.workspaceId, invoices.workspaceId))
        .where(and(eq(invoices.status, 'sent'), lt(invoices.dueDate, day), isNotNull(invoiceSettings.reminders)))
        .orderBy(asc(invoices.dueDate), asc(invoices.id))
        .all(),

    settings: (workspaceId: string): InvoiceSettingsRow | undefined => statements.settings.get({ workspaceId }),
    storeSettings: (values: typeof invoiceSettings.$inferInsert): void => {
      db.insert(invoiceSettings)
        .values(values)
        .onConflictDoUpdate({ target: invoiceSettings.workspaceId, set: { ...values, workspaceId: undefined } })
        .run();
    },
  };
}

export type InvoicesRepository = ReturnType<typeof createInvoicesRepository>;
