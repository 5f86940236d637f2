import type { Invoiceable } from '../entries/service.js';
import type { TimeEntry, TimeGroup } from './lines.js';

/** What invoicing reads and changes of other modules, through their services (wired in src/services.ts). */
export interface InvoicePorts {
  requireWorkspace(workspaceId: string): void;
  membership(workspaceId: string, userId: string): { currency: string } | undefined;
  /** A person's own time zone (their preferences), or null: the issue date is their local day. */
  timeZoneOf(userId: string): string | null;
  businessProfile(workspaceId: string): Record<string, unknown> | null;
  storeBusinessProfile(workspaceId: string, profile: Record<string, unknown> | null): void;
  client(workspaceId: string, id: string): Record<string, unknown> & { id: string };
  projectsOfClients(workspaceId: string, clientIds: string[]): string[];
  projectLabels(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  taskNames(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  userNames(ids: string[]): Array<{ id: string; name: string }>;
  invoiceableGroups(q: Invoiceable): TimeGroup[];
  invoiceableEntries(q: Invoiceable): TimeEntry[];
  unratedInvoiceable(q: Invoiceable, limit: number): Array<{ id: string; startAt: number; projectId: string }>;
  markInvoiced(q: Invoiceable, invoiceId: string): number;
  releaseInvoice(invoiceId: string): void;
}
