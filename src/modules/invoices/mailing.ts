import { newId } from '../../ids.js';
import { toIso } from '../../kernel/time.js';
import { isOperator, type Principal } from '../../principal.js';
import { DomainError } from '../../errors.js';
import { words } from '../../i18n/index.js';
import type { DomainWrite } from '../events/service.js';
import type { Access } from './access.js';
import type { DocumentLanguage, InvoiceDocument } from './document.js';
import { DOCUMENT_FORMATS, type DocumentFormat, documentFileName, documentMediaType, documentRefusal } from './documents/index.js';
import { FORMAT_NAMES, formatsOf, labelsOf } from './documents/labels.js';
import { invoiceErrors as errors } from './errors.js';
import type { DocumentRenderer, InvoiceMessage, InvoicePorts } from './ports.js';
import type { InvoiceSendRow, InvoicesRepository } from './repository.js';
import { handOut } from './publishing.js';
import { documentSource, view } from './views.js';
import { invoiceMailHtml } from './mail-html.js';
import { headerLine } from '../../kernel/input.js';

/** The most a personal message beside the invoice may hold. */
export const MAX_SEND_MESSAGE = 2000;
/** The most a greeting may hold (one line). */
export const MAX_SEND_GREETING = 200;

/** Which document of an invoice a mail carries: the invoice (sent or paid), or the credit note of one voided after issuing. */
export type MailedDocument = 'invoice' | 'credit-note';

/** What an owner sends: to whom, which XML beside the PDF (or none), the greeting and a short message. */
export interface SendRequest {
  to: string;
  /** The e-invoice XML attached beside the PDF, or null for the PDF alone. */
  xml: DocumentFormat | null;
  message: string | null;
  /** The mail's first line; undefined: the language's own ("Hello," / "Guten Tag,"); blank: none. */
  greeting?: string | null;
  /** The member who sends: required of the operator (the command line); a member's principal sends as itself. */
  userId?: string;
  /** Attach the receipts of the invoice's expenses after its documents (issue 57); refused when it has none, or they do not fit in one mail. */
  withReceipts?: boolean;
}

/** What a send answers: the record's id, the mail message's, where it goes and what it carries. */
export interface SendResult {
  id: string;
  messageId: string;
  address: string;
  document: MailedDocument;
  files: string[];
}

/** A recorded send, as the invoice page and `invoice show --json` show it. */
export interface InvoiceSendView {
  id: string;
  /** When it was queued (ISO 8601, UTC). */
  at: string;
  document: MailedDocument;
  to: string;
  /** The attached files, the PDF first. */
  files: string[];
  by: { userId: string; name: string | null };
  /** The mail message (the Mail page's and `mail list`'s id). */
  mailId: string;
  /** Where that message stands now: queued, sent (the relay took it), failed, cancelled; null once the mail log no longer holds it (30 days). */
  delivery: 'queued' | 'sent' | 'failed' | 'cancelled' | null;
}

/** The whole mail as the Send form shows it before sending: headers, the paragraphs around the message, the facts. */
export interface MailOutline {
  /** Whether mail is set up on this server (else the form is not offered). */
  enabled: boolean;
  document: MailedDocument;
  /** The From header: the issuer's name and the server's own address (MAIL_FROM's). */
  from: { name: string; address: string | null };
  /** Where a reply goes: the issuer's email, or null (to the From address). */
  replyTo: string | null;
  /** The address prefilled: the recipient's email as the invoice stores it. */
  to: string;
  subject: string;
  /** The greeting prefilled (the language's), which the sender may change or clear. */
  greeting: string;
  /** The paragraph after the greeting (as it reads under a greeting; capitalised when there is none). */
  opening: string;
  /** The paragraph that names the attachments, by the XML chosen (`none`: the PDF alone). */
  files: Record<string, string | null>;
  /** The e-invoice formats that can be attached (ready), in the form's order. */
  ready: DocumentFormat[];
  facts: Array<[string, string]>;
  closing: string;
  /**
   * The receipts of the invoice's expenses that `withReceipts` would attach: how many and their
   * bytes together, beside the most a mail carries; null when there is none (or the credit note is mailed).
   */
  receipts: { count: number; bytes: number; limit: number } | null;
}

