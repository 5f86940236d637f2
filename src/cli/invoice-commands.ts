import { randomBytes } from 'node:crypto';
import { rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DomainError } from '../errors.js';
import type { InvoiceDocument, LineGrouping } from '../modules/invoices/service.js';
import {
  creditNoteOf,
  type CreditNoteView,
  DOCUMENT_FORMATS,
  type DocumentFormat,
  DocumentNotReady,
  type FillSlot,
  type InvoicePaymentView,
  type InvoiceReminderSkipView,
  type InvoiceSendView,
  type InvoiceStatus,
  issuerPatchOfText,
  LINE_GROUPINGS,
  type MissingValue,
  NotReadyToIssue,
  parseExchangeRate,
  partnerOf,
  printedLineHours,
  settingsPatchOfText,
} from '../modules/invoices/service.js';
import { INVOICE_LANGUAGES, parseClientLanguage, WAITING_LANGUAGES } from '../kernel/document-languages.js';
import { roundingWords, type RoundingText } from '../kernel/rounding.js';
import { OPERATOR } from '../principal.js';
import { optionalString, required, UsageError, memberOf } from './args.js';
import { type Command, command, flag, str } from './command.js';

const sets = { set: { type: 'string', multiple: true } } as const;
const STATUSES: readonly string[] = ['draft', 'sent', 'paid', 'void'] satisfies InvoiceStatus[];

/** The repeated `--set field=value` options, in order; a field named twice is a usage error. */
function assignments(values: Record<string, unknown>): Array<[string, string]> {
  const raw = (values.set ?? []) as string[];
  if (raw.length === 0) throw new UsageError('give at least one --set field=value');
  const seen = new Set<string>();
  return raw.map((item) => {
    const at = item.indexOf('=');
    const field = item.slice(0, at).trim();
    if (at < 0 || field === '') throw new UsageError(`--set takes field=value (got ${JSON.stringify(item)})`);
    if (seen.has(field)) throw new UsageError(`--set ${field} is given twice`);
    seen.add(field);
    return [field, item.slice(at + 1)];
  });
}

function status(value: string | undefined, option: string): InvoiceStatus | undefined {
  if (value === undefined) return undefined;
  if (!STATUSES.includes(value)) throw new UsageError(`--${option} must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(value)})`);
  return value as InvoiceStatus;
}

function grouping(value: string | undefined): LineGrouping | undefined {
  if (value === undefined) return undefined;
  if (!(LINE_GROUPINGS as readonly string[]).includes(value))
    throw new UsageError(`--group-by must be one of ${LINE_GROUPINGS.join(', ')} (got ${JSON.stringify(value)})`);
  return value as LineGrouping;
}

const money = (amount: number, currency: string) => `${amount.toFixed(2)} ${currency}`;

/** One invoice in a line: number (or draft), status, dates, client, gross. */
const summary = (i: InvoiceDocument) =>
  `${(i.number ?? '(draft)').padEnd(14)} ${i.status.padEnd(5)} ${i.issueDate ?? '          '}  ${(i.recipient?.name ?? i.clientId).slice(0, 30).padEnd(30)} ${money(i.grossTotal, i.currency).padStart(16)}  ${i.id}`;

/** A credit note in a line, as an invoice's: its number, "credit", its date, the client, the amount it credits, the invoice it cancels. */
const creditSummary = (c: CreditNoteView) =>
  `${c.number.padEnd(14)} ${'credit'.padEnd(5)} ${c.issueDate}  ${(c.clientName ?? c.clientId).slice(0, 30).padEnd(30)} ${money(-c.grossTotal, c.currency).padStart(16)}  ${c.invoiceId} (cancels ${c.invoiceNumber ?? 'it'})`;

/** A send by mail in a line: when, what, to whom, the files, by whom, where it stands. */
const sendSummary = (x: InvoiceSendView) =>
  `sent ${x.at}  ${x.document === 'credit-note' ? 'credit note' : 'invoice'} to ${x.to} by ${x.by.name ?? x.by.userId}: ${x.files.join(', ')} (${x.delivery ?? 'no longer in the mail log'})`;

/** A payment in a line: the day the money arrived, how much, the discount it settled with, the note, who recorded it. */
const paymentSummary = (p: InvoicePaymentView, currency: string) =>
  `paid ${p.date}  ${money(p.amount, currency)}${p.discount > 0 ? ` + ${money(p.discount, currency)} early-payment discount` : ''}${p.note ? `  (${p.note})` : ''}  recorded by ${p.by.name ?? p.by.userId}`;

