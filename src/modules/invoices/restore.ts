import { DateTime } from 'luxon';
import { DomainError } from '../../errors.js';
import { type Key, type Vars, type Words, words } from '../../i18n/index.js';
import { requireSafeText, requireSafeValue } from '../../kernel/input.js';
import { amountCents, fromCents, timesCents, toCents } from '../../kernel/money.js';
import { isTaxCategory, requireVatexCode } from '../../kernel/tax.js';
import { parseRounding } from '../../kernel/rounding.js';
import { canonicalTimeZone, DAY_MS, parseCalendarDay } from '../../kernel/time.js';
import type { EarlyPayment, InvoiceDocument, InvoiceDocumentLine, ManualLine, TaxBreakdownRow } from './document.js';
import { DOCUMENT_FORMATS, documentFileName } from './documents/index.js';
import { checkElectronicAddress, checkValue, type Fields, isCurrencyCode, ISSUER_FIELDS, type Kind, RECIPIENT_FIELDS } from './fields.js';
import { MAX_INVOICE_LINES } from './lines.js';
import { checkManualLine, manualAmountCents } from './manual.js';
import { formatNumber, MAX_REMINDER_LEVELS, parseEarlyPayment, restartsYearly } from './settings.js';
import { breakdown } from './tax.js';

/*
 * The rules a restored invoice follows (issue 54 N3, decisions 14: "restores follow the issuing
 * rules"): a workspace's export carries every invoice as the stored row, and an import writes it
 * back only when it is one this module could have issued. Its numbers are the ones its register
 * records say, its dates are not after today, its totals and VAT follow from its lines (a row
 * whose amounts disagree is refused, never repaired: an issued invoice is what its client
 * received), its parties, note and fills pass the checks of the pages, API and command line, and
 * its sends by mail fit its status and documents. The whole file's series is checked apart
 * (createSeriesCheck): unique, and without a gap under the file's number pattern. Pure: the
 * transfer gives the day, the clock and the mail module's address check.
 */

/** A document number as a record carries it. */
export interface NumberRecord {
  number: string;
  kind: 'invoice' | 'credit_note';
  issueDate: string;
  createdAt: number;
}

/** What the rules of one record need from outside: the latest day anywhere, the clock, whether mail can be addressed to an address. */
export interface RestoreContext {
  today: string;
  now: number;
  deliverable: (address: string) => boolean;
}

/**
 * The latest calendar day anywhere on Earth at `now` (UTC+14, Kiribati's Line Islands): no
 * restored document is dated after it, whoever imports it wherever (issuing itself refuses a day
 * after the acting member's today).
 */
export const latestDayAt = (now: number): string => DateTime.fromMillis(now, { zone: 'UTC+14' }).toISODate() as string;

/** What to do, after every refusal of a restored invoice. */
const AFTER =
  'A restored invoice follows the rules of an issued one: import the file as its workspace exported it, or leave its invoices out (--skip-invalid; the Import page: import the other rows).';

/** How a refusal names an invoice: its number, else its range (a draft has none). */
export function invoiceLabel(values: Record<string, unknown>): string {
  if (typeof values.number === 'string') return values.number;
  const what = values.status === 'draft' ? 'draft' : values.status === 'void' && values.issueDate == null ? 'voided draft' : 'invoice';
  return `(${what} of ${String(values.fromDay)} to ${String(values.toDay)})`;
}

/**
 * How words name an invoice (`{{label, words}}`): its number, else its range by key (the message's
 * label is English: `(draft of 2026-10-01 to 2026-10-31)`).
 */
export function invoiceLabelWords(values: Record<string, unknown>): Vars {
  const kind =
    typeof values.number === 'string'
      ? 'number'
      : values.status === 'draft'
        ? 'draft'
        : values.status === 'void' && values.issueDate == null
          ? 'voidedDraft'
          : 'invoice';
  return {
    label: LABELS[kind],
    labelNumber: String(values.number),
    labelFrom: String(values.fromDay),
    labelTo: String(values.toDay),
  };
}

/**
 * A restored invoice refused: the message names it and the rule; its words for people (the Import
 * page) by key where the rule has its own, else the frame and what to do by key with the rule's
 * detail as written.
 */
const refusal = (label: string, problem: string, said?: Words, named: Vars = {}) =>
  new DomainError('invalid', `invoice ${label}: ${problem}. ${AFTER}`, {
    words: said ?? words('invoicing.refused.restore.rule', { ...named, problem, after: AFTER_KEY }),
  });
/** What to do after every refusal of a restored invoice, by key (said in the page reader's language). */
const AFTER_KEY = 'invoicing.refused.restore.after';

