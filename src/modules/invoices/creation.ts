import { DateTime } from 'luxon';
import { DomainError, invalidAt } from '../../errors.js';
import { requireSafeText } from '../../kernel/input.js';
import { fromCents, toCents } from '../../kernel/money.js';
import { type ClientRounding, type RoundingText, ruleFor } from '../../kernel/rounding.js';
import { dayEnd, dayStart } from '../../kernel/time.js';
import type { Invoiceable } from '../entries/service.js';
import type { InvoiceableExpense } from '../expenses/service.js';
import type { OwnTax } from '../../kernel/tax.js';
import type { InvoiceDocumentLine, InvoiceLanguage, LineGrouping, TaxBreakdownRow } from './document.js';
import { invoiceErrors as errors } from './errors.js';
import { ISSUER_FIELDS, partyOf, RECIPIENT_FIELDS } from './fields.js';
import { checkLineCount, groupsOf, LINE_GROUPINGS, lineDate, linesOf, MAX_INVOICE_LINES, roundedEntries } from './lines.js';
import { LINE_UNITS } from './manual.js';
import type { InvoicePorts } from './ports.js';
import type { InvoicingSettings } from './settings.js';
import { breakdown, lineTax, type MissingTaxSetting, ownTaxApplies, treatment } from './tax.js';

/** What a new invoice is made of: the client, the range (whole days of the creating member's zone, inclusive), the grouping and a note. */
export interface DraftInput {
  workspaceId: string;
  clientId: string;
  from: string;
  to: string;
  /** The zone the range's days are read in, over the creating member's own (their Profile's, else the server's). */
  timeZone?: string;
  /** How entries become lines (default `project`). */
  groupBy?: LineGrouping;
  /** Free text printed on the invoice (BT-22). */
  note?: string | null;
}

/** An invoice as it would be made: everything of the document that creation decides. */
export interface Draft {
  currency: string;
  from: string;
  to: string;
  /** The zone whose days `from` and `to` are (the invoice keeps it). */
  timeZone: string;
  language: InvoiceLanguage;
  note: string | null;
  issuer: Record<string, unknown> | null;
  recipient: Record<string, unknown>;
  lines: InvoiceDocumentLine[];
  taxBreakdown: TaxBreakdownRow[];
  total: number;
  netTotal: number;
  taxTotal: number;
  grossTotal: number;
  /** How many entries it takes (they get its id). */
  entryCount: number;
  /** The expenses it takes (they get its id; decisions §12): their lines follow the lines of time. */
  expenseIds: string[];
  /** The tax settings it lacks (its lines show them "not set"; issuing refuses until they are set). */
  missingTax: MissingTaxSetting[];
  /** With approval on (decisions §13): the billable time of its range still waiting for approval (not on it); null while approval is off. */
  waiting: { entries: number; seconds: number } | null;
  /**
   * The rounding rule its lines were made with (the client's, else the workspace's: issue 56
   * item 4), with the time its entries took and the time billed; null: not rounded.
   */
  rounding: { rule: RoundingText; workedSec: number; billedSec: number } | null;
}

/**
 * The checked input: the days as instants in `zone` (the first instant of `from` to the first of
 * the day after `to`, as the member's Reports read a range: 23- and 25-hour days included), the
 * grouping and the note.
 */
export function checkDraftInput(
  input: DraftInput,
  zone = 'UTC',
): { fromMs: number; toMs: number; groupBy: LineGrouping; note: string | null } {
  const fromMs = dayStart(input.from, 'from', zone);
  const toMs = dayEnd(input.to, 'to', zone);
  if (fromMs >= toMs) throw errors.invalid(`from (${input.from}) must not be after to (${input.to}).`);
  const groupBy = input.groupBy ?? 'project';
  if (!LINE_GROUPINGS.includes(groupBy))
    throw errors.invalid(`groupBy must be one of ${LINE_GROUPINGS.join(', ')} (got ${JSON.stringify(groupBy)}).`);
  const note = input.note?.trim() ? input.note.trim() : null;
  if (note !== null && note.length > 1000) throw errors.invalid('note must be at most 1000 characters.');
  // The one rule of an invoice's text (issue 54 N4), its lines kept: a note is a few lines.
  if (note !== null) requireSafeText(note, 'note', 'note', { lineBreaks: true });
  return { fromMs, toMs, groupBy, note };
}

const dayOf = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).toISODate() as string;

/** Waiting time as a person reads it: `3:30 h (4 entries)`. */
export const waitingWords = (w: { entries: number; seconds: number }): string =>
  `${Math.floor(w.seconds / 3600)}:${String(Math.floor((w.seconds % 3600) / 60)).padStart(2, '0')} h (${w.entries} ${w.entries === 1 ? 'entry' : 'entries'})`;

/**
 * The invoice a creation would make, read from the other modules (inside the creation's write, or
 * alone for a preview). Refuses, saying what to do, a client of another workspace, a range with
 * nothing to invoice, billable entries without a rate and settings that cannot make a valid tax.
 */