/** An invoice as a person reads it on a terminal (`--json` prints the whole document). */
function humanInvoice(result: Record<string, unknown>): string {
  const i = result.invoice as InvoiceDocument;
  const sends = (result.sends ?? []) as InvoiceSendView[];
  const payments = (result.payments ?? []) as InvoicePaymentView[];
  const rounding = (result.rounding ?? 'none') as RoundingText | 'none';
  const skip = (result.reminderSkip ?? null) as InvoiceReminderSkipView | null;
  const lines = i.lines.map(
    (l) =>
      // A manual line in its own unit at its price (`3 C62 × 33.335`); time in hours at its rate.
      `  ${l.description.slice(0, 48).padEnd(48)} ${(l.manual ? String(l.manual.quantity) : printedLineHours(l)).padStart(10)} ${l.manual ? l.manual.unit : 'h'} × ${String(l.manual ? l.manual.unitPrice : (l.hourlyRate ?? '-')).padStart(8)} = ${money(l.amount, i.currency).padStart(14)}${l.taxCategory ? `  ${l.taxCategory} ${l.taxRate === undefined ? 'rate not set' : `${l.taxRate} %`}` : ''}`,
  );
  const tax = (i.taxBreakdown ?? []).map(
    (r) =>
      `  tax ${r.category} ${r.rate} % on ${money(r.basisAmount, i.currency)}: ${money(r.taxAmount, i.currency)}${r.exemptionReason ? ` (${r.exemptionReason})` : ''}`,
  );
  return [
    `invoice ${i.number ?? '(draft, no number yet)'}  ${i.status}  ${i.id}`,
    `client: ${i.recipient?.name ?? i.clientId}  period: ${i.from} to ${i.to} (days in ${i.timeZone})  language: ${i.language}`,
    `rounding: ${rounding === 'none' ? 'none (the time as tracked)' : `each entry ${roundingWords(rounding)}`}`,
    ...(i.issueDate ? [`issued: ${i.issueDate}  due: ${i.dueDate}${i.paidDate ? `  paid: ${i.paidDate}` : ''}`] : []),
    ...(i.creditNote ? [`credit note: ${i.creditNote.number} of ${i.creditNote.issueDate}`] : []),
    'lines:',
    ...lines,
    ...tax,
    `net ${money(i.netTotal, i.currency)}  tax ${money(i.taxTotal, i.currency)}  gross ${money(i.grossTotal, i.currency)}  due ${money(i.amountDue, i.currency)}`,
    ...(i.vatCurrency
      ? [
          `tax in ${i.vatCurrency.currency}: ${money(i.vatCurrency.taxTotal, i.vatCurrency.currency)} (1 ${i.currency} = ${i.vatCurrency.exchangeRate} ${i.vatCurrency.currency})`,
        ]
      : []),
    ...(i.paymentTerms ? [i.paymentTerms] : []),
    ...(i.note ? [`note: ${i.note}`] : []),
    ...payments.map((p) => paymentSummary(p, i.currency)),
    ...sends.map(sendSummary),
    ...(skip ? [skipSummary(skip, i.id)] : []),
    '',
  ].join('\n');
}

