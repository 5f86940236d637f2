import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { loadContract } from '../../../src/contract.js';
import { translator } from '../../../src/i18n/index.js';
import { type InvoiceView } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * Manual lines (issue 57 item 1, decisions §12): a draft takes lines that are not time
 * (description, quantity, unit with its UN/ECE code, unit price, its own VAT or the invoice's),
 * after its lines of time; its breakdown and totals follow at once; only a draft takes or loses
 * them; the webhooks' invoice stays the contract's.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(loadContract() as object, 'contract');

function setup() {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  const client = (name: string, taxCategory: 'AE' | null = null) =>
    services.catalog.clients.create(owner, { name, ...(taxCategory === null ? {} : { taxCategory }) }).id;
  const draft = (clientId: string) => {
    const projectId = services.catalog.projects.create(owner, { name: 'Beratung', clientId, billable: true, hourlyRate: 100 }).id;
    services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T11:30:00Z', billable: true });
    return services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
  };
  return {
    ...world,
    client,
    draft,
    get: (id: string): InvoiceView => services.invoices.get(OPERATOR, id),
    events: () => services.events.tail(OPERATOR, workspaceId, 0, 10_000),
  };
}

const lines = (invoice: InvoiceView) =>
  invoice.lines.map((l) => [l.description, l.manual ?? null, l.amount, l.taxCategory, l.taxRate ?? null]);
const rows = (invoice: InvoiceView) => (invoice.taxBreakdown ?? []).map((r) => [r.category, r.rate, r.basisAmount, r.taxAmount]);

describe('invoices service: manual lines on a draft (issue 57 item 1)', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('a book at 7 % beside time at 19 %: its own row in the breakdown, quantity × price rounded once, totals exact; removed again, as before', () => {
    const id = w.draft(w.client('Verlag'));
    const before = w.get(id);
    expect(lines(before)).to.deep.equal([['Beratung', null, 250, 'S', 19]]);
    const { invoices } = w.services;
    expect(
      invoices.addLine(w.owner, id, {
        description: 'Fachbuch „Datenschutz“',
        quantity: '3',
        unit: 'pcs',
        unitPrice: '33,335',
        taxCategory: 'S',
        taxRate: '7',
      }),
    ).to.deep.equal({ id, line: 2 });
    expect(invoices.addLine(w.owner, id, { description: 'Lizenz', quantity: 1, unit: 'LS', unitPrice: 120 })).to.deep.equal({
      id,
      line: 3,
    });
    const after = w.get(id);
    expect(lines(after)).to.deep.equal([
      ['Beratung', null, 250, 'S', 19],
      // 3 × 33.335 = 100.005: rounded once, half away from zero.
      ['Fachbuch „Datenschutz“', { quantity: 3, unit: 'C62', unitPrice: 33.335 }, 100.01, 'S', 7],
      // No VAT of its own: the invoice's.
      ['Lizenz', { quantity: 1, unit: 'LS', unitPrice: 120 }, 120, 'S', 19],
    ]);
    expect(after.lines[1]).to.include({ projectId: null, quantitySec: 0, hourlyRate: null });
    expect(rows(after)).to.deep.equal([
      ['S', 7, 100.01, 7],
      ['S', 19, 370, 70.3],
    ]);
    expect([after.total, after.netTotal, after.taxTotal, after.grossTotal, after.amountDue]).to.deep.equal([
      470.01, 470.01, 77.3, 547.31, 547.31,
    ]);
    // No webhook and no event for a draft's line (as a fill): the next status change carries it.
    const events = w.events().length;
    expect(invoices.removeLine(w.owner, id, 2)).to.deep.equal({ id });
    expect(invoices.removeLine(OPERATOR, id, 2)).to.deep.equal({ id });
    expect(w.events().length).to.equal(events);
    const removed = w.get(id);
    expect([lines(removed), removed.taxBreakdown, removed.grossTotal]).to.deep.equal([
      lines(before),
      before.taxBreakdown,
      before.grossTotal,
    ]);
  });

  it('issued with its manual line: the line stays, the webhooks’ invoice is the contract’s (the line without its unit); then nothing changes it', () => {
    const { invoices } = w.services;
    invoices.setBusinessProfile(OPERATOR, w.workspaceId, {
      legalName: 'Jörg Weiß',
      addressLines: ['Torstraße 5'],
      postalCode: '10119',
      city: 'Berlin',
      country: 'DE',
      taxNumber: '30/123/45678',
    });
    const clientId = w.services.catalog.clients.create(w.owner, { name: 'Verlag', city: 'Köln', country: 'DE' } as never).id;
    const id = w.draft(clientId);
    invoices.addLine(w.owner, id, {
      description: 'Anfahrt',
      quantity: '42,5',
      unit: 'km',
      unitPrice: '0.30',
      taxCategory: 'S',
      taxRate: 19,
    });
    invoices.issue(w.owner, id);
    const issued = w.get(id);
    expect(issued.lines[1]).to.deep.include({ amount: 12.75, manual: { quantity: 42.5, unit: 'KMT', unitPrice: 0.3 } });
    const payload = w.events().at(-1)?.payload as { invoice: InvoiceView };
    expect(payload.invoice.lines[1]).to.deep.equal({
      description: 'Anfahrt',
      projectId: null,
      quantitySec: 0,
      hourlyRate: null,
      amount: 12.75,
      taxCategory: 'S',
      taxRate: 19,
    });
    const validate = ajv.getSchema('contract#/components/schemas/Invoice')!;
    expect(validate(payload.invoice), JSON.stringify(validate.errors)).to.equal(true);
    const locked = refusal(() => invoices.addLine(w.owner, id, { description: 'Mehr', quantity: 1, unitPrice: 1 }));
    expect([locked.code, locked.message]).to.deep.equal([
      'conflict',
      `Invoice ${issued.number as string} is sent: only a draft takes or loses lines (an issued invoice's lines are fixed; void it and make a new one).`,
    ]);
    expect(refusal(() => invoices.removeLine(w.owner, id, 2)).code).to.equal('conflict');
  });

  it('the client’s reverse charge wins over a line’s own VAT, as over a project’s', () => {
    const id = w.draft(w.client('Agentur NL', 'AE'));
    w.services.invoices.addLine(w.owner, id, { description: 'Buch', quantity: 2, unitPrice: 25, taxCategory: 'S', taxRate: 7 });
    const invoice = w.get(id);
    expect(lines(invoice).map((l) => l.slice(2))).to.deep.equal([
      [250, 'AE', 0],
      [50, 'AE', 0],
    ]);
    expect(rows(invoice)).to.deep.equal([['AE', 0, 300, 0]]);
  });

  it('what it takes: each refusal at its field, said for people too; a line of time is not removed; only owners and the operator', () => {
    const id = w.draft(w.client('Verlag'));
    const { invoices } = w.services;
    const good = { description: 'Lizenz', quantity: '1', unit: 'C62', unitPrice: '10', taxCategory: '', taxRate: '' };
    const cases: Array<[Partial<typeof good>, string, RegExp]> = [
      [{ description: '  ' }, 'description', /description is required/],
      [{ quantity: '0' }, 'quantity', /quantity must be a number above 0/],
      [{ quantity: 'zwei' }, 'quantity', /quantity must be a number above 0/],
      [{ quantity: '1.23456' }, 'quantity', /at most 4 decimals/],
      [{ unit: 'Kiste' }, 'unit', /unit must be one of C62 \(piece\), LS \(lump sum\)/],
      [{ unitPrice: '-5' }, 'unitPrice', /unitPrice must be a net price per unit of 0 or more/],
      [{ taxCategory: 'S' }, 'taxRate', /taxCategory S needs taxRate/],
      [{ taxCategory: 'AE' }, 'taxCategory', /are the client's or the workspace's/],
    ];
    for (const [patch, field, message] of cases) {
      const error = refusal(() => invoices.addLine(w.owner, id, { ...good, ...patch }));
      expect([error.code, error.field], JSON.stringify(patch)).to.deep.equal(['invalid', field]);
      expect(error.message).to.match(message);
      // Said for people: by key (said in the reader's language), else in English words.
      const people = error.words === undefined ? error.people : translator('en')(error.words.key, error.words.vars);
      expect(people, 'said for people')
        .to.be.a('string')
        .and.not.match(/unitPrice|taxRate|taxCategory/);
    }
    const time = refusal(() => invoices.removeLine(w.owner, id, 1));
    expect([time.code, time.field, time.message]).to.deep.equal([
      'invalid',
      'line',
      `Line 1 of invoice ${id} is time, not a manual line: time leaves an invoice only when the invoice is voided (which releases its entries).`,
    ]);
    expect(refusal(() => invoices.removeLine(w.owner, id, 2)).message).to.equal(`Invoice ${id} has no line 2: its lines are 1 to 1.`);
    // A member who reads invoices but is no owner: the draft is theirs to read, not to change.
    const reader = w.member({ canViewOthersTime: true, canViewOthersMoney: true });
    expect(refusal(() => invoices.addLine(reader, id, good)).code).to.equal('forbidden');
    // One who does not read invoices does not find it.
    expect(refusal(() => invoices.addLine(w.member(), id, good)).code).to.equal('not_found');
    expect(w.get(id).lines).to.have.length(1);
  });

  it('on the command line: invoice line add and remove; bad values exit 1 saying what to give, a wrong action exits 2', async () => {
    const id = w.draft(w.client('Verlag'));
    async function json(...argv: string[]) {
      let stdout = '';
      let stderr = '';
      const code = await runCli([...argv, '--json'], {
        openDatabase: () => ({ ...w.database, close: () => {} }),
        createServices: () => w.services,
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
      });
      return { code, out: stdout ? JSON.parse(stdout) : undefined, error: stderr ? JSON.parse(stderr).error : undefined };
    }
    const add = ['invoice', 'line', 'add', id, '--description', 'Lektorat pauschal', '--quantity', '1', '--unit', 'LS'];
    expect(await json(...add, '--price', '480', '--tax-category', 'S', '--tax-rate', '7')).to.deep.equal({
      code: 0,
      out: { id, line: 2 },
      error: undefined,
    });
    expect(w.get(id).lines[1]).to.deep.include({ amount: 480, taxRate: 7, manual: { quantity: 1, unit: 'LS', unitPrice: 480 } });
    // invoice show as a person reads it: the manual line in its unit at its price, the time in hours at its rate.
    let human = '';
    await runCli(['invoice', 'show', id], {
      openDatabase: () => ({ ...w.database, close: () => {} }),
      createServices: () => w.services,
      stdout: (text) => (human += text),
      stderr: () => {},
    });
    expect(human).to.match(/Beratung +2\.50 h × +100 = +250\.00 EUR {2}S 19 %/);
    expect(human).to.match(/Lektorat pauschal +1 LS × +480 = +480\.00 EUR {2}S 7 %/);
    const bad = await json(...add, '--price', '4,80 €');
    expect([bad.code, bad.error.code]).to.deep.equal([1, 'invalid']);
    expect(bad.error.message).to.match(/^unitPrice must be a net price per unit/);
    expect((await json('invoice', 'line', 'remove', id, '--line', '2')).out).to.deep.equal({ id });
    expect(w.get(id).lines).to.have.length(1);
    expect((await json('invoice', 'line', 'change', id)).code).to.equal(2);
    expect((await json('invoice', 'line', 'remove', id, '--line', 'two')).code).to.equal(2);
  });
});