/** The mailed document's number, and whether the credit note is meant. */
const mailedOf = (invoice: InvoiceDocument): MailedDocument | null =>
  invoice.status === 'sent' || invoice.status === 'paid'
    ? 'invoice'
    : invoice.status === 'void' && invoice.creditNote
      ? 'credit-note'
      : null;

/** Every rule of a send that needs no document (part of createSending): who, which invoice, the address, the greeting, the message, the documents' readiness. */
function createSendCheck({ ports, access }: { ports: InvoicePorts; access: Access }) {
  const { findInvoice, requireOwner, actingMember } = access;

  /** The greeting as it will be written: the language's by default, none when blank; one line, bounded. */
  function greetingOf(invoice: InvoiceDocument, given: string | null | undefined): string | null {
    if (given === undefined) return defaultGreeting(invoice);
    const text = (given ?? '').trim();
    if (text === '') return null;
    if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(text) || text.length > MAX_SEND_GREETING)
      throw new DomainError(
        'invalid',
        `The greeting is one line of at most ${MAX_SEND_GREETING} characters (it has ${text.length}${/[\p{Cc}\p{Zl}\p{Zp}]/u.test(text) ? ' and a line break' : ''}): shorten it, or leave it empty for none.`,
        { field: 'greeting', words: words('invoicing.refused.mailing.greeting', { max: MAX_SEND_GREETING }) },
      );
    return text;
  }

  /** Every rule of a send that needs no document: who, which invoice, the address, the greeting, the message, the documents' readiness. */
  function check(principal: Principal, id: string, request: SendRequest) {
    const row = findInvoice(principal, id);
    requireOwner(principal, row.workspaceId, 'send invoices', () => errors.notFound(id));
    const acting = actingMember(principal, row.workspaceId, request.userId);
    if (!ports.mail.enabled())
      throw new DomainError('invalid', 'Mail is not set up on this server: the operator sets SMTP_URL and MAIL_FROM and restarts it.', {
        words: words('invoicing.refused.mailing.notSetUp'),
      });
    const invoice = view(row);
    const document = mailedOf(invoice);
    if (document === null)
      throw invoice.status === 'draft'
        ? new DomainError(
            'conflict',
            `Invoice ${id} is a draft: issue it first (it then gets its number); only an issued invoice is sent by mail.`,
            {
              words: words('invoicing.refused.mailing.draft'),
            },
          )
        : new DomainError('conflict', `Invoice ${id} is a void draft: it was never issued, so there is nothing to send.`, {
            words: words('invoicing.refused.mailing.voidDraft'),
          });
    const to = request.to.trim();
    if (to === '')
      throw new DomainError(
        'invalid',
        "Type the address to send the invoice to. The recipient's email is prefilled when the invoice has one; for the next invoices, set the client's Email in Catalog › the client › Invoicing details.",
        { field: 'to', words: words('invoicing.refused.mailing.noAddress') },
      );
    if (!ports.mail.deliverable(to))
      throw new DomainError(
        'invalid',
        `${to} cannot receive mail from here: type one address such as billing@example.org (no name, comma, quote or space).`,
        { field: 'to', words: words('invoicing.refused.mailing.undeliverable', { to }) },
      );
    const greeting = greetingOf(invoice, request.greeting);
    const message = request.message === null || request.message.trim() === '' ? null : request.message.trim();
    if (message !== null && message.length > MAX_SEND_MESSAGE)
      throw new DomainError(
        'invalid',
        `The message may be at most ${MAX_SEND_MESSAGE} characters (it has ${message.length}): shorten it.`,
        { field: 'message', words: words('invoicing.refused.mailing.message', { max: MAX_SEND_MESSAGE, length: message.length }) },
      );
    const creditNote = document === 'credit-note';
    const what = creditNote ? 'credit note' : 'invoice';
    const whatKey = creditNote ? 'invoicing.refused.mailing.what.creditNote' : 'invoicing.refused.mailing.what.invoice';
    if (request.xml !== null) {
      if (request.xml === 'pdf' || !DOCUMENT_FORMATS.includes(request.xml))
        throw new DomainError(
          'invalid',
          `Choose the e-invoice to attach beside the PDF: ${DOCUMENT_FORMATS.filter((f) => f !== 'pdf').join(', ')}, or none (got ${JSON.stringify(request.xml)}).`,
          {
            field: 'xml',
            words: words('invoicing.refused.mailing.xml', { formats: DOCUMENT_FORMATS.filter((f) => f !== 'pdf').join(', ') }),
          },
        );
      const refused = documentRefusal(invoice, request.xml, { creditNote });
      if (refused)
        throw new DomainError(
          'invalid',
          refused.missing.length > 0
            ? `${request.xml} cannot be made for this ${what} yet: it lacks ${refused.missing.map((m) => `${m.label} (${m.bt})`).join(', ')}. Fill them on this page, or attach another format or none.`
            : `${request.xml} cannot be made for this ${what}: ${refused.message} Attach another format or none.`,
          {
            field: 'xml',
            words:
              refused.missing.length > 0
                ? words('invoicing.refused.mailing.xmlLacks', { format: request.xml, what: whatKey, count: refused.missing.length })
                : words('invoicing.refused.mailing.xmlMix', { format: request.xml, what: whatKey }),
          },
        );
    }
    const pdf = documentRefusal(invoice, 'pdf', { creditNote });
    if (pdf)
      throw new DomainError('invalid', `The PDF cannot be made, so nothing is sent: ${pdf.message}`, {
        words:
          pdf.missing.length > 0
            ? words('invoicing.refused.mailing.pdfLacks', { count: pdf.missing.length })
            : words('invoicing.refused.mailing.pdfMix'),
      });
    const formats: DocumentFormat[] = request.xml === null ? ['pdf'] : ['pdf', request.xml];
    return { invoice, acting, document, creditNote, to, greeting, message, formats };
  }

  return check;
}

