import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Payments on an invoice's page (issue 57 item 3), over real HTTP, the clock at 2026-11-02: the
 * owner records a part, the page lists it and what is still due; a payment above that is refused
 * at the amount with what was typed kept; the last one makes the invoice paid; a member who reads
 * invoices sees the payments and gets no form (and 403 when posting).
 */
describe('web app: payments on an invoice’s page', function () {
  this.timeout(60_000);
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  let id: string;
  const flat = (text: string) => text.replace(/\s+/g, ' ');

  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const { clientId } = freelancer(server);
    id = server.services.invoices.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: server.ownerId,
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    server.services.invoices.issue(OPERATOR, id, { userId: server.ownerId, date: '2026-10-30' });
  });

  const pay = async (client: SettingsClient, form: Record<string, string>) => {
    const page = await client.get(`/app/invoices/${id}`);
    return client.post(`/app/invoices/${id}/payments`, { _csrf: SettingsClient.csrf(page.text), ...form });
  };

  it('records a part, lists it with what is still due, refuses more than that at the amount, and the last payment makes it paid', async () => {
    const page = flat((await owner.get(`/app/invoices/${id}`)).text);
    // The form prefills what is due and the owner's today.
    expect(page).to.include('<h2 id="payments-heading">Payments</h2> <p class="hint">No payment recorded yet.</p>');
    expect(page).to.match(/id="payment-amount" name="amount" inputmode="decimal" required value="1130\.50"/);
    expect(page).to.match(/id="payment-date" type="date" name="date" required value="2026-11-02"/);

    const first = await pay(owner, { amount: '500', date: '2026-10-31', note: 'Transfer 4711' });
    expect(first.status, first.text.slice(0, 1000)).to.equal(303);
    const after = flat((await owner.follow(first, `/app/invoices/${id}`)).text);
    expect(after).to.include('Payment of €500.00 received on 31 Oct 2026 recorded: €630.50 is still due.');
    expect(after).to.match(
      /<td data-label="Received on" class="c-time">31 Oct 2026<\/td> <td data-label="Amount" class="num"> €500\.00 <\/td> <td data-label="Note">Transfer 4711<\/td> <td data-label="Recorded by">Owner<\/td>/,
    );
    expect(after).to.match(
      /<dt>Paid<\/dt> <dd class="num">€500\.00<\/dd> <dt>Still due<\/dt> <dd class="num"><strong>€630\.50<\/strong><\/dd>/,
    );
    expect(after).to.match(/id="payment-amount" name="amount" inputmode="decimal" required value="630\.50"/);

    const over = await pay(owner, { amount: '630.51', date: '2026-11-01', note: 'too much' });
    expect(over.status).to.equal(400);
    const refused = flat(over.text);
    expect(refused).to.match(
      /aria-invalid="true" aria-describedby="payment-amount-error" \/> <span class="field-error" id="payment-amount-error">A payment of €630\.51 is more than the €630\.50 still due \(€1,130\.50, of which €500\.00 paid\): record at most €630\.50; money paid beyond that is given back outside timetrack\.<\/span>/,
    );
    // What was typed stays.
    expect(refused).to.match(/value="630\.51"/);
    expect(refused).to.match(/id="payment-date" type="date" name="date" required value="2026-11-01"/);
    expect(refused).to.match(/id="payment-note" name="note" maxlength="500" value="too much"/);
    expect(server.services.invoices.get(OPERATOR, id).amountDue).to.equal(630.5);

    const last = await pay(owner, { amount: '630,50', date: '2026-11-02', note: '' });
    expect(last.status).to.equal(303);
    const paid = flat((await owner.follow(last, `/app/invoices/${id}`)).text);
    expect(paid).to.include('Payment of €630.50 received on 2 Nov 2026 recorded: nothing is left to pay, the invoice is paid.');
    expect(paid).to.include('<span class="badge status-paid good">Paid</span>');
    expect(paid).to.include('<dt>Paid on</dt> <dd>2 Nov 2026</dd>');
    expect(paid).not.to.include('id="payment-amount"');
    // A paid invoice takes no more: said above the page (409).
    const again = await owner.post(`/app/invoices/${id}/payments`, { _csrf: SettingsClient.csrf(paid), amount: '1', date: '2026-11-02' });
    expect(again.status).to.equal(409);
    expect(flat(again.text)).to.include('This invoice is paid: nothing is due on it, so it takes no more payments');
  });

  it('a member who reads invoices sees the payments and no form; posting one is refused (403)', async () => {
    server.services.invoices.pay(OPERATOR, id, { amount: '100', date: '2026-10-31', userId: server.ownerId });
    const { accounts } = server.services;
    const userId = accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` }).id;
    accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId, canViewOthersTime: true, canViewOthersMoney: true });
    const reader = new SettingsClient(server);
    await reader.setUp(userId, PASSWORD);
    const page = flat((await reader.get(`/app/invoices/${id}`)).text);
    expect(page).to.include('<h2 id="payments-heading">Payments</h2>');
    expect(page).to.include('<td data-label="Received on" class="c-time">31 Oct 2026</td>');
    expect(page).not.to.include('id="payment-amount"');
    const posted = await reader.post(`/app/invoices/${id}/payments`, {
      _csrf: SettingsClient.csrf(page),
      amount: '10',
      date: '2026-11-02',
    });
    expect(posted.status).to.equal(403);
    expect(server.services.invoices.payments(OPERATOR, id)).to.have.length(1);
  });
});
