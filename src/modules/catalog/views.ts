import type { components } from '../../../generated/openapi.js';
import { fromCents, ratio4 } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
import type { ClientRow, ProjectWithTotals, TagRow, TaskRow } from './repository.js';

type Schemas = components['schemas'];
export type ClientView = Schemas['Client'];
export type ProjectView = Schemas['Project'];
export type TaskView = Schemas['Task'];
export type TagView = Schemas['Tag'];

/**
 * The API views of catalog rows. `moneyVisible` is false for a token that may not see others'
 * money (rates, budgets and progress are then null); sync events store the full view.
 */
export const clientView = (row: ClientRow): ClientView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  name: row.name,
  archived: row.archived,
  legalName: row.legalName,
  addressLines: row.addressLines ?? null,
  postalCode: row.postalCode,
  city: row.city,
  country: row.country,
  taxId: row.taxId,
  email: row.email,
  reference: row.reference,
  vatId: row.vatId,
  electronicAddress: row.electronicAddress,
  electronicAddressScheme: row.electronicAddressScheme,
  taxCategory: row.taxCategory as ClientView['taxCategory'],
  exemptionReason: row.exemptionReason,
  exemptionReasonCode: row.exemptionReasonCode,
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

export const taskView = (row: TaskRow, moneyVisible: boolean): TaskView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  projectId: row.projectId,
  name: row.name,
  estimateSec: row.estimateSec,
  hourlyRate: moneyVisible ? row.hourlyRate : null,
  archived: row.archived,
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

export const tagView = (row: TagRow): TagView => ({
  id: row.id,
  workspaceId: row.workspaceId,
  name: row.name,
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

/** What a project's running timers add to its stored totals. */
export interface LiveTotals {
  trackedSec: number;
  billableSec: number;
  cents: number;
}

export function projectView(row: ProjectWithTotals, live: LiveTotals | undefined, moneyVisible: boolean): ProjectView {
  const trackedSec = (row.trackedSec ?? 0) + (live?.trackedSec ?? 0);
  const amount = fromCents((row.amountCents ?? 0) + (live?.cents ?? 0));
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    clientId: row.clientId,
    name: row.name,
    color: row.color,
    billable: row.billable,
    hourlyRate: moneyVisible ? row.hourlyRate : null,
    estimateSec: row.estimateSec,
    budgetAmount: moneyVisible ? row.budgetAmount : null,
    archived: row.archived,
    progress: moneyVisible
      ? {
          trackedSec,
          billableSec: (row.billableSec ?? 0) + (live?.billableSec ?? 0),
          amount,
          estimateRatio: row.estimateSec ? ratio4(trackedSec, row.estimateSec) : null,
          budgetRatio: row.budgetAmount ? ratio4(amount, row.budgetAmount) : null,
        }
      : null,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
