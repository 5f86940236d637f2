import type { CatalogService } from '../catalog/service.js';
import type { ApprovedSpan, Invoiceable } from '../entries/service.js';
import type { InvoiceableExpense } from '../expenses/service.js';
import type { OwnTax } from '../../kernel/tax.js';
import type { DocumentSource } from './document.js';
import type { DocumentFormat } from './documents/index.js';
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
  /** The clients with a rounding rule of their own (`none` or a rule; issue 56 item 4). */
  clientRoundings(workspaceId: string): Array<{ id: string; rounding: string }>;
  /** Stores a client's rounding rule (checked) inside the caller's write, with the client's sync event (the catalog's). */
  storeClientRounding: CatalogService['storeClientRounding'];
  /** The clients with a document language of their own (decisions §12). */
  clientLanguages(workspaceId: string): Array<{ id: string; language: string }>;
  /** Stores a client's own document language (checked) inside the caller's write, with the client's sync event (the catalog's). */
  storeClientLanguage: CatalogService['storeClientLanguage'];
  /** The projects and tasks with a VAT of their own (decisions §12), by id. */
  workTaxes(workspaceId: string): { projects: ReadonlyMap<string, OwnTax>; tasks: ReadonlyMap<string, OwnTax> };
  /** Stores a project's or task's own VAT (checked) inside the caller's write, with its sync event (the catalog's). */
  storeWorkTax: CatalogService['storeWorkTax'];
  projectsOfClients(workspaceId: string, clientIds: string[]): string[];
  projectLabels(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  taskNames(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  userNames(ids: string[]): Array<{ id: string; name: string }>;
  invoiceableGroups(q: Invoiceable): TimeGroup[];
  invoiceableEntries(q: Invoiceable): TimeEntry[];
  /** The invoiceable entries' number, counted no further than `cap`. */
  invoiceableCount(q: Invoiceable, cap: number): number;
  unratedInvoiceable(q: Invoiceable, limit: number): Array<{ id: string; startAt: number; projectId: string }>;
  markInvoiced(q: Invoiceable, invoiceId: string): number;
  /**
   * Approval (decisions §13): the members' approved time overlapping [from, to) (invoices take
   * only it), or null while the workspace's approval is off; absent: off.
   */
  approvedSpans?(workspaceId: string, from: number, to: number): ApprovedSpan[] | null;
  /** With approval on: the range's billable time not approved yet (a draft says it still waits). */
  invoiceableWaiting?(q: Invoiceable & { approved: ApprovedSpan[] }): { entries: number; seconds: number };
  releaseInvoice(invoiceId: string): void;
  /** Expenses (decisions §12; the expenses module's): a draft takes its client's un-invoiced billable ones; absent: none. */
  expenses?: InvoiceExpenses;
  /** The workspace's name (an invoice's mail names it when the issuer has no legal name), or null. */
  workspaceName(workspaceId: string): string | null;
  /** Outgoing mail (the mail module), for sending an issued invoice. */
  mail: InvoiceMail;
}

/** What invoicing reads and changes of expenses, inside its writes. */
export interface InvoiceExpenses {
  /** The un-invoiced billable expenses of these projects on the days [fromDay, toDay], by day. */
  invoiceable(workspaceId: string, projectIds: string[], fromDay: string, toDay: string): InvoiceableExpense[];
  /** They are on the invoice now: locked until it is voided. */
  markInvoiced(ids: string[], invoiceId: string): number;
  /** The invoice was voided: its expenses are free again. */
  releaseInvoice(invoiceId: string): number;
  /** The expenses an invoice holds (a draft's line removed releases its own: drafts.ts), by day. */
  held?(invoiceId: string): Array<{ id: string; day: string; description: string; amountCents: number }>;
  /** These expenses of the invoice are free again (their line left its draft). */
  release?(invoiceId: string, ids: string[]): number;
  /** The receipts of an invoice's expenses (its mail attaches them when the owner asks), by the expenses' day. */
  receiptsOf?(invoiceId: string): Array<{ fileName: string; mediaType: string; bytes: Buffer }>;
  /** The sizes of those receipts in bytes, without reading them (the Send form offers them when there are any). */
  receiptSizes?(invoiceId: string): number[];
}

/**
 * Where a document is made (issue 45 item 6): the server's document threads (src/threads/documents/pool.ts:
 * a PDF of 500 lines is a second of CPU the request thread must not spend), or this process (the
 * command line, tests, a server without document threads). Given the stored invoice, the format
 * and whether the credit note is wanted; the invoices service checks first, so the renderer only
 * makes bytes (and raises a refusal it finds again as its DomainError). It may refuse for want
 * of a free thread (the pool's own error, which the pages translate into 503).
 */
export type DocumentRenderer = (doc: DocumentSource, format: DocumentFormat, options: { creditNote: boolean }) => Promise<Buffer>;

/** A message as the mail module queues it: one recipient, both bodies, attachments; for a workspace's Mail page. */
export interface InvoiceMessage {
  kind: string;
  to: { address: string; name: string | null };
  workspaceId: string;
  userId: string | null;
  subject: string;
  text: string;
  html: string;
  attachments: Array<{ name: string; type: string; bytes: Buffer }>;
  /** The From display name (the issuer's), beside the server's own address (MAIL_FROM's). */
  fromName: string;
  /** Where a reply goes (the issuer's email), or null: to MAIL_FROM. */
  replyTo: { address: string; name: string | null } | null;
}

/** What invoicing asks of the mail module. */
export interface InvoiceMail {
  /** Whether mail is set up on this server (SMTP_URL, MAIL_FROM). */
  enabled(): boolean;
  /** Whether an address can be given to the relay as one recipient. */
  deliverable(address: string): boolean;
  /** Why an address cannot be given to the relay (the mail module's words), or null when it can. */
  undeliverable(address: string): string | null;
  /** The address mail leaves from (MAIL_FROM's), or null when mail is off: the Send form shows it. */
  senderAddress(): string | null;
  /** The most a message may carry in attachments together, in bytes (the mail module's limit). */
  maxAttachmentBytes(): number;
  /** Where a queued message stands now (the Mail page's status), or null when the log no longer holds it (kept 30 days). */
  delivery(messageId: string): { status: 'queued' | 'sent' | 'failed' | 'cancelled'; sentAt: number | null } | null;
  /** Queues a message inside the caller's write (sent after the commit); its id. Refuses an address or attachment it cannot send (DomainError `invalid`). */
  queue(message: InvoiceMessage): string;
  /**
   * Inside the send's write: counts an invoice mail against its sender's and the workspace's
   * budgets, or refuses it (BudgetSpent, 429, saying when: issue 44 M5). `userId` null: the
   * operator, whom no budget limits. A reminder (the scheduler's) counts against the workspace's alone.
   */
  spend(cause: { kind: 'invoice' | 'reminder'; userId: string | null; workspaceId: string }): void;
}
