import { Piscina } from 'piscina';
import { errorOf } from '../../errors.js';
import { errorFields, type Logger } from '../../logger.js';
import type { DocumentSource } from '../../modules/invoices/service.js';
import type { DocumentFormat } from '../../modules/invoices/documents/index.js';
import { poolModule } from '../boot.js';
import { createThreadQueue, ThreadsBusy } from '../queue.js';
import { type DocumentResult, type DocumentTask, renderTask } from './task.js';

export interface DocumentPoolOptions {
  /** Document threads; 0 makes documents on the request thread. */
  threads: number;
  /** A document that waits longer for a free thread is not started (ThreadsBusy: 503). */
  queueMs: number;
  /** A document that takes longer has its thread terminated and replaced (a 500-line PDF takes about a second). */
  budgetMs?: number;
  logger: Logger;
}

/**
 * The document threads (piscina): a PDF of 500 lines takes pdfkit about a second of CPU, which on
 * the request thread would hold up every other request for that second. Each task is the stored
 * invoice as plain JSON; a thread has no database, no clock and no network (renderDocument is a
 * pure function), and answers the bytes, moved rather than copied. At most `threads` documents
 * are made at once; the others wait in arrival order for `queueMs`, then are refused
 * (ThreadsBusy, 503 with Retry-After) so a browser hears at once. A thread that dies or runs
 * past the budget is replaced and its document fails.
 */
export function createDocumentPool(options: DocumentPoolOptions) {
  const budgetMs = options.budgetMs ?? 60_000;
  const pool =
    options.threads === 0
      ? null
      : new Piscina<DocumentTask, DocumentResult>({
          ...poolModule(import.meta.url, '../document-thread'),
          // Started with the first document and ended after a minute idle (fonts and pdfkit are
          // loaded again by the next one, in about half a second).
          minThreads: 0,
          maxThreads: options.threads,
          idleTimeout: 60_000,
          // pdfkit's 500-line PDF peaks near 60 MB; a document that needs far more fails (500).
          resourceLimits: { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 16 },
        });
  const queue = createThreadQueue(Math.max(1, options.threads), options.queueMs, 'document');

  return {
    /** The document's bytes; a refusal of the documents (missing values, an unknown format) is raised again here as its DomainError. */
    async render(doc: DocumentSource, format: DocumentFormat, render: { creditNote?: boolean } = {}): Promise<Buffer> {
      const task: DocumentTask = { doc, format, creditNote: render.creditNote === true };
      let result: DocumentResult;
      let signal: AbortSignal | null = null;
      try {
        result = await queue.run(() => {
          if (!pool) return renderTask(task);
          signal = AbortSignal.timeout(budgetMs);
          return pool.run(task, { signal });
        });
      } catch (error) {
        if (error instanceof ThreadsBusy) {
          options.logger.warn('a document waited too long for a document thread; refused with 503', { queueMs: options.queueMs });
          throw error;
        }
        if ((signal as AbortSignal | null)?.aborted) {
          options.logger.error('a document ran past its budget; its thread was replaced', { invoiceId: doc.id, format, budgetMs });
          throw new Error(`the ${format} of invoice ${doc.id} ran past ${budgetMs} ms`, { cause: error });
        }
        options.logger.error('a document thread failed; it is replaced', { invoiceId: doc.id, format, ...errorFields(error) });
        throw error;
      }
      if (result instanceof Uint8Array) return Buffer.from(result.buffer, result.byteOffset, result.byteLength);
      throw errorOf(result.refused);
    },
    /** Document threads running now (tests). */
    threads: () => pool?.threads.length ?? 0,
    async close(): Promise<void> {
      await pool?.destroy();
    },
  };
}

export type DocumentPool = ReturnType<typeof createDocumentPool>;
