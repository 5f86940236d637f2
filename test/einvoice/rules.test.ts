import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { DomainError } from '../../src/errors.js';
import { missingFor, renderDocument, type DocumentFormat } from '../../src/modules/invoices/documents/index.js';
import { combinations, invoiceOf, type Combination } from './combinations.js';
import { DRAFT, matrix, PLAIN_PDF } from './fixtures.js';
import { fatal, poppler, requireTools, validate, type FileReport, type RuleSet } from './tools.js';

/**
 * Every format of every invoice of the matrix, checked by every rule set it claims, all files in
 * ONE Java start (test/einvoice/validate): the UBL 2.1 or CII D16B schema and EN 16931 for all;
 * KoSIT's XRechnung 3.0 rules for XRechnung; OpenPEPPOL's Peppol BIS 3.0 rules for Peppol; the
 * Factur-X 1.09 EN 16931 schema and schematron for each PDF's factur-x.xml. Each rule set is also
 * shown to fail a document that breaks it.
 */
const FORMATS: DocumentFormat[] = ['pdf', 'xrechnung-ubl', 'xrechnung-cii', 'peppol'];
const invoices = matrix();
const isCreditNote = (name: string) => name.startsWith('credit-note');
const extension = (format: DocumentFormat) => (format === 'pdf' ? 'pdf' : 'xml');
/**
 * The formats of an invoice of the matrix: all, but Peppol for those addressed by email
 * (missing.test.ts), and the PDF alone of a seller without BT-29/BT-30/BT-31 (a plain PDF).
 */
const formatsOf = (name: string) =>
  PLAIN_PDF.includes(name)
    ? (['pdf'] as DocumentFormat[])
    : FORMATS.filter((format) => !['email-addresses', 'small-business-tax-number'].includes(name) || format !== 'peppol');

/**
 * The property's random combinations (combinations.ts): EINVOICE_RUNS of them (default 40), from
 * EINVOICE_SEED (default 45, so a run is repeatable; `random` for a new one, printed).
 */
const RUNS = Number(process.env.EINVOICE_RUNS ?? 40);
const SEED = process.env.EINVOICE_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.EINVOICE_SEED ?? 45);

/** The rule sets each format claims (the PDF's by its factur-x.xml). */
const CLAIMS: Record<DocumentFormat, RuleSet[]> = {
  pdf: ['cii-d16b-schema', 'en16931', 'facturx-en16931-schema', 'facturx-en16931'],
  'xrechnung-ubl': ['ubl-2.1-schema', 'en16931', 'xrechnung'],
  'xrechnung-cii': ['cii-d16b-schema', 'en16931', 'xrechnung'],
  peppol: ['ubl-2.1-schema', 'en16931', 'peppol'],
};

