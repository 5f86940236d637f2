import Database from 'better-sqlite3';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { DomainError } from '../../src/errors.js';
import { checkBic, checkIban, checkParticipantId, checkVatId } from '../../src/kernel/identifiers.js';
import { OPERATOR } from '../../src/principal.js';
import { expectProblem, type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, SettingsClient } from '../helpers/settings-client.js';

/** The refusal a check throws: its field and message. */
function refusal(check: () => unknown): { field: string | undefined; message: string } {
  try {
    check();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).code).to.equal('invalid');
    return { field: (error as DomainError).field, message: (error as Error).message };
  }
  throw new Error('expected a refusal');
}

const flat = (text: string) => text.replace(/\s+/g, ' ').replace(/&quot;/g, '"');

describe('identifiers: IBAN, BIC, VAT ids and Peppol participant ids, checked where entered (issue 45 item 4)', () => {
  describe('the kernel checks', () => {
    it('IBAN: ISO 13616 check digits and the country length; stored compact and upper case', () => {
      expect(checkIban('DE89 3704 0044 0532 0130 00')).to.equal('DE89370400440532013000');
      expect(checkIban('ch93 0076 2011 6238 5295 7')).to.equal('CH9300762011623852957');
      expect(checkIban('GB29NWBK60161331926819')).to.equal('GB29NWBK60161331926819');
      // The IBAN: check digits 00 never pass.
      expect(refusal(() => checkIban('DE00 1234 5678 9012 3456 78'))).to.deep.equal({
        field: 'iban',
        message:
          'iban "DE00 1234 5678 9012 3456 78" fails its check digits (ISO 13616): a digit is mistyped or two are swapped. Copy it from a bank statement. An IBAN is its country code, two check digits and the account, such as DE89 3704 0044 0532 0130 00 (spaces may group it).',
      });
      // Two digits swapped.
      expect(refusal(() => checkIban('DE89 3704 0044 0532 0103 00')).message).to.match(/fails its check digits/);
      expect(refusal(() => checkIban('DE89 3704 0044 0532 0130 0')).message).to.match(
        /^iban "DE89 3704 0044 0532 0130 0" has 21 characters, and an IBAN of DE has 22: a digit is missing or one too many\./,
      );
      expect(refusal(() => checkIban('12345', 'issuer.iban'))).to.deep.include({ field: 'issuer.iban' });
    });

    it('BIC: 8 or 11 characters of ISO 9362', () => {
      expect(checkBic('cobadeffxxx')).to.equal('COBADEFFXXX');
      expect(checkBic('BYLADEM1')).to.equal('BYLADEM1');
      expect(refusal(() => checkBic('COBADEFF1')).message).to.match(/^bic "COBADEFF1" is not a BIC: a BIC \(ISO 9362\) has 8 or 11/);
      expect(refusal(() => checkBic('1234DEFF')).field).to.equal('bic');
    });

    it("VAT identifier: the country's code and pattern; stored compact", () => {
      expect(checkVatId('DE 136 695 976')).to.equal('DE136695976');
      expect(checkVatId('atu13585627')).to.equal('ATU13585627');
      expect(checkVatId('CHE-100.155.212 MWST')).to.equal('CHE100155212MWST');
      expect(checkVatId('NL000099998B57')).to.equal('NL000099998B57');
      expect(checkVatId('US123456789')).to.equal('US123456789'); // a country without a pattern here: its form only
      expect(refusal(() => checkVatId('123')).message).to.match(/^vatId "123" does not start with a country code: a VAT identifier starts/);
      expect(refusal(() => checkVatId('DE12345678')).message).to.equal(
        'vatId "DE12345678" is not a VAT identifier of DE: one looks like DE136695976. Check for a missing or extra digit.',
      );
      expect(refusal(() => checkVatId('GR123456789')).message).to.match(/starts with EL, not GR/);
      expect(refusal(() => checkVatId('FRI0303265045')).message).to.match(/of FR: one looks like FR40303265045/);
    });

    it('participant ids: by what the EAS scheme identifies', () => {
      const ok: Array<[string, string]> = [
        ['04011000-12345-03', '0204'],
        ['04011000-1234512345-06', '0204'],
        ['991-33333TEST-33', '0204'],
        ['4000001000005', '0088'],
        ['0123456749', '0208'],
        ['987654325', '0192'],
        ['DE136695976', '9930'],
        ['136695976', '9930'],
        ['invoices@example.com', 'EM'],
        ['anything-goes', '0177'],
      ];
      for (const [id, scheme] of ok) expect(checkParticipantId(id, scheme), `${scheme}:${id}`).to.equal(id);
      expect(checkParticipantId('not checked without a scheme', null)).to.equal('not checked without a scheme');
      expect(refusal(() => checkParticipantId('04011000-12345-34', '0204'))).to.deep.equal({
        field: 'electronicAddress',
        message:
          'electronicAddress "04011000-12345-34" is not valid for scheme 0204: give a Leitweg-ID: the coarse address (2 to 12 digits), optionally the fine address, and two check digits, separated by hyphens, such as 04011000-12345-03 (ISO 7064 MOD 97-10).',
      });
      expect(refusal(() => checkParticipantId('4000001000006', '0088')).message).to.match(/GS1 check digit/);
      expect(refusal(() => checkParticipantId('DE12345', '9930')).message).to.equal(
        'electronicAddress "DE12345" is not a VAT identifier of DE, which scheme 9930 names: one looks like DE136695976.',
      );
      expect(refusal(() => checkParticipantId('ap@example', 'EM')).message).to.match(/an email address/);
      expect(refusal(() => checkParticipantId('x', '1234'))).to.deep.include({ field: 'electronicAddressScheme' });
      expect(refusal(() => checkParticipantId('x', 'XX')).message).to.match(/^electronicAddressScheme "XX" is not an EAS code/);
    });
  });

  describe('where they are entered', function () {
    this.timeout(30_000);
    // One server for the describe; each test has a fresh workspace and signed-in owner in it.
    let shared: TestServer;
    let server: FreshWorkspace;
    let owner: SettingsClient;
    before(async () => {
      shared = await startTestServer();
    });
    after(() => shared.close());
    beforeEach(async () => {
      server = freshWorkspace(shared);
      owner = new SettingsClient(server);
      await owner.setUp(server.ownerId, PASSWORD);
    });

    async function cli(...argv: string[]) {
      let stdout = '';
      let stderr = '';
      const code = await runCli([...argv, '--json'], {
        openDatabase: () => ({ ...server.running.database, close: () => {} }),
        createServices: () => server.services,
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
      });
      return { code, json: stdout ? JSON.parse(stdout) : undefined, error: stderr ? JSON.parse(stderr).error : undefined };
    }

    it('POST and PATCH /api/v1/clients refuse an invalid VAT id or participant id (400 invalid-request) and store valid ones compact', async () => {
      const refusedCases: Array<[Record<string, unknown>, RegExp]> = [
        [{ vatId: '123' }, /^vatId "123" does not start with a country code/],
        [{ vatId: 'DE12345' }, /^vatId "DE12345" is not a VAT identifier of DE: one looks like DE136695976/],
        [
          { electronicAddress: '04011000-12345-34', electronicAddressScheme: '0204' },
          /^electronicAddress "04011000-12345-34" is not valid for scheme 0204/,
        ],
        [{ electronicAddress: 'x', electronicAddressScheme: 'XX' }, /^electronicAddressScheme "XX" is not an EAS code/],
      ];
      for (const [fields, message] of refusedCases) {
        const created = await server.request('POST', '/api/v1/clients', { json: { name: 'Hafenamt', ...fields } });
        expectProblem(created, 400, 'invalid-request', server.config.problemsBase);
        expect(created.body.detail, JSON.stringify(fields)).to.match(message);
      }
      expect((await server.request('GET', '/api/v1/clients')).body.data).to.deep.equal([]);

      const made = await server.request('POST', '/api/v1/clients', {
        json: { name: 'Hafenamt', vatId: 'de 129 273 398', electronicAddress: '04011000-12345-03', electronicAddressScheme: '0204' },
      });
      expect(made.status, made.text).to.equal(200);
      expect(made.body.data).to.deep.include({
        vatId: 'DE129273398',
        electronicAddress: '04011000-12345-03',
        electronicAddressScheme: '0204',
      });
      const id = made.body.data.id as string;
      for (const [fields, message] of refusedCases) {
        const patched = await server.request('PATCH', `/api/v1/clients/${id}`, { json: fields });
        expectProblem(patched, 400, 'invalid-request', server.config.problemsBase);
        expect(patched.body.detail, JSON.stringify(fields)).to.match(message);
      }
      // Changing the scheme alone checks the stored address against the new scheme.
      const scheme = await server.request('PATCH', `/api/v1/clients/${id}`, { json: { electronicAddressScheme: '0088' } });
      expectProblem(scheme, 400, 'invalid-request', server.config.problemsBase);
      expect(scheme.body.detail).to.match(/^electronicAddress "04011000-12345-03" is not valid for scheme 0088: give a GLN/);
      expect((await server.request('GET', `/api/v1/clients/${id}`)).body.data).to.deep.include({
        vatId: 'DE129273398',
        electronicAddressScheme: '0204',
      });
    });

    it('values stored before the check still read, invoice and save other fields; the value itself is checked when it is entered again', async () => {
      const client = (
        await server.request('POST', '/api/v1/clients', {
          json: { name: 'Old Co', electronicAddress: 'x', electronicAddressScheme: '0204' },
        })
      ).status;
      expect(client).to.equal(400);
      const made = (await server.request('POST', '/api/v1/clients', { json: { name: 'Old Co' } })).body.data;
      // What an older version saved unchecked.
      const db = new Database(server.config.databasePath);
      db.prepare("update clients set vat_id = '123', electronic_address = 'x', electronic_address_scheme = '0204' where id = ?").run(
        made.id,
      );
      db.prepare('update workspaces set business_profile = ? where id = ?').run(
        JSON.stringify({ legalName: 'Studio', iban: 'DE00 1234 5678 9012 3456 78', vatId: '123' }),
        server.workspaceId,
      );
      db.close();
      const read = await server.request('GET', `/api/v1/clients/${made.id}`);
      expect(read.status).to.equal(200);
      expect(read.body.data).to.deep.include({ vatId: '123', electronicAddress: 'x' });
      const patched = await server.request('PATCH', `/api/v1/clients/${made.id}`, { json: { city: 'Hamburg' } });
      expect(patched.status, patched.text).to.equal(200);
      const project = (
        await server.request('POST', '/api/v1/projects', { json: { name: 'Work', clientId: made.id, billable: true, hourlyRate: 100 } })
      ).body.data;
      await server.request('POST', '/api/v1/entries', {
        json: { projectId: project.id, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z' },
      });
      const { id } = server.services.invoices.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        clientId: made.id,
        from: '2026-10-01',
        to: '2026-10-31',
      });
      const invoice = server.services.invoices.get(OPERATOR, id);
      expect([invoice.recipient?.vatId, invoice.issuer?.iban]).to.deep.equal(['123', 'DE00 1234 5678 9012 3456 78']);
      // A profile change of another field leaves the stored IBAN as it is.
      expect((await cli('workspace', 'profile', server.workspaceId, '--set', 'city=Berlin')).code).to.equal(0);
      expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).businessProfile).to.deep.include({
        iban: 'DE00 1234 5678 9012 3456 78',
        city: 'Berlin',
      });
    });

    it('the command line: workspace profile --set and invoice fill refuse them (exit 1, the message), and store valid ones', async () => {
      const refusedCases: Array<[string, RegExp]> = [
        ['iban=DE00 1234 5678 9012 3456 78', /^iban "DE00 1234 5678 9012 3456 78" fails its check digits \(ISO 13616\)/],
        ['bic=COBADE', /^bic "COBADE" is not a BIC/],
        ['vatId=123', /^vatId "123" does not start with a country code/],
      ];
      for (const [set, message] of refusedCases) {
        const refused = await cli('workspace', 'profile', server.workspaceId, '--set', set);
        expect(refused.code, set).to.equal(1);
        expect(refused.error.message, set).to.match(message);
      }
      const pair = await cli(
        'workspace',
        'profile',
        server.workspaceId,
        '--set',
        'electronicAddress=12345',
        '--set',
        'electronicAddressScheme=0088',
      );
      expect([pair.code, pair.error?.message]).to.deep.equal([
        1,
        'electronicAddress "12345" is not valid for scheme 0088: give a GLN: 13 digits whose last is the GS1 check digit, such as 4000001000005.',
      ]);
      expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).businessProfile ?? null).to.equal(null);

      const saved = await cli(
        'workspace',
        'profile',
        server.workspaceId,
        '--set',
        'iban=DE89 3704 0044 0532 0130 00',
        '--set',
        'bic=cobadeffxxx',
        '--set',
        'vatId=DE 136 695 976',
        '--set',
        'electronicAddress=DE136695976',
        '--set',
        'electronicAddressScheme=9930',
      );
      expect(saved.code, JSON.stringify(saved.error)).to.equal(0);
      expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).businessProfile).to.deep.equal({
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        vatId: 'DE136695976',
        electronicAddress: 'DE136695976',
        electronicAddressScheme: '9930',
      });

      // An e-invoice fill enters them too.
      const client = (await server.request('POST', '/api/v1/clients', { json: { name: 'Acme' } })).body.data;
      const project = (
        await server.request('POST', '/api/v1/projects', { json: { name: 'Work', clientId: client.id, billable: true, hourlyRate: 100 } })
      ).body.data;
      await server.request('POST', '/api/v1/entries', {
        json: { projectId: project.id, start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z' },
      });
      const { id } = server.services.invoices.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        clientId: client.id,
        from: '2026-10-01',
        to: '2026-10-31',
      });
      const fill = await cli('invoice', 'fill', id, '--user', server.ownerId, '--set', 'recipient.vatId=123');
      expect([fill.code, fill.error?.message]).to.deep.equal([
        1,
        'recipient.vatId "123" does not start with a country code: a VAT identifier starts with its country\'s two letters, such as DE136695976 (Germany), ATU13585627 (Austria) or FR40303265045 (France). A tax number without a country code is not a VAT identifier: give it as the tax number instead.',
      ]);
      const address = await cli(
        'invoice',
        'fill',
        id,
        '--user',
        server.ownerId,
        '--set',
        'recipient.electronicAddress=04011000-12345-34',
        '--set',
        'recipient.electronicAddressScheme=0204',
      );
      expect([address.code, address.error?.message]).to.deep.equal([
        1,
        'recipient.electronicAddress "04011000-12345-34" is not valid for scheme 0204: give a Leitweg-ID: the coarse address (2 to 12 digits), optionally the fine address, and two check digits, separated by hyphens, such as 04011000-12345-03 (ISO 7064 MOD 97-10).',
      ]);
      expect(server.services.invoices.get(OPERATOR, id).recipient).to.deep.include({ vatId: null, electronicAddress: null });
    });

    it("the Workspace page's issuer profile and the Catalog's client form refuse them at their fields, keeping what was typed", async () => {
      const profile = await owner.submit('/settings/workspace', '/settings/workspace/profile', {
        legalName: 'Studio Ada',
        iban: 'DE00 1234 5678 9012 3456 78',
        vatId: 'DE136695976',
      });
      expect(profile.status).to.equal(400);
      const text = flat(profile.text);
      // The page says it in words for people (the API and the command line keep the message naming the field).
      expect(text).to.include(
        '<span class="field-error" id="profile-iban-error">This IBAN’s check digits do not match: a digit is mistyped or two are swapped. Copy it from a bank statement.</span>',
      );
      expect(text).to.match(/id="profile-iban" name="iban" type="text" value="DE00 1234 5678 9012 3456 78" aria-invalid="true"/);
      expect(text).to.include('value="Studio Ada"');
      const vat = await owner.submit('/settings/workspace', '/settings/workspace/profile', { legalName: 'Studio Ada', vatId: '123' });
      expect(vat.status).to.equal(400);
      expect(flat(vat.text)).to.match(/<span class="field-error" id="profile-vatId-error">A VAT ID starts with its country’s two letters/);
      expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).businessProfile ?? null).to.equal(null);
      const fixed = await owner.submit('/settings/workspace', '/settings/workspace/profile', {
        legalName: 'Studio Ada',
        iban: 'DE89 3704 0044 0532 0130 00',
        vatId: 'DE136695976',
      });
      expect(fixed.status, fixed.text).to.equal(303);
      expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).businessProfile).to.deep.equal({
        legalName: 'Studio Ada',
        iban: 'DE89370400440532013000',
        vatId: 'DE136695976',
      });

      const client = await owner.submit('/app/catalog', '/app/catalog/client', { name: 'Hafenamt', vatId: '123', legalName: 'Landesamt' });
      expect(client.status).to.equal(400);
      const form = flat(client.text);
      expect(form).to.match(/<span class="field-error" id="new-client-vatId-error">A VAT ID starts with its country’s two letters/);
      expect(form).to.include('value="Landesamt"');
      const address = await owner.submit('/app/catalog', '/app/catalog/client', {
        name: 'Hafenamt',
        electronicAddress: '04011000-12345-34',
        electronicAddressScheme: '0204',
      });
      expect(address.status).to.equal(400);
      expect(flat(address.text)).to.match(
        /<span class="field-error" id="new-client-electronicAddress-error">This is not an address of scheme 0204: give a Leitweg-ID/,
      );
      expect((await server.request('GET', '/api/v1/clients')).body.data).to.deep.equal([]);
    });
  });
});