export function draftOf(
  ports: InvoicePorts,
  settings: InvoicingSettings,
  input: DraftInput,
  currency: string,
  zone: string,
): { draft: Draft; query: Invoiceable } {
  const { workspaceId, clientId } = input;
  const { fromMs, toMs, groupBy, note } = checkDraftInput(input, zone);
  let client: Record<string, unknown> & { id: string };
  try {
    client = ports.client(workspaceId, clientId);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'not_found') throw errors.clientNotFound(workspaceId, clientId);
    throw error;
  }
  // With approval on, only approved time (decisions §13); what of the range still waits is said.
  const approved = ports.approvedSpans?.(workspaceId, fromMs, toMs) ?? null;
  const base: Invoiceable = { workspaceId, projectIds: ports.projectsOfClients(workspaceId, [clientId]), from: fromMs, to: toMs };
  const query: Invoiceable = approved === null ? base : { ...base, approved };
  const waiting = approved === null || !ports.invoiceableWaiting ? null : ports.invoiceableWaiting({ ...base, approved });
  // A line per entry: refused before any line is made when there are too many (issue 44 L6), and
  // before any entry is read: counted up to one past the cap, a bounded read however long the range
  // (issue 54 I2: a refused create read a year's entries on the request thread, inside its write).
  if (groupBy === 'entry') checkLineCount(ports.invoiceableCount(query, MAX_INVOICE_LINES + 1), groupBy, 'up to the cap');
  // The client's rule, else the workspace's (decisions 14): each entry rounded on its own, before lines are grouped.
  const rule = ruleFor(settings.rounding, (client.rounding ?? null) as ClientRounding);
  // One pass over the entries: one by one for entry lines and for rounded time, else summed per project, task, member and rate.
  const read = groupBy === 'entry' || rule !== null ? ports.invoiceableEntries(query) : [];
  const rounded = rule === null ? read : roundedEntries(read, rule);
  const entries = groupBy === 'entry' ? rounded : [];
  const groups = groupBy === 'entry' ? [] : rule === null ? ports.invoiceableGroups(query) : groupsOf(rounded);
  const entryCount = groupBy === 'entry' ? entries.length : groups.reduce((n, g) => n + g.entryCount, 0);
  // The client's un-invoiced billable expenses of the range (decisions §12): a line each, after the time.
  const expenses = ports.expenses?.invoiceable(workspaceId, base.projectIds, input.from, input.to) ?? [];
  // Both refusals are about the range (and client) chosen: the page shows them at the range.
  if (entryCount === 0 && expenses.length === 0 && waiting !== null && waiting.entries > 0)
    throw invalidAt(
      'from',
      `Client ${clientId} has no approved billable time from ${input.from} to ${input.to} (days in ${zone}, both included): ${waitingWords(waiting)} of it still waits for approval, and invoices take only approved time (decisions §13). Approve those periods first.`,
      `This client has no approved billable time from ${input.from} to ${input.to} (days in ${zone}, both included): ${waitingWords(waiting)} of it still waits for approval, and invoices take only approved time. An approver approves those periods on the Approvals page first.`,
    );
  if (entryCount === 0 && expenses.length === 0)
    throw invalidAt(
      'from',
      `Client ${clientId} has no billable, un-invoiced, completed entries starting from ${input.from} to ${input.to} (days in ${zone}, both included). Check the range, that the entries are billable and on this client's projects; entries already on an invoice are left out (voiding that invoice releases them).`,
      `This client has no billable, un-invoiced, completed entries starting from ${input.from} to ${input.to} (days in ${zone}, both included). Check the range, that the entries are billable and on this client's projects; entries already on an invoice are left out (voiding that invoice releases them).`,
    );
  const unrated =
    groupBy === 'entry'
      ? entries.filter((e) => e.hourlyRate === null).length
      : groups.filter((g) => g.hourlyRate === null).reduce((n, g) => n + g.entryCount, 0);
  if (unrated > 0) {
    const named = ports.unratedInvoiceable(query, 5);
    const labels = new Map(ports.projectLabels(workspaceId, [...new Set(named.map((e) => e.projectId))]).map((p) => [p.id, p.name]));
    const list = named.map((e) => `${e.id} (${dayOf(e.startAt, zone)}, ${labels.get(e.projectId) ?? e.projectId})`).join(', ');
    throw invalidAt(
      'from',
      `${unrated === 1 ? 'A billable entry' : `${unrated} billable entries`} in this range ${unrated === 1 ? 'has' : 'have'} no hourly rate, so the invoice cannot price ${unrated === 1 ? 'it' : 'them'}: ${list}${unrated > named.length ? ', …' : ''}. An entry keeps the rate it was written with: set a rate on its task, project or member (or the workspace's), then change the entry's project or task so it takes the rate, or mark it non-billable; then make the invoice again.`,
    );
  }
  // The client's own document language, else the workspace's (decisions §12); the invoice keeps it.
  const language: InvoiceLanguage = typeof client.language === 'string' ? (client.language as InvoiceLanguage) : settings.language;
  const profile = ports.businessProfile(workspaceId);
  const smallBusiness = profile?.smallBusiness === true;
  const clientTax = {
    taxCategory: (client.taxCategory as string | null) ?? null,
    exemptionReason: (client.exemptionReason as string | null) ?? null,
    exemptionReasonCode: (client.exemptionReasonCode as string | null) ?? null,
  };
  // A draft needs no tax settings (decisions 11a): what is not set yet shows "not set" and counts no tax.
  const tax = treatment(settings, smallBusiness, clientTax, language);
  // A task's or project's own VAT (decisions §12), unless the client's reverse charge, export or "not subject", or a small business, wins.
  const own = ownTaxApplies(smallBusiness, clientTax) ? ports.workTaxes(workspaceId) : null;
  const taxOf = (projectId: string, taskId: string | null) =>
    own === null ? null : ((taskId === null ? undefined : own.tasks.get(taskId)) ?? own.projects.get(projectId) ?? null);
  const projectIds = [...new Set((groupBy === 'entry' ? entries : groups).map((g) => g.projectId))];
  const taskIds = groupBy === 'task' ? [...new Set(groups.flatMap((g) => (g.taskId === null ? [] : [g.taskId])))] : [];
  const memberIds = groupBy === 'member' ? [...new Set(groups.map((g) => g.authorId))] : [];
  const names = {
    projects: new Map(ports.projectLabels(workspaceId, projectIds).map((p) => [p.id, p.name])),
    tasks: new Map(ports.taskNames(workspaceId, taskIds).map((t) => [t.id, t.name])),
    members: new Map(ports.userNames(memberIds).map((u) => [u.id, u.name])),
  };
  const timeLines = linesOf(groupBy, groups, entries, names, { from: input.from, to: input.to, language, timeZone: zone }, taxOf);
  const lines: InvoiceDocumentLine[] = timeLines.map(({ ownTax, ...line }) => ({ ...line, ...lineTax(ownTax, tax) }));
  lines.push(...expenses.map((e) => expenseLine(e, own === null ? null : e.tax, tax, language)));
  checkLineCount(lines.length, groupBy);
  // The exemption reason of the invoice's own category (a line's own tax is S or Z, which carry none).
  const taxBreakdown = breakdown(lines, (category) => (category === tax.category ? tax : null));
  // What the invoice's own treatment lacks matters only when a line takes it.
  const missingTax =
    timeLines.some((line) => line.ownTax === null) || expenses.some((e) => own === null || e.tax === null) ? tax.missing : [];
  const netCents = lines.reduce((sum, line) => sum + toCents(line.amount), 0);
  const taxCents = taxBreakdown.reduce((sum, row) => sum + toCents(row.taxAmount), 0);
  return {
    query,
    draft: {
      currency,
      from: input.from,
      to: input.to,
      timeZone: zone,
      language,
      note,
      issuer: profile === null ? null : partyOf(ISSUER_FIELDS, profile),
      recipient: partyOf(RECIPIENT_FIELDS, client),
      lines,
      taxBreakdown,
      total: fromCents(netCents),
      netTotal: fromCents(netCents),
      taxTotal: fromCents(taxCents),
      grossTotal: fromCents(netCents + taxCents),
      entryCount,
      expenseIds: expenses.map((e) => e.id),
      missingTax,
      waiting,
      rounding:
        rule === null
          ? null
          : {
              rule,
              workedSec: read.reduce((sum, e) => sum + e.durationSec, 0),
              billedSec: rounded.reduce((sum, e) => sum + e.durationSec, 0),
            },
    },
  };
}

