import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DOCUMENT_FORMATS, type DocumentFormat } from '../../src/modules/invoices/service.js';
import { OPERATOR } from '../../src/principal.js';
import { germanSellerAndClient } from '../helpers/german-billing.js';
import { memoryServices, type ServiceWorld } from '../helpers/services.js';
import { fatal, poppler, requireTools, validate, type FileReport } from './tools.js';

/**
 * Manual lines (issue 57 item 1) as the invoices service makes them: a draft of time at the
 * workspace's 19 % takes a book at 7 %, travel in kilometres at the invoice's own rate and a
 * zero-rated item; issued, then voided into its credit note. Every document of both, through
 * every rule set it claims, in one run of the kept validator: each manual line carries its own
 * quantity, UN/ECE unit code (BT-130) and price, and the breakdown a row per category and rate.
 */
describe('invoice documents with manual lines (issue 57 item 1), as issued by the service, through every rule set they claim', function () {
  this.timeout(300_000);
  let dir: string;
  let w: ServiceWorld;
  const reports = new Map<string, FileReport>();
  const files: Record<string, Partial<Record<DocumentFormat, string>>> = {};
  let issued: ReturnType<ServiceWorld['services']['invoices']['get']>;

  async function write(name: string, id: string, creditNote: boolean) {
    files[name] = {};
    for (const format of DOCUMENT_FORMATS) {
      const made = await w.services.invoices.document(OPERATOR, id, format, { creditNote });
      const file = join(dir, `${name}.${format}.${format === 'pdf' ? 'pdf' : 'xml'}`);
      writeFileSync(file, made.bytes);
      files[name][format] = file;
    }
  }

  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-manual-lines-'));
    w = memoryServices();
    const { services, owner, workspaceId, ownerId } = w;
    const clientId = germanSellerAndClient(w, {
      seller: 'Jörg Weiß Beratung',
      client: 'Bäckerei Groß',
      clientLegalName: 'Bäckerei Groß & Töchter KG',
      clientEmail: 'einkauf@baeckerei-gross.example',
    });
    const projectId = services.catalog.projects.create(owner, { name: 'Beratung', clientId, billable: true, hourlyRate: 95 }).id;
    services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T12:20:17Z', billable: true });
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    const add = (line: Record<string, unknown>) => services.invoices.addLine(OPERATOR, id, line);
    add({
      description: 'Fachbuch „Datenschutz für Bäcker“',
      quantity: '3',
      unit: 'C62',
      unitPrice: '33,335',
      taxCategory: 'S',
      taxRate: '7',
    });
    add({ description: 'Anfahrt Berlin–Düsseldorf', quantity: '42,5', unit: 'km', unitPrice: '0.30' });
    add({ description: 'Spende Backstube (nullbesteuert)', quantity: '1', unit: 'LS', unitPrice: '50', taxCategory: 'Z' });
    services.invoices.issue(OPERATOR, id, { userId: ownerId });
    issued = services.invoices.get(OPERATOR, id);
    expect(services.invoices.documents(OPERATOR, id).map((d) => [d.format, d.missing, d.problem])).to.deep.equal(
      DOCUMENT_FORMATS.map((f) => [f, [], null]),
    );
    await write('manual', id, false);
    services.invoices.void(OPERATOR, id, { userId: ownerId });
    await write('manual-credit-note', id, true);
    const all = Object.values(files).flatMap((byFormat) => Object.values(byFormat));
    for (const [file, report] of (await validate(all)).files) reports.set(file, report);
  });

  after(() => {
    w?.close();
    if (dir && !process.env.KEEP_MANUAL) rmSync(dir, { recursive: true, force: true });
  });

  const CLAIMS: Record<DocumentFormat, string[]> = {
    pdf: ['cii-d16b-schema', 'en16931', 'facturx-en16931-schema', 'facturx-en16931'],
    'xrechnung-ubl': ['ubl-2.1-schema', 'en16931', 'xrechnung'],
    'xrechnung-cii': ['cii-d16b-schema', 'en16931', 'xrechnung'],
    peppol: ['ubl-2.1-schema', 'en16931', 'peppol'],
  };

  it('the issued invoice: time at 19 %, the book at 7 %, the travel at the invoice’s 19 %, the Z item at 0; a breakdown row per category and rate', () => {
    expect(issued.lines.map((l) => [l.amount, l.taxCategory, l.taxRate, l.manual?.unit ?? null])).to.deep.equal([
      [317.12, 'S', 19, null],
      [100.01, 'S', 7, 'C62'],
      [12.75, 'S', 19, 'KMT'],
      [50, 'Z', 0, 'LS'],
    ]);
    expect(issued.taxBreakdown?.map((r) => [r.category, r.rate, r.basisAmount, r.taxAmount])).to.deep.equal([
      ['S', 7, 100.01, 7],
      ['S', 19, 329.87, 62.68],
      ['Z', 0, 50, 0],
    ]);
    expect(issued).to.deep.include({ netTotal: 479.88, taxTotal: 69.68, grossTotal: 549.56 });
  });

  for (const name of ['manual', 'manual-credit-note'])
    for (const format of DOCUMENT_FORMATS)
      it(`${name}: ${format} passes ${CLAIMS[format].join(', ')} with no fatal finding, each manual line in its unit`, () => {
        const report = reports.get(files[name]![format]!)!;
        expect(report.rules).to.deep.equal(CLAIMS[format]);
        expect(fatal(report)).to.deep.equal([]);
        if (format === 'pdf') {
          expect(report.pdf).to.deep.include({ attachments: ['factur-x.xml'], part: 3, facturXSchema: true, fontsNotEmbedded: [] });
          const text = poppler('pdftotext', '-layout', files[name]!.pdf!, '-');
          // Quantity and price as given, with the unit's German symbol; time in hours beside them.
          for (const row of [
            /3,338056 Std\.\s+95,00 €\s+19\s*%\s+317,12 €/,
            /3 Stk\.\s+33,335 €\s+7\s*%\s+100,01 €/,
            /42,5 km\s+0,30 €\s+19\s*%\s+12,75 €/,
            /1 pausch\.\s+50,00 €\s+0\s*%\s+50,00 €/,
          ])
            expect(text).to.match(row);
          expect(text).to.match(/Menge\s+Einzelpreis/);
        } else {
          const xml = readFileSync(files[name]![format]!, 'utf8');
          for (const [unit, quantity] of [
            ['HUR', '3.338056'],
            ['C62', '3'],
            ['KMT', '42.5'],
            ['LS', '1'],
          ])
            expect(xml).to.include(`unitCode="${unit}">${quantity}<`);
          expect(xml).to.match(/>33\.335</);
          expect(xml).to.match(/>62\.68</);
        }
      });
});