/** The rules of a restored invoice, each its key (`invoicing.refused.restore.rules.*`): one per rule. */
const RULES = {
  range: 'invoicing.refused.restore.rules.range',
  timeZone: 'invoicing.refused.restore.rules.timeZone',
  roundingRule: 'invoicing.refused.restore.rules.roundingRule',
  fillValue: 'invoicing.refused.restore.rules.fillValue',
  manualLine: 'invoicing.refused.restore.rules.manualLine',
  roundingForm: 'invoicing.refused.restore.rules.roundingForm',
  noteLong: 'invoicing.refused.restore.rules.noteLong',
  fillsNotList: 'invoicing.refused.restore.rules.fillsNotList',
  fillShape: 'invoicing.refused.restore.rules.fillShape',
  draftCarries: 'invoicing.refused.restore.rules.draftCarries',
  voidedDraftCarries: 'invoicing.refused.restore.rules.voidedDraftCarries',
  unnumberedCarries: 'invoicing.refused.restore.rules.unnumberedCarries',
  paidNoDay: 'invoicing.refused.restore.rules.paidNoDay',
  paidBeforeIssue: 'invoicing.refused.restore.rules.paidBeforeIssue',
  paidDateNotPaid: 'invoicing.refused.restore.rules.paidDateNotPaid',
  dueDate: 'invoicing.refused.restore.rules.dueDate',
  future: 'invoicing.refused.restore.rules.future',
  futureText: 'invoicing.refused.restore.rules.futureText',
  draftNumbered: 'invoicing.refused.restore.rules.draftNumbered',
  numberNoIssueDate: 'invoicing.refused.restore.rules.numberNoIssueDate',
  numberRecords: 'invoicing.refused.restore.rules.numberRecords',
  noCreditNote: 'invoicing.refused.restore.rules.noCreditNote',
  creditRecords: 'invoicing.refused.restore.rules.creditRecords',
  creditBefore: 'invoicing.refused.restore.rules.creditBefore',
  creditNotVoid: 'invoicing.refused.restore.rules.creditNotVoid',
  otherRecords: 'invoicing.refused.restore.rules.otherRecords',
  linesNotList: 'invoicing.refused.restore.rules.linesNotList',
  tooManyLines: 'invoicing.refused.restore.rules.tooManyLines',
  lineShape: 'invoicing.refused.restore.rules.lineShape',
  manualUnit: 'invoicing.refused.restore.rules.manualUnit',
  manualTime: 'invoicing.refused.restore.rules.manualTime',
  manualAmount: 'invoicing.refused.restore.rules.manualAmount',
  quantity: 'invoicing.refused.restore.rules.quantity',
  rate: 'invoicing.refused.restore.rules.rate',
  amount: 'invoicing.refused.restore.rules.amount',
  taxCategory: 'invoicing.refused.restore.rules.taxCategory',
  taxRate: 'invoicing.refused.restore.rules.taxRate',
  netTotal: 'invoicing.refused.restore.rules.netTotal',
  extrasNotObject: 'invoicing.refused.restore.rules.extrasNotObject',
  breakdownNotList: 'invoicing.refused.restore.rules.breakdownNotList',
  breakdown: 'invoicing.refused.restore.rules.breakdown',
  earlyPayment: 'invoicing.refused.restore.rules.earlyPayment',
  earlyPaymentDraft: 'invoicing.refused.restore.rules.earlyPaymentDraft',
  vatCurrencyShape: 'invoicing.refused.restore.rules.vatCurrencyShape',
  vatCurrencyTotal: 'invoicing.refused.restore.rules.vatCurrencyTotal',
  partyNotObject: 'invoicing.refused.restore.rules.partyNotObject',
  partyField: 'invoicing.refused.restore.rules.partyField',
  sendDraft: 'invoicing.refused.restore.rules.sendDraft',
  sendVoidedDraft: 'invoicing.refused.restore.rules.sendVoidedDraft',
  sendOnlyInvoice: 'invoicing.refused.restore.rules.sendOnlyInvoice',
  sendRecipient: 'invoicing.refused.restore.rules.sendRecipient',
  sendFiles: 'invoicing.refused.restore.rules.sendFiles',
  sendAt: 'invoicing.refused.restore.rules.sendAt',
  paidSums: 'invoicing.refused.restore.rules.paidSums',
  paymentsNotIssued: 'invoicing.refused.restore.rules.paymentsNotIssued',
  paymentCents: 'invoicing.refused.restore.rules.paymentCents',
  paymentDay: 'invoicing.refused.restore.rules.paymentDay',
  paymentAt: 'invoicing.refused.restore.rules.paymentAt',
  paymentsSum: 'invoicing.refused.restore.rules.paymentsSum',
  paidWithout: 'invoicing.refused.restore.rules.paidWithout',
  paidAbove: 'invoicing.refused.restore.rules.paidAbove',
  paidNotTotal: 'invoicing.refused.restore.rules.paidNotTotal',
  paidInFull: 'invoicing.refused.restore.rules.paidInFull',
  reminderDraft: 'invoicing.refused.restore.rules.reminderDraft',
  reminderNoDue: 'invoicing.refused.restore.rules.reminderNoDue',
  reminderLevel: 'invoicing.refused.restore.rules.reminderLevel',
  reminderTwice: 'invoicing.refused.restore.rules.reminderTwice',
  reminderCents: 'invoicing.refused.restore.rules.reminderCents',
  reminderAboveTotal: 'invoicing.refused.restore.rules.reminderAboveTotal',
  reminderAt: 'invoicing.refused.restore.rules.reminderAt',
  reminderBeforeIssue: 'invoicing.refused.restore.rules.reminderBeforeIssue',
  reminderDays: 'invoicing.refused.restore.rules.reminderDays',
  reminderDay: 'invoicing.refused.restore.rules.reminderDay',
  reminderDue: 'invoicing.refused.restore.rules.reminderDue',
  reminderRecipient: 'invoicing.refused.restore.rules.reminderRecipient',
  reminderFiles: 'invoicing.refused.restore.rules.reminderFiles',
} as const satisfies Record<string, Key>;
type Rule = keyof typeof RULES;
/** A rule's words by its name, its values as vars. */
const rule = (name: Rule, vars?: Vars): Words => words(RULES[name], vars);
/** How the words name an invoice, what an unnumbered one carries, its dates, parties and documents, by key. */
const LABELS = {
  number: 'invoicing.refused.restore.label.number',
  draft: 'invoicing.refused.restore.label.draft',
  voidedDraft: 'invoicing.refused.restore.label.voidedDraft',
  invoice: 'invoicing.refused.restore.label.invoice',
} as const satisfies Record<string, Key>;
const CARRIES = {
  issueDate: 'invoicing.refused.restore.carries.issueDate',
  dueDate: 'invoicing.refused.restore.carries.dueDate',
  paidDate: 'invoicing.refused.restore.carries.paidDate',
  creditNote: 'invoicing.refused.restore.carries.creditNote',
  records: 'invoicing.refused.restore.carries.records',
} as const satisfies Record<string, Key>;
const DATES = {
  issueDate: 'invoicing.refused.restore.dates.issueDate',
  creditNoteDate: 'invoicing.refused.restore.dates.creditNoteDate',
  paidDate: 'invoicing.refused.restore.dates.paidDate',
} as const satisfies Record<string, Key>;
const PARTIES = {
  issuer: 'invoicing.refused.restore.party.issuer',
  recipient: 'invoicing.refused.restore.party.recipient',
} as const satisfies Record<string, Key>;
/** A rule's refusal: the message as the rule writes it, the words the frame around the rule's own (`{{rule, words}}`). */
const ruleRefusal = (label: string, named: Vars, problem: string, said: Words) =>
  refusal(label, problem, words('invoicing.refused.restore.broken', { ...said.vars, ...named, rule: said.key, after: AFTER_KEY }));
/** Refuses the invoice: the rule's detail in English (the message) and its words for people. */
type Fail = (problem: string, said: Words) => never;
/** Runs a check of another part (a field's kind, the text rule), refusing with its message and its own words (after a rule's, with `part`). */
type By = (check: () => unknown, part?: { prefix: string; rule: Rule }) => void;
/** A status as the words say it mid-sentence (`invoicing.refused.status.*`). */
const statusKey = (status: string) => `invoicing.refused.status.${status}`;
/** A document's kind as the words say it (`invoicing.refused.restore.document.*`). */
const documentKey = (creditNote: boolean): Key =>
  creditNote ? 'invoicing.refused.restore.document.creditNote' : 'invoicing.refused.restore.document.invoice';

const json = <T>(text: unknown, fallback: T): T => (typeof text === 'string' ? (JSON.parse(text) as T) : fallback);
const money = (cents: number) => fromCents(cents).toFixed(2);
const isDay = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    parseCalendarDay(value, 'day');
    return true;
  } catch {
    return false;
  }
};

/**
 * Checks one invoice of a file (its row's values as `rowOfRecord` read them, its register
 * records and its sends' values) by the rules of an issued one; throws a refusal naming the
 * invoice and the rule. Writes nothing.
 */
