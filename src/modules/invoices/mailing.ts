import { isOperator, type Principal } from '../../principal.js';
import { DomainError } from '../../errors.js';
import type { DomainWrite } from '../events/service.js';
import type { Access } from './access.js';
import type { InvoiceDocument } from './document.js';
import { DOCUMENT_FORMATS, type DocumentFormat, documentFileName, missingFor } from './documents/index.js';
import { formatsOf, labelsOf } from './documents/labels.js';
import { invoiceErrors as errors } from './errors.js';
import type { InvoicePorts } from './ports.js';
import { view } from './views.js';

/** The most a personal message beside the invoice may hold. */
export const MAX_SEND_MESSAGE = 2000;

/** What an owner asks before the documents are made: to whom, which XML beside the PDF (or none), a short message. */
export interface SendRequest {
  to: string;
  /** The e-invoice XML attached beside the PDF, or null for the PDF alone. */
  xml: DocumentFormat | null;
  message: string | null;
}

/** The send itself: the request, and the documents' bytes made for it (the PDF, and the XML it names). */
export interface SendInput {
  to: string;
  message: string | null;
  attachments: Array<{ format: DocumentFormat; bytes: Buffer }>;
}

const MEDIA_TYPE = (format: DocumentFormat) => (format === 'pdf' ? 'application/pdf' : 'application/xml');

/**
 * Sending an issued invoice by mail (part of the invoices service): owners only, as issuing; the
 * invoice sent or paid; the PDF and at most one ready e-invoice XML attached; one message queued
 * through the mail port inside the write, so it is sent by the mail module's sender after the
 * commit. The documents are made by the caller before (on the document threads), never inside
 * the write.
 */
export function createSending({ ports, write, access }: { ports: InvoicePorts; write: DomainWrite; access: Access }) {
  const { findInvoice, requireOwner } = access;

  /** Every rule of a send that needs no document: who, which invoice, the address, the message, the XML's readiness. */
  function check(principal: Principal, id: string, request: SendRequest): { invoice: InvoiceDocument; to: string; message: string | null } {
    const row = findInvoice(principal, id);
    requireOwner(principal, row.workspaceId, 'send invoices', () => errors.notFound(id));
    if (!ports.mail.enabled())
      throw errors.invalid('Mail is not set up on this server: the operator sets SMTP_URL and MAIL_FROM and restarts it.');
    const invoice = view(row);
    if (invoice.status !== 'sent' && invoice.status !== 'paid')
      throw errors.conflict(
        invoice.status === 'draft'
          ? `Invoice ${id} is a draft: issue it first (it then gets its number); only an issued invoice is sent by mail.`
          : `${invoice.number ?? `Invoice ${id}`} is void: a void invoice is not sent by mail.`,
      );
    const to = request.to.trim();
    if (to === '')
      throw new DomainError(
        'invalid',
        "Type the address to send the invoice to. The recipient's email is prefilled when the invoice has one; for the next invoices, set the client's Email in Catalog › the client › Invoicing details.",
        { field: 'to' },
      );
    if (!ports.mail.deliverable(to))
      throw new DomainError(
        'invalid',
        `${to} cannot receive mail from here: type one address such as billing@example.org (no name, comma, quote or space).`,
        { field: 'to' },
      );
    const message = request.message === null || request.message.trim() === '' ? null : request.message.trim();
    if (message !== null && message.length > MAX_SEND_MESSAGE)
      throw new DomainError(
        'invalid',
        `The message may be at most ${MAX_SEND_MESSAGE} characters (it has ${message.length}): shorten it.`,
        {
          field: 'message',
        },
      );
    if (request.xml !== null) {
      if (request.xml === 'pdf' || !DOCUMENT_FORMATS.includes(request.xml))
        throw new DomainError(
          'invalid',
          `Choose the e-invoice to attach beside the PDF: ${DOCUMENT_FORMATS.filter((f) => f !== 'pdf').join(', ')}, or none (got ${JSON.stringify(request.xml)}).`,
          { field: 'xml' },
        );
      const missing = missingFor(invoice, request.xml);
      if (missing.length > 0)
        throw new DomainError(
          'invalid',
          `${request.xml} cannot be made for this invoice yet: it lacks ${missing.map((m) => `${m.label} (${m.bt})`).join(', ')}. Fill them on this page, or attach another format or none.`,
          { field: 'xml' },
        );
    }
    return { invoice, to, message };
  }

  return {
    /** Refuses, as the send would, a send that may not happen: the page asks before it makes the documents. */
    checkSend(principal: Principal, id: string, request: SendRequest): InvoiceDocument {
      return check(principal, id, request).invoice;
    },

    /**
     * Queues the invoice's mail to `to`: subject "Invoice <number> from <issuer>", text and HTML in
     * the invoice's language, the PDF and the XML given (named as their downloads are). One write:
     * the invoice is read, checked and the message queued together. Returns the message's id and
     * the address it goes to.
     */
    send(principal: Principal, id: string, input: SendInput): { messageId: string; address: string } {
      const pdf = input.attachments.filter((a) => a.format === 'pdf');
      const xml = input.attachments.filter((a) => a.format !== 'pdf');
      if (pdf.length !== 1 || xml.length > 1)
        throw errors.invalid(`An invoice is sent with its PDF and at most one e-invoice XML (got ${input.attachments.length} documents).`);
      return write(() => {
        const { invoice, to, message } = check(principal, id, { to: input.to, message: input.message, xml: xml[0]?.format ?? null });
        ports.mail.spend({ kind: 'invoice', userId: isOperator(principal) ? null : principal.userId, workspaceId: invoice.workspaceId });
        const issuerName = issuerNameOf(invoice, ports.workspaceName(invoice.workspaceId));
        const composed = invoiceMail(invoice, issuerName, message, xml[0]?.format ?? null);
        const messageId = ports.mail.queue({
          kind: 'invoice',
          to: { address: to, name: invoice.recipient?.legalName ?? invoice.recipient?.name ?? null },
          workspaceId: invoice.workspaceId,
          userId: null,
          subject: composed.subject,
          text: composed.text,
          html: composed.html,
          attachments: input.attachments.map((a) => ({
            name: documentFileName(invoice, a.format),
            type: MEDIA_TYPE(a.format),
            bytes: a.bytes,
          })),
        });
        // The invoice itself does not change (decisions §11: after issuing, only status, paid date and fills do).
        return { messageId, address: to };
      });
    },
  };
}