/** A recorded send as it is shown, with where its message stands now. */
const sendView = (ports: InvoicePorts, row: InvoiceSendRow, names: Map<string, string>): InvoiceSendView => ({
  id: row.id,
  at: toIso(row.createdAt),
  document: row.document === 'credit_note' ? 'credit-note' : 'invoice',
  to: row.recipient,
  files: JSON.parse(row.files) as string[],
  by: { userId: row.sentBy, name: names.get(row.sentBy) ?? null },
  mailId: row.mailId,
  delivery: ports.mail.delivery(row.mailId)?.status ?? null,
});

/**
 * Sending an issued invoice, or the credit note of one voided after issuing, by mail (part of the
 * invoices service; issue 38, issue 45 items 6 and 12): owners only, as issuing. The one send
 * path of the pages and the command line: every rule is checked before a document is made, the
 * PDF and at most one ready e-invoice XML are made through the render port (the document threads
 * in the server), then one write checks again, queues the message through the mail port (sent by
 * the mail module's sender after the commit) and records the send (when, to whom, which files,
 * by whom). The mail's From display name is the issuer's name and its Reply-To the issuer's
 * email; the From address stays the server's own (MAIL_FROM), which its relay may send as.
 */
export function createSending({
  repo,
  ports,
  write,
  access,
  render,
  clock,
}: {
  repo: InvoicesRepository;
  ports: InvoicePorts;
  write: DomainWrite;
  access: Access;
  render: DocumentRenderer;
  clock: { now(): number };
}) {
  const { findInvoice, requireOwner } = access;
  const check = createSendCheck({ ports, access });

  return {
    /**
     * The whole mail the Send form shows before anything is sent (owners): its headers, the
     * greeting, the paragraphs around the message and the facts, for each XML that is ready. null
     * for an invoice that is not sent by mail (a draft; a draft voided).
     */
    mailOutline(principal: Principal, id: string): MailOutline | null {
      const row = findInvoice(principal, id);
      requireOwner(principal, row.workspaceId, 'send invoices', () => errors.notFound(id));
      const invoice = view(row);
      const document = mailedOf(invoice);
      if (document === null) return null;
      const creditNote = document === 'credit-note';
      const ready = DOCUMENT_FORMATS.filter((f) => f !== 'pdf' && documentRefusal(invoice, f, { creditNote }) === null);
      const issuerName = issuerNameOf(invoice, ports.workspaceName(invoice.workspaceId));
      const composed = (xml: DocumentFormat | null) =>
        composeMail(invoice, { issuerName, document, xml, greeting: defaultGreeting(invoice), message: null });
      const first = composed(null);
      const sizes = creditNote ? [] : (ports.expenses?.receiptSizes?.(invoice.id) ?? []);
      return {
        enabled: ports.mail.enabled(),
        document,
        from: { name: issuerName, address: ports.mail.senderAddress() },
        replyTo: replyToOf(invoice, ports)?.address ?? null,
        to: invoice.recipient?.email ?? '',
        subject: first.subject,
        greeting: first.greeting ?? '',
        opening: first.opening,
        files: Object.fromEntries([...ready.map((f) => [f, composed(f).files] as const), ['none', null] as const]),
        ready,
        facts: first.facts,
        closing: first.closing,
        receipts:
          sizes.length === 0
            ? null
            : { count: sizes.length, bytes: sizes.reduce((sum, n) => sum + n, 0), limit: ports.mail.maxAttachmentBytes() },
      };
    },

    /** The invoice's sends by mail, oldest first (whoever reads the invoice). */
    sends(principal: Principal, id: string): InvoiceSendView[] {
      findInvoice(principal, id);
      const rows = repo.sends(id);
      const names = new Map(ports.userNames([...new Set(rows.map((r) => r.sentBy))]).map((u) => [u.id, u.name]));
      return rows.map((row) => sendView(ports, row, names));
    },

    /**
     * Sends the invoice (sent or paid), or the credit note of a void one, to `to`: subject, text
     * and HTML in the invoice's language, the PDF and the XML asked for (named as their downloads
     * are), From the issuer's name at the server's address, Reply-To the issuer's email. Checked
     * first; the documents made through the render port; then one write checks again, queues the
     * message and records the send. Refusals name their field (to, xml, greeting, message).
     */
    async send(principal: Principal, id: string, request: SendRequest): Promise<SendResult> {
      const checked = check(principal, id, request);
      // The documents carry the early-payment discount it was issued with (not in the view); the write below checks nothing changed.
      const stored = repo.invoice(id);
      const sourceOf = (invoice: InvoiceDocument) => (stored ? documentSource(stored, invoice) : invoice);
      // The documents, one after the other (the second would only wait for the first's thread).
      const made: Array<{ format: DocumentFormat; bytes: Buffer }> = [];
      for (const format of checked.formats)
        made.push({ format, bytes: await render(sourceOf(checked.invoice), format, { creditNote: checked.creditNote }) });
      return write(() => {
        // Again inside the write: the invoice may have moved (voided, say) while its documents were made.
        const { invoice, acting, document, creditNote, to, greeting, message } = check(principal, id, request);
        if (document !== checked.document) throw errors.conflict(`Invoice ${id} changed while its documents were made: send it again.`);
        // The mail budget (issue 44 M5): once per send, inside this write, before the message is queued.
        ports.mail.spend({ kind: 'invoice', userId: isOperator(principal) ? null : principal.userId, workspaceId: invoice.workspaceId });
        const issuerName = issuerNameOf(invoice, ports.workspaceName(invoice.workspaceId));
        const xml = made.find((m) => m.format !== 'pdf')?.format ?? null;
        const composed = composeMail(invoice, { issuerName, document, xml, greeting, message });
        const files = [
          ...made.map((m) => ({
            name: documentFileName(invoice, m.format, { creditNote }),
            type: documentMediaType(m.format),
            bytes: m.bytes,
          })),
          ...(request.withReceipts
            ? receiptFiles(
                ports,
                invoice.id,
                made.map((m) => m.bytes.length),
              )
            : []),
        ];
        const messageId = queueToClient(ports, invoice, { kind: 'invoice', to, composed, attachments: files, issuerName });
        // The documents made are handed out with this write: the fills they carry are fixed from now on (decisions 14).
        handOut(repo, clock, id, checked.invoice, 'send it again');
        const sendId = newId('isnd');
        repo.insertSend({
          id: sendId,
          workspaceId: invoice.workspaceId,
          invoiceId: invoice.id,
          document: creditNote ? 'credit_note' : 'invoice',
          recipient: to,
          files: JSON.stringify(files.map((f) => f.name)),
          mailId: messageId,
          sentBy: acting.userId,
          createdAt: clock.now(),
        });
        // The invoice itself does not change (decisions §11: after issuing, only status, paid date and fills do).
        return { id: sendId, messageId, address: to, document, files: files.map((f) => f.name) };
      });
    },
  };
}

