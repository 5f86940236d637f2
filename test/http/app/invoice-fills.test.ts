import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The invoice page's e-invoice fill over real HTTP (issue 56 item 3): a refusal shows at its field
 * in words for people with the form as typed; an electronic address and its scheme are asked in
 * one step; a filled value is corrected until a document carrying it was downloaded, then the
 * page says to void and reissue and the service answers 409. The server's clock stands at
 * 2026-11-02; the time is October's.
 */
describe('web app: an invoice’s e-invoice fill (issue 56 item 3)', function () {
  this.timeout(60_000);
  let server: TestServer;
  afterEach(() => server?.close());

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  /** An issued invoice whose client has no electronic address, and its owner signed in. */
  async function issued() {
    server = await startTestServer();
    const { owner: actor, clientId } = freelancer(server, { electronicAddress: null, electronicAddressScheme: null });
    const id = server.services.invoices.create(actor, {
      workspaceId: server.workspaceId,
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    server.services.invoices.issue(actor, id);
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    return { id, owner };
  }
  /** The fill form of the invoice page: its CSRF token and its HTML. */
  const fillForm = async (owner: SettingsClient, id: string) => {
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    const form = /<form[^>]*action="\/app\/invoices\/[^"]+\/fill"[\s\S]*?<\/form>/.exec(page.text)?.[0] ?? '';
    return { csrf: SettingsClient.csrf(page.text), form: flat(form), page: flat(page.text) };
  };
  const inputOf = (form: string, path: string) =>
    new RegExp(`<input id="(fill-\\d+)" name="${path.replace(/[.[\]]/g, '\\$&')}" value="([^"]*)"`).exec(form);

  it('asks an electronic address with its scheme in one step; a refusal shows at its field in words for people, keeping what was typed', async () => {
    const { id, owner } = await issued();
    const { csrf, form } = await fillForm(owner, id);
    // Both in the one form, the scheme first.
    const scheme = inputOf(form, 'recipient.electronicAddressScheme');
    const address = inputOf(form, 'recipient.electronicAddress');
    expect([scheme?.[2], address?.[2]]).to.deep.equal(['', '']);
    expect(form.indexOf('name="recipient.electronicAddressScheme"')).to.be.below(form.indexOf('name="recipient.electronicAddress"'));

    // The issue's value: the scheme in front of the address. Refused at the address, nothing filled.
    const prefixed = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: csrf,
      'recipient.electronicAddressScheme': '',
      'recipient.electronicAddress': '9930:DE123456789',
    });
    expect(prefixed.status).to.equal(400);
    const refusedForm = flat(prefixed.text);
    const typed = inputOf(refusedForm, 'recipient.electronicAddress');
    expect(typed?.[2]).to.equal('9930:DE123456789');
    expect(refusedForm).to.include(
      `<span class="field-error" id="${typed?.[1]}-error">Enter the scheme 9930 in the scheme field, and here the address alone, without “9930:” (DE123456789).</span>`,
    );
    expect(refusedForm).to.match(new RegExp(`name="recipient\\.electronicAddress" value="9930:DE123456789"[^>]*aria-invalid="true"`));

    // Scheme and address apart, the address failing its check digits: at the address, both as typed.
    const digits = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: csrf,
      'recipient.electronicAddressScheme': '9930',
      'recipient.electronicAddress': 'DE123456789',
    });
    expect(digits.status).to.equal(400);
    const digitsForm = flat(digits.text);
    expect(inputOf(digitsForm, 'recipient.electronicAddressScheme')?.[2]).to.equal('9930');
    expect(inputOf(digitsForm, 'recipient.electronicAddress')?.[2]).to.equal('DE123456789');
    expect(digitsForm).to.include(
      'Scheme 9930 is a VAT ID of Germany, and this one’s check digits do not match: a digit is mistyped or two are swapped. Copy it from an invoice or letter of theirs.</span>',
    );
    expect(digitsForm).to.not.include('recipient.electronicAddress &quot;'); // no field name, no quoted value: words for people
    expect(server.services.invoices.get(OPERATOR, id).recipient).to.deep.include({
      electronicAddress: null,
      electronicAddressScheme: null,
    });

    const filled = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: csrf,
      'recipient.electronicAddressScheme': '9930',
      'recipient.electronicAddress': 'DE129273398',
    });
    expect(filled.status, filled.text.slice(0, 2000)).to.equal(303);
    expect(server.services.invoices.get(OPERATOR, id).recipient).to.deep.include({
      electronicAddress: 'DE129273398',
      electronicAddressScheme: '9930',
    });
  });

  it('corrects a filled value until a document carrying it is downloaded; then the page says to void and reissue, and a correction is refused (409) at its field', async () => {
    const { id, owner } = await issued();
    let { csrf } = await fillForm(owner, id);
    await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: csrf,
      'recipient.electronicAddressScheme': 'EM',
      'recipient.electronicAddress': 'einkauf@acme.exmaple',
    });
    server.clock.advance(60_000);
    // The filled values are shown to correct, as they are.
    const shown = await fillForm(owner, id);
    csrf = shown.csrf;
    expect(inputOf(shown.form, 'recipient.electronicAddressScheme')?.[2]).to.equal('EM');
    expect(inputOf(shown.form, 'recipient.electronicAddress')?.[2]).to.equal('einkauf@acme.exmaple');
    expect(shown.form).to.include('no document carrying it went out yet, so it can still be corrected.');

    // The form sends every value it shows; only the one typed anew changes.
    const corrected = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: csrf,
      'recipient.electronicAddressScheme': 'EM',
      'recipient.electronicAddress': 'einkauf@acme.example',
    });
    expect(corrected.status, corrected.text.slice(0, 2000)).to.equal(303);
    const after = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(after).to.include('Corrected recipient.electronicAddress.');
    expect(server.services.invoices.get(OPERATOR, id).recipient?.electronicAddress).to.equal('einkauf@acme.example');

    // Downloaded: the document carries it, so it is fixed.
    server.clock.advance(60_000);
    const xml = await fetch(`${server.url}/app/invoices/${id}/document.xml?format=xrechnung-ubl`, {
      headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(xml.status).to.equal(200);
    expect(await xml.text()).to.include('<cbc:EndpointID schemeID="EM">einkauf@acme.example</cbc:EndpointID>');
    const fixed = await fillForm(owner, id);
    expect(inputOf(fixed.form, 'recipient.electronicAddress')).to.equal(null);
    expect(fixed.form).to.include('<code>einkauf@acme.example</code>');
    expect(fixed.form).to.include(
      'Went out in a document of this invoice (downloaded or sent by mail, last 2 Nov 2026, 10:02): it can no longer change. To correct it, void this invoice and issue a new one.',
    );
    // A post of the old form: 409, said where the value was, the form as typed.
    const late = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: fixed.csrf,
      'recipient.electronicAddressScheme': 'EM',
      'recipient.electronicAddress': 'rechnung@acme.example',
    });
    expect(late.status).to.equal(409);
    expect(flat(late.text)).to.include(
      'This value went out in a document of this invoice (downloaded or sent by mail) and can no longer change. To correct it, void this invoice (its credit note cancels it) and issue a new one with the right value.',
    );
    expect(server.services.invoices.get(OPERATOR, id).recipient?.electronicAddress).to.equal('einkauf@acme.example');
  });

  it('a refused fill of a value the form does not show (posted by hand) is said above the form, not lost', async () => {
    const { id, owner } = await issued();
    const { csrf, form } = await fillForm(owner, id);
    expect(inputOf(form, 'recipient.legalName')).to.equal(null);
    const legalName = server.services.invoices.get(OPERATOR, id).recipient?.legalName;
    const refused = await owner.post(`/app/invoices/${id}/fill`, { _csrf: csrf, 'recipient.legalName': 'Someone Else Ltd' });
    expect(refused.status).to.equal(409);
    expect(flat(refused.text)).to.include(
      'This invoice was made with this value, which a fill does not change (it adds missing values and corrects its own). Change it in the client for the next invoices; for this one, void this invoice (its credit note cancels it) and issue a new one.',
    );
    expect(server.services.invoices.get(OPERATOR, id).recipient?.legalName).to.equal(legalName);
  });
});
