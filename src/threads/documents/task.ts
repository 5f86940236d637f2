import { DomainError, type DomainErrorData, errorData } from '../../errors.js';
import type { InvoiceDocument } from '../../modules/invoices/service.js';
import { type DocumentFormat, renderDocument } from '../../modules/invoices/documents/index.js';

/** What a document thread is given: the stored invoice as plain JSON, the format, and whether the credit note is wanted. */
export interface DocumentTask {
  doc: InvoiceDocument;
  format: DocumentFormat;
  creditNote: boolean;
}

/** A document's answer: the bytes, or the refusal it raised (a DomainError does not cross a thread whole). */
export type DocumentResult = Uint8Array | { refused: DomainErrorData };

/** One document, in a thread or on the request thread: the bytes (an ArrayBuffer of their own, so they can be moved), or the refusal as data. */
export async function renderTask(task: DocumentTask): Promise<DocumentResult> {
  try {
    const bytes = await renderDocument(task.doc, task.format, { creditNote: task.creditNote });
    // A small Buffer may share Node's pool: copy it, so moving it detaches nothing else.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    return own ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
  } catch (error) {
    if (error instanceof DomainError) return { refused: errorData(error) };
    throw error;
  }
}