/**
 * The receipts of an invoice's expenses as attachments after its documents (issue 57), each with
 * its file name (made unique with a number, as a mail program would show two of one name) and its
 * media type. Refused when the invoice has no receipt, and when they do not fit beside the
 * documents within the mail's limit on attachments: nothing is sent then, and the refusal says
 * what to do (send without them; the receipts stay downloadable on the Expenses page).
 */
function receiptFiles(ports: InvoicePorts, invoiceId: string, documents: number[]): Array<{ name: string; type: string; bytes: Buffer }> {
  const receipts = ports.expenses?.receiptsOf?.(invoiceId) ?? [];
  if (receipts.length === 0)
    throw new DomainError('invalid', 'This invoice has no expense with a receipt: there is nothing to attach. Send it without receipts.', {
      field: 'withReceipts',
      words: words('invoices.send.noReceipts'),
    });
  const limit = ports.mail.maxAttachmentBytes();
  const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;
  const own = documents.reduce((sum, n) => sum + n, 0);
  const theirs = receipts.reduce((sum, r) => sum + r.bytes.length, 0);
  if (own + theirs > limit)
    throw new DomainError(
      'invalid',
      `The ${receipts.length} receipt${receipts.length === 1 ? '' : 's'} (${mb(theirs)}) and the invoice's documents (${mb(own)}) come to ${mb(own + theirs)}; one mail carries at most ${mb(limit)} of attachments. Send the invoice without its receipts, and the receipts from the Expenses page, or scan them smaller.`,
      {
        field: 'withReceipts',
        words: words('invoices.send.receiptsTooLarge', {
          count: receipts.length,
          receipts: megabytes(theirs),
          documents: megabytes(own),
          total: megabytes(own + theirs),
          limit: megabytes(limit),
        }),
      },
    );
  const taken = new Set<string>();
  return receipts.map((r) => {
    let name = r.fileName;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = r.fileName.replace(/(\.[^.]*)?$/, ` (${n})$1`);
    taken.add(name.toLowerCase());
    return { name, type: r.mediaType, bytes: r.bytes };
  });
}

