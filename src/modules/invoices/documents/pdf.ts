import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as fontkit from 'fontkit';
import type { InvoiceDocument } from '../document.js';
import { ciiOf } from './cii.js';
import { formatsOf, labelsOf, type Formats, type Labels } from './labels.js';
import { plainPdf } from './missing.js';
import { decimalText, einvoiceOf, printedHours, text, type Address, type EInvoice } from './model.js';
import { unitSymbol } from '../manual.js';

/**
 * The invoice as a person reads it: A4, both parties, number, dates, service period, the lines
 * (their table's header repeated on every page), the VAT breakdown, totals, payment terms and
 * bank details, the footer and "Page n of m" on every page. A Factur-X / ZUGFeRD EN 16931
 * PDF/A-3b: every font embedded (DejaVu Sans Condensed from the dejavu-fonts-ttf package, so a
 * fresh install has it), XMP declaring PDF/A-3 and the Factur-X extension schema, and the CII
 * attached as `factur-x.xml` (AFRelationship Alternative). A PDF without XML is a plain PDF/A-2b
 * (every font embedded, XMP declaring PDF/A-2, no attachment and no Factur-X declaration): the
 * invoice of a seller without BT-29/BT-30/BT-31 (`plainPdf`, issue 56 item 2), and a draft's, which
 * says DRAFT and carries no number. Deterministic: every date comes from the invoice, the file ID
 * from its id.
 */

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/**
 * The two faces, parsed once per process and shared by every document: pdfkit would otherwise
 * read and parse each TTF (and lay out every glyph run anew) for every PDF. Each document still
 * embeds its own subset.
 */
let fonts: { regular: fontkit.Font; bold: fontkit.Font } | null = null;
function loadFonts(kit: typeof fontkit): { regular: fontkit.Font; bold: fontkit.Font } {
  const face = (file: string) => kit.create(readFileSync(join(fontDir, file))) as fontkit.Font;
  fonts ??= { regular: face('DejaVuSansCondensed.ttf'), bold: face('DejaVuSansCondensed-Bold.ttf') };
  return fonts;
}

const A4 = { width: 595.28, height: 841.89 };
const M = { left: 56, right: 56, top: 50, bottom: 72 };
const WIDTH = A4.width - M.left - M.right;
const RIGHT = A4.width - M.right;
/** Where the footer's rule sits at most (it moves up when the footer needs more lines). */
const FOOTER_RULE = A4.height - M.bottom + 14;
/** The footer's text ends this far above the page's edge at least. */
const FOOTER_BOTTOM = 22;
/** The footer's width beside "Page n of m". */
const FOOTER_WIDTH = WIDTH - 90;
const INK = '#1f2328';
const MUTED = '#5f6670';
const RULE = '#d0d4d9';
const SHADE = '#f1f3f5';

type Doc = PDFKit.PDFDocument;

interface Context {
  pdf: Doc;
  doc: InvoiceDocument;
  e: EInvoice;
  l: Labels;
  f: Formats;
  draft: boolean;
  creditNote: boolean;
  title: string;
  /** Lowest y a table row or block may reach; below it the footer lives. */
  limit: number;
  footer: Footer;
}

/** The footer of every page: the issuer's legal lines (wrapped, never cut: § 14 UStG wants them whole) and where it starts. */
interface Footer {
  identity: string;
  custom: string | null;
  rule: number;
}