export function checkRestorable(
  values: Record<string, unknown>,
  numbers: readonly NumberRecord[],
  sends: ReadonlyArray<Record<string, unknown>>,
  ctx: RestoreContext,
  payments: ReadonlyArray<Record<string, unknown>> = [],
  reminders: ReadonlyArray<Record<string, unknown>> = [],
): void {
  const label = invoiceLabel(values);
  const named = invoiceLabelWords(values);
  const fail: Fail = (problem, said) => {
    throw ruleRefusal(label, named, problem, said);
  };
  /** A rule of another part of this module (a field's kind, the text rule), its words kept. */
  const by: By = (check, part) => {
    try {
      check();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const problem = `${part?.prefix ?? ''}${error.message.replace(/\.$/, '')}`;
      if (error.words === undefined) throw refusal(label, problem, undefined, named);
      throw ruleRefusal(
        label,
        named,
        problem,
        part === undefined ? error.words : rule(part.rule, { ...error.words.vars, detail: error.words.key }),
      );
    }
  };
  const status = values.status as InvoiceDocument['status'];

  // The range and its zone, as a creation gives them.
  if (!isDay(values.fromDay) || !isDay(values.toDay) || values.fromDay > values.toDay)
    fail(
      `its range ${String(values.fromDay)} to ${String(values.toDay)} is not two calendar days in order`,
      rule('range', { from: String(values.fromDay), to: String(values.toDay) }),
    );
  if (values.timeZone !== undefined)
    by(() => canonicalTimeZone(values.timeZone as string), { prefix: 'its time zone: ', rule: 'timeZone' });
  // The rounding rule its lines were made with (issue 56 item 4): one of the rules, stored as a creation stores it.
  if (values.rounding !== undefined && values.rounding !== null) {
    let read: string | null = null;
    by(() => (read = parseRounding(values.rounding, 'rounding')), { prefix: 'its rounding rule: ', rule: 'roundingRule' });
    if (read !== values.rounding)
      fail(
        `its rounding rule ${JSON.stringify(values.rounding)} is not written as up-15 or nearest-6 are`,
        rule('roundingForm', { rounding: JSON.stringify(values.rounding) }),
      );
  }

  checkNumbers(values, numbers, status, ctx.today, fail);
  checkAmounts(values, fail, by);

  // The parties, the note and the fills: the checks of the pages, the API and the command line.
  checkParty('issuer', values.issuer, ISSUER_FIELDS, fail, by);
  checkParty('recipient', values.recipient, RECIPIENT_FIELDS, fail, by);
  if (values.note !== undefined && values.note !== null) {
    const note = values.note as string;
    if (note.length > 1000)
      fail(`its note has ${note.length} characters, and a note holds at most 1000`, rule('noteLong', { length: note.length }));
    by(() => requireSafeText(note, 'its note', 'note', { lineBreaks: true }));
  }
  const fills = json<unknown>(values.einvoiceFills, []);
  if (!Array.isArray(fills)) fail('its e-invoice fills are not a list', rule('fillsNotList'));
  for (const fill of fills as unknown[]) {
    const { at, by: who, fields } = (fill ?? {}) as { at?: unknown; by?: unknown; fields?: unknown };
    if (typeof at !== 'string' || typeof who !== 'string' || typeof fields !== 'object' || fields === null)
      fail('an e-invoice fill is not {at, by, fields}', rule('fillShape'));
    for (const [path, value] of Object.entries(fields as Record<string, unknown>))
      by(() => requireSafeValue(value, path, path), { prefix: 'a fill of ', rule: 'fillValue' });
  }

  checkSends(values, sends, status, ctx, fail);
  checkPayments(values, payments, status, ctx, fail, by);
  checkReminders(values, reminders, status, ctx, fail, payments);
}

/** The gross total of an invoice's row: its net and the VAT of its breakdown, in cents. */
const grossCents = (values: Record<string, unknown>): number =>
  (values.totalCents as number) +
  (json<{ taxBreakdown?: TaxBreakdownRow[] }>(values.extras, {}).taxBreakdown ?? []).reduce((sum, r) => sum + toCents(r.taxAmount), 0);

/** The UTC calendar day of an instant `hours` away (a zone's day: -12 to +14). */
const dayAt = (at: number, hours: number): string => new Date(at + hours * 3_600_000).toISOString().slice(0, 10);

/**
 * Its payment reminders fit it (issue 57): only an issued invoice with a due date was reminded
 * (never a draft); each of a level a workspace can have (1 to MAX_REMINDER_LEVELS), one per
 * level; sent after it was issued and not after now, its whole days overdue (from 1) what its
 * due date makes them on that day in some zone of the Earth (UTC-12 to UTC+14: the workspace's
 * zone is not in the file); what was due then whole cents above 0 and at most its total, and
 * exactly what the invoice said was due when it was sent (dueWhen); to one address mail can go
 * to; with its invoice's documents (the PDF first), as a send by mail.
 */