/** Bytes as megabytes to one decimal (a page writes them in its reader's number format). */
export const megabytes = (bytes: number): number => Math.round(bytes / 104_857.6) / 10;

/** The From display name: the issuer's legal name as one header line (a value stored before issue 54 may hold a bidirectional control). */
export const issuerNameOf = (invoice: InvoiceDocument, workspaceName: string | null): string =>
  oneLine(invoice.issuer?.legalName ?? '') || workspaceName || 'timetrack';

/**
 * A mail about an invoice queued to its client (the invoice's own mail, a payment reminder): to
 * the recipient's legal name, from the issuer's name, replies to the issuer's email.
 */
export const queueToClient = (
  ports: InvoicePorts,
  invoice: InvoiceDocument,
  mail: {
    kind: string;
    to: string;
    composed: { subject: string; text: string; html: string };
    attachments: InvoiceMessage['attachments'];
    issuerName: string;
  },
): string =>
  ports.mail.queue({
    kind: mail.kind,
    to: { address: mail.to, name: invoice.recipient?.legalName ?? invoice.recipient?.name ?? null },
    workspaceId: invoice.workspaceId,
    userId: null,
    subject: mail.composed.subject,
    text: mail.composed.text,
    html: mail.composed.html,
    attachments: mail.attachments,
    fromName: mail.issuerName,
    replyTo: replyToOf(invoice, ports),
  });

