import type { components } from '../../../generated/openapi.js';
import { fromCents } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
import type { InvoiceRow } from './repository.js';

export type InvoiceView = components['schemas']['Invoice'];

/** An invoice as webhook payloads carry it and `invoice show` prints it. */
export const view = (row: InvoiceRow): InvoiceView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  clientId: row.clientId,
  status: row.status,
  currency: row.currency,
  from: row.fromDay,
  to: row.toDay,
  issuer: JSON.parse(row.issuer ?? 'null'),
  recipient: JSON.parse(row.recipient ?? 'null'),
  lines: JSON.parse(row.lines),
  total: fromCents(row.totalCents),
  ...(JSON.parse(row.extras) as Pick<InvoiceView, 'taxBreakdown' | 'paymentTerms'>),
  einvoiceFills: JSON.parse(row.einvoiceFills),
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});
