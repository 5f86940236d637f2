import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { DomainError } from '../../errors.js';
import { errorFields, type Logger } from '../../logger.js';
import type { GraphSettings, Services } from '../../services.js';
import { poolModule } from '../boot.js';
import type { EncodedBody } from '../../kernel/compression.js';
import { createDownloads } from './downloads.js';
import { createThreadQueue, ThreadsBusy } from '../queue.js';
import type { ExportOutcome, ExportTask } from './export.js';
import { raise, type ReaderThreadData, type ReadResult, type ReadTask, readHandlers, readTexts, runRead } from './tasks.js';
import { type PreviewTask, previewOf, runPreview } from './invoice-preview.js';
import type { InvoicePreview } from '../../modules/invoices/service.js';

export interface ReaderOptions {
  /** Reader threads; 0 reads on the request thread (a :memory: database cannot be shared). */
  threads: number;
  /** A read that takes longer has its thread terminated and replaced, and answers 500. */
  budgetMs: number;
  /** A read that waits longer for a free thread is not started (ThreadsBusy: 503). */
  queueMs: number;
  cacheMb: number;
  /** Threads kept ready while idle (started with the pool); the others end after 10 s without reads. */
  kept?: number;
  /** Tests: see ReaderThreadData. */
  hooks?: ReaderThreadData['hooks'];
  /** A download whose browser takes nothing for this long is broken off (EXPORT_STALL_MS by default; tests shorten it). */
  exportStallMs?: number;
  /** EXPORT_MAX_MS: the longest a download may take, from its request to its last byte; past it, it is broken off. */
  exportMaxMs: number;
  /** A download that waits longer in the exports' line is not started (EXPORT_QUEUE_MS by default; tests shorten it). */
  exportQueueMs?: number;
}

/** The default size: one reader per core (the request thread mostly waits on them). */
export const defaultReaderThreads = (): number => Math.max(1, availableParallelism());

/** A read that ran past its budget (its thread was terminated). */
export class ReadBudgetExceeded extends Error {
  override name = 'ReadBudgetExceeded';
}

/**
 * The reader pool (piscina): heavy reads run on threads with their own read-only connections,
 * so a long report never holds up the request thread or the light requests queued on it. A
 * thread that dies is replaced and its read fails; a read past the budget has its thread
 * terminated (piscina does, on abort) and replaced. Without threads, reads run in-process.
 */
