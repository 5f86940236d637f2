import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DOCUMENT_FORMATS, type DocumentFormat, issuerPatchOfText } from '../../src/modules/invoices/service.js';
import { OPERATOR } from '../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../helpers/services.js';
import { fatal, poppler, requireTools, validate, type FileReport } from './tools.js';

/**
 * The new cases of issue 56 (items 2 and 8) as the invoices service issues them, not written by
 * hand: every document each one has, and its credit note's, through every rule set it claims in
 * one run of the kept validator. A draft made before the workspace had a VAT rate whose line
 * rates were filled (item 8) has all four formats, carrying the VAT its lines make; a § 19 small
 * business with a tax number only (item 2) has a plain PDF/A-2b without XML.
 */
describe('invoice documents of issue 56’s cases, as issued by the service, through every rule set they claim', function () {
  this.timeout(300_000);
  let dir: string;
  const reports = new Map<string, FileReport>();
  const worlds: ServiceWorld[] = [];
  /** name -> (format -> file) */
  const files: Record<string, Partial<Record<DocumentFormat, string>>> = {};
  const issued: Record<string, ReturnType<ServiceWorld['services']['invoices']['get']>> = {};

  /** A workspace with a profile, a client XRechnung and Peppol can address, and two projects of October. */
  function world(profile: Record<string, string>, settings: Record<string, unknown>) {
    const w = memoryServices();
    worlds.push(w);
    const { services, owner, workspaceId } = w;
    services.invoices.setBusinessProfile(
      OPERATOR,
      workspaceId,
      issuerPatchOfText(
        Object.entries({
          addressLines: 'Torstraße 5',
          postalCode: '10119',
          city: 'Berlin',
          country: 'DE',
          contactName: 'Jörg Weiß',
          phone: '+49 30 1234567',
          email: 'joerg@example.org',
          iban: 'DE02120300000000202051',
          bic: 'BYLADEM1001',
          ...profile,
        }),
      ),
    );
    if (Object.keys(settings).length > 0) services.invoices.setSettings(OPERATOR, workspaceId, settings);
    const clientId = services.catalog.clients.create(owner, {
      name: 'Bäckerei Groß',
      legalName: 'Bäckerei Groß & Töchter KG',
      addressLines: ['Königsallee 1'],
      postalCode: '40212',
      city: 'Düsseldorf',
      country: 'DE',
      email: 'einkauf@baeckerei-gross.example',
      reference: '04011000-12345-03',
      electronicAddress: '04011000-12345-03',
      electronicAddressScheme: '0204',
    } as never).id;
    for (const [name, rate, day] of [
      ['Beratung', 95, '05'],
      ['Lektorat', 120.5, '06'],
    ] as const) {
      const projectId = services.catalog.projects.create(owner, { name, clientId, billable: true, hourlyRate: rate }).id;
      services.entries.create(owner, { projectId, start: `2026-10-${day}T09:00:00Z`, end: `2026-10-${day}T12:20:17Z`, billable: true });
    }
    const draft = services.invoices.create(OPERATOR, {
      workspaceId,
      userId: w.ownerId,
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    return { w, draft };
  }

  /** Writes every document the invoice (or its credit note) has into files, and the credit note's. */
  async function write(w: ServiceWorld, name: string, id: string, formats: readonly DocumentFormat[], creditNote = false) {
    files[name] = {};
    for (const format of formats) {
      const made = await w.services.invoices.document(OPERATOR, id, format, { creditNote });
      const file = join(dir, `${name}.${format}.${format === 'pdf' ? 'pdf' : 'xml'}`);
      writeFileSync(file, made.bytes);
      files[name][format] = file;
    }
  }

  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-issuing-'));

    // Item 8: no VAT rate when the draft was made; each line's rate filled; issued, then voided into its credit note.
    const filled = world(
      { legalName: 'Jörg Weiß Beratung', vatId: 'DE123456788', electronicAddress: 'DE123456788', electronicAddressScheme: '9930' },
      {},
    );
    const { services } = filled.w;
    services.invoices.fill(OPERATOR, filled.draft, filled.w.ownerId, [
      ['lines[0].taxRate', '19'],
      ['lines[1].taxRate', '19'],
    ]);
    services.invoices.issue(OPERATOR, filled.draft, { userId: filled.w.ownerId });
    issued['rate-filled'] = services.invoices.get(OPERATOR, filled.draft);
    expect(services.invoices.documents(OPERATOR, filled.draft).map((d) => [d.format, d.missing])).to.deep.equal(
      DOCUMENT_FORMATS.map((f) => [f, []]),
    );
    await write(filled.w, 'rate-filled', filled.draft, DOCUMENT_FORMATS);
    services.invoices.void(OPERATOR, filled.draft, { userId: filled.w.ownerId });
    await write(filled.w, 'rate-filled-credit-note', filled.draft, DOCUMENT_FORMATS, true);

    // Item 2: a § 19 small business with a tax number only: the plain PDF, and its credit note's.
    const small = world(
      { legalName: 'Jörg Weiß – Lektorat', taxNumber: '30/123/45678', smallBusiness: 'true' },
      { exemptionReason: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).', language: 'de' },
    );
    small.w.services.invoices.issue(OPERATOR, small.draft, { userId: small.w.ownerId });
    await write(small.w, 'small-business', small.draft, ['pdf']);
    small.w.services.invoices.void(OPERATOR, small.draft, { userId: small.w.ownerId });
    await write(small.w, 'small-business-credit-note', small.draft, ['pdf'], true);

    const all = Object.values(files).flatMap((byFormat) => Object.values(byFormat));
    for (const [file, report] of (await validate(all)).files) reports.set(file, report);
  });

  after(() => {
    for (const w of worlds) w.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const CLAIMS: Record<DocumentFormat, string[]> = {
    pdf: ['cii-d16b-schema', 'en16931', 'facturx-en16931-schema', 'facturx-en16931'],
    'xrechnung-ubl': ['ubl-2.1-schema', 'en16931', 'xrechnung'],
    'xrechnung-cii': ['cii-d16b-schema', 'en16931', 'xrechnung'],
    peppol: ['ubl-2.1-schema', 'en16931', 'peppol'],
  };

  it('item 8: the rates filled into the draft’s lines are the issued invoice’s VAT: S 19 % on both lines, its breakdown and totals from them', () => {
    const invoice = issued['rate-filled']!;
    expect(invoice.lines.map((l) => [l.taxCategory, l.taxRate, l.amount])).to.deep.equal([
      ['S', 19, 317.12],
      ['S', 19, 402.24],
    ]);
    expect(invoice.taxBreakdown).to.deep.equal([
      { category: 'S', rate: 19, basisAmount: 719.36, taxAmount: 136.68, exemptionReason: null, exemptionReasonCode: null },
    ]);
    expect(invoice).to.deep.include({ netTotal: 719.36, taxTotal: 136.68, grossTotal: 856.04 });
  });

  for (const name of ['rate-filled', 'rate-filled-credit-note'])
    for (const format of DOCUMENT_FORMATS)
      it(`item 8: ${name}: ${format} passes ${CLAIMS[format].join(', ')} with no fatal finding, carrying VAT 136.68`, () => {
        const report = reports.get(files[name]![format]!)!;
        expect(report.rules).to.deep.equal(CLAIMS[format]);
        expect(fatal(report)).to.deep.equal([]);
        if (format === 'pdf') {
          expect(report.pdf).to.deep.include({ attachments: ['factur-x.xml'], part: 3, facturXSchema: true, fontsNotEmbedded: [] });
          expect(poppler('pdftotext', '-layout', files[name]!.pdf!, '-')).to.match(/136\.68/);
        } else expect(readFileSync(files[name]![format]!, 'utf8')).to.match(/>136\.68</);
      });

  for (const name of ['small-business', 'small-business-credit-note'])
    it(`item 2: ${name}: a plain PDF/A-2b (fonts embedded, no XML, no Factur-X declaration) with no fatal finding`, () => {
      const report = reports.get(files[name]!.pdf!)!;
      expect(report.rules).to.deep.equal([]);
      expect(report.pdf).to.deep.include({
        attachments: [],
        part: 2,
        conformance: 'B',
        facturXSchema: false,
        fontsNotEmbedded: [],
        plain: true,
      });
      expect(fatal(report)).to.deep.equal([]);
      const text = poppler('pdftotext', '-layout', files[name]!.pdf!, '-');
      expect(text).to.include('Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).');
      expect(text).to.match(/Steuernummer 30\/123\/45678/);
    });
});
