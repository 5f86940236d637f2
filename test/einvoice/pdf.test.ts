import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { renderDocument } from '../../src/modules/invoices/documents/index.js';
import { DRAFT, gmbh, invoice, matrix } from './fixtures.js';
import { poppler, requireTools } from './tools.js';

/**
 * The PDF beyond the rules: what a client reads (pdftotext), the pages of a long invoice, the
 * Factur-X parts (attachment, its relationship, the XMP) and determinism. `validate` checks
 * PDF/A part 3, the Factur-X schema, the attachment and the fonts for the whole matrix
 * (rules.test.ts); here each is read once more directly.
 */
describe('invoice documents: the PDF', function () {
  this.timeout(120_000);
  let dir: string;
  const invoices = matrix();
  const files: Record<string, string> = {};
  /** The text of a PDF (or of one page), spaces and no-break spaces as one space. */
  const textOf = (name: string, page?: number) =>
    poppler('pdftotext', '-layout', ...(page ? ['-f', String(page), '-l', String(page)] : []), files[name]!, '-')
      .replace(/[\u00a0\u202f]/g, ' ')
      .replace(/[ \t]+/g, ' ');
  const pagesOf = (name: string) => Number(/Pages:\s+(\d+)/.exec(poppler('pdfinfo', files[name]!))![1]);
  /** "1.187,50" as an exact decimal: units and scale. */
  const germanDecimal = (text: string) => {
    const [whole, fraction = ''] = text.replace(/\./g, '').split(',');
    return { units: BigInt(`${whole}${fraction}`), scale: fraction.length };
  };
  /** hours × rate in cents, rounded half away from zero: what the printed amount must be. */
  const centsOf = (hours: { units: bigint; scale: number }, rate: { units: bigint; scale: number }) => {
    const divisor = 10n ** BigInt(hours.scale + rate.scale);
    return (hours.units * rate.units * 200n + divisor) / (2n * divisor);
  };

  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-pdf-'));
    const render = async (name: string, doc = invoices[name]!, creditNote = name.startsWith('credit-note')) => {
      files[name] = join(dir, `${name}.pdf`);
      writeFileSync(files[name], await renderDocument(doc, 'pdf', { creditNote }));
    };
    for (const name of [
      'standard-19',
      'reduced-7',
      '500-lines',
      'credit-note',
      'small-business-e',
      'currency-chf',
      'paid',
      'partly-paid',
      'partly-paid-de',
      'skonto',
      'skonto-de',
      'reverse-charge-ae',
      'credit-note-de',
      'long-legal-name',
      'foreign-currency-vat',
      'foreign-currency-no-vat',
      'not-subject-o-identifier',
      'gmbh-de',
      'rounded-up-15-de',
      'rounded-nearest-5',
    ])
      await render(name);
    await render('draft', DRAFT(), false);
    // The longest invoice there is (1,000 lines, MAX_INVOICE_LINES): its positions run to 1000.
    await render(
      '1000-lines',
      invoice({ lines: Array.from({ length: 1000 }, (_, n) => ({ description: `Task ${n + 1}`, seconds: 1800 + n, rate: 90 })) }),
      false,
    );
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('carries the parties, number, dates, service period, lines, totals, payment terms and bank details (English)', () => {
    const text = textOf('standard-19');
    for (const expected of [
      'Invoice',
      'Müller & Söhne <Beratung> GmbH',
      'Bäckerei Groß & Töchter <KG>',
      'Königsallee 1',
      'Number 2026-0042',
      'Date 3 Nov 2026',
      'Due 17 Nov 2026',
      'Service period 1 Oct 2026 – 31 Oct 2026',
      'Your reference 04011000-12345-03',
      'Website <Relaunch> & Shop: Konzeption, Gestaltung 12.500000 €95.00 €1,187.50',
      'Beratung Datenschutz (Größe & Maß) 3.338056 €120.50 €402.24',
      'Net total €1,589.74',
      'VAT 19% on €1,589.74 €302.05',
      'Total €1,891.79',
      'Payable without deduction by 17 Nov 2026 (14 days).',
      'IBAN DE89 3704 0044 0532 0130 00',
      'BIC COBADEFFXXX',
      'Reference 2026-0042',
      'VAT ID DE136695976',
      'Page 1 of 1',
      'Thank you for the order <№ 17> & the kind cooperation.',
    ])
      expect(text).to.contain(expected);
  });

  it('German labels, dates and money; the exemption reason of a small business; a foreign currency', () => {
    const de = textOf('reduced-7');
    for (const expected of [
      'Rechnung',
      'Datum 03.11.2026',
      'Fällig 17.11.2026',
      'Leistungszeitraum 01.10.2026 – 31.10.2026',
      'USt. 7 % auf 480,00 € 33,60 €',
      'Gesamtbetrag 513,60 €',
      'Seite 1 von 1',
    ])
      expect(de).to.contain(expected);
    const small = textOf('small-business-e');
    expect(small).to.contain('Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).');
    expect(small).to.contain('Steuernummer 30/123/45678');
    expect(small).to.not.contain('USt-IdNr. DE');
    const chf = textOf('currency-chf');
    expect(chf).to.contain('Total CHF 1,718.51');
    expect(chf).to.contain('Zürcher Büro für Gestaltung AG');
    const ae = textOf('reverse-charge-ae');
    expect(ae).to.contain('Reverse charge: the recipient is liable for the VAT (Art. 196 VAT Directive). (VATEX-EU-AE)');
    expect(ae).to.contain('Your VAT ID: ATU13585627');
    const paid = textOf('paid');
    expect(paid).to.contain('Paid (10 Nov 2026) €1,891.79');
    expect(paid).to.contain('Amount due €0.00');
  });

  it('issue 57: a partly paid invoice says what was paid and what is still due, below its total', () => {
    const en = textOf('partly-paid');
    expect(en).to.match(/Total €1,891\.79\s+Paid €500\.00\s+Amount due €1,391\.79/);
    const de = textOf('partly-paid-de');
    expect(de).to.match(/Gesamtbetrag 1\.891,79 €\s+Bezahlt 1\.234,56 €\s+Zu zahlen 657,23 €/);
  });

  it('issue 57: an early-payment discount is printed with the payment terms, in words (its #SKONTO# line is for XRechnung only)', () => {
    const flat = (name: string) => textOf(name).replace(/\s+/g, ' ');
    expect(flat('skonto')).to.include(
      'Payable within 14 days, by 17 November 2026. 2 % early-payment discount if paid within 10 days, by 13 November 2026.',
    );
    expect(flat('skonto-de')).to.include(
      'Zahlbar innerhalb von 14 Tagen bis zum 17.11.2026. Bei Zahlung innerhalb von 10 Tagen bis zum 13.11.2026 2,5 % Skonto.',
    );
    expect(textOf('skonto')).not.to.include('#SKONTO#');
    const out = join(dir, 'skonto-xml');
    poppler('mkdir', '-p', out);
    poppler('pdfdetach', '-saveall', '-o', out, files['skonto']!);
    const xml = readFileSync(join(out, 'factur-x.xml'), 'utf8');
    expect(xml).to.include('2 % early-payment discount if paid within 10 days, by 13 November 2026.</ram:Description>');
    expect(xml).not.to.include('#SKONTO#');
  });

  it('500 lines break cleanly over pages: every row once, whole, its printed hours × printed rate = its printed amount, the header and "Seite n von m" on every page', () => {
    const pages = pagesOf('500-lines');
    expect(pages).to.be.within(15, 25);
    const seen: number[] = [];
    const products: string[] = [];
    const expected: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const text = textOf('500-lines', page);
      // Every page with rows has the table's header (the last may hold only the payment details).
      if (/^ ?\d{1,3} 2026-10-\d\d /m.test(text)) expect(text, `page ${page}`).to.contain('Pos. Beschreibung Stunden Satz Betrag');
      else expect(page, 'a page without rows').to.equal(pages);
      expect(text, `page ${page}`).to.contain(`Seite ${page} von ${pages}`);
      if (page > 1) expect(text, `page ${page}`).to.contain('Rechnung 2026-0042 · Fortsetzung');
      // A row: its position, its description's first line, hours, rate and amount on one line.
      for (const m of text.matchAll(/^ ?(\d{1,3}) 2026-10-\d\d .* ([\d.]+,\d+) ([\d.]+,\d\d) € ([\d.]+,\d\d) €$/gm)) {
        seen.push(Number(m[1]));
        const [hours, rate, amount] = [m[2]!, m[3]!, m[4]!].map(germanDecimal);
        products.push(
          `${m[1]}: ${m[2]} × ${m[3]} = ${centsOf(hours!, rate!) === amount!.units ? m[4] : `${m[4]}, NOT ${String(centsOf(hours!, rate!))} ct`}`,
        );
        expected.push(`${m[1]}: ${m[2]} × ${m[3]} = ${m[4]}`);
      }
    }
    expect(seen).to.deep.equal(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(products).to.deep.equal(expected);
    const end = textOf('500-lines', pages - 1) + textOf('500-lines', pages);
    expect(end).to.contain('Gesamtbetrag');
    expect(end).to.contain('Zahlbar ohne Abzug bis zum 17.11.2026 (14 Tage).');
  });

  it('rounded per entry (issue 56 item 4): up to 15 minutes prints hours with two decimals, and every printed hours × rate = amount', () => {
    const rows = (name: string, pattern: RegExp) => [...textOf(name).matchAll(pattern)].map((m) => [m[1]!, m[2]!, m[3]!, m[4]!]);
    const german = rows('rounded-up-15-de', /^ ?(\d) .*? (\d+,\d+) ([\d.]+,\d\d) € ([\d.]+,\d\d) €$/gm);
    expect(german.map(([, hours]) => hours)).to.deep.equal(['0,75', '0,25', '3,75', '2,75']);
    for (const [position, hours, rate, amount] of german)
      expect(centsOf(germanDecimal(hours!), germanDecimal(rate!)), `row ${position}`).to.equal(germanDecimal(amount!).units);
    // 3.75 h × 12,34 € = 46,275 €: the line's net rounded once, half away from zero.
    expect(german[2]).to.deep.equal(['3', '3,75', '12,34', '46,28']);
    // 5 minutes is no whole hundredth of an hour: such lines print as exactly as the amount needs (six places), and still multiply.
    const english = rows('rounded-nearest-5', /^ ?(\d) .*? (\d+\.\d+) €([\d,]+\.\d\d) €([\d,]+\.\d\d)$/gm);
    expect(english.map(([, hours]) => hours)).to.deep.equal(['0.500000', '0.000000', '3.583333', '2.250000']);
    const english2 = (text: string) => germanDecimal(text.replace(/,/g, '').replace('.', ','));
    for (const [position, hours, rate, amount] of english)
      expect(centsOf(english2(hours!), english2(rate!)), `row ${position}`).to.equal(english2(amount!).units);
  });

  it('a credit note names the invoice it cancels; its factur-x.xml is type 381 with the preceding invoice', () => {
    const text = textOf('credit-note');
    for (const expected of [
      'Credit note',
      'Number 2026-0043',
      'Date 5 Nov 2026',
      'Cancels invoice 2026-0042 (3 Nov 2026)',
      'This credit note cancels invoice 2026-0042 of 3 Nov 2026',
    ])
      expect(text).to.contain(expected);
    expect(text).to.not.contain('Due ');
    const out = join(dir, 'credit-note-xml');
    poppler('mkdir', '-p', out);
    poppler('pdfdetach', '-saveall', '-o', out, files['credit-note']!);
    const xml = readFileSync(join(out, 'factur-x.xml'), 'utf8');
    expect(xml).to.contain('<ram:TypeCode>381</ram:TypeCode>');
    expect(xml).to.contain('<ram:ID>2026-0043</ram:ID>');
    expect(xml).to.match(
      /<ram:InvoiceReferencedDocument>\s*<ram:IssuerAssignedID>2026-0042<\/ram:IssuerAssignedID>\s*<ram:FormattedIssueDateTime>\s*<qdt:DateTimeString format="102">20261103</,
    );
    expect(xml).to.contain('<ram:ID>urn:cen.eu:en16931:2017</ram:ID>');
  });

  it('a German credit note is a "Rechnungskorrektur", not a "Gutschrift" (self-billing in German VAT law)', () => {
    const text = textOf('credit-note-de');
    expect(text).to.contain('Rechnungskorrektur');
    expect(text).to.contain('Storno zu Rechnung 2026-0042 vom 03.11.2026');
    expect(text).to.contain('Diese Rechnungskorrektur storniert die Rechnung 2026-0042 vom 03.11.2026');
    expect(text).to.not.contain('Gutschrift');
  });

  it("addresses: no country for a domestic one; the country's name in the document's language, never its code, across a border; the client's legal name only", () => {
    const domestic = textOf('standard-19');
    expect(domestic).to.match(/40212 Düsseldorf\n ?Your VAT ID/);
    expect(domestic).to.not.match(/\b(DE|Germany|GERMANY|Deutschland)\b/);
    // The catalog name ("Bäckerei Groß") is not printed as if it were a trading name.
    expect(domestic).to.not.match(/^ ?Bäckerei Groß$/m);
    const abroad = textOf('reverse-charge-ae');
    expect(abroad).to.match(/Mariahilfer Straße 12\n ?1070 Wien\n ?AUSTRIA\n/);
    expect(abroad).to.match(/10115 Berlin .*\n ?Germany /);
    expect(abroad).to.not.match(/\b(AT|DE)\n/);
    expect(textOf('not-subject-o-identifier')).to.match(/10110 New York\n ?UNITED STATES\n/);
  });

  it('a long legal name: the footer wraps, never cuts, and keeps the VAT ID, tax number and register entry on every page (§ 14 UStG)', () => {
    const pages = pagesOf('long-legal-name');
    expect(pages).to.be.at.least(2);
    const name =
      'Müller & Söhne Beratungsgesellschaft für Informationstechnik, Datenschutz und digitale Barrierefreiheit mit beschränkter Haftung & Co. Kommanditgesellschaft auf Aktien';
    const footer = `${name} · Registernummer Amtsgericht Charlottenburg (Berlin) HRB 123456 B · USt-IdNr. DE136695976 · Steuernummer 30/123/45678`;
    const custom =
      'Persönlich haftende Gesellschafterin: Müller & Söhne Verwaltungs-GmbH, Sitz Berlin, Amtsgericht Charlottenburg HRB 654321 B · Geschäftsführer: Jörg Weiß, Dr. Anna-Lena Schmidt-Överhaus · Vorsitzende des Aufsichtsrats: Prof. Dr. Beate Groß';
    for (let page = 1; page <= pages; page++) {
      // The page's text without its layout: the footer's wrapped lines read as one.
      const raw = poppler('pdftotext', '-f', String(page), '-l', String(page), files['long-legal-name']!, '-')
        .replace(/[\u00a0\u202f]/g, ' ')
        .replace(/\s+/g, ' ');
      expect(raw, `page ${page}`).to.contain(footer);
      expect(raw, `page ${page}`).to.contain(custom);
      expect(raw, `page ${page}`).to.not.contain('…');
      // No row of the table reaches into the footer: every word above the footer's first line.
      const words = [
        ...poppler('pdftotext', '-bbox', '-f', String(page), '-l', String(page), files['long-legal-name']!, '-').matchAll(
          /<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g,
        ),
      ].map((m) => ({ top: Number(m[1]), bottom: Number(m[2]), text: m[3]! }));
      const footerTop = Math.min(...words.filter((w) => w.top > 600 && w.text === 'Müller').map((w) => w.top));
      const above = words.filter((w) => w.top < footerTop - 1);
      expect(Math.max(...above.map((w) => w.bottom)), `page ${page}`).to.be.below(footerTop - 8);
    }
  });

  describe('German documents a German accountant signs off (issue 56 item 5; the wording checked against German tools in docs/invoicing.md)', () => {
    /** The words of a page as pdftotext -bbox sees them: text, font size (its height) and position. */
    const wordsOf = (name: string, page = 1) =>
      [
        ...poppler('pdftotext', '-bbox', '-f', String(page), '-l', String(page), files[name]!, '-').matchAll(
          /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
        ),
      ].map((m) => ({ left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]), text: m[5]! }));

    it('a credit note: its title "Rechnungskorrektur" whole on one line, "Storno zu Rechnung … vom …", and the cancellation sentence above the lines, not under "Zahlungsbedingungen"', () => {
      const words = wordsOf('credit-note-de');
      // The title is one word of the page's largest type, inside the page; no piece of it wraps onto a line of its own.
      const title = words.filter((w) => w.bottom - w.top > 18);
      expect(title.map((w) => w.text)).to.deep.equal(['Rechnungskorrektur']);
      expect(title[0]!.right).to.be.at.most(595.28 - 56 + 0.5);
      const text = textOf('credit-note-de');
      expect(text).to.not.match(/Rechnungskorrektu\s*\n/);
      expect(text).to.contain('Storno zu Rechnung 2026-0042 vom 03.11.2026');
      expect(text).to.not.contain('Storniert');
      expect(text).to.not.contain('ZAHLUNGSBEDINGUNGEN');
      const sentence = text.indexOf('Diese Rechnungskorrektur storniert die Rechnung 2026-0042 vom 03.11.2026');
      expect(sentence, text).to.be.above(-1);
      expect(sentence, 'the sentence comes before the lines').to.be.below(text.indexOf('Pos. Beschreibung'));
    });

    it('a § 19 small business: only the total and the exemption sentence, no "Summe netto" and no VAT line', () => {
      const text = textOf('small-business-e');
      expect(text).to.contain('Gesamtbetrag 1.589,74 €');
      expect(text).to.contain('Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Kleinunternehmerregelung).');
      for (const absent of ['Summe netto', 'Steuerbefreit', '0 %', 'USt. ']) expect(text).to.not.contain(absent);
    });

    it("the service period names its zone only when it is not the seller's: none for a Berlin seller, the zone for a client's or an older invoice's UTC days", async () => {
      expect(textOf('reduced-7')).to.match(/Leistungszeitraum 01\.10\.2026 – 31\.10\.2026\n/);
      expect(textOf('reduced-7')).to.not.contain('Europe/Berlin');
      for (const timeZone of ['America/New_York', 'UTC']) {
        const file = join(dir, `zone-${timeZone.replace('/', '-')}.pdf`);
        writeFileSync(file, await renderDocument({ ...invoices['reduced-7']!, timeZone }, 'pdf'));
        const text = poppler('pdftotext', '-layout', file, '-').replace(/[ \t]+/g, ' ');
        expect(text).to.match(new RegExp(`Leistungszeitraum 01\\.10\\.2026 – 31\\.10\\.2026\\s+\\(${timeZone}\\)`));
      }
    });

    it('a GmbH: the footer names its seat, register court and number and its managing directors (§ 35a GmbHG)', () => {
      const raw = poppler('pdftotext', files['gmbh-de']!, '-')
        .replace(/[\u00a0\u202f]/g, ' ')
        .replace(/\s+/g, ' ');
      expect(raw).to.contain(
        'Nordlicht Software GmbH · Sitz: Berlin · Amtsgericht Charlottenburg HRB 245678 B · Geschäftsführung: Jörg Weiß, Dr. Anna-Lena Schmidt · USt-IdNr. DE136695976 · Steuernummer 30/123/45678',
      );
      expect(raw).to.not.contain('Register HRB');
    });

    it('no page holds only the end of an invoice: the page with the bank details also holds a line of it (10 to 30 lines)', async () => {
      const alone: string[] = [];
      for (let n = 10; n <= 30; n++) {
        const lines = Array.from({ length: n }, (_, i) => ({
          description: `Entwicklung Modul ${i + 1}`,
          seconds: 3600 + i * 60,
          rate: 95,
        }));
        const file = join(dir, `gmbh-${n}.pdf`);
        writeFileSync(file, await renderDocument(gmbh(lines), 'pdf'));
        const pages = Number(/Pages:\s+(\d+)/.exec(poppler('pdfinfo', file))![1]);
        const last = poppler('pdftotext', '-layout', '-f', String(pages), '-l', String(pages), file, '-');
        expect(last, `${n} lines`).to.contain('BANKVERBINDUNG');
        if (!/^ *\d+ +Entwicklung Modul/m.test(last)) alone.push(`${n} lines: page ${pages} of ${pages} holds no line`);
      }
      expect(alone).to.deep.equal([]);
    });
  });

  it('German VAT on an invoice in another currency: the VAT total in euros too, with the rate (Art. 230 VAT Directive)', () => {
    const text = textOf('foreign-currency-vat');
    expect(text).to.contain('Total CHF 1,891.79');
    expect(text).to.contain('VAT total in EUR (rate 1 CHF = 1.0634 EUR) €321.20');
  });

  it('an invoice in another currency without VAT states no "€0.00 VAT in EUR" (issue 56 item 10)', () => {
    const text = textOf('foreign-currency-no-vat');
    expect(text).to.contain('Total CHF 1,589.74');
    expect(text).to.not.contain('VAT total in EUR');
    expect(text).to.not.contain('€0.00');
  });

  it('a 1,000-line invoice: every position whole on its row, 1000 too (issue 56 item 10)', () => {
    const pages = pagesOf('1000-lines');
    const seen: number[] = [];
    for (let page = 1; page <= pages; page++)
      for (const m of textOf('1000-lines', page).matchAll(/^ ?(\d{1,4}) Task (\d+) /gm)) {
        expect(m[1], `page ${page}`).to.equal(m[2]);
        seen.push(Number(m[1]));
      }
    expect(seen).to.deep.equal(Array.from({ length: 1000 }, (_, i) => i + 1));
    // No position broken over two lines ("100" above "0").
    expect(textOf('1000-lines', pages - 1) + textOf('1000-lines', pages)).to.not.match(/^ ?0\s*$/m);
  });

  it("the metadata name the invoice by its number, never by its internal id; a draft's by no id at all (issue 56 item 10)", () => {
    const info = (name: string) => poppler('pdfinfo', files[name]!) + poppler('pdfinfo', '-meta', files[name]!);
    const issued = info('standard-19');
    expect(issued).to.match(/^Title:\s+Invoice 2026-0042$/m);
    expect(issued).to.match(/^Subject:\s+Invoice 2026-0042 · 2026-10-01 – 2026-10-31$/m);
    expect(issued).to.not.contain(invoices['standard-19']!.id);
    const draft = info('draft');
    expect(draft).to.match(/^Subject:\s+Invoice \(DRAFT\) · 2026-10-01 – 2026-10-31 · 2026-11-02T09:15:00.000Z$/m);
    expect(draft).to.not.contain(DRAFT().id);
    expect(draft).to.not.contain('inv_');
  });

  it('a draft says DRAFT and carries no number and no XML', () => {
    const text = textOf('draft');
    expect(text).to.contain('DRAFT');
    expect(text).to.contain('Draft: not an invoice yet.');
    expect(text).to.not.contain('2026-0042');
    expect(text).to.not.match(/Number|Reference/);
    expect(poppler('pdfdetach', '-list', files['draft']!)).to.contain('0 embedded files');
  });

  it('is Factur-X: factur-x.xml attached as Alternative (text/xml), the XMP declares PDF/A-3B and the EN 16931 level, every font embedded', () => {
    const bytes = readFileSync(files['standard-19']!).toString('latin1');
    expect(bytes.startsWith('%PDF-1.7')).to.equal(true);
    expect(bytes).to.match(/\/AFRelationship \/Alternative/);
    expect(bytes).to.match(/\/Subtype \/text#2Fxml/);
    expect(bytes).to.match(/\/Type \/Catalog[\s\S]*?\/AF \[\d+ 0 R\]/);
    const xmp = poppler('pdfinfo', '-meta', files['standard-19']!);
    for (const expected of [
      '<pdfaid:part>3</pdfaid:part>',
      '<pdfaid:conformance>B</pdfaid:conformance>',
      '<fx:DocumentType>INVOICE</fx:DocumentType>',
      '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>',
      '<fx:Version>1.0</fx:Version>',
      '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>',
      '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>',
    ])
      expect(xmp).to.contain(expected);
    const fonts = poppler('pdffonts', files['standard-19']!).split('\n').slice(2).filter(Boolean);
    expect(fonts.map((l) => l.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, '')).sort()).to.deep.equal([
      'DejaVuSansCondensed',
      'DejaVuSansCondensed-Bold',
    ]);
    for (const line of fonts) expect(line.trim().split(/\s+/).at(-5), line).to.equal('yes');
  });

  it('is deterministic: the same invoice gives the same bytes, another invoice (number) of the same day another file ID', async () => {
    const doc = invoices['standard-19']!;
    const [a, b] = [await renderDocument(doc, 'pdf'), await renderDocument(structuredClone(doc), 'pdf')];
    expect(a.equals(b)).to.equal(true);
    const id = (pdf: Buffer) => /\/ID \[<([0-9a-f]+)>/.exec(pdf.toString('latin1'))![1];
    const other = await renderDocument({ ...structuredClone(doc), number: '2026-0043' }, 'pdf');
    expect(id(other)).to.not.equal(id(a));
    expect(a.toString('latin1')).to.contain('/CreationDate (D:20261103000000Z)');
    for (const format of ['xrechnung-ubl', 'xrechnung-cii', 'peppol'] as const)
      expect((await renderDocument(doc, format)).equals(await renderDocument(structuredClone(doc), format)), format).to.equal(true);
  });

  it('renders pages to PNG (pdftoppm -r 60) for a person to look at', () => {
    const out = join(dir, 'png');
    poppler('mkdir', '-p', out);
    poppler('pdftoppm', '-r', '60', '-png', '-f', '1', '-l', '1', files['standard-19']!, join(out, 'page'));
    const [png] = readdirSync(out);
    expect(readFileSync(join(out, png!)).subarray(1, 4).toString()).to.equal('PNG');
  });

  it('an invoice of two lines fits one page', async () => {
    const doc = invoice({ lines: [{ description: 'x', seconds: 3600, rate: 1 }] });
    const file = join(dir, 'one.pdf');
    writeFileSync(file, await renderDocument(doc, 'pdf'));
    expect(Number(/Pages:\s+(\d+)/.exec(poppler('pdfinfo', file))![1])).to.equal(1);
  });
});
