import { createManualLines } from './drafts.js';
import type { components } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { Job } from '../../scheduler.js';
import { newId } from '../../ids.js';
import { canonicalTimeZone, dayEnd, dayStart } from '../../kernel/time.js';
import { type ClientRounding, parseClientRounding, type RoundingText } from '../../kernel/rounding.js';
import { type OwnTax, parseOwnTax } from '../../kernel/tax.js';
import { type InvoiceLanguage, parseClientLanguage } from '../../kernel/document-languages.js';
import { isOperator, type Principal } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import { type Access, createAccess, guards } from './access.js';
import { renderDocument } from './documents/index.js';
import { checkDraftInput, type Draft, type DraftInput, draftOf } from './creation.js';
import type { InvoiceDocument } from './document.js';
import { invoiceErrors as errors } from './errors.js';
import { checkElectronicAddress, checkValue, ISSUER_FIELDS, type IssuerField, type IssuerProfilePatch, parseValue } from './fields.js';
import { createIssuing } from './issuing.js';
import { createFills, createLifecycle, MOVES } from './lifecycle.js';
import { type FillSlot, fillSlotsOf } from './fills.js';
import { createSending } from './mailing.js';
import { createPayments } from './payments.js';
import { createReminders } from './reminders.js';
import { createPublishing } from './publishing.js';
import { createNumbering } from './numbering.js';
import { createInvoiceTransfer } from './transfer.js';
import type { DocumentRenderer, InvoicePorts } from './ports.js';
import type { InvoicesRepository } from './repository.js';
import { applySettings, type InvoicingSettings, type SettingsPatch, settingsOf } from './settings.js';
import { recordCreated } from './moves.js';
import { view } from './views.js';
export { creditNoteOf, type CreditNoteView } from './views.js';

type Schemas = components['schemas'];
export type InvoiceView = InvoiceDocument;
export type InvoiceStatus = Schemas['InvoiceStatus'];
export type { IssuerProfilePatch } from './fields.js';
export { ISSUER_FIELDS } from './fields.js';
export type { DocumentSource, EarlyPayment, InvoiceDocument, LineGrouping } from './document.js';
export type { DocumentRenderer, InvoicePorts } from './ports.js';
export type { Draft, DraftInput } from './creation.js';
export type { InvoicingSettings, SettingsPatch } from './settings.js';
export type { MoveOptions, MoveResult } from './lifecycle.js';
export { DEFAULT_PAYMENT_TERMS_DAYS } from './lifecycle.js';
export { settingsPatchOfText } from './settings.js';
export { LINE_GROUPINGS } from './lines.js';
export { asksExchangeRate, otherVatCurrency, parseExchangeRate } from './currency.js';
export { printedLineHours } from './documents/model.js';
export {
  composeMail,
  type InvoiceSendView,
  type MailedDocument,
  type MailOutline,
  MAX_SEND_GREETING,
  MAX_SEND_MESSAGE,
  megabytes,
  type SendRequest,
  type SendResult,
} from './mailing.js';
export { DocumentNotReady, type DocumentState, type MadeDocument } from './publishing.js';
export { type InvoicePaymentView, MAX_PAYMENT_NOTE, type PaymentInput, type PaymentResult, paymentCents } from './payments.js';
export { type FillSlot, type FixedBecause, partnerOf } from './fills.js';
export { NotReadyToIssue } from './issuing.js';
export type { InvoiceReminderSkipView, InvoiceReminderView, OverdueView } from './reminders.js';
export { daysOverdue, overdueFrom } from './overdue.js';
export { readsInvoices, type InvoiceReader } from './access.js';
export { DOCUMENT_FORMATS, type DocumentFormat, type MissingValue, plainPdf } from './documents/index.js';
export { MAX_INVOICE_LINES } from './lines.js';
export { LINE_UNITS, unitSymbol } from './manual.js';
export {
  checkInvoiceRecord,
  checkProfileRecord,
  checkSettingsRecord,
  type ExportedInvoice,
  type InvoiceReferences,
  type InvoiceTransfer,
} from './transfer.js';

const invalid = errors.invalid;
/** A JSON column value; null stays SQL NULL. */
const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/** A new invoice: the draft's input and, for the operator, the member who makes it. */
export interface InvoiceInput extends DraftInput {
  /** The member who acts: required of the operator; a member's principal acts as itself. */
  userId?: string;
}