/** A payment reminder the tick could not send: `reminder 1 due since D, not sent: why; tried again hourly`. */
const skipSummary = (skip: InvoiceReminderSkipView, id: string): string =>
  `reminder ${skip.level} due since ${skip.since}, not sent: ${
    skip.reason === 'budget'
      ? `the workspace's mail budget was spent (${skip.detail})`
      : skip.reason === 'address'
        ? `no address mail can reach: ${skip.detail} (add one: timetrack invoice fill ${id} --user U --set recipient.email=ADDRESS)`
        : `its document fails its rules: ${skip.detail}`
  }; tried again hourly (last ${skip.at})`;

const refused = (message: string) => new DomainError('invalid', message);

/**
 * Where a missing value is set, as commands of this install, and for this invoice only what works
 * (issue 56 item 10): a fill where the invoice lacks the value or a fill set it and may correct it
 * (an electronic address always with its scheme); else what the invoice keeps, and that a new
 * invoice is the way (a fill never changes a value the invoice was made with, nor one that went out).
 */
function whereToSet(m: MissingValue, i: InvoiceDocument, slots: FillSlot[]): string {
  const field = m.path.replace(/^(issuer|recipient)\./, '');
  const slot = slots.find((s) => s.path === m.path);
  const partner = partnerOf(m.path);
  const pair = partner === null ? [m.path] : m.path.endsWith('Scheme') ? [m.path, partner] : [partner, m.path];
  const sets = pair.map((path) => `--set '${path}=…'`).join(' ');
  const renew =
    i.status === 'draft'
      ? `void this draft (timetrack invoice status ${i.id} --to void --user U; it uses no number) and create it again`
      : `void this invoice (timetrack invoice status ${i.id} --to void --user U; its credit note cancels it) and issue a new one`;
  const fill =
    slot === undefined || slot.state === 'empty'
      ? `fill it on this invoice: timetrack invoice fill ${i.id} --user U ${sets}`
      : slot.state === 'correctable'
        ? `correct it on this invoice (a fill set it, and no document carrying it went out yet): timetrack invoice fill ${i.id} --user U ${sets}`
        : slot.because === 'handed-out'
          ? `this invoice keeps ${JSON.stringify(slot.value)}, which went out in a document of it: ${renew}`
          : `this invoice keeps ${JSON.stringify(slot.value)}, which it was made with (a fill adds missing values and corrects its own, never these): ${renew}`;
  const then = slot === undefined || slot.state !== 'fixed' ? ', or ' : '; ';
  switch (m.where) {
    case 'business-profile':
      return `set it in the business profile (timetrack workspace profile ${i.workspaceId} --set '${field}=…', or the Workspace page's Invoice issuer) for new invoices${then}${fill}`;
    case 'client':
      return `set it on the client (the Catalog page's Invoicing details, or PATCH /api/v1/clients/${i.clientId} with ${field}) for new invoices${then}${fill}`;
    case 'fill':
      return fill;
    case 'issue':
      return m.path === 'creditNote'
        ? `only an issued invoice that was voided has one (timetrack invoice status ${i.id} --to void --user U)`
        : `issue the invoice first: timetrack invoice status ${i.id} --to sent --user U`;
  }
}

/**
 * Writes `bytes` to `out` whole or not at all: a temporary file beside it (same directory, so the
 * rename is atomic on that file system), flushed, then renamed over it; on any failure the
 * temporary file is removed and `out` is as it was. A path that cannot be written is refused
 * saying what to give instead.
 */
function writeWhole(out: string, bytes: Buffer, suggested: string): string {
  const target = resolve(out);
  const cannot = (why: string) =>
    refused(
      `Cannot write ${target}: ${why}. Give --out a file in a directory that exists and that you may write, e.g. --out ./${suggested}.`,
    );
  const stat = statSync(target, { throwIfNoEntry: false });
  if (stat?.isDirectory()) throw cannot(`it is a directory (name the file: ${join(target, suggested)})`);
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, bytes, { flag: 'wx', flush: true });
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    const { code, message } = error as NodeJS.ErrnoException;
    throw cannot(
      code === 'ENOENT'
        ? `the directory ${dirname(target)} does not exist`
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : message,
    );
  }
  return target;
}

/** `invoice export`: one document of a stored invoice (or of its credit note) into a file, made by the invoices service. */
async function exportDocument(services: Parameters<Command['run']>[1], id: string, format: string, out: string, creditNote: boolean) {
  if (!(DOCUMENT_FORMATS as readonly string[]).includes(format))
    throw refused(`--format ${JSON.stringify(format)} is not a document format: use one of ${DOCUMENT_FORMATS.join(', ')}.`);
  let made: Awaited<ReturnType<typeof services.invoices.document>>;
  try {
    made = await services.invoices.document(OPERATOR, id, format, { creditNote });
  } catch (error) {
    if (!(error instanceof DocumentNotReady)) throw error;
    const invoice = error.invoice;
    const name = invoice.number ?? `draft ${invoice.id}`;
    if (creditNote && !invoice.creditNote)
      throw refused(
        `Invoice ${name} has no credit note: only an invoice voided after it was issued has one${invoice.status === 'sent' ? ` (timetrack invoice status ${invoice.id} --to void --user U makes it)` : ` (it is ${invoice.status})`}. Leave out --credit-note to export the invoice itself.`,
      );
    const slots = services.invoices.fillSlots(
      OPERATOR,
      invoice.id,
      error.missing.map((m) => m.path),
    );
    throw refused(
      [
        `${creditNote ? `The credit note of invoice ${name}` : `Invoice ${name}`} cannot be exported as ${format}: it lacks ${error.missing.length === 1 ? 'a value' : `${error.missing.length} values`} the format requires. Nothing was written.`,
        ...error.missing.map((m) => `  - ${m.label} (${m.bt}): ${whereToSet(m, invoice, slots)}`),
      ].join('\n'),
    );
  }
  const file = writeWhole(out, made.bytes, made.fileName);
  return {
    id: made.invoice.id,
    number: (creditNote ? made.invoice.creditNote?.number : made.invoice.number) ?? null,
    format,
    creditNote,
    file,
    bytes: made.bytes.length,
  };
}