const issuerNameOf = (invoice: InvoiceDocument, workspaceName: string | null): string =>
  (invoice.issuer?.legalName ?? '').trim() || workspaceName || 'timetrack';

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** Header text: no control character may end the subject's header. */
const oneLine = (text: string): string =>
  text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The invoice's mail in its language: the subject, and the same paragraphs as plain text and as HTML. */
export function invoiceMail(
  invoice: InvoiceDocument,
  issuerName: string,
  message: string | null,
  xml: DocumentFormat | null,
): { subject: string; text: string; html: string } {
  const de = invoice.language === 'de';
  const f = formatsOf(labelsOf(invoice.language), invoice.currency);
  const number = invoice.number ?? '';
  const issued = invoice.issueDate ? f.date(invoice.issueDate) : '';
  const gross = f.money(invoice.grossTotal);
  const facts: Array<[string, string]> = de
    ? [
        ['Rechnungsnummer', number],
        ['Rechnungsdatum', issued],
        ['Gesamtbetrag', gross],
        ...(invoice.status === 'paid'
          ? ([['Bezahlt am', invoice.paidDate ? f.date(invoice.paidDate) : '']] as Array<[string, string]>)
          : ([['Fällig am', invoice.dueDate ? f.date(invoice.dueDate) : '']] as Array<[string, string]>)),
        ...(invoice.paymentTerms ? ([['Zahlungsbedingungen', invoice.paymentTerms]] as Array<[string, string]>) : []),
      ]
    : [
        ['Invoice number', number],
        ['Invoice date', issued],
        ['Total', gross],
        ...(invoice.status === 'paid'
          ? ([['Paid on', invoice.paidDate ? f.date(invoice.paidDate) : '']] as Array<[string, string]>)
          : ([['Due date', invoice.dueDate ? f.date(invoice.dueDate) : '']] as Array<[string, string]>)),
        ...(invoice.paymentTerms ? ([['Payment terms', invoice.paymentTerms]] as Array<[string, string]>) : []),
      ];
  const opening = de
    ? `anbei erhalten Sie die Rechnung ${number} vom ${issued} von ${issuerName} über ${gross}.`
    : `Please find attached invoice ${number} of ${issued} from ${issuerName} for ${gross}.`;
  const files = xml
    ? de
      ? `Die PDF-Datei ist die Rechnung; ${documentFileName(invoice, xml)} enthält dieselbe Rechnung als E-Rechnung (${xml}) für Ihre Buchhaltung.`
      : `The PDF is the invoice; ${documentFileName(invoice, xml)} holds the same invoice as an e-invoice (${xml}) for your accounting system.`
    : null;
  const closing = de ? `Mit freundlichen Grüßen\n${issuerName}` : `Kind regards\n${issuerName}`;
  const paragraphs = [de ? 'Guten Tag,' : 'Hello,', opening, ...(message ? [message] : []), ...(files ? [files] : [])];
  const text = `${paragraphs.join('\n\n')}\n\n${facts.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${closing}\n`;
  const para = (p: string) => `<p style="margin:0 0 16px;white-space:pre-line">${escape(p)}</p>`;
  const html = `<!doctype html>
<html lang="${de ? 'de' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(oneLine(subjectOf(invoice, issuerName)))}</title></head>
<body style="margin:0;padding:24px;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:15px;line-height:1.5;color:#222">
${paragraphs.map(para).join('\n')}
<table style="border-collapse:collapse;margin:0 0 16px">${facts
    .map(
      ([k, v]) =>
        `<tr><th style="text-align:left;padding:2px 16px 2px 0;font-weight:600">${escape(k)}</th><td style="padding:2px 0">${escape(v)}</td></tr>`,
    )
    .join('')}</table>
${para(closing)}
</body></html>
`;
  return { subject: subjectOf(invoice, issuerName), text, html };
}

const subjectOf = (invoice: InvoiceDocument, issuerName: string): string =>
  oneLine(
    invoice.language === 'de' ? `Rechnung ${invoice.number ?? ''} von ${issuerName}` : `Invoice ${invoice.number ?? ''} from ${issuerName}`,
  );
