import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { loadContract } from '../../../src/contract.js';
import type { DomainError } from '../../../src/errors.js';
import { translator } from '../../../src/i18n/index.js';
import { issuerPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';
import { refusal } from '../../helpers/refusal.js';

/*
 * E-invoice fills that can be corrected (issue 56 item 3, decisions 14) over the real services on
 * :memory:, the clock at 2026-11-02: a value a fill set is corrected until a document carrying it
 * was downloaded or sent; then, and for a value the invoice was made with, the refusal (409, at
 * the value) says to void and reissue. An electronic address and its scheme are checked
 * together. And the command line's hint for a missing value suggests only what works (item 10).
 */

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
addFormats.default(ajv);
ajv.addSchema(loadContract() as object, 'contract');
const contractInvoice = ajv.getSchema('contract#/components/schemas/Invoice')!;

const refused = (fn: () => unknown, code: DomainError['code']): DomainError => {
  const error = refusal(fn);
  expect(error.code, error.message).to.equal(code);
  return error;
};

/** A refusal's words for people in English: by key where the service gives them (issue 58), else as written. */
const saidOf = (error: DomainError): string | undefined =>
  error.words === undefined ? error.people : translator('en')(error.words.key, error.words.vars);

/** A GmbH with a VAT id invoicing a client that has no electronic address yet: October, 10 hours at 95. */
function gmbh(client: Record<string, unknown> = {}) {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  services.invoices.setBusinessProfile(
    OPERATOR,
    workspaceId,
    issuerPatchOfText(
      Object.entries({
        legalName: 'Lovelace Design GmbH',
        addressLines: 'Torstraße 5',
        postalCode: '10119',
        city: 'Berlin',
        country: 'DE',
        vatId: 'DE136695976',
        registrationNumber: 'HRB 245678 B',
        contactName: 'Ada Lovelace',
        phone: '+49 30 1234567',
        email: 'ada@example.org',
        electronicAddress: 'DE136695976',
        electronicAddressScheme: '9930',
        iban: 'DE02120300000000202051',
      }),
    ),
  );
  const clientId = services.catalog.clients.create(owner, {
    name: 'Acme',
    legalName: 'Acme GmbH',
    addressLines: ['Hauptstraße 1'],
    postalCode: '10115',
    city: 'Berlin',
    country: 'DE',
    vatId: 'DE129273398',
    reference: 'PO-4711',
    ...client,
  }).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Relaunch', clientId, billable: true, hourlyRate: 95 }).id;
  for (const day of ['05', '06'])
    services.entries.create(owner, { projectId, start: `2026-10-${day}T09:00:00Z`, end: `2026-10-${day}T14:00:00Z`, billable: true });
  const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
  const fill = (...assignments: Array<[string, string]>) => services.invoices.fill(OPERATOR, id, ownerId, assignments);
  const slot = (path: string) => services.invoices.fillSlots(OPERATOR, id, [path]).find((s) => s.path === path)!;
  const handedOut = () =>
    world.database.sqlite.prepare('select first_handed_out_at as first, last_handed_out_at as last from invoices where id = ?').get(id);
  return { ...world, id, clientId, fill, slot, handedOut, issue: () => services.invoices.issue(OPERATOR, id, { userId: ownerId }) };
}

describe('invoice fills: corrected until a document carrying them went out (issue 56 item 3)', () => {
  let w: ReturnType<typeof gmbh> & ServiceWorld;
  afterEach(() => w?.close());

  it('corrects a value a fill set until a document carrying it is downloaded; then refuses (409, at the value) saying to void and reissue', async () => {
    w = gmbh();
    w.issue();
    w.fill(['recipient.electronicAddressScheme', 'EM'], ['recipient.electronicAddress', 'einkauf@acme.exmaple']);
    expect(w.slot('recipient.electronicAddress')).to.deep.include({ state: 'correctable', value: 'einkauf@acme.exmaple' });
    w.clock.advance(60_000);
    w.fill(['recipient.electronicAddress', 'einkauf@acme.example']);
    const corrected = w.services.invoices.get(OPERATOR, w.id);
    expect(corrected.recipient?.electronicAddress).to.equal('einkauf@acme.example');
    // The fills list what the documents carry, each value once, each fill adding values that were null before it (the spec).
    expect(corrected.einvoiceFills.map((f) => [f.at, f.fields])).to.deep.equal([
      ['2026-11-02T10:00:30.000Z', { 'recipient.electronicAddressScheme': 'EM' }],
      ['2026-11-02T10:01:30.000Z', { 'recipient.electronicAddress': 'einkauf@acme.example' }],
    ]);
    expect(contractInvoice(corrected), JSON.stringify(contractInvoice.errors)).to.equal(true);
    expect(w.handedOut()).to.deep.equal({ first: null, last: null });

    w.clock.advance(60_000);
    const xml = await w.services.invoices.document(OPERATOR, w.id, 'xrechnung-cii');
    expect(xml.bytes.toString()).to.include('<ram:URIID schemeID="EM">einkauf@acme.example</ram:URIID>');
    const downloadedAt = Date.parse('2026-11-02T10:02:30.000Z');
    expect(w.handedOut()).to.deep.equal({ first: downloadedAt, last: downloadedAt });

    w.clock.advance(60_000);
    const fixed = refused(() => w.fill(['recipient.electronicAddress', 'rechnung@acme.example']), 'conflict');
    expect(fixed.field).to.equal('recipient.electronicAddress');
    expect(fixed.message).to.equal(
      'recipient.electronicAddress was filled ("einkauf@acme.example") and a document carrying it was downloaded or sent since (last at 2026-11-02T10:02:30.000Z): it can no longer change. To correct it, void this invoice (its credit note cancels it) and issue a new one with the right value.',
    );
    expect(saidOf(fixed)).to.equal(
      'This value went out in a document of this invoice (downloaded or sent by mail) and can no longer change. To correct it, void this invoice (its credit note cancels it) and issue a new one with the right value.',
    );
    expect(w.slot('recipient.electronicAddress')).to.deep.include({
      state: 'fixed',
      because: 'handed-out',
      handedOutAt: '2026-11-02T10:02:30.000Z',
    });
    expect(w.services.invoices.get(OPERATOR, w.id).recipient?.electronicAddress).to.equal('einkauf@acme.example');

    // A value filled after that download went out in no document: it is corrected until the next one.
    w.fill(['recipient.email', 'billing@acme.exmaple']);
    w.clock.advance(60_000);
    w.fill(['recipient.email', 'billing@acme.example']);
    await w.services.invoices.document(OPERATOR, w.id, 'pdf');
    expect(refused(() => w.fill(['recipient.email', 'x@acme.example']), 'conflict').field).to.equal('recipient.email');
    expect(w.handedOut()).to.deep.equal({ first: downloadedAt, last: Date.parse('2026-11-02T10:04:30.000Z') });
  });

  it("a draft's PDF (DRAFT, no number) fixes nothing; its fills are corrected after issuing until the first document of the invoice", async () => {
    w = gmbh({ reference: null });
    w.fill(['recipient.reference', 'PO-47II']);
    await w.services.invoices.document(OPERATOR, w.id, 'pdf');
    expect(w.handedOut()).to.deep.equal({ first: null, last: null });
    w.fill(['recipient.reference', 'PO-4711']);
    w.issue();
    w.clock.advance(1000);
    w.fill(['recipient.reference', 'PO-4712']);
    await w.services.invoices.document(OPERATOR, w.id, 'peppol').catch(() => undefined); // lacks the client's address: refused, hands nothing out
    expect(w.handedOut()).to.deep.equal({ first: null, last: null });
    await w.services.invoices.document(OPERATOR, w.id, 'pdf');
    expect(saidOf(refused(() => w.fill(['recipient.reference', 'PO-4711']), 'conflict'))).to.match(/^This value went out in a document/);
  });

  it('a value the invoice was made with, the lines’ tax and a void invoice do not change by a fill; each refusal says what to do instead', () => {
    w = gmbh();
    const madeWith = refused(() => w.fill(['recipient.legalName', 'Acme AG']), 'conflict');
    expect(madeWith.field).to.equal('recipient.legalName');
    expect(madeWith.message).to.equal(
      'recipient.legalName is already set ("Acme GmbH"): the invoice was made with it, and a fill only adds missing values or corrects its own. Set it in the client for the next invoices; for this one, void this draft (it uses no number) and create it again.',
    );
    expect(refused(() => w.fill(['lines[0].taxRate', '7']), 'conflict').message).to.match(
      /^lines\[0\]\.taxRate is already set \(19\) and makes the invoice's amounts, which a fill never changes/,
    );
    w.issue();
    expect(saidOf(refused(() => w.fill(['issuer.vatId', 'DE129273398']), 'conflict'))).to.equal(
      'This invoice was made with this value, which a fill does not change (it adds missing values and corrects its own). Change it in the business profile for the next invoices; for this one, void this invoice (its credit note cancels it) and issue a new one.',
    );
    // A value given as it is changes nothing: the form sends the values it shows.
    expect(refused(() => w.fill(['recipient.legalName', 'Acme GmbH']), 'invalid').message).to.equal(
      'The fill changes nothing: recipient.legalName already holds the value given.',
    );
    w.fill(
      ['recipient.legalName', 'Acme GmbH'],
      ['recipient.electronicAddressScheme', '0204'],
      ['recipient.electronicAddress', '04011000-12345-03'],
    );
    w.services.invoices.void(OPERATOR, w.id, { userId: w.ownerId });
    expect(refused(() => w.fill(['recipient.electronicAddress', '991-33333TEST-33']), 'conflict').message).to.match(
      /is void; a void invoice takes no fills/,
    );
    expect(w.slot('recipient.electronicAddress')).to.deep.include({ state: 'fixed', because: 'void' });
  });

  it('an electronic address and its scheme are checked together: the scheme written in front of the address is refused at the address, in words for people', () => {
    w = gmbh();
    w.issue();
    // The issue's fill: accepted alone, its scheme then refused with nothing to show it at.
    const prefixed = refused(() => w.fill(['recipient.electronicAddress', '9930:DE123456789']), 'invalid');
    expect(prefixed.field).to.equal('recipient.electronicAddress');
    expect(prefixed.message).to.equal(
      'recipient.electronicAddress "9930:DE123456789" carries its scheme in front: give the scheme 9930 as recipient.electronicAddressScheme and the address without it (DE123456789).',
    );
    expect(prefixed.people).to.equal(
      'Enter the scheme 9930 in the scheme field, and here the address alone, without “9930:” (DE123456789).',
    );
    const digits = refused(
      () => w.fill(['recipient.electronicAddressScheme', '9930'], ['recipient.electronicAddress', 'DE123456789']),
      'invalid',
    );
    expect([digits.field, digits.people]).to.deep.equal([
      'recipient.electronicAddress',
      'Scheme 9930 is a VAT ID of Germany, and this one’s check digits do not match: a digit is mistyped or two are swapped. Copy it from an invoice or letter of theirs.',
    ]);
    expect(w.services.invoices.get(OPERATOR, w.id).recipient).to.deep.include({ electronicAddress: null, electronicAddressScheme: null });
    // The form asks both at once: the scheme first, then the address.
    expect(w.services.invoices.fillSlots(OPERATOR, w.id, ['recipient.electronicAddress']).map((s) => [s.path, s.state])).to.deep.equal([
      ['recipient.electronicAddressScheme', 'empty'],
      ['recipient.electronicAddress', 'empty'],
    ]);
    w.fill(['recipient.electronicAddressScheme', '9930'], ['recipient.electronicAddress', 'DE129273398']);
    expect(w.services.invoices.get(OPERATOR, w.id).recipient).to.deep.include({
      electronicAddress: 'DE129273398',
      electronicAddressScheme: '9930',
    });
  });
});

describe('invoice export: the hint for a missing value suggests what works (issue 56 item 10)', () => {
  let w: ReturnType<typeof gmbh> & ServiceWorld;
  afterEach(() => w?.close());
  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli([...argv, '--json'], {
      openDatabase: () => ({ ...w.database, close: () => {} }),
      createServices: () => w.services,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, json: stdout ? JSON.parse(stdout) : undefined, error: stderr ? JSON.parse(stderr).error : undefined };
  };

  it("Peppol and a client's email address: no fill of an address the invoice holds, but a new invoice; a missing address: its scheme and address, which then fill", async () => {
    w = gmbh({ electronicAddress: 'einkauf@acme.example', electronicAddressScheme: 'EM' });
    w.issue();
    const peppol = await cli('invoice', 'export', w.id, '--format', 'peppol', '--out', '/nonexistent/never-written.xml');
    expect(peppol.code).to.equal(1);
    const hint = (peppol.error.message as string).split('\n').find((line) => line.includes('(BT-49)'));
    expect(hint).to.equal(
      `  - Buyer electronic address as a Peppol participant: an identifier with its Peppol scheme (e.g. 0208, 9930, 0204, 0088); an email address (EM) is not one (BT-49): set it on the client (the Catalog page's Invoicing details, or PATCH /api/v1/clients/${w.clientId} with electronicAddress) for new invoices; this invoice keeps "einkauf@acme.example", which it was made with (a fill adds missing values and corrects its own, never these): void this invoice (timetrack invoice status ${w.id} --to void --user U; its credit note cancels it) and issue a new one`,
    );
    expect(hint).to.not.include('invoice fill');

    w.close();
    w = gmbh();
    w.issue();
    const xrechnung = await cli('invoice', 'export', w.id, '--format', 'xrechnung-ubl', '--out', '/nonexistent/never-written.xml');
    const missing = (xrechnung.error.message as string).split('\n').find((line) => line.includes('(BT-49)'))!;
    expect(missing).to.match(
      new RegExp(
        `or fill it on this invoice: timetrack invoice fill ${w.id} --user U --set 'recipient\\.electronicAddressScheme=…' --set 'recipient\\.electronicAddress=…'$`,
      ),
    );
    // The suggestion, with values, works.
    const filled = await cli(
      'invoice',
      'fill',
      w.id,
      '--user',
      w.ownerId,
      '--set',
      'recipient.electronicAddressScheme=0204',
      '--set',
      'recipient.electronicAddress=04011000-12345-03',
    );
    expect(filled.code, JSON.stringify(filled.error)).to.equal(0);
  });
});
