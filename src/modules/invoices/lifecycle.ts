import type { components } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import { toIso } from '../../kernel/time.js';
import { isOperator, type Principal } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import type { Access, InvoiceMoveParts } from './access.js';
import { vatCurrencyOfIssue } from './currency.js';
import { invoiceErrors as errors } from './errors.js';
import { applyFill, type Doc } from './fields.js';
import { correctionsOf, fillsAfter } from './fills.js';
import { createNumbering } from './numbering.js';
import type { EarlyPayment, InvoiceDocumentLine, TaxBreakdownRow } from './document.js';
import { createIssuing } from './issuing.js';
import { recordMove } from './moves.js';
import { recordRest } from './payments.js';
import type { InvoiceRow, InvoicesRepository } from './repository.js';
import { settingsOf, parseEarlyPayment } from './settings.js';
import { addDays, breakdown, earlyPaymentTerms, paymentTerms } from './tax.js';
import { view } from './views.js';

type InvoiceStatus = components['schemas']['InvoiceStatus'];

/** draft → sent → paid; draft or sent → void. */
export const MOVES: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ['sent', 'void'],
  sent: ['paid', 'void'],
  paid: [],
  void: [],
};
/** What to do instead of a move that is not allowed, by where the invoice stands. */
const INSTEAD: Record<InvoiceStatus, string> = {
  draft: 'a draft is issued first (to sent), then marked paid; or voided',
  sent: 'an issued invoice may be marked paid, or voided (which makes its credit note)',
  paid: 'a paid invoice is final: it is neither voided nor changed (a refund is made outside timetrack)',
  void: 'a void invoice is final; make a new invoice for its entries, which voiding released',
};

/** The command line's options of a move. */
type StatusOptions = Pick<MoveOptions, 'date' | 'exchangeRate'>;
const rateNotTaken = (to: InvoiceStatus) =>
  errors.invalid(
    `--exchange-rate is given when an invoice is issued (--to sent), not when it is ${to === 'paid' ? 'marked paid' : 'voided'}.`,
  );

/** Payment terms when the issuer's profile sets none (decisions §11). */
export const DEFAULT_PAYMENT_TERMS_DAYS = 14;

/** A move's options: who acts (the operator names a member) and the day it is dated (default: their today). */
export interface MoveOptions {
  userId?: string;
  /** `YYYY-MM-DD`: the issue date, the paid date or the credit note's date. */
  date?: string;
  /** Issuing only: units of the issuer's VAT currency per unit of the invoice's, when they differ (currency.ts). */
  exchangeRate?: number;
}

/** What a status move answers (the command line prints it): the number once the invoice has one. */
export type MoveResult = {
  id: string;
  from: InvoiceStatus;
  to: InvoiceStatus;
  number?: string;
  creditNote?: { number: string; issueDate: string };
};

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

/** Refuses a move the invoice's status does not allow, saying what it allows. */
function refuseMove(row: InvoiceRow, to: InvoiceStatus): void {
  if (!MOVES[row.status].includes(to)) throw errors.cannotMove(row.id, row.status, to, INSTEAD[row.status]);
}

/**
 * What issuing writes of the payment terms: the due sentence, then the workspace's early-payment
 * discount as it is now (issue 57 item 4), which the invoice keeps for its documents.
 */
function termsOfIssue(
  repo: InvoicesRepository,
  current: InvoiceRow,
  { days, dueDate, issueDate }: { days: number; dueDate: string; issueDate: string },
): { paymentTerms: string; earlyPayment?: EarlyPayment } {
  const terms = paymentTerms(days, dueDate, current.language);
  const offered = settingsOf(repo.settings(current.workspaceId)).earlyPayment;
  if (offered === null) return { paymentTerms: terms };
  const earlyPayment = parseEarlyPayment(offered);
  return { paymentTerms: `${terms} ${earlyPaymentTerms(earlyPayment, issueDate, current.language)}`, earlyPayment };
}

/**
 * What happens to an invoice after it is made: issuing (its number and dates), paid, void (an
 * issued one with its credit note) and e-invoice fills. Each is one write, with its event.
 */
