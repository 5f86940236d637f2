import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { loadContract } from '../../../src/contract.js';
import type { DomainError } from '../../../src/errors.js';
import { einvoiceOf } from '../../../src/modules/invoices/documents/model.js';
import { paymentCents } from '../../../src/modules/invoices/service.js';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * Payments against an issued invoice (issue 57 item 3, decisions §12) over the real services on
 * :memory:, the clock at 2026-11-02T10:00:30Z: the amount due falls with each payment (exact
 * cents), the last one makes the invoice paid on its day, a payment above what is due is refused
 * saying how much is, dates are the acting member's days, and who may record them.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(loadContract() as object, 'contract');
const expectContractInvoice = (invoice: unknown) => {
  const validate = ajv.getSchema('contract#/components/schemas/Invoice')!;
  expect(validate(invoice), JSON.stringify(validate.errors)).to.equal(true);
};

const expectRefused = (fn: () => unknown, code: DomainError['code'], pattern?: RegExp): DomainError => {
  const error = refusal(fn);
  expect(error.code, error.message).to.equal(code);
  if (pattern) expect(error.message).to.match(pattern);
  return error;
};

/** A workspace at 19 % with an issued invoice of 9.5 hours at 100: 950.00 net, 180.50 VAT, 1,130.50 gross, issued 2026-10-30. */
function setup() {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
    legalName: 'Ada Lovelace Design',
    country: 'DE',
    taxNumber: '30/123/45678',
  });
  const clientId = services.catalog.clients.create(owner, { name: 'Acme', country: 'DE' } as never).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
  services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T18:30:00Z', billable: true });
  const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
  const events = () => services.events.tail(OPERATOR, workspaceId, 0, 10_000);
  return {
    ...world,
    id,
    events,
    issue: () => services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2026-10-30' }),
    pay: (amount: string | number, more: { date?: string; note?: string; by?: Actor } = {}) =>
      services.invoices.pay(more.by ?? OPERATOR, id, {
        amount,
        ...(more.by ? {} : { userId: ownerId }),
        ...(more.date ? { date: more.date } : {}),
        ...(more.note ? { note: more.note } : {}),
      }),
    get: () => services.invoices.get(OPERATOR, id),
  };
}

