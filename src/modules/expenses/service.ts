import type { Clock } from '../../clock.js';
import { DomainError } from '../../errors.js';
import { newTimeId } from '../../ids.js';
import { requireSafeText } from '../../kernel/input.js';
import { toCents } from '../../kernel/money.js';
import { type OwnTax, ownTaxOf, parseOwnTax } from '../../kernel/tax.js';
import { parseCalendarDay } from '../../kernel/time.js';
import { isOperator, type Principal } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import { expenseErrors as errors } from './errors.js';
import { checkReceipt } from './receipts.js';
import { createExpenseTransfer } from './transfer.js';
import type { ExpenseRow, ExpensesRepository } from './repository.js';
import { type ExpenseView, expenseView, type ViewNames } from './views.js';

export type { ExpenseView } from './views.js';
export { MAX_RECEIPT_BYTES, sniffReceipt } from './receipts.js';
export { assembleReceipt, checkExpenseRecord, checkReceiptPart, receiptCheck } from './transfer.js';
export type { ExpenseRecord, ExpenseTransfer, ReceiptPartRecord, ReceiptRecord } from './transfer.js';

/** What expenses read of accounts and the catalog (bound in src/services.ts). */
export interface ExpensePorts {
  membership(workspaceId: string, userId: string): { currency: string } | undefined;
  userNames(ids: string[]): Array<{ id: string; name: string }>;
  /** A project of the workspace (`not_found` otherwise). */
  project(workspaceId: string, id: string): { id: string; archived: boolean; billable: boolean };
  /** The projects of the workspace named so (one per client at most), with their client's name. */
  projectsNamed(workspaceId: string, name: string): Array<{ id: string; name: string; clientName: string | null }>;
  projectLabels(
    workspaceId: string,
    ids: string[],
  ): Array<{ id: string; name: string; clientId: string | null; clientName: string | null }>;
}

/** What a form, a command or a file gives for an expense (each field optional on an edit). */
export interface ExpenseInput {
  day?: unknown;
  description?: unknown;
  /** The net amount: a decimal with at most two places (a comma or a point), above 0. */
  amount?: unknown;
  projectId?: unknown;
  billable?: unknown;
  /** Blank: the invoice's own tax; `S` with `taxRate`; `Z`. */
  taxCategory?: unknown;
  taxRate?: unknown;
}

/** A receipt file as it was uploaded. */
export interface ReceiptFile {
  name?: string;
  bytes: Buffer;
}

/** What a listing asks: a month (`YYYY-MM`) or a range of days, a project; the operator names the workspace. */
export interface ExpenseFilter {
  workspaceId?: string;
  month?: string;
  from?: string;
  to?: string;
  projectId?: string;
  /** A project by its id or its name (the command line's `--project`); refused when no project, or several, answer to it. */
  project?: string;
}

/** An expense as a draft takes it (the invoices module's port): what its line bills. */
export interface InvoiceableExpense {
  id: string;
  day: string;
  description: string;
  amountCents: number;
  tax: OwnTax | null;
  projectId: string;
}

/** The largest expense: 10 million in the workspace's currency (a typo of a few zeros is refused, not billed). */
const MAX_AMOUNT = 10_000_000;
const MAX_DESCRIPTION = 500;

const invalid = errors.invalid;

function dayOf(value: unknown, field: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  try {
    parseCalendarDay(text, field);
  } catch {
    throw invalid(
      field,
      `${field} must be a calendar day YYYY-MM-DD that exists, such as 2026-11-30 (got ${JSON.stringify(value ?? null)}).`,
      'Give the day as a date, such as 2026-11-30.',
    );
  }
  return text;
}

function descriptionOf(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '')
    throw invalid(
      'description',
      'description is required: what was bought, as the client reads it on an invoice.',
      'Say what the expense was for.',
    );
  if (text.length > MAX_DESCRIPTION)
    throw invalid(
      'description',
      `description must be at most ${MAX_DESCRIPTION} characters (got ${text.length}).`,
      `Keep the description under ${MAX_DESCRIPTION} characters.`,
    );
  return requireSafeText(text, 'description', 'description');
}

