import { expect } from 'chai';
import { DOCUMENT_LANGUAGES } from '../../../src/modules/invoices/document.js';
import { formatsOf, LABELS, labelsOf } from '../../../src/modules/invoices/documents/labels.js';
import { LINE_UNITS, unitSymbol } from '../../../src/modules/invoices/manual.js';
import { composeMail } from '../../../src/modules/invoices/mailing.js';
import { earlyPaymentTerms, longDate, paymentTerms, periodDescription } from '../../../src/modules/invoices/tax.js';
import { invoice } from '../../einvoice/fixtures.js';

/**
 * The documents' label sets (issue 57 item 5, decisions §12): English, German, French and Dutch,
 * each with every key the PDF, the XML's notes and the mail ask for, and the language's own way of
 * writing money, days and rates.
 */
describe('document labels in en, de, fr and nl (issue 57 item 5)', () => {
  const keys = (o: object) => Object.keys(o).sort();

  it('every label set has every key of the English one, none blank, and every category and exemption', () => {
    expect(keys(LABELS)).to.deep.equal([...DOCUMENT_LANGUAGES].sort());
    for (const language of DOCUMENT_LANGUAGES) {
      const l = LABELS[language];
      expect(keys(l), language).to.deep.equal(keys(LABELS.en));
      for (const [key, value] of Object.entries(l)) {
        if (typeof value === 'string') expect(value.trim(), `${language}.${key}`).to.not.equal('');
        else if (typeof value === 'function')
          expect((value as (...a: string[]) => string)('X1', 'X2', 'X3'), `${language}.${key}`).to.contain('X1');
      }
      expect(keys(l.category), language).to.deep.equal(keys(LABELS.en.category));
      expect(keys(l.exemption), language).to.deep.equal(keys(LABELS.en.exemption));
      for (const unit of LINE_UNITS) expect(unitSymbol(unit.code, language), `${language} ${unit.code}`).to.not.equal('');
    }
  });

  it('French and Dutch words as their invoices print them', () => {
    const fr = labelsOf('fr');
    const nl = labelsOf('nl');
    expect([fr.invoice, fr.creditNote, fr.dueDate, fr.netTotal, fr.tax, fr.grossTotal, fr.amountDue]).to.deep.equal([
      'Facture',
      'Avoir',
      "Date d'échéance",
      'Total HT',
      'TVA',
      'Total TTC',
      'Net à payer',
    ]);
    expect(fr.exemption.AE).to.match(/^Autoliquidation/);
    expect([nl.invoice, nl.creditNote, nl.dueDate, nl.netTotal, nl.tax, nl.grossTotal, nl.amountDue]).to.deep.equal([
      'Factuur',
      'Creditnota',
      'Vervaldatum',
      'Totaal excl. btw',
      'Btw',
      'Totaal incl. btw',
      'Te betalen',
    ]);
    expect(nl.exemption.AE).to.match(/^Btw verlegd/);
  });

  it('money, days and rates in each language: 1 234,56 € and 31/12/2026; € 1.234,56 and 31-12-2026', () => {
    const cases = [
      ['en', '€1,234.56', '31 Dec 2026', '19%'],
      ['de', '1.234,56\u00a0€', '31.12.2026', '19\u00a0%'],
      ['fr', '1\u202f234,56\u00a0€', '31/12/2026', '19\u00a0%'],
      ['nl', '€\u00a01.234,56', '31-12-2026', '19%'],
    ] as const;
    for (const [language, money, day, rate] of cases) {
      const f = formatsOf(labelsOf(language), 'EUR');
      expect([f.money('1234.56'), f.date('2026-12-31'), f.percent('19')], language).to.deep.equal([money, day, rate]);
      expect(longDate('2026-12-31', language), language).to.equal(language === 'en' ? '31 December 2026' : day);
    }
    expect(formatsOf(labelsOf('fr'), 'EUR').country('DE')).to.equal('Allemagne');
    expect(formatsOf(labelsOf('nl'), 'EUR').country('DE')).to.equal('Duitsland');
  });

  it('the due, Skonto and period sentences in French and Dutch', () => {
    expect(paymentTerms(14, '2026-11-17', 'fr')).to.equal('Payable sous 14 jours, au plus tard le 17/11/2026.');
    expect(paymentTerms(0, '2026-11-03', 'fr')).to.equal('Payable à réception (03/11/2026).');
    expect(paymentTerms(14, '2026-11-17', 'nl')).to.equal('Te betalen binnen 14 dagen, uiterlijk op 17-11-2026.');
    expect(paymentTerms(1, '2026-11-04', 'nl')).to.equal('Te betalen binnen 1 dag, uiterlijk op 04-11-2026.');
    expect(earlyPaymentTerms({ percent: 2.5, days: 10 }, '2026-11-03', 'fr')).to.equal(
      'Escompte pour paiement anticipé de 2,5 % si le règlement intervient sous 10 jours, au plus tard le 13/11/2026.',
    );
    expect(earlyPaymentTerms({ percent: 2, days: 10 }, '2026-11-03', 'nl')).to.equal(
      '2% korting bij betaling binnen 10 dagen, uiterlijk op 13-11-2026.',
    );
    expect(periodDescription('2026-10-01', '2026-10-31', 'fr')).to.equal('Prestations du 01/10/2026 au 31/10/2026');
    expect(periodDescription('2026-10-01', '2026-10-31', 'nl')).to.equal('Diensten van 01-10-2026 tot en met 31-10-2026');
  });

  it('the invoice mail in French and Dutch: subject, opening, facts, the e-invoice sentence, the closing', () => {
    const lines = [{ description: 'Conseil', seconds: 10 * 3600, rate: 100 }];
    const parts = { issuerName: 'Müller & Söhne GmbH', message: null, xml: 'peppol' } as const;
    const fr = composeMail(invoice({ lines, language: 'fr' }), { ...parts, greeting: 'Bonjour,', document: 'invoice' });
    expect(fr.subject).to.equal('Facture 2026-0042 de Müller & Söhne GmbH');
    expect(fr.opening).to.equal(
      "veuillez trouver ci-joint la facture 2026-0042 du 03/11/2026 de Müller & Söhne GmbH d'un montant de 1\u202f190,00\u00a0€.",
    );
    expect(fr.facts.slice(0, 4)).to.deep.equal([
      ['Numéro de facture', '2026-0042'],
      ['Date de facture', '03/11/2026'],
      ['Total TTC', '1\u202f190,00\u00a0€'],
      ["Date d'échéance", '17/11/2026'],
    ]);
    expect(fr.files).to.contain('contient la même facture sous forme de facture électronique au format Peppol BIS Billing 3.0');
    expect(fr.closing).to.equal('Cordialement,\nMüller & Söhne GmbH');
    expect(fr.html).to.contain('<html lang="fr">');
    const nl = composeMail(
      invoice({ lines, language: 'nl', status: 'void', creditNote: { number: '2026-0043', issueDate: '2026-11-05' } }),
      {
        ...parts,
        greeting: null,
        document: 'credit-note',
      },
    );
    expect(nl.subject).to.equal('Creditnota 2026-0043 van Müller & Söhne GmbH');
    expect(nl.opening).to.equal(
      'Hierbij ontvangt u creditnota 2026-0043 van 05-11-2026 van Müller & Söhne GmbH voor een bedrag van €\u00a01.190,00. Deze crediteert factuur 2026-0042 van 03-11-2026.',
    );
    expect(nl.facts).to.deep.include(['Crediteert', 'factuur 2026-0042 van 03-11-2026']);
    expect(nl.files).to.contain('bevat dezelfde creditnota als e-factuur in het formaat Peppol BIS Billing 3.0');
    expect(nl.text).to.match(/Met vriendelijke groet,\nMüller & Söhne GmbH\n$/);
  });
});