/** A workspace's rounding rules (issue 56 item 4): its own (null: none), and each client's that has one. */
export interface RoundingRules {
  workspace: RoundingText | null;
  clients: ReadonlyMap<string, Exclude<ClientRounding, null>>;
}

/** The preview of a creation: the lines and totals it would make (nothing written). */
export type InvoicePreview = Draft;

/** The number the next document would get if the acting member issued it today (owners, and the operator naming one). */
function upcomingNumberOf(deps: Parameters<typeof createNumbering>[0], { requireSettingsOwner, actingMember }: Access) {
  const numbering = createNumbering(deps);
  return (principal: Principal, workspaceId: string, userId?: string): { number: string; date: string } => {
    requireSettingsOwner(principal, workspaceId, 'see the invoicing settings');
    return numbering.upcoming(workspaceId, actingMember(principal, workspaceId, userId).userId);
  };
}

/** The workspace's invoicing settings and the next number they give (its owners and the operator; part of the service). */
function settingsMethods(
  deps: { repo: InvoicesRepository; ports: InvoicePorts; clock: Clock; write: DomainWrite; defaultTimeZone: string },
  access: Access,
) {
  const { repo, ports, clock, write } = deps;
  const { requireSettingsOwner } = access;
  const upcomingNumber = upcomingNumberOf(deps, access);
  return {
    /**
     * The language the workspace's documents speak (its owners set it), which pages speak to a
     * member of it who chose none and whose browser names none of theirs (decisions §14); null
     * where no owner set it. Any member of the workspace may ask; anyone else learns nothing.
     */
    workspaceLanguage(principal: Principal, workspaceId: string): InvoicingSettings['language'] | null {
      if (principal.kind === 'member' && principal.workspaceId !== workspaceId) return null;
      return repo.settings(workspaceId)?.language ?? null;
    },

    /**
     * The language of a workspace's documents for the pages a link opens before anyone signs in
     * (a setup link, an invitation: the link names its workspace, and its holder is or is about
     * to be a member), when the browser names none of ours (decisions §14); null where no owner set it.
     */
    linkLanguage(workspaceId: string): InvoicingSettings['language'] | null {
      return repo.settings(workspaceId)?.language ?? null;
    },

    /** The workspace's invoicing settings (owners and the operator). */
    settings(principal: Principal, workspaceId: string): InvoicingSettings {
      requireSettingsOwner(principal, workspaceId, 'see the invoicing settings');
      ports.requireWorkspace(workspaceId);
      return settingsOf(repo.settings(workspaceId));
    },

    /** The number the next document would get if the acting member issued it today: the settings' example. */
    upcomingNumber,

    /** The clients with a rounding rule of their own, by id (owners and the operator: the Catalog page's Invoicing details). */
    clientRoundings(principal: Principal, workspaceId: string): Map<string, Exclude<ClientRounding, null>> {
      requireSettingsOwner(principal, workspaceId, 'see the invoicing settings');
      return new Map(ports.clientRoundings(workspaceId).map((c) => [c.id, c.rounding as Exclude<ClientRounding, null>]));
    },

    /**
     * Sets a client's rounding rule over the workspace's (owners and the operator, as the
     * settings): a rule such as `up-15`, `none` (no rounding whatever the workspace's), or blank
     * or null (the workspace's). Its next invoices take it; invoices made keep theirs.
     */
    setClientRounding(principal: Principal, workspaceId: string, clientId: string, value: unknown): { id: string } {
      requireSettingsOwner(principal, workspaceId, 'change the invoicing settings');
      const rounding = parseClientRounding(value, 'rounding');
      return write((record) => {
        ports.requireWorkspace(workspaceId);
        const actor = isOperator(principal) ? { userId: null, tokenId: null } : { userId: principal.userId, tokenId: principal.tokenId };
        ports.storeClientRounding(record, workspaceId, actor, clientId, rounding);
        return { id: clientId };
      });
    },

    /** The clients with a document language of their own, by id (owners and the operator: the Catalog page's Invoicing details). */
    clientLanguages(principal: Principal, workspaceId: string): Map<string, InvoiceLanguage> {
      requireSettingsOwner(principal, workspaceId, 'see the invoicing settings');
      return new Map(ports.clientLanguages(workspaceId).map((c) => [c.id, c.language as InvoiceLanguage]));
    },

    /**
     * Sets a client's own document language over the workspace's (owners and the operator, as the
     * settings; decisions §12): a language invoices are made in (en, de; French and Dutch are
     * refused as not offered yet), or blank or null (the workspace's). Its next invoices take it
     * (their PDF, XML notes, mail and reminders); invoices made keep theirs.
     */
    setClientLanguage(principal: Principal, workspaceId: string, clientId: string, value: unknown): { id: string } {
      requireSettingsOwner(principal, workspaceId, 'change the invoicing settings');
      const language = parseClientLanguage(value, 'language');
      return write((record) => {
        ports.requireWorkspace(workspaceId);
        const actor = isOperator(principal) ? { userId: null, tokenId: null } : { userId: principal.userId, tokenId: principal.tokenId };
        ports.storeClientLanguage(record, workspaceId, actor, clientId, language);
        return { id: clientId };
      });
    },

    /**
     * The projects and tasks with a VAT of their own (decisions §12), by id (owners and the
     * operator, as the invoicing settings: the Catalog page and `workspace invoicing --project`).
     */
    workTaxes(principal: Principal, workspaceId: string): { projects: ReadonlyMap<string, OwnTax>; tasks: ReadonlyMap<string, OwnTax> } {
      requireSettingsOwner(principal, workspaceId, 'see the invoicing settings');
      return ports.workTaxes(workspaceId);
    },

    /**
     * Sets a project's or a task's own VAT (owners and the operator, as the settings): category
     * `S` with a rate (7, 19) or `Z`; a blank category (and rate) gives it back to the invoice's own
     * (a task's: its project's). Its next invoices' lines take it unless the client's reverse
     * charge, export or "not subject", or a small business, wins; invoices made keep theirs.
     */
    setWorkTax(
      principal: Principal,
      workspaceId: string,
      work: { kind: 'project' | 'task'; id: string },
      given: { taxCategory?: unknown; taxRate?: unknown },
    ): { id: string } {
      requireSettingsOwner(principal, workspaceId, 'change the invoicing settings');
      const tax = parseOwnTax(given.taxCategory, given.taxRate);
      return write((record) => {
        ports.requireWorkspace(workspaceId);
        const actor = isOperator(principal) ? { userId: null, tokenId: null } : { userId: principal.userId, tokenId: principal.tokenId };
        ports.storeWorkTax(record, workspaceId, actor, work, tax);
        return { id: work.id };
      });
    },

    /**
     * The rounding rules of a workspace as reports apply them when a reader asks (no principal:
     * the reports service decides who reads what): the workspace's, and each client's own.
     */
    roundingRules(workspaceId: string): RoundingRules {
      return {
        workspace: settingsOf(repo.settings(workspaceId)).rounding,
        clients: new Map(ports.clientRoundings(workspaceId).map((c) => [c.id, c.rounding as Exclude<ClientRounding, null>])),
      };
    },

    /** Changes invoicing settings (owners and the operator): each key checked, all or none; null resets a key. */
    setSettings(principal: Principal, workspaceId: string, patch: SettingsPatch): { id: string } {
      requireSettingsOwner(principal, workspaceId, 'change the invoicing settings');
      if (Object.keys(patch).length === 0) throw invalid('Give at least one setting to change.');
      return write(() => {
        ports.requireWorkspace(workspaceId);
        const next = applySettings(settingsOf(repo.settings(workspaceId)), patch);
        repo.storeSettings({ workspaceId, ...next, updatedAt: clock.now() });
        return { id: workspaceId };
      });
    },
  };
}

