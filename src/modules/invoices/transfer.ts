import type { Clock } from '../../clock.js';
import { recordOfRow, rowOfRecord } from '../../db/records.js';
import { DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { DomainEvent, EventActor } from '../events/service.js';
import type { InvoicePorts } from './ports.js';
import type { InvoicesRepository } from './repository.js';
import { invoiceSends, invoices, invoiceSettings } from './schema.js';
import { ISSUER_FIELDS } from './fields.js';
import { checkSetting, SETTINGS_KEYS } from './settings.js';
import { view } from './views.js';

/*
 * The invoicing part of a workspace's export (decisions 11a): the issuer profile, the invoicing
 * settings, and every invoice and credit note with its lines, numbers, dates, status, fills and
 * zone. Each travels as a versioned record of its table: the stored row, every column by its
 * schema key but the ids an import gives anew, so a column added to a table later is carried
 * and restored without a change here (src/db/records.ts). An import restores them inside its
 * write: the profile and the settings where the workspace has none of its own, each invoice with
 * its numbers (the series continues after them), its client, author, projects and the members of
 * its fills mapped to the workspace's.
 */

/** The version of the records written here; an import refuses a record of a version it does not know. */
export const INVOICE_RECORD_VERSION = 1;

/** The columns an invoice's record leaves out: the import gives them (its id, workspace, client and author there). */
const INVOICE_IDS = ['id', 'workspaceId', 'clientId', 'createdBy'] as const;

/** The columns a send's record leaves out: the import gives them (its id, workspace, invoice). */
const SEND_IDS = ['id', 'workspaceId', 'invoiceId'] as const;

/** A document number as a record carries it. */
export interface NumberRecord {
  number: string;
  kind: 'invoice' | 'credit_note';
  issueDate: string;
  createdAt: number;
}

/** An invoice as a workspace's export writes it: the record, and the ids it refers to (the export names them). */
export interface ExportedInvoice {
  id: string;
  clientId: string;
  createdBy: string;
  /** The projects of its lines and the members of its fills and sends: the export names them so an import finds the workspace's. */
  projectIds: string[];
  userIds: string[];
  /** Its sends by mail are records of their table (to whom, when, which files, by whom; the mail itself stays with the server that sent it). */
  record: { v: number; row: Record<string, unknown>; numbers: NumberRecord[]; sends?: Array<Record<string, unknown>> };
}

/** What an import resolved an invoice's references to, in the workspace it restores into. */
export interface InvoiceReferences {
  clientId: string;
  createdBy: string;
  /** The project of a line by the exported id (null: none found; the line keeps no project). */
  project: (id: string) => string | null;
  /** The member of a fill or a send by the exported id (null: the invoice's author is named instead). */
  user: (id: string) => string | null;
}

type RecordEvent = (event: DomainEvent) => number;
const refuse = (message: string) => new DomainError('invalid', message);
const jsonOf = <T>(text: unknown, fallback: T): T => (typeof text === 'string' ? (JSON.parse(text) as T) : fallback);

/**
 * Checks an invoice record as a file carries it, before anything is written (the import's check
 * pass names the row): its version, its row's columns by the table's types, its numbers, and the
 * JSON of its parts. Returns the names of columns this version does not know (left out).
 */
export function checkInvoiceRecord(data: unknown): string[] {
  const record = data as { v?: unknown; row?: unknown; numbers?: unknown; sends?: unknown };
  if (record?.v !== INVOICE_RECORD_VERSION)
    throw refuse(
      `an invoice record of version ${JSON.stringify(record?.v)}; this version of timetrack reads version ${INVOICE_RECORD_VERSION}`,
    );
  if (typeof record.row !== 'object' || record.row === null) throw refuse('the invoice record has no row');
  let unknown: string[];
  try {
    ({ unknown } = rowOfRecord(invoices, record.row as Record<string, unknown>, INVOICE_IDS));
    const row = record.row as Record<string, unknown>;
    for (const key of ['issuer', 'recipient', 'lines', 'extras', 'einvoiceFills']) if (typeof row[key] === 'string') JSON.parse(row[key]);
    if (!Array.isArray(jsonOf(row.lines, null))) throw new Error('lines is not a list');
  } catch (error) {
    throw refuse(`the invoice record's ${(error as Error).message}`);
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
    throw refuse("the invoice record's numbers must be a list of {number, kind: invoice or credit_note, issueDate, createdAt}");
  if (record.sends !== undefined) {
    if (!Array.isArray(record.sends)) throw refuse("the invoice record's sends must be a list");
    for (const send of record.sends as unknown[]) {
      if (typeof send !== 'object' || send === null) throw refuse("the invoice record's sends must be a list of objects");
      try {
        const read = rowOfRecord(invoiceSends, send as Record<string, unknown>, SEND_IDS);
        JSON.parse(read.values.files as string);
        unknown.push(...read.unknown.map((key) => `sends.${key}`));
      } catch (error) {
        throw refuse(`the invoice record's send: ${(error as Error).message}`);
      }
    }
  }
  return [...new Set(unknown)];
}

/**
 * Checks the issuer profile of a file (its record's version and the type of each field: the
 * profile's kinds, fields of a newer version as plain values), before anything is written. The
 * values themselves are restored as they were stored (a value saved before a check existed comes
 * back as it was, as it reads and invoices here).
 */
export function checkProfileRecord(data: unknown): Record<string, unknown> {
  const record = data as { v?: unknown; profile?: unknown };
  if (record?.v !== INVOICE_RECORD_VERSION)
    throw refuse(
      `a profile record of version ${JSON.stringify(record?.v)}; this version of timetrack reads version ${INVOICE_RECORD_VERSION}`,
    );
  if (typeof record.profile !== 'object' || record.profile === null || Array.isArray(record.profile))
    throw refuse('the profile record has no profile object');
  for (const [field, value] of Object.entries(record.profile)) {
    const kind = (ISSUER_FIELDS as Record<string, string>)[field];
    const ok =
      kind === 'lines'
        ? Array.isArray(value) && value.every((line) => typeof line === 'string')
        : kind === 'days'
          ? Number.isInteger(value)
          : kind === 'boolean'
            ? typeof value === 'boolean'
            : kind !== undefined
              ? typeof value === 'string'
              : value === null || ['string', 'number', 'boolean'].includes(typeof value);
    if (!ok) throw refuse(`the profile's ${field} is ${JSON.stringify(value)}, not a value of its kind`);
  }
  return record.profile as Record<string, unknown>;
}

/** Checks the invoicing settings of a file before anything is written: its version and each setting as `--set` checks it. */
export function checkSettingsRecord(data: unknown): Record<string, unknown> {
  const record = data as { v?: unknown; settings?: unknown };
  if (record?.v !== INVOICE_RECORD_VERSION)
    throw refuse(
      `a settings record of version ${JSON.stringify(record?.v)}; this version of timetrack reads version ${INVOICE_RECORD_VERSION}`,
    );
  if (typeof record.settings !== 'object' || record.settings === null) throw refuse('the settings record has no settings object');
  const settings = record.settings as Record<string, unknown>;
  try {
    rowOfRecord(invoiceSettings, settings, ['workspaceId', 'updatedAt']);
  } catch (error) {
    throw refuse(`the invoicing settings' ${(error as Error).message}`);
  }
  for (const key of SETTINGS_KEYS) if (Object.hasOwn(settings, key)) checkSetting(key, settings[key]);
  return settings;
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
          return {
            id: row.id,
            clientId: row.clientId,
            createdBy: row.createdBy,
            projectIds: [...new Set(lines.flatMap((l) => (typeof l.projectId === 'string' ? [l.projectId] : [])))],
            userIds: [...new Set([...fills.flatMap((f) => (typeof f.by === 'string' ? [f.by] : [])), ...sends.map((x) => x.sentBy)])],
            record: {
              v: INVOICE_RECORD_VERSION,
              row: recordOfRow(row, INVOICE_IDS),
              numbers: numbers.get(row.id) ?? [],
              sends: sends.map((x) => recordOfRow(x, SEND_IDS)),
            },
          };
        });
    },

    /** Whether a number is taken in the workspace (an import's check pass refuses such a record). */
    numberTaken: (workspaceId: string, number: string): boolean => repo.numberTaken(workspaceId, number),

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
     * Restores an invoice of a file inside the caller's write (checked by checkInvoiceRecord): a
     * new id, the workspace's client, author, projects and members in place of the file's, its
     * numbers recorded in the workspace's register (refused when one is taken there), and its
     * sync event (webhooks only when the import sends them). Its new id.
     */
    restoreInvoice(
      record: RecordEvent,
      context: { workspaceId: string; actor: EventActor; webhooks: boolean },
      data: ExportedInvoice['record'],
      refs: InvoiceReferences,
    ): string {
      const { workspaceId } = context;
      const { values } = rowOfRecord(invoices, data.row, INVOICE_IDS);
      for (const n of data.numbers)
        if (repo.numberTaken(workspaceId, n.number))
          throw refuse(`the number ${n.number} is taken in this workspace: restore invoices into a workspace that has issued none`);
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
      for (const send of data.sends ?? []) {
        const { values: sent } = rowOfRecord(invoiceSends, send, SEND_IDS);
        const by = refs.user(sent.sentBy as string) ?? refs.createdBy;
        repo.insertSend({
          ...(sent as Omit<typeof invoiceSends.$inferInsert, (typeof SEND_IDS)[number]>),
          id: newId('isnd'),
          workspaceId,
          invoiceId: id,
          sentBy: by,
        });
      }
      record({
        workspaceId,
        entity: 'invoice',
        entityId: id,
        operation: 'create',
        event: 'invoice.created',
        actor: context.actor,
        payload: { invoice: view(row) },
        webhooks: context.webhooks,
      });
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
