import type { Clock } from '../../clock.js';
import { recordOfRow, rowOfRecord } from '../../db/records.js';
import { DomainError } from '../../errors.js';
import { type Key, type Words, words } from '../../i18n/index.js';
import { newId } from '../../ids.js';
import type { DomainEvent, EventActor } from '../events/service.js';
import type { InvoicePorts } from './ports.js';
import type { InvoicesRepository } from './repository.js';
import { invoicePayments, invoiceReminders, invoiceSends, invoices, invoiceSettings } from './schema.js';
import { checkElectronicAddress, checkValue, ISSUER_FIELDS, type IssuerField } from './fields.js';
import { checkRestorable, createSeriesCheck, latestDayAt, type NumberRecord } from './restore.js';
import { recordVersionRefusal, requireSafeValue } from '../../kernel/input.js';
import { DEFAULT_SETTINGS } from './settings.js';
import { checkSetting, SETTINGS_KEYS } from './settings.js';
import { recordCreated } from './moves.js';

/*
 * The invoicing part of a workspace's export (decisions 11a): the issuer profile, the invoicing
 * settings, and every invoice and credit note with its lines, numbers, dates, status, fills and
 * zone. Each travels as a versioned record of its table: the stored row, every column by its
 * schema key but the ids an import gives anew, so a column added to a table later is carried
 * and restored without a change here (src/db/records.ts). An import restores them inside its
 * write: the profile and the settings where the workspace has none of its own, each invoice with
 * its numbers (the series continues after them), its client, author, projects and the members of
 * its fills mapped to the workspace's. Only what this module would have written itself comes
 * back (issue 54 N3): the profile by the checks of its fields, each invoice by the rules of an
 * issued one and the file's series whole and without a gap (restore.ts).
 */

/** The version of the records written here; an import refuses a record of a version it does not know. */
export const INVOICE_RECORD_VERSION = 1;

/** The columns an invoice's record leaves out: the import gives them (its id, workspace, client and author there). */
const INVOICE_IDS = ['id', 'workspaceId', 'clientId', 'createdBy'] as const;

/** The columns a send's record leaves out: the import gives them (its id, workspace, invoice). */
const SEND_IDS = ['id', 'workspaceId', 'invoiceId'] as const;

/** The columns a payment's record leaves out: the import gives them (its id, workspace, invoice). */
const PAYMENT_IDS = ['id', 'workspaceId', 'invoiceId'] as const;

/** The columns a payment reminder's record leaves out: the import gives them (its id, workspace, invoice). */
const REMINDER_IDS = ['id', 'workspaceId', 'invoiceId'] as const;

export type { NumberRecord } from './restore.js';

/** An invoice as a workspace's export writes it: the record, and the ids it refers to (the export names them). */
export interface ExportedInvoice {
  id: string;
  clientId: string;
  createdBy: string;
  /** The projects of its lines and the members of its fills, sends and payments: the export names them so an import finds the workspace's. */
  projectIds: string[];
  userIds: string[];
  /**
   * Its sends by mail are records of their table (to whom, when, which files, by whom; the mail
   * itself stays with the server that sent it), and so are its payments and its payment reminders
   * (issue 57: a restored overdue invoice is not reminded again at a level it has reached).
   */
  record: {
    v: number;
    row: Record<string, unknown>;
    numbers: NumberRecord[];
    sends?: Array<Record<string, unknown>>;
    payments?: Array<Record<string, unknown>>;
    reminders?: Array<Record<string, unknown>>;
  };
}

/** What an import resolved an invoice's references to, in the workspace it restores into. */
export interface InvoiceReferences {
  clientId: string;
  createdBy: string;
  /** The project of a line by the exported id (null: none found; the line keeps no project). */
  project: (id: string) => string | null;
  /** The member of a fill, a send or a payment by the exported id (null: the invoice's author is named instead). */
  user: (id: string) => string | null;
}

type RecordEvent = (event: DomainEvent) => number;

/**
 * The mail id a restored send keeps (issue 54 N3): its message is in the mail log of the server
 * that sent it, not this one's, so the id is marked and can never name (and show the delivery of)
 * a message this server sent.
 */
export const RESTORED_MAIL = 'restored:';
const restoredMailId = (id: string): string => (id.startsWith(RESTORED_MAIL) ? id : `${RESTORED_MAIL}${id}`);
/** A record refused: the message for the command line and the API, its words for people by key (the Import page). */
const refuse = (message: string, said: Words) => new DomainError('invalid', message, { words: said });
/**
 * The words of a record's part refused by another check (a column by the table's types, a JSON
 * text): `key` says the part around that check's own words (`{{detail, words}}`), `key` + `Json`
 * that its text `name` is no JSON (a parser's own message is not said to people).
 */
