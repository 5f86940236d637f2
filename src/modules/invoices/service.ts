import { and, asc, eq, gte, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import { type Clock, toIso } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { members, workspaces } from '../accounts/schema.js';
import { clients, projects } from '../catalog/schema.js';
import { entries } from '../entries/schema.js';
import type { EventLog } from '../events/service.js';
import { invoices } from './schema.js';

type Schemas = components['schemas'];
export type InvoiceView = Schemas['Invoice'];
export type InvoiceStatus = Schemas['InvoiceStatus'];
type InvoiceRow = typeof invoices.$inferSelect;

/** How a text value given for a field is read (a blank value is null for every kind). */
type Kind = 'text' | 'lines' | 'country' | 'email' | 'days' | 'boolean' | 'percent';
type Fields = Record<string, Kind>;

const ISSUER_FIELDS = {
  legalName: 'text',
  addressLines: 'lines',
  postalCode: 'text',
  city: 'text',
  country: 'country',
  taxId: 'text',
  email: 'email',
  phone: 'text',
  website: 'text',
  paymentDetails: 'text',
  paymentTermsDays: 'days',
  invoiceFooter: 'text',
  vatId: 'text',
  taxNumber: 'text',
  registrationNumber: 'text',
  sellerIdentifier: 'text',
  contactName: 'text',
  electronicAddress: 'text',
  electronicAddressScheme: 'text',
  iban: 'text',
  bic: 'text',
  bankName: 'text',
  accountHolder: 'text',
  smallBusiness: 'boolean',
} as const satisfies Record<keyof Schemas['IssuerParty'], Kind>;

const RECIPIENT_FIELDS = {
  name: 'text',
  legalName: 'text',
  addressLines: 'lines',
  postalCode: 'text',
  city: 'text',
  country: 'country',
  taxId: 'text',
  email: 'email',
  reference: 'text',
  vatId: 'text',
  electronicAddress: 'text',
  electronicAddressScheme: 'text',
} as const satisfies Record<keyof Schemas['RecipientParty'], Kind>;

/** draft → sent → paid; draft or sent → void. */
const MOVES: Record<InvoiceStatus, readonly InvoiceStatus[]> = { draft: ['sent', 'void'], sent: ['paid', 'void'], paid: [], void: [] };

const DAY_MS = 86_400_000;
const FILLABLE = 'issuer.<field>, recipient.<field>, lines[N].taxCategory, lines[N].taxRate, paymentTerms';

const invalid = (message: string) => new DomainError('invalid', message);
/** A JSON column value; null stays SQL NULL. */
const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/** Reads a field's text value by its kind; blank is null. */
function parseValue(kind: Kind, raw: string, what: string): unknown {
  const text = raw.trim();
  if (text === '') return null;
  const bad = (expected: string) => invalid(`${what} must be ${expected} (got ${JSON.stringify(raw)}).`);
  switch (kind) {
    case 'lines': {
      const lines = text
        .split('|')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      if (lines.length > 6 || lines.some((line) => line.length > 200))
        throw bad('at most 6 lines separated by |, each at most 200 characters');
      return lines.length === 0 ? null : lines;
    }
    case 'country':
      if (!/^[A-Z]{2}$/.test(text)) throw bad('an ISO 3166-1 alpha-2 code such as DE');
      return text;
    case 'email':
      if (text.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(text)) throw bad('an email address');
      return text;
    case 'days':
      if (!/^\d{1,3}$/.test(text) || Number(text) > 365) throw bad('a whole number of days from 0 to 365');
      return Number(text);
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw bad('true or false');
      return text === 'true';
    case 'percent':
      if (!/^\d{1,3}(\.\d+)?$/.test(text) || Number(text) > 100) throw bad('a percentage from 0 to 100');
      return Number(text);
    case 'text':
      if (text.length > 500) throw bad('at most 500 characters');
      return text;
  }
}

/** A party with every field of `fields`; blank, empty and missing values are null. */
function partyOf<T>(fields: Fields, source: Record<string, unknown>): T {
  const blank = (value: unknown) =>
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0);
  return Object.fromEntries(Object.keys(fields).map((field) => [field, blank(source[field]) ? null : source[field]])) as T;
}