/** Reply-To: the issuer's email as the invoice stores it, when mail can be addressed to it. */
export const replyToOf = (invoice: InvoiceDocument, ports: InvoicePorts): { address: string; name: string | null } | null => {
  const address = (invoice.issuer?.email ?? '').trim();
  return address !== '' && ports.mail.deliverable(address) ? { address, name: oneLine(invoice.issuer?.legalName ?? '') || null } : null;
};

const defaultGreeting = (invoice: InvoiceDocument): string => MAIL_WORDS[invoice.language].greeting;

/** Header text (the Subject, the From name): no control character may end its header, no bidirectional control turn it around (issue 54 N4). */
const oneLine = headerLine;

const capitalised = (text: string): string => text.charAt(0).toLocaleUpperCase() + text.slice(1);

/**
 * The mail of an invoice or its credit note in the invoice's language: the subject, the parts the
 * Send form shows (greeting, opening, message, the files' sentence, the facts, the closing), and
 * the same paragraphs as plain text and as HTML.
 */
export function composeMail(
  invoice: InvoiceDocument,
  parts: { issuerName: string; document: MailedDocument; xml: DocumentFormat | null; greeting: string | null; message: string | null },
): {
  subject: string;
  greeting: string | null;
  opening: string;
  files: string | null;
  facts: Array<[string, string]>;
  closing: string;
  text: string;
  html: string;
} {
  const { issuerName, xml, greeting, message } = parts;
  const w = MAIL_WORDS[invoice.language];
  const creditNote = parts.document === 'credit-note';
  const f = formatsOf(labelsOf(invoice.language), invoice.currency);
  const number = (creditNote ? invoice.creditNote?.number : invoice.number) ?? '';
  const dated = creditNote ? invoice.creditNote?.issueDate : invoice.issueDate;
  const issued = dated ? f.date(dated) : '';
  const invoiceIssued = invoice.issueDate ? f.date(invoice.issueDate) : '';
  const gross = f.money(invoice.grossTotal);
  const pair = (k: string, v: string): [string, string] => [k, v];
  const said = { number, issued, issuerName, gross, invoiceNumber: invoice.number ?? '', invoiceIssued };
  let facts: Array<[string, string]>;
  let opening: string;
  if (creditNote) {
    facts = [pair(w.creditNoteNumber, number), pair(w.creditNoteDate, issued), pair(w.cancels, w.cancelled(said)), pair(w.total, gross)];
    opening = w.creditNoteOpening(said);
  } else {
    const due =
      invoice.status === 'paid'
        ? pair(w.paidOn, invoice.paidDate ? f.date(invoice.paidDate) : '')
        : pair(w.dueDate, invoice.dueDate ? f.date(invoice.dueDate) : '');
    const terms = invoice.paymentTerms ? [pair(w.paymentTerms, invoice.paymentTerms)] : [];
    facts = [pair(w.invoiceNumber, number), pair(w.invoiceDate, issued), pair(w.total, gross), due, ...terms];
    opening = w.invoiceOpening(said);
  }
  if (greeting === null) opening = capitalised(opening);
  const files = xml ? w.files(creditNote, documentFileName(invoice, xml, { creditNote }), FORMAT_NAMES[xml]) : null;
  const closing = `${w.closing}\n${issuerName}`;
  const subject = oneLine(w.subject(creditNote, number, issuerName));
  const paragraphs = [...(greeting ? [greeting] : []), opening, ...(message ? [message] : []), ...(files ? [files] : [])];
  const text = `${paragraphs.join('\n\n')}\n\n${facts.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${closing}\n`;
  const html = invoiceMailHtml({ language: invoice.language, subject, paragraphs, facts, closing });
  return { subject, greeting, opening, files, facts, closing, text, html };
}