function checkReminders(
  values: Record<string, unknown>,
  reminders: ReadonlyArray<Record<string, unknown>>,
  status: InvoiceDocument['status'],
  ctx: RestoreContext,
  fail: Fail,
  payments: ReadonlyArray<Record<string, unknown>>,
): void {
  if (reminders.length === 0) return;
  const amount = (cents: number) => `${money(cents)} ${String(values.currency)}`;
  const issueDate = values.issueDate as string | null | undefined;
  const dueDate = values.dueDate as string | null | undefined;
  if (status === 'draft' || issueDate == null || dueDate == null) {
    const draft = status === 'draft' || issueDate == null;
    fail(
      `it records a payment reminder, and ${draft ? 'a draft is never reminded' : 'an invoice without a due date is never overdue'}`,
      rule(draft ? 'reminderDraft' : 'reminderNoDue'),
    );
  }
  const gross = grossCents(values);
  const { names, named } = documentsNamed(values, false);
  const levels = new Set<unknown>();
  for (const reminder of reminders) {
    const { level, daysOverdue: days, amountDueCents: cents, createdAt: at } = reminder;
    if (!Number.isSafeInteger(level) || (level as number) < 1 || (level as number) > MAX_REMINDER_LEVELS)
      fail(
        `a payment reminder is of level ${JSON.stringify(level)}, and a workspace's levels are 1 to ${MAX_REMINDER_LEVELS}`,
        rule('reminderLevel', { level: String(JSON.stringify(level)), max: MAX_REMINDER_LEVELS }),
      );
    if (levels.has(level))
      fail(
        `it records two payment reminders of level ${String(level)}, and each level is sent once`,
        rule('reminderTwice', { level: String(level) }),
      );
    levels.add(level);
    if (!Number.isSafeInteger(cents) || (cents as number) <= 0)
      fail(
        `a payment reminder says ${JSON.stringify(cents)} cents were due, which is not whole cents above 0`,
        rule('reminderCents', { cents: String(JSON.stringify(cents)) }),
      );
    if ((cents as number) > gross)
      fail(
        `a payment reminder says ${money(cents as number)} was due, more than its total (${money(gross)})`,
        rule('reminderAboveTotal', { due: amount(cents as number), total: amount(gross) }),
      );
    if (!Number.isSafeInteger(at) || (at as number) > ctx.now)
      fail(
        `a payment reminder was sent at ${JSON.stringify(at)}, which is not a time up to now`,
        rule('reminderAt', { at: String(JSON.stringify(at)) }),
      );
    const sent = new Date(at as number).toISOString();
    if (dayAt(at as number, 14) < (issueDate as string))
      fail(
        `a payment reminder is dated ${sent}, before its invoice was issued (${String(issueDate)})`,
        rule('reminderBeforeIssue', { sent, issued: String(issueDate) }),
      );
    if (!Number.isSafeInteger(days) || (days as number) < 1)
      fail(
        `a payment reminder says it was ${JSON.stringify(days)} days overdue, which is not a whole number of days from 1`,
        rule('reminderDays', { days: String(JSON.stringify(days)) }),
      );
    const on = DateTime.fromISO(dueDate as string, { zone: 'UTC' })
      .plus({ days: days as number })
      .toISODate() as string;
    if (on < dayAt(at as number, -12) || on > dayAt(at as number, 14))
      fail(
        `a payment reminder is dated ${sent} and says it was ${String(days)} days overdue, and its due date ${String(dueDate)} makes that day ${on}`,
        rule('reminderDay', { sent, count: days as number, dueDate: String(dueDate), on }),
      );
    const due = dueWhen(gross, payments, at as number);
    if (!due.includes(cents as number))
      fail(
        `a payment reminder sent at ${sent} says ${money(cents as number)} was due, and its total (${money(gross)}) less the payments recorded before then (${money(gross - (due[0] as number))}) left ${money(due[0] as number)} due: a reminder says what was still due when it was sent`,
        rule('reminderDue', {
          sent,
          said: amount(cents as number),
          total: amount(gross),
          paid: amount(gross - (due[0] as number)),
          left: amount(due[0] as number),
        }),
      );
    if (!ctx.deliverable(reminder.recipient as string))
      fail(
        `a payment reminder names ${JSON.stringify(reminder.recipient)}, which is not one address mail can go to`,
        rule('reminderRecipient', { recipient: String(JSON.stringify(reminder.recipient)) }),
      );
    const files = json<unknown>(reminder.files, null);
    if (!Array.isArray(files) || files.length === 0 || !files.every(named) || new Set(files).size !== files.length)
      fail(
        `a payment reminder lists the files ${JSON.stringify(files)}, which are not its invoice's documents (${names.join(', ')}; the PDF first)`,
        rule('reminderFiles', { files: JSON.stringify(files), names: names.join(', ') }),
      );
  }
}

/**
 * What an invoice said was still due at `at` (a reminder's time), as the reminders' tick reads it
 * when it sends one (reminders.ts: the stored amount due at that moment): its gross total less
 * every payment (and discount) recorded by then. Recorded, not dated: a payment recorded after the
 * reminder but dated on an earlier day (a transfer that arrived before it and was entered later)
 * did not lower what the reminder said. Payments recorded in the same millisecond as the reminder
 * may have come before or after it, in the order they were recorded (the export's order): each
 * such split is an amount the reminder may say. The first is the amount without any of them.
 */
function dueWhen(gross: number, payments: ReadonlyArray<Record<string, unknown>>, at: number): number[] {
  const paid = (p: Record<string, unknown>) => (p.amountCents as number) + ((p.discountCents ?? 0) as number);
  let due = gross;
  for (const p of payments) if ((p.createdAt as number) < at) due -= paid(p);
  const amounts = [due];
  for (const p of payments) if (p.createdAt === at) amounts.push((amounts.at(-1) as number) - paid(p));
  return amounts;
}

/**
 * Whether a file's name, at its place in a mail's list, is one of the invoice's documents (its
 * credit note's): the PDF first, then an XML of the formats. An invoice issued before numbers
 * existed named its files by its id, which the restore gives anew: their form then.
 */
function documentsNamed(
  values: Record<string, unknown>,
  creditNote: boolean,
): { names: string[]; named: (file: unknown, i: number) => boolean } {
  const doc = {
    id: 'restored',
    number: values.number ?? null,
    creditNote: typeof values.creditNoteNumber === 'string' ? { number: values.creditNoteNumber, issueDate: values.creditNoteDate } : null,
  } as unknown as InvoiceDocument;
  const names = DOCUMENT_FORMATS.map((format) => documentFileName(doc, format, { creditNote }));
  const named = (file: unknown, i: number) =>
    typeof values.number === 'string'
      ? i === 0
        ? file === names[0]
        : names.slice(1).includes(file as string)
      : typeof file === 'string' && (i === 0 ? /^draft-[\w-]+\.pdf$/.test(file) : /^draft-[\w-]+-[\w-]+\.xml$/.test(file));
  return { names, named };
}

/**
 * Its payments fit it (issue 57): only an issued invoice took any, each of whole cents above 0 on
 * a day from its issue date to today with a note the text rule allows; together they are what the
 * invoice's sums say and never more than its total; a paid invoice's add up to its total (one
 * marked paid before payments were recorded has none), an open one's leave something due.
 */
