import { expect } from 'chai';
import { withReader } from '../../../src/i18n/index.js';
import { missingFor } from '../../../src/modules/invoices/documents/missing.js';
import type { MissingValue } from '../../../src/modules/invoices/documents/missing.js';
import { missingName } from '../../../src/web/app/invoices-views.js';
import { invoice, issuer } from '../../einvoice/fixtures.js';

/*
 * The invoice page names a value an e-invoice lacks or refuses in its reader's words (issue 58
 * item 2): the variants of a value that is there but refused too (a VAT rate its category
 * forbids, a seller identifier whose check digits are wrong, the seller's identification), while
 * the invoices module's English label (the API's and the command line's) stays as it was.
 */

const lines = [{ description: 'Beratung', seconds: 7200, rate: 100 }];
const taxNumberOnly = { vatId: null, registrationNumber: null, sellerIdentifier: null, taxNumber: '30/123/45678' };
/** A missing value's name as a page of each language says it: German, then English. */
const named = (m: MissingValue): [string, string] => [
  withReader({ language: 'de' }, () => missingName(m)),
  withReader({ language: 'en' }, () => missingName(m)),
];
const only = (list: MissingValue[]): MissingValue => {
  expect(list, JSON.stringify(list)).to.have.length(1);
  return list[0] as MissingValue;
};

describe('invoice page: the variants of a refused e-invoice value in the reader’s words (issue 58 item 2)', () => {
  it('a VAT rate its category forbids: S at 0 %, Z (and the other zero categories) above it', () => {
    const s = only(missingFor(invoice({ lines, category: 'S', taxRate: 0 }), 'pdf').filter((m) => m.bt === 'BT-152'));
    expect(named(s)).to.deep.equal([
      'Umsatzsteuersatz der Position 1: Der Regelsatz (Kategorie S) liegt über 0 % (Umsätze zum Nullsatz sind Kategorie Z)',
      s.label,
    ]);
    expect(s.label).to.equal('VAT rate of line 1: the standard rate (category S) is above 0 % (zero-rated supplies are category Z)');
    const z = only(missingFor(invoice({ lines, category: 'Z', taxRate: 7 }), 'pdf').filter((m) => m.bt === 'BT-152'));
    expect(named(z)).to.deep.equal([
      'Umsatzsteuersatz der Position 1: Kategorie Z trägt 0 %',
      'VAT rate of line 1: category Z carries 0 %',
    ]);
    expect(z.label).to.equal('VAT rate of line 1: category Z carries 0 %');
  });

  it('a seller identifier whose check digits are wrong (Peppol), by its scheme', () => {
    const wrong = invoice({
      lines,
      issuer: issuer({ ...taxNumberOnly, sellerIdentifier: '4260123456780', sellerIdentifierScheme: '0088' }),
    });
    const m = only(missingFor(wrong, 'peppol'));
    expect(named(m)).to.deep.equal([
      'Verkäuferkennung: "4260123456780" ist keine GLN von GS1 (Ziffern, die letzte ihre Prüfziffer) (Schema 0088); korrigieren Sie sie oder ihr Schema (issuer.sellerIdentifierScheme)',
      'Seller identifier: "4260123456780" is not a GLN of GS1 (digits, the last one its check digit) (scheme 0088); correct it, or its scheme (issuer.sellerIdentifierScheme)',
    ]);
    expect(named(m)[1]).to.equal(m.label);
  });

  it('the seller’s identification: a VAT id serves, or cannot on a not-subject (O) invoice', () => {
    const start =
      'Eine Kennung des Verkäufers, die der Käufer nutzen kann (BR-CO-26; eine Steuernummer, BT-32, ist keine): eine Verkäuferkennung (BT-29: issuer.sellerIdentifier, mit issuer.sellerIdentifierScheme, wenn sie eines hat, z. B. 0088 für eine GLN; ohne Schema z. B. die Lieferantennummer, die Ihr Kunde Ihnen gegeben hat), Ihr Registereintrag (BT-30: issuer.registrationNumber, z. B. HRB 12345 B), ';
    const plain = only(missingFor(invoice({ lines, issuer: issuer(taxNumberOnly) }), 'xrechnung-ubl').filter((m) => m.bt.includes('/')));
    expect(named(plain)).to.deep.equal([`${start}oder eine USt-IdNr. (BT-31: issuer.vatId)`, plain.label]);
    const o = only(missingFor(invoice({ lines, category: 'O', taxRate: 0, issuer: issuer({ registrationNumber: null }) }), 'pdf'));
    expect(named(o)).to.deep.equal([
      `${start}die USt-IdNr. (BT-31) kann nicht dienen: Eine nicht steuerbare Rechnung (O) trägt keine`,
      o.label,
    ]);
    const none = only(
      missingFor(invoice({ lines, category: 'O', taxRate: 0, issuer: issuer(taxNumberOnly) }), 'xrechnung-ubl').filter((m) =>
        m.bt.includes('/'),
      ),
    );
    expect(named(none)[0]).to.equal(`${start}eine USt-IdNr. (BT-31) würde nicht dienen: Eine nicht steuerbare Rechnung (O) trägt keine`);
  });
});