export function createLifecycle({ repo, ports, clock, write, access, defaultTimeZone }: InvoiceMoveParts) {
  const { findInvoice, requireOwner, actingMember } = access;
  const invalid = errors.invalid;
  const { moveDate, nextNumber, numberTaken } = createNumbering({ repo, ports, clock, defaultTimeZone });
  const issuing = createIssuing({ repo, ports });

  const lifecycle = {
    /**
     * Issues a draft (draft → sent): every check its PDF faces first (issuing.ts: refused, naming
     * each missing value, before any number is taken), then its number from the series, its issue
     * date (the acting member's today, or `date`; never before the workspace's last document), its
     * due date and payment terms, and its tax as issuing.ts makes it (the lines' rates completed
     * from the settings, the breakdown made again from the lines). One write: the number, the
     * status and the event.
     */
    issue(principal: Principal, id: string, options: MoveOptions = {}): MoveResult {
      let workspaceId = '';
      return write(
        (record) => {
          const current = findInvoice(principal, id);
          workspaceId = current.workspaceId;
          requireOwner(principal, current.workspaceId, 'issue invoices', () => errors.notFound(id));
          const acting = actingMember(principal, current.workspaceId, options.userId);
          refuseMove(current, 'sent');
          const taxed = issuing.check(current);
          const issueDate = moveDate(acting.userId, options.date, 'issue date');
          const number = nextNumber(current, issueDate, 'invoice');
          const issuer = JSON.parse(current.issuer ?? 'null') as { paymentTermsDays?: number | null } | null;
          const days = issuer?.paymentTermsDays ?? DEFAULT_PAYMENT_TERMS_DAYS;
          const dueDate = addDays(issueDate, days);
          // The VAT in the issuer's VAT currency is that of the breakdown as issued.
          const taxedExtras = { ...JSON.parse(current.extras), taxBreakdown: taxed.taxBreakdown };
          const vatCurrency = vatCurrencyOfIssue({ ...current, extras: JSON.stringify(taxedExtras) }, issuer, options.exchangeRate);
          const extras = { ...taxedExtras, ...termsOfIssue(repo, current, { days, dueDate, issueDate }), ...vatCurrency };
          const row = repo.update(id, {
            lines: JSON.stringify(taxed.lines),
            status: 'sent',
            number,
            issueDate,
            dueDate,
            extras: JSON.stringify(extras),
            updatedAt: clock.now(),
          });
          recordMove(record, row, acting, current.status);
          return { id, from: current.status, to: row.status, number };
        },
        { conflict: () => numberTaken(workspaceId, isOperator(principal)) },
      );
    },

    /**
     * Marks an issued invoice paid (sent → paid) on `date` (default the acting member's today): a
     * payment in full. What is still due is recorded as a payment of that day, so the payments of a
     * paid invoice add up to its total. Paid is final.
     */
    markPaid(principal: Principal, id: string, options: MoveOptions = {}): MoveResult {
      return write((record) => {
        const current = findInvoice(principal, id);
        requireOwner(principal, current.workspaceId, 'mark invoices paid', () => errors.notFound(id));
        const acting = actingMember(principal, current.workspaceId, options.userId);
        refuseMove(current, 'paid');
        const paidDate = moveDate(acting.userId, options.date, 'paid date');
        if (current.issueDate !== null && paidDate < current.issueDate)
          throw invalid(
            `The paid date ${paidDate} is before the issue date ${current.issueDate} of ${current.number}: date it on or after that day.`,
          );
        const now = clock.now();
        const paidCents = current.paidCents + recordRest(repo, current, paidDate, acting.userId, now);
        const row = repo.update(id, { status: 'paid', paidDate, paidCents, updatedAt: now });
        recordMove(record, row, acting, current.status);
        return { id, from: current.status, to: row.status, ...(row.number === null ? {} : { number: row.number }) };
      });
    },

    /**
     * Voids an invoice: its entries are released. A draft uses no number; an issued invoice gets
     * its credit note, with a number of the same series and its date (`date`, default today),
     * referring to the invoice's number and date. One write: number, status, entries, event.
     */
    void(principal: Principal, id: string, options: MoveOptions = {}): MoveResult {
      let workspaceId = '';
      return write(
        (record) => {
          const current = findInvoice(principal, id);
          workspaceId = current.workspaceId;
          requireOwner(principal, current.workspaceId, 'void invoices', () => errors.notFound(id));
          const acting = actingMember(principal, current.workspaceId, options.userId);
          refuseMove(current, 'void');
          let creditNote: { number: string; issueDate: string } | undefined;
          // An issued invoice (one issued before invoices had numbers has none: nothing to refer to).
          if (current.status === 'sent' && current.number !== null) {
            const issueDate = moveDate(acting.userId, options.date, 'credit note date');
            creditNote = { number: nextNumber(current, issueDate, 'credit_note'), issueDate };
          } else if (options.date !== undefined) {
            throw invalid(`A draft is voided without a credit note: it takes no date (got ${options.date}).`);
          }
          ports.releaseInvoice(id);
          ports.expenses?.releaseInvoice(id);
          const row = repo.update(id, {
            status: 'void',
            ...(creditNote ? { creditNoteNumber: creditNote.number, creditNoteDate: creditNote.issueDate } : {}),
            updatedAt: clock.now(),
          });
          recordMove(record, row, acting, current.status);
          return {
            id,
            from: current.status,
            to: row.status,
            ...(row.number === null ? {} : { number: row.number }),
            ...(creditNote ? { creditNote } : {}),
          };
        },
        { conflict: () => numberTaken(workspaceId, isOperator(principal)) },
      );
    },

    /** Moves an invoice to `to` (the command line's `invoice status`): issue, markPaid or void. */
    changeStatus(principal: Principal, id: string, to: InvoiceStatus, userId?: string, options: StatusOptions = {}): MoveResult {
      const moveOptions = { ...(userId === undefined ? {} : { userId }), ...options };
      if (to === 'sent') return lifecycle.issue(principal, id, moveOptions);
      if (options.exchangeRate !== undefined) throw rateNotTaken(to);
      if (to === 'paid') return lifecycle.markPaid(principal, id, moveOptions);
      if (to === 'void') return lifecycle.void(principal, id, moveOptions);
      const current = findInvoice(principal, id);
      throw errors.cannotMove(id, current.status, to, INSTEAD[current.status]);
    },
  };
  return lifecycle;
}

