import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import { DomainError } from '../errors.js';
import { errorFields, type Logger } from '../logger.js';
import type { Services } from '../services.js';
import { resolvePackage } from '../workers.js';
import type { EncodedBody } from '../kernel/compression.js';
import { type ExportOutcome, type ExportReceiver, type ExportTask, type Received, receiveExport, runExport } from './export.js';
import { raise, type ReaderThreadData, type ReadResult, type ReadTask, readHandlers, readTexts, runRead } from './tasks.js';
import { type PreviewTask, previewOf, runPreview } from './invoice-preview.js';
import type { InvoicePreview } from '../modules/invoices/service.js';

export interface ReaderOptions {
  /** Reader threads; 0 reads on the request thread (a :memory: database cannot be shared). */
  threads: number;
  /** A read that takes longer has its thread terminated and replaced, and answers 500. */
  budgetMs: number;
  /** A read that waits longer for a free thread is not started (ReadersBusy: 503). */
  queueMs: number;
  cacheMb: number;
  /** Threads kept ready while idle (started with the pool); the others end after 10 s without reads. */
  kept?: number;
  /** Tests: see ReaderThreadData. */
  hooks?: ReaderThreadData['hooks'];
  /** A download whose browser takes nothing for this long is broken off (EXPORT_STALL_MS by default; tests shorten it). */
  exportStallMs?: number;
}

/** The default size: one reader per core (the request thread mostly waits on them). */
export const defaultReaderThreads = (): number => Math.max(1, availableParallelism());

/** A read that waited for a free thread longer than the queue allows: not started; retry after `retryAfterSec`. */
export class ReadersBusy extends Error {
  override name = 'ReadersBusy';
  constructor(
    readonly waitedMs: number,
    readonly retryAfterSec: number,
  ) {
    super(`Every reader thread was busy for ${waitedMs} ms; retry in ${retryAfterSec} second${retryAfterSec === 1 ? '' : 's'}.`);
  }
}

/**
 * The waiting line in front of the threads: at most `slots` reads run at once, the others wait
 * in arrival order (first come, first served) for at most `queueMs` each; a read still waiting
 * then is taken out of the line and refused with ReadersBusy, so a client hears at once rather
 * than after seconds of silence, and the reads that are started finish within their own time.
 * Retry-After: the line ahead of a newcomer, at the recent reads' average time, over the slots.
 */
export function createReadQueue(slots: number, queueMs: number) {
  let running = 0;
  let averageMs = 100;
  const waiting: Array<{ start: () => void; timer: NodeJS.Timeout }> = [];
  const retryAfterSec = () => Math.max(1, Math.ceil(((waiting.length + 1) * averageMs) / slots / 1000));
  const release = (ms: number) => {
    averageMs = averageMs * 0.8 + ms * 0.2;
    running -= 1;
    const next = waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
    }
  };
  return {
    /** Runs `read` when a slot is free, or refuses it after `queueMs` in the line. */
    async run<T>(read: () => Promise<T>): Promise<T> {
      if (running >= slots) {
        await new Promise<void>((resolve, reject) => {
          const entry = {
            start: () => resolve(),
            timer: setTimeout(() => {
              waiting.splice(waiting.indexOf(entry), 1);
              reject(new ReadersBusy(queueMs, retryAfterSec()));
            }, queueMs),
          };
          waiting.push(entry);
        });
      }
      running += 1;
      const started = performance.now();
      try {
        return await read();
      } finally {
        release(performance.now() - started);
      }
    },
    /** Reads waiting for a slot now. */
    waiting: () => waiting.length,
  };
}

/**
 * How long an export may hold its reader thread (a year of a team as XLSX takes seconds; a slow
 * browser is what makes one long): past it the thread is replaced and the download broken off.
 */
export const EXPORT_BUDGET_MS = 10 * 60_000;

/**
 * A download whose browser took none of the bytes sent for this long (it stopped reading) is
 * broken off and its reader thread freed (issue 44, M3). A browser that reads, however slowly,
 * keeps it going: every chunk taken restarts the clock.
 */
export const EXPORT_STALL_MS = 30_000;

