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
 * Two VAT rates from the catalog (issue 57 item 2, decisions §12), as the invoices service makes
 * them from tracked time: a project at 7 % (a book's text), a task at 19 % of another project
 * whose own rate is 7 % (the task's wins), an expense at 19 % and a manual line at the invoice's
 * own 19 %, issued. Every document through every rule set it claims, in one run of the kept
 * validator; the BG-23 breakdown has a row per rate with its sums. A copy of the UBL with one
 * line's rate changed is run beside them, to show the rules catch a wrong rate.
 */
describe('invoice documents with two VAT rates from a project and a task (issue 57 item 2), as made by the service, through every rule set they claim', function () {
  this.timeout(300_000);
  let dir: string;
  let w: ServiceWorld;
  const reports = new Map<string, FileReport>();
  const files: Partial<Record<DocumentFormat, string>> = {};
  let broken: string;
  let issued: ReturnType<ServiceWorld['services']['invoices']['get']>;

  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-vat-rates-'));
    w = memoryServices();
    const { services, owner, workspaceId, ownerId } = w;
    const clientId = germanSellerAndClient(w, {
      seller: 'Jörg Weiß Verlagsservice',
      client: 'Verlag Groß',
      clientLegalName: 'Verlag Groß & Töchter KG',
      clientEmail: 'einkauf@verlag-gross.example',
    });
    const tax = (kind: 'project' | 'task', id: string, taxRate: number) =>
      services.invoices.setWorkTax(OPERATOR, workspaceId, { kind, id }, { taxCategory: 'S', taxRate });
    // The book's text at 7 % (its project's own rate).
    const lektorat = services.catalog.projects.create(owner, { name: 'Lektorat', clientId, billable: true, hourlyRate: 80 }).id;
    tax('project', lektorat, 7);
    // Another project at 7 %, whose workshop task is consulting at 19 %: the task's rate wins on its time.
    const buch = services.catalog.projects.create(owner, { name: 'Buchprojekt', clientId, billable: true, hourlyRate: 95 }).id;
    tax('project', buch, 7);
    const workshop = services.catalog.tasks.create(owner, { name: 'Workshop', projectId: buch }).id;
    tax('task', workshop, 19);
    services.entries.create(owner, { projectId: lektorat, start: '2026-10-05T09:00:00Z', end: '2026-10-05T11:00:00Z', billable: true });
    services.entries.create(owner, {
      projectId: buch,
      taskId: workshop,
      start: '2026-10-06T09:00:00Z',
      end: '2026-10-06T12:00:00Z',
      billable: true,
    });
    services.expenses.add(owner, {
      day: '2026-10-07',
      description: 'Raummiete Workshop',
      amount: '84,50',
      projectId: buch,
      taxCategory: 'S',
      taxRate: '19',
    });
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    // A manual line at the invoice's own rate (the workspace's 19 %).
    services.invoices.addLine(OPERATOR, id, { description: 'Schriftlizenz', quantity: '2', unit: 'C62', unitPrice: '25' });
    services.invoices.issue(OPERATOR, id, { userId: ownerId });
    issued = services.invoices.get(OPERATOR, id);
    expect(services.invoices.documents(OPERATOR, id).map((d) => [d.format, d.missing, d.problem])).to.deep.equal(
      DOCUMENT_FORMATS.map((f) => [f, [], null]),
    );
    for (const format of DOCUMENT_FORMATS) {
      const made = await services.invoices.document(OPERATOR, id, format, { creditNote: false });
      const file = join(dir, `vat-rates.${format}.${format === 'pdf' ? 'pdf' : 'xml'}`);
      writeFileSync(file, made.bytes);
      files[format] = file;
    }
    // The same UBL with the workshop's line (Buchprojekt, at its task's 19 %) written at 7 %: the lines no longer add up to the breakdown rows.
    const ubl = readFileSync(files['xrechnung-ubl']!, 'utf8');
    const lines = ubl.split('<cac:InvoiceLine>');
    const at = lines.findIndex((part) => part.includes('<cbc:Name>Buchprojekt</cbc:Name>'));
    expect(at, 'the workshop line').to.be.greaterThan(0);
    lines[at] = (lines[at] as string).replace('<cbc:Percent>19.00</cbc:Percent>', '<cbc:Percent>7.00</cbc:Percent>');
    broken = join(dir, 'vat-rates-broken.xrechnung-ubl.xml');
    writeFileSync(broken, lines.join('<cac:InvoiceLine>'));
    expect(readFileSync(broken, 'utf8')).to.not.equal(ubl);
    for (const [file, report] of (await validate([...Object.values(files), broken])).files) reports.set(file, report);
  });

  after(() => {
    w?.close();
    if (dir && !process.env.KEEP_VAT_RATES) rmSync(dir, { recursive: true, force: true });
  });

  const CLAIMS: Record<DocumentFormat, string[]> = {
    pdf: ['cii-d16b-schema', 'en16931', 'facturx-en16931-schema', 'facturx-en16931'],
    'xrechnung-ubl': ['ubl-2.1-schema', 'en16931', 'xrechnung'],
    'xrechnung-cii': ['cii-d16b-schema', 'en16931', 'xrechnung'],
    peppol: ['ubl-2.1-schema', 'en16931', 'peppol'],
  };

  it('the issued invoice: the project’s time at 7 %, the task’s at 19 % over its project’s 7 %, the expense and the manual line at 19 %; BG-23 a row per rate', () => {
    expect(issued.lines.map((l) => [l.description, l.amount, l.taxCategory, l.taxRate])).to.deep.equal([
      ['Buchprojekt', 285, 'S', 19],
      ['Lektorat', 160, 'S', 7],
      ['07.10.2026 Raummiete Workshop', 84.5, 'S', 19],
      ['Schriftlizenz', 50, 'S', 19],
    ]);
    // 7 %: 160.00 → 11.20; 19 %: 285.00 + 84.50 + 50.00 = 419.50 → 79.705, rounded half away from zero once per row: 79.71.
    expect(issued.taxBreakdown?.map((r) => [r.category, r.rate, r.basisAmount, r.taxAmount])).to.deep.equal([
      ['S', 7, 160, 11.2],
      ['S', 19, 419.5, 79.71],
    ]);
    expect(issued).to.deep.include({ netTotal: 579.5, taxTotal: 90.91, grossTotal: 670.41 });
  });

  for (const format of DOCUMENT_FORMATS)
    it(`${format} passes ${CLAIMS[format].join(', ')} with no fatal finding, and carries both breakdown rows`, () => {
      const report = reports.get(files[format]!)!;
      expect(report.rules).to.deep.equal(CLAIMS[format]);
      expect(fatal(report)).to.deep.equal([]);
      if (format === 'pdf') {
        const text = poppler('pdftotext', '-layout', files.pdf!, '-');
        expect(text).to.match(/USt\.\s+7\s*%\s+auf\s+160,00 €\s+11,20 €/);
        expect(text).to.match(/USt\.\s+19\s*%\s+auf\s+419,50 €\s+79,71 €/);
        expect(text).to.match(/670,41 €/);
      } else if (format === 'xrechnung-cii') {
        const xml = readFileSync(files[format]!, 'utf8').replace(/\s+/g, '');
        expect(xml).to.include(
          '<ram:CalculatedAmount>11.20</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>160.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>7.00</ram:RateApplicablePercent>',
        );
        expect(xml).to.include(
          '<ram:CalculatedAmount>79.71</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>419.50</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19.00</ram:RateApplicablePercent>',
        );
      } else {
        const xml = readFileSync(files[format]!, 'utf8').replace(/\s+/g, '');
        expect(xml).to.include(
          '<cac:TaxSubtotal><cbc:TaxableAmountcurrencyID="EUR">160.00</cbc:TaxableAmount><cbc:TaxAmountcurrencyID="EUR">11.20</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>7.00</cbc:Percent>',
        );
        expect(xml).to.include(
          '<cac:TaxSubtotal><cbc:TaxableAmountcurrencyID="EUR">419.50</cbc:TaxableAmount><cbc:TaxAmountcurrencyID="EUR">79.71</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19.00</cbc:Percent>',
        );
      }
    });

  it('a wrong rate on one line is caught: the workshop’s line written at 7 % no longer adds up to the 7 % row’s basis (BR-S-08)', () => {
    const caught = (reports.get(broken)?.findings ?? []).filter((f) => f.flag === 'fatal').map((f) => `${f.rules}: ${f.id}`);
    expect(caught).to.include('en16931: BR-S-08');
  });
});
