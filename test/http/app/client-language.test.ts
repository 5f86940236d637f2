import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * A client's own document language on the Catalog page (decisions §12, issue 57 item 5): an owner
 * sets it in the client's Invoicing details, the list shows it, and the client's invoices of an
 * English workspace are German; French is refused at the field as not offered yet.
 */
describe('web app: a client’s document language (decisions §12)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let owner: SettingsClient;
  before(async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    owner.acceptLanguage = 'en';
  });
  after(() => server.close());

  it('an owner sets it on the client’s form, it is shown, and the client’s invoice of an English workspace is German; fr is refused', async () => {
    const { clientId } = freelancer(server);
    const languages = () => server.services.invoices.clientLanguages(OPERATOR, server.workspaceId);
    expect(server.services.invoices.settings(OPERATOR, server.workspaceId).language).to.equal('en');

    const page = flat((await owner.get('/app/catalog')).text);
    expect(page).to.include(`<select id="${clientId}-language" name="language" >`);
    expect(page).to.include('<option value="" selected>The workspace&#39;s (English)</option>');
    expect(page).to.include('<option value="en" lang="en" >English</option>');
    expect(page).to.include('<option value="de" lang="de" >Deutsch</option>');
    expect(page).to.not.include('value="fr"');

    const edit = (language: string) => owner.submit('/app/catalog', `/app/catalog/client/${clientId}`, { name: 'Acme', language });
    const saved = await edit('de');
    expect([saved.status, saved.headers.get('location')], saved.text).to.deep.equal([303, `/app/catalog#client-${clientId}`]);
    expect([...languages()]).to.deep.equal([[clientId, 'de']]);
    const listed = flat((await owner.get('/app/catalog')).text);
    expect(listed).to.include('documents: Deutsch');
    expect(listed).to.include('<option value="de" lang="de" selected>Deutsch</option>');
    // The REST API's client is the contract's: no language.
    const api = await server.request('GET', `/api/v1/clients/${clientId}`);
    expect(api.status).to.equal(200);
    expect(api.body.data).to.not.have.property('language');
    expect(api.body.data.legalName).to.equal('Acme GmbH');

    // French: its labels exist, but it is not offered yet; refused at the field, nothing written.
    const refused = await edit('fr');
    expect(refused.status).to.equal(400);
    const text = flat(refused.text);
    expect(text).to.match(
      new RegExp(`<select id="${clientId}-language" name="language" aria-invalid="true" aria-describedby="${clientId}-language-error"`),
    );
    expect(text).to.include(
      `<span class="field-error" id="${clientId}-language-error">Français (fr) is not offered for documents yet: its labels wait on a decision. Choose one of: English, Deutsch.</span>`,
    );
    expect([...languages()]).to.deep.equal([[clientId, 'de']]);

    // The client's invoice, made on the New invoice page of an English workspace, is German; issued, its terms are.
    const made = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      note: '',
      intent: 'create',
    });
    expect(made.status, made.text.slice(0, 2000)).to.equal(303);
    const id = /inv_[\w-]+$/.exec(made.headers.get('location') ?? '')?.[0] as string;
    expect(server.services.invoices.get(OPERATOR, id).language).to.equal('de');
    const confirm = await owner.get(`/app/invoices/${id}/issue`);
    const issued = await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text), date: '2026-11-02' });
    expect(issued.status, issued.text.slice(0, 2000)).to.equal(303);
    expect(server.services.invoices.get(OPERATOR, id)).to.deep.include({
      language: 'de',
      paymentTerms: 'Zahlbar innerhalb von 14 Tagen bis zum 16.11.2026.',
    });

    // Blank: back to the workspace's; the issued invoice keeps its German.
    expect((await edit('')).status).to.equal(303);
    expect(languages().size).to.equal(0);
    expect(server.services.invoices.get(OPERATOR, id).language).to.equal('de');
  });
});