function amountCentsOf(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim().replace(',', '.') : '';
  const n = /^\d{1,8}(\.\d{1,2})?$/.test(text) ? Number(text) : Number.NaN;
  if (!(n > 0 && n <= MAX_AMOUNT))
    throw invalid(
      'amount',
      `amount must be the net amount above 0 and at most ${MAX_AMOUNT.toLocaleString('en')}, with at most two decimals, such as 12.90 or 12,90 (got ${JSON.stringify(value ?? null)}).`,
      'Give the net amount as a number above 0 with at most two decimals, such as 12.90.',
    );
  return toCents(n);
}

function billableOf(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true' || value === 'on' || value === '1' || value === 'yes') return true;
  if (value === false || value === 'false' || value === 'off' || value === '0' || value === 'no') return false;
  throw invalid('billable', `billable must be true or false (got ${JSON.stringify(value)}).`, 'Say whether the expense is billable.');
}

/** The days of a month `YYYY-MM`, or a 400 at `month`. */
function monthDays(month: string): { from: string; to: string } {
  const m = /^(\d{4})-(\d{2})$/.exec(month.trim());
  const [year, mon] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || mon < 1 || mon > 12)
    throw invalid('month', `month must be YYYY-MM, such as 2026-11 (got ${JSON.stringify(month)}).`, 'Choose a month.');
  const last = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return { from: `${m[1]}-${m[2]}-01`, to: `${m[1]}-${m[2]}-${String(last).padStart(2, '0')}` };
}

/**
 * Expenses (decisions §12; issue 57 item 1): what members spent for a project, with an optional
 * receipt, billed by a draft of the project's client. Who may see them follows the money rules of
 * entries: a member sees their own; a colleague's only with canViewOthersMoney (an expense is
 * money, nothing else), else it is not found. Only its author changes or deletes one (the
 * operator any); an invoiced one is locked until its invoice is voided.
 */
