import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DocumentSource } from '../../src/modules/invoices/document.js';
import { DOCUMENT_FORMATS, renderDocument, type DocumentFormat } from '../../src/modules/invoices/documents/index.js';
import { invoice, recipient } from './fixtures.js';
import { fatal, poppler, requireTools, validate, type FileReport, type RuleSet } from './tools.js';

/**
 * A French and a Dutch invoice (issue 57 item 5): the French one to a French company under reverse
 * charge with an early-payment discount, the Dutch one at 21 % with its credit note. Every format
 * of each through every rule set it claims, in one run of the kept validator; the PDF's words are
 * the language's (pdftotext), money and days in its form. KEEP_LANGUAGES=1 keeps the files (their folder is printed).
 */
describe('French and Dutch invoice documents (issue 57 item 5), through every rule set they claim', function () {
  this.timeout(300_000);
  let dir: string;
  const reports = new Map<string, FileReport>();
  const files: Record<string, Partial<Record<DocumentFormat, string>>> = {};

  const lines = [
    { description: 'Conseil en protection des données (RGPD)', seconds: 12 * 3600 + 30 * 60, rate: 95 },
    { description: 'Atelier « Accessibilité numérique » & suivi', seconds: 3 * 3600 + 20 * 60 + 17, rate: 120.5 },
  ];
  const cases: Record<string, { doc: DocumentSource; creditNote: boolean }> = {
    'fr-autoliquidation-escompte': {
      doc: invoice({
        lines,
        language: 'fr',
        category: 'AE',
        taxRate: 0,
        exemptionReason: 'Autoliquidation',
        exemptionReasonCode: 'VATEX-EU-AE',
        earlyPayment: { percent: 2, days: 10 },
        recipient: recipient({
          legalName: 'Société Générale d’Études SARL',
          name: 'SGE',
          addressLines: ['12 rue de la Paix'],
          postalCode: '75002',
          city: 'Paris',
          country: 'FR',
          vatId: 'FR40303265045',
        }),
      }),
      creditNote: false,
    },
    'nl-21': {
      doc: invoice({
        lines: [
          { description: 'Advies gegevensbescherming (AVG)', seconds: 12 * 3600 + 30 * 60, rate: 95 },
          { description: 'Workshop digitale toegankelijkheid', seconds: 3 * 3600 + 20 * 60 + 17, rate: 120.5 },
        ],
        language: 'nl',
        taxRate: 21,
      }),
      creditNote: false,
    },
  };
  cases['nl-21-creditnota'] = {
    doc: { ...cases['nl-21']!.doc, status: 'void', creditNote: { number: '2026-0043', issueDate: '2026-11-05' } },
    creditNote: true,
  };

  const CLAIMS: Record<DocumentFormat, RuleSet[]> = {
    pdf: ['cii-d16b-schema', 'en16931', 'facturx-en16931-schema', 'facturx-en16931'],
    'xrechnung-ubl': ['ubl-2.1-schema', 'en16931', 'xrechnung'],
    'xrechnung-cii': ['cii-d16b-schema', 'en16931', 'xrechnung'],
    peppol: ['ubl-2.1-schema', 'en16931', 'peppol'],
  };

  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-languages-'));
    for (const [name, { doc, creditNote }] of Object.entries(cases)) {
      files[name] = {};
      for (const format of DOCUMENT_FORMATS) {
        const file = join(dir, `${name}.${format}.${format === 'pdf' ? 'pdf' : 'xml'}`);
        writeFileSync(file, await renderDocument(doc, format, { creditNote }));
        files[name][format] = file;
      }
    }
    const all = Object.values(files).flatMap((byFormat) => Object.values(byFormat));
    for (const [file, report] of (await validate(all)).files) reports.set(file, report);
  });

  after(() => {
    if (dir && process.env.KEEP_LANGUAGES) console.log(`kept: ${dir}`);
    else if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const name of Object.keys(cases))
    for (const format of DOCUMENT_FORMATS)
      it(`${name}: ${format} passes ${CLAIMS[format].join(', ')} with no fatal finding`, () => {
        const report = reports.get(files[name]![format]!)!;
        expect(report.rules).to.deep.equal(CLAIMS[format]);
        expect(fatal(report)).to.deep.equal([]);
        if (format === 'pdf') expect(report.pdf).to.deep.include({ attachments: ['factur-x.xml'], partThree: true, fontsNotEmbedded: [] });
      });

  it('the French PDF: Facture, Date d’échéance, Total HT, Autoliquidation, Total TTC, the escompte; 1 589,74 € and 17/11/2026', () => {
    const text = poppler('pdftotext', '-layout', files['fr-autoliquidation-escompte']!.pdf!, '-');
    expect(text).to.match(/^\S.*\s+Facture\n/);
    expect(text).to.match(/Numéro\s+2026-0042/);
    expect(text).to.match(/Date d'échéance\s+17\/11\/2026/);
    expect(text).to.match(/Période de prestation\s+01\/10\/2026 – 31\/10\/2026/);
    expect(text).to.match(/Désignation\s+Heures\s+Tarif\s+Montant HT/);
    expect(text).to.match(/Total HT\s+1\s589,74\s€/);
    expect(text).to.match(/Autoliquidation 0\s% sur 1\s589,74\s€\s+0,00\s€/);
    expect(text).to.match(/Total TTC\s+1\s589,74\s€/);
    expect(text).to.contain(
      'Payable sous 14 jours, au plus tard le 17/11/2026. Escompte pour paiement anticipé de 2 % si le règlement intervient',
    );
    expect(text).to.match(/Page 1 sur 1/);
    expect(text).to.not.match(/\b(Invoice|Due|Net total|Amount due|Rechnung|Total\n)\b/);
    // XRechnung's BT-20 carries the discount in KoSIT's form.
    expect(readFileSync(files['fr-autoliquidation-escompte']!['xrechnung-cii']!, 'utf8')).to.contain('#SKONTO#TAGE=10#PROZENT=2.00#');
  });

  it('the Dutch PDF and its credit note: Factuur, Vervaldatum, Totaal excl. btw, Btw 21%, Totaal incl. btw; € 1.589,74 and 17-11-2026; Creditnota', () => {
    const text = poppler('pdftotext', '-layout', files['nl-21']!.pdf!, '-');
    expect(text).to.match(/^\S.*\s+Factuur\n/);
    expect(text).to.match(/Datum\s+03-11-2026/);
    expect(text).to.match(/Vervaldatum\s+17-11-2026/);
    expect(text).to.match(/Omschrijving\s+Uren\s+Tarief\s+Bedrag/);
    expect(text).to.match(/Totaal excl\. btw\s+€\s1\.589,74/);
    expect(text).to.match(/Btw 21% over €\s1\.589,74\s+€\s333,85/);
    expect(text).to.match(/Totaal incl\. btw\s+€\s1\.923,59/);
    expect(text).to.contain('Te betalen binnen 14 dagen, uiterlijk op 17-11-2026.');
    const credit = poppler('pdftotext', '-layout', files['nl-21-creditnota']!.pdf!, '-');
    expect(credit).to.match(/^\S.*\s+Creditnota\n/);
    expect(credit).to.match(/Nummer\s+2026-0043/);
    expect(credit).to.match(/Crediteert factuur\s+2026-0042 van 03-11-2026/);
    expect(credit).to.contain('Deze creditnota crediteert factuur 2026-0042 van 03-11-2026');
  });
});