describe('invoice documents: every rule set they claim (schemas, EN 16931, XRechnung, Peppol, Factur-X) over the matrix', function () {
  this.timeout(600_000);
  let dir: string;
  let reports = new Map<string, FileReport>();
  const path = (name: string, format: string, ext: string) => join(dir, `${name}.${format}.${ext}`);
  /** Documents broken on purpose, each with the rule set and rule that must catch it. */
  const broken: Array<{ file: string; rules: RuleSet; id: string | RegExp; what: string }> = [];
  /** The property's documents: each either refused (what was wrong with the refusal, if anything) or written to be validated. */
  const drawn: Array<{
    combination: Combination;
    format: DocumentFormat;
    file: string | null;
    refusal: string | null;
    problem: string | null;
  }> = [];

  before(async function () {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-einvoice-'));
    const files: string[] = [];
    for (const [name, doc] of Object.entries(invoices)) {
      for (const format of formatsOf(name)) {
        const file = path(name, format, extension(format));
        writeFileSync(file, await renderDocument(doc, format, { creditNote: isCreditNote(name) }));
        files.push(file);
      }
    }
    writeFileSync(path('draft', 'pdf', 'pdf'), await renderDocument(DRAFT(), 'pdf'));
    files.push(path('draft', 'pdf', 'pdf'));

    // Each check can fail: the same documents, each broken so that one rule set must say so.
    const read = (name: string, format: string) => readFileSync(path(name, format, 'xml'), 'utf8');
    const breakIt = (name: string, from: string, change: (xml: string) => string, rules: RuleSet, id: string | RegExp, what: string) => {
      const xml = change(from);
      expect(xml, name).to.not.equal(from);
      const file = path(`broken-${name}`, rules, 'xml');
      writeFileSync(file, xml);
      files.push(file);
      broken.push({ file, rules, id, what });
    };
    const ubl = read('standard-19', 'xrechnung-ubl');
    const cii = read('standard-19', 'xrechnung-cii');
    const peppol = read('standard-19', 'peppol');
    const out = join(dir, 'standard-19-attachments');
    mkdirSync(out);
    poppler('pdfdetach', '-saveall', '-o', out, path('standard-19', 'pdf', 'pdf'));
    renameSync(join(out, 'factur-x.xml'), path('standard-19', 'factur-x', 'xml'));
    const facturX = read('standard-19', 'factur-x');
    const total = (xml: string) =>
      xml
        .replace(/(<cbc:TaxInclusiveAmount currencyID="EUR">)1891\.79</, '$11891.80<')
        .replace(/<ram:GrandTotalAmount>1891\.79</, '<ram:GrandTotalAmount>1891.80<');
    breakIt('total-ubl', ubl, total, 'en16931', 'BR-CO-15', 'a total that does not add up (UBL)');
    breakIt('total-cii', cii, total, 'en16931', 'BR-CO-15', 'a total that does not add up (CII)');
    breakIt(
      'order-cii',
      cii,
      (xml) => xml.replace(/(<ram:TypeCode>380<\/ram:TypeCode>)\n(<ram:IssueDateTime>[\s\S]*?<\/ram:IssueDateTime>)/, '$2\n$1'),
      'cii-d16b-schema',
      'XSD',
      "CII elements out of the schema's order",
    );
    breakIt(
      'order-ubl',
      ubl,
      (xml) => xml.replace(/(<cbc:ID>2026-0042<\/cbc:ID>)\n(<cbc:IssueDate>[^<]*<\/cbc:IssueDate>)/, '$2\n$1'),
      'ubl-2.1-schema',
      'XSD',
      "UBL elements out of the schema's order",
    );
    breakIt(
      'xrechnung',
      ubl,
      (xml) => xml.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>\n/, ''),
      'xrechnung',
      'BR-DE-15',
      'an XRechnung without the buyer reference',
    );
    // Issue 57 item 4: KoSIT's rule reads the #SKONTO# line: a percentage without its two decimals, and a line not ended by a break.
    const skontoUbl = read('skonto', 'xrechnung-ubl');
    const skontoCii = read('skonto-de', 'xrechnung-cii');
    breakIt(
      'skonto-decimals',
      skontoUbl,
      (xml) => xml.replace('#PROZENT=2.00#', '#PROZENT=2#'),
      'xrechnung',
      'BR-DE-18',
      'a #SKONTO# line whose percentage lacks its two decimals (UBL)',
    );
    breakIt(
      'skonto-break',
      skontoCii,
      (xml) => xml.replace('#PROZENT=2.50#\n</ram:Description>', '#PROZENT=2.50#</ram:Description>'),
      'xrechnung',
      'BR-DE-18',
      'a #SKONTO# line not ended by a line break (CII)',
    );
    breakIt(
      'peppol',
      peppol,
      (xml) => xml.replace(/<cbc:ProfileID>[^<]*<\/cbc:ProfileID>\n/, ''),
      'peppol',
      'PEPPOL-EN16931-R001',
      'a Peppol invoice without its business process',
    );
    breakIt(
      'facturx-schema',
      facturX,
      (xml) => xml.replace(/(<rsm:ExchangedDocument>\n<ram:ID>[^<]*<\/ram:ID>)/, '$1\n<ram:Name>Rechnung</ram:Name>'),
      'facturx-en16931-schema',
      'XSD',
      "an element CII D16B has but Factur-X's EN 16931 profile does not",
    );
    breakIt(
      'facturx',
      facturX,
      (xml) =>
        xml
          .replace(/<ram:SpecifiedLegalOrganization>[\s\S]*?<\/ram:SpecifiedLegalOrganization>\n/, '')
          .replace(/<ram:SpecifiedTaxRegistration>\n<ram:ID schemeID="VA">[^<]*<\/ram:ID>\n<\/ram:SpecifiedTaxRegistration>\n/, ''),
      'facturx-en16931',
      'BR-CO-26',
      'a seller with neither identifier, registration nor VAT id (BR-CO-26 in Factur-X)',
    );
    // A plain PDF (no XML) is checked for its PDF/A declaration: one whose XMP names no part is caught (same length, so the file stays whole).
    const plainPdf = readFileSync(path('small-business-plain', 'pdf', 'pdf'));
    const undeclared = Buffer.from(
      plainPdf.toString('latin1').replace('<pdfaid:part>2</pdfaid:part>', '<pdfaid:part>X</pdfaid:part>'),
      'latin1',
    );
    expect(undeclared.equals(plainPdf), 'the plain PDF declares PDF/A-2').to.equal(false);
    writeFileSync(path('broken-plain', 'pdfa', 'pdf'), undeclared);
    files.push(path('broken-plain', 'pdfa', 'pdf'));

    // The property: random issuer / client / tax combinations, each document refused naming BT numbers or written.
    if (SEED !== 45 || RUNS !== 40) console.log(`      (property: ${RUNS} combinations from EINVOICE_SEED=${SEED})`);
    for (const [n, combination] of fc.sample(combinations, { numRuns: RUNS, seed: SEED }).entries()) {
      const doc = invoiceOf(combination);
      const creditNote = combination.status === 'credit-note';
      for (const format of FORMATS) {
        const missing = missingFor(doc, format, { creditNote });
        try {
          const bytes = await renderDocument(doc, format, { creditNote });
          const file = path(`combination-${n}`, format, extension(format));
          writeFileSync(file, bytes);
          files.push(file);
          drawn.push({
            combination,
            format,
            file,
            refusal: null,
            problem: missing.length > 0 ? 'written though values are missing' : null,
          });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          const unnamed = missing.filter((m) => !/^B[TG]-\d+/.test(m.bt) || !error.message.includes(`(${m.bt}: ${m.path}`));
          const problem =
            error.code !== 'invalid'
              ? `refused as ${error.code}`
              : missing.length === 0
                ? 'refused without naming a missing value'
                : unnamed.length > 0
                  ? `refused without naming ${unnamed.map((m) => m.path).join(', ')} by its BT number`
                  : null;
          drawn.push({ combination, format, file: null, refusal: error.message, problem });
        }
      }
    }
    reports = (await validate(files)).files;
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const name of Object.keys(invoices).filter((n) => !PLAIN_PDF.includes(n))) {
    for (const format of formatsOf(name)) {
      it(`${name}: ${format} passes ${CLAIMS[format].join(', ')} with no fatal finding`, () => {
        const report = reports.get(path(name, format, extension(format)));
        expect(report, 'validated').to.not.equal(undefined);
        expect(report!.syntax).to.equal(format === 'xrechnung-ubl' || format === 'peppol' ? 'UBL' : 'CII');
        expect(report!.rules).to.deep.equal(CLAIMS[format]);
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

  it('each rule set can fail: a document broken for it is caught by it', () => {
    const caught = broken.map(({ file, rules, id, what }) => {
      const findings = (reports.get(file)?.findings ?? []).filter((f) => f.flag === 'fatal' && f.rules === rules);
      const hit = findings.some((f) => (typeof id === 'string' ? f.id === id : id.test(f.id ?? '')));
      return `${rules}: ${what}: ${hit ? 'caught' : `NOT caught (${findings.map((f) => f.id).join(', ') || 'no finding'})`}`;
    });
    expect(caught).to.deep.equal(broken.map(({ rules, what }) => `${rules}: ${what}: caught`));
    // Every rule set the matrix claims is shown to fail once.
    expect([...new Set(broken.map((b) => b.rules))].sort()).to.deep.equal([...new Set(Object.values(CLAIMS).flat())].sort());
  });

  it(`property: each document of ${RUNS} random issuer / client / tax combinations is refused naming BT numbers, or passes every rule set it claims`, () => {
    const wrong = drawn.flatMap(({ combination, format, file, refusal, problem }) => {
      const findings = file ? fatal(reports.get(file)) : [];
      if (!problem && findings.length === 0) return [];
      return [{ format, problem, refusal, findings, combination: JSON.stringify(combination) }];
    });
    expect(wrong).to.deep.equal([]);
    // The combinations reach both sides: some documents written and checked, some refused.
    const written = drawn.filter((d) => d.file !== null).length;
    expect(written, 'documents written').to.be.greaterThan(RUNS / 2);
    expect(drawn.length - written, 'documents refused').to.be.greaterThan(0);
  });

  // A plain PDF (issue 56 item 2) claims no XML rule set: it is PDF/A-2b, every font embedded, nothing attached, no Factur-X.
  const PLAIN_REPORT = {
    attachments: [],
    part: 2,
    conformance: 'B',
    partThree: false,
    facturXSchema: false,
    conformanceLevel: null,
    fontsNotEmbedded: [],
    plain: true,
  };
  for (const name of PLAIN_PDF)
    it(`${name}: a plain PDF/A-2b (fonts embedded, no XML, no Factur-X declaration) with no fatal finding; its e-invoices are refused naming BT-29/BT-30/BT-31`, async () => {
      const report = reports.get(path(name, 'pdf', 'pdf'))!;
      expect(report.rules).to.deep.equal([]);
      expect(report.pdf).to.deep.equal(PLAIN_REPORT);
      expect(fatal(report)).to.deep.equal([]);
      for (const format of FORMATS.filter((f) => f !== 'pdf')) {
        const error = await renderDocument(invoices[name]!, format, { creditNote: isCreditNote(name) }).then(
          () => null,
          (e: unknown) => e as DomainError,
        );
        expect(error?.message, format).to.match(/has a plain PDF and no e-invoice: .* \(BT-29\/BT-30\/BT-31: issuer\.sellerIdentifier, /);
      }
    });

  it('the plain PDF’s check can fail: a PDF whose XMP declares no PDF/A part is caught (PDFA-PART)', () => {
    const report = reports.get(path('broken-plain', 'pdfa', 'pdf'))!;
    expect(report.pdf).to.deep.include({ part: null, plain: true });
    expect(fatal(report).map((f) => f.split(':')[0])).to.deep.equal(['PDFA-PART']);
  });

  it("a draft's PDF is a plain PDF/A-2b with its fonts embedded: no XML, no Factur-X declaration, no fatal finding", () => {
    const report = reports.get(path('draft', 'pdf', 'pdf'))!;
    expect(report.pdf).to.deep.equal(PLAIN_REPORT);
    expect(fatal(report)).to.deep.equal([]);
  });
});