export function createExpensesService({
  repo,
  clock,
  write,
  ports,
}: {
  repo: ExpensesRepository;
  clock: Clock;
  write: DomainWrite;
  ports: ExpensePorts;
}) {
  const { seesOthers, visible, editable, namesOf, viewOf, projectFor, projectNamed, storeReceipt } = rulesOf(repo, clock, ports);

  return {
    /**
     * Records an expense of the principal (the operator names the workspace and member):
     * day, description, net amount, project, billable (the project's by default), its own tax or
     * the invoice's, and a receipt. Every field is checked before anything is written.
     */
    add(
      principal: Principal,
      input: ExpenseInput & { workspaceId?: string; authorId?: string },
      receipt?: ReceiptFile | null,
    ): ExpenseView {
      const workspaceId = isOperator(principal) ? input.workspaceId : principal.workspaceId;
      const authorId = isOperator(principal) ? input.authorId : principal.userId;
      if (!workspaceId || !authorId) throw errors.workspaceNeeded();
      const member = ports.membership(workspaceId, authorId);
      if (!member) throw errors.notMember(workspaceId, authorId);
      const day = dayOf(input.day, 'day');
      const description = descriptionOf(input.description);
      const amountCents = amountCentsOf(input.amount);
      const tax = parseOwnTax(input.taxCategory, input.taxRate);
      const billable = billableOf(input.billable);
      if (receipt) checkReceipt(receipt);
      return write(() => {
        const project = projectFor(workspaceId, input.projectId, null);
        const now = clock.now();
        const row = repo.insert({
          id: newTimeId('exp', now),
          workspaceId,
          authorId,
          day,
          description,
          amountCents,
          currency: member.currency,
          taxCategory: tax?.category ?? null,
          taxRate: tax?.rate ?? null,
          projectId: project.id,
          billable: billable ?? project.billable,
          invoiceId: null,
          createdAt: now,
          updatedAt: now,
        });
        if (receipt) storeReceipt(row, receipt);
        return viewOf(row);
      });
    },

    /** The expenses the principal may see of a month or range of days and a project, by day. */
    list(principal: Principal, filter: ExpenseFilter = {}): ExpenseView[] {
      const workspaceId = isOperator(principal) ? filter.workspaceId : principal.workspaceId;
      if (!workspaceId) throw errors.workspaceNeeded();
      const range = filter.month ? monthDays(filter.month) : { from: filter.from, to: filter.to };
      if (range.from !== undefined) dayOf(range.from, 'from');
      if (range.to !== undefined) dayOf(range.to, 'to');
      const rows = repo.list({
        workspaceId,
        ...(range.from === undefined ? {} : { fromDay: range.from }),
        ...(range.to === undefined ? {} : { toDay: range.to }),
        ...(filter.projectId ? { projectId: filter.projectId } : {}),
        ...(filter.project === undefined ? {} : { projectId: projectNamed(workspaceId, filter.project) }),
        ...(seesOthers(principal) || isOperator(principal) ? {} : { authorId: principal.userId }),
      });
      const names = namesOf(workspaceId, rows);
      return rows.map((row) => expenseView(row, names));
    },

    get(principal: Principal, id: string): ExpenseView {
      return viewOf(visible(principal, id));
    },

    /**
     * Changes an expense (its author; the operator): the fields given, and its receipt (a file
     * replaces it, null removes it, absent keeps it). Refused for an invoiced one.
     */
    update(principal: Principal, id: string, patch: ExpenseInput, receipt?: ReceiptFile | null): ExpenseView {
      const values: Partial<ExpenseRow> = {};
      if (patch.day !== undefined) values.day = dayOf(patch.day, 'day');
      if (patch.description !== undefined) values.description = descriptionOf(patch.description);
      if (patch.amount !== undefined) values.amountCents = amountCentsOf(patch.amount);
      if (patch.taxCategory !== undefined || patch.taxRate !== undefined) {
        const tax = parseOwnTax(patch.taxCategory, patch.taxRate);
        values.taxCategory = tax?.category ?? null;
        values.taxRate = tax?.rate ?? null;
      }
      const billable = billableOf(patch.billable);
      if (billable !== undefined) values.billable = billable;
      if (receipt) checkReceipt(receipt);
      return write(() => {
        const row = editable(principal, id);
        if (patch.projectId !== undefined) values.projectId = projectFor(row.workspaceId, patch.projectId, row.projectId).id;
        const updated = repo.update(row.id, { ...values, updatedAt: clock.now() });
        if (receipt) storeReceipt(updated, receipt);
        else if (receipt === null) repo.removeReceipt(row.id);
        return viewOf(updated);
      });
    },

    /** Deletes an expense and its receipt (its author; the operator); refused for an invoiced one. */
    delete(principal: Principal, id: string): void {
      write(() => {
        const row = editable(principal, id);
        repo.delete(row.id);
      });
    },

    /** An expense's receipt, for its download (whoever sees the expense). */
    receipt(principal: Principal, id: string): { fileName: string; mediaType: string; bytes: Buffer } {
      const row = visible(principal, id);
      const file = repo.receipt(row.id);
      if (!file) throw errors.noReceipt(id);
      return { fileName: file.fileName, mediaType: file.mediaType, bytes: file.bytes };
    },

    /** What the invoices module reads and changes (through its ports; it decided who may). */
    invoicing: invoicingOf(repo),

    /** A whole-workspace export and its import (the imports module's port; it decided who may). */
    transfer: createExpenseTransfer({ repo }),
  };
}

