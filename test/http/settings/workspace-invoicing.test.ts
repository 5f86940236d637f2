import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/&#123;/g, '{')
    .replace(/&#125;/g, '}');

/** The Workspace page's invoicing settings (issue 35): saved through the invoices service, refused at their fields, owners only. */
describe('settings: the workspace invoicing settings', () => {
  let server: TestServer;
  let owner: SettingsClient;
  beforeEach(async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  afterEach(() => server.close());

  const FORM = {
    numberPattern: ' RE-{yy}{mm}-{seq:3} ',
    taxCategory: 'S',
    taxRate: '7,7',
    exemptionReason: '',
    exemptionReasonCode: '',
    language: 'de',
    // Issue 57 item 4: Skonto as a German freelancer types it.
    earlyPayment: '2,5 % innerhalb von 10 Tagen',
    // Issue 57 item 3: payment reminders, the days past due of each level.
    reminders: '10; 30',
  };
  const save = (form: Record<string, string>) => owner.submit('/settings/workspace', '/settings/workspace/invoicing', form);
  const settings = () => server.services.invoices.settings(OPERATOR, server.workspaceId);

  it('shows the settings with the next number, saves them through the invoices service, and the example follows the series', async () => {
    // The form makes the workspace's documents German; the page is read in English here.
    owner.acceptLanguage = 'en';
    const page = flat((await owner.get('/settings/workspace')).text);
    expect(page).to.include('<h2 id="invoicing-heading">Invoicing</h2>');
    expect(page).to.match(/id="inv-numberPattern" name="numberPattern" type="text" value="\{yyyy\}-\{seq:4\}"/);
    // The tokens explained, and the number the next invoice issued today (2026-11-02 on the test's clock) would get.
    expect(page).to.include('<code>{seq}</code> the running number');
    expect(page).to.match(/Next number: <strong>2026-0001<\/strong> <span class="hint">\(an invoice issued on 2 Nov 2026\)<\/span>/);
    expect(page).to.include('<option value="S" selected>S: standard rate (the rate below)</option>');
    expect(page).to.include('<option value="en" selected>English</option>');

    const saved = await save(FORM);
    expect([saved.status, saved.headers.get('location')], saved.text).to.deep.equal([
      303,
      '/settings/workspace?done=saved#invoicing-heading',
    ]);
    expect(settings()).to.deep.equal({
      numberPattern: 'RE-{yy}{mm}-{seq:3}',
      taxCategory: 'S',
      taxRate: 7.7,
      exemptionReason: null,
      exemptionReasonCode: null,
      language: 'de',
      // The form sent no rounding (a form of before it): none, as a blank field resets a key.
      rounding: null,
      earlyPayment: '2.5 % within 10 days',
      reminders: '10, 30',
    });
    const after = flat((await owner.get('/settings/workspace?done=saved')).text);
    expect(after).to.include('Saved.');
    expect(after).to.include('id="inv-earlyPayment" name="earlyPayment" type="text" value="2.5 % within 10 days"');
    expect(after).to.include('id="inv-reminders" name="reminders" type="text" value="10, 30"');
    expect(after).to.match(/id="inv-taxRate" name="taxRate" type="text" value="7.7"/);
    expect(after).to.include('<option value="de" selected>Deutsch</option>');
    expect(after).to.include('Next number: <strong>RE-2611-001</strong>');

    // An invoice issued: the example is the one after it.
    const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Audit', billable: true, hourlyRate: 100 } })).body
      .data;
    const client = (await server.request('POST', '/api/v1/clients', { json: { name: 'Acme' } })).body.data;
    await server.request('PATCH', `/api/v1/projects/${project.id}`, { json: { clientId: client.id } });
    const entry = await server.request('POST', '/api/v1/entries', {
      json: { projectId: project.id, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z' },
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
    // What its PDF needs, filled (issuing checks it first: issue 56 item 1).
    server.services.invoices.fill(OPERATOR, id, userId, [
      ['issuer.legalName', 'Studio'],
      ['issuer.country', 'DE'],
      ['issuer.taxNumber', '30/123/45678'],
      ['recipient.country', 'DE'],
    ]);
    expect(server.services.invoices.changeStatus(OPERATOR, id, 'sent', userId)).to.deep.include({ number: 'RE-2611-001' });
    expect(flat((await owner.get('/settings/workspace')).text)).to.include('Next number: <strong>RE-2611-002</strong>');

    // Exempt with its reason and code; blank fields go back to their defaults.
    const exempt = await save({
      numberPattern: '',
      taxCategory: 'E',
      taxRate: '',
      exemptionReason: 'Kleinunternehmer gemäß § 19 UStG',
      exemptionReasonCode: 'VATEX-EU-132',
      language: 'en',
    });
    expect(exempt.status, exempt.text).to.equal(303);
    expect(settings()).to.deep.equal({
      numberPattern: '{yyyy}-{seq:4}',
      taxCategory: 'E',
      taxRate: null,
      exemptionReason: 'Kleinunternehmer gemäß § 19 UStG',
      exemptionReasonCode: 'VATEX-EU-132',
      language: 'en',
      rounding: null,
      earlyPayment: null,
      reminders: null,
    });
  });

  it('refuses a pattern without {seq} and a rate that is not a percentage at their fields, keeping what was typed and changing nothing', async () => {
    expect((await save(FORM)).status).to.equal(303);
    const before = settings();
    const cases: Array<[Record<string, string>, string, string]> = [
      [
        { numberPattern: 'INV-{yyyy}' },
        'numberPattern',
        'numberPattern "INV-{yyyy}" muss {seq} (oder {seq:N}, mit Nullen auf N Stellen aufgefüllt) genau einmal enthalten',
      ],
      [{ numberPattern: 'INV-{dd}-{seq}' }, 'numberPattern', 'numberPattern "INV-{dd}-{seq}" enthält einen unbekannten Platzhalter'],
      [{ taxRate: '19 %' }, 'taxRate', 'taxRate muss ein Prozentsatz von 0 bis 100 sein, etwa 19 oder 7.7, ohne % (angegeben: "19 %").'],
      [{ taxRate: '150' }, 'taxRate', 'taxRate muss ein Prozentsatz von 0 bis 100 sein, etwa 19 oder 7.7 (angegeben: 150).'],
      [{ exemptionReasonCode: 'exempt' }, 'exemptionReasonCode', 'exemptionReasonCode muss ein VATEX-Code wie VATEX-EU-AE'],
      [
        { earlyPayment: '2 % within 400 days' },
        'earlyPayment',
        'Geben Sie das Skonto und die Tage ein, etwa 2 % innerhalb von 10 Tagen: einen Prozentsatz über 0 und unter 100 mit höchstens zwei Dezimalstellen und 1 bis 365 Tage.',
      ],
      [
        { reminders: '21, 7' },
        'reminders',
        'Geben Sie die Tage nach dem Fälligkeitsdatum für jede Zahlungserinnerung ein, aufsteigend, etwa 7, 21 (höchstens 3, je 1 bis 365 Tage); lassen Sie das Feld leer für keine Erinnerungen.',
      ],
    ];
    // The workspace's documents are German, so its owner without a choice reads the page, and each refusal, in German (issue 58).
    for (const [change, name, message] of cases) {
      const typed = { ...FORM, exemptionReason: 'Typed reason', ...change };
      const refused = await save(typed);
      expect(refused.status, name).to.equal(400);
      const text = flat(refused.text).replace(/&quot;/g, '"');
      const error = new RegExp(`<span class="field-error" id="inv-${name}-error">([^<]+)</span>`).exec(text)?.[1];
      expect(error, name).to.be.a('string').and.include(message);
      expect(text, name).to.match(new RegExp(`id="inv-${name}"[^>]*aria-invalid="true" aria-describedby="inv-${name}-error"`));
      // Every value as typed, the other forms of the page as stored.
      for (const [key, value] of Object.entries(typed).filter(([key]) => key !== 'taxCategory' && key !== 'language'))
        expect(text, `${name}: ${key}`).to.include(`id="inv-${key}" name="${key}" type="text" value="${value}"`);
      expect(text, name).to.include('<option value="de" selected>Deutsch</option>');
      expect(settings(), name).to.deep.equal(before);
    }
  });

  it('is for owners: a member gets the page refused (403), and the form post refused as the invoices service does (403 for who reads invoices, else 404)', async () => {
    const add = (email: string, canViewOthersTime: boolean, canViewOthersMoney: boolean) => {
      const user = server.services.accounts.createUser(OPERATOR, { name: email, email });
      server.services.accounts.addMember(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: user.id,
        canViewOthersTime,
        canViewOthersMoney,
      });
      return user.id;
    };
    const before = settings();
    for (const [email, time, money, status] of [
      ['bea@example.org', true, true, 403],
      ['dee@example.org', false, true, 404],
      ['cy@example.org', false, false, 404],
    ] as const) {
      const member = new SettingsClient(server);
      await member.setUp(add(email, time, money), PASSWORD);
      expect((await member.get('/settings/workspace')).status, email).to.equal(403);
      const csrf = SettingsClient.csrf((await member.get('/settings/tokens')).text);
      const posted = await member.post('/settings/workspace/invoicing', { _csrf: csrf, ...FORM });
      expect(posted.status, email).to.equal(status);
      expect(posted.text, email).not.to.include('inv-numberPattern');
    }
    expect(settings()).to.deep.equal(before);
  });

  it('an owner without money visibility still keeps the invoicing settings (they hold no invoice), though the Invoices pages are hidden from them', async () => {
    const user = server.services.accounts.createUser(OPERATOR, { name: 'Otto', email: 'otto@example.org' });
    server.services.accounts.addMember(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: user.id,
      canViewOthersTime: true,
      isOwner: true,
    });
    const owner = new SettingsClient(server);
    await owner.setUp(user.id, PASSWORD);
    const page = await owner.get('/settings/workspace');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('id="inv-numberPattern"');
    const posted = await owner.post('/settings/workspace/invoicing', { _csrf: SettingsClient.csrf(page.text), ...FORM });
    expect(posted.status).to.equal(303);
    expect((await owner.get('/app/invoices')).status).to.equal(404);
  });
});
