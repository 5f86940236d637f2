import { expect } from 'chai';
import { composeMail } from '../../../src/modules/invoices/mailing.js';
import { matrix } from '../../einvoice/fixtures.js';

/**
 * The invoice mail's words (issue 56 item 5): the attached e-invoice is named as people name its
 * format, never by the command line's slug; a German credit note says what it cancels in German.
 */
describe('the invoice mail names its formats for people', () => {
  const invoices = matrix();
  const parts = { issuerName: 'Müller & Söhne GmbH', greeting: null, message: null } as const;

  it('names XRechnung (UBL), XRechnung (CII) and Peppol BIS Billing 3.0, in English and German; the file name stays the slug', () => {
    const en = invoices['standard-19']!;
    const de = { ...en, language: 'de' as const };
    const cases = [
      [en, 'xrechnung-ubl', 'holds the same invoice as an e-invoice in XRechnung (UBL) format for your accounting system.'],
      [en, 'xrechnung-cii', 'holds the same invoice as an e-invoice in XRechnung (CII) format'],
      [en, 'peppol', 'holds the same invoice as an e-invoice in Peppol BIS Billing 3.0 format'],
      [de, 'xrechnung-ubl', 'enthält dieselbe Rechnung als E-Rechnung im Format XRechnung (UBL) für Ihre Buchhaltung.'],
      [de, 'peppol', 'enthält dieselbe Rechnung als E-Rechnung im Format Peppol BIS Billing 3.0'],
    ] as const;
    for (const [invoice, xml, sentence] of cases) {
      const mail = composeMail(invoice, { ...parts, document: 'invoice', xml });
      expect(mail.files, xml).to.contain(sentence);
      expect(mail.files, xml).to.contain(`2026-0042-${xml}.xml`);
      // The slug only in the file's name: nowhere else in the text or the HTML.
      expect(mail.text.split(`2026-0042-${xml}.xml`).join(''), xml).to.not.contain(xml);
      expect(mail.html.split(`2026-0042-${xml}.xml`).join(''), xml).to.not.contain(xml);
    }
  });

  it('a German credit note: "Storno zu: Rechnung … vom …", never "Storniert"', () => {
    const mail = composeMail(invoices['credit-note-de']!, { ...parts, document: 'credit-note', xml: 'xrechnung-cii' });
    expect(mail.facts).to.deep.include(['Storno zu', 'Rechnung 2026-0042 vom 03.11.2026']);
    expect(mail.text).to.not.contain('Storniert');
    expect(mail.files).to.contain('enthält dieselbe Rechnungskorrektur als E-Rechnung im Format XRechnung (CII)');
  });
});