/**
 * What an expense's line says: its day as the invoice's language writes dates, and its
 * description; a draft's line removed is matched to its expense by it (drafts.ts).
 */
export const expenseLineDescription = (expense: { day: string; description: string }, language: InvoiceLanguage): string =>
  `${lineDate(expense.day, language)} ${expense.description}`;

/**
 * Every way a draft's line of an expense may read: as expenseLineDescription writes it, and as
 * drafts made before 113ebf7 wrote it (the ISO day in every language, `2026-11-10 Fachbuch`), so
 * that removing such an older draft's line releases its expense too (drafts.ts). The two never
 * read alike: the ISO form begins with the year's four digits, and no language's date does
 * (they begin with the day: 3 Dec 2026, 03.12.2026).
 */
export const expenseLineDescriptions = (expense: { day: string; description: string }, language: InvoiceLanguage): string[] => [
  expenseLineDescription(expense, language),
  `${expense.day} ${expense.description}`,
];

/**
 * An expense's line (decisions §12): its day (as the document writes dates in its language, as a
 * line of time does) and description, one piece (`C62`) at its net, its
 * own tax (null when the client's reverse charge, export or a small business wins) or the invoice's.
 */
function expenseLine(
  expense: InvoiceableExpense,
  own: OwnTax | null,
  tax: ReturnType<typeof treatment>,
  language: InvoiceLanguage,
): InvoiceDocumentLine {
  const amount = fromCents(expense.amountCents);
  return {
    description: expenseLineDescription(expense, language),
    projectId: null,
    quantitySec: 0,
    hourlyRate: null,
    amount,
    ...lineTax(own, tax),
    manual: { quantity: 1, unit: (LINE_UNITS[0] as { code: string }).code, unitPrice: amount },
  };
}
