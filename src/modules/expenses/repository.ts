import { and, asc, eq, gte, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { expenseReceipts, expenses } from './schema.js';

export type ExpenseRow = typeof expenses.$inferSelect;
export type ReceiptRow = typeof expenseReceipts.$inferSelect;
/** A receipt without its bytes (lists, views). */
export type ReceiptInfo = Omit<ReceiptRow, 'bytes'>;

/** What a listing asks: a workspace's expenses of days [fromDay, toDay], of a project, of an author (each optional). */
export interface ExpenseQuery {
  workspaceId: string;
  fromDay?: string;
  toDay?: string;
  projectId?: string;
  authorId?: string;
}

const receiptInfo = {
  expenseId: expenseReceipts.expenseId,
  workspaceId: expenseReceipts.workspaceId,
  fileName: expenseReceipts.fileName,
  mediaType: expenseReceipts.mediaType,
  size: expenseReceipts.size,
  createdAt: expenseReceipts.createdAt,
};

/** Every SQL statement of the expenses module, over its own two tables. */
export function createExpensesRepository(db: Db) {
  return {
    byId: (workspaceId: string, id: string): ExpenseRow | undefined =>
      db
        .select()
        .from(expenses)
        .where(and(eq(expenses.id, id), eq(expenses.workspaceId, workspaceId)))
        .get(),
    /** An expense by id alone (the operator, who acts in every workspace). */
    byIdAnywhere: (id: string): ExpenseRow | undefined => db.select().from(expenses).where(eq(expenses.id, id)).get(),
    list: (q: ExpenseQuery): ExpenseRow[] =>
      db
        .select()
        .from(expenses)
        .where(
          and(
            eq(expenses.workspaceId, q.workspaceId),
            q.fromDay === undefined ? undefined : gte(expenses.day, q.fromDay),
            q.toDay === undefined ? undefined : lte(expenses.day, q.toDay),
            q.projectId === undefined ? undefined : eq(expenses.projectId, q.projectId),
            q.authorId === undefined ? undefined : eq(expenses.authorId, q.authorId),
          ),
        )
        .orderBy(asc(expenses.day), asc(expenses.id))
        .all(),
    /** The un-invoiced billable expenses of these projects on days [fromDay, toDay] (what a draft takes). */
    invoiceable: (workspaceId: string, projectIds: string[], fromDay: string, toDay: string): ExpenseRow[] =>
      projectIds.length === 0
        ? []
        : db
            .select()
            .from(expenses)
            .where(
              and(
                eq(expenses.workspaceId, workspaceId),
                inArray(expenses.projectId, projectIds),
                gte(expenses.day, fromDay),
                lte(expenses.day, toDay),
                eq(expenses.billable, true),
                isNull(expenses.invoiceId),
              ),
            )
            .orderBy(asc(expenses.day), asc(expenses.id))
            .all(),
    insert: (values: typeof expenses.$inferInsert): ExpenseRow => db.insert(expenses).values(values).returning().get(),
    update: (id: string, values: Partial<typeof expenses.$inferInsert>): ExpenseRow =>
      db.update(expenses).set(values).where(eq(expenses.id, id)).returning().get() as ExpenseRow,
    delete: (id: string): void => {
      db.delete(expenseReceipts).where(eq(expenseReceipts.expenseId, id)).run();
      db.delete(expenses).where(eq(expenses.id, id)).run();
    },
    /**
     * Marks these expenses as on the invoice, those not on one yet. Found by their ids: the `+`
     * keeps SQLite off the `expenses_invoice` index for `invoice_id IS NULL`, which it chose for a
     * long id list and which holds every expense not on an invoice, of every workspace and year.
     */
    markInvoiced: (ids: string[], invoiceId: string): number =>
      ids.length === 0
        ? 0
        : db
            .update(expenses)
            .set({ invoiceId })
            .where(and(inArray(expenses.id, ids), sql`+${expenses.invoiceId} IS NULL`))
            .run().changes,
    /** Releases an invoice's expenses (it was voided). */
    release: (invoiceId: string): number =>
      db.update(expenses).set({ invoiceId: null }).where(eq(expenses.invoiceId, invoiceId)).run().changes,
    /** Releases some of an invoice's expenses (their line left its draft). */
    releaseSome: (invoiceId: string, ids: string[]): number =>
      ids.length === 0
        ? 0
        : db
            .update(expenses)
            .set({ invoiceId: null })
            .where(and(eq(expenses.invoiceId, invoiceId), inArray(expenses.id, ids)))
            .run().changes,
    ofInvoice: (invoiceId: string): ExpenseRow[] =>
      db.select().from(expenses).where(eq(expenses.invoiceId, invoiceId)).orderBy(asc(expenses.day), asc(expenses.id)).all(),

    receipt: (expenseId: string): ReceiptRow | undefined =>
      db.select().from(expenseReceipts).where(eq(expenseReceipts.expenseId, expenseId)).get(),
    /** The receipts (without bytes) of these expenses. */
    receiptInfos: (expenseIds: string[]): ReceiptInfo[] =>
      expenseIds.length === 0
        ? []
        : db.select(receiptInfo).from(expenseReceipts).where(inArray(expenseReceipts.expenseId, expenseIds)).all(),
    saveReceipt: (values: typeof expenseReceipts.$inferInsert): void => {
      db.insert(expenseReceipts).values(values).onConflictDoUpdate({ target: expenseReceipts.expenseId, set: values }).run();
    },
    removeReceipt: (expenseId: string): void => {
      db.delete(expenseReceipts).where(eq(expenseReceipts.expenseId, expenseId)).run();
    },
    /** How many expenses the workspace holds (the page's empty state). */
    count: (workspaceId: string): number =>
      db
        .select({ n: sql<number>`count(*)` })
        .from(expenses)
        .where(eq(expenses.workspaceId, workspaceId))
        .get()?.n ?? 0,
  };
}

export type ExpensesRepository = ReturnType<typeof createExpensesRepository>;