export function createReaderPool(
  options: ReaderOptions & {
    databasePath: string;
    secretKey: Buffer;
    /** What the configuration decides of the service graph: each thread's graph is the server's. */
    settings: GraphSettings;
    logger: Logger;
    services: Services;
    /** Before a read goes to a thread (another connection): the server's open batch of writes committed, so the read sees them. */
    beforeRead?: () => void;
  },
) {
  const inProcess = options.threads === 0 || options.databasePath === ':memory:';
  const handlers = inProcess ? readHandlers(options.services) : null;
  const texts = inProcess ? readTexts(options.services) : {};
  const workerData: ReaderThreadData = {
    databasePath: options.databasePath,
    secretKey: new Uint8Array(options.secretKey),
    settings: options.settings,
    cacheMb: options.cacheMb,
    ...(options.hooks ? { hooks: options.hooks } : {}),
  };
  const queue = createThreadQueue(Math.max(1, options.threads), options.queueMs);
  const pool = inProcess
    ? null
    : startedLater(
        () =>
          new Piscina<ReadTask | ExportTask | PreviewTask, ReadResult | ExportOutcome>({
            ...poolModule(import.meta.url, '../reader-thread', workerData),
            // READER_THREADS_KEPT (1 by default) start with the pool (`keep()`, a second after the
            // server listens, or the first heavy read) and stay ready: a thread's start is 0.4-0.7 s
            // of CPU, which the first report after a quiet spell waited for (issue 46 item 10); one
            // idle reader holds 25-36 MB. The others start with the heavy reads and end after 10 s
            // idle, giving their memory back: a minute kept two idle readers' 40-60 MB each alive
            // through the writes that followed a burst of reports (the peak RSS of issue 27).
            minThreads: Math.min(options.kept ?? 0, options.threads),
            maxThreads: options.threads,
            idleTimeout: 10_000,
            // A reader's heap: room for the largest answers (a 6 MB summary), and a young generation
            // kept small so short-lived rows are collected early; a read that needs more fails (500)
            // and its thread is replaced.
            resourceLimits: { maxOldGenerationSizeMb: 160, maxYoungGenerationSizeMb: 8 },
          }),
      );
  const downloads = createDownloads({
    run: pool ? (task, signal) => pool.run(task, { signal, transferList: [task.port] as never }) as Promise<ExportOutcome> : null,
    queue,
    services: options.services,
    logger: options.logger,
    databasePath: options.databasePath,
    maxMs: options.exportMaxMs,
    ...(options.exportStallMs === undefined ? {} : { stallMs: options.exportStallMs }),
    ...(options.exportQueueMs === undefined ? {} : { queueMs: options.exportQueueMs }),
    ...(options.beforeRead ? { beforeRead: options.beforeRead } : {}),
  });

  return {
    /**
     * The read's JSON bytes: compressed on its thread as the task asked (an EncodedBody), or, read
     * on the request thread, as they are (the caller compresses them off this thread); its domain
     * error raised again here; a failure of the thread or the budget throws.
     */
    async run(task: ReadTask): Promise<Uint8Array | EncodedBody> {
      let result: ReadResult;
      if (!pool) {
        result = await runRead(handlers ?? readHandlers(options.services), { ...task, compression: null }, texts);
      } else {
        // The budget counts from the read's start, not from its arrival in the line.
        let signal: AbortSignal | null = null;
        try {
          result = await queue.run(() => {
            options.beforeRead?.();
            signal = AbortSignal.timeout(options.budgetMs);
            return pool.run(task, { signal }) as Promise<ReadResult>;
          });
        } catch (error) {
          if (error instanceof ThreadsBusy) {
            options.logger.warn('a heavy read waited too long for a reader thread; refused with 503', {
              requestId: task.requestId,
              operationId: task.operationId,
              queueMs: options.queueMs,
            });
            throw error;
          }
          if ((signal as AbortSignal | null)?.aborted) {
            options.logger.error('a read ran past its budget; its reader thread was replaced', {
              requestId: task.requestId,
              operationId: task.operationId,
              budgetMs: options.budgetMs,
            });
            throw new ReadBudgetExceeded(`${task.operationId} ran past ${options.budgetMs} ms`);
          }
          options.logger.error('a reader thread failed; it is replaced', {
            requestId: task.requestId,
            operationId: task.operationId,
            ...errorFields(error),
          });
          throw error;
        }
      }
      if (result instanceof Uint8Array || 'bytes' in result) return result;
      return raise(result);
    },
    /**
     * A download of a report (./downloads.ts): written on a reader thread to its spool file, sent
     * as it grows; see createDownloads.
     */
    export: downloads.export,
    /**
     * The New invoice page's preview (the invoices service's, as the member) on a reader thread,
     * in the same line as the heavy reads: a year of entries is read and made into lines there,
     * never on the request thread. Its refusal is raised again as its DomainError.
     */
    invoicePreview: (task: Omit<PreviewTask, 'type' | 'operationId'>): Promise<InvoicePreview> =>
      previewOnThread(pool, queue, options, { ...task, type: 'invoice-preview', operationId: 'invoicePreview' }),
    /**
     * Starts the pool and its kept threads (READER_THREADS_KEPT) now, if no read has: the server
     * calls it a second after it listens, so their start (each thread loads its bundle file: about
     * 75 ms of a 630 ms cold start on two cores, bench/cold-start.ts) is not on the path to the
     * first answer. A heavy read before that starts the pool itself.
     */
    keep(): void {
      pool?.start();
    },
    /** Reader threads running now (tests and metrics). */
    threads: () => pool?.threads.length ?? 0,
    /** The downloads' spool (tests look at its files). */
    spool: downloads.spool,
    async close(): Promise<void> {
      // Downloads still running are broken off and let go of their files before the spool goes.
      await downloads.close(async () => {
        await pool?.destroy();
      });
    },
  };
}

export type ReaderPool = ReturnType<typeof createReaderPool>;

type Pool = Piscina<ReadTask | ExportTask | PreviewTask, ReadResult | ExportOutcome>;

/** A piscina pool made at its first use or at `start()`, whichever comes first; none after `destroy()`. */
function startedLater(make: () => Pool) {
  let made: Pool | null = null;
  let destroyed = false;
  const pool = (): Pool => {
    if (destroyed) throw new Error('the reader pool is closed');
    return (made ??= make());
  };
  return {
    start(): void {
      if (!destroyed) pool();
    },
    run: ((task, runOptions) => pool().run(task, runOptions)) as Pool['run'],
    get threads(): Pool['threads'] {
      return made?.threads ?? [];
    },
    async destroy(): Promise<void> {
      destroyed = true;
      await made?.destroy();
    },
  };
}

type LaterPool = ReturnType<typeof startedLater>;

/** An invoice preview on a reader thread (or in-process without threads), in the line of the heavy reads. */
async function previewOnThread(
  pool: LaterPool | null,
  queue: ReturnType<typeof createThreadQueue>,
  options: Pick<ReaderOptions, 'budgetMs'> & { logger: Logger; services: Services; beforeRead?: () => void },
  task: PreviewTask,
): Promise<InvoicePreview> {
  if (!pool) return previewOf(runPreview(options.services, task));
  let signal: AbortSignal | null = null;
  try {
    return previewOf(
      await queue.run(() => {
        options.beforeRead?.();
        signal = AbortSignal.timeout(options.budgetMs);
        return pool.run(task, { signal }) as Promise<Uint8Array | Extract<ReadResult, { error: unknown }>>;
      }),
    );
  } catch (error) {
    if ((signal as AbortSignal | null)?.aborted) {
      options.logger.error('an invoice preview ran past its budget; its reader thread was replaced', {
        requestId: task.requestId,
        budgetMs: options.budgetMs,
      });
      throw new ReadBudgetExceeded(`the invoice preview ran past ${options.budgetMs} ms`);
    }
    if (!(error instanceof ThreadsBusy) && !(error instanceof DomainError))
      options.logger.error('an invoice preview failed on its reader thread; it is replaced', {
        requestId: task.requestId,
        ...errorFields(error),
      });
    throw error;
  }
}
