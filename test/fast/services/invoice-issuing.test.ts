import { expect } from 'chai';
import { createWrite } from '../../../src/db/write.js';
import { DomainError } from '../../../src/errors.js';
import { createInvoicesRepository } from '../../../src/modules/invoices/repository.js';
import { DocumentNotReady, issuerPatchOfText, NotReadyToIssue } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices } from '../../helpers/services.js';
import { refusal } from '../../helpers/refusal.js';

/*
 * Issue 56 items 1, 2 and 8 (decisions 14), over the real services on :memory: with the clock at
 * 2026-11-02: issuing runs every check its PDF faces before a number is taken, and a draft's
 * documents say the same; a seller without BT-29/BT-30/BT-31 (a § 19 small business with a tax
 * number only) gets a plain PDF and its e-invoices are refused saying why; an issued invoice's
 * VAT breakdown and totals follow from its lines, a rate filled into a draft's line included.
 */

const SMALL_BUSINESS = 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).';

/** A workspace with the profile and settings given, a client, a project at 80 an hour and two hours of October on it. */
function setup(profile: Record<string, string>, settings: Record<string, unknown>, client: Record<string, unknown> = {}) {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setBusinessProfile(OPERATOR, workspaceId, issuerPatchOfText(Object.entries(profile)));
  if (Object.keys(settings).length > 0) services.invoices.setSettings(OPERATOR, workspaceId, settings);
  const clientId = services.catalog.clients.create(owner, {
    name: 'Bäckerei Groß',
    legalName: 'Bäckerei Groß & Töchter KG',
    addressLines: ['Königsallee 1'],
    postalCode: '40212',
    city: 'Düsseldorf',
    country: 'DE',
    ...client,
  } as never).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Lektorat', clientId, billable: true, hourlyRate: 80 }).id;
  services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T11:00:00Z', billable: true });
  const draft = () =>
    services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
  return {
    ...world,
    clientId,
    draft,
    issue: (id: string) => services.invoices.issue(OPERATOR, id, { userId: ownerId }),
    fill: (id: string, ...pairs: Array<[string, string]>) => services.invoices.fill(OPERATOR, id, ownerId, pairs),
    documents: (id: string) => services.invoices.documents(OPERATOR, id),
    pdfOf: (id: string) => services.invoices.documents(OPERATOR, id).find((d) => d.format === 'pdf' && !d.creditNote)!,
  };
}

/** A German freelancer's profile: name and address, and whatever identifies them. */
const profileOf = (identity: Record<string, string>) => ({
  legalName: 'Jörg Weiß',
  addressLines: 'Torstraße 5',
  postalCode: '10119',
  city: 'Berlin',
  country: 'DE',
  email: 'joerg@example.org',
  ...identity,
});

const BR_CO_26 =
  'An identifier of the seller the buyer can use (BR-CO-26; a tax number, BT-32, is not one): a seller identifier (BT-29: issuer.sellerIdentifier, with issuer.sellerIdentifierScheme when it has one, e.g. 0088 for a GLN; without scheme, e.g. the supplier number your client gave you), your register entry (BT-30: issuer.registrationNumber, e.g. HRB 12345 B), ';

