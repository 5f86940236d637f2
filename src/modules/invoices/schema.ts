import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, primaryId, reference, referenceKey, timestamps, updatedAt } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';
import { clients } from '../catalog/schema.js';

/**
 * Invoices (first-party: the command line and the web app). Parties, lines, tax and totals are
 * fixed at creation; issuing adds the number, the dates and the payment terms; after that only
 * the status, the paid date and e-invoice fills (values that were null or absent) change.
 */
export const invoices = sqliteTable(
  'invoices',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    clientId: reference('client_id', () => clients.id),
    status: text('status', { enum: ['draft', 'sent', 'paid', 'void'] }).notNull(),
    currency: text('currency').notNull(),
    /** The invoiced range, calendar days (inclusive). */
    fromDay: text('from_day').notNull(),
    toDay: text('to_day').notNull(),
    /** The zone whose days the range is: the creating member's (decisions 11a); older invoices were read in UTC days. */
    timeZone: text('time_zone').notNull().default('UTC'),
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
    /**
     * When a document of the issued invoice (or of its credit note) was first and last handed out:
     * downloaded (the page, `invoice export`) or sent by mail (ms; null: never). A filled value is
     * corrected until a document carrying it was handed out (decisions 14): a fill made at or before
     * the last time is fixed.
     */
    firstHandedOutAt: integer('first_handed_out_at'),
    lastHandedOutAt: integer('last_handed_out_at'),
    /** Given at issue from the workspace's series (null while a draft, and on a draft voided). */
    number: text('number'),
    /** Calendar days `YYYY-MM-DD`. */
    issueDate: text('issue_date'),
    dueDate: text('due_date'),
    paidDate: text('paid_date'),
    /** The credit note made when an issued invoice is voided: its number (same series) and date. */
    creditNoteNumber: text('credit_note_number'),
    creditNoteDate: text('credit_note_date'),
    /** Free text given at creation (BT-22). */
    note: text('note'),
    /** The documents' labels, from the invoicing settings at creation. */
    language: text('language', { enum: ['en', 'de'] })
      .notNull()
      .default('en'),
    /**
     * The rounding rule its lines were made with (`up-15`, `nearest-6` …; null: none, every
     * invoice made before rules existed): the client's, else the workspace's, at creation. A later
     * change of either does not change it.
     */
    rounding: text('rounding'),
    /**
     * What the recorded payments (invoice_payments) add up to, in cents: the money received, and
     * the early-payment discount a payment settled the invoice with (issue 57). The amount due of
     * an issued invoice is its gross total less both; kept in the write that records a payment.
     */
    paidCents: integer('paid_cents').notNull().default(0),
    discountCents: integer('discount_cents').notNull().default(0),
    /**
     * The last payment reminder the scheduler's tick could not send (issue 57), as JSON
     * `{level, since, reason, detail, at}`: its level, the day it was due since, why (`budget`:
     * the workspace's mail budget was spent; `document`: its document failed its rules;
     * `address`: its recipient has no email address mail can reach; `detail` the refusal's
     * words) and when it was tried. Null when none was skipped; cleared when a
     * reminder is sent. The invoice's page and `invoice show` say it.
     */
    reminderSkip: text('reminder_skip'),
    createdBy: reference('created_by', () => users.id),
    ...timestamps(),
  },
  (t) => [
    index('invoices_workspace').on(t.workspaceId, t.createdAt),
    // The reminders' tick: the sent invoices of every workspace due before today.
    index('invoices_status_due').on(t.status, t.dueDate),
    // The Overdue view: one workspace's sent invoices due before today (issue 57).
    index('invoices_workspace_status_due').on(t.workspaceId, t.status, t.dueDate),
  ],
);

/**
 * Every number a workspace issued, invoices and credit notes alike: the unique index is what
 * makes a number impossible to give twice, whatever process issues it; the issue dates tell the
 * next number's sequence and the earliest date the next document may carry.
 */
export const invoiceNumbers = sqliteTable(
  'invoice_numbers',
  {
    workspaceId: reference('workspace_id', () => workspaces.id),
    number: text('number').notNull(),
    invoiceId: reference('invoice_id', () => invoices.id),
    kind: text('kind', { enum: ['invoice', 'credit_note'] }).notNull(),
    issueDate: text('issue_date').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('invoice_numbers_number').on(t.workspaceId, t.number),
    uniqueIndex('invoice_numbers_document').on(t.invoiceId, t.kind),
    index('invoice_numbers_date').on(t.workspaceId, t.issueDate),
  ],
);