/** `invoice send`: the invoices service's send (checked, documents made here, queued for the server's mail sender, recorded). */
async function sendInvoice(services: Parameters<Command['run']>[1], id: string, v: Record<string, string | boolean | undefined>) {
  const xml = optionalString(v, 'xml');
  const sent = await services.invoices.send(OPERATOR, id, {
    userId: required(v, 'user'),
    to: required(v, 'to'),
    xml: xml === undefined || xml === 'none' ? null : (xml as DocumentFormat),
    message: optionalString(v, 'message') ?? null,
    ...(v.greeting === undefined ? {} : { greeting: optionalString(v, 'greeting') ?? '' }),
    ...(v['with-receipts'] === true ? { withReceipts: true } : {}),
  });
  return { ...sent, invoiceId: id };
}

/** `--project P` or `--task T` of `workspace invoicing` (not both, nor with --client), or null. */
function workOf(v: Record<string, string | boolean | undefined>): { kind: 'project' | 'task'; id: string } | null {
  const project = optionalString(v, 'project');
  const task = optionalString(v, 'task');
  const given = [project, task, optionalString(v, 'client')].filter((x) => x !== undefined).length;
  if (given > 1) throw new UsageError('give one of --client, --project and --task');
  return project !== undefined ? { kind: 'project', id: project } : task !== undefined ? { kind: 'task', id: task } : null;
}

/** A project's or task's own VAT: printed (`{project|task, taxCategory, taxRate}`, null: the invoice's own), or set with --set taxCategory=… [--set taxRate=…]. */
function workTax(
  s: Parameters<Command['run']>[1],
  workspaceId: string,
  work: { kind: 'project' | 'task'; id: string },
  v: Record<string, string | boolean | undefined>,
): Record<string, unknown> {
  if (v.set === undefined) {
    const own = s.invoices.workTaxes(OPERATOR, workspaceId)[work.kind === 'project' ? 'projects' : 'tasks'].get(work.id) ?? null;
    return { [work.kind]: work.id, taxCategory: own?.category ?? null, taxRate: own?.rate ?? null };
  }
  const pairs = assignments(v);
  const other = pairs.find(([key]) => key !== 'taxCategory' && key !== 'taxRate');
  if (other) throw new UsageError(`--${work.kind} takes only --set taxCategory=… and --set taxRate=… (got ${other[0]})`);
  const given = Object.fromEntries(pairs);
  return s.invoices.setWorkTax(OPERATOR, workspaceId, work, { taxCategory: given.taxCategory ?? '', taxRate: given.taxRate ?? '' });
}

/**
 * A client's own invoicing overrides of `workspace invoicing --client C` (not part of the API's
 * client): printed (`{client, rounding, language}`, null: the workspace's), or set with
 * --set rounding=… and --set language=… (a blank value: the workspace's).
 */
function clientOverrides(
  s: Parameters<Command['run']>[1],
  workspaceId: string,
  clientId: string,
  v: Record<string, string | boolean | undefined>,
): Record<string, unknown> {
  if (v.set === undefined)
    return {
      client: clientId,
      rounding: s.invoices.clientRoundings(OPERATOR, workspaceId).get(clientId) ?? null,
      language: s.invoices.clientLanguages(OPERATOR, workspaceId).get(clientId) ?? null,
    };
  const pairs = assignments(v);
  const other = pairs.find(([key]) => key !== 'rounding' && key !== 'language');
  if (other)
    throw new UsageError(
      `--client takes only --set rounding=… and --set language=… (a client's VAT and recipient fields are set with PATCH /api/v1/clients/${clientId} or on the Catalog page; got ${other[0]})`,
    );
  const given = new Map(pairs);
  // Both checked before either is written: a refused language leaves the rounding as it was.
  if (given.has('language')) parseClientLanguage(given.get('language'), 'language');
  if (given.has('rounding')) s.invoices.setClientRounding(OPERATOR, workspaceId, clientId, given.get('rounding'));
  if (given.has('language')) s.invoices.setClientLanguage(OPERATOR, workspaceId, clientId, given.get('language'));
  return { id: clientId };
}

