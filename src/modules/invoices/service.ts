import { and, asc, eq, gte, inArray, isNotNull, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { fromCents } from '../../kernel/money.js';
import { dayEnd, dayStart, toIso } from '../../kernel/time.js';
import { members, workspaces } from '../accounts/schema.js';
import { clients, projects } from '../catalog/schema.js';
import { entries } from '../entries/schema.js';
import type { DomainEvent, DomainWrite } from '../events/service.js';
import { applyFill, type Doc, ISSUER_FIELDS, parseValue, partyOf, RECIPIENT_FIELDS } from './fields.js';
import { invoices } from './schema.js';

type Schemas = components['schemas'];
export type InvoiceView = Schemas['Invoice'];
export type InvoiceStatus = Schemas['InvoiceStatus'];
type InvoiceRow = typeof invoices.$inferSelect;

/** draft → sent → paid; draft or sent → void. */
const MOVES: Record<InvoiceStatus, readonly InvoiceStatus[]> = { draft: ['sent', 'void'], sent: ['paid', 'void'], paid: [], void: [] };

const invalid = (message: string) => new DomainError('invalid', message);
/** A JSON column value; null stays SQL NULL. */
const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

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
  total: fromCents(row.totalCents),
  ...(JSON.parse(row.extras) as Pick<InvoiceView, 'taxBreakdown' | 'paymentTerms'>),
  einvoiceFills: JSON.parse(row.einvoiceFills),
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

const invoiceEvent = (
  row: InvoiceRow,
  userId: string,
  event: 'invoice.created' | 'invoice.status_changed',
  payload: unknown,
): DomainEvent => ({
  workspaceId: row.workspaceId,
  entity: 'invoice',
  entityId: row.id,
  operation: event === 'invoice.created' ? 'create' : 'update',
  event,
  actor: { userId, tokenId: null },
  payload,
});

export interface InvoiceInput {
  workspaceId: string;
  userId: string;
  clientId: string;
  from: string;
  to: string;
}

/** One line per (project, rate) of the entries; amounts are summed in cents, so the total is exact. */
function invoiceLines(db: Db, invoiceable: SQL) {
  return db
    .select({
      projectId: projects.id,
      name: projects.name,
      hourlyRate: entries.hourlyRate,
      quantitySec: sql<number>`sum(${entries.durationSec})`,
      cents: sql<number>`sum(ifnull(${entries.amountCents}, 0))`,
    })
    .from(entries)
    .innerJoin(projects, eq(projects.id, entries.projectId))
    .where(invoiceable)
    .groupBy(projects.id, entries.hourlyRate)
    .orderBy(asc(projects.nameKey), asc(projects.id), asc(entries.hourlyRate))
    .all();
}

/** Creates an invoice: its entries get its id, its parties are copied, invoice.created is recorded. */
function createInvoice(
  {
    db,
    clock,
    write,
    requireMember,
  }: { db: Db; clock: Clock; write: DomainWrite; requireMember: (workspaceId: string, userId: string) => void },
  input: InvoiceInput,
): { id: string } {
  const { workspaceId, userId, clientId } = input;
  const fromMs = dayStart(input.from, 'from');
  const toMs = dayEnd(input.to, 'to');
  if (fromMs >= toMs) throw invalid(`from (${input.from}) must not be after to (${input.to}).`);
  return write((record) => {
    const workspace = db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
    if (!workspace) throw notFound(`Workspace ${workspaceId}`);
    requireMember(workspaceId, userId);
    const client = db
      .select()
      .from(clients)
      .where(and(eq(clients.workspaceId, workspaceId), eq(clients.id, clientId)))
      .get();
    if (!client) throw notFound(`Client ${clientId}`);
    const ofClient = db
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.workspaceId, workspaceId), eq(projects.clientId, clientId)));
    const invoiceable = and(
      eq(entries.workspaceId, workspaceId),
      gte(entries.startAt, fromMs),
      lt(entries.startAt, toMs),
      eq(entries.billable, true),
      isNotNull(entries.endAt),
      isNull(entries.invoiceId),
      inArray(entries.projectId, ofClient),
    ) as SQL;
    const groups = invoiceLines(db, invoiceable);
    if (groups.length === 0) {
      throw invalid(
        `Client ${clientId} has no billable, un-invoiced, completed entries starting from ${input.from} to ${input.to} (UTC days).`,
      );
    }
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
        lines: JSON.stringify(
          groups.map((g) => ({
            description: g.name,
            projectId: g.projectId,
            quantitySec: g.quantitySec,
            hourlyRate: g.hourlyRate,
            amount: fromCents(g.cents),
          })),
        ),
        totalCents: groups.reduce((sum, g) => sum + g.cents, 0),
        createdBy: userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    record(invoiceEvent(row, userId, 'invoice.created', { invoice: view(row) }));
    return { id };
  });
}

/**
 * Invoices (first-party, CLI). Creation takes a client's billable, completed, un-invoiced entries
 * of a range; parties are copied as they stand; lines and amounts never change afterwards. Every
 * creation and status move records its event (the webhook source) in the write's transaction.
 */
export function createInvoicesService({ db, clock, write }: { db: Db; clock: Clock; write: DomainWrite }) {
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
    create(input: InvoiceInput): { id: string } {
      return createInvoice({ db, clock, write, requireMember }, input);
    },

    /** Moves an invoice between statuses; void releases its entries. */
    changeStatus(id: string, to: InvoiceStatus, userId: string): { id: string; from: InvoiceStatus; to: InvoiceStatus } {
      return write((record) => {
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
        record(invoiceEvent(row, userId, 'invoice.status_changed', { invoice: view(row), from, to }));
        return { id, from, to };
      });
    },

    /**
     * An e-invoice fill: adds values that are null or absent (never an amount, never a value
     * already set), all or none. It is recorded in `einvoiceFills`, sends no webhook and records
     * no event: the next status change is the first payload that shows the values.
     */
    fill(id: string, userId: string, assignments: Array<[path: string, value: string]>): { id: string } {
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
        const fields = applyFill(doc, assignments);
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