/** What an invoice mail says, in one document language (the facts' names, its sentences). */
interface MailWords {
  greeting: string;
  closing: string;
  subject: (creditNote: boolean, number: string, issuerName: string) => string;
  invoiceNumber: string;
  invoiceDate: string;
  creditNoteNumber: string;
  creditNoteDate: string;
  cancels: string;
  total: string;
  dueDate: string;
  paidOn: string;
  paymentTerms: string;
  /** The cancelled invoice as the credit note's fact names it. */
  cancelled: (s: MailFacts) => string;
  /** The paragraph after the greeting (as it reads under a greeting). */
  invoiceOpening: (s: MailFacts) => string;
  creditNoteOpening: (s: MailFacts) => string;
  /** The sentence naming the XML beside the PDF, by its file name and format. */
  files: (creditNote: boolean, file: string, format: string) => string;
}

interface MailFacts {
  number: string;
  issued: string;
  issuerName: string;
  gross: string;
  invoiceNumber: string;
  invoiceIssued: string;
}

/** The invoice mail's words per document language (docs/invoicing.md: where each language's words come from). */
const MAIL_WORDS: Record<DocumentLanguage, MailWords> = {
  en: {
    greeting: 'Hello,',
    closing: 'Kind regards',
    subject: (creditNote, number, issuer) => `${creditNote ? 'Credit note' : 'Invoice'} ${number} from ${issuer}`,
    invoiceNumber: 'Invoice number',
    invoiceDate: 'Invoice date',
    creditNoteNumber: 'Credit note number',
    creditNoteDate: 'Credit note date',
    cancels: 'Cancels',
    total: 'Total',
    dueDate: 'Due date',
    paidOn: 'Paid on',
    paymentTerms: 'Payment terms',
    cancelled: (s) => `invoice ${s.invoiceNumber} of ${s.invoiceIssued}`,
    invoiceOpening: (s) => `Please find attached invoice ${s.number} of ${s.issued} from ${s.issuerName} for ${s.gross}.`,
    creditNoteOpening: (s) =>
      `Please find attached credit note ${s.number} of ${s.issued} from ${s.issuerName} for ${s.gross}. It cancels invoice ${s.invoiceNumber} of ${s.invoiceIssued}.`,
    files: (creditNote, file, format) => {
      const thing = creditNote ? 'credit note' : 'invoice';
      return `The PDF is the ${thing}; ${file} holds the same ${thing} as an e-invoice in ${format} format for your accounting system.`;
    },
  },
  de: {
    greeting: 'Guten Tag,',
    closing: 'Mit freundlichen Grüßen',
    subject: (creditNote, number, issuer) => `${creditNote ? 'Rechnungskorrektur' : 'Rechnung'} ${number} von ${issuer}`,
    invoiceNumber: 'Rechnungsnummer',
    invoiceDate: 'Rechnungsdatum',
    creditNoteNumber: 'Nummer der Rechnungskorrektur',
    creditNoteDate: 'Datum',
    cancels: 'Storno zu',
    total: 'Gesamtbetrag',
    dueDate: 'Fällig am',
    paidOn: 'Bezahlt am',
    paymentTerms: 'Zahlungsbedingungen',
    cancelled: (s) => `Rechnung ${s.invoiceNumber} vom ${s.invoiceIssued}`,
    invoiceOpening: (s) => `anbei erhalten Sie die Rechnung ${s.number} vom ${s.issued} von ${s.issuerName} über ${s.gross}.`,
    creditNoteOpening: (s) =>
      `anbei erhalten Sie die Rechnungskorrektur ${s.number} vom ${s.issued} von ${s.issuerName} über ${s.gross}. Sie storniert die Rechnung ${s.invoiceNumber} vom ${s.invoiceIssued}.`,
    files: (creditNote, file, format) => {
      const thing = creditNote ? 'Rechnungskorrektur' : 'Rechnung';
      return `Die PDF-Datei ist die ${thing}; ${file} enthält dieselbe ${thing} als E-Rechnung im Format ${format} für Ihre Buchhaltung.`;
    },
  },
  fr: {
    greeting: 'Bonjour,',
    closing: 'Cordialement,',
    subject: (creditNote, number, issuer) => `${creditNote ? 'Avoir' : 'Facture'} ${number} de ${issuer}`,
    invoiceNumber: 'Numéro de facture',
    invoiceDate: 'Date de facture',
    creditNoteNumber: "Numéro de l'avoir",
    creditNoteDate: "Date de l'avoir",
    cancels: 'Annule',
    total: 'Total TTC',
    dueDate: "Date d'échéance",
    paidOn: 'Réglée le',
    paymentTerms: 'Conditions de paiement',
    cancelled: (s) => `la facture ${s.invoiceNumber} du ${s.invoiceIssued}`,
    invoiceOpening: (s) => `veuillez trouver ci-joint la facture ${s.number} du ${s.issued} de ${s.issuerName} d'un montant de ${s.gross}.`,
    creditNoteOpening: (s) =>
      `veuillez trouver ci-joint l'avoir ${s.number} du ${s.issued} de ${s.issuerName} d'un montant de ${s.gross}. Il annule la facture ${s.invoiceNumber} du ${s.invoiceIssued}.`,
    files: (creditNote, file, format) =>
      creditNote
        ? `Le fichier PDF est l'avoir\u00a0; ${file} contient le même avoir sous forme de facture électronique au format ${format} pour votre comptabilité.`
        : `Le fichier PDF est la facture\u00a0; ${file} contient la même facture sous forme de facture électronique au format ${format} pour votre comptabilité.`,
  },
  nl: {
    greeting: 'Goedendag,',
    closing: 'Met vriendelijke groet,',
    subject: (creditNote, number, issuer) => `${creditNote ? 'Creditnota' : 'Factuur'} ${number} van ${issuer}`,
    invoiceNumber: 'Factuurnummer',
    invoiceDate: 'Factuurdatum',
    creditNoteNumber: 'Nummer creditnota',
    creditNoteDate: 'Datum creditnota',
    cancels: 'Crediteert',
    total: 'Totaal incl. btw',
    dueDate: 'Vervaldatum',
    paidOn: 'Betaald op',
    paymentTerms: 'Betalingsvoorwaarden',
    cancelled: (s) => `factuur ${s.invoiceNumber} van ${s.invoiceIssued}`,
    invoiceOpening: (s) => `hierbij ontvangt u factuur ${s.number} van ${s.issued} van ${s.issuerName} voor een bedrag van ${s.gross}.`,
    creditNoteOpening: (s) =>
      `hierbij ontvangt u creditnota ${s.number} van ${s.issued} van ${s.issuerName} voor een bedrag van ${s.gross}. Deze crediteert factuur ${s.invoiceNumber} van ${s.invoiceIssued}.`,
    files: (creditNote, file, format) => {
      const thing = creditNote ? 'creditnota' : 'factuur';
      return `Het pdf-bestand is de ${thing}; ${file} bevat dezelfde ${thing} als e-factuur in het formaat ${format} voor uw boekhouding.`;
    },
  },
};