function checkPayments(
  values: Record<string, unknown>,
  payments: ReadonlyArray<Record<string, unknown>>,
  status: InvoiceDocument['status'],
  ctx: RestoreContext,
  fail: Fail,
  by: By,
): void {
  const amount = (cents: number) => `${money(cents)} ${String(values.currency)}`;
  const paidCents = (values.paidCents ?? 0) as number;
  const discountCents = (values.discountCents ?? 0) as number;
  if (!Number.isSafeInteger(paidCents) || paidCents < 0 || !Number.isSafeInteger(discountCents) || discountCents < 0)
    fail(
      `its paid sums (${JSON.stringify(paidCents)}, ${JSON.stringify(discountCents)}) are not whole cents of 0 or more`,
      rule('paidSums', { paid: String(JSON.stringify(paidCents)), discount: String(JSON.stringify(discountCents)) }),
    );
  const issueDate = values.issueDate as string | null | undefined;
  if ((payments.length > 0 || paidCents + discountCents > 0) && (issueDate == null || status === 'draft'))
    fail('it records payments, and only an issued invoice takes payments', rule('paymentsNotIssued'));
  let sum = 0;
  let discount = 0;
  for (const payment of payments) {
    const cents = payment.amountCents as number;
    const kept = (payment.discountCents ?? 0) as number;
    const day = payment.paidOn as string;
    if (!Number.isSafeInteger(cents) || cents <= 0 || !Number.isSafeInteger(kept) || kept < 0)
      fail(
        `a payment of ${JSON.stringify(cents)} cents (discount ${JSON.stringify(kept)}) is not whole cents above 0`,
        rule('paymentCents', { cents: String(JSON.stringify(cents)), discount: String(JSON.stringify(kept)) }),
      );
    if (!isDay(day) || day < (issueDate as string) || day > ctx.today)
      fail(
        `a payment is dated ${JSON.stringify(day)}, not a day from its issue date ${String(issueDate)} to today`,
        rule('paymentDay', { day: String(JSON.stringify(day)), issued: String(issueDate) }),
      );
    if (payment.note != null) by(() => requireSafeText(String(payment.note), 'a payment note', 'note'));
    if (!Number.isSafeInteger(payment.createdAt) || (payment.createdAt as number) > ctx.now)
      fail(
        `a payment was recorded at ${JSON.stringify(payment.createdAt)}, which is not a time up to now`,
        rule('paymentAt', { at: String(JSON.stringify(payment.createdAt)) }),
      );
    sum += cents;
    discount += kept;
  }
  if (payments.length > 0 && (sum !== paidCents || discount !== discountCents))
    fail(
      `its payments add up to ${money(sum)} and a discount of ${money(discount)}, and the invoice says ${money(paidCents)} and ${money(discountCents)}`,
      rule('paymentsSum', { sum: amount(sum), discount: amount(discount), paid: amount(paidCents), kept: amount(discountCents) }),
    );
  if (payments.length === 0 && paidCents + discountCents > 0)
    fail(
      `it says ${money(paidCents + discountCents)} were paid, and it records no payment`,
      rule('paidWithout', { paid: amount(paidCents + discountCents) }),
    );
  const gross = grossCents(values);
  if (paidCents + discountCents > gross)
    fail(
      `its payments (${money(paidCents + discountCents)}) are more than its total (${money(gross)})`,
      rule('paidAbove', { paid: amount(paidCents + discountCents), total: amount(gross) }),
    );
  if (status === 'paid' && payments.length > 0 && paidCents + discountCents !== gross)
    fail(
      `it is paid, and its payments (${money(paidCents + discountCents)}) are not its total (${money(gross)})`,
      rule('paidNotTotal', { paid: amount(paidCents + discountCents), total: amount(gross) }),
    );
  if (status === 'sent' && payments.length > 0 && paidCents + discountCents === gross)
    fail(
      `its payments add up to its total (${money(gross)}), and such an invoice is paid, not ${status}`,
      rule('paidInFull', { total: amount(gross), status: statusKey(status) }),
    );
}

/** Register records as the message lists them (`RE-1 of 2026-10-05`, or none). */
const listed = (list: readonly NumberRecord[]) =>
  list.length === 0 ? 'none' : list.map((n) => `${n.number} of ${n.issueDate}`).join(', ');
/** Register records as words' values, in no language's words: `RE-1 (2026-10-05)`, or a dash for none. */
const registered = (list: readonly NumberRecord[]) => ({
  registered: list.length === 0 ? '—' : list.map((n) => `${n.number} (${n.issueDate})`).join(', '),
});

/** The numbers and dates of an invoice agree with its status and its register records; no date is after `today`. */
function checkNumbers(
  values: Record<string, unknown>,
  numbers: readonly NumberRecord[],
  status: InvoiceDocument['status'],
  today: string,
  fail: Fail,
): void {
  const number = values.number as string | null | undefined;
  const issueDate = values.issueDate as string | null | undefined;
  const creditNumber = values.creditNoteNumber as string | null | undefined;
  const creditDate = values.creditNoteDate as string | null | undefined;
  const paidDate = values.paidDate as string | null | undefined;
  const dueDate = values.dueDate as string | null | undefined;
  if (number == null) {
    // A draft (or a draft voided) took no number: no dates, no credit note, no register record. An
    // invoice issued before numbers existed (docs/invoicing.md) keeps its dates but has no number either.
    const draft = status === 'draft' || (status === 'void' && issueDate == null);
    const carries = [
      ...(draft
        ? [
            ['an issue date', issueDate, 'issueDate'],
            ['a due date', dueDate, 'dueDate'],
            ['a paid date', paidDate, 'paidDate'],
          ]
        : []),
      ['a credit note', creditNumber ?? creditDate, 'creditNote'],
    ].flatMap(([what, value, key]) => (value == null ? [] : [{ what: what as string, key: CARRIES[key as keyof typeof CARRIES] }]));
    if (numbers.length > 0) carries.push({ what: `register records (${listed(numbers)})`, key: CARRIES.records });
    if (carries.length > 0)
      fail(
        `${draft ? `a ${status === 'void' ? 'voided draft' : 'draft'}` : 'an invoice issued before numbers existed'} has no number, and this one carries ${carries.map((c) => c.what).join(', ')}`,
        rule(draft ? (status === 'void' ? 'voidedDraftCarries' : 'draftCarries') : 'unnumberedCarries', {
          carries: carries.map((c) => c.key).join(' '),
          ...registered(numbers),
        }),
      );
    if (draft) return;
  } else {
    checkIssued(values, numbers, status, fail);
  }
  if (status === 'paid') {
    if (!isDay(paidDate)) fail('it is paid, and a paid invoice has the day it was paid', rule('paidNoDay'));
    if (isDay(issueDate) && (paidDate as string) < issueDate)
      fail(
        `it was paid on ${paidDate}, before it was issued (${issueDate})`,
        rule('paidBeforeIssue', { paid: paidDate, issued: issueDate }),
      );
  } else if (paidDate != null)
    fail(`it is ${status}, and only a paid invoice has a paid date`, rule('paidDateNotPaid', { status: statusKey(status) }));
  if (dueDate != null && (!isDay(dueDate) || !isDay(issueDate) || dueDate < issueDate))
    fail(
      `its due date ${dueDate} is not a day on or after its issue date ${String(issueDate)}`,
      rule('dueDate', { due: String(dueDate), issued: String(issueDate) }),
    );
  // No document is dated after today: a date in the future would block every later issue (numbers and dates run together).
  for (const [what, day, key] of [
    ['issue date', issueDate, 'issueDate'],
    ['credit note date', creditDate, 'creditNoteDate'],
    ['paid date', paidDate, 'paidDate'],
  ] as const)
    if (typeof day === 'string' && day > today)
      fail(
        `its ${what} ${day} is after today (${today}, the latest day anywhere), and no document is dated in the future`,
        // A day after today but not one of the calendar says it as written (the formatter reads only days).
        rule(isDay(day) ? 'future' : 'futureText', { date: DATES[key], day, today }),
      );
}

