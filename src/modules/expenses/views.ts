import { fromCents } from '../../kernel/money.js';
import { ownTaxOf, type OwnTax } from '../../kernel/tax.js';
import type { ExpenseRow, ReceiptInfo } from './repository.js';

/** An expense as its reader sees it: the page's row, `expense list --json`. */
export interface ExpenseView {
  id: string;
  workspaceId: string;
  authorId: string;
  authorName: string;
  /** The day it was spent, `YYYY-MM-DD`. */
  day: string;
  description: string;
  /** The net amount (a decimal with at most two places), in `currency`. */
  amount: number;
  currency: string;
  /** Its own VAT, or null: the invoice's own. */
  tax: OwnTax | null;
  projectId: string;
  projectName: string;
  clientId: string | null;
  clientName: string | null;
  billable: boolean;
  /** The invoice it is on (it is then locked), or null. */
  invoiceId: string | null;
  receipt: { fileName: string; mediaType: string; size: number } | null;
  createdAt: string;
  updatedAt: string;
}

export interface ViewNames {
  users: Map<string, string>;
  projects: Map<string, { name: string; clientId: string | null; clientName: string | null }>;
  receipts: Map<string, ReceiptInfo>;
}

export function expenseView(row: ExpenseRow, names: ViewNames): ExpenseView {
  const project = names.projects.get(row.projectId);
  const receipt = names.receipts.get(row.id);
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    authorId: row.authorId,
    authorName: names.users.get(row.authorId) ?? '',
    day: row.day,
    description: row.description,
    amount: fromCents(row.amountCents),
    currency: row.currency,
    tax: ownTaxOf(row.taxCategory, row.taxRate),
    projectId: row.projectId,
    projectName: project?.name ?? '',
    clientId: project?.clientId ?? null,
    clientName: project?.clientName ?? null,
    billable: row.billable,
    invoiceId: row.invoiceId,
    receipt: receipt ? { fileName: receipt.fileName, mediaType: receipt.mediaType, size: receipt.size } : null,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