/**
 * What a creation (or its preview) makes, for the acting member: the draft of their days (their
 * zone, or the one given: decisions 11a) in their currency, with the query of its entries.
 */
function createDrafting({
  repo,
  ports,
  access,
  defaultTimeZone,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  access: Access;
  defaultTimeZone: string;
}) {
  /** Whose days an invoice's range is: the zone given, else the acting member's (their Profile's), else the server's. */
  const zoneOf = (userId: string, given: string | undefined): string =>
    given === undefined ? (ports.timeZoneOf(userId) ?? defaultTimeZone) : canonicalTimeZone(given, 'timeZone');
  return {
    draftFor(principal: Principal, input: InvoiceInput) {
      ports.requireWorkspace(input.workspaceId);
      const acting = access.actingMember(principal, input.workspaceId, input.userId);
      const member = ports.membership(input.workspaceId, acting.userId);
      if (!member) throw errors.memberNotFound(input.workspaceId, acting.userId);
      const zone = zoneOf(acting.userId, input.timeZone);
      return { acting, ...draftOf(ports, settingsOf(repo.settings(input.workspaceId)), input, member.currency, zone) };
    },
  };
}

/** A draft's range's billable time still waiting for approval (decisions §13), or null (issued, or approval off). */
function waitingOf(
  ports: InvoicePorts,
  row: { status: string; timeZone: string; fromDay: string; toDay: string; workspaceId: string; clientId: string },
): { entries: number; seconds: number } | null {
  if (row.status !== 'draft' || !ports.approvedSpans || !ports.invoiceableWaiting) return null;
  const from = dayStart(row.fromDay, 'from', row.timeZone);
  const to = dayEnd(row.toDay, 'to', row.timeZone);
  const approved = ports.approvedSpans(row.workspaceId, from, to);
  if (approved === null) return null;
  return ports.invoiceableWaiting({
    workspaceId: row.workspaceId,
    projectIds: ports.projectsOfClients(row.workspaceId, [row.clientId]),
    from,
    to,
    approved,
  });
}

