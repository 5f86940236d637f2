import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { expectProblem, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** Every field of the Invoicing details group, as a person fills it in (the form's names are the API's). */
const TYPED = {
  legalName: 'Landesamt für Häfen',
  addressLines: 'Kaistraße 7\r\n\r\n  Haus B  ',
  postalCode: '20457',
  city: 'Hamburg',
  country: 'de',
  vatId: 'DE129273398',
  taxId: '22/815/08150',
  email: 'rechnung@hafen.example',
  reference: '04011000-12345-03',
  electronicAddress: '04011000-12345-03',
  electronicAddressScheme: '0204',
  taxCategory: 'AE',
  exemptionReason: '',
  exemptionReasonCode: 'vatex-eu-ae',
};
/** …and as the API stores it: trimmed, the address one line per line, codes upper-cased, blanks null. */
const STORED = {
  legalName: 'Landesamt für Häfen',
  addressLines: ['Kaistraße 7', 'Haus B'],
  postalCode: '20457',
  city: 'Hamburg',
  country: 'DE',
  vatId: 'DE129273398',
  taxId: '22/815/08150',
  email: 'rechnung@hafen.example',
  reference: '04011000-12345-03',
  electronicAddress: '04011000-12345-03',
  electronicAddressScheme: '0204',
  taxCategory: 'AE',
  exemptionReason: null,
  exemptionReasonCode: 'VATEX-EU-AE',
};

/** The Catalog's client form: the recipient party and the VAT override (issue 35), owners only, nothing cleared that was not shown. */
describe("web app: a client's invoicing details", () => {
  let server: TestServer;
  let owner: SettingsClient;
  beforeEach(async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  afterEach(() => server.close());

  const post = (action: string, form: Record<string, string>) => owner.submit('/app/catalog', action, form);
  const api = async (path: string) => (await server.request('GET', path)).body.data;
  /** A second member, signed in: money visibility on (what the money rules ask), but no owner. */
  async function member(): Promise<SettingsClient> {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const client = new SettingsClient(server);
    await client.setUp(bea.id, PASSWORD);
    return client;
  }

  it('an owner sets them on a new client and changes them; the API and the invoice made for the client carry them', async () => {
    const page = flat((await owner.get('/app/catalog')).text);
    // Closed by default (the common form stays short), every field labelled, the EAS hint listing the common schemes.
    expect(page).to.match(/<details class="invoicing" ?> ?<summary>Invoicing details/);
    for (const name of Object.keys(TYPED)) expect(page, name).to.match(new RegExp(`<label for="new-client-${name}">`));
    expect(page).to.include(
      '<code>0204</code> Leitweg-ID, <code>9930</code> German VAT ID, <code>0088</code> GLN, <code>0208</code> Belgian enterprise number, <code>EM</code> email.',
    );

    const made = await post('/app/catalog/client', { name: 'Hafenamt', ...TYPED });
    const [client] = await api('/api/v1/clients');
    expect([made.status, made.headers.get('location')], made.text).to.deep.equal([303, `/app/catalog#client-${client.id}`]);
    expect(client).to.deep.include({ name: 'Hafenamt', ...STORED });

    // The invoices service reads the client as stored: the recipient party and the reverse charge.
    const project = (
      await server.request('POST', '/api/v1/projects', {
        json: { name: 'Pier survey', clientId: client.id, billable: true, hourlyRate: 100 },
      })
    ).body.data;
    const entry = await server.request('POST', '/api/v1/entries', {
      json: { projectId: project.id, start: '2026-10-05T09:00:00Z', end: '2026-10-05T11:00:00Z' },
    });
    expect(entry.status, entry.text).to.equal(200);
    const { workspaceId, ownerId: userId } = server;
    const { id } = server.services.invoices.create(OPERATOR, {
      workspaceId,
      userId,
      clientId: client.id,
      from: '2026-10-01',
      to: '2026-10-31',
    });
    const invoice = server.services.invoices.get(OPERATOR, id);
    const { taxCategory: _c, exemptionReason: _r, exemptionReasonCode: _x, ...party } = STORED;
    expect(invoice.recipient).to.deep.equal({ name: 'Hafenamt', ...party });
    expect(invoice.lines.map((line) => [line.taxCategory, line.taxRate])).to.deep.equal([['AE', 0]]);
    expect(invoice.taxBreakdown?.map((row) => row.exemptionReasonCode)).to.deep.equal(['VATEX-EU-AE']);

    // The owner's row shows the legal name, VAT ID and category; the edit form holds every value as stored.
    const raw = (await owner.get('/app/catalog')).text;
    const listed = flat(raw);
    expect(listed).to.include('Landesamt für Häfen · DE129273398 · reverse charge (AE)');
    expect(raw).to.match(
      new RegExp(`<textarea id="${client.id}-addressLines" name="addressLines"[^>]*>\\n?Kaistraße 7\nHaus B</textarea>`),
    );
    expect(listed).to.match(new RegExp(`id="${client.id}-vatId" name="vatId" type="text" value="DE129273398"`));
    expect(listed).to.include('<option value="AE" selected>AE: reverse charge</option>');

    // Changed and cleared through the form: an emptied field is null, the category back to the workspace's.
    const edited = await post(`/app/catalog/client/${client.id}`, {
      name: 'Hafenamt',
      ...TYPED,
      city: 'Hamburg-Altona',
      vatId: ' ',
      addressLines: '',
      taxCategory: '',
      exemptionReasonCode: '',
    });
    expect(edited.status, edited.text).to.equal(303);
    expect(await api(`/api/v1/clients/${client.id}`)).to.deep.include({
      ...STORED,
      city: 'Hamburg-Altona',
      vatId: null,
      addressLines: null,
      taxCategory: null,
      exemptionReasonCode: null,
    });
  });

  it('refuses a country that is not two letters, a scheme without an address and an exempt category without a reason at their fields, keeping what was typed', async () => {
    const refusedCases: Array<[Record<string, string>, string, RegExp]> = [
      [{ country: 'Germany' }, 'country', /^country: "Germany" is not accepted: send ISO 3166-1 alpha-2 code, upper case$/],
      [
        { electronicAddress: '', electronicAddressScheme: '0204' },
        'electronicAddressScheme',
        /^electronicAddressScheme "0204" names the kind of an electronic address, but the client has none: give its electronicAddress/,
      ],
      [
        { taxCategory: 'E', exemptionReason: '', exemptionReasonCode: '' },
        'exemptionReason',
        /^An exempt client \(taxCategory E\) must say why/,
      ],
    ];
    for (const [change, name, message] of refusedCases) {
      const refused = await post('/app/catalog/client', { name: 'Hafenamt', ...TYPED, ...change });
      expect(refused.status, name).to.equal(400);
      const text = flat(refused.text);
      // The group is open, the message at its field and tied to it, every value as typed.
      expect(text, name).to.match(/<details class="invoicing" open ?>/);
      const error = new RegExp(`<span class="field-error" id="new-client-${name}-error">([^<]+)</span>`).exec(text)?.[1];
      expect(error?.replace(/&quot;/g, '"'), name).to.match(message);
      expect(text, name).to.match(
        new RegExp(`id="new-client-${name}"[^>]*aria-invalid="true" aria-describedby="new-client-${name}-error"`),
      );
      expect(text, name).to.include('value="Landesamt für Häfen"');
      expect(text, name).to.include('value="22/815/08150"');
      expect(await api('/api/v1/clients'), name).to.deep.equal([]);
    }

    // The same rules over the API (the service's, not the page's), on a client as stored.
    const client = (await server.request('POST', '/api/v1/clients', { json: { name: 'Hafenamt' } })).body.data;
    for (const json of [{ electronicAddressScheme: '0204' }, { taxCategory: 'E' }]) {
      const refused = await server.request('PATCH', `/api/v1/clients/${client.id}`, { json });
      expectProblem(refused, 400, 'invalid-request', server.config.problemsBase);
    }
    const ok = await server.request('PATCH', `/api/v1/clients/${client.id}`, {
      json: { taxCategory: 'E', exemptionReasonCode: 'VATEX-EU-132', electronicAddress: 'ap@hafen.example', electronicAddressScheme: 'EM' },
    });
    expect(ok.status, ok.text).to.equal(200);
    // A refused edit in the page changes nothing either.
    const refusedEdit = await post(`/app/catalog/client/${client.id}`, { name: 'Renamed', ...TYPED, country: 'D' });
    expect(refusedEdit.status).to.equal(400);
    expect(await api(`/api/v1/clients/${client.id}`)).to.deep.include({ name: 'Hafenamt', country: null, taxCategory: 'E' });
  });

  it('is not shown to members who are not owners; their save keeps every invoicing value, and fields they post anyway are not read', async () => {
    const made = await post('/app/catalog/client', { name: 'Hafenamt', ...TYPED });
    expect(made.status).to.equal(303);
    const [client] = await api('/api/v1/clients');
    const bea = await member();
    const page = await bea.get('/app/catalog');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Hafenamt');
    expect(page.text).not.to.include('Invoicing details');
    expect(page.text).not.to.match(/name="(vatId|taxCategory|legalName|addressLines)"/);
    expect(page.text).not.to.include('DE129273398');

    const csrf = SettingsClient.csrf(page.text);
    const renamed = await bea.post(`/app/catalog/client/${client.id}`, { _csrf: csrf, name: 'Hafenamt Hamburg' });
    expect(renamed.status, renamed.text).to.equal(303);
    expect(await api(`/api/v1/clients/${client.id}`)).to.deep.include({ name: 'Hafenamt Hamburg', ...STORED });
    // A post carrying them (not the page's form): not read, nothing of them changes.
    const forged = await bea.post(`/app/catalog/client/${client.id}`, {
      _csrf: csrf,
      name: 'Hafenamt Hamburg',
      vatId: '',
      taxCategory: 'O',
    });
    expect(forged.status).to.equal(303);
    const created = await bea.post('/app/catalog/client', { _csrf: csrf, name: 'Kiosk', vatId: 'DE115235681', taxCategory: 'O' });
    expect(created.status).to.equal(303);
    expect(await api(`/api/v1/clients/${client.id}`)).to.deep.include({ vatId: 'DE129273398', taxCategory: 'AE' });
    const kiosk = (await api('/api/v1/clients')).find((c: { name: string }) => c.name === 'Kiosk');
    expect(kiosk).to.deep.include({ vatId: null, taxCategory: null });
  });
});