/** `invoice …`, `workspace profile` and `workspace invoicing` commands. */
export const invoiceCommands: Record<string, Command> = {
  'workspace profile': command(
    'workspace profile ID --set field=value … (addressLines separated by |; a blank value clears the field)',
    "Set the workspace's business profile, copied onto new invoices as the issuer.",
    sets,
    1,
    (v, p, s) => s.invoices.setBusinessProfile(OPERATOR, p[0] as string, issuerPatchOfText(assignments(v))),
  ),
  'workspace invoicing': {
    ...command(
      'workspace invoicing ID [--client C | --project P | --task T] [--set key=value …]',
      "Print the workspace's invoicing settings, or change them (a blank value resets a key); with --client, a client's own rounding rule and document language; with --project or --task, its own VAT.",
      { ...sets, client: str, project: str, task: str },
      1,
      (v, p, s) => {
        const workspaceId = p[0] as string;
        const work = workOf(v);
        if (work !== null) return workTax(s, workspaceId, work, v);
        const clientId = optionalString(v, 'client');
        if (clientId !== undefined) return clientOverrides(s, workspaceId, clientId, v);
        if (v.set === undefined) return { invoicing: s.invoices.settings(OPERATOR, workspaceId) };
        return s.invoices.setSettings(OPERATOR, workspaceId, settingsPatchOfText(assignments(v)));
      },
      undefined,
      [
        'Keys:',
        '  numberPattern        the invoice numbers: {yyyy} {yy} {mm} {seq} {seq:N} ({seq} exactly once; default {yyyy}-{seq:4} gives 2026-0001;',
        '                       with a year in it the sequence restarts each year)',
        '  taxCategory          S standard (default), AE reverse charge, K intra-community, G export, E exempt, Z zero rated, O not subject',
        '  taxRate              the standard rate as a percentage, such as 19 or 7.7 (no default: a draft is made without it, issuing one of category S needs it)',
        '  exemptionReason      why an invoice carries no VAT, printed on it (category E, or smallBusiness=true in the business profile)',
        '  exemptionReasonCode  its VATEX code, such as VATEX-EU-132',
        `  language             ${INVOICE_LANGUAGES.join(' or ')} (default en): the labels and sentences of the documents (${WAITING_LANGUAGES.join(', ')}: not offered yet)`,
        '  rounding             none (default: the time as tracked), or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes,',
        '                       written up-15, nearest-6, down-1: each entry rounded on its own before invoice lines are made',
        '  earlyPayment         an early-payment discount (Skonto) offered on invoices issued from now on: "2 % within 10 days" (or 2/10);',
        '                       said after the due sentence, and in XRechnung as its #SKONTO# line (default: none)',
        '  reminders            payment reminders mailed for overdue invoices: the days past the due date of each level, rising, such as',
        '                       "7, 21" (at most 3, each 1 to 365), on (7, 21) or off (default: off)',
        "A client may have its own taxCategory, exemptionReason and exemptionReasonCode (the Catalog page's Invoicing details, or PATCH /api/v1/clients/{id}),",
        "and its own rounding: --client C --set rounding=nearest-6 (none: not rounded whatever the workspace says; blank: the workspace's),",
        `and its own document language: --client C --set language=de (${INVOICE_LANGUAGES.join(' or ')}; blank: the workspace's).`,
        'A project or a task may have its own VAT on the lines of its time: --project P (or --task T) --set taxCategory=S --set taxRate=7,',
        "or taxCategory=Z (zero rated); a blank taxCategory gives it back to the invoice's own (a task's: its project's). The client's",
        'reverse charge (AE), intra-community supply (K), export (G) or not subject (O), and a small business, still win over it.',
      ].join('\n'),
    ),
  },
  'invoice create': command(
    'invoice create --workspace W --user U --client C --from YYYY-MM-DD --to YYYY-MM-DD [--time-zone ZONE] [--group-by project|task|member|entry|single] [--note TEXT]',
    "Invoice a client's billable, completed, un-invoiced entries starting in the range (whole days of U's time zone, or --time-zone's, both included): a draft, without a number.",
    { workspace: str, user: str, client: str, from: str, to: str, 'time-zone': str, 'group-by': str, note: str },
    0,
    (v, _p, s) =>
      s.invoices.create(OPERATOR, {
        ...memberOf(v),
        clientId: required(v, 'client'),
        from: required(v, 'from'),
        to: required(v, 'to'),
        ...(v['time-zone'] === undefined ? {} : { timeZone: optionalString(v, 'time-zone') }),
        ...(v['group-by'] === undefined ? {} : { groupBy: grouping(optionalString(v, 'group-by')) }),
        ...(v.note === undefined ? {} : { note: optionalString(v, 'note') }),
      }),
    undefined,
    "The range is read as U's reports read it: days of U's time zone (their profile's, else the server's TZ), or of --time-zone (an IANA name such as Europe/Berlin); the invoice keeps the zone and names it. Lines: one per project (default), task, member, entry, or a single line, and per rate. Each line carries the tax of the client (its taxCategory) or of the workspace (workspace invoicing); a draft needs no tax settings (a rate not set yet counts no tax; issuing refuses until it is set). The invoice keeps the language and note it was made with. Billable entries without a rate are refused, named. Issue it with invoice status ID --to sent.",
  ),
  'invoice status': command(
    'invoice status ID --to sent|paid|void --user U [--date YYYY-MM-DD] [--exchange-rate R]',
    'Move an invoice: draft -> sent (issue: number, dates) -> paid; draft or sent -> void (void releases its entries; an issued invoice gets its credit note).',
    { to: str, user: str, date: str, 'exchange-rate': str },
    1,
    (v, p, s) => {
      const to = status(required(v, 'to'), 'to') as InvoiceStatus;
      const date = optionalString(v, 'date');
      const rate = optionalString(v, 'exchange-rate');
      try {
        return s.invoices.changeStatus(OPERATOR, p[0] as string, to, required(v, 'user'), {
          ...(date === undefined ? {} : { date }),
          ...(rate === undefined ? {} : { exchangeRate: parseExchangeRate(rate) }),
        });
      } catch (error) {
        if (!(error instanceof NotReadyToIssue)) throw error;
        // Issuing checks its PDF first (issue 56 item 1): each value it would lack, with the commands that set it.
        const { invoice, missing, tax, problem } = error;
        const slots = s.invoices.fillSlots(
          OPERATOR,
          invoice.id,
          missing.map((m) => m.path),
        );
        throw new DomainError(
          'conflict',
          [
            `Invoice ${invoice.id} cannot be issued yet, and no number was taken${missing.length > 0 ? `: its PDF would lack ${missing.length === 1 ? 'a value' : `${missing.length} values`}` : ''}.`,
            ...missing.map((m) => `  - ${m.label} (${m.bt}): ${whereToSet(m, invoice, slots)}`),
            ...tax.map((t) => `  - ${t.setting}: ${t.problem}; timetrack workspace invoicing ${invoice.workspaceId} --set ${t.setting}=…`),
            ...(problem ? [`  - ${problem}`] : []),
            'Set them, then issue it again.',
          ].join('\n'),
        );
      }
    },
    undefined,
    "--date is the issue date (--to sent), the paid date (--to paid) or the credit note date (--to void of an issued invoice); default: today in the acting member's time zone (else the server's). An issue or credit note date is never before the last document issued in the workspace, nor after today. --exchange-rate (issuing only) is how many units of the issuer's VAT currency (vatCurrency; EUR in the euro area) one unit of the invoice's currency is worth on the issue date, e.g. 1.0634; an invoice in another currency than the VAT currency is refused without it, and states its VAT in both.",
  ),
  'invoice pay': {
    ...command(
      'invoice pay ID --amount A --user U [--date YYYY-MM-DD] [--note TEXT]',
      'Record a payment against an issued invoice: the amount due falls; when nothing is left to pay, the invoice is paid on that day.',
      { amount: str, date: str, note: str, user: str },
      1,
      (v, p, s) => {
        const date = optionalString(v, 'date');
        return s.invoices.pay(OPERATOR, p[0] as string, {
          amount: required(v, 'amount'),
          userId: required(v, 'user'),
          ...(date === undefined ? {} : { date }),
          note: optionalString(v, 'note') ?? null,
        });
      },
      undefined,
      [
        "--amount is what arrived, in the invoice's currency: 250, 250.50 or 250,50 (at most two decimals; no thousands separators). More than",
        'is still due is refused, saying how much is (money paid beyond it is given back outside timetrack).',
        "--date is the day the money arrived (default: today in U's time zone, else the server's); not before the issue date, nor after today.",
        'The payments are listed by invoice show; a paid invoice takes no more. invoice status ID --to paid records what is still due at once.',
      ].join('\n'),
    ),
    human: (result) =>
      `recorded ${money(result.amount as number, String(result.currency))} received on ${String(result.date)} against ${String(result.number ?? result.invoiceId)}: ${
        result.status === 'paid'
          ? 'nothing is left to pay, the invoice is paid'
          : `${money(result.amountDue as number, String(result.currency))} still due`
      }\n`,
  },
  'invoice fill': command(
    'invoice fill ID --user U --set path=value … (issuer.<field>, recipient.<field>, lines[N].taxCategory, lines[N].taxRate, paymentTerms, taxBreakdown=lines, taxBreakdown[N].exemptionReason, taxBreakdown[N].exemptionReasonCode)',
    'Add e-invoice values that are still null or absent; never changes an amount or a value already set.',
    { user: str, ...sets },
    1,
    (v, p, s) => s.invoices.fill(OPERATOR, p[0] as string, required(v, 'user'), assignments(v)),
  ),
  'invoice line': command(
    'invoice line add ID --description TEXT --quantity Q [--unit U] --price P [--tax-category S|Z] [--tax-rate R] | invoice line remove ID --line N',
    'Add a manual line (not time: a fixed fee, a licence, travel) to a draft after its other lines, or remove one by its number.',
    { description: str, quantity: str, unit: str, price: str, 'tax-category': str, 'tax-rate': str, line: str },
    2,
    (v, p, s) => {
      const [action, id] = p as [string, string];
      if (action === 'add')
        return s.invoices.addLine(OPERATOR, id, {
          description: optionalString(v, 'description') ?? '',
          quantity: required(v, 'quantity'),
          unit: optionalString(v, 'unit') ?? '',
          unitPrice: required(v, 'price'),
          taxCategory: optionalString(v, 'tax-category') ?? '',
          taxRate: optionalString(v, 'tax-rate') ?? '',
        });
      if (action === 'remove') {
        const line = required(v, 'line');
        if (!/^\d{1,4}$/.test(line))
          throw new UsageError(`--line is the line's number as invoice show and the PDF count them, 1, 2 … (got ${line})`);
        return s.invoices.removeLine(OPERATOR, id, Number(line));
      }
      throw new UsageError(`invoice line takes add or remove (got ${action})`);
    },
    undefined,
    [
      "--quantity and --price are decimals (at most 4 places; a comma or a point): the line's net is quantity x price, rounded once to the cent.",
      '--unit is a UN/ECE Recommendation 20 code or its word (default C62, pieces): C62 pcs, LS lump sum, HUR hour, DAY day, WEE week,',
      '  MON month, ANN year, KMT km, PG page, KGM kg, MTR m, LTR l. The e-invoices carry the code (BT-130), the PDF its symbol.',
      "--tax-category S with --tax-rate 7 (or 19 …) gives the line its own VAT, Z zero rates it; without them the line takes the invoice's own",
      "(the client's, else the workspace's). The client's reverse charge (AE), intra-community supply (K), export (G) or not subject (O), and",
      "a small business, still win over a line's own VAT. Only a draft takes or loses lines; a line of time leaves only when the invoice is voided.",
    ].join('\n'),
  ),
  'invoice show': {
    ...command(
      'invoice show ID',
      'Print an invoice: the whole document its PDF and e-invoices are made from, its payments, its sends by mail and its payment reminders.',
      {},
      1,
      (_v, p, s) => ({
        invoice: s.invoices.get(OPERATOR, p[0] as string),
        // The rule its lines were made with (issue 56 item 4): kept with the invoice, not part of the webhooks' invoice.
        rounding: s.invoices.rounding(OPERATOR, p[0] as string) ?? 'none',
        sends: s.invoices.sends(OPERATOR, p[0] as string),
        payments: s.invoices.payments(OPERATOR, p[0] as string),
        reminders: s.invoices.reminders(OPERATOR, p[0] as string),
        // A reminder the tick could not send, while it is due (issue 57), or null.
        reminderSkip: s.invoices.reminderSkip(OPERATOR, p[0] as string),
      }),
    ),
    human: humanInvoice,
  },
  'invoice list': {
    ...command(
      'invoice list --workspace W [--status draft|sent|paid|void] [--client C]',
      "List a workspace's invoices, newest first, each with its credit note (with --json each invoice as invoice show prints it, and the credit notes).",
      { workspace: str, status: str, client: str },
      0,
      (v, _p, s) => {
        const filter = { status: status(optionalString(v, 'status'), 'status'), clientId: optionalString(v, 'client') };
        const invoices = s.invoices.list(OPERATOR, required(v, 'workspace'), {
          ...(filter.status === undefined ? {} : { status: filter.status }),
          ...(filter.clientId === undefined ? {} : { clientId: filter.clientId }),
        });
        return { invoices, creditNotes: invoices.flatMap((i) => creditNoteOf(i) ?? []) };
      },
    ),
    human: (result) => {
      const invoices = result.invoices as InvoiceDocument[];
      // A credit note on the line above the invoice it cancels, as on the Invoices page.
      const lines = invoices.flatMap((i) => {
        const note = creditNoteOf(i);
        return note ? [creditSummary(note), summary(i)] : [summary(i)];
      });
      return lines.length === 0 ? 'no invoices\n' : `${lines.join('\n')}\n`;
    },
  },
  'invoice send': {
    ...command(
      'invoice send ID --user U --to ADDRESS [--xml xrechnung-ubl|xrechnung-cii|peppol|none] [--greeting TEXT] [--message TEXT] [--with-receipts]',
      'Mail an issued invoice (or the credit note of one voided after issuing) with its PDF and one e-invoice XML; the server sends it.',
      { user: str, to: str, xml: str, greeting: str, message: str, 'with-receipts': flag },
      1,
      (v, p, s) => sendInvoice(s, p[0] as string, v),
      undefined,
      [
        "The same send as the invoice page's Send by mail: subject, text and HTML in the invoice's language; From the issuer's name at the",
        "server's address (MAIL_FROM), Reply-To the issuer's email; the PDF and the XML named as their downloads (default: the PDF alone).",
        '--greeting replaces the first line ("Hello," / "Guten Tag,"; an empty value: none); --message is its own paragraph (at most 2000 characters).',
        'The message is queued here and sent by the running server within seconds (the Mail page and mail list show it); the send is',
        'recorded on the invoice (invoice show). Mail must be set up (SMTP_URL, MAIL_FROM).',
        '--with-receipts attaches the receipts of its expenses after the documents; refused when it has none, or when they and the documents',
        'come to more than 10 MB (then send without them).',
      ].join('\n'),
    ),
    human: (result) =>
      `queued ${result.document === 'credit-note' ? 'the credit note' : 'invoice'} ${String(result.invoiceId)} for ${String(result.address)}: ${(result.files as string[]).join(', ')} (mail ${String(result.messageId)})\n`,
  },
  'invoice export': {
    ...command(
      'invoice export ID --format pdf|xrechnung-ubl|xrechnung-cii|peppol [--credit-note] --out FILE',
      "Write an invoice's document (or, with --credit-note, its credit note's), made from the invoice as stored, into FILE.",
      { format: str, 'credit-note': flag, out: str },
      1,
      (v, p, s) => exportDocument(s, p[0] as string, required(v, 'format'), required(v, 'out'), v['credit-note'] === true),
      undefined,
      [
        'Formats:',
        '  pdf             the invoice to read (A4), a Factur-X / ZUGFeRD EN 16931 PDF/A-3b with its XML attached; a draft says DRAFT',
        '  xrechnung-ubl   XRechnung 3.0 as UBL 2.1 (German public bodies: the Leitweg-ID as the buyer reference)',
        '  xrechnung-cii   XRechnung 3.0 as CII D16B',
        '  peppol          Peppol BIS Billing 3.0 (UBL)',
        'A format whose required values the invoice lacks is not written: each is named with its EN 16931 number and where to set it.',
        'FILE is written whole or not at all (a temporary file beside it, then renamed); an existing FILE is replaced.',
      ].join('\n'),
    ),
    human: (result) =>
      `wrote ${String(result.file)} (${String(result.bytes)} bytes): ${result.creditNote ? 'the credit note' : 'invoice'} ${String(result.number ?? '(draft)')} as ${String(result.format)}\n`,
  },
};
