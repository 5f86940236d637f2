import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/*
 * `timetrack invoice pay` (issue 57 item 3), in process over the services on :memory:: a payment
 * recorded against an issued invoice, what is left, the paid invoice, the refusals (exit 1 with a
 * sentence, exit 2 for a missing option), and `invoice show` listing the payments.
 */
describe('timetrack invoice pay', () => {
  let w: ServiceWorld;
  let id: string;
  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => ({ ...w.database, close: () => {} }),
      createServices: () => w.services,
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr, json: argv.includes('--json') && code === 0 ? JSON.parse(stdout) : undefined };
  };

  beforeEach(() => {
    w = memoryServices();
    const { services, owner, workspaceId, ownerId } = w;
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
      legalName: 'Ada Lovelace Design',
      country: 'DE',
      taxNumber: '30/123/45678',
    });
    const clientId = services.catalog.clients.create(owner, { name: 'Acme', country: 'DE' } as never).id;
    const projectId = services.catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
    services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T18:30:00Z', billable: true });
    id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2026-10-30' });
  });
  afterEach(() => w.close());

  it('records a payment, says what is still due, and the last one makes the invoice paid', async () => {
    const first = await cli(
      'invoice',
      'pay',
      id,
      '--amount',
      '1000,50',
      '--date',
      '2026-10-31',
      '--note',
      'Transfer 4711',
      '--user',
      w.ownerId,
      '--json',
    );
    expect(first.code, first.stderr).to.equal(0);
    expect(first.json).to.deep.include({
      invoiceId: id,
      number: '2026-0001',
      date: '2026-10-31',
      amount: 1000.5,
      discount: 0,
      amountDue: 130,
      status: 'sent',
      currency: 'EUR',
    });
    expect(first.json.id).to.match(/^ipay_/);
    const second = await cli('invoice', 'pay', id, '--amount', '130', '--user', w.ownerId);
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stdout).to.equal(
      'recorded 130.00 EUR received on 2026-11-02 against 2026-0001: nothing is left to pay, the invoice is paid\n',
    );
    const shown = await cli('invoice', 'show', id, '--json');
    expect(shown.json.invoice).to.deep.include({ status: 'paid', paidDate: '2026-11-02', amountDue: 0 });
    expect(shown.json.payments.map((p: { date: string; amount: number; note: string | null }) => [p.date, p.amount, p.note])).to.deep.equal(
      [
        ['2026-10-31', 1000.5, 'Transfer 4711'],
        ['2026-11-02', 130, null],
      ],
    );
    const human = await cli('invoice', 'show', id);
    expect(human.stdout).to.include('paid 2026-10-31  1000.50 EUR  (Transfer 4711)  recorded by Owner\n');
  });

  it('refuses more than is due (exit 1, saying how much is), and a missing option (exit 2)', async () => {
    const over = await cli('invoice', 'pay', id, '--amount', '1130.51', '--user', w.ownerId);
    expect(over.code).to.equal(1);
    expect(over.stderr).to.match(
      /^timetrack: A payment of 1130\.51 EUR is more than the 1130\.50 EUR still due on 2026-0001 .*record at most 1130\.50 EUR/,
    );
    const json = await cli('invoice', 'pay', id, '--amount', '12.345', '--user', w.ownerId, '--json');
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stderr).error).to.deep.include({ code: 'invalid' });
    expect((await cli('invoice', 'pay', id, '--user', w.ownerId)).code).to.equal(2);
    expect(w.services.invoices.payments(OPERATOR, id)).to.deep.equal([]);
  });
});