const partWords = (key: keyof typeof JSON_KEYS, error: unknown, vars: Record<string, string> = {}, name = ''): Words =>
  error instanceof DomainError && error.words !== undefined
    ? words(key, { ...error.words.vars, ...vars, detail: error.words.key })
    : words(JSON_KEYS[key], { ...vars, name });
/** A part's text that is no JSON, by the part's key. */
const JSON_KEYS = {
  'integrations.imports.records.row': 'integrations.imports.records.rowJson',
  'integrations.imports.records.item': 'integrations.imports.records.itemJson',
  'integrations.imports.records.settings': 'integrations.imports.records.settingsJson',
} as const satisfies Record<string, Key>;
/** An invoice record's item, by key. */
const ITEMS = {
  send: 'integrations.imports.records.items.send',
  payment: 'integrations.imports.records.items.payment',
  reminder: 'integrations.imports.records.items.reminder',
} as const satisfies Record<string, Key>;
const jsonOf = <T>(text: unknown, fallback: T): T => (typeof text === 'string' ? (JSON.parse(text) as T) : fallback);

/**
 * Checks an invoice record as a file carries it, before anything is written (the import's check
 * pass names the row): its version, its row's columns by the table's types, its numbers, and the
 * JSON of its parts. Returns the names of columns this version does not know (left out).
 */
export function checkInvoiceRecord(data: unknown): string[] {
  // A part of the record refused: not a list, not a list of objects, or an item by its table's types (and its files' JSON).
  const list = (part: string) => words('integrations.imports.records.list', { part });
  const objects = (part: string) => words('integrations.imports.records.objects', { part });
  const item = (name: 'send' | 'payment' | 'reminder', error: unknown) =>
    partWords('integrations.imports.records.item', error, { item: ITEMS[name] }, 'files');
  const record = data as { v?: unknown; row?: unknown; numbers?: unknown; sends?: unknown; payments?: unknown; reminders?: unknown };
  if (record?.v !== INVOICE_RECORD_VERSION) throw recordVersionRefusal('invoice', record?.v);
  if (typeof record.row !== 'object' || record.row === null)
    throw refuse('the invoice record has no row', words('integrations.imports.records.noRow'));
  let unknown: string[];
  let parsing = '';
  try {
    ({ unknown } = rowOfRecord(invoices, record.row as Record<string, unknown>, INVOICE_IDS));
    const row = record.row as Record<string, unknown>;
    for (const key of ['issuer', 'recipient', 'lines', 'extras', 'einvoiceFills'])
      if (typeof row[key] === 'string') {
        parsing = key;
        JSON.parse(row[key]);
      }
    if (!Array.isArray(jsonOf(row.lines, null)))
      throw new DomainError('invalid', 'lines is not a list', { words: words('integrations.imports.records.linesNotList') });
  } catch (error) {
    throw refuse(`the invoice record's ${(error as Error).message}`, partWords('integrations.imports.records.row', error, {}, parsing));
  }
  const numbers = record.numbers;
  if (
    !Array.isArray(numbers) ||
    !numbers.every(
      (n: NumberRecord) =>
        typeof n?.number === 'string' &&
        (n.kind === 'invoice' || n.kind === 'credit_note') &&
        /^\d{4}-\d{2}-\d{2}$/.test(n.issueDate) &&
        Number.isInteger(n.createdAt),
    )
  )
    throw refuse(
      "the invoice record's numbers must be a list of {number, kind: invoice or credit_note, issueDate, createdAt}",
      words('integrations.imports.records.numbers'),
    );
  if (record.sends !== undefined) {
    if (!Array.isArray(record.sends)) throw refuse("the invoice record's sends must be a list", list('sends'));
    for (const send of record.sends as unknown[]) {
      if (typeof send !== 'object' || send === null) throw refuse("the invoice record's sends must be a list of objects", objects('sends'));
      try {
        const read = rowOfRecord(invoiceSends, send as Record<string, unknown>, SEND_IDS);
        JSON.parse(read.values.files as string);
        unknown.push(...read.unknown.map((key) => `sends.${key}`));
      } catch (error) {
        throw refuse(`the invoice record's send: ${(error as Error).message}`, item('send', error));
      }
    }
  }
  if (record.payments !== undefined) {
    if (!Array.isArray(record.payments)) throw refuse("the invoice record's payments must be a list", list('payments'));
    for (const payment of record.payments as unknown[]) {
      if (typeof payment !== 'object' || payment === null)
        throw refuse("the invoice record's payments must be a list of objects", objects('payments'));
      try {
        const read = rowOfRecord(invoicePayments, payment as Record<string, unknown>, PAYMENT_IDS);
        unknown.push(...read.unknown.map((key) => `payments.${key}`));
      } catch (error) {
        throw refuse(`the invoice record's payment: ${(error as Error).message}`, item('payment', error));
      }
    }
  }
  if (record.reminders !== undefined) {
    if (!Array.isArray(record.reminders)) throw refuse("the invoice record's reminders must be a list", list('reminders'));
    for (const reminder of record.reminders as unknown[]) {
      if (typeof reminder !== 'object' || reminder === null)
        throw refuse("the invoice record's reminders must be a list of objects", objects('reminders'));
      // A reminder is its invoice's, in that invoice's record: one that names an invoice (or ids of its own) is not an export's.
      const named = REMINDER_IDS.filter((key) => Object.hasOwn(reminder, key));
      if (named.length > 0) {
        const names = named.map((key) => `${key} ${JSON.stringify((reminder as Record<string, unknown>)[key])}`).join(', ');
        throw refuse(
          `the invoice record's reminder names ${names}: a reminder is its invoice's, in that invoice's record, and an export names no invoice of its own in it`,
          words('integrations.imports.records.reminderNames', { names }),
        );
      }
      try {
        const read = rowOfRecord(invoiceReminders, reminder as Record<string, unknown>, REMINDER_IDS);
        JSON.parse(read.values.files as string);
        unknown.push(...read.unknown.map((key) => `reminders.${key}`));
      } catch (error) {
        throw refuse(`the invoice record's reminder: ${(error as Error).message}`, item('reminder', error));
      }
    }
  }
  return [...new Set(unknown)];
}

