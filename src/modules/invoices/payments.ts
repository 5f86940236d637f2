import { DomainError } from '../../errors.js';
import { words } from '../../i18n/index.js';
import { newId } from '../../ids.js';
import { requireSafeText } from '../../kernel/input.js';
import { fromCents, toCents } from '../../kernel/money.js';
import { toIso } from '../../kernel/time.js';
import type { Principal } from '../../principal.js';
import type { InvoiceMoveParts } from './access.js';
import { invoiceErrors as errors } from './errors.js';
import { recordMove } from './moves.js';
import { createNumbering } from './numbering.js';
import type { InvoicePaymentRow, InvoiceRow, InvoicesRepository } from './repository.js';
import { view } from './views.js';

/*
 * Payments against an issued invoice (issue 57 item 3, decisions §12): the day the money arrived,
 * how much (integer cents in the invoice's currency, never more than is still due) and a note.
 * The amount due falls with each; the payment that leaves nothing to pay makes the invoice paid
 * (its paid date the payment's day), as `sent → paid` does for a payment in full.
 */

/** The most a payment's note may hold. */
export const MAX_PAYMENT_NOTE = 500;

/** A payment to record: how much (decimal text such as `250` or `250.50`, or a number with at most two places), when, a note. */
export interface PaymentInput {
  amount: string | number;
  /** `YYYY-MM-DD`: the day the money arrived (default: the acting member's today, in their zone). */
  date?: string;
  note?: string | null;
  /** The member who acts: required of the operator; a member's principal acts as itself. */
  userId?: string;
}

/** A recorded payment as the invoice page and `invoice show --json` show it. */
export interface InvoicePaymentView {
  id: string;
  /** The day the money arrived (a calendar day, as given). */
  date: string;
  amount: number;
  /** The early-payment discount this payment settled the invoice with (0: none). */
  discount: number;
  note: string | null;
  by: { userId: string; name: string | null };
  /** When it was recorded (ISO 8601, UTC). */
  recordedAt: string;
}

/** What recording a payment answers (the command line prints it). */
export type PaymentResult = {
  id: string;
  invoiceId: string;
  number: string | null;
  date: string;
  amount: number;
  discount: number;
  /** What is still due after it (0: paid). */
  amountDue: number;
  status: InvoiceRow['status'];
  currency: string;
};

const money = (cents: number, currency: string) => `${fromCents(cents).toFixed(2)} ${currency}`;
const amountRefusal = (currency: string, given: unknown) =>
  new DomainError(
    'invalid',
    `The amount must be an amount of ${currency} above 0 with at most two decimals, such as 250 or 250.50 (got ${JSON.stringify(given)}).`,
    { field: 'amount', words: words('invoicing.refused.payment.amount', { currency }) },
  );

/**
 * A payment's amount as whole cents, exactly: decimal text with a point or a comma and at most two
 * decimals (`1130.5`, `1130,50`; no thousands separators), or a number that is such a decimal.
 */
export function paymentCents(amount: string | number, currency: string): number {
  let cents: number;
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount) || Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-7) throw amountRefusal(currency, amount);
    cents = toCents(amount);
  } else {
    const text = amount.trim();
    const match = /^(\d{1,12})(?:[.,](\d{1,2}))?$/.exec(text);
    if (!match) throw amountRefusal(currency, amount);
    cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  }
  if (!(cents > 0) || !Number.isSafeInteger(cents)) throw amountRefusal(currency, amount);
  return cents;
}

/** A payment's note: one line, at most 500 characters, the one rule of an invoice's text; blank: none. */
function noteOf(note: string | null | undefined): string | null {
  const text = (note ?? '').trim();
  if (text === '') return null;
  if (text.length > MAX_PAYMENT_NOTE)
    throw new DomainError('invalid', `The note may be at most ${MAX_PAYMENT_NOTE} characters (it has ${text.length}): shorten it.`, {
      field: 'note',
      words: words('invoicing.refused.payment.note', { max: MAX_PAYMENT_NOTE, length: text.length }),
    });
  requireSafeText(text, 'The note', 'note');
  return text;
}

/** What an invoice that takes no payment is, and what to do instead. */
function refuseStatus(row: InvoiceRow): never {
  const name = row.number ?? row.id;
  const why: Record<InvoiceRow['status'], string> = {
    draft: `Invoice ${row.id} is a draft: issue it first (it then gets its number and due date); payments are recorded against an issued invoice.`,
    paid: `Invoice ${name} is paid: nothing is due on it, so it takes no more payments (a client who paid twice gets the money back outside timetrack).`,
    void: `Invoice ${name} is void: nothing is due on it, so it takes no payment.`,
    sent: '',
  };
  const said = {
    draft: 'invoicing.refused.payment.draft',
    paid: 'invoicing.refused.payment.paid',
    void: 'invoicing.refused.payment.void',
  } as const;
  throw new DomainError('conflict', why[row.status], { field: 'amount', words: words(said[row.status as keyof typeof said]) });
}

/**
 * Inside the write of `sent → paid` (a payment in full): what is still due recorded as a payment
 * of `paidOn`, so the payments of a paid invoice add up to its total. The cents recorded (0 when
 * nothing was due).
 */
