import { DomainError } from '../../errors.js';
import type { Principal } from '../../principal.js';
import type { Access } from './access.js';
import type { InvoiceDocument } from './document.js';
import {
  DOCUMENT_FORMATS,
  type DocumentFormat,
  documentFileName,
  documentMediaType,
  documentRefusal,
  type MissingValue,
} from './documents/index.js';
import { invoiceErrors as errors } from './errors.js';
import type { Clock } from '../../clock.js';
import type { DomainWrite } from '../events/service.js';
import type { DocumentRenderer } from './ports.js';
import type { InvoicesRepository } from './repository.js';
import { view } from './views.js';

/**
 * Records that a document of the invoice is handed out now (downloaded, or sent by mail), inside
 * the caller's write; returns the invoice as stored then, which the document is made from (a fill
 * since `seen` was read gives a conflict: make it again).
 */
export function handOut(
  repo: InvoicesRepository,
  clock: { now(): number },
  id: string,
  seen: InvoiceDocument,
  again = 'ask for it again',
): InvoiceDocument {
  const row = repo.invoice(id);
  if (!row || view(row).updatedAt !== seen.updatedAt)
    throw new DomainError('conflict', `Invoice ${id} changed while its documents were made: ${again}.`, {
      people: `This invoice changed while its documents were made: ${again}.`,
    });
  repo.markHandedOut(id, clock.now());
  return seen;
}

/** One document an invoice offers, and what it still lacks (empty: ready). */
export interface DocumentState {
  format: DocumentFormat;
  creditNote: boolean;
  missing: MissingValue[];
}

/** A document made: its bytes, the file name its download and its mail carry, its media type. */
export interface MadeDocument {
  invoice: InvoiceDocument;
  format: DocumentFormat;
  creditNote: boolean;
  fileName: string;
  mediaType: string;
  bytes: Buffer;
}

/**
 * A document the invoice cannot give yet (DomainError `invalid`): the values it lacks, each with
 * its BT number and where it is set, so each entry point words them its own way (the page lists
 * them with links and a fill, the command line with the commands that set them).
 */
export class DocumentNotReady extends DomainError {
  constructor(
    readonly invoice: InvoiceDocument,
    readonly format: DocumentFormat,
    readonly creditNote: boolean,
    readonly missing: MissingValue[],
    message: string,
  ) {
    super('invalid', message, { field: 'format' });
  }
}

/**
 * "A document of this invoice in this format" (issue 45 item 6), the one way the pages, the
 * command line and the mail get a document: whoever reads the invoice; the one check
 * (`documentRefusal`: format, missing values, forbidden VAT mixes) before anything is made; the
 * bytes made through the render port (the document threads in the server, this process on the
 * command line).
 */
export function createPublishing({
  access,
  render,
  repo,
  write,
  clock,
}: {
  access: Access;
  render: DocumentRenderer;
  repo: InvoicesRepository;
  write: DomainWrite;
  clock: Clock;
}) {
  const { findInvoice } = access;
  return {
    /** The documents an invoice offers (its four formats, and its credit note's once it has one), each ready or with what it lacks. */
    documents(principal: Principal, id: string): DocumentState[] {
      const invoice = view(findInvoice(principal, id));
      return [false, ...(invoice.creditNote ? [true] : [])].flatMap((creditNote) =>
        DOCUMENT_FORMATS.map((format) => ({
          format,
          creditNote,
          missing: documentRefusal(invoice, format, { creditNote })?.missing ?? [],
        })),
      );
    },

    /**
     * The invoice's document (or its credit note's) in `format`: refused with DocumentNotReady
     * naming every value it lacks, `invalid` for an unknown format or a VAT mix the rules forbid.
     */
    async document(principal: Principal, id: string, format: string, options: { creditNote?: boolean } = {}): Promise<MadeDocument> {
      const invoice = view(findInvoice(principal, id));
      const creditNote = options.creditNote === true;
      if (!(DOCUMENT_FORMATS as readonly string[]).includes(format))
        throw new DomainError('invalid', `Unknown document format ${JSON.stringify(format)}: use one of ${DOCUMENT_FORMATS.join(', ')}.`, {
          field: 'format',
        });
      const known = format as DocumentFormat;
      const refused = documentRefusal(invoice, known, { creditNote });
      if (refused) {
        if (refused.missing.length > 0) throw new DocumentNotReady(invoice, known, creditNote, refused.missing, refused.message);
        throw errors.invalid(refused.message);
      }
      // A document of an issued invoice is handed out: the fills it carries are fixed from now on
      // (decisions 14). Recorded before it is made, with the invoice it is made from, so no fill
      // can change in between; a draft's PDF (DRAFT, no number) is no invoice and fixes nothing.
      const handed = creditNote || invoice.number !== null ? write(() => handOut(repo, clock, id, invoice)) : invoice;
      const bytes = await render(handed, known, { creditNote });
      return {
        invoice,
        format: known,
        creditNote,
        fileName: documentFileName(invoice, known, { creditNote }),
        mediaType: documentMediaType(known),
        bytes,
      };
    },
  };
}