/** An issued invoice's number and credit note agree with its register records. */
function checkIssued(
  values: Record<string, unknown>,
  numbers: readonly NumberRecord[],
  status: InvoiceDocument['status'],
  fail: Fail,
): void {
  const number = values.number as string;
  const issueDate = values.issueDate as string | null | undefined;
  const creditNumber = values.creditNoteNumber as string | null | undefined;
  const creditDate = values.creditNoteDate as string | null | undefined;
  const records = (kind: NumberRecord['kind']) => numbers.filter((n) => n.kind === kind);
  if (status === 'draft') fail(`it is a draft, and a draft has no number`, rule('draftNumbered'));
  if (!isDay(issueDate)) fail(`it has the number ${number} and no issue date`, rule('numberNoIssueDate', { number }));
  const own = records('invoice');
  if (own.length !== 1 || own[0]?.number !== number || own[0]?.issueDate !== issueDate)
    fail(
      `its number ${number} of ${String(issueDate)} is not what its register records say (${listed(own)}): every number an invoice carries is one the workspace's register gave it`,
      rule('numberRecords', { number, issued: String(issueDate), ...registered(own) }),
    );
  const credit = records('credit_note');
  if (status === 'void') {
    if (typeof creditNumber !== 'string' || !isDay(creditDate))
      fail(
        'it was voided after it was issued, and such an invoice has its credit note (its number and date); this one has none',
        rule('noCreditNote'),
      );
    if (credit.length !== 1 || credit[0]?.number !== creditNumber || credit[0]?.issueDate !== creditDate)
      fail(
        `its credit note ${creditNumber} of ${creditDate} is not what its register records say (${listed(credit)}): every number is one the workspace's register gave it`,
        rule('creditRecords', { credit: creditNumber, creditDate, ...registered(credit) }),
      );
    if ((creditDate as string) < (issueDate as string))
      fail(
        `its credit note is dated ${creditDate}, before the invoice (${issueDate})`,
        rule('creditBefore', { creditDate, issued: issueDate }),
      );
  } else if (creditNumber != null || creditDate != null || credit.length > 0)
    fail(
      `it is ${status}, and only an invoice voided after it was issued has a credit note`,
      rule('creditNotVoid', { status: statusKey(status) }),
    );
  if (numbers.length !== own.length + credit.length)
    fail(`it has register records of another kind (${listed(numbers)})`, rule('otherRecords', registered(numbers)));
}

/** Each line's net is its rate × its seconds / 3600 rounded once; the net total is their sum; the VAT breakdown is what the lines make. */
function checkAmounts(values: Record<string, unknown>, fail: Fail, by: By) {
  const amount = (cents: number, currency = values.currency) => `${money(cents)} ${String(currency)}`;
  const lines = json<unknown>(values.lines, null);
  if (!Array.isArray(lines)) return fail('its lines are not a list', rule('linesNotList'));
  if (lines.length > MAX_INVOICE_LINES)
    fail(
      `it has ${lines.length} lines, and an invoice holds at most ${MAX_INVOICE_LINES}`,
      rule('tooManyLines', { lines: lines.length, max: MAX_INVOICE_LINES }),
    );
  let net = 0;
  lines.forEach((raw: unknown, i) => {
    const line = (raw ?? {}) as Partial<Record<keyof InvoiceDocumentLine, unknown>>;
    const where = `lines[${i}]`;
    if (typeof raw !== 'object' || raw === null || typeof line.description !== 'string')
      fail(`${where} is not a line with a description`, rule('lineShape', { where }));
    let cents: number;
    if (line.manual !== undefined) {
      // A manual line (decisions §12): its quantity, unit and price as a draft takes them, its net their product.
      const manual = line.manual as Partial<Record<string, unknown>> | null;
      let checked: ManualLine;
      try {
        checked = checkManualLine({
          description: line.description,
          quantity: manual?.quantity,
          unit: manual?.unit,
          unitPrice: manual?.unitPrice,
        }).manual;
      } catch (error) {
        const said = error instanceof DomainError ? error.words : undefined;
        const problem = `${where} is not a manual line as a draft takes it: ${(error as Error).message}`;
        if (said === undefined) throw refusal(invoiceLabel(values), problem, undefined, invoiceLabelWords(values));
        return fail(problem, rule('manualLine', { ...said.vars, where, detail: said.key }));
      }
      if (checked.unit !== manual?.unit)
        fail(
          `${where}'s unit ${JSON.stringify(manual?.unit)} is not a UN/ECE code a line takes`,
          rule('manualUnit', { where, unit: String(JSON.stringify(manual?.unit)) }),
        );
      if (line.quantitySec !== 0 || line.hourlyRate !== null || line.projectId !== null)
        fail(
          `${where} is a manual line, so it holds no time: its quantitySec is 0, its hourlyRate and projectId null`,
          rule('manualTime', { where }),
        );
      cents = manualAmountCents(checked);
      if (typeof line.amount !== 'number' || !Number.isFinite(line.amount) || Math.abs(line.amount * 100 - cents) > 1e-6)
        fail(
          `${where}'s amount ${JSON.stringify(line.amount)} is not its quantity × its unit price (${money(cents)}, rounded once to the cent), and a line's net is exactly that`,
          rule('manualAmount', { where, amount: String(JSON.stringify(line.amount)), net: amount(cents) }),
        );
    } else {
      if (!Number.isSafeInteger(line.quantitySec) || (line.quantitySec as number) < 0)
        fail(
          `${where}'s quantity ${JSON.stringify(line.quantitySec)} is not a whole number of seconds`,
          rule('quantity', { where, quantity: String(JSON.stringify(line.quantitySec)) }),
        );
      const rate = line.hourlyRate;
      if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1_000_000_000)
        fail(
          `${where}'s rate ${JSON.stringify(rate)} is not a rate (0 to 1,000,000,000)`,
          rule('rate', { where, rate: String(JSON.stringify(rate)) }),
        );
      cents = amountCents(true, rate as number, line.quantitySec as number) as number;
      if (typeof line.amount !== 'number' || !Number.isFinite(line.amount) || Math.abs(line.amount * 100 - cents) > 1e-6)
        fail(
          `${where}'s amount ${JSON.stringify(line.amount)} is not its rate × its hours (${money(cents)}: ${line.quantitySec as number} seconds at ${rate as number} an hour, rounded once to the cent), and a line's net is exactly that`,
          rule('amount', {
            where,
            amount: String(JSON.stringify(line.amount)),
            net: amount(cents),
            seconds: line.quantitySec as number,
            rate: rate as number,
          }),
        );
    }
    if (line.taxCategory !== undefined && !isTaxCategory(line.taxCategory))
      fail(
        `${where}'s taxCategory ${JSON.stringify(line.taxCategory)} is not a VAT category`,
        rule('taxCategory', { where, category: String(JSON.stringify(line.taxCategory)) }),
      );
    if (
      line.taxRate !== undefined &&
      line.taxRate !== null &&
      (typeof line.taxRate !== 'number' || !Number.isFinite(line.taxRate) || line.taxRate < 0 || line.taxRate > 100)
    )
      fail(
        `${where}'s taxRate ${JSON.stringify(line.taxRate)} is not a percentage from 0 to 100`,
        rule('taxRate', { where, rate: String(JSON.stringify(line.taxRate)) }),
      );
    net += cents;
  });
  if (values.totalCents !== net)
    fail(
      `its net total ${money(values.totalCents as number)} is not the sum of its lines (${money(net)}), and an invoice's totals follow from its lines`,
      rule('netTotal', { net: amount(values.totalCents as number), sum: amount(net) }),
    );
  checkExtras(values, lines, fail, by);
}