/**
 * Checks the issuer profile of a file (its record's version, and each field as the Workspace page,
 * the command line and the API check it: its kind, IBAN, BIC, VAT id, ICD code, currency, the
 * electronic address by its scheme, the one text rule: issue 54 N3), before anything is written.
 * Fields of a newer version are kept as plain values that follow the text rule. Returns the
 * profile as it will be stored (each value as the checks give it back; null ones left out).
 */
export function checkProfileRecord(data: unknown): Record<string, unknown> {
  const record = data as { v?: unknown; profile?: unknown };
  if (record?.v !== INVOICE_RECORD_VERSION) throw recordVersionRefusal('profile', record?.v);
  if (typeof record.profile !== 'object' || record.profile === null || Array.isArray(record.profile))
    throw refuse('the profile record has no profile object', words('integrations.imports.records.noObject', { record: 'profile' }));
  try {
    return profileOf(record.profile as Record<string, unknown>);
  } catch (error) {
    // Its words for people where it has them (the Import page says them in its reader's language).
    if (error instanceof DomainError)
      throw new DomainError('invalid', `the issuer profile: ${error.message}`, error.words === undefined ? {} : { words: error.words });
    throw error;
  }
}

function profileOf(given: Record<string, unknown>): Record<string, unknown> {
  const profile: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(given)) {
    if (value === null) continue;
    const kind = (ISSUER_FIELDS as Record<string, string>)[field];
    if (kind === undefined) {
      if (!['string', 'number', 'boolean'].includes(typeof value))
        throw refuse(
          `${field} is ${JSON.stringify(value)}, not a value of its kind`,
          words('integrations.imports.records.notOfKind', { name: field, got: String(JSON.stringify(value)) }),
        );
      requireSafeValue(value, field, field);
      profile[field] = value;
      continue;
    }
    const checked = checkValue(ISSUER_FIELDS[field as IssuerField], value, field);
    if (checked !== null) profile[field] = checked;
  }
  checkElectronicAddress(profile, ['electronicAddress']);
  return profile;
}

