import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The Issue form of an invoice in another currency than the issuer's VAT currency (issue 56 item
 * 10): it asks the exchange rate only when the invoice carries VAT; a reverse-charge invoice in
 * francs issues without one and states no VAT in euros.
 */
describe('web app: issuing a foreign-currency invoice without VAT (issue 56 item 10)', function () {
  this.timeout(60_000);
  let server: TestServer;
  afterEach(() => server?.close());

  it('asks no exchange rate and issues without one; the invoice states no VAT in EUR', async () => {
    server = await startTestServer();
    server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { currency: 'CHF' });
    const { owner: actor, clientId } = freelancer(server, { country: 'AT', vatId: 'ATU13585627', taxCategory: 'AE' });
    const id = server.services.invoices.create(actor, {
      workspaceId: server.workspaceId,
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const confirm = await owner.get(`/app/invoices/${id}/issue`);
    expect(confirm.status).to.equal(200);
    expect(confirm.text).to.not.include('name="exchangeRate"');
    const issued = await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text) });
    expect(issued.status, issued.text.slice(0, 2000)).to.equal(303);
    const invoice = server.services.invoices.get(OPERATOR, id);
    expect(invoice).to.deep.include({ status: 'sent', currency: 'CHF', taxTotal: 0 });
    expect(invoice).to.not.have.property('vatCurrency');
    expect((await owner.get(`/app/invoices/${id}`)).text).to.not.include('VAT in EUR');
  });
});
