import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Rounding on the pages (issue 56 item 4): the Workspace page's rule, a client's own in its
 * Invoicing details, the invoice that keeps its rule, the Reports page's choice and its downloads.
 */
describe('web app: rounding (issue 56 item 4)', () => {
  let server: TestServer;
  let owner: SettingsClient;
  let acme: { id: string };
  let site: { id: string };
  beforeEach(async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: 19 });
    acme = (await server.request('POST', '/api/v1/clients', { json: { name: 'Acme' } })).body.data;
    site = (
      await server.request('POST', '/api/v1/projects', { json: { name: 'Site', clientId: acme.id, billable: true, hourlyRate: 100 } })
    ).body.data;
    // A timer of 30:40 (0.511111 h) and one of 10 s (0.002778 h), in October.
    for (const [start, end] of [
      ['2026-10-05T09:00:00Z', '2026-10-05T09:30:40Z'],
      ['2026-10-06T09:00:00Z', '2026-10-06T09:00:10Z'],
    ]) {
      const made = await server.request('POST', '/api/v1/entries', { json: { projectId: site.id, start, end } });
      expect(made.status, made.text).to.equal(200);
    }
  });
  afterEach(() => server.close());

  const rules = () => server.services.invoices.clientRoundings(OPERATOR, server.workspaceId);
  const settings = () => server.services.invoices.settings(OPERATOR, server.workspaceId);
  const saveInvoicing = (form: Record<string, string>) =>
    owner.submit('/settings/workspace', '/settings/workspace/invoicing', {
      numberPattern: '',
      taxCategory: 'S',
      taxRate: '19',
      exemptionReason: '',
      exemptionReasonCode: '',
      language: 'en',
      ...form,
    });

  it('the Workspace page sets the rule (none by default) and refuses one that is none of the 24 at its field, saving nothing', async () => {
    const page = flat((await owner.get('/settings/workspace')).text);
    expect(page).to.include('<label for="inv-rounding">Rounding');
    expect(page).to.include('<option value="" selected>None: as tracked</option>');
    expect(page).to.include('<option value="up-15" >Up to 15 minutes</option>');
    expect(page).to.include('<option value="nearest-6" >To the nearest 6 minutes</option>');
    expect(page.match(/<option value="(up|nearest|down)-\d+"/g)).to.have.length(24);

    const saved = await saveInvoicing({ rounding: 'up-15' });
    expect([saved.status, saved.headers.get('location')], saved.text).to.deep.equal([
      303,
      '/settings/workspace?done=saved#invoicing-heading',
    ]);
    expect(settings().rounding).to.equal('up-15');
    expect(flat((await owner.get('/settings/workspace')).text)).to.include('<option value="up-15" selected>Up to 15 minutes</option>');

    const refused = await saveInvoicing({ rounding: 'up-7', language: 'de' });
    expect(refused.status).to.equal(400);
    const text = flat(refused.text);
    expect(text).to.match(/<select id="inv-rounding" name="rounding" aria-invalid="true" aria-describedby="inv-rounding-error"/);
    expect(text).to.include(
      '<span class="field-error" id="inv-rounding-error">&quot;up-7&quot; is no rounding rule: choose none, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes.</span>',
    );
    expect(settings()).to.deep.include({ rounding: 'up-15', language: 'en' });

    const cleared = await saveInvoicing({ rounding: '' });
    expect(cleared.status).to.equal(303);
    expect(settings().rounding).to.equal(null);
  });

  it('a client’s Invoicing details set its own rule (owners); the API’s client does not carry it; a refused rule writes nothing', async () => {
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { rounding: 'up-15' });
    const page = flat((await owner.get('/app/catalog')).text);
    expect(page).to.include(`<select id="${acme.id}-rounding" name="rounding"`);
    expect(page).to.include('<option value="" selected>The workspace\'s (up to 15 minutes)</option>'.replace("'", '&#39;'));
    expect(page).to.include('<option value="none" >None: as tracked</option>');

    const edit = (rounding: string) => owner.submit('/app/catalog', `/app/catalog/client/${acme.id}`, { name: 'Acme', rounding });
    const saved = await edit('nearest-6');
    expect([saved.status, saved.headers.get('location')], saved.text).to.deep.equal([303, `/app/catalog#client-${acme.id}`]);
    expect(rules().get(acme.id)).to.equal('nearest-6');
    const listed = flat((await owner.get('/app/catalog')).text);
    expect(listed).to.include('rounded to the nearest 6 minutes');
    expect(listed).to.include('<option value="nearest-6" selected>To the nearest 6 minutes</option>');
    const api = (await server.request('GET', `/api/v1/clients/${acme.id}`)).body.data;
    expect(api).to.not.have.property('rounding');

    expect((await edit('none')).status).to.equal(303);
    expect(rules().get(acme.id)).to.equal('none');
    expect(flat((await owner.get('/app/catalog')).text)).to.include('not rounded');

    const refused = await edit('up-7');
    expect(refused.status).to.equal(400);
    expect(flat(refused.text)).to.match(new RegExp(`<select id="${acme.id}-rounding" name="rounding" aria-invalid="true"`));
    expect(rules().get(acme.id)).to.equal('none');
    // A new client with a refused rule is not made at all.
    const made = await owner.submit('/app/catalog', '/app/catalog/client', { name: 'Globex', rounding: 'sideways-5' });
    expect(made.status).to.equal(400);
    const names = (await server.request('GET', '/api/v1/clients')).body.data.map((c: { name: string }) => c.name);
    expect(names).to.deep.equal(['Acme']);
    // Blank: back to the workspace's.
    expect((await edit('')).status).to.equal(303);
    expect(rules().has(acme.id)).to.equal(false);
  });

  it('a member who is no owner has no rounding field, and a post of one is not read', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    expect((await member.get('/app/catalog')).text).to.not.include('name="rounding"');
    const saved = await member.submit('/app/catalog', `/app/catalog/client/${acme.id}`, { name: 'Acme', rounding: 'up-60' });
    expect(saved.status).to.equal(303);
    expect(rules().has(acme.id)).to.equal(false);
  });

  it('the new invoice’s preview says the rule and the time tracked and invoiced; the invoice keeps its rule and prints two decimals', async () => {
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { rounding: 'up-15' });
    const form = { clientId: acme.id, from: '2026-10-01', to: '2026-10-31', groupBy: 'entry', note: '' };
    const preview = flat((await owner.submit('/app/invoices/new', '/app/invoices/new', { ...form, intent: 'preview' })).text);
    expect(preview).to.include('Each entry rounded up to 15 minutes before the lines are made: 0:30:50 tracked, 1:00:00 invoiced.');
    const made = await owner.submit('/app/invoices/new', '/app/invoices/new', { ...form, intent: 'create' });
    expect(made.status, made.text).to.equal(303);
    const id = /inv_[\w-]+$/.exec(made.headers.get('location') ?? '')?.[0] as string;
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { rounding: 'down-1' });
    const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(detail).to.include(
      '<dt>Rounding</dt> <dd> each entry up to 15 minutes <span class="hint inline">(as it was made; the settings changed later do not change it)</span> </dd>',
    );
    // The exact hours the PDF prints, and the time as people read it.
    expect(detail).to.include('<td data-label="Quantity" class="num">0.75 h <span class="hint">(0:45)</span></td>');
    expect(detail).to.include('<td data-label="Quantity" class="num">0.25 h <span class="hint">(0:15)</span></td>');
    expect(detail).to.not.include('0.511111');
    expect(server.services.invoices.get(OPERATOR, id).netTotal).to.equal(100);
  });

  it('the Reports page rounds when asked, says the rule, and its downloads carry the choice; the REST API’s report stays as tracked', async () => {
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { rounding: 'up-15' });
    const range = 'from=2026-10-01&to=2026-10-31&groupBy=project';
    const plain = flat((await owner.get(`/app/reports?${range}`)).text);
    expect(plain).to.include('<input id="report-rounded" type="checkbox" name="rounded" value="1" />');
    expect(plain).to.include('<strong>0:30</strong>');
    expect(plain).to.not.include('Rounded as invoices are');

    const rounded = flat((await owner.get(`/app/reports?${range}&rounded=1`)).text);
    expect(rounded).to.include('<input id="report-rounded" type="checkbox" name="rounded" value="1" checked />');
    expect(rounded).to.include('<p class="hint rounded-rule">Rounded as invoices are, each entry on its own: up to 15 minutes.</p>');
    expect(rounded).to.include('<strong>1:00</strong>');
    expect(rounded).to.include('€100.00');
    // The download form carries the choice.
    expect(rounded).to.include('<input type="hidden" name="rounded" value="1" />');

    const cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const csv = await fetch(`${server.url}/app/reports/export?${range}&rounded=1&kind=detailed&format=csv`, { headers: { cookie } });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-disposition')).to.equal(
      'attachment; filename="timetrack-entries-2026-10-01-to-2026-10-31-rounded.csv"',
    );
    const lines = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines.slice(1).map((line) => line.split(',')[3])).to.deep.equal(['0.75', '0.25']);
    const asTracked = await fetch(`${server.url}/app/reports/export?${range}&kind=detailed&format=csv`, { headers: { cookie } });
    expect(asTracked.headers.get('content-disposition')).to.equal('attachment; filename="timetrack-entries-2026-10-01-to-2026-10-31.csv"');
    const tracked = (await asTracked.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(tracked.slice(1).map((line) => line.split(',')[3])).to.deep.equal(['0.51', '0.00']);

    const api = await server.request('GET', '/api/v1/reports/summary?from=2026-10-01&to=2026-10-31&timeZone=UTC');
    expect(api.status, api.text).to.equal(200);
    expect(api.body.data.totals).to.deep.equal({ durationSec: 1850, billableSec: 1850, amount: 51.39, entryCount: 2 });
  });
});
