import { headerLine } from '../../kernel/input.js';
import { invoiceMailHtml } from './mail-html.js';
import type { InvoiceDocument } from './document.js';
import { formatsOf, labelsOf } from './documents/labels.js';

/*
 * The words of a payment reminder (issue 57 item 3), in the invoice's language. The dates and
 * amounts are written by the invoice's label set (documents/labels.ts: `fr` and `nl` write theirs
 * once those sets exist); the sentences live here, beside the invoice mail's own (mailing.ts),
 * and not in the label sets: a reminder is mail, not a document, and a required key added to
 * `Labels` would break every label set another branch adds. A language without reminder words
 * yet gets the English ones, its dates and amounts still in its own formats.
 */

/** What a reminder says of its invoice: which level, how late, what is still due. */
export interface ReminderFacts {
  level: number;
  daysOverdue: number;
  amountDue: number;
  issuerName: string;
  /** The attached e-invoice's file name, or null for the PDF alone. */
  xmlFile: string | null;
}

interface ReminderWords {
  title: (level: number) => string;
  greeting: string;
  opening: (number: string, issued: string, gross: string, due: string, open: string) => string;
  attached: (xmlFile: string | null) => string;
  paid: string;
  facts: { number: string; date: string; due: string; total: string; paid: string; open: string; late: string };
  days: (n: number) => string;
  closing: string;
}

const ORDINAL_EN = ['', '', 'Second', 'Third'];
const WORDS: Record<'en' | 'de', ReminderWords> = {
  en: {
    title: (level) => (level === 1 ? 'Payment reminder' : `${ORDINAL_EN[level] ?? `${level}th`} payment reminder`),
    greeting: 'Hello,',
    opening: (number, issued, gross, due, open) =>
      `according to our records, invoice ${number} of ${issued} for ${gross} was due on ${due}, and ${open} of it is still open. Please transfer the amount still open.`,
    attached: (xml) =>
      xml === null
        ? 'The invoice is attached again as a PDF.'
        : `The invoice is attached again: the PDF, and ${xml} as an e-invoice for your accounting system.`,
    paid: 'If you have paid in the meantime, thank you, and please disregard this reminder.',
    facts: {
      number: 'Invoice number',
      date: 'Invoice date',
      due: 'Due date',
      total: 'Total',
      paid: 'Paid so far',
      open: 'Amount due',
      late: 'Overdue by',
    },
    days: (n) => `${n} ${n === 1 ? 'day' : 'days'}`,
    closing: 'Kind regards',
  },
  de: {
    // Zahlungserinnerung, then 1. Mahnung, 2. Mahnung, as German invoices are reminded.
    title: (level) => (level === 1 ? 'Zahlungserinnerung' : `${level - 1}. Mahnung`),
    greeting: 'Guten Tag,',
    opening: (number, issued, gross, due, open) =>
      `nach unseren Unterlagen war die Rechnung ${number} vom ${issued} über ${gross} am ${due} fällig; davon sind noch ${open} offen. Bitte überweisen Sie den offenen Betrag.`,
    attached: (xml) =>
      xml === null
        ? 'Die Rechnung finden Sie erneut als PDF-Datei im Anhang.'
        : `Die Rechnung finden Sie erneut im Anhang: als PDF-Datei und als E-Rechnung ${xml} für Ihre Buchhaltung.`,
    paid: 'Sollten Sie inzwischen bezahlt haben, danken wir Ihnen; betrachten Sie diese Erinnerung dann bitte als gegenstandslos.',
    facts: {
      number: 'Rechnungsnummer',
      date: 'Rechnungsdatum',
      due: 'Fällig am',
      total: 'Gesamtbetrag',
      paid: 'Bereits bezahlt',
      open: 'Offener Betrag',
      late: 'Überfällig seit',
    },
    days: (n) => `${n} ${n === 1 ? 'Tag' : 'Tagen'}`,
    closing: 'Mit freundlichen Grüßen',
  },
};

/** The reminder's words for a language (English where none exist yet). */
const wordsOf = (language: string): ReminderWords => WORDS[language as 'en' | 'de'] ?? WORDS.en;

/** A reminder's subject, plain text and HTML, in the invoice's language. */
export function composeReminder(invoice: InvoiceDocument, facts: ReminderFacts): { subject: string; text: string; html: string } {
  const w = wordsOf(invoice.language);
  const f = formatsOf(labelsOf(invoice.language), invoice.currency);
  const number = invoice.number ?? '';
  const issued = invoice.issueDate ? f.date(invoice.issueDate) : '';
  const due = invoice.dueDate ? f.date(invoice.dueDate) : '';
  const gross = f.money(invoice.grossTotal);
  const open = f.money(facts.amountDue);
  const paidSoFar = Math.round((invoice.grossTotal - facts.amountDue) * 100) / 100;
  const rows: Array<[string, string]> = [
    [w.facts.number, number],
    [w.facts.date, issued],
    [w.facts.due, due],
    [w.facts.total, gross],
    ...(paidSoFar > 0 ? [[w.facts.paid, f.money(paidSoFar)] as [string, string]] : []),
    [w.facts.open, open],
    [w.facts.late, w.days(facts.daysOverdue)],
  ];
  const title = w.title(facts.level);
  const subject = headerLine(`${title}: ${invoice.language === 'de' ? 'Rechnung' : 'invoice'} ${number} – ${facts.issuerName}`);
  const paragraphs = [w.greeting, w.opening(number, issued, gross, due, open), w.attached(facts.xmlFile), w.paid];
  const closing = `${w.closing}\n${facts.issuerName}`;
  const text = `${title}\n\n${paragraphs.join('\n\n')}\n\n${rows.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${closing}\n`;
  const html = invoiceMailHtml({ language: invoice.language, subject, title, paragraphs, facts: rows, closing });
  return { subject, text, html };
}