/** Checks the invoicing settings of a file before anything is written: its version and each setting as `--set` checks it. */
export function checkSettingsRecord(data: unknown): Record<string, unknown> {
  const record = data as { v?: unknown; settings?: unknown };
  if (record?.v !== INVOICE_RECORD_VERSION) throw recordVersionRefusal('settings', record?.v);
  if (typeof record.settings !== 'object' || record.settings === null)
    throw refuse('the settings record has no settings object', words('integrations.imports.records.noObject', { record: 'settings' }));
  const settings = record.settings as Record<string, unknown>;
  try {
    rowOfRecord(invoiceSettings, settings, ['workspaceId', 'updatedAt']);
  } catch (error) {
    throw refuse(`the invoicing settings' ${(error as Error).message}`, partWords('integrations.imports.records.settings', error));
  }
  for (const key of SETTINGS_KEYS) if (Object.hasOwn(settings, key)) checkSetting(key, settings[key]);
  return settings;
}

/** A record's payments as the values of their table. */
const paymentsOf = (data: ExportedInvoice['record']) =>
  (data.payments ?? []).map((payment) => rowOfRecord(invoicePayments, payment, PAYMENT_IDS).values);
/** A record's payment reminders as the values of their table. */
const remindersOf = (data: ExportedInvoice['record']) =>
  (data.reminders ?? []).map((reminder) => rowOfRecord(invoiceReminders, reminder, REMINDER_IDS).values);

/** What the rules of a restored invoice read: the latest day anywhere, the clock, the mail module's address check. */
const restoreContext = (ports: InvoicePorts, clock: Clock) => ({
  today: latestDayAt(clock.now()),
  now: clock.now(),
  deliverable: (address: string) => ports.mail.deliverable(address),
});

/**
 * The check of a file's invoices before anything is written (issue 54 N3: a restored invoice
 * follows the rules of an issued one; restore.ts): `invoice` checks one record by the rules of
 * an issued invoice and its numbers against the workspace and the file so far, throwing a
 * refusal that names the invoice and the rule; `refused` counts one its caller refused for
 * its own reason; `finish`, once every record is read, gives the refusals of the file's series
 * (a gap under the file's number pattern, or a numbered invoice refused: they are restored
 * together), by the caller's key.
 */
export function restoreCheckOf(
  { repo, ports, clock }: { repo: InvoicesRepository; ports: InvoicePorts; clock: Clock },
  workspaceId: string,
) {
  const register = repo.numbersOf(workspaceId).map((n) => n.number);
  const invoicesHere = new Map<string, string>();
  for (const row of repo.list(workspaceId, {})) {
    if (row.number !== null) invoicesHere.set(row.number, `invoice ${row.id}`);
    if (row.creditNoteNumber !== null) invoicesHere.set(row.creditNoteNumber, `the credit note of invoice ${row.id}`);
  }
  const series = createSeriesCheck({ register, invoices: invoicesHere });
  const context = () => restoreContext(ports, clock);
  const partsOf = (data: ExportedInvoice['record']) => ({
    values: rowOfRecord(invoices, data.row, INVOICE_IDS).values,
    sends: (data.sends ?? []).map((send) => rowOfRecord(invoiceSends, send, SEND_IDS).values),
    payments: paymentsOf(data),
    reminders: remindersOf(data),
  });
  return {
    invoice(key: number, data: ExportedInvoice['record']): void {
      const { values, sends, payments, reminders } = partsOf(data);
      try {
        checkRestorable(values, data.numbers, sends, context(), payments, reminders);
      } catch (error) {
        series.refused(values, data.numbers);
        throw error;
      }
      series.add(key, values, data.numbers);
    },
    refused: (data: ExportedInvoice['record']): void => series.refused(partsOf(data).values, data.numbers),
    /** `pattern`: the number pattern of the file's invoicing settings (null: the file has none, so the default's). */
    finish: (pattern: string | null) => series.finish(pattern ?? DEFAULT_SETTINGS.numberPattern),
  };
}

/**
 * A restored invoice's sends by mail (their messages marked restored: the mail itself stays with
 * the server that sent it) and payments, each with a new id and the workspace's member in place
 * of the file's (its author when none is found), inside the restore's write.
 */
