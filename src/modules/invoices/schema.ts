import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users, workspaces } from '../accounts/schema.js';
import { clients } from '../catalog/schema.js';

/**
 * Invoices (first-party, CLI). Parties are copied at creation; lines and amounts never change
 * after it; e-invoice fills only add values that were null or absent.
 */
export const invoices = sqliteTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    clientId: text('client_id')
      .notNull()
      .references(() => clients.id),
    status: text('status', { enum: ['draft', 'sent', 'paid', 'void'] }).notNull(),
    currency: text('currency').notNull(),
    /** The invoiced range, calendar days (inclusive). */
    fromDay: text('from_day').notNull(),
    toDay: text('to_day').notNull(),
    /** JSON: the issuer party (workspace business profile) or null. */
    issuer: text('issuer'),
    /** JSON: the recipient party (the client) or null. */
    recipient: text('recipient'),
    /** JSON: the lines. */
    lines: text('lines').notNull(),
    /** Total in cents. */
    totalCents: integer('total_cents').notNull(),
    /** JSON object of optional invoice-level values (taxBreakdown, paymentTerms), added by fills. */
    extras: text('extras').notNull().default('{}'),
    /** JSON array of e-invoice fills: {at, by, fields}. */
    einvoiceFills: text('einvoice_fills').notNull().default('[]'),
    createdBy: text('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('invoices_workspace').on(t.workspaceId, t.createdAt)],
);