/** A calendar day YYYY-MM-DD as its UTC midnight. */
function dayStart(day: string, what: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms) || toIso(ms).slice(0, 10) !== day)
    throw invalid(`${what} must be a calendar day YYYY-MM-DD (got ${JSON.stringify(day)}).`);
  return ms;
}

/** The editable parts of an invoice, as a fill sees them. */
interface Doc {
  issuer: Record<string, unknown> | null;
  recipient: Record<string, unknown> | null;
  lines: Record<string, unknown>[];
  extras: Record<string, unknown>;
}

/** Where a fill path points: the object, the key and how its value is read. */
function fillSlot(doc: Doc, path: string): { holder: Record<string, unknown>; key: string; kind: Kind } {
  const match = /^(?:(issuer|recipient)\.(\w+)|lines\[(\d+)\]\.(taxCategory|taxRate)|(paymentTerms))$/.exec(path);
  const [, party, field, line, lineKey, invoiceKey] = match ?? [];
  if (party && field) {
    const fields: Fields = party === 'issuer' ? ISSUER_FIELDS : RECIPIENT_FIELDS;
    if (Object.hasOwn(fields, field)) {
      const key = party as 'issuer' | 'recipient';
      const holder = doc[key] ?? partyOf<Record<string, unknown>>(fields, {});
      doc[key] = holder;
      return { holder, key: field, kind: fields[field] as Kind };
    }
  } else if (line !== undefined && lineKey) {
    const holder = doc.lines[Number(line)];
    if (!holder) throw invalid(`${path}: the invoice has ${doc.lines.length} line(s), lines[0] to lines[${doc.lines.length - 1}].`);
    return { holder, key: lineKey, kind: lineKey === 'taxRate' ? 'percent' : 'text' };
  } else if (invoiceKey) {
    return { holder: doc.extras, key: invoiceKey, kind: 'text' };
  }
  throw invalid(
    `${path} cannot be filled: a fill only adds e-invoice values (${FILLABLE}); amounts, quantities, rates, descriptions, totals and the status never change.`,
  );
}

/**
 * Invoices (first-party, CLI). Creation takes a client's billable, completed, un-invoiced entries
 * of a range; parties are copied as they stand; lines and amounts never change afterwards. Every
 * creation and status move records its event (the webhook source) in the write's transaction.
 */