/** A workspace's invoicing settings (no row: the defaults). */
export const invoiceSettings = sqliteTable('invoice_settings', {
  workspaceId: referenceKey('workspace_id', () => workspaces.id),
  numberPattern: text('number_pattern').notNull(),
  taxCategory: text('tax_category').notNull(),
  /** A percentage (19, 7.7); null until set. */
  taxRate: real('tax_rate'),
  exemptionReason: text('exemption_reason'),
  exemptionReasonCode: text('exemption_reason_code'),
  language: text('language', { enum: ['en', 'de'] }).notNull(),
  /** How each entry's time is rounded on invoices (`up-15`, `nearest-6` …); null: not rounded. */
  rounding: text('rounding'),
  /** Early-payment discount terms offered on the invoices it issues (`2 % within 10 days`); null: none (issue 57). */
  earlyPayment: text('early_payment'),
  /** Payment reminders by mail (issue 57): the days past due of each level (`7, 21`); null: off (the default). */
  reminders: text('reminders'),
  updatedAt: updatedAt(),
});

/**
 * Every time an invoice or its credit note was sent by mail (issue 45 item 12): when, to whom,
 * which documents, by whom, and the mail message that carries them (the Mail page's row, whose
 * status says whether the relay took it). Written in the same write that queues the message.
 */
export const invoiceSends = sqliteTable(
  'invoice_sends',
  {
    /** `isnd_…`. */
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    invoiceId: reference('invoice_id', () => invoices.id),
    /** Which document was sent: the invoice, or its credit note. */
    document: text('document', { enum: ['invoice', 'credit_note'] }).notNull(),
    /** The one address it went to. */
    recipient: text('recipient').notNull(),
    /** JSON array of the attached files' names, in order (the PDF first). */
    files: text('files').notNull(),
    /** The mail message (mail_messages.id) that carries it. */
    mailId: text('mail_id').notNull(),
    /** The member who sent it (the operator names one). */
    sentBy: reference('sent_by', () => users.id),
    createdAt: createdAt(),
  },
  (t) => [index('invoice_sends_invoice').on(t.invoiceId, t.createdAt, t.id)],
);

/**
 * The payments recorded against an issued invoice (issue 57): the day the money arrived, how much
 * (integer cents, in the invoice's currency) and a note. A payment that settles the invoice within
 * its early-payment discount also records the discount the client kept. Written in the write that
 * changes the invoice's sums (and, when nothing is left to pay, its status).
 */
export const invoicePayments = sqliteTable(
  'invoice_payments',
  {
    /** `ipay_…`. */
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    invoiceId: reference('invoice_id', () => invoices.id),
    /** The calendar day the money arrived, `YYYY-MM-DD`, as the owner gave it (default: their today, in their zone). */
    paidOn: text('paid_on').notNull(),
    /** The money received, in cents (above 0). */
    amountCents: integer('amount_cents').notNull(),
    /** The early-payment discount this payment settled the invoice with, in cents (0: none). */
    discountCents: integer('discount_cents').notNull().default(0),
    note: text('note'),
    /** The member who recorded it (the operator names one). */
    recordedBy: reference('recorded_by', () => users.id),
    createdAt: createdAt(),
  },
  (t) => [index('invoice_payments_invoice').on(t.invoiceId, t.createdAt)],
);

/**
 * The payment reminders sent for an overdue invoice (issue 57 item 3): one per invoice and level
 * (the unique index makes a second impossible), when, to whom, the days it was overdue, the files
 * attached and the mail message that carries it. Written in the write that queues the message.
 */
export const invoiceReminders = sqliteTable(
  'invoice_reminders',
  {
    /** `irem_…`. */
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    invoiceId: text('invoice_id')
      .notNull()
      .references(() => invoices.id),
    /** 1 for the first reminder, 2 for the second … (the workspace's levels, in order). */
    level: integer('level').notNull(),
    /** The calendar days past the due date when it was sent (the workspace's default zone). */
    daysOverdue: integer('days_overdue').notNull(),
    /** What was due when it was sent, in cents. */
    amountDueCents: integer('amount_due_cents').notNull(),
    recipient: text('recipient').notNull(),
    /** JSON array of the attached files' names (the PDF first). */
    files: text('files').notNull(),
    /** The mail message (mail_messages.id) that carries it. */
    mailId: text('mail_id').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('invoice_reminders_level').on(t.invoiceId, t.level)],
);
