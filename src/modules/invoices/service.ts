import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { EventLog } from '../events/service.js';

/** Invoices (first-party, CLI): placeholder until the invoices service lands. */
export function createInvoicesService(_deps: { db: Db; clock: Clock; events: EventLog }) {
  return {};
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;
