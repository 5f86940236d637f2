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
  plainPdf,
} from './documents/index.js';
import { invoiceErrors as errors } from './errors.js';
import type { Clock } from '../../clock.js';
import type { DomainWrite } from '../events/service.js';
import { type Issuing, MIX_PROBLEM } from './issuing.js';
import type { DocumentRenderer } from './ports.js';
import type { InvoicesRepository } from './repository.js';
import { documentSource, view } from './views.js';

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

/**
 * One document an invoice offers, and what it still lacks (empty: ready). A draft's are the
 * documents it will have once issued, and what each will lack then (issuing refuses while its PDF
 * lacks anything: issuing.ts).
 */
export interface DocumentState {
  format: DocumentFormat;
  creditNote: boolean;
  missing: MissingValue[];
  /** A refusal that is no missing value (a VAT mix EN 16931 forbids), in people's words; or null. */
  problem: string | null;
  /** The invoice's PDF is plain (PDF/A without XML: its seller has no BT-29/BT-30/BT-31); its e-invoices are refused. */
  plain: boolean;
  /** A draft's tax settings still missing (issuing refuses naming them), on its PDF's state; else empty. */
  taxMissing?: Array<{ setting: string; problem: string }>;
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
  issuing,
}: {
  access: Access;
  render: DocumentRenderer;
  repo: InvoicesRepository;
  write: DomainWrite;
  clock: Clock;
  issuing: Issuing;
}) {
  const { findInvoice } = access;
  return {
    /**
     * The documents an invoice offers (its four formats, and its credit note's once it has one),
     * each ready or with what it lacks; a draft's as they will be once issued.
     */
    documents(principal: Principal, id: string): DocumentState[] {
      const row = findInvoice(principal, id);
      if (row.status === 'draft') {
        const ready = issuing.readiness(row);
        return ready.documents.map((d) => ({
          ...d,
          creditNote: false,
          plain: ready.plain,
          ...(d.format === 'pdf' ? { taxMissing: ready.tax } : {}),
        }));
      }
      const invoice = view(row);
      const plain = plainPdf(invoice);
      return [false, ...(invoice.creditNote ? [true] : [])].flatMap((creditNote) =>
        DOCUMENT_FORMATS.map((format) => {
          const refused = documentRefusal(invoice, format, { creditNote });
          return {
            format,
            creditNote,
            missing: refused?.missing ?? [],
            problem: refused && refused.missing.length === 0 ? MIX_PROBLEM : null,
            plain,
          };
        }),
      );
    },

    /**
     * The invoice's document (or its credit note's) in `format`: refused with DocumentNotReady
     * naming every value it lacks, `invalid` for an unknown format or a VAT mix the rules forbid.
     */
    async document(principal: Principal, id: string, format: string, options: { creditNote?: boolean } = {}): Promise<MadeDocument> {
      const row = findInvoice(principal, id);
      const invoice = view(row);
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
      // With the early-payment discount it was issued with (its XRechnung's BT-20 line; not in the view).
      const bytes = await render(documentSource(row, handed), known, { creditNote });
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