/** Its extras: the VAT breakdown its lines make, exemption reasons and payment terms the text rule allows, an early-payment discount, VAT in the issuer's currency. */
function checkExtras(values: Record<string, unknown>, lines: unknown[], fail: Fail, by: By): void {
  const amount = (cents: number, currency = values.currency) => `${money(cents)} ${String(currency)}`;
  const extras = json<Record<string, unknown>>(values.extras, {});
  if (typeof extras !== 'object' || extras === null || Array.isArray(extras)) fail('its extras are not an object', rule('extrasNotObject'));
  const rows = (extras.taxBreakdown ?? []) as unknown;
  if (!Array.isArray(rows)) return fail('its VAT breakdown is not a list', rule('breakdownNotList'));
  const made = breakdown(lines as InvoiceDocumentLine[], () => null);
  const key = (r: Partial<TaxBreakdownRow>) =>
    `${String(r.category)} ${String(r.rate)} %: basis ${typeof r.basisAmount === 'number' ? r.basisAmount.toFixed(2) : String(r.basisAmount)}, VAT ${typeof r.taxAmount === 'number' ? r.taxAmount.toFixed(2) : String(r.taxAmount)}`;
  // As words' values, in no language's words: `S 19 %: 100.00 / 19.00`, a dash for none.
  const plain = (r: Partial<TaxBreakdownRow>) =>
    `${String(r.category)} ${String(r.rate)} %: ${typeof r.basisAmount === 'number' ? r.basisAmount.toFixed(2) : String(r.basisAmount)} / ${typeof r.taxAmount === 'number' ? r.taxAmount.toFixed(2) : String(r.taxAmount)}`;
  const given = (rows as Array<Partial<TaxBreakdownRow>>).map(key);
  const expected = made.map(key);
  if (given.length !== expected.length || given.some((row, i) => row !== expected[i]))
    fail(
      `its VAT breakdown (${given.join('; ') || 'none'}) is not what its lines make (${expected.join('; ') || 'none'}), and its VAT and totals follow from its lines`,
      rule('breakdown', {
        givenRows: (rows as Array<Partial<TaxBreakdownRow>>).map(plain).join('; ') || '—',
        expectedRows: made.map(plain).join('; ') || '—',
      }),
    );
  (rows as Array<Partial<TaxBreakdownRow>>).forEach((row, i) => {
    if (row.exemptionReason != null) by(() => checkValue('text', row.exemptionReason, `taxBreakdown[${i}].exemptionReason`));
    if (row.exemptionReasonCode != null)
      by(() => requireVatexCode(String(row.exemptionReasonCode), `taxBreakdown[${i}].exemptionReasonCode`));
  });
  if (extras.paymentTerms !== undefined) by(() => checkValue('text', extras.paymentTerms, 'paymentTerms'));
  if (extras.earlyPayment !== undefined) {
    // Its early-payment discount (issue 57): terms the settings would take (its XRechnung's BT-20 line), on an issued invoice only.
    const terms = extras.earlyPayment as Partial<EarlyPayment> | null;
    let read: EarlyPayment | null;
    try {
      read = parseEarlyPayment(`${String(terms?.percent)}/${String(terms?.days)}`);
    } catch {
      read = null;
    }
    if (read === null || read.percent !== terms?.percent || read.days !== terms?.days)
      fail(
        `its early-payment discount ${JSON.stringify(terms)} is not P % (above 0, below 100, two decimals at most) within 1 to 365 days`,
        rule('earlyPayment', { terms: String(JSON.stringify(terms)) }),
      );
    if (values.issueDate == null)
      fail('it has an early-payment discount, and only an issued invoice offers one', rule('earlyPaymentDraft'));
  }
  if (extras.vatCurrency !== undefined) {
    const vat = (extras.vatCurrency ?? {}) as Partial<NonNullable<InvoiceDocument['vatCurrency']>>;
    const taxCents = made.reduce((sum, r) => sum + toCents(r.taxAmount), 0);
    const rate = vat.exchangeRate;
    if (
      typeof vat.currency !== 'string' ||
      !isCurrencyCode(vat.currency) ||
      typeof rate !== 'number' ||
      !(rate > 0) ||
      !Number.isFinite(rate)
    )
      fail('its VAT in the issuer’s currency is not {currency, exchangeRate, taxTotal}', rule('vatCurrencyShape'));
    const total = timesCents(taxCents, rate as number);
    if (typeof vat.taxTotal !== 'number' || Math.abs(vat.taxTotal * 100 - total) > 1e-6)
      fail(
        `its VAT total in ${vat.currency} (${JSON.stringify(vat.taxTotal)}) is not its VAT (${money(taxCents)}) at its exchange rate ${rate} (${money(total)})`,
        rule('vatCurrencyTotal', {
          currency: String(vat.currency),
          given: String(JSON.stringify(vat.taxTotal)),
          tax: amount(taxCents),
          rate: rate as number,
          total: amount(total, vat.currency),
        }),
      );
  }
}

/** A party of the invoice (null, or an object of the party's fields only), each value checked by its field's kind, its electronic address by its scheme. */
function checkParty(name: 'issuer' | 'recipient', text: unknown, fields: Fields, fail: Fail, by: By): void {
  const party = json<unknown>(text, null);
  if (party === null) return;
  const noun = PARTIES[name];
  if (typeof party !== 'object' || Array.isArray(party))
    return fail(`its ${name} is not an object`, rule('partyNotObject', { party: noun }));
  for (const [field, value] of Object.entries(party as Record<string, unknown>)) {
    if (!Object.hasOwn(fields, field))
      fail(`${name}.${field} is not a field of an invoice's ${name}`, rule('partyField', { path: `${name}.${field}`, party: noun }));
    if (value !== null) by(() => checkValue(fields[field] as Kind, value, `${name}.${field}`));
  }
  by(() => checkElectronicAddress(party as Record<string, unknown>, [`${name}.electronicAddress`], `${name}.`));
}

/**
 * Its sends by mail fit it: only an issued invoice is sent (the credit note only of one voided
 * after issuing), to one address mail can go to, with files named as its documents are (the PDF
 * first), not before the document's day and not after now.
 */