/**
 * E-invoice fills (the spec's `einvoiceFills`): values added where they were null or absent.
 * Owners and the operator; never on a void invoice.
 */
export function createFills({
  repo,
  clock,
  write,
  access,
}: {
  repo: InvoicesRepository;
  clock: Clock;
  write: DomainWrite;
  access: Access;
}) {
  const { findInvoice, requireOwner, actingMember } = access;
  const invalid = errors.invalid;
  return {
    /**
     * An e-invoice fill: adds values that are null or absent (never an amount), all or none, or
     * corrects a value a fill added until a document carrying it was downloaded or sent (fills.ts;
     * decisions 14). It is recorded in `einvoiceFills`, sends no webhook and records no event: the
     * next status change is the first payload that shows the values. Once issued, a fill may
     * change nothing the invoice states (its tax totals, its due date).
     */
    fill(principal: Principal, id: string, userId: string | undefined, assignments: Array<[path: string, value: string]>): { id: string } {
      return write(() => {
        const row = findInvoice(principal, id);
        requireOwner(principal, row.workspaceId, 'fill invoices', () => errors.notFound(id));
        const acting = actingMember(principal, row.workspaceId, userId);
        if (row.status === 'void') throw errors.voidTakesNoFill(id);
        for (const [path] of assignments) {
          if (path === 'paymentTerms' && row.status === 'draft')
            throw invalid(
              "paymentTerms is written when the invoice is issued, from the issuer's paymentTermsDays: fill issuer.paymentTermsDays instead (when it is not set yet).",
            );
          if (row.issueDate !== null && path === 'taxBreakdown')
            throw errors.conflict(
              `taxBreakdown would change the taxTotal and grossTotal of ${row.number}, which are fixed once it is issued.`,
            );
          if (row.dueDate !== null && path === 'issuer.paymentTermsDays')
            throw errors.conflict(
              `issuer.paymentTermsDays would contradict the due date ${row.dueDate} that ${row.number} was issued with.`,
            );
        }
        const doc: Doc = {
          issuer: JSON.parse(row.issuer ?? 'null'),
          recipient: JSON.parse(row.recipient ?? 'null'),
          lines: JSON.parse(row.lines),
          extras: JSON.parse(row.extras),
        };
        // A value a fill set is corrected until a document carrying it was handed out (decisions 14); one given as it is changes nothing.
        const { replace, unchanged } = correctionsOf(view(row), row.lastHandedOutAt, assignments);
        const changes = assignments.filter(([path]) => !unchanged.has(path));
        if (changes.length === 0 && assignments.length > 0) throw errors.fillChangesNothing([...unchanged]);
        const fields = applyFill(doc, changes, replace);
        // A draft's breakdown is what its lines make (issue 56 item 8): a rate or category filled
        // into a line counts at once, as it will when the draft is issued. (A draft made before
        // invoices carried tax has no breakdown: it is filled as taxBreakdown=lines, or made at issue.)
        const rows = doc.extras.taxBreakdown as TaxBreakdownRow[] | undefined;
        if (row.status === 'draft' && rows && Object.keys(fields).some((path) => /^lines\[\d+\]\.tax(Category|Rate)$/.test(path))) {
          doc.extras.taxBreakdown = breakdown(doc.lines as unknown as InvoiceDocumentLine[], (category) => {
            const kept = rows.find((r) => r.category === category);
            return kept ? { exemptionReason: kept.exemptionReason, exemptionReasonCode: kept.exemptionReasonCode } : null;
          });
        }
        const now = clock.now();
        const fills = fillsAfter(JSON.parse(row.einvoiceFills), { at: toIso(now), by: acting.userId, fields }, replace);
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
  };
}
