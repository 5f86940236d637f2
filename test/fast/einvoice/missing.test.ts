import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import {
  DOCUMENT_FORMATS,
  documentFileName,
  missingFor,
  plainPdf,
  renderDocument,
  type DocumentFormat,
} from '../../../src/modules/invoices/documents/index.js';
import { centsText, decimalText, einvoiceOf, hoursText } from '../../../src/modules/invoices/documents/model.js';
import { fillSlot } from '../../../src/modules/invoices/fields.js';
import type { InvoiceDocument } from '../../../src/modules/invoices/document.js';
import { DRAFT, invoice, issuer, matrix, PLAIN_PDF, recipient } from '../../einvoice/fixtures.js';

/** renderDocument's refusal, caught. */
async function refusal(doc: InvoiceDocument, format: DocumentFormat, creditNote = false): Promise<DomainError> {
  try {
    await renderDocument(doc, format, { creditNote });
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error(`${format} was rendered; a refusal was expected`);
}

const lines = [{ description: 'Beratung', seconds: 7200, rate: 100 }];

describe('invoice documents: what each format needs (missingFor) and the refusal', () => {
  it('the matrix lacks nothing in any format (but Peppol for the invoices addressed by email, and the e-invoices of a plain PDF’s)', () => {
    const byEmail = ['email-addresses', 'small-business-tax-number'];
    for (const [name, doc] of Object.entries(matrix()))
      for (const format of DOCUMENT_FORMATS.filter(
        (f) => (!byEmail.includes(name) || f !== 'peppol') && (!PLAIN_PDF.includes(name) || f === 'pdf'),
      ))
        expect(missingFor(doc, format, { creditNote: name.startsWith('credit-note') }), `${name} ${format}`).to.deep.equal([]);
  });

  it('without the buyer reference and the electronic addresses: XRechnung and Peppol list BT-10, BT-34 and BT-49; the PDF is ready', async () => {
    const doc = invoice({
      lines,
      issuer: issuer({ electronicAddress: null, electronicAddressScheme: null }),
      recipient: recipient({ reference: null, electronicAddress: null, electronicAddressScheme: null }),
    });
    const expected = [
      {
        path: 'recipient.reference',
        bt: 'BT-10',
        label: "Buyer reference (the client's reference; in German public procurement the Leitweg-ID)",
        where: 'client',
      },
      { path: 'issuer.electronicAddress', bt: 'BT-34', label: 'Seller electronic address', where: 'business-profile' },
      { path: 'recipient.electronicAddress', bt: 'BT-49', label: 'Buyer electronic address', where: 'client' },
    ];
    expect(missingFor(doc, 'xrechnung-ubl')).to.deep.equal(expected);
    expect(missingFor(doc, 'xrechnung-cii')).to.deep.equal(expected);
    expect(missingFor(doc, 'peppol')).to.deep.equal(expected);
    expect(missingFor(doc, 'pdf')).to.deep.equal([]);
    for (const format of ['xrechnung-ubl', 'xrechnung-cii', 'peppol'] as const) {
      const error = await refusal(doc, format);
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal(
        `Invoice 2026-0042 cannot be made as ${format}: it lacks ` +
          "Buyer reference (the client's reference; in German public procurement the Leitweg-ID) (BT-10: recipient.reference, set it in the client's details, or fill it on this invoice); " +
          "Seller electronic address (BT-34: issuer.electronicAddress, set it in the workspace's business profile, or fill it on this invoice); " +
          "Buyer electronic address (BT-49: recipient.electronicAddress, set it in the client's details, or fill it on this invoice).",
      );
    }
    expect((await renderDocument(doc, 'pdf')).subarray(0, 5).toString()).to.equal('%PDF-');
  });

  it("XRechnung's German rules: the seller's contact, both cities and post codes and the IBAN (BR-DE-1..9); Peppol's too between two German parties (DE-R-001..009)", () => {
    const doc = invoice({
      lines,
      issuer: issuer({ contactName: null, phone: null, email: null, city: null, postalCode: null, iban: null }),
      recipient: recipient({ city: null, postalCode: null }),
    });
    expect(missingFor(doc, 'xrechnung-cii').map((m) => [m.bt, m.path, m.where])).to.deep.equal([
      ['BT-37', 'issuer.city', 'business-profile'],
      ['BT-38', 'issuer.postalCode', 'business-profile'],
      ['BT-41', 'issuer.contactName', 'business-profile'],
      ['BT-42', 'issuer.phone', 'business-profile'],
      ['BT-43', 'issuer.email', 'business-profile'],
      ['BT-52', 'recipient.city', 'client'],
      ['BT-53', 'recipient.postalCode', 'client'],
      ['BT-84', 'issuer.iban', 'business-profile'],
    ]);
    // Peppol applies the same German rules (DE-R-001 … DE-R-009) between two parties in Germany, and only there.
    expect(missingFor(doc, 'peppol')).to.deep.equal(missingFor(doc, 'xrechnung-cii'));
    const abroad = { ...doc, recipient: recipient({ city: null, postalCode: null, country: 'AT', vatId: 'ATU13585627' }) };
    expect(missingFor(abroad, 'peppol')).to.deep.equal([]);
    expect(missingFor(doc, 'pdf')).to.deep.equal([]);
  });

  it('the tax situations: reverse charge needs both VAT identifiers, an exemption its reason, a line its category and rate', () => {
    const ae = invoice({ lines, category: 'AE', taxRate: 0, issuer: issuer({ vatId: null }), recipient: recipient({ vatId: null }) });
    expect(missingFor(ae, 'pdf').map((m) => [m.bt, m.path])).to.deep.equal([
      ['BT-31', 'issuer.vatId'],
      ['BT-48', 'recipient.vatId'],
    ]);
    const k = invoice({ lines, category: 'K', taxRate: 0, recipient: recipient({ vatId: null }) });
    expect(missingFor(k, 'peppol').map((m) => m.path)).to.deep.equal(['recipient.vatId']);
    const e = invoice({ lines, category: 'E', taxRate: 0, exemptionReason: null });
    expect(missingFor(e, 'xrechnung-ubl').map((m) => [m.bt, m.path, m.where])).to.deep.equal([
      ['BT-120', 'taxBreakdown[0].exemptionReason', 'fill'],
    ]);
    // A small business with neither a VAT identifier nor a tax number.
    const small = invoice({
      lines,
      category: 'E',
      taxRate: 0,
      exemptionReason: '§ 19 UStG',
      issuer: issuer({ vatId: null, taxNumber: null }),
    });
    expect(missingFor(small, 'pdf').map((m) => [m.bt, m.path])).to.deep.equal([['BT-31', 'issuer.vatId']]);
    // An invoice from before the tax fields: every line and the breakdown.
    const old = invoice({ lines: [...lines, ...lines] });
    old.lines = old.lines.map(({ taxCategory: _c, taxRate: _r, ...line }) => line);
    delete old.taxBreakdown;
    expect(missingFor(old, 'pdf').map((m) => [m.bt, m.path])).to.deep.equal([
      ['BT-151', 'lines[0].taxCategory'],
      ['BT-152', 'lines[0].taxRate'],
      ['BT-151', 'lines[1].taxCategory'],
      ['BT-152', 'lines[1].taxRate'],
      ['BG-23', 'taxBreakdown'],
    ]);
    // Export and zero rate ask nothing more of the matrix's parties; "not subject" neither.
    for (const category of ['G', 'Z', 'O'])
      expect(missingFor(invoice({ lines, category, taxRate: 0 }), 'xrechnung-ubl'), category).to.deep.equal([]);
  });

  it('BR-CO-26: a seller with only a tax number (a § 19 small business, a freelancer without VAT id) gets a plain PDF and every e-invoice is refused, saying why and naming BT-29, BT-30 and BT-31 and where to set them; an O invoice without register entry is refused in every format', async () => {
    const taxNumberOnly = { vatId: null, registrationNumber: null, sellerIdentifier: null, taxNumber: '30/123/45678' };
    const label =
      'An identifier of the seller the buyer can use (BR-CO-26; a tax number, BT-32, is not one): a seller identifier (BT-29: issuer.sellerIdentifier, with issuer.sellerIdentifierScheme when it has one, e.g. 0088 for a GLN; without scheme, e.g. the supplier number your client gave you), your register entry (BT-30: issuer.registrationNumber, e.g. HRB 12345 B), ';
    const small = invoice({ lines, category: 'E', taxRate: 0, exemptionReason: '§ 19 UStG', issuer: issuer(taxNumberOnly) });
    const freelancer = invoice({ lines, issuer: issuer(taxNumberOnly) });
    for (const doc of [small, freelancer]) {
      // The PDF carries no XML (plain PDF/A), so nothing in it must identify the seller by BT-29/30/31.
      expect(plainPdf(doc)).to.equal(true);
      expect(missingFor(doc, 'pdf')).to.deep.equal([]);
      for (const format of DOCUMENT_FORMATS.filter((f) => f !== 'pdf')) {
        expect(
          missingFor(doc, format).filter((m) => m.path === 'issuer.sellerIdentifier'),
          format,
        ).to.deep.equal([
          {
            path: 'issuer.sellerIdentifier',
            bt: 'BT-29/BT-30/BT-31',
            label: `${label}or a VAT identifier (BT-31: issuer.vatId)`,
            where: 'business-profile',
          },
        ]);
        const error = await refusal(doc, format);
        expect(error.code).to.equal('invalid');
        expect(error.message).to.contain(
          `Invoice 2026-0042 has a plain PDF and no e-invoice: its seller has no seller identifier, register entry or VAT identifier (BT-29/BT-30/BT-31), and every e-invoice must identify the seller by one (EN 16931 BR-CO-26). It cannot be made as ${format}: it lacks `,
        );
        expect(error.message).to.contain(
          `${label}or a VAT identifier (BT-31: issuer.vatId) (BT-29/BT-30/BT-31: issuer.sellerIdentifier, set it in the workspace's business profile, or fill it on this invoice)`,
        );
      }
    }
    // Not subject to VAT: the VAT identifier may not be in the XML (BR-O-02), so it does not count.
    const o = invoice({ lines, category: 'O', taxRate: 0, issuer: issuer({ registrationNumber: null }) });
    // A VAT id makes the PDF a Factur-X one, whose XML must identify the seller: BR-CO-26 applies to it.
    expect(plainPdf(o)).to.equal(false);
    expect(missingFor(o, 'pdf')).to.deep.equal([
      {
        path: 'issuer.sellerIdentifier',
        bt: 'BT-29/BT-30/BT-31',
        label: `${label}the VAT identifier (BT-31) cannot serve: an invoice not subject to VAT (O) carries none`,
        where: 'business-profile',
      },
    ]);
    // Each of the three serves: a seller identifier with or without scheme, a register entry, a VAT id (not on O).
    for (const patch of [
      { sellerIdentifier: 'K-100234' },
      { sellerIdentifier: '4260123456788', sellerIdentifierScheme: '0088' },
      { registrationNumber: 'PR 1234' },
    ])
      for (const doc of [
        invoice({ lines, issuer: issuer({ ...taxNumberOnly, ...patch }) }),
        invoice({ lines, category: 'O', taxRate: 0, issuer: issuer({ ...taxNumberOnly, ...patch }) }),
      ])
        for (const format of DOCUMENT_FORMATS) expect(missingFor(doc, format), `${JSON.stringify(patch)} ${format}`).to.deep.equal([]);
    expect(missingFor(invoice({ lines, issuer: issuer({ ...taxNumberOnly, vatId: 'DE136695976' }) }), 'peppol')).to.deep.equal([]);
    // A GLN whose check digit is wrong: Peppol's rules reject it (PEPPOL-COMMON-R040), so Peppol names it; the others take it.
    const wrongGln = invoice({
      lines,
      issuer: issuer({ ...taxNumberOnly, sellerIdentifier: '4260123456780', sellerIdentifierScheme: '0088' }),
    });
    expect(missingFor(wrongGln, 'peppol')).to.deep.equal([
      {
        path: 'issuer.sellerIdentifier',
        bt: 'BT-29',
        label:
          'Seller identifier: "4260123456780" is not a GLN of GS1 (digits, the last one its check digit) (scheme 0088); correct it, or its scheme (issuer.sellerIdentifierScheme)',
        where: 'business-profile',
      },
    ]);
    expect(missingFor(wrongGln, 'xrechnung-ubl')).to.deep.equal([]);
  });

  it('every path listed is one an e-invoice fill accepts, so the page and the CLI can offer to fill it', () => {
    const bare = invoice({ lines, issuer: null, recipient: null });
    bare.lines = bare.lines.map(({ taxCategory: _c, taxRate: _r, ...line }) => line);
    delete bare.taxBreakdown;
    const paths = new Set<string>();
    for (const format of DOCUMENT_FORMATS) for (const m of missingFor(bare, format)) paths.add(m.path);
    const e = invoice({ lines, category: 'E', taxRate: 0, exemptionReason: null });
    for (const m of missingFor(e, 'pdf')) paths.add(m.path);
    expect(paths.size).to.be.greaterThan(15);
    const extras: Record<string, unknown> = { taxBreakdown: e.taxBreakdown };
    for (const path of paths) {
      if (path === 'taxBreakdown') continue; // filled as taxBreakdown=lines
      expect(() => fillSlot({ issuer: null, recipient: null, lines: [{}], extras }, path), path).to.not.throw();
    }
  });

  it('an electronic address without a scheme: an email address is EM, anything else needs its scheme; Peppol takes no EM', async () => {
    const doc = invoice({ lines, recipient: recipient({ electronicAddress: '04011000-12345-03', electronicAddressScheme: null }) });
    expect(missingFor(doc, 'peppol').map((m) => [m.bt, m.path])).to.deep.equal([['BT-49-1', 'recipient.electronicAddressScheme']]);
    const email = invoice({
      lines,
      issuer: issuer({ electronicAddress: 'rechnung@mueller-soehne.example', electronicAddressScheme: null }),
    });
    expect(missingFor(email, 'xrechnung-ubl')).to.deep.equal([]);
    expect(missingFor(email, 'pdf')).to.deep.equal([]);
    // Peppol routes by participant identifiers: an email address is none (PEPPOL-EN16931-CL008).
    expect(missingFor(email, 'peppol')).to.deep.equal([
      {
        path: 'issuer.electronicAddress',
        bt: 'BT-34',
        label:
          'Seller electronic address as a Peppol participant: an identifier with its Peppol scheme (e.g. 0208, 9930, 0204, 0088); an email address (EM) is not one',
        where: 'business-profile',
      },
    ]);
    const both = matrix()['email-addresses']!;
    expect(missingFor(both, 'peppol').map((m) => m.path)).to.deep.equal(['issuer.electronicAddress', 'recipient.electronicAddress']);
    expect((await refusal(both, 'peppol')).message).to.contain('an email address (EM) is not one');
  });

  it('a draft has no e-invoice (no number yet) but its PDF; a credit note exists only for an invoice voided after issuing', async () => {
    const draft = DRAFT();
    expect(missingFor(draft, 'pdf')).to.deep.equal([]);
    for (const format of ['xrechnung-ubl', 'xrechnung-cii', 'peppol'] as const) {
      expect(missingFor(draft, format)).to.deep.equal([
        { path: 'number', bt: 'BT-1', label: 'Invoice number and issue date (BT-2): given when the invoice is issued', where: 'issue' },
      ]);
      expect((await refusal(draft, format)).message).to.match(
        /^Invoice inv_7f3k2m9q4x1z cannot be made as .*: it lacks Invoice number .*issue the invoice first\)\.$/,
      );
    }
    const sent = invoice({ lines });
    expect(missingFor(sent, 'pdf', { creditNote: true }).map((m) => m.path)).to.deep.equal(['creditNote']);
    expect((await refusal(sent, 'pdf', true)).message).to.contain('only an issued invoice that was voided has one');
  });

  it('refuses an unknown format and "not subject to VAT" mixed with another category (BR-O-11)', async () => {
    const doc = invoice({ lines });
    expect((await refusal(doc, 'xml' as DocumentFormat)).message).to.equal(
      'Unknown document format "xml": use one of pdf, xrechnung-ubl, xrechnung-cii, peppol.',
    );
    const mixed = invoice({
      lines: [
        { description: 'a', seconds: 3600, rate: 10, category: 'O', taxRate: 0 },
        { description: 'b', seconds: 3600, rate: 10, category: 'S', taxRate: 19 },
      ],
      exemptionReason: 'Not subject to VAT',
    });
    expect((await refusal(mixed, 'peppol')).message).to.contain('(BR-O-11) allows O only alone');
  });

  it('names the files by number and format; a blank line description still gives a line name (BR-25)', () => {
    const doc = invoice({ lines, creditNote: { number: '2026/0043', issueDate: '2026-11-05' }, status: 'void' });
    expect(documentFileName(doc, 'pdf')).to.equal('2026-0042.pdf');
    expect(documentFileName(doc, 'xrechnung-ubl')).to.equal('2026-0042-xrechnung-ubl.xml');
    expect(documentFileName(doc, 'pdf', { creditNote: true })).to.equal('2026_0043.pdf');
    expect(documentFileName(DRAFT(), 'pdf')).to.equal('draft-inv_7f3k2m9q4x1z.pdf');
    const blank = invoice({ lines: [{ description: '  ', seconds: 3600, rate: 10 }], language: 'de' });
    expect(einvoiceOf(blank, false).lines[0]!.name).to.equal('Leistungen');
  });

  it('writes quantities in hours to six places, amounts to two, rates as written', () => {
    expect(hoursText(5400)).to.equal('1.500000');
    expect(hoursText(1)).to.equal('0.000278');
    expect(hoursText(12017)).to.equal('3.338056');
    expect(centsText(189179)).to.equal('1891.79');
    expect(centsText(5)).to.equal('0.05');
    expect(decimalText(7.7)).to.equal('7.70');
    expect(decimalText(120.5)).to.equal('120.50');
    expect(decimalText(1.005)).to.equal('1.005');
    expect(decimalText(19)).to.equal('19.00');
  });
});