export function recordRest(repo: InvoicesRepository, row: InvoiceRow, paidOn: string, userId: string, now: number): number {
  const cents = toCents(view(row).amountDue);
  if (cents > 0)
    repo.insertPayment({
      id: newId('ipay'),
      workspaceId: row.workspaceId,
      invoiceId: row.id,
      paidOn,
      amountCents: cents,
      discountCents: 0,
      note: null,
      recordedBy: userId,
      createdAt: now,
    });
  return cents;
}

const paymentView = (row: InvoicePaymentRow, names: Map<string, string>): InvoicePaymentView => ({
  id: row.id,
  date: row.paidOn,
  amount: fromCents(row.amountCents),
  discount: fromCents(row.discountCents),
  note: row.note,
  by: { userId: row.recordedBy, name: names.get(row.recordedBy) ?? null },
  recordedAt: toIso(row.createdAt),
});

/** Payments (part of the invoices service): recorded by owners and the operator, read by whoever reads the invoice. */
export function createPayments({ repo, ports, clock, write, access, defaultTimeZone }: InvoiceMoveParts) {
  const { findInvoice, requireOwner, actingMember } = access;
  const { moveDate } = createNumbering({ repo, ports, clock, defaultTimeZone });
  return {
    /**
     * Records a payment against an issued invoice: on `date` (a calendar day as given, default the
     * acting member's today in their zone; not before the issue date, not after today), of
     * `amount` (never more than is still due: refused saying how much is), with a note. The
     * invoice's sums follow in the same write; when nothing is left to pay it becomes paid on that
     * day (`invoice.status_changed`), else the payment is a sync event only (no webhook: the
     * status did not change). One write.
     */
    pay(principal: Principal, id: string, input: PaymentInput): PaymentResult {
      const note = noteOf(input.note);
      return write((record) => {
        const current = findInvoice(principal, id);
        requireOwner(principal, current.workspaceId, 'record payments', () => errors.notFound(id));
        const acting = actingMember(principal, current.workspaceId, input.userId);
        if (current.status !== 'sent') refuseStatus(current);
        const cents = paymentCents(input.amount, current.currency);
        let paidOn: string;
        try {
          paidOn = moveDate(acting.userId, input.date, 'payment date');
        } catch (error) {
          if (error instanceof DomainError)
            throw new DomainError(error.code, error.message, {
              field: 'date',
              ...(error.people === undefined ? {} : { people: error.people }),
              ...(error.words === undefined ? {} : { words: error.words }),
            });
          throw error;
        }
        if (current.issueDate !== null && paidOn < current.issueDate)
          throw new DomainError(
            'invalid',
            `The payment date ${paidOn} is before the issue date ${current.issueDate} of ${current.number ?? id}: date it on or after that day.`,
            { field: 'date', words: words('invoicing.refused.payment.beforeIssue', { date: paidOn, issued: current.issueDate }) },
          );
        const before = view(current);
        const dueCents = toCents(before.amountDue);
        if (cents > dueCents) {
          const paid = current.paidCents + current.discountCents;
          const message = `A payment of ${money(cents, current.currency)} is more than the ${money(dueCents, current.currency)} still due on ${current.number ?? id} (${money(toCents(before.grossTotal), current.currency)}${paid > 0 ? `, of which ${money(paid, current.currency)} paid` : ''}): record at most ${money(dueCents, current.currency)}; money paid beyond that is given back outside timetrack.`;
          const amounts = {
            amount: money(cents, current.currency),
            due: money(dueCents, current.currency),
            gross: money(toCents(before.grossTotal), current.currency),
          };
          throw new DomainError('invalid', message, {
            field: 'amount',
            words:
              paid > 0
                ? words('invoicing.refused.payment.overpaidPart', { ...amounts, paid: money(paid, current.currency) })
                : words('invoicing.refused.payment.overpaid', amounts),
          });
        }
        const discount = 0;
        const settles = cents + discount === dueCents;
        const now = clock.now();
        const paymentId = newId('ipay');
        repo.insertPayment({
          id: paymentId,
          workspaceId: current.workspaceId,
          invoiceId: id,
          paidOn,
          amountCents: cents,
          discountCents: discount,
          note,
          recordedBy: acting.userId,
          createdAt: now,
        });
        const row = repo.update(id, {
          paidCents: current.paidCents + cents,
          discountCents: current.discountCents + discount,
          ...(settles ? { status: 'paid' as const, paidDate: paidOn } : {}),
          updatedAt: now,
        });
        if (settles) recordMove(record, row, acting, current.status);
        else
          // The amount due changed, the status did not: the sync log and the live pages learn of it, no webhook is sent.
          record({
            workspaceId: row.workspaceId,
            entity: 'invoice',
            entityId: id,
            operation: 'update',
            event: null,
            actor: acting,
            payload: { invoice: view(row) },
          });
        const after = view(row);
        return {
          id: paymentId,
          invoiceId: id,
          number: row.number,
          date: paidOn,
          amount: fromCents(cents),
          discount: fromCents(discount),
          amountDue: after.amountDue,
          status: row.status,
          currency: row.currency,
        };
      });
    },

    /** An invoice's payments, in the order they were recorded (whoever reads the invoice). */
    payments(principal: Principal, id: string): InvoicePaymentView[] {
      findInvoice(principal, id);
      const rows = repo.payments(id);
      const names = new Map(ports.userNames([...new Set(rows.map((r) => r.recordedBy))]).map((u) => [u.id, u.name]));
      return rows.map((row) => paymentView(row, names));
    },
  };
}