function checkSends(
  values: Record<string, unknown>,
  sends: ReadonlyArray<Record<string, unknown>>,
  status: InvoiceDocument['status'],
  ctx: RestoreContext,
  fail: Fail,
): void {
  if (sends.length === 0) return;
  const issued = typeof values.number === 'string';
  // An invoice issued before numbers existed and voided has no credit note, but may have been sent before.
  const allowed =
    status === 'sent' || status === 'paid' || (status === 'void' && !issued && values.issueDate != null)
      ? ['invoice']
      : status === 'void' && issued
        ? ['invoice', 'credit_note']
        : [];
  for (const send of sends) {
    const document = send.document as 'invoice' | 'credit_note';
    const what = document === 'credit_note' ? 'credit note' : 'invoice';
    const creditNote = document === 'credit_note';
    if (!allowed.includes(document))
      fail(
        `a send of its ${what} by mail is recorded, and ${allowed.length === 0 ? `a ${status === 'void' ? 'voided draft' : 'draft'} is never sent` : `only the invoice of a ${status} invoice is sent`}`,
        rule(allowed.length > 0 ? 'sendOnlyInvoice' : status === 'void' ? 'sendVoidedDraft' : 'sendDraft', {
          document: documentKey(creditNote),
          status: statusKey(status),
        }),
      );
    const recipient = send.recipient as string;
    if (!ctx.deliverable(recipient))
      fail(
        `a send by mail names ${JSON.stringify(recipient)}, which is not one address mail can go to`,
        rule('sendRecipient', { recipient: String(JSON.stringify(recipient)) }),
      );
    const { names, named } = documentsNamed(values, creditNote);
    const files = json<unknown>(send.files, null);
    if (!Array.isArray(files) || files.length === 0 || !files.every(named) || new Set(files).size !== files.length)
      fail(
        `a send by mail lists the files ${JSON.stringify(files)}, which are not its ${what}'s documents (${names.join(', ')}; the PDF first)`,
        rule('sendFiles', { files: JSON.stringify(files), names: names.join(', '), document: documentKey(creditNote) }),
      );
    const day = (creditNote ? values.creditNoteDate : values.issueDate) as string;
    const at = send.createdAt as number;
    if (!Number.isSafeInteger(at) || at > ctx.now || at < Date.parse(`${day}T00:00:00Z`) - DAY_MS)
      fail(
        `a send by mail is dated ${Number.isSafeInteger(at) ? new Date(at).toISOString() : JSON.stringify(at)}, before its ${what}'s day (${day}) or after now`,
        rule('sendAt', {
          at: Number.isSafeInteger(at) ? new Date(at).toISOString() : String(JSON.stringify(at)),
          day: String(day),
          document: documentKey(creditNote),
        }),
      );
  }
}

/**
 * The whole file's numbers (issue 54 N3): unique against the file and the workspace (its
 * register and its invoices), restored only into a workspace that has issued none (its series
 * then goes on after the file's), and, once every invoice is read, a series without a gap under
 * the file's number pattern (the k-th document of the series, per year when the pattern holds
 * one, ordered by date, is the pattern's k-th number). The file's numbered invoices are restored
 * together or not at all: without one of them the series would have a gap. `key` is the caller's
 * name of an invoice (the import: its line).
 */
export function createSeriesCheck(workspace: { register: readonly string[]; invoices: ReadonlyMap<string, string> }) {
  const inFile = new Map<string, string>();
  const accepted: Array<{ key: number; label: string; numbers: readonly NumberRecord[] }> = [];
  let refused: string | null = null;
  return {
    /** Checks an invoice's numbers against the workspace and the file so far (throws a refusal), and counts it in the series. */
    add(key: number, values: Record<string, unknown>, numbers: readonly NumberRecord[]): void {
      const label = invoiceLabel(values);
      if (numbers.length === 0) return;
      const fail = (problem: string, said: Words): never => {
        refused ??= label;
        throw refusal(label, problem, said);
      };
      if (workspace.register.length > 0) {
        refused ??= label;
        const named = numbers.map((n) => n.number).join(' and ');
        const register = `${workspace.register.slice(0, 3).join(', ')}${workspace.register.length > 3 ? ' …' : ''}`;
        throw new DomainError(
          'invalid',
          `invoice ${named}: this workspace has issued numbers of its own (${register}), and numbered invoices are restored only into a workspace that has issued none, so that its series goes on from the file's without a gap or a number given twice. Import the file into a new workspace, or leave out its invoices with --skip-invalid.`,
          { words: words('invoicing.refused.restore.ownNumbers', { invoice: named, register }) },
        );
      }
      for (const n of numbers) {
        const there = workspace.invoices.get(n.number);
        if (there !== undefined)
          fail(
            `the number ${n.number} is ${there}'s in this workspace, and a number is given once`,
            words('invoicing.refused.restore.numberTaken', { invoice: label, number: n.number, there, after: AFTER_KEY }),
          );
        const before = inFile.get(n.number);
        if (before !== undefined)
          fail(
            `the number ${n.number} is given twice in the file (also invoice ${before}), and a number is given once`,
            words('invoicing.refused.restore.numberTwice', { invoice: label, number: n.number, before, after: AFTER_KEY }),
          );
      }
      for (const n of numbers) inFile.set(n.number, label);
      accepted.push({ key, label, numbers });
    },

    /** An invoice refused for another reason (its member, its record): the series is restored together or not at all. */
    refused(values: Record<string, unknown>, numbers: readonly NumberRecord[]): void {
      if (numbers.length > 0) refused ??= invoiceLabel(values);
    },

    /**
     * Once every invoice is read: the refusals of the series (none when it is whole and without a
     * gap under `pattern`, the number pattern of the file's invoicing settings), by key.
     */
    finish(pattern: string): Array<{ key: number; message: string; words: Words }> {
      const out: Array<{ key: number; message: string; words: Words }> = [];
      const together = (because: string) =>
        accepted
          .filter((a) => !out.some((o) => o.key === a.key))
          .map((a) => ({
            key: a.key,
            message: `invoice ${a.label}: the file's numbered invoices are restored together or not at all, so that their series has no gap, and invoice ${because} is refused. ${AFTER}`,
            words: words('invoicing.refused.restore.together', { invoice: a.label, refused: because, after: AFTER_KEY }),
          }));
      if (refused !== null) return together(refused);
      const series = accepted
        .flatMap((a) => a.numbers.map((n) => ({ ...n, key: a.key, label: a.label })))
        .sort(
          (x, y) =>
            (x.issueDate < y.issueDate ? -1 : x.issueDate > y.issueDate ? 1 : 0) ||
            x.createdAt - y.createdAt ||
            x.number.localeCompare(y.number, 'en', { numeric: true }),
        );
      const yearly = restartsYearly(pattern);
      const counts = new Map<string, number>();
      for (const n of series) {
        const bucket = yearly ? n.issueDate.slice(0, 4) : '';
        const seq = (counts.get(bucket) ?? 0) + 1;
        counts.set(bucket, seq);
        const expected = formatNumber(pattern, n.issueDate, seq);
        if (n.number === expected) continue;
        out.push({
          key: n.key,
          message: `invoice ${n.label}: the file's numbers do not run without a gap: its ${n.kind === 'credit_note' ? 'credit note' : 'invoice'} ${n.number} of ${n.issueDate} is the ${ordinal(seq)} document of ${yearly ? `${n.issueDate.slice(0, 4)} in ` : ''}the series, which the file's number pattern ${pattern} numbers ${expected} (numbers and dates run together, one after the other). ${AFTER}`,
          words: words('invoicing.refused.restore.gap', {
            invoice: n.label,
            number: n.number,
            day: n.issueDate,
            pattern,
            expected,
            after: AFTER_KEY,
          }),
        });
        return [...out, ...together(n.label)];
      }
      return out;
    },
  };
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n.toLocaleString('en')}${suffix}`;
};
