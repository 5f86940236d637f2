import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { renderDocument, type DocumentFormat } from '../../src/modules/invoices/documents/index.js';
import { DRAFT, matrix } from './fixtures.js';
import { CII_SCHEMA, fatal, poppler, requireTools, schemaErrors, validate, type FileReport } from './tools.js';

/**
 * Every format of every invoice of the matrix, checked by the official rules: EN 16931 for all
 * (the PDF's attached factur-x.xml included), KoSIT's XRechnung rules as well for XRechnung. The
 * validator runs twice over all the files (each rule set one Java start), not once per file.
 */
const FORMATS: DocumentFormat[] = ['pdf', 'xrechnung-ubl', 'xrechnung-cii', 'peppol'];
const invoices = matrix();
const isCreditNote = (name: string) => name.startsWith('credit-note');
const extension = (format: DocumentFormat) => (format === 'pdf' ? 'pdf' : 'xml');
/** The formats of an invoice of the matrix: all, but Peppol for the one addressed by email (missing.test.ts). */
const formatsOf = (name: string) => FORMATS.filter((format) => name !== 'email-addresses' || format !== 'peppol');

describe('invoice documents: the official rules (EN 16931, XRechnung 3.0) over the matrix', function () {
  this.timeout(300_000);
  let dir: string;
  const reports = new Map<string, FileReport>();
  let schema = new Map<string, string[]>();
  const path = (name: string, format: string, ext: string) => join(dir, `${name}.${format}.${ext}`);

  before(async function () {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-einvoice-'));
    const plain: string[] = [];
    const xrechnung: string[] = [];
    for (const [name, doc] of Object.entries(invoices)) {
      for (const format of formatsOf(name)) {
        const file = path(name, format, extension(format));
        writeFileSync(file, await renderDocument(doc, format, { creditNote: isCreditNote(name) }));
        (format.startsWith('xrechnung') ? xrechnung : plain).push(file);
      }
    }
    writeFileSync(path('draft', 'pdf', 'pdf'), await renderDocument(DRAFT(), 'pdf'));
    plain.push(path('draft', 'pdf', 'pdf'));
    // The check can fail: the same invoices with a total that does not add up.
    const ubl = readFileSync(path('standard-19', 'xrechnung-ubl', 'xml'), 'utf8');
    const cii = readFileSync(path('standard-19', 'xrechnung-cii', 'xml'), 'utf8');
    const brokenUbl = ubl.replace(/(<cbc:TaxInclusiveAmount currencyID="EUR">)1891\.79</, '$11891.80<');
    const brokenCii = cii.replace(/<ram:GrandTotalAmount>1891\.79</, '<ram:GrandTotalAmount>1891.80<');
    expect(brokenUbl).to.not.equal(ubl);
    expect(brokenCii).to.not.equal(cii);
    writeFileSync(path('broken-total', 'ubl', 'xml'), brokenUbl);
    writeFileSync(path('broken-total', 'cii', 'xml'), brokenCii);
    xrechnung.push(path('broken-total', 'ubl', 'xml'), path('broken-total', 'cii', 'xml'));
    // The two runs share the machine's two cores.
    const [en, xr] = await Promise.all([validate(plain, false), validate(xrechnung, true)]);
    expect(en.rules).to.deep.equal(['en16931']);
    expect(xr.rules).to.deep.equal(['en16931', 'xrechnung']);
    for (const [file, report] of [...en.files, ...xr.files]) reports.set(file, report);
    // The schema: every CII document (XRechnung's and each PDF's factur-x.xml), and one whose
    // elements are out of the schema's order, in one xmllint run.
    const ciiFiles: string[] = [];
    for (const name of Object.keys(invoices)) {
      ciiFiles.push(path(name, 'xrechnung-cii', 'xml'));
      const out = join(dir, `${name}-attachments`);
      mkdirSync(out);
      poppler('pdfdetach', '-saveall', '-o', out, path(name, 'pdf', 'pdf'));
      renameSync(join(out, 'factur-x.xml'), path(name, 'factur-x', 'xml'));
      ciiFiles.push(path(name, 'factur-x', 'xml'));
    }
    const swapped = cii.replace(/(<ram:TypeCode>380<\/ram:TypeCode>)\n(<ram:IssueDateTime>[\s\S]*?<\/ram:IssueDateTime>)/, '$2\n$1');
    expect(swapped).to.not.equal(cii);
    writeFileSync(path('out-of-order', 'cii', 'xml'), swapped);
    schema = schemaErrors(CII_SCHEMA, [...ciiFiles, path('out-of-order', 'cii', 'xml')]);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const name of Object.keys(invoices)) {
    for (const format of formatsOf(name)) {
      const rules = format.startsWith('xrechnung') ? 'EN 16931 and XRechnung 3.0' : 'EN 16931';
      it(`${name}: ${format} passes ${rules} with no fatal finding`, () => {
        const report = reports.get(path(name, format, extension(format)));
        expect(report, 'validated').to.not.equal(undefined);
        expect(report!.syntax).to.equal(format === 'xrechnung-ubl' || format === 'peppol' ? 'UBL' : 'CII');
        expect(fatal(report)).to.deep.equal([]);
        if (format === 'pdf') {
          expect(report!.pdf).to.deep.include({
            attachments: ['factur-x.xml'],
            partThree: true,
            facturXSchema: true,
            conformanceLevel: 'EN 16931',
          });
          expect(report!.pdf!.fontsNotEmbedded).to.deep.equal([]);
        }
      });
    }
  }

  it('every CII document (XRechnung CII, and factur-x.xml out of each PDF) is valid against the UN/CEFACT CII D16B schema', () => {
    const invalid = [...schema].filter(([file, errors]) => errors.length > 0 && !file.includes('out-of-order'));
    expect(invalid).to.deep.equal([]);
    expect(schema.size).to.equal(2 * Object.keys(invoices).length + 1);
  });

  it("the schema check can fail: elements out of the schema's order are caught", () => {
    const errors = schema.get(path('out-of-order', 'cii', 'xml'))!;
    expect(errors.join('\n')).to.match(/element TypeCode: Schemas validity error : Element '.*TypeCode': This element is not expected/);
  });

  it('a total that does not add up is caught, in UBL and in CII (BR-CO-15)', () => {
    for (const file of [path('broken-total', 'ubl', 'xml'), path('broken-total', 'cii', 'xml')]) {
      const ids = (reports.get(file)?.findings ?? []).filter((f) => f.flag === 'fatal').map((f) => f.id);
      expect(ids, file).to.include('BR-CO-15');
    }
  });

  it("a draft's PDF is PDF/A-3 with its fonts embedded, but carries no XML and no Factur-X declaration", () => {
    const report = reports.get(path('draft', 'pdf', 'pdf'))!;
    expect(report.pdf).to.deep.include({ attachments: [], partThree: true, facturXSchema: false, fontsNotEmbedded: [] });
    expect(fatal(report).map((f) => f.split(':')[0])).to.deep.equal(['FX-XMP', 'FX-ATTACH']);
  });
});
