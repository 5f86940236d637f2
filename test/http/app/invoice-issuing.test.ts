import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { issuerPatchOfText } from '../../../src/modules/invoices/service.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Issue 56 items 1, 2 and 8 on the Invoices pages, over real HTTP (the server's clock at
 * 2026-11-02, October's time invoiced): a draft's page says which documents it will have once
 * issued and what issuing will refuse for; issuing is refused on its confirmation page (409)
 * before any number is taken, naming each value in words with where to set it; a § 19 small
 * business with a tax number only issues and downloads a plain PDF, and its e-invoices are
 * refused saying why and what to enter; a rate filled into a draft's line is its VAT at once.
 */
describe('web app: issuing checks first, plain PDFs (issue 56 items 1, 2, 8)', function () {
  this.timeout(120_000);
  let server: TestServer;
  afterEach(() => server?.close());

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  const signIn = async () => {
    const client = new SettingsClient(server);
    await client.setUp(server.ownerId, PASSWORD);
    return client;
  };
  const download = async (client: SettingsClient, path: string) => {
    const response = await fetch(`${server.url}${path}`, {
      redirect: 'manual',
      headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  /** A profile (in the command line's text form), a client and two hours of October at 80 an hour; the draft, made on the page. */
  async function draftOf(
    owner: SettingsClient,
    profile: Record<string, string>,
    settings: Record<string, unknown>,
    client: Record<string, unknown>,
  ) {
    const { services, workspaceId } = server;
    services.invoices.setBusinessProfile(OPERATOR, workspaceId, issuerPatchOfText(Object.entries(profile)));
    if (Object.keys(settings).length > 0) services.invoices.setSettings(OPERATOR, workspaceId, settings);
    const actor = services.tokens.authenticate(server.ownerToken)!.actor;
    const clientId = services.catalog.clients.create(actor, { name: 'Bäckerei Groß', ...client } as never).id;
    const projectId = services.catalog.projects.create(actor, { name: 'Lektorat', clientId, billable: true, hourlyRate: 80 }).id;
    services.entries.create(actor, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T11:00:00Z', billable: true });
    const made = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      note: '',
      intent: 'create',
    });
    expect(made.status, made.text.slice(0, 2000)).to.equal(303);
    return /^\/app\/invoices\/(inv_[\w-]+)$/.exec(made.headers.get('location') ?? '')?.[1] as string;
  }
  const issue = async (owner: SettingsClient, id: string) => {
    const confirm = await owner.get(`/app/invoices/${id}/issue`);
    return owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text), date: '2026-11-02' });
  };
  /** The document rows of an invoice's page, each as its text. */
  const rows = (page: string) =>
    [...flat(page).matchAll(/<li class="document [^"]*">(.*?)<\/li>\s*(?=<li class="document|<\/ul>\s*<\/section>)/g)].map(
      (m) => m[1] as string,
    );
  /** The missing values of a page's fragment: each value's name and BT number, and where to set it, as the person reads it. */
  const values = (fragment: string) =>
    [
      ...fragment.matchAll(/<li> <strong>(.*?)<\/strong> <span class="hint inline">\((.*?), <code>(.*?)<\/code>\)<\/span>: (.*?) <\/li>/g),
    ].map((m) => `${m[1]} (${m[2]}, ${m[3]}): ${(m[4] as string).replace(/<[^>]+>/g, '')}`);

  it('item 2: a § 19 small business’s draft will have a plain PDF and no e-invoice (saying why and what to enter); issued, its PDF/A-2b downloads and an XRechnung is refused (409) with the reason', async () => {
    server = await startTestServer();
    const owner = await signIn();
    // The workspace's documents are German; this test reads the page in English (Node's fetch sends `*`, which reads the workspace's).
    owner.acceptLanguage = 'en';
    const id = await draftOf(
      owner,
      {
        legalName: 'Jörg Weiß',
        addressLines: 'Torstraße 5',
        postalCode: '10119',
        city: 'Berlin',
        country: 'DE',
        taxNumber: '30/123/45678',
        smallBusiness: 'true',
      },
      { exemptionReason: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).', language: 'de' },
      { legalName: 'Bäckerei Groß KG', addressLines: ['Königsallee 1'], postalCode: '40212', city: 'Düsseldorf', country: 'DE' },
    );
    const draft = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(draft).to.include('Once issued, this invoice will have these documents.');
    expect(draft).to.include(
      '<strong>A plain PDF, without e-invoice.</strong> This invoice’s issuer has no VAT ID, register entry or seller identifier (BT-31, BT-30, BT-29), and every e-invoice (XRechnung, Peppol, the XML inside a Factur-X PDF) must identify the seller by one of them. A small business under § 19 UStG need not issue e-invoices (§ 34a UStDV), so its PDF carries none.',
    );
    const [pdf, ...einvoices] = rows(draft);
    expect(pdf).to.include('<span class="doc-name">PDF (PDF/A, without e-invoice)</span> <span class="badge good">ready to issue</span>');
    expect(pdf).to.include(`href="/app/invoices/${id}/document.pdf?format=pdf" download>Download the draft`);
    expect(einvoices).to.have.length(3);
    for (const row of einvoices)
      expect(row).to.include(
        '<span class="badge bad">no e-invoice</span> <span class="hint inline">It needs your VAT ID, register entry or seller identifier first (above).</span>',
      );
    // The fill offers the seller identifier alone (the way out for this invoice), not the e-invoices' other values.
    expect(draft).to.include('name="issuer.sellerIdentifier"');
    expect(draft).to.not.include('name="recipient.reference"');

    const issued = await issue(owner, id);
    expect(issued.status, flat(issued.text).slice(0, 2000)).to.equal(303);
    const page = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(page).to.include('Issued as 2026-0001, dated 2 Nov 2026, due 16 Nov 2026.');
    expect(rows(page)[0]).to.include(
      `<span class="doc-name">PDF (PDF/A, without e-invoice)</span> <span class="badge good">ready</span> <a class="button secondary" href="/app/invoices/${id}/document.pdf?format=pdf" download>`,
    );
    const file = await download(owner, `/app/invoices/${id}/document.pdf?format=pdf`);
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-disposition')).to.equal(`attachment; filename="2026-0001.pdf"; filename*=UTF-8''2026-0001.pdf`);
    const bytes = file.bytes.toString('latin1');
    expect(bytes).to.match(/<pdfaid:part>2<\/pdfaid:part>/);
    expect(bytes).to.not.include('factur-x');

    const refused = await owner.get(`/app/invoices/${id}/document.xml?format=xrechnung-ubl`);
    expect(refused.status).to.equal(409);
    const text = flat(refused.text);
    expect(text).to.include(
      'This invoice has a plain PDF and no e-invoice: its issuer has no VAT ID, register entry or seller identifier (BT-31, BT-30, BT-29), and every e-invoice must identify the seller by one of them (EN 16931, BR-CO-26). A small business under § 19 UStG need not issue e-invoices (§ 34a UStDV). To have this format, enter one of them first:',
    );
    expect(text).to.include('(BT-29/BT-30/BT-31, <code>issuer.sellerIdentifier</code>)');
    expect(text.indexOf('issuer.sellerIdentifier</code>')).to.be.below(text.indexOf('<p>It also lacks these values:</p>'));
    expect(text).to.include('(BT-10, <code>recipient.reference</code>)');
    // The fill is on the invoice's page, not on this one.
    expect(text).to.include(`or fill it for this invoice on <a href="/app/invoices/${id}#fill-heading">its page</a>`);
  });

  it('item 1: a draft whose PDF would lack values says so before it is issued; Issue is refused (409) on its confirmation page naming the same values, before any number; filled on the page, it issues as 2026-0001', async () => {
    server = await startTestServer();
    const owner = await signIn();
    // No country on either party, no VAT id or tax number.
    const id = await draftOf(
      owner,
      { legalName: 'Ada Lovelace Design', city: 'Berlin' },
      { taxRate: 19 },
      { legalName: 'Bäckerei Groß KG' },
    );
    const expected = [
      'Seller country code (BT-40, issuer.country): set it in the business profile (for new invoices), or fill it for this invoice on its page',
      'Buyer country code (BT-55, recipient.country): set it on the client in the Catalog (for new invoices), or fill it for this invoice on its page',
      'Seller VAT identifier (or the tax number, BT-32: issuer.taxNumber) (BT-31, issuer.vatId): set it in the business profile (for new invoices), or fill it for this invoice on its page',
    ];
    const draft = flat((await owner.get(`/app/invoices/${id}`)).text);
    const pdf = rows(draft)[0] as string;
    expect(pdf).to.include('<span class="badge bad">missing 3 values</span>');
    expect(pdf).to.include('<p class="hint">Issuing refuses until these are set:</p>');
    // The same values, in the same words (below the draft's list, the fill form is on the same page).
    expect(values(pdf)).to.deep.equal(
      expected.map((v) => v.replace('fill it for this invoice on its page', 'fill it below for this invoice')),
    );
    expect(draft).to.not.include('badge good">ready to issue');
    expect(draft).to.include('<label for="fill-0">Seller country code (BT-40) <span class="hint inline">(issuer.country)</span></label>');

    const refused = await issue(owner, id);
    expect(refused.status).to.equal(409);
    const text = flat(refused.text);
    expect(text).to.include(
      '<div class="notice error" role="alert"><p><strong>This invoice cannot be issued yet; no number was taken.</strong></p>',
    );
    expect(text).to.include('<p>Its PDF would lack these values:</p>');
    expect(values(text)).to.deep.equal(expected);
    expect(text).to.include(`<a href="/app/invoices/${id}#fill-heading">its page</a>`);
    expect(text).to.not.include('id="confirm-date-error"');
    expect(server.services.invoices.get(OPERATOR, id)).to.deep.include({ status: 'draft', number: null });

    const csrf = SettingsClient.csrf(draft);
    const filled = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: csrf,
      'issuer.country': 'DE',
      'recipient.country': 'DE',
      'issuer.vatId': 'DE123456788',
    });
    expect(filled.status, flat(filled.text).slice(0, 2000)).to.equal(303);
    const ready = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(rows(ready)[0]).to.include(
      '<span class="doc-name">PDF (Factur-X / ZUGFeRD EN 16931)</span> <span class="badge good">ready to issue</span>',
    );
    expect((await issue(owner, id)).status).to.equal(303);
    expect(flat((await owner.get(`/app/invoices/${id}`)).text)).to.include('Issued as 2026-0001, dated 2 Nov 2026, due 16 Nov 2026.');
  });

  it('item 8: a rate filled into the line of a draft made before the workspace had one is its VAT at once: the draft shows S 19 % and VAT, and is issued with them', async () => {
    server = await startTestServer();
    const owner = await signIn();
    const id = await draftOf(
      owner,
      { legalName: 'Ada Lovelace Design', country: 'DE', vatId: 'DE123456788' },
      {},
      { legalName: 'Bäckerei Groß KG', country: 'DE' },
    );
    const before = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(before).to.include('<td data-label="VAT" class="num"> S <span class="badge bad">not set</span> </td>');
    expect(rows(before)[0]).to.include('<p class="hint">Issuing refuses until the VAT is set (above).</p>');
    server.services.invoices.fill(OPERATOR, id, server.ownerId, [['lines[0].taxRate', '19']]);
    const after = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(after).to.include('<td data-label="VAT" class="num">€30.40</td>');
    expect(after).to.include('<dt>Gross</dt> <dd class="num"><strong>€190.40</strong></dd>');
    expect(rows(after)[0]).to.include('<span class="badge good">ready to issue</span>');
    expect((await issue(owner, id)).status).to.equal(303);
    expect(server.services.invoices.get(OPERATOR, id)).to.deep.include({ taxTotal: 30.4, grossTotal: 190.4 });
  });
});