function restoreParts(
  repo: InvoicesRepository,
  into: { workspaceId: string; invoiceId: string },
  sent: ReadonlyArray<Record<string, unknown>>,
  payments: ReadonlyArray<Record<string, unknown>>,
  reminders: ReadonlyArray<Record<string, unknown>>,
  refs: InvoiceReferences,
): void {
  // A part's own ids: new, in this workspace, of this invoice.
  const ids = (prefix: string) => ({ id: newId(prefix), ...into });
  for (const send of sent)
    repo.insertSend({
      ...(send as Omit<typeof invoiceSends.$inferInsert, (typeof SEND_IDS)[number]>),
      ...ids('isnd'),
      sentBy: refs.user(send.sentBy as string) ?? refs.createdBy,
      mailId: restoredMailId(send.mailId as string),
    });
  for (const payment of payments)
    repo.insertPayment({
      ...(payment as Omit<typeof invoicePayments.$inferInsert, (typeof PAYMENT_IDS)[number]>),
      ...ids('ipay'),
      recordedBy: refs.user(payment.recordedBy as string) ?? refs.createdBy,
    });
  for (const reminder of reminders)
    repo.insertReminder({
      ...(reminder as Omit<typeof invoiceReminders.$inferInsert, (typeof REMINDER_IDS)[number]>),
      ...ids('irem'),
      mailId: restoredMailId(reminder.mailId as string),
    });
}

