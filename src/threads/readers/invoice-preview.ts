import { DomainError, errorData } from '../../errors.js';
import type { InvoiceInput, InvoicePreview } from '../../modules/invoices/service.js';
import type { Services } from '../../services.js';
import { type ActorData, actorOf, raise, type ReadResult } from './tasks.js';

/*
 * The New invoice page's preview on a reader thread (issue 44 L6): reading a client's entries of
 * a range and making their lines is the invoices service's `preview`, run as the member on the
 * thread's own read-only connection; the request thread gets the draft as JSON (capped at
 * MAX_INVOICE_LINES lines by the service) and only writes the page.
 */

/** A preview as the request thread hands it over. */
export interface PreviewTask {
  type: 'invoice-preview';
  /** What the reader threads' test hooks key on, as they key on a read's operation. */
  operationId: 'invoicePreview';
  actor: ActorData;
  input: InvoiceInput;
  /** The request's clock reading. */
  now: number;
  requestId: string;
}

const encoder = new TextEncoder();

/** Runs a preview (on a reader thread, or on the request thread without threads): the draft's JSON bytes, or the refusal as data. */
export function runPreview(services: Pick<Services, 'invoices'>, task: PreviewTask): Uint8Array | Extract<ReadResult, { error: unknown }> {
  try {
    return encoder.encode(JSON.stringify(services.invoices.preview(actorOf(task.actor), task.input)));
  } catch (error) {
    // With its words for people: the New invoice page shows those (it lost them here before).
    if (error instanceof DomainError) return { error: errorData(error) };
    throw error;
  }
}

/** The draft from a preview's answer; its refusal raised again as its DomainError. */
export function previewOf(result: Uint8Array | Extract<ReadResult, { error: unknown }>): InvoicePreview {
  if (!(result instanceof Uint8Array)) return raise(result);
  return JSON.parse(Buffer.from(result.buffer, result.byteOffset, result.byteLength).toString('utf8')) as InvoicePreview;
}