export function createInvoicesService({ db, clock, events }: { db: Db; clock: Clock; events: EventLog }) {
  const write = <T>(body: () => T): T => db.transaction(body, { behavior: 'immediate' });

  function requireMember(workspaceId: string, userId: string): void {
    const member = db
      .select({ userId: members.userId })
      .from(members)
      .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId)))
      .get();
    if (!member) throw notFound(`Member ${userId} of workspace ${workspaceId}`);
  }

  function findInvoice(id: string): InvoiceRow {
    const row = db.select().from(invoices).where(eq(invoices.id, id)).get();
    if (!row) throw notFound(`Invoice ${id}`);
    return row;
  }

  const view = (row: InvoiceRow): InvoiceView => ({
    id: row.id,
    workspaceId: row.workspaceId,
    clientId: row.clientId,
    status: row.status,
    currency: row.currency,
    from: row.fromDay,
    to: row.toDay,
    issuer: JSON.parse(row.issuer ?? 'null'),
    recipient: JSON.parse(row.recipient ?? 'null'),
    lines: JSON.parse(row.lines),
    total: row.totalCents / 100,
    ...(JSON.parse(row.extras) as Pick<InvoiceView, 'taxBreakdown' | 'paymentTerms'>),
    einvoiceFills: JSON.parse(row.einvoiceFills),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  });

  return {
    /** Sets (or, with a blank value, clears) fields of the workspace's business profile, the invoice issuer. */
    setBusinessProfile(workspaceId: string, fields: Record<string, string>): { id: string } {
      return write(() => {
        const workspace = db.select({ profile: workspaces.businessProfile }).from(workspaces).where(eq(workspaces.id, workspaceId)).get();
        if (!workspace) throw notFound(`Workspace ${workspaceId}`);
        const profile = JSON.parse(workspace.profile ?? '{}') as Record<string, unknown>;
        for (const [field, raw] of Object.entries(fields)) {
          if (!Object.hasOwn(ISSUER_FIELDS, field))
            throw invalid(`${field} is not a business profile field; the fields are ${Object.keys(ISSUER_FIELDS).join(', ')}.`);
          const value = parseValue(ISSUER_FIELDS[field as keyof typeof ISSUER_FIELDS], raw, field);
          if (value === null) delete profile[field];
          else profile[field] = value;
        }
        // A profile with every field cleared is no profile: invoices get issuer null.
        const stored = Object.keys(profile).length === 0 ? null : profile;
        db.update(workspaces)
          .set({ businessProfile: json(stored), updatedAt: clock.now() })
          .where(eq(workspaces.id, workspaceId))
          .run();
        return { id: workspaceId };
      });
    },

    /** Invoices a client's billable, completed, un-invoiced entries that start in [from, to] (UTC days). */
    create(input: { workspaceId: string; userId: string; clientId: string; from: string; to: string }): { id: string } {
      const { workspaceId, userId, clientId } = input;
      const fromMs = dayStart(input.from, 'from');
      const toMs = dayStart(input.to, 'to') + DAY_MS;
      if (fromMs >= toMs) throw invalid(`from (${input.from}) must not be after to (${input.to}).`);
      return write(() => {
        const workspace = db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
        if (!workspace) throw notFound(`Workspace ${workspaceId}`);
        requireMember(workspaceId, userId);
        const client = db
          .select()
          .from(clients)
          .where(and(eq(clients.workspaceId, workspaceId), eq(clients.id, clientId)))
          .get();
        if (!client) throw notFound(`Client ${clientId}`);

        const invoiceable = and(
          eq(entries.workspaceId, workspaceId),
          gte(entries.startAt, fromMs),
          lt(entries.startAt, toMs),
          eq(entries.billable, true),
          isNotNull(entries.endAt),
          isNull(entries.invoiceId),
          inArray(
            entries.projectId,
            db
              .select({ id: projects.id })
              .from(projects)
              .where(and(eq(projects.workspaceId, workspaceId), eq(projects.clientId, clientId))),
          ),
        );
        // One line per (project, rate); amounts are summed in cents, so the total is exact.
        const groups = db
          .select({
            projectId: projects.id,
            name: projects.name,
            hourlyRate: entries.hourlyRate,
            quantitySec: sql<number>`sum(${entries.durationSec})`,
            cents: sql<number>`sum(cast(round(ifnull(${entries.amount}, 0) * 100) as integer))`,
          })
          .from(entries)
          .innerJoin(projects, eq(projects.id, entries.projectId))
          .where(invoiceable)
          .groupBy(projects.id, entries.hourlyRate)
          .orderBy(asc(projects.nameKey), asc(projects.id), asc(entries.hourlyRate))
          .all();
        if (groups.length === 0) {
          throw invalid(
            `Client ${clientId} has no billable, un-invoiced, completed entries starting from ${input.from} to ${input.to} (UTC days).`,
          );
        }
        const lines = groups.map((g) => ({
          description: g.name,
          projectId: g.projectId,
          quantitySec: g.quantitySec,
          hourlyRate: g.hourlyRate,
          amount: g.cents / 100,
        }));

        const id = newId('inv');
        const now = clock.now();
        db.update(entries).set({ invoiceId: id }).where(invoiceable).run();
        const row = db
          .insert(invoices)
          .values({
            id,
            workspaceId,
            clientId,
            status: 'draft',
            currency: workspace.currency,
            fromDay: input.from,
            toDay: input.to,
            issuer: json(workspace.businessProfile === null ? null : partyOf(ISSUER_FIELDS, JSON.parse(workspace.businessProfile))),
            recipient: json(partyOf(RECIPIENT_FIELDS, client)),
            lines: JSON.stringify(lines),
            totalCents: groups.reduce((sum, g) => sum + g.cents, 0),
            createdBy: userId,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
        const invoice = view(row);
        events.record(db, {
          workspaceId,
          entity: 'invoice',
          entityId: id,
          operation: 'create',
          event: 'invoice.created',
          actor: { userId, tokenId: null },
          payload: { invoice },
        });
        return { id };
      });
    },

    /** Moves an invoice between statuses; void releases its entries. */
    changeStatus(id: string, to: InvoiceStatus, userId: string): { id: string; from: InvoiceStatus; to: InvoiceStatus } {
      return write(() => {
        const current = findInvoice(id);
        requireMember(current.workspaceId, userId);
        const from = current.status;
        if (!MOVES[from].includes(to)) {
          const allowed =
            MOVES[from].length === 0 ? `a ${from} invoice is final` : `from ${from} it may move to ${MOVES[from].join(' or ')}`;
          throw new DomainError('conflict', `Invoice ${id} cannot move from ${from} to ${to}: ${allowed}.`);
        }
        if (to === 'void') db.update(entries).set({ invoiceId: null }).where(eq(entries.invoiceId, id)).run();
        const row = db
          .update(invoices)
          .set({ status: to, updatedAt: clock.now() })
          .where(eq(invoices.id, id))
          .returning()
          .get() as InvoiceRow;
        events.record(db, {
          workspaceId: row.workspaceId,
          entity: 'invoice',
          entityId: id,
          operation: 'update',
          event: 'invoice.status_changed',
          actor: { userId, tokenId: null },
          payload: { invoice: view(row), from, to },
        });
        return { id, from, to };
      });
    },

    /**
     * An e-invoice fill: adds values that are null or absent (never an amount, never a value
     * already set), all or none. It is recorded in `einvoiceFills`, sends no webhook and records
     * no event: the next status change is the first payload that shows the values.
     */
    fill(id: string, userId: string, assignments: Array<[path: string, value: string]>): { id: string } {
      if (assignments.length === 0) throw invalid('A fill needs at least one path=value.');
      return write(() => {
        const row = findInvoice(id);
        requireMember(row.workspaceId, userId);
        if (row.status === 'void') throw new DomainError('conflict', `Invoice ${id} is void; a void invoice takes no fills.`);
        const doc: Doc = {
          issuer: JSON.parse(row.issuer ?? 'null'),
          recipient: JSON.parse(row.recipient ?? 'null'),
          lines: JSON.parse(row.lines),
          extras: JSON.parse(row.extras),
        };
        const fields: Record<string, unknown> = {};
        for (const [path, raw] of assignments) {
          const { holder, key, kind } = fillSlot(doc, path);
          const current = holder[key];
          if (current !== null && current !== undefined) {
            throw new DomainError(
              'conflict',
              `${path} is already set (${JSON.stringify(current)}); a fill only adds values that are null or absent.`,
            );
          }
          const value = parseValue(kind, raw, path);
          if (value === null) throw invalid(`${path}: a fill adds a value; a blank one adds nothing.`);
          holder[key] = fields[path] = value;
        }
        const now = clock.now();
        const fills = [...(JSON.parse(row.einvoiceFills) as unknown[]), { at: toIso(now), by: userId, fields }];
        db.update(invoices)
          .set({
            issuer: json(doc.issuer),
            recipient: json(doc.recipient),
            lines: JSON.stringify(doc.lines),
            extras: JSON.stringify(doc.extras),
            einvoiceFills: JSON.stringify(fills),
            updatedAt: now,
          })
          .where(eq(invoices.id, id))
          .run();
        return { id };
      });
    },

    get(id: string): InvoiceView {
      return view(findInvoice(id));
    },
  };
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;
