import type { components } from '../../../generated/openapi.js';
import { invoiceErrors as errors } from './errors.js';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import { fromCents } from '../../kernel/money.js';
import { dayEnd, dayStart, toIso } from '../../kernel/time.js';
import { isOperator, type Principal } from '../../principal.js';
import type { Invoiceable } from '../entries/service.js';
import type { DomainEvent, DomainWrite } from '../events/service.js';
import {
  applyFill,
  checkValue,
  type Doc,
  ISSUER_FIELDS,
  type IssuerField,
  type IssuerProfilePatch,
  parseValue,
  partyOf,
  RECIPIENT_FIELDS,
} from './fields.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';
import { view } from './views.js';

type Schemas = components['schemas'];
export type InvoiceView = Schemas['Invoice'];
export type InvoiceStatus = Schemas['InvoiceStatus'];
export type { IssuerProfilePatch } from './fields.js';

/** draft → sent → paid; draft or sent → void. */
const MOVES: Record<InvoiceStatus, readonly InvoiceStatus[]> = { draft: ['sent', 'void'], sent: ['paid', 'void'], paid: [], void: [] };

const invalid = errors.invalid;
/** A JSON column value; null stays SQL NULL. */
const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

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

/** What invoicing reads and changes of other modules, through their services. */
export interface InvoicePorts {
  requireWorkspace(workspaceId: string): void;
  membership(workspaceId: string, userId: string): { currency: string } | undefined;
  businessProfile(workspaceId: string): Record<string, unknown> | null;
  storeBusinessProfile(workspaceId: string, profile: Record<string, unknown> | null): void;
  client(workspaceId: string, id: string): Record<string, unknown> & { id: string };
  projectsOfClients(workspaceId: string, clientIds: string[]): string[];
  projectLabels(workspaceId: string, ids: string[]): Array<{ id: string; name: string }>;
  invoiceableLines(q: Invoiceable): Array<{ projectId: string; hourlyRate: number | null; quantitySec: number; cents: number }>;
  markInvoiced(q: Invoiceable, invoiceId: string): number;
  releaseInvoice(invoiceId: string): void;
}

/** UTF-8 byte order, as SQLite compares text: the order of invoice lines by project name. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The lines of an invoice: one per (project, rate), ordered by project name, then id, then rate. */
function invoiceLines(ports: InvoicePorts, q: Invoiceable) {
  const groups = ports.invoiceableLines(q);
  const names = new Map(ports.projectLabels(q.workspaceId, [...new Set(groups.map((g) => g.projectId))]).map((p) => [p.id, p.name]));
  return groups
    .map((g) => ({ ...g, name: names.get(g.projectId) ?? g.projectId }))
    .sort(
      (a, b) =>
        byBytes(a.name.toLowerCase(), b.name.toLowerCase()) ||
        byBytes(a.projectId, b.projectId) ||
        (a.hourlyRate ?? -1) - (b.hourlyRate ?? -1),
    );
}

/** Creates an invoice: its entries get its id, its parties are copied, invoice.created is recorded. */
function createInvoice(
  { repo, ports, clock, write }: { repo: InvoicesRepository; ports: InvoicePorts; clock: Clock; write: DomainWrite },
  input: InvoiceInput,
): { id: string } {
  const { workspaceId, userId, clientId } = input;
  const fromMs = dayStart(input.from, 'from');
  const toMs = dayEnd(input.to, 'to');
  if (fromMs >= toMs) throw invalid(`from (${input.from}) must not be after to (${input.to}).`);
  return write((record) => {
    ports.requireWorkspace(workspaceId);
    const member = ports.membership(workspaceId, userId);
    if (!member) throw errors.memberNotFound(workspaceId, userId);
    const client = ports.client(workspaceId, clientId);
    const q: Invoiceable = { workspaceId, projectIds: ports.projectsOfClients(workspaceId, [clientId]), from: fromMs, to: toMs };
    const groups = invoiceLines(ports, q);
    if (groups.length === 0) {
      throw invalid(
        `Client ${clientId} has no billable, un-invoiced, completed entries starting from ${input.from} to ${input.to} (UTC days).`,
      );
    }
    const id = newId('inv');
    const now = clock.now();
    ports.markInvoiced(q, id);
    const profile = ports.businessProfile(workspaceId);
    const row = repo.insert({
      id,
      workspaceId,
      clientId,
      status: 'draft',
      currency: member.currency,
      fromDay: input.from,
      toDay: input.to,
      issuer: json(profile === null ? null : partyOf(ISSUER_FIELDS, profile)),
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
    });
    record(invoiceEvent(row, userId, 'invoice.created', { invoice: view(row) }));
    return { id };
  });
}

/**
 * Invoices (first-party: the operator on the command line, naming the member who acts).
 * Creation takes a client's billable, completed, un-invoiced entries of a range; parties are
 * copied as they stand; lines and amounts never change afterwards. Every creation and status
 * move records its event (the webhook source) in the write's transaction.
 */
