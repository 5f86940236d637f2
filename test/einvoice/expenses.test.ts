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
 * Expenses (issue 57 item 1) as a draft takes them: time at the workspace's 19 % and a book bought
 * for the client at 7 % (a line of one piece, `C62`, at its net), issued. Every document through
 * every rule set it claims, in one run of the kept validator.
 */
describe('invoice documents with an expense (issue 57 item 1), as issued by the service, through every rule set they claim', function () {
  this.timeout(300_000);
  let dir: string;
  let w: ServiceWorld;
  const reports = new Map<string, FileReport>();
  const files: Partial<Record<DocumentFormat, string>> = {};
  let issued: ReturnType<ServiceWorld['services']['invoices']['get']>;

  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-expenses-'));
    w = memoryServices();
    const { services, owner, workspaceId, ownerId } = w;
    const clientId = germanSellerAndClient(w, {
      seller: 'Jörg Weiß Beratung',
      client: 'Bäckerei Groß',
      clientLegalName: 'Bäckerei Groß & Töchter KG',
      clientEmail: 'einkauf@baeckerei-gross.example',
    });
    const projectId = services.catalog.projects.create(owner, { name: 'Beratung', clientId, billable: true, hourlyRate: 95 }).id;
    services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T12:00:00Z', billable: true });
    services.expenses.add(
      owner,
      { day: '2026-10-06', description: 'Fachbuch „Datenschutz für Bäcker“', amount: '39,90', projectId, taxCategory: 'S', taxRate: '7' },
      { name: 'beleg.pdf', bytes: Buffer.from('%PDF-1.4\n%%EOF\n') },
    );
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    services.invoices.issue(OPERATOR, id, { userId: ownerId });
    issued = services.invoices.get(OPERATOR, id);
    for (const format of DOCUMENT_FORMATS) {
      const made = await services.invoices.document(OPERATOR, id, format, { creditNote: false });
      const file = join(dir, `expenses.${format}.${format === 'pdf' ? 'pdf' : 'xml'}`);
      writeFileSync(file, made.bytes);
      files[format] = file;
    }
    for (const [file, report] of (await validate(Object.values(files))).files) reports.set(file, report);
  });

  after(() => {
    w?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const CLAIMS: Record<DocumentFormat, string[]> = {
    pdf: ['cii-d16b-schema', 'en16931', 'facturx-en16931-schema', 'facturx-en16931'],
    'xrechnung-ubl': ['ubl-2.1-schema', 'en16931', 'xrechnung'],
    'xrechnung-cii': ['cii-d16b-schema', 'en16931', 'xrechnung'],
    peppol: ['ubl-2.1-schema', 'en16931', 'peppol'],
  };

  it('the issued invoice: time at 19 %, the expense at 7 % as one piece; a breakdown row per rate', () => {
    expect(issued.lines.map((l) => [l.description, l.amount, l.taxCategory, l.taxRate, l.manual?.unit ?? null])).to.deep.equal([
      ['Beratung', 285, 'S', 19, null],
      ['06.10.2026 Fachbuch „Datenschutz für Bäcker“', 39.9, 'S', 7, 'C62'],
    ]);
    expect(issued.taxBreakdown?.map((r) => [r.category, r.rate, r.basisAmount, r.taxAmount])).to.deep.equal([
      ['S', 7, 39.9, 2.79],
      ['S', 19, 285, 54.15],
    ]);
    expect(issued).to.deep.include({ netTotal: 324.9, taxTotal: 56.94, grossTotal: 381.84 });
  });

  for (const format of DOCUMENT_FORMATS)
    it(`${format} passes ${CLAIMS[format].join(', ')} with no fatal finding, the expense as one piece at 7 %`, () => {
      const report = reports.get(files[format]!)!;
      expect(report.rules).to.deep.equal(CLAIMS[format]);
      expect(fatal(report)).to.deep.equal([]);
      if (format === 'pdf') {
        const text = poppler('pdftotext', '-layout', files.pdf!, '-');
        expect(text).to.match(/1 Stk\.\s+39,90 €\s+7\s*%\s+39,90 €/);
      } else {
        const xml = readFileSync(files[format]!, 'utf8');
        expect(xml).to.include('unitCode="C62">1<');
        expect(xml).to.match(/>2\.79</);
      }
    });
});