/** A member asked for a second download while their first is still being written (429: one at a time). */
const oneExportAtATime = () =>
  new DomainError(
    'rate_limited',
    'You are downloading another report already, and each member downloads one at a time: wait until it has finished (or cancel it in your browser), then try again.',
  );

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
    defaultTimeZone: string;
    logger: Logger;
    services: Services;
    /** Before a read goes to a thread (another connection): the server's open batch of writes committed, so the read sees them. */
    beforeRead?: () => void;
  },
) {
  const inProcess = options.threads === 0 || options.databasePath === ':memory:';
  const handlers = inProcess ? readHandlers(options.services) : null;
  const texts = inProcess ? readTexts(options.services) : {};
  const typescript = import.meta.url.endsWith('.ts');
  const workerData: ReaderThreadData = {
    databasePath: options.databasePath,
    secretKey: new Uint8Array(options.secretKey),
    defaultTimeZone: options.defaultTimeZone,
    cacheMb: options.cacheMb,
    ...(options.hooks ? { hooks: options.hooks } : {}),
  };
  const queue = createReadQueue(Math.max(1, options.threads), options.queueMs);
  // Exports wait in a line of one in front of the readers' line: all of them together hold at
  // most one reader thread, so heavy reads always have the others (issue 44, M3).
  const exportLine = createReadQueue(1, options.queueMs);
  /** The members whose download is being written now (one each). */
  const exporting = new Set<string>();
  const stallMs = options.exportStallMs ?? EXPORT_STALL_MS;
  const pool = inProcess
    ? null
    : new Piscina<ReadTask | ExportTask | PreviewTask, ReadResult | ExportOutcome>({
        filename: new URL(`../threads/reader-thread${typescript ? '.ts' : '.js'}`, import.meta.url).href,
        // READER_THREADS_KEPT (1 by default) start with the pool and stay ready: a thread's start
        // is 0.4-0.7 s of CPU, which the first report after a quiet spell waited for (issue 46
        // item 10); one idle reader holds 25-36 MB. The others start with the heavy reads and end
        // after 10 s idle, giving their memory back: a minute kept two idle readers' 40-60 MB each
        // alive through the writes that followed a burst of reports (the peak RSS of issue 27).
        minThreads: Math.min(options.kept ?? 0, options.threads),
        maxThreads: options.threads,
        idleTimeout: 10_000,
        workerData,
        // A reader's heap: room for the largest answers (a 6 MB summary), and a young generation
        // kept small so short-lived rows are collected early; a read that needs more fails (500)
        // and its thread is replaced.
        resourceLimits: { maxOldGenerationSizeMb: 160, maxYoungGenerationSizeMb: 8 },
        // Under tsx (tests) the threads register its loader before they import the module.
        ...(typescript ? { execArgv: ['--import', tsxEntry()] } : {}),
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
          if (error instanceof ReadersBusy) {
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
     * An export of a report (./export.ts) on a reader thread, in the same line as the heavy
     * reads: its chunks go to `receiver` as they are written; `cancel` aborted (the browser went
     * away) stops it at its next batch. Resolves once the last chunk was handed over; a refusal
     * before the first byte is raised as its domain error; a failure after it throws.
     */
    async export(task: Omit<ExportTask, 'port'>, receiver: ExportReceiver, cancel: AbortSignal): Promise<Received> {
      const member = task.actor.userId;
      if (exporting.has(member)) throw oneExportAtATime();
      exporting.add(member);
      try {
        return await receiveExport(task, receiver, cancel, runOnThread, stallMs);
      } finally {
        exporting.delete(member);
      }
    },
    /**
     * The New invoice page's preview (the invoices service's, as the member) on a reader thread,
     * in the same line as the heavy reads: a year of entries is read and made into lines there,
     * never on the request thread. Its refusal is raised again as its DomainError.
     */
    invoicePreview: (task: Omit<PreviewTask, 'type' | 'operationId'>): Promise<InvoicePreview> =>
      previewOnThread(pool, queue, options, { ...task, type: 'invoice-preview', operationId: 'invoicePreview' }),
    /** Reader threads running now (tests and metrics). */
    threads: () => pool?.threads.length ?? 0,
    async close(): Promise<void> {
      await pool?.destroy();
    },
  };

  /** An export on a reader thread: in the exports' line of one, then the readers' line, within its budget. */
  async function runOnThread(full: ExportTask): Promise<ExportOutcome> {
    if (!pool) return runExport(options.services, full);
    let signal: AbortSignal | null = null;
    try {
      return await exportLine.run(() =>
        queue.run(() => {
          options.beforeRead?.();
          signal = AbortSignal.timeout(EXPORT_BUDGET_MS);
          return pool.run(full, { signal, transferList: [full.port] as never }) as Promise<ExportOutcome>;
        }),
      );
    } catch (error) {
      const fields = { requestId: full.requestId, kind: full.request.kind, format: full.request.format, budgetMs: EXPORT_BUDGET_MS };
      if ((signal as AbortSignal | null)?.aborted)
        options.logger.error('an export ran past its budget; its reader thread was replaced', fields);
      else if (!(error instanceof ReadersBusy))
        options.logger.error('an export failed on its reader thread', { ...fields, ...errorFields(error) });
      throw error;
    }
  }
}

export type ReaderPool = ReturnType<typeof createReaderPool>;

/** An invoice preview on a reader thread (or in-process without threads), in the line of the heavy reads. */
async function previewOnThread(
  pool: Piscina | null,
  queue: ReturnType<typeof createReadQueue>,
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
    if (!(error instanceof ReadersBusy) && !(error instanceof DomainError))
      options.logger.error('an invoice preview failed on its reader thread; it is replaced', {
        requestId: task.requestId,
        ...errorFields(error),
      });
    throw error;
  }
}

/** tsx's loader entry (its package's `.` import export), as a file URL for --import. */
export function tsxEntry(): string {
  const manifest = resolvePackage('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, string | { import?: string }> };
  const main = exports['.'];
  const file = typeof main === 'string' ? main : main?.import;
  if (!file) throw new Error('tsx has no import export');
  return pathToFileURL(join(dirname(manifest), file)).href;
}