/** The rules every operation shares: who sees and changes an expense, its names, its project, its receipt. */
function rulesOf(repo: ExpensesRepository, clock: Clock, ports: ExpensePorts) {
  const seesOthers = (principal: Principal): boolean => isOperator(principal) || principal.canViewOthersMoney;

  /** The expense as the principal may see it: 404 when in another workspace or a colleague's without money rights. */
  const visible = (principal: Principal, id: string): ExpenseRow => {
    const row = isOperator(principal) ? repo.byIdAnywhere(id) : repo.byId(principal.workspaceId, id);
    if (!row || (!isOperator(principal) && row.authorId !== principal.userId && !seesOthers(principal))) throw errors.notFound(id);
    return row;
  };

  /** An expense the principal may change: their own (403 when a colleague's they see), not invoiced (409). */
  const editable = (principal: Principal, id: string): ExpenseRow => {
    const row = visible(principal, id);
    if (!isOperator(principal) && row.authorId !== principal.userId) throw errors.notAuthor(id);
    if (row.invoiceId !== null) throw errors.invoiced(id, row.invoiceId);
    return row;
  };

  const namesOf = (workspaceId: string, rows: ExpenseRow[]): ViewNames => ({
    users: new Map(ports.userNames([...new Set(rows.map((r) => r.authorId))]).map((u) => [u.id, u.name])),
    projects: new Map(
      ports
        .projectLabels(workspaceId, [...new Set(rows.map((r) => r.projectId))])
        .map((p) => [p.id, { name: p.name, clientId: p.clientId, clientName: p.clientName }]),
    ),
    receipts: new Map(repo.receiptInfos(rows.map((r) => r.id)).map((r) => [r.expenseId, r])),
  });
  const viewOf = (row: ExpenseRow): ExpenseView => expenseView(row, namesOf(row.workspaceId, [row]));

  const projectFor = (workspaceId: string, value: unknown, keep: string | null) => {
    const id = typeof value === 'string' ? value.trim() : '';
    if (id === '')
      throw invalid(
        'projectId',
        'projectId is required: the project the expense was for (its client is billed).',
        'Choose the project the expense was for.',
      );
    const project = ports.project(workspaceId, id);
    if (project.archived && project.id !== keep) throw errors.projectArchived(id);
    return project;
  };

  /**
   * A project of the workspace by its id, else by its name (compared as the catalog compares
   * names): its id. Refused when none answers to it (404), or when several projects of different
   * clients bear the name (each named with its client and id, to give the id instead).
   */
  const projectNamed = (workspaceId: string, value: string): string => {
    const given = value.trim();
    if (given === '') throw invalid('project', 'project is empty: give a project by its id or its name.', 'Choose a project.');
    try {
      return ports.project(workspaceId, given).id;
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'not_found') throw error;
    }
    const named = ports.projectsNamed(workspaceId, given);
    if (named.length === 1) return (named[0] as { id: string }).id;
    throw named.length === 0 ? errors.projectNotNamed(workspaceId, given) : errors.projectAmbiguous(given, named);
  };

  const storeReceipt = (row: ExpenseRow, file: ReceiptFile) => {
    const checked = checkReceipt(file);
    repo.saveReceipt({
      expenseId: row.id,
      workspaceId: row.workspaceId,
      fileName: checked.fileName,
      mediaType: checked.mediaType,
      size: checked.bytes.length,
      bytes: checked.bytes,
      createdAt: clock.now(),
    });
  };

  return { seesOthers, visible, editable, namesOf, viewOf, projectFor, projectNamed, storeReceipt };
}

/** What the invoices module reads and changes of expenses (through its ports; it decided who may). */
function invoicingOf(repo: ExpensesRepository) {
  return {
    /** The un-invoiced billable expenses of these projects on days [fromDay, toDay], by day. */
    invoiceable(workspaceId: string, projectIds: string[], fromDay: string, toDay: string): InvoiceableExpense[] {
      return repo.invoiceable(workspaceId, projectIds, fromDay, toDay).map((r) => ({
        id: r.id,
        day: r.day,
        description: r.description,
        amountCents: r.amountCents,
        tax: ownTaxOf(r.taxCategory, r.taxRate),
        projectId: r.projectId,
      }));
    },
    /** Inside the caller's write: these expenses are on the invoice now (locked). */
    markInvoiced: (ids: string[], invoiceId: string): number => repo.markInvoiced(ids, invoiceId),
    /** Inside the caller's write: the invoice was voided (or its draft deleted): its expenses are free again. */
    releaseInvoice: (invoiceId: string): number => repo.release(invoiceId),
    /** The expenses an invoice holds, by day (a draft's removed line frees its own). */
    held: (invoiceId: string): Array<{ id: string; day: string; description: string; amountCents: number }> =>
      repo.ofInvoice(invoiceId).map((r) => ({ id: r.id, day: r.day, description: r.description, amountCents: r.amountCents })),
    /** Inside the caller's write: these expenses left the invoice's draft with their line (free again). */
    release: (invoiceId: string, ids: string[]): number => repo.releaseSome(invoiceId, ids),
    /** The sizes of an invoice's receipts (the Send form offers to attach them), read without their bytes. */
    receiptSizes: (invoiceId: string): number[] => repo.receiptInfos(repo.ofInvoice(invoiceId).map((r) => r.id)).map((r) => r.size),
    /** The receipts of an invoice's expenses (its mail attaches them when asked). */
    receiptsOf(invoiceId: string): Array<{ fileName: string; mediaType: string; bytes: Buffer }> {
      return repo.ofInvoice(invoiceId).flatMap((r) => {
        const file = repo.receipt(r.id);
        return file ? [{ fileName: file.fileName, mediaType: file.mediaType, bytes: file.bytes }] : [];
      });
    },
  };
}

export type ExpensesService = ReturnType<typeof createExpensesService>;
