import type { components } from '../../../generated/openapi.js';
import type { DomainEvent } from '../events/service.js';
import type { Acting } from './access.js';
import type { InvoiceRow } from './repository.js';
import { payloadView } from './views.js';

type InvoiceStatus = components['schemas']['InvoiceStatus'];

/** The move's event (the webhook source), in its write. */
export function recordMove(record: (event: DomainEvent) => number, row: InvoiceRow, actor: Acting, from: InvoiceStatus): void {
  record({
    workspaceId: row.workspaceId,
    entity: 'invoice',
    entityId: row.id,
    operation: 'update',
    event: 'invoice.status_changed',
    actor,
    payload: { invoice: payloadView(row), from, to: row.status },
  });
}

/** A new invoice's event (`invoice.created`), in the write that made it; `webhooks` false: a sync event only (an import without --webhooks). */
export function recordCreated(
  record: (event: DomainEvent) => number,
  row: InvoiceRow,
  actor: DomainEvent['actor'],
  webhooks?: boolean,
): void {
  record({
    workspaceId: row.workspaceId,
    entity: 'invoice',
    entityId: row.id,
    operation: 'create',
    event: 'invoice.created',
    actor,
    payload: { invoice: payloadView(row) },
    ...(webhooks === undefined ? {} : { webhooks }),
  });
}