/**
 * Invoices (decisions §11): made from a client's billable, completed, un-invoiced entries; issued
 * with a number of the workspace's series and a date; paid; voided (an issued one with its credit
 * note); their documents made and mailed. Owners create, issue, mark paid, void, fill and send;
 * who reads is `readsInvoices` (access.ts: money visibility, and colleagues' time for who is no
 * owner); anyone else finds nothing (404). The operator (the command line) may do everything,
 * naming the member who acts. Each creation and move is one write with its event.
 */
export function createInvoicesService({
  repo,
  ports,
  clock,
  write,
  defaultTimeZone = 'UTC',
  render = (doc, format, options) => renderDocument(doc, format, options),
  logger,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  clock: Clock;
  write: DomainWrite;
  /** The server's zone: the day of a member who chose none. */
  defaultTimeZone?: string;
  /** Where documents are made: the server's document threads; by default this process (the command line, tests). */
  render?: DocumentRenderer;
  /** Where a payment reminder the tick could not send is logged (warn). */
  logger?: Logger;
}) {
  const access = createAccess({ repo, ports });
  const { mayRead, requireOwner, findInvoice } = access;
  const lifecycle = createLifecycle({ repo, ports, clock, write, access, defaultTimeZone });
  const drafting = createDrafting({ repo, ports, access, defaultTimeZone });
  const reminders = createReminders({ repo, ports, clock, write, access, render, defaultTimeZone, ...(logger ? { logger } : {}) });

  const service = {
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
        checkElectronicAddress(profile, Object.keys(patch));
        // A profile with every field cleared is no profile: invoices get issuer null.
        ports.storeBusinessProfile(workspaceId, Object.keys(profile).length === 0 ? null : profile);
        return { id: workspaceId };
      });
    },

    ...settingsMethods({ repo, ports, clock, write, defaultTimeZone }, access),

    ...guards(access),

    /** A workspace's invoices, newest first, optionally of one status or client (owners and who sees colleagues' money). */
    list(principal: Principal, workspaceId: string, filter: { status?: InvoiceStatus; clientId?: string } = {}): InvoiceView[] {
      if (!mayRead(principal, workspaceId)) throw errors.hidden(workspaceId);
      ports.requireWorkspace(workspaceId);
      if (filter.status !== undefined && !(Object.keys(MOVES) as string[]).includes(filter.status))
        throw invalid(`status must be one of ${Object.keys(MOVES).join(', ')} (got ${JSON.stringify(filter.status)}).`);
      return repo.list(workspaceId, filter).map(view);
    },

    /** One invoice: the whole document. */
    get(principal: Principal, id: string): InvoiceView {
      return view(findInvoice(principal, id));
    },

    /**
     * With approval on (decisions §13), a draft's range's billable time that still waits for
     * approval (not on it: invoices take only approved time); null for an issued invoice, or while
     * approval is off.
     */
    stillWaiting(principal: Principal, id: string): { entries: number; seconds: number } | null {
      return waitingOf(ports, findInvoice(principal, id));
    },

    /** The rounding rule an invoice's lines were made with (null: not rounded): kept as it was, whatever the settings say now. */
    rounding(principal: Principal, id: string): RoundingText | null {
      return findInvoice(principal, id).rounding as RoundingText | null;
    },

    /** The invoice a creation would make (its lines, tax and totals), writing nothing. */
    preview(principal: Principal, input: InvoiceInput): InvoicePreview {
      requireOwner(principal, input.workspaceId, 'make invoices', () => errors.hidden(input.workspaceId));
      checkDraftInput(input);
      return drafting.draftFor(principal, input).draft;
    },

    /**
     * Invoices a client's billable, completed, un-invoiced entries that start in [from, to], whole
     * days of the acting member's zone (or the one given; the invoice keeps it): its entries get its id, its parties, lines, tax and totals are fixed, invoice.created
     * is recorded; all in one write.
     */
    create(principal: Principal, input: InvoiceInput): { id: string } {
      const { workspaceId, clientId } = input;
      requireOwner(principal, workspaceId, 'make invoices', () => errors.hidden(workspaceId));
      checkDraftInput(input);
      return write((record) => {
        const { acting, draft, query } = drafting.draftFor(principal, input);
        const id = newId('inv');
        const now = clock.now();
        ports.markInvoiced(query, id);
        ports.expenses?.markInvoiced(draft.expenseIds, id);
        const row = repo.insert({
          id,
          workspaceId,
          clientId,
          status: 'draft',
          currency: draft.currency,
          fromDay: draft.from,
          toDay: draft.to,
          timeZone: draft.timeZone,
          issuer: json(draft.issuer),
          recipient: json(draft.recipient),
          lines: JSON.stringify(draft.lines),
          totalCents: Math.round(draft.netTotal * 100),
          extras: JSON.stringify({ taxBreakdown: draft.taxBreakdown }),
          note: draft.note,
          language: draft.language,
          rounding: draft.rounding?.rule ?? null,
          createdBy: acting.userId,
          createdAt: now,
          updatedAt: now,
        });
        recordCreated(record, row, acting);
        return { id };
      });
    },

    ...lifecycle,
    // Payments against an issued invoice (issue 57): the amount due falls, the last one makes it paid.
    ...createPayments({ repo, ports, clock, write, access, defaultTimeZone }),
    // The Overdue list and payment reminders (issue 57): the scheduler's tick mails them.
    ...reminders,
    ...createFills({ repo, clock, write, access }),
    // A draft's manual lines (decisions §12): added and removed while it is a draft.
    ...createManualLines({ repo, ports, clock, write, access }),
    /**
     * What a fill may do now at each value of the invoice a form or a command asks about (`asked`:
     * the values its documents lack), at each value a fill set, and at their electronic addresses'
     * partners: add it, correct it, or neither and why (fills.ts). Whoever reads the invoice.
     */
    fillSlots(principal: Principal, id: string, asked: readonly string[] = []): FillSlot[] {
      const row = findInvoice(principal, id);
      return fillSlotsOf(view(row), row.lastHandedOutAt, asked);
    },
    // The documents (PDF, XRechnung, Peppol) of an invoice: its readiness and a document made, through the render port.
    ...createPublishing({ access, render, repo, write, clock, issuing: createIssuing({ repo, ports }) }),
    // Sending an issued invoice or a credit note by mail (owners): checked, its documents made, queued and recorded.
    ...createSending({ repo, ports, write, access, render, clock }),
    /** A workspace's export and its import (decisions 11a): the profile, settings and invoices as records of their tables. */
    imports: createInvoiceTransfer({ repo, ports, clock }),
    /**
     * The module's periodic job: payment reminders, on the scheduler's tick at most once an hour
     * (the tick comes every second; a reminder due at midnight may wait an hour). Awaited: its
     * documents are made first, then one write each.
     */
    jobs: [{ name: 'invoice-reminders', every: 'hour', run: () => reminders.remind() }] as Job[],
  };
  return service;
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