/** Text that cannot end up in the XMP packet as markup (pdfkit writes Title and Subject there unescaped). */
const xmpSafe = (value: string) => value.replace(/[&<>"]/g, ' ');

/** The day's midnight in UTC: the PDF's dates come from the invoice, never the clock. */
const dayDate = (day: string) => new Date(`${day.slice(0, 10)}T00:00:00Z`);

export async function pdfOf(doc: InvoiceDocument, options: { creditNote: boolean }): Promise<Buffer> {
  const creditNote = options.creditNote;
  const draft = !creditNote && (doc.number === null || doc.issueDate === null);
  const l = labelsOf(doc.language);
  const e = einvoiceOf(doc, creditNote);
  const number = draft ? null : e.number;
  const title = creditNote ? l.creditNote : l.invoice;
  const created = dayDate(draft ? doc.createdAt : e.issueDate);
  // Factur-X (PDF/A-3b, the part that takes an attached XML) or a plain PDF/A-2b without XML.
  const facturX = !draft && !plainPdf(doc);
  // pdfkit and fontkit load with the first PDF: a reader thread or a command that makes none starts without them.
  const [{ default: PDFDocument }, kit] = await Promise.all([import('pdfkit'), import('fontkit')]);
  const faces = loadFonts(kit);
  const pdf = new PDFDocument({
    size: 'A4',
    margins: M,
    pdfVersion: '1.7',
    subset: facturX ? 'PDF/A-3b' : 'PDF/A-2b',
    bufferPages: true,
    autoFirstPage: true,
    // No default font (pdfkit would load Helvetica, which PDF/A cannot have unembedded): the
    // registered faces below are the only ones, and the first text picks one.
    font: '',
    lang: l.locale,
    displayTitle: true,
    info: {
      Title: xmpSafe(number ? `${title} ${number}` : `${title} (${l.draft})`),
      // The number a reader needs (issue 56 item 10), never the internal id, and the period. pdfkit hashes the info
      // into the file ID, which so differs between invoices; between drafts (no number) by their period and creation.
      Subject: xmpSafe(
        [number ? `${title} ${number}` : `${title} (${l.draft})`, `${doc.from} – ${doc.to}`, ...(number ? [] : [doc.createdAt])].join(
          ' · ',
        ),
      ),
      Creator: 'timetrack',
      Producer: 'timetrack (PDFKit)',
      CreationDate: created,
    },
  });
  // pdfkit takes a parsed fontkit font where its types say a path.
  pdf.registerFont('regular', faces.regular as unknown as string);
  pdf.registerFont('bold', faces.bold as unknown as string);
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const footer = footerOf(pdf, doc, l);
  const ctx: Context = { pdf, doc, e, l, f: formatsOf(l, doc.currency), draft, creditNote, title, footer, limit: footer.rule - 22 };
  let y = head(ctx);
  y = linesTable(ctx, y);
  closing(ctx, y);
  footers(ctx);
  if (facturX) attachFacturX(pdf, e, created);
  pdf.end();
  return done;
}

/** Moves to a new page when `height` does not fit below `y`; returns where to go on. */
function room(ctx: Context, y: number, height: number): number {
  if (y + height <= ctx.limit) return y;
  ctx.pdf.addPage();
  return continuation(ctx);
}

/** The top of a following page: who and which document, so a loose page is still placed. The name wraps, never cut. */
function continuation(ctx: Context): number {
  const { pdf, e, l } = ctx;
  const name = `${ctx.title}${ctx.draft ? ` (${l.draft})` : ` ${e.number}`} · ${l.continued}`;
  pdf
    .font('bold')
    .fontSize(9)
    .fillColor(INK)
    .text(e.seller.name, M.left, M.top, { width: WIDTH / 2 - 10 });
  const nameBottom = pdf.y;
  pdf
    .font('regular')
    .fontSize(9)
    .fillColor(MUTED)
    .text(name, M.left + WIDTH / 2, M.top, { width: WIDTH / 2, align: 'right' });
  const rule = Math.max(M.top + 18, nameBottom + 4, pdf.y + 4);
  pdf.moveTo(M.left, rule).lineTo(RIGHT, rule).lineWidth(0.5).strokeColor(RULE).stroke();
  return rule + 12;
}

/** Writes lines of text at x from y in one style and returns the y below them. */
function block(pdf: Doc, lines: Array<string | null>, x: number, y: number, width: number, size = 9, color = INK): number {
  let at = y;
  pdf.fontSize(size).fillColor(color);
  for (const line of lines) {
    if (!line) continue;
    pdf.text(line, x, at, { width });
    at = pdf.y;
  }
  return at;
}

/**
 * An address as it is printed: its lines, post code and city, and the country's name (in the
 * document's language) only when the two parties are in different countries, on a line of its own
 * (capitals for the recipient, as postal addresses abroad have it); never a bare code.
 */
function addressLines(ctx: Context, address: Address, recipient: boolean): string[] {
  const place = [address.postalCode, address.city].filter(Boolean).join(' ');
  const other = recipient ? ctx.e.seller.address.country : ctx.e.buyer.address.country;
  const abroad = address.country !== null && other !== null && address.country !== other;
  const country = abroad && address.country ? ctx.f.country(address.country) : null;
  return [...address.lines, place, country && recipient ? country.toLocaleUpperCase(ctx.l.locale) : country].filter(
    (line): line is string => Boolean(line),
  );
}

/** The first page's top: the issuer, the title and its facts, the recipient, the note. */
function head(ctx: Context): number {
  const { pdf, e, l, f, doc } = ctx;
  const issuer = doc.issuer;
  const leftWidth = WIDTH * 0.55;
  // The issuer, top left.
  pdf.font('bold');
  let y = block(pdf, [e.seller.name || null], M.left, M.top, leftWidth, 13);
  pdf.font('regular');
  y = block(pdf, addressLines(ctx, e.seller.address, false), M.left, y + 2, leftWidth, 8.5, MUTED);
  y = block(
    pdf,
    [[text(issuer?.email), text(issuer?.phone)].filter(Boolean).join(' · ') || null, text(issuer?.website)],
    M.left,
    y,
    leftWidth,
    8.5,
    MUTED,
  );

  // The title and the document's facts, top right.
  const factsX = M.left + leftWidth + 10;
  const factsWidth = RIGHT - factsX;
  // The title at the size that fits its column: a word is never broken ("Rechnungskorrektur" is wider than 20 pt allow).
  pdf.font('bold');
  const titleSize = fittedSize(pdf, ctx.title, factsWidth, 20, 12);
  pdf
    .fontSize(titleSize)
    .fillColor(INK)
    .text(ctx.title, factsX, M.top - 4 + (20 - titleSize) / 2, { width: factsWidth, align: 'right' });
  let fy = Math.max(pdf.y, M.top + 20) + 4;
  if (ctx.draft) {
    pdf.font('bold').fontSize(12).fillColor('#b42318').text(l.draft, factsX, fy, { width: factsWidth, align: 'right' });
    fy = pdf.y + 4;
  }
  const facts: Array<[string, string | null]> = [
    [l.number, ctx.draft ? null : e.number],
    [l.issueDate, ctx.draft ? null : f.date(e.issueDate)],
    [l.dueDate, e.dueDate && !ctx.draft ? f.date(e.dueDate) : null],
    // The days of the invoice's zone (decisions 11a): named when they are not the seller's own days (a day is a different span of time elsewhere).
    [l.servicePeriod, `${f.date(e.period.from)} – ${f.date(e.period.to)}${sellersDays(e) ? '' : ` (${e.period.timeZone})`}`],
    [l.buyerReference, e.buyerReference],
    [l.precedingInvoice, e.preceding ? l.precedingValue(e.preceding.number, f.date(e.preceding.issueDate)) : null],
  ];
  // The labels' column as wide as its longest label (within a half), so a label stays on one line.
  pdf.font('regular').fontSize(8.5);
  const labelWidth = Math.min(
    factsWidth * 0.5,
    Math.max(factsWidth * 0.34, ...facts.filter(([, value]) => value).map(([label]) => pdf.widthOfString(label) + 6)),
  );
  for (const [label, value] of facts) {
    if (!value) continue;
    pdf.font('regular').fontSize(8.5).fillColor(MUTED).text(label, factsX, fy, { width: labelWidth });
    const labelBottom = pdf.y;
    pdf
      .font('bold')
      .fontSize(8.5)
      .fillColor(INK)
      .text(value, factsX + labelWidth, fy, { width: factsWidth - labelWidth, align: 'right' });
    fy = Math.max(labelBottom, pdf.y) + 1.5;
  }

  // The recipient.
  y = Math.max(y, fy) + 22;
  pdf.font('regular').fontSize(7.5).fillColor(MUTED).text(l.billedTo.toUpperCase(), M.left, y, { characterSpacing: 0.6 });
  pdf.font('bold');
  y = block(pdf, [e.buyer.name || null], M.left, pdf.y + 2, leftWidth, 10.5);
  pdf.font('regular');
  y = block(
    pdf,
    [
      e.buyer.tradingName,
      ...addressLines(ctx, e.buyer.address, true),
      // As the XML has it: none on an invoice not subject to VAT (BR-O-02).
      e.buyer.vatId ? `${l.customerVatId}: ${e.buyer.vatId}` : null,
    ],
    M.left,
    y + 1,
    leftWidth,
    9,
  );
  y += 14;
  if (ctx.draft) {
    pdf.font('regular').fontSize(9).fillColor('#b42318').text(l.draftNotice, M.left, y, { width: WIDTH });
    y = pdf.y + 8;
  }
  if (e.note) {
    pdf.font('regular').fontSize(9).fillColor(INK).text(e.note, M.left, y, { width: WIDTH });
    y = pdf.y + 10;
  }
  // A credit note says what it cancels in a sentence of its own, above its lines (its BT-20 in the
  // XML): there is nothing to pay, so it is no payment term.
  if (ctx.creditNote && e.paymentTerms) {
    pdf.font('regular').fontSize(9).fillColor(INK).text(e.paymentTerms, M.left, y, { width: WIDTH });
    y = pdf.y + 10;
  }
  return y;
}

/** The largest size from `max` down to `min` (half points) at which `text` fits `width` on one line, in the current font. */
function fittedSize(pdf: Doc, text: string, width: number, max: number, min: number): number {
  for (let size = max; size > min; size -= 0.5) if (pdf.fontSize(size).widthOfString(text) <= width) return size;
  return min;
}

/**
 * Whether the invoice's days are the seller's own: its zone is one of the zones of the seller's
 * country, and every zone of that country is as far from UTC as it at the period's start and end
 * (Germany: Europe/Berlin and Europe/Busingen). Then the PDF names no zone; otherwise (a client's
 * zone, the UTC days of an older invoice, a country of several zones) it names it.
 */
function sellersDays(e: EInvoice): boolean {
  const country = e.seller.address.country;
  if (!country) return false;
  let zones: string[] | undefined;
  try {
    zones = (new Intl.Locale(`und-${country}`) as Intl.Locale & { timeZones?: string[] }).timeZones;
  } catch {
    return false;
  }
  if (!zones || zones.length === 0) return false;
  const zone = canonicalZone(e.period.timeZone);
  if (zone === null || !zones.some((z) => canonicalZone(z) === zone)) return false;
  const instants = [Date.parse(`${e.period.from}T12:00:00Z`), Date.parse(`${e.period.to}T12:00:00Z`)];
  return zones.every((z) => instants.every((at) => offsetAt(z, at) === offsetAt(zone, at)));
}

const canonicalZone = (zone: string): string | null => {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
};

/** A zone's offset from UTC at an instant, as Intl writes it ("GMT+01:00"). */
const offsetAt = (zone: string, at: number): string =>
  new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')
    ?.value ?? '';

interface Column {
  key: 'position' | 'description' | 'hours' | 'rate' | 'tax' | 'amount';
  width: number;
  align: 'left' | 'right';
}

/** Whether the invoice has manual lines (decisions §12): then quantities carry their units and the heads say quantity and price. */
const withUnits = (ctx: Context): boolean => ctx.e.lines.some((line) => line.manual);

function columnsOf(ctx: Context): Column[] {
  // The VAT column only when the lines differ in it; otherwise the breakdown says it once.
  const rates = new Set(ctx.e.lines.map((line) => `${line.category}/${line.rate}`));
  // As wide as the longest position needs ("1000" of a 1,000-line invoice on one line), at least 26.
  const longest = ctx.e.lines.reduce((widest, line) => (line.id.length > widest.length ? line.id : widest), '');
  const position = Math.max(26, Math.ceil(ctx.pdf.font('regular').fontSize(9).widthOfString(longest)) + 2 * PAD + 2);
  const fixed: Column[] = [
    { key: 'position', width: position, align: 'left' },
    // With manual lines each quantity says its unit ("2.50 h", "3 Stk."): a wider column.
    { key: 'hours', width: withUnits(ctx) ? 84 : 62, align: 'right' },
    { key: 'rate', width: 70, align: 'right' },
    ...(rates.size > 1 ? [{ key: 'tax', width: 48, align: 'right' } as Column] : []),
    { key: 'amount', width: 80, align: 'right' },
  ];
  const description: Column = { key: 'description', width: WIDTH - fixed.reduce((sum, c) => sum + c.width, 0), align: 'left' };
  return [fixed[0] as Column, description, ...fixed.slice(1)];
}

const PAD = 4;

function tableHeader(ctx: Context, columns: Column[], y: number): number {
  const { pdf, l } = ctx;
  const units = withUnits(ctx);
  const labels = {
    position: l.position,
    description: l.description,
    hours: units ? l.quantity : l.hours,
    rate: units ? l.unitPrice : l.rate,
    tax: l.tax,
    amount: l.amount,
  };
  pdf.rect(M.left, y, WIDTH, 18).fill(SHADE);
  let x = M.left;
  pdf.font('bold').fontSize(8).fillColor(MUTED);
  for (const c of columns) {
    pdf.text(labels[c.key], x + PAD, y + 5, { width: c.width - 2 * PAD, align: c.align, lineBreak: false });
    x += c.width;
  }
  return y + 18;
}

/**
 * The lines, breaking pages between rows, the header repeated on each page. The last row goes
 * over to the next page with the closing (totals, payment terms, bank details) when the closing
 * would not fit below it: the end of an invoice never stands on a page without a line of it.
 */
function linesTable(ctx: Context, start: number): number {
  const { pdf, e, f } = ctx;
  const columns = columnsOf(ctx);
  const closingAfter = closingHeight(ctx) + 12;
  let onPage = 0;
  const descWidth = (columns.find((c) => c.key === 'description') as Column).width - 2 * PAD;
  let y = tableHeader(ctx, columns, room(ctx, start, 18 + 24));
  // Each line's hours as exactly as it needs; all with as many places as the most exact one, so the column reads evenly.
  // A manual line's quantity is printed as it was given, with its unit; time's in hours ("h" beside manual lines).
  const exact = e.lines.map((line, n) =>
    line.manual ? line.quantity : printedHours(ctx.doc.lines[n]?.quantitySec ?? 0, line.quantity, line.price, line.net),
  );
  const timed = exact.filter((_, n) => !e.lines[n]?.manual);
  const places = Math.max(2, ...timed.map((h) => h.length - h.indexOf('.') - 1));
  const units = withUnits(ctx);
  const hours = exact.map((h, n) => {
    const line = e.lines[n] as (typeof e.lines)[number];
    if (line.manual) return `${f.decimal(h)} ${unitSymbol(line.unit, ctx.doc.language)}`;
    const padded = f.decimal(h.padEnd(h.indexOf('.') + 1 + places, '0'));
    return units ? `${padded} ${unitSymbol('HUR', ctx.doc.language)}` : padded;
  });
  e.lines.forEach((line, n) => {
    pdf.font('regular').fontSize(9);
    const height = pdf.heightOfString(line.name, { width: descWidth }) + 2 * PAD + 1;
    const last = n === e.lines.length - 1;
    const carried = last && onPage > 0 && y + height + closingAfter > ctx.limit && 18 + height + closingAfter <= pageRoom(ctx);
    if (y + height > ctx.limit || carried) {
      pdf.addPage();
      y = tableHeader(ctx, columns, continuation(ctx));
      onPage = 0;
    }
    onPage++;
    const cells = {
      position: line.id,
      description: line.name,
      hours: hours[n] as string,
      rate: f.price(line.price),
      tax: line.rate === null ? line.category : f.percent(line.rate),
      amount: f.money(line.net),
    };
    let x = M.left;
    pdf.font('regular').fontSize(9).fillColor(INK);
    for (const c of columns) {
      pdf.text(cells[c.key], x + PAD, y + PAD + 1.5, { width: c.width - 2 * PAD, align: c.align, lineBreak: c.key === 'description' });
      x += c.width;
    }
    y += height;
    pdf.moveTo(M.left, y).lineTo(RIGHT, y).lineWidth(0.4).strokeColor(RULE).stroke();
  });
  return y + 12;
}

/** A block of the invoice's end, measured before it is drawn: the closing is laid out as a whole (no page holds its tail alone). */
interface Piece {
  height: number;
  draw: (y: number) => void;
}

/**
 * Net, each VAT row, VAT total, total; paid and due for a paid invoice. An invoice that carries no
 * VAT at all because it is exempt (every row `E`: a small business under § 19 UStG, an exempt
 * service) shows its total alone: no net total and no "0 %" line, only the exemption sentence below.
 */
function totalsPiece(ctx: Context): Piece {
  const { pdf, e, l, f, doc } = ctx;
  const exempt = e.taxes.length > 0 && e.taxes.every((row) => row.category === 'E');
  const rows: Array<[string, string, boolean]> = exempt ? [] : [[l.netTotal, f.money(e.totals.lines), false]];
  if (e.taxes.length > 0) {
    if (!exempt)
      for (const row of e.taxes) {
        const name = row.category === 'S' ? l.category.S : (l.category[row.category] ?? row.category);
        const rate = row.category === 'O' ? '' : f.percent(row.rate);
        rows.push([l.taxOn(name, rate, f.money(row.basis)).replace(/\s+/g, ' '), f.money(row.tax), false]);
      }
    if (e.taxes.length > 1 && !exempt) rows.push([l.taxTotal, f.money(e.totals.tax), false]);
    rows.push([l.grossTotal, f.money(e.totals.grand), true]);
    const converted = doc.vatCurrency;
    // Not "€0.00 VAT in EUR" on an invoice without VAT (one issued before such invoices took no rate).
    if (converted && e.vatCurrency && doc.taxTotal !== 0) {
      // Art. 230 VAT Directive: the VAT also in the issuer's VAT currency, at the rate of the issue.
      const rate = `1 ${doc.currency} = ${f.decimal(decimalText(converted.exchangeRate))} ${converted.currency}`;
      rows.push([l.taxTotalIn(converted.currency, rate), formatsOf(l, converted.currency).money(e.vatCurrency.taxTotal), false]);
    }
  }
  // What was paid and what is still due: a paid invoice, and an issued one that took payments (issue 57).
  if (!ctx.creditNote && (doc.status === 'paid' || (doc.status === 'sent' && e.totals.prepaid !== '0.00'))) {
    rows.push([`${l.paid}${doc.status === 'paid' && doc.paidDate ? ` (${f.date(doc.paidDate)})` : ''}`, f.money(e.totals.prepaid), false]);
    rows.push([l.amountDue, f.money(e.totals.payable), true]);
  }
  const x = RIGHT - 300;
  const style = (strong: boolean) =>
    pdf
      .font(strong ? 'bold' : 'regular')
      .fontSize(strong ? 10.5 : 9)
      .fillColor(INK);
  const heights = rows.map(([label, value, strong]) => {
    style(strong);
    return (strong ? 4 : 0) + Math.max(pdf.heightOfString(label, { width: 200 }), pdf.heightOfString(value, { width: 100 })) + 3;
  });
  return {
    height: heights.reduce((sum, h) => sum + h, 0) + 10,
    draw: (start) => {
      let y = start;
      rows.forEach(([label, value, strong], n) => {
        if (strong) {
          pdf.moveTo(x, y).lineTo(RIGHT, y).lineWidth(0.8).strokeColor(INK).stroke();
          y += 4;
        }
        style(strong);
        pdf.text(label, x, y, { width: 200 });
        pdf.text(value, x + 200, y, { width: 100, align: 'right' });
        y += (heights[n] as number) - (strong ? 4 : 0);
      });
    },
  };
}

/** Why a row carries no VAT: the row's reason, else the category's standard wording; each sentence a piece. */
function exemptionPieces(ctx: Context): Piece[] {
  const { pdf, e, l } = ctx;
  const pieces: Piece[] = [];
  for (const row of e.taxes) {
    const reason = row.reason ?? l.exemption[row.category] ?? null;
    if (!reason || row.category === 'S' || row.category === 'Z') continue;
    const line = row.reasonCode ? `${reason} (${row.reasonCode})` : reason;
    pdf.font('regular').fontSize(9);
    pieces.push({
      height: pdf.heightOfString(line, { width: WIDTH }) + 4,
      draw: (y) => {
        pdf.font('regular').fontSize(9).fillColor(INK).text(line, M.left, y, { width: WIDTH });
      },
    });
  }
  // The space below the last sentence.
  if (pieces.length > 0) (pieces.at(-1) as Piece).height += 6;
  return pieces;
}

/** A small capitals heading (PAYMENT TERMS, BANK DETAILS): its height with the gap below it. */
function heading(pdf: Doc, label: string): { height: number; draw: (y: number) => void } {
  const text = label.toUpperCase();
  pdf.font('bold').fontSize(8);
  return {
    height: pdf.heightOfString(text, { width: WIDTH, characterSpacing: 0.6 }) + 2,
    draw: (y) => {
      pdf.font('bold').fontSize(8).fillColor(MUTED).text(text, M.left, y, { width: WIDTH, characterSpacing: 0.6 });
    },
  };
}

/**
 * Payment terms, then the bank details, as one piece: the bank details never stand on a page of
 * their own. Neither on a credit note (it says what it cancels above its lines; nothing is to be
 * paid to the issuer).
 */
function paymentPiece(ctx: Context): Piece | null {
  const { pdf, e, l, doc } = ctx;
  if (ctx.creditNote) return null;
  const parts: Piece[] = [];
  const terms = e.paymentTerms;
  if (terms) {
    const head = heading(pdf, l.paymentTerms);
    pdf.font('regular').fontSize(9);
    const body = pdf.heightOfString(terms, { width: WIDTH });
    parts.push({
      height: head.height + body + 10,
      draw: (y) => {
        head.draw(y);
        pdf
          .font('regular')
          .fontSize(9)
          .fillColor(INK)
          .text(terms, M.left, y + head.height, { width: WIDTH });
      },
    });
  }
  if (e.payment) {
    const bank: Array<[string, string | null]> = [
      [l.accountHolder, e.payment.accountName],
      [l.bank, text(doc.issuer?.bankName)],
      [l.iban, e.payment.iban.replace(/(.{4})(?=.)/g, '$1 ')],
      [l.bic, e.payment.bic],
      [l.reference, ctx.draft ? null : e.payment.reference],
    ];
    const shown = bank.filter((row): row is [string, string] => Boolean(row[1]));
    const head = heading(pdf, l.bankDetails);
    pdf.font('regular').fontSize(9);
    const heights = shown.map(
      ([label, value]) => Math.max(pdf.heightOfString(label, { width: 110 }), pdf.heightOfString(value, { width: WIDTH - 110 })) + 1,
    );
    parts.push({
      height: head.height + heights.reduce((sum, h) => sum + h, 0),
      draw: (start) => {
        head.draw(start);
        let y = start + head.height;
        shown.forEach(([label, value], n) => {
          pdf.font('regular').fontSize(9).fillColor(MUTED).text(label, M.left, y, { width: 110 });
          pdf.fillColor(INK).text(value, M.left + 110, y, { width: WIDTH - 110 });
          y += heights[n] as number;
        });
      },
    });
  }
  if (parts.length === 0) return null;
  return {
    height: parts.reduce((sum, p) => sum + p.height, 0),
    draw: (start) => {
      let y = start;
      for (const part of parts) {
        part.draw(y);
        y += part.height;
      }
    },
  };
}

/** The invoice's end below its lines: totals, exemption sentences, payment terms and bank details. */
function closingPieces(ctx: Context): Piece[] {
  const payment = paymentPiece(ctx);
  return [totalsPiece(ctx), ...exemptionPieces(ctx), ...(payment ? [payment] : [])];
}

/** How tall the closing is, drawn as a whole. */
function closingHeight(ctx: Context): number {
  return closingPieces(ctx).reduce((sum, p) => sum + p.height, 0);
}

/** The room a following page has below its continuation head. */
function pageRoom(ctx: Context): number {
  return ctx.limit - (M.top + 30);
}

/**
 * The closing, kept together: on the page of the last lines when it fits there (the lines'
 * table carries its last row over with it when it would not: linesTable), else on the next page
 * as a whole; only a closing taller than a page breaks, between its pieces.
 */
function closing(ctx: Context, start: number): number {
  const pieces = closingPieces(ctx);
  const height = pieces.reduce((sum, p) => sum + p.height, 0);
  let y = height <= pageRoom(ctx) ? room(ctx, start, height) : start;
  for (const piece of pieces) {
    y = room(ctx, y, piece.height);
    piece.draw(y);
    y += piece.height;
  }
  return y;
}

/**
 * The footer's text and where its rule sits: the issuer's legal name, seat, register court and
 * entry, managing directors (§ 35a GmbHG), VAT ID and tax number (§ 14 Abs. 4 UStG: all of them,
 * on an invoice not subject to VAT too, where the XML may not carry the VAT ID), then the issuer's
 * own footer; both wrap over as many lines as they need, and the body ends above them.
 */
function footerOf(pdf: Doc, doc: InvoiceDocument, l: Labels): Footer {
  const issuer = doc.issuer;
  const vatId = text(issuer?.vatId);
  const taxNumber = text(issuer?.taxNumber) ?? text(issuer?.taxId);
  const registration = text(issuer?.registrationNumber);
  const court = text(issuer?.registerCourt);
  const seat = text(issuer?.seat);
  const directors = text(issuer?.managingDirectors);
  // Each number stays whole on its line (no-break spaces inside it), and so does each part that is
  // shorter than most of a line: lines break between the parts.
  const whole = (part: string) => part.replace(/ /g, '\u00a0');
  pdf.font('regular').fontSize(7.5);
  const kept = (part: string) => (pdf.widthOfString(part) <= FOOTER_WIDTH * 0.6 ? whole(part) : part);
  // A company's legal lines (§ 35a GmbHG, § 80 AktG, § 37a HGB): its seat, the register court with
  // the number ("Amtsgericht Charlottenburg HRB 245678": the court names the register), its managing
  // directors; then the tax identifiers of § 14 Abs. 4 UStG.
  const register = registration ? (court ? kept(`${court} ${whole(registration)}`) : whole(`${l.registration} ${registration}`)) : null;
  const identity = [
    text(issuer?.legalName),
    seat ? kept(`${l.seat}: ${seat}`) : null,
    register,
    directors ? kept(`${l.managingDirectors}: ${directors}`) : null,
    vatId ? whole(`${l.vatId} ${vatId}`) : null,
    taxNumber ? whole(`${l.taxNumber} ${taxNumber}`) : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const custom = text(issuer?.invoiceFooter);
  const height =
    6 +
    (identity ? pdf.heightOfString(identity, { width: FOOTER_WIDTH }) : 0) +
    (custom ? 3 + pdf.heightOfString(custom, { width: FOOTER_WIDTH }) : 0);
  return { identity, custom, rule: Math.min(FOOTER_RULE, A4.height - FOOTER_BOTTOM - height) };
}

/** On every page: the issuer's legal lines and "Page n of m"; a draft's pages also say DRAFT across. */
function footers(ctx: Context): void {
  const { pdf, l, footer } = ctx;
  const range = pdf.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i);
    // Writing below the bottom margin would make pdfkit start a new page: lift it while the footer is written.
    pdf.page.margins.bottom = 0;
    const y = footer.rule;
    pdf.moveTo(M.left, y).lineTo(RIGHT, y).lineWidth(0.5).strokeColor(RULE).stroke();
    pdf.font('regular').fontSize(7.5).fillColor(MUTED);
    let at = y + 6;
    if (footer.identity) {
      pdf.text(footer.identity, M.left, at, { width: FOOTER_WIDTH });
      at = pdf.y + 3;
    }
    if (footer.custom) pdf.text(footer.custom, M.left, at, { width: FOOTER_WIDTH });
    pdf.text(l.page(i - range.start + 1, range.count), RIGHT - 90, y + 6, { width: 90, align: 'right', lineBreak: false });
    if (ctx.draft) {
      pdf.save();
      pdf.rotate(-35, { origin: [A4.width / 2, A4.height / 2] });
      pdf.font('bold').fontSize(96).fillColor('#b42318').fillOpacity(0.08);
      pdf.text(l.draft, 0, A4.height / 2 - 50, { width: A4.width, align: 'center', lineBreak: false });
      pdf.restore();
    }
    pdf.page.margins.bottom = M.bottom;
  }
}

/** The Factur-X part: the CII (EN 16931 profile) as factur-x.xml and the XMP that declares it. */
function attachFacturX(pdf: Doc, e: EInvoice, created: Date): void {
  const xml = Buffer.from(ciiOf(e, 'factur-x'), 'utf8');
  pdf.file(xml, {
    name: 'factur-x.xml',
    type: 'text/xml',
    description: 'Factur-X/ZUGFeRD invoice (EN 16931)',
    relationship: 'Alternative',
    creationDate: created,
    modifiedDate: created,
  } as PDFKit.Mixins.PDFAttachmentOptions);
  pdf.appendXML(FACTUR_X_XMP);
}

const property = (name: string, description: string) => `
            <rdf:li rdf:parseType="Resource">
              <pdfaProperty:name>${name}</pdfaProperty:name>
              <pdfaProperty:valueType>Text</pdfaProperty:valueType>
              <pdfaProperty:category>external</pdfaProperty:category>
              <pdfaProperty:description>${description}</pdfaProperty:description>
            </rdf:li>`;

const FACTUR_X_XMP = `
        <rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
            <fx:DocumentType>INVOICE</fx:DocumentType>
            <fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
            <fx:Version>1.0</fx:Version>
            <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
        </rdf:Description>
        <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
          <pdfaExtension:schemas>
            <rdf:Bag>
              <rdf:li rdf:parseType="Resource">
                <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
                <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
                <pdfaSchema:prefix>fx</pdfaSchema:prefix>
                <pdfaSchema:property>
                  <rdf:Seq>${property('DocumentFileName', 'The name of the embedded XML document')}${property(
                    'DocumentType',
                    'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER',
                  )}${property('Version', 'The actual version of the standard applying to the embedded XML document')}${property(
                    'ConformanceLevel',
                    'The conformance level of the embedded XML document',
                  )}
                  </rdf:Seq>
                </pdfaSchema:property>
              </rdf:li>
            </rdf:Bag>
          </pdfaExtension:schemas>
        </rdf:Description>`;
