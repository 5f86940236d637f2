import { blob, index, integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users, workspaces } from '../accounts/schema.js';
import { projects } from '../catalog/schema.js';

/**
 * An expense (decisions §12): money a member spent for a project (a train ticket, a book), billed
 * to its client or not. Its net in whole cents, in the workspace's currency at the time; its own
 * tax (S with a rate, Z) or, null, the invoice's. A draft takes the un-invoiced billable ones of
 * its client and range; `invoiceId` locks it until that invoice is voided.
 */
export const expenses = sqliteTable(
  'expenses',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    authorId: text('author_id')
      .notNull()
      .references(() => users.id),
    /** The calendar day it was spent (`YYYY-MM-DD`), as its author gave it. */
    day: text('day').notNull(),
    description: text('description').notNull(),
    /** The net amount in whole cents (above 0). */
    amountCents: integer('amount_cents').notNull(),
    /** ISO 4217: the workspace's when it was recorded. */
    currency: text('currency').notNull(),
    /** Its own VAT (`S` with `taxRate`, `Z`), or null: the invoice's own. */
    taxCategory: text('tax_category'),
    taxRate: real('tax_rate'),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    billable: integer('billable', { mode: 'boolean' }).notNull(),
    invoiceId: text('invoice_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('expenses_workspace_day').on(t.workspaceId, t.day),
    index('expenses_project_day').on(t.projectId, t.day),
    index('expenses_invoice').on(t.invoiceId),
  ],
);

/** An expense's receipt (one at most): its bytes kept with the workspace, so the backup holds them. */
export const expenseReceipts = sqliteTable(
  'expense_receipts',
  {
    expenseId: text('expense_id')
      .primaryKey()
      .references(() => expenses.id),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    /** The file's name as it was uploaded (cleaned), for the download. */
    fileName: text('file_name').notNull(),
    /** The type its content showed: application/pdf, image/png, image/jpeg or image/webp. */
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('expense_receipts_workspace').on(t.workspaceId)],
);