/** The invoicing records of a workspace, for its export, and their restore, for an import. */
export function createInvoiceTransfer({ repo, ports, clock }: { repo: InvoicesRepository; ports: InvoicePorts; clock: Clock }) {
  return {
    /** The issuer profile as stored (every field, those added later too), or null. */
    exportProfile: (workspaceId: string): Record<string, unknown> | null => ports.businessProfile(workspaceId),

    /** The invoicing settings as stored (every column but the workspace), or null when the workspace has none of its own. */
    exportSettings(workspaceId: string): Record<string, unknown> | null {
      const row = repo.settings(workspaceId);
      return row === undefined ? null : recordOfRow(row, ['workspaceId', 'updatedAt']);
    },

    /** Every invoice of the workspace, oldest first, each with its numbers and the ids it refers to. */
    exportInvoices(workspaceId: string): ExportedInvoice[] {
      const numbers = new Map<string, NumberRecord[]>();
      for (const n of repo.numbersOf(workspaceId)) {
        const list = numbers.get(n.invoiceId) ?? [];
        list.push({ number: n.number, kind: n.kind, issueDate: n.issueDate, createdAt: n.createdAt });
        numbers.set(n.invoiceId, list);
      }
      return repo
        .list(workspaceId, {})
        .reverse()
        .map((row) => {
          const lines = jsonOf<Array<{ projectId?: string | null }>>(row.lines, []);
          const fills = jsonOf<Array<{ by?: string }>>(row.einvoiceFills, []);
          const sends = repo.sends(row.id);
          const payments = repo.payments(row.id);
          const reminders = repo.reminders(row.id);
          return {
            id: row.id,
            clientId: row.clientId,
            createdBy: row.createdBy,
            projectIds: [...new Set(lines.flatMap((l) => (typeof l.projectId === 'string' ? [l.projectId] : [])))],
            userIds: [
              ...new Set([
                ...fills.flatMap((f) => (typeof f.by === 'string' ? [f.by] : [])),
                ...sends.map((x) => x.sentBy),
                ...payments.map((x) => x.recordedBy),
              ]),
            ],
            record: {
              v: INVOICE_RECORD_VERSION,
              row: recordOfRow(row, INVOICE_IDS),
              numbers: numbers.get(row.id) ?? [],
              sends: sends.map((x) => recordOfRow(x, SEND_IDS)),
              payments: payments.map((x) => recordOfRow(x, PAYMENT_IDS)),
              reminders: reminders.map((x) => recordOfRow(x, REMINDER_IDS)),
            },
          };
        });
    },

    /** Whether a number is taken in the workspace (an import's check pass refuses such a record). */
    numberTaken: (workspaceId: string, number: string): boolean => repo.numberTaken(workspaceId, number),

    /** The check of a file's invoices before anything is written (issue 54 N3): `restoreCheckOf`. */
    restoreCheck: (workspaceId: string) => restoreCheckOf({ repo, ports, clock }, workspaceId),

    /**
     * The numbers of the workspace's register, oldest first, each with its invoice. An import
     * restores numbered invoices only into a workspace whose register is empty (its series then
     * goes on from the file's numbers, without a gap or a repeat); its undo is refused once a
     * number was given after them.
     */
    numbersOf: (workspaceId: string): Array<{ number: string; invoiceId: string }> =>
      repo.numbersOf(workspaceId).map((n) => ({ number: n.number, invoiceId: n.invoiceId })),

    /** Whether the workspace has an issuer profile and invoicing settings of its own (an import keeps them). */
    hasOwn: (workspaceId: string): { profile: boolean; invoicing: boolean } => ({
      profile: ports.businessProfile(workspaceId) !== null,
      invoicing: repo.settings(workspaceId) !== undefined,
    }),

    /** Sets the issuer profile from a file, inside the caller's write, when the workspace has none; whether it did. */
    restoreProfile(workspaceId: string, profile: Record<string, unknown>): boolean {
      if (ports.businessProfile(workspaceId) !== null || Object.keys(profile).length === 0) return false;
      ports.storeBusinessProfile(workspaceId, profile);
      return true;
    },

    /**
     * Sets the invoicing settings from a file, inside the caller's write, when the workspace has
     * none of its own; each setting checked as `workspace invoicing --set` checks it, columns this
     * version has beyond the settings taken as the table types them. Whether it did.
     */
    restoreSettings(workspaceId: string, settings: Record<string, unknown>): boolean {
      if (repo.settings(workspaceId) !== undefined) return false;
      const { values } = rowOfRecord(invoiceSettings, settings, ['workspaceId', 'updatedAt']);
      for (const key of SETTINGS_KEYS) if (Object.hasOwn(values, key)) values[key] = checkSetting(key, values[key]) ?? values[key];
      repo.storeSettings({ ...(values as typeof invoiceSettings.$inferInsert), workspaceId, updatedAt: clock.now() });
      return true;
    },

    /**
     * Restores an invoice of a file inside the caller's write (checked by checkInvoiceRecord and
     * restoreCheck): the rules of an issued invoice once more (refused when one breaks), a new id,
     * the workspace's client, author, projects and members in place of the file's, its numbers
     * recorded in the workspace's register (refused when one is taken there), its sends with their
     * mail marked restored, its payments, and its sync event (webhooks only when the import sends them). Its new id.
     */
    restoreInvoice(
      record: RecordEvent,
      context: { workspaceId: string; actor: EventActor; webhooks: boolean },
      data: ExportedInvoice['record'],
      refs: InvoiceReferences,
    ): string {
      const { workspaceId } = context;
      const { values } = rowOfRecord(invoices, data.row, INVOICE_IDS);
      const sent = (data.sends ?? []).map((send) => rowOfRecord(invoiceSends, send, SEND_IDS).values);
      const payments = paymentsOf(data);
      const reminders = remindersOf(data);
      // The rules of an issued invoice once more, inside the write (the check pass ran them, and its series too).
      checkRestorable(values, data.numbers, sent, restoreContext(ports, clock), payments, reminders);
      for (const n of data.numbers)
        if (repo.numberTaken(workspaceId, n.number))
          throw refuse(
            `the number ${n.number} is taken in this workspace: restore invoices into a workspace that has issued none`,
            words('integrations.imports.records.numberTaken', { number: n.number }),
          );
      const lines = jsonOf<Array<Record<string, unknown>>>(values.lines, []).map((line) =>
        typeof line.projectId === 'string' ? { ...line, projectId: refs.project(line.projectId) } : line,
      );
      const fills = jsonOf<Array<Record<string, unknown>>>(values.einvoiceFills, []).map((fill) =>
        typeof fill.by === 'string' ? { ...fill, by: refs.user(fill.by) ?? refs.createdBy } : fill,
      );
      const id = newId('inv');
      const row = repo.insert({
        ...(values as Omit<typeof invoices.$inferInsert, (typeof INVOICE_IDS)[number]>),
        id,
        workspaceId,
        clientId: refs.clientId,
        createdBy: refs.createdBy,
        lines: JSON.stringify(lines),
        ...(values.einvoiceFills === undefined ? {} : { einvoiceFills: JSON.stringify(fills) }),
      });
      for (const n of data.numbers) repo.insertNumber({ workspaceId, invoiceId: id, ...n });
      restoreParts(repo, { workspaceId, invoiceId: id }, sent, payments, reminders, refs);
      recordCreated(record, row, context.actor, context.webhooks);
      return id;
    },

    /** Deletes invoices an import restored, their numbers and sends (its undo), inside the caller's write, each with its sync event. */
    deleteRestored(record: RecordEvent, workspaceId: string, actor: EventActor, ids: readonly string[]): void {
      for (const id of ids) {
        if (!repo.invoice(id)) continue;
        repo.deleteRestored(id);
        record({ workspaceId, entity: 'invoice', entityId: id, operation: 'delete', event: null, actor, payload: { id }, webhooks: false });
      }
    },
  };
}

export type InvoiceTransfer = ReturnType<typeof createInvoiceTransfer>;