describe('invoices service: issuing runs every check first, plain PDFs, VAT from the lines (issue 56 items 1, 2, 8)', () => {
  let w: ReturnType<typeof setup> | undefined;
  afterEach(() => w?.close());

  it('item 2: a § 19 small business with only a tax number issues its invoice and gets a plain PDF/A without XML; its e-invoices are refused, saying why and what to enter', async () => {
    w = setup(profileOf({ taxNumber: '30/123/45678', smallBusiness: 'true' }), { exemptionReason: SMALL_BUSINESS, language: 'de' });
    const id = w.draft();
    // Before it is issued, the draft says which documents it will have: a plain PDF, ready to issue; no e-invoice.
    const before = w.documents(id);
    expect(before.map((d) => [d.format, d.plain])).to.deep.equal([
      ['pdf', true],
      ['xrechnung-ubl', true],
      ['xrechnung-cii', true],
      ['peppol', true],
    ]);
    expect(w.pdfOf(id)).to.deep.include({ missing: [], problem: null, taxMissing: [] });
    for (const d of before.filter((d) => d.format !== 'pdf'))
      expect(
        d.missing.map((m) => m.path),
        d.format,
      ).to.include('issuer.sellerIdentifier');

    expect(w.issue(id)).to.deep.include({ to: 'sent', number: '2026-0001' });
    expect(w.pdfOf(id)).to.deep.include({ missing: [], plain: true });
    const made = await w.services.invoices.document(OPERATOR, id, 'pdf');
    expect(made.fileName).to.equal('2026-0001.pdf');
    const pdf = made.bytes.toString('latin1');
    // PDF/A-2b (the XMP's pdfaid), nothing attached, no Factur-X declaration.
    expect(pdf).to.match(/<pdfaid:part>2<\/pdfaid:part>\s*<pdfaid:conformance>B<\/pdfaid:conformance>/);
    expect(pdf).to.not.include('factur-x');
    expect(pdf).to.not.include('/EmbeddedFiles');
    expect(pdf).to.not.include('/AF ');

    for (const format of ['xrechnung-ubl', 'xrechnung-cii', 'peppol'] as const) {
      const error = await w.services.invoices.document(OPERATOR, id, format).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, format).to.be.instanceOf(DocumentNotReady);
      const refused = error as DocumentNotReady;
      expect(refused.missing.find((m) => m.path === 'issuer.sellerIdentifier')).to.deep.equal({
        path: 'issuer.sellerIdentifier',
        bt: 'BT-29/BT-30/BT-31',
        label: `${BR_CO_26}or a VAT identifier (BT-31: issuer.vatId)`,
        where: 'business-profile',
      });
      expect(refused.message).to.match(
        /^Invoice 2026-0001 has a plain PDF and no e-invoice: its seller has no seller identifier, register entry or VAT identifier \(BT-29\/BT-30\/BT-31\), and every e-invoice must identify the seller by one \(EN 16931 BR-CO-26\)\. It cannot be made as /,
      );
    }
  });

  it('item 1: issuing refuses (409) before any number is taken, naming each value its PDF would lack by name, BT number and where to set it; the draft’s documents say exactly the same', () => {
    // No country on either party and neither VAT id nor tax number.
    w = setup({ legalName: 'Ada Lovelace Design', city: 'Berlin' }, { taxRate: 19 }, { country: null });
    const id = w.draft();
    const events = w.services.events.tail(OPERATOR, w.workspaceId, 0, 10_000).length;
    const error = refusal(() => w!.issue(id));
    expect(error).to.be.instanceOf(NotReadyToIssue);
    expect(error.code).to.equal('conflict');
    const expected = [
      { path: 'issuer.country', bt: 'BT-40', label: 'Seller country code', where: 'business-profile' },
      { path: 'recipient.country', bt: 'BT-55', label: 'Buyer country code', where: 'client' },
      {
        path: 'issuer.vatId',
        bt: 'BT-31',
        label: 'Seller VAT identifier (or the tax number, BT-32: issuer.taxNumber)',
        where: 'business-profile',
      },
    ];
    expect((error as NotReadyToIssue).missing).to.deep.equal(expected);
    expect(error.message).to.equal(
      `Invoice ${id} cannot be issued yet, and no number was taken: its PDF would lack Seller country code (BT-40: issuer.country, set it in the workspace's business profile, or fill it on this invoice); Buyer country code (BT-55: recipient.country, set it in the client's details, or fill it on this invoice); Seller VAT identifier (or the tax number, BT-32: issuer.taxNumber) (BT-31: issuer.vatId, set it in the workspace's business profile, or fill it on this invoice). Set them, then issue it again.`,
    );
    expect(error.people).to.equal(
      'This invoice cannot be issued yet; no number was taken. Its PDF would lack: Seller country code (BT-40); Buyer country code (BT-55); Seller VAT identifier (or the tax number, BT-32: issuer.taxNumber) (BT-31). Set them, then issue it again.',
    );
    // Nothing was written: no number, no event; the draft's PDF says what issuing said.
    expect(w.services.invoices.get(OPERATOR, id)).to.deep.include({ status: 'draft', number: null, issueDate: null });
    expect(w.services.events.tail(OPERATOR, w.workspaceId, 0, 10_000).length).to.equal(events);
    expect(w.pdfOf(id)).to.deep.include({ missing: expected, problem: null, plain: true });

    // Filled on the draft, it issues with the first number of the series: none was used.
    w.fill(id, ['issuer.country', 'DE'], ['recipient.country', 'DE'], ['issuer.taxNumber', '30/123/45678']);
    expect(w.pdfOf(id).missing).to.deep.equal([]);
    expect(w.issue(id).number).to.equal('2026-0001');
  });

  it('item 1: BR-CO-26 is checked at issue: an invoice not subject to VAT (O) of a seller identified by a VAT id alone is refused before its number; a supplier number filled, it issues a Factur-X PDF', async () => {
    w = setup(
      profileOf({ vatId: 'DE123456788' }),
      { taxRate: 19 },
      {
        country: 'US',
        city: 'New York',
        postalCode: '10110',
        addressLines: ['500 Fifth Avenue'],
        taxCategory: 'O',
        exemptionReason: 'Nicht im Inland steuerbare Leistung (§ 3a Abs. 2 UStG)',
      },
    );
    const id = w.draft();
    expect(w.pdfOf(id)).to.deep.include({ plain: false });
    const error = refusal(() => w!.issue(id)) as NotReadyToIssue;
    expect(error).to.be.instanceOf(NotReadyToIssue);
    expect(error.missing).to.deep.equal([
      {
        path: 'issuer.sellerIdentifier',
        bt: 'BT-29/BT-30/BT-31',
        label: `${BR_CO_26}the VAT identifier (BT-31) cannot serve: an invoice not subject to VAT (O) carries none`,
        where: 'business-profile',
      },
    ]);
    expect(w.pdfOf(id).missing).to.deep.equal(error.missing);
    expect(w.services.invoices.get(OPERATOR, id).number).to.equal(null);
    w.fill(id, ['issuer.sellerIdentifier', 'K-100234']);
    expect(w.issue(id).number).to.equal('2026-0001');
    const made = await w.services.invoices.document(OPERATOR, id, 'pdf');
    expect(made.bytes.toString('latin1')).to.include('factur-x.xml');
    expect(made.bytes.toString('latin1')).to.match(/<pdfaid:part>3<\/pdfaid:part>/);
  });

  it('item 1: a VAT setting and a value missing together are refused in one answer; the tax setting alone keeps its own refusal', () => {
    w = setup({ legalName: 'Ada Lovelace Design', vatId: 'DE123456788' }, {});
    const id = w.draft();
    expect(w.pdfOf(id).taxMissing).to.deep.equal([
      { setting: 'taxRate', problem: 'the workspace has no VAT rate for the standard rate (category S)' },
    ]);
    // The line's rate and the breakdown are what the missing setting stands for: named once, by the setting.
    expect(w.pdfOf(id).missing.map((m) => m.path)).to.deep.equal(['issuer.country']);
    const both = refusal(() => w!.issue(id)) as NotReadyToIssue;
    expect(both).to.be.instanceOf(NotReadyToIssue);
    expect(both.message).to.match(
      /^Invoice inv_\S+ cannot be issued yet, and no number was taken: its tax is not set\. taxRate: the workspace has no VAT rate for the standard rate \(category S\); set taxRate on the Workspace page .* And its PDF would lack Seller country code \(BT-40: issuer\.country, .*\)\. Set them, then issue it again\.$/,
    );
    expect(both.taxPeople).to.match(/^Set the standard VAT rate under Settings › Workspace › Invoicing/);
    w.fill(id, ['issuer.country', 'DE']);
    const taxOnly = refusal(() => w!.issue(id));
    expect(taxOnly).to.not.be.instanceOf(NotReadyToIssue);
    expect(taxOnly).to.deep.include({ code: 'conflict', field: 'tax' });
    expect(taxOnly.message).to.match(/^This invoice cannot be issued yet: its tax is not set\. taxRate: /);
  });

  it('item 8: a draft made before the workspace had a VAT rate, its line’s rate filled, shows and issues the VAT its lines make: S 19 %, VAT 30.40, gross = net + VAT', async () => {
    w = setup(profileOf({ vatId: 'DE123456788' }), {});
    const id = w.draft();
    expect(w.services.invoices.get(OPERATOR, id)).to.deep.include({ taxBreakdown: [], taxTotal: 0, netTotal: 160, grossTotal: 160 });
    w.fill(id, ['lines[0].taxRate', '19']);
    const row = { category: 'S', rate: 19, basisAmount: 160, taxAmount: 30.4, exemptionReason: null, exemptionReasonCode: null };
    // The draft's breakdown follows its lines at once, as issuing will.
    expect(w.services.invoices.get(OPERATOR, id)).to.deep.include({ taxBreakdown: [row], taxTotal: 30.4, grossTotal: 190.4 });
    expect(w.pdfOf(id)).to.deep.include({ missing: [], taxMissing: [] });
    expect(w.issue(id).number).to.equal('2026-0001');
    const issued = w.services.invoices.get(OPERATOR, id);
    expect(issued.lines.map((l) => [l.taxCategory, l.taxRate, l.amount])).to.deep.equal([['S', 19, 160]]);
    expect(issued).to.deep.include({ taxBreakdown: [row], netTotal: 160, taxTotal: 30.4, grossTotal: 190.4, amountDue: 190.4 });
    // Its PDF is made (every document of such an invoice goes through the rule sets in test/einvoice/issuing.test.ts).
    expect(w.pdfOf(id).missing).to.deep.equal([]);
    expect((await w.services.invoices.document(OPERATOR, id, 'pdf')).bytes.toString('latin1')).to.include('factur-x.xml');
  });

  it('item 8: issuing makes the breakdown from the lines whatever the draft stored; a rate its category forbids (S at 0 %) is refused before the number', () => {
    w = setup(profileOf({ vatId: 'DE123456788' }), { taxRate: 19 });
    const id = w.draft();
    // A draft whose stored breakdown says no VAT while its line says 19 % (as a draft of the old fill left it).
    const repo = createInvoicesRepository(w.database.db);
    const extras = JSON.parse(repo.invoice(id)!.extras) as Record<string, unknown>;
    createWrite(w.database.db, null)(() => repo.update(id, { extras: JSON.stringify({ ...extras, taxBreakdown: [] }) }));
    expect(w.services.invoices.get(OPERATOR, id)).to.deep.include({ taxTotal: 0 });
    w.issue(id);
    expect(w.services.invoices.get(OPERATOR, id)).to.deep.include({ taxTotal: 30.4, grossTotal: 190.4 });
    expect(w.services.invoices.get(OPERATOR, id).taxBreakdown).to.have.length(1);

    // S at 0 % is no standard rate (BR-S-05): named at the line before a number is taken.
    const other = setup(profileOf({ vatId: 'DE123456788' }), {});
    try {
      const zero = other.draft();
      other.fill(zero, ['lines[0].taxRate', '0']);
      const error = refusal(() => other.issue(zero)) as NotReadyToIssue;
      expect(error).to.be.instanceOf(NotReadyToIssue);
      expect(error.missing).to.deep.equal([
        {
          path: 'lines[0].taxRate',
          bt: 'BT-152',
          label: 'VAT rate of line 1: the standard rate (category S) is above 0 % (zero-rated supplies are category Z)',
          where: 'fill',
        },
      ]);
      expect(other.services.invoices.get(OPERATOR, zero).number).to.equal(null);
    } finally {
      other.close();
    }
  });

  it('a refusal of issuing is a DomainError the API maps like any conflict', () => {
    w = setup({ legalName: 'Ada' }, { taxRate: 19 });
    const error = refusal(() => w!.issue(w!.draft()));
    expect(error).to.be.instanceOf(DomainError);
    expect(error.field).to.equal('issue');
  });
});
