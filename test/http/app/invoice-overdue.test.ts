import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The Overdue view of the invoice list (issue 57 item 3), over real HTTP: `/app/invoices?status=overdue`
 * lists the sent invoices past their due date with something due, their days overdue and amount
 * due, and whether reminders are on; in English and in German. An invoice issued 2026-10-30 is
 * due 2026-11-13; the clock is moved past it.
 */
describe('web app: the Overdue view of the invoices', function () {
  this.timeout(60_000);
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  let id: string;
  const flat = (text: string) => text.replace(/\s+/g, ' ');
  /** The clock moved to `iso`, and the owner signed in afresh (a session idles out over days). */
  const at = async (iso: string) => {
    server.clock.set(Date.parse(iso));
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  };

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

  it('lists an invoice once its due date has passed, with its days overdue and what is still due; empty before', async () => {
    const before = flat((await owner.get('/app/invoices?status=overdue')).text);
    expect(before).to.include('<option value="overdue" selected>Overdue</option>');
    expect(before).to.include('<p class="empty">No invoice is overdue.</p>');
    expect(before).to.include('Payment reminders are off: an owner turns them on in Settings › Workspace › Invoicing.');

    server.services.invoices.pay(OPERATOR, id, { amount: '130.50', userId: server.ownerId, date: '2026-11-02' });
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { reminders: '7, 21' });
    await at('2026-11-20T12:00:00Z');
    const page = await owner.get('/app/invoices?status=overdue');
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<title>Overdue invoices');
    expect(text).to.include('Payment reminders are mailed 7, 21 days past the due date.');
    expect(text).to.match(
      new RegExp(
        `<td data-label="Number" class="c-number"> <a href="/app/invoices/${id}">2026-0001</a> </td> <td data-label="Client">Acme</td> <td data-label="Due" class="c-time">13 Nov 2026</td> <td data-label="Days overdue" class="num">7</td> <td data-label="Amount due" class="num">€1,000.00</td> <td data-label="Last reminder">None yet</td>`,
      ),
    );
    // The ordinary list does not change, and a paid invoice leaves the Overdue view.
    expect(flat((await owner.get('/app/invoices')).text)).to.match(/<option value="overdue"\s*>Overdue<\/option>/);
    server.services.invoices.pay(OPERATOR, id, { amount: '1000', userId: server.ownerId, date: '2026-11-20' });
    expect(flat((await owner.get('/app/invoices?status=overdue')).text)).to.include('<p class="empty">No invoice is overdue.</p>');
  });

  it('speaks German to a German reader', async () => {
    await at('2026-11-16T12:00:00Z');
    const text = flat((await owner.get('/app/invoices?status=overdue', { 'accept-language': 'de-DE,de;q=0.9' })).text);
    expect(text).to.include('<option value="overdue" selected>Überfällig</option>');
    expect(text).to.include('<th scope="col" class="num">Tage überfällig</th>');
    expect(text).to.include('<th scope="col" class="num">Offener Betrag</th>');
    expect(text).to.include('<td data-label="Letzte Erinnerung">Noch keine</td>');
    expect(text).to.include('<td data-label="Tage überfällig" class="num">3</td>');
    // Its days and money as a German reader reads them.
    expect(text).to.include('<td data-label="Fällig am" class="c-time">13.11.2026</td>');
    expect(text).to.include('<td data-label="Offener Betrag" class="num">1.130,50 €</td>');
  });
});
