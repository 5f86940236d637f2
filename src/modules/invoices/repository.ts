import { eq } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { invoices } from './schema.js';

export type InvoiceRow = typeof invoices.$inferSelect;

/** Every SQL statement of the invoices module, over the invoices table only. */
export function createInvoicesRepository(db: Db) {
  return {
    invoice: (id: string): InvoiceRow | undefined => db.select().from(invoices).where(eq(invoices.id, id)).get(),
    insert: (values: typeof invoices.$inferInsert): InvoiceRow => db.insert(invoices).values(values).returning().get(),
    update: (id: string, values: Partial<typeof invoices.$inferInsert>): InvoiceRow =>
      db.update(invoices).set(values).where(eq(invoices.id, id)).returning().get() as InvoiceRow,
  };
}

export type InvoicesRepository = ReturnType<typeof createInvoicesRepository>;