describe('invoices service: payments', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('each payment lowers the amount due by exactly its cents; the last makes the invoice paid on its day', () => {
    w.issue();
    expect(w.get()).to.deep.include({ status: 'sent', grossTotal: 1130.5, amountDue: 1130.5 });
    const before = w.events().length;
    // Three thirds of 1,130.50 that do not divide evenly: 376.83 + 376.83 + 376.84.
    expect(w.pay('376.83', { date: '2026-10-31', note: 'First third' })).to.deep.include({
      invoiceId: w.id,
      number: '2026-0001',
      date: '2026-10-31',
      amount: 376.83,
      discount: 0,
      amountDue: 753.67,
      status: 'sent',
      currency: 'EUR',
    });
    expect(w.get()).to.deep.include({ status: 'sent', amountDue: 753.67, paidDate: null });
    expectContractInvoice(w.get());
    // A partial payment is a sync event of the invoice (its amount due changed), no webhook event.
    const partial = w.events().slice(before);
    expect(partial.map((e) => [e.entity, e.operation, e.event])).to.deep.equal([['invoice', 'update', null]]);
    expect((partial[0]!.payload as { invoice: unknown }).invoice).to.deep.equal(w.get());

    expect(w.pay('376,83', { date: '2026-11-01' }).amountDue).to.equal(376.84);
    const last = w.pay(376.84);
    expect(last).to.deep.include({ date: '2026-11-02', amountDue: 0, status: 'paid' });
    expect(w.get()).to.deep.include({ status: 'paid', paidDate: '2026-11-02', amountDue: 0 });
    const moved = w.events().slice(before + 2);
    expect(moved.map((e) => e.event)).to.deep.equal(['invoice.status_changed']);
    expect(moved[0]!.payload).to.deep.equal({ invoice: w.get(), from: 'sent', to: 'paid' });
    expectContractInvoice(w.get());

    const payments = w.services.invoices.payments(OPERATOR, w.id);
    expect(payments.map((p) => [p.date, p.amount, p.note, p.by.name])).to.deep.equal([
      ['2026-10-31', 376.83, 'First third', 'Owner'],
      ['2026-11-01', 376.83, null, 'Owner'],
      ['2026-11-02', 376.84, null, 'Owner'],
    ]);
    // Paid is final: no more payments.
    expectRefused(() => w.pay('1'), 'conflict', /is paid: nothing is due on it/);
  });

  it('refuses a payment above what is still due, saying how much is; nothing is written', () => {
    w.issue();
    w.pay('1000');
    const before = { invoice: w.get(), events: w.events().length };
    const error = expectRefused(
      () => w.pay('130.51'),
      'invalid',
      /^A payment of 130\.51 EUR is more than the 130\.50 EUR still due on 2026-0001 \(1130\.50 EUR, of which 1000\.00 EUR paid\): record at most 130\.50 EUR/,
    );
    expect(error.field).to.equal('amount');
    expect(w.get()).to.deep.equal(before.invoice);
    expect(w.events()).to.have.length(before.events);
    expect(w.services.invoices.payments(OPERATOR, w.id)).to.have.length(1);
  });

  it('takes amounts as exact cents: a point or a comma and two decimals at most, above 0; anything else is refused at the amount', () => {
    expect(paymentCents('1130.5', 'EUR')).to.equal(113050);
    expect(paymentCents('1130,50', 'EUR')).to.equal(113050);
    expect(paymentCents(' 7 ', 'EUR')).to.equal(700);
    expect(paymentCents(0.1 + 0.2, 'EUR')).to.equal(30);
    expect(paymentCents(376.84, 'EUR')).to.equal(37684);
    for (const bad of ['0', '0.00', '-5', '1.130,50', '1,130.50', '12.345', 'ten', '', '1e3', 0, -1, 1.005, Number.NaN])
      expect(refusal(() => paymentCents(bad, 'EUR')).message, String(bad)).to.match(
        /^The amount must be an amount of EUR above 0 with at most two decimals, such as 250 or 250\.50/,
      );
    w.issue();
    expect(expectRefused(() => w.pay('12.345'), 'invalid').field).to.equal('amount');
  });

  it('dates a payment on the day given or the acting member’s today in their zone; not before the issue date, nor after today', () => {
    w.issue();
    const error = expectRefused(
      () => w.pay('10', { date: '2026-10-29' }),
      'invalid',
      /^The payment date 2026-10-29 is before the issue date 2026-10-30 of 2026-0001: date it on or after that day\.$/,
    );
    expect(error.field).to.equal('date');
    expect(expectRefused(() => w.pay('10', { date: '2026-11-03' }), 'invalid', /after today \(2026-11-02 in UTC/).field).to.equal('date');
    expectRefused(() => w.pay('10', { date: '2026-02-30' }), 'invalid');
    // 10:00 UTC on 2 November is already 3 November at UTC+14: the acting member's today.
    w.services.accounts.setPreferences(OPERATOR, w.ownerId, { timeZone: 'Pacific/Kiritimati' });
    expect(w.pay('10').date).to.equal('2026-11-03');
    expect(w.pay('10', { date: '2026-11-03' }).date).to.equal('2026-11-03');
  });

  it('takes payments only on an issued invoice; a draft, a paid and a void one say why', () => {
    expectRefused(() => w.pay('10'), 'conflict', /is a draft: issue it first/);
    w.issue();
    w.pay('100');
    w.services.invoices.void(OPERATOR, w.id, { userId: w.ownerId });
    expect(w.get()).to.deep.include({ status: 'void', amountDue: 0 });
    expectRefused(() => w.pay('10'), 'conflict', /is void: nothing is due on it/);
  });

  it('marking paid records what is still due as a payment of that day, so the payments add up to the total', () => {
    w.issue();
    w.pay('130.50', { date: '2026-10-31' });
    w.services.invoices.markPaid(OPERATOR, w.id, { userId: w.ownerId, date: '2026-11-01' });
    expect(w.get()).to.deep.include({ status: 'paid', paidDate: '2026-11-01', amountDue: 0 });
    expect(w.services.invoices.payments(OPERATOR, w.id).map((p) => [p.date, p.amount])).to.deep.equal([
      ['2026-10-31', 130.5],
      ['2026-11-01', 1000],
    ]);
  });

  it('a later document states what was paid (BT-113) and what is still due (BT-115)', () => {
    w.issue();
    expect(einvoiceOf(w.get(), false).totals).to.deep.include({ grand: '1130.50', prepaid: '0.00', payable: '1130.50' });
    w.pay('500');
    expect(einvoiceOf(w.get(), false).totals).to.deep.include({ grand: '1130.50', prepaid: '500.00', payable: '630.50' });
    w.services.invoices.void(OPERATOR, w.id, { userId: w.ownerId });
    // The credit note cancels the whole invoice; the void invoice states nothing paid or due.
    expect(einvoiceOf(w.get(), true).totals).to.deep.include({ prepaid: '0.00', payable: '1130.50' });
  });

  it('owners and the operator record payments; a member who reads invoices is refused; anyone else finds nothing', () => {
    w.issue();
    const reader = w.member({ canViewOthersTime: true, canViewOthersMoney: true });
    expectRefused(() => w.pay('10', { by: reader }), 'forbidden', /Only the workspace's owners record payments/);
    expect(w.services.invoices.payments(reader, w.id)).to.deep.equal([]);
    const other = w.member({ canViewOthersTime: true });
    expectRefused(() => w.pay('10', { by: other }), 'not_found');
    expectRefused(() => w.services.invoices.payments(other, w.id), 'not_found');
    expect(w.pay('10', { by: w.owner })).to.deep.include({ amountDue: 1120.5 });
    expectRefused(() => w.services.invoices.pay(OPERATOR, w.id, { amount: '10' }), 'invalid', /Name the member who acts/);
  });

  it('refuses a note of more than 500 characters or with control characters, at the note', () => {
    w.issue();
    expect(expectRefused(() => w.pay('10', { note: 'x'.repeat(501) }), 'invalid', /at most 500 characters/).field).to.equal('note');
    expect(expectRefused(() => w.pay('10', { note: 'a\u202Eb' }), 'invalid', /control/).field).to.equal('note');
    expect(w.services.invoices.payments(OPERATOR, w.id)).to.deep.equal([]);
  });
});