export function createInvoicesService({
  repo,
  ports,
  clock,
  write,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  write: DomainWrite;
}) {
  function requireMember(workspaceId: string, userId: string): void {
    if (!ports.membership(workspaceId, userId)) throw errors.memberNotFound(workspaceId, userId);
  }

  function findInvoice(id: string): InvoiceRow {
    const row = repo.invoice(id);
    if (!row) throw errors.notFound(id);
    return row;
  }

  /** Invoices are the operator's: a member's principal is refused. */
  const operatorOnly = (principal: Principal) => {
    if (!isOperator(principal)) throw errors.operatorOnly();
  };

  return {
    /**
     * Sets (or, with null, clears) fields of the workspace's business profile, the invoice issuer:
     * an owner of the workspace, or the operator. Each value is checked by its field's kind.
     */
    setBusinessProfile(principal: Principal, workspaceId: string, patch: IssuerProfilePatch): { id: string } {
      if (!isOperator(principal) && (!principal.isOwner || principal.workspaceId !== workspaceId)) throw errors.ownersOnly();
      return write(() => {
        ports.requireWorkspace(workspaceId);
        const profile = { ...(ports.businessProfile(workspaceId) ?? {}) };
        for (const [field, given] of Object.entries(patch)) {
          if (!Object.hasOwn(ISSUER_FIELDS, field))
            throw invalid(`${field} is not a business profile field; the fields are ${Object.keys(ISSUER_FIELDS).join(', ')}.`);
          const value = checkValue(ISSUER_FIELDS[field as IssuerField], given, field);
          if (value === null) delete profile[field];
          else profile[field] = value;
        }
        // A profile with every field cleared is no profile: invoices get issuer null.
        ports.storeBusinessProfile(workspaceId, Object.keys(profile).length === 0 ? null : profile);
        return { id: workspaceId };
      });
    },

    /** Invoices a client's billable, completed, un-invoiced entries that start in [from, to] (UTC days). */
    create(principal: Principal, input: InvoiceInput): { id: string } {
      operatorOnly(principal);
      return createInvoice({ repo, ports, clock, write }, input);
    },

    /** Moves an invoice between statuses; void releases its entries. */
    changeStatus(
      principal: Principal,
      id: string,
      to: InvoiceStatus,
      userId: string,
    ): { id: string; from: InvoiceStatus; to: InvoiceStatus } {
      operatorOnly(principal);
      return write((record) => {
        const current = findInvoice(id);
        requireMember(current.workspaceId, userId);
        const from = current.status;
        if (!MOVES[from].includes(to)) {
          const allowed =
            MOVES[from].length === 0 ? `a ${from} invoice is final` : `from ${from} it may move to ${MOVES[from].join(' or ')}`;
          throw errors.cannotMove(id, from, to, allowed);
        }
        if (to === 'void') ports.releaseInvoice(id);
        const row = repo.update(id, { status: to, updatedAt: clock.now() });
        record(invoiceEvent(row, userId, 'invoice.status_changed', { invoice: view(row), from, to }));
        return { id, from, to };
      });
    },

    /**
     * An e-invoice fill: adds values that are null or absent (never an amount, never a value
     * already set), all or none. It is recorded in `einvoiceFills`, sends no webhook and records
     * no event: the next status change is the first payload that shows the values.
     */
    fill(principal: Principal, id: string, userId: string, assignments: Array<[path: string, value: string]>): { id: string } {
      operatorOnly(principal);
      return write(() => {
        const row = findInvoice(id);
        requireMember(row.workspaceId, userId);
        if (row.status === 'void') throw errors.voidTakesNoFill(id);
        const doc: Doc = {
          issuer: JSON.parse(row.issuer ?? 'null'),
          recipient: JSON.parse(row.recipient ?? 'null'),
          lines: JSON.parse(row.lines),
          extras: JSON.parse(row.extras),
        };
        const fields = applyFill(doc, assignments);
        const now = clock.now();
        const fills = [...(JSON.parse(row.einvoiceFills) as unknown[]), { at: toIso(now), by: userId, fields }];
        repo.update(id, {
          issuer: json(doc.issuer),
          recipient: json(doc.recipient),
          lines: JSON.stringify(doc.lines),
          extras: JSON.stringify(doc.extras),
          einvoiceFills: JSON.stringify(fills),
          updatedAt: now,
        });
        return { id };
      });
    },

    get(principal: Principal, id: string): InvoiceView {
      operatorOnly(principal);
      return view(findInvoice(id));
    },
  };
}

export type InvoicesService = ReturnType<typeof createInvoicesService>;

/**
 * The issuer fields of the command line's text form (`--set field=value`; lines separated by
 * `|`, blank clears), read into the typed profile the service takes.
 */
export function issuerPatchOfText(assignments: ReadonlyArray<[field: string, text: string]>): IssuerProfilePatch {
  const patch: Record<string, unknown> = {};
  for (const [field, text] of assignments) {
    if (!Object.hasOwn(ISSUER_FIELDS, field))
      throw invalid(`${field} is not a business profile field; the fields are ${Object.keys(ISSUER_FIELDS).join(', ')}.`);
    patch[field] = parseValue(ISSUER_FIELDS[field as IssuerField], text, field);
  }
  return patch as IssuerProfilePatch;
}
