import { performance } from 'node:perf_hooks';
import { DomainError } from '../../errors.js';
import { errorFields, type Logger } from '../../logger.js';
import type { Services } from '../../services.js';
import { type ExportOutcome, type ExportReceiver, type ExportTask, type Received, receiveExport, runExport } from './export.js';
import { createFairQueue, type createThreadQueue, ThreadsBusy } from '../queue.js';
import { createExportSpool } from './spool.js';

/*
 * The Reports page's downloads (issue 44, M3; issue 54, N2): one per member at a time, each
 * written on a reader thread to a private spooled file at the disk's pace and sent from it as it
 * grows (./export.ts, ./spool.ts), so a browser's pace never holds a reader thread; all of them
 * on at most one reader thread at once, taking turns per workspace; each within EXPORT_MAX_MS.
 */

/**
 * How long an export may hold its reader thread (a year of a team as XLSX takes seconds: it is
 * written to its spool file at the disk's pace, not the browser's): past it the thread is
 * replaced and the download broken off. Never more than the download's own EXPORT_MAX_MS.
 */
export const EXPORT_BUDGET_MS = 10 * 60_000;

/**
 * How long a download waits in the exports' line for its turn on a reader thread, before 503
 * (with Retry-After). Longer than a heavy read's READ_QUEUE_MS: a download is a wait the member
 * chose, and each one holds the thread only while its file is written (seconds).
 */
export const EXPORT_QUEUE_MS = 30_000;

/**
 * A download whose browser took none of the bytes sent for this long (it stopped reading) is
 * broken off and its spool file freed (issue 44, M3). A browser that reads, however slowly, keeps
 * it going: every chunk the socket takes restarts the clock. (The kernel takes more only when a
 * third of the socket's send buffer is free: on loopback, with buffers of megabytes, a browser
 * reading 64 KiB/s has a chunk taken every ~20 s; over a network the buffers are far smaller.)
 */
export const EXPORT_STALL_MS = 30_000;

/** A member asked for a second download while their first is still being written (429: one at a time). */
const oneExportAtATime = () =>
  new DomainError(
    'rate_limited',
    'You are downloading another report already, and each member downloads one at a time: wait until it has finished (or cancel it in your browser), then try again.',
  );

/** What a download runs its export with: a reader thread's (piscina's run, `signal` its budget), or null to run it here. */
export type ExportRunner = ((task: ExportTask, signal: AbortSignal) => Promise<ExportOutcome>) | null;

/**
 * The downloads of a reader pool: `export` runs one (429 while its member has another), `close`
 * breaks off those still running (the server stops) and removes the spool, ending the reader
 * threads with `endThreads` once the downloads had 2 s to let go of them.
 */
export function createDownloads(options: {
  run: ExportRunner;
  /** The heavy reads' line: an export's turn in the exports' line is followed by its place in this one. */
  queue: ReturnType<typeof createThreadQueue>;
  services: Services;
  logger: Logger;
  databasePath: string;
  /** EXPORT_MAX_MS. */
  maxMs: number;
  stallMs?: number;
  queueMs?: number;
  beforeRead?: () => void;
}) {
  const { maxMs, logger } = options;
  const spool = createExportSpool(options.databasePath);
  // Exports wait in a line of one in front of the readers' line: all of them together hold at
  // most one reader thread, so heavy reads always have the others (issue 44, M3); a line per
  // workspace, taking turns, so one workspace's downloads cannot starve another's (issue 54, N2).
  const exportLine = createFairQueue(1, Math.min(options.queueMs ?? EXPORT_QUEUE_MS, maxMs));
  /** The members whose download is being written or sent now (one each). */
  const exporting = new Set<string>();
  const stallMs = options.stallMs ?? EXPORT_STALL_MS;
  const renderBudgetMs = Math.min(EXPORT_BUDGET_MS, maxMs);
  /** Aborted when the pool closes (the server stops): every download still running is broken off. */
  const stopping = new AbortController();
  /** The downloads running now (close waits for them to let go of their files). */
  const running = new Set<Promise<unknown>>();

  /**
   * An export on a reader thread: in the exports' line of one (its workspace's turn), then the
   * readers' line, within its budget; `leave` aborted takes it out of the exports' line.
   */
  async function runOnThread(full: ExportTask, leave: AbortSignal): Promise<ExportOutcome> {
    const run = options.run;
    if (!run) return runExport(options.services, full);
    let signal: AbortSignal | null = null;
    try {
      return await exportLine.run(
        full.actor.workspaceId,
        () =>
          options.queue.run(async () => {
            options.beforeRead?.();
            signal = AbortSignal.timeout(renderBudgetMs);
            const started = performance.now();
            const outcome = await run(full, signal);
            if ('rows' in outcome)
              logger.debug('an export was written to its spool file; its reader thread is free', {
                requestId: full.requestId,
                rows: outcome.rows,
                bytes: outcome.bytes,
                ms: Math.round(performance.now() - started),
              });
            return outcome;
          }),
        leave,
      );
    } catch (error) {
      const fields = { requestId: full.requestId, kind: full.request.kind, format: full.request.format, budgetMs: renderBudgetMs };
      if ((signal as AbortSignal | null)?.aborted) logger.error('an export ran past its budget; its reader thread was replaced', fields);
      else if (!(error instanceof ThreadsBusy) && !leave.aborted)
        logger.error('an export failed on its reader thread', { ...fields, ...errorFields(error) });
      throw error;
    }
  }

  /**
   * A download: its spool file opened, the export written to it on a reader thread while the
   * file is sent as it grows, the file closed (freed) however it ends. Within EXPORT_MAX_MS from
   * here, or broken off.
   */
  async function spooled(task: Omit<ExportTask, 'port' | 'operationId'>, receiver: ExportReceiver, cancel: AbortSignal): Promise<Received> {
    const expiry = new AbortController();
    const timer = setTimeout(() => expiry.abort('expired'), maxMs);
    const deadline = AbortSignal.any([expiry.signal, stopping.signal]);
    // Leaving the line, too, when the browser goes or the time is up.
    const leave = AbortSignal.any([cancel, deadline]);
    const file = await spool.open();
    try {
      const received = await receiveExport(task, receiver, (full) => runOnThread(full, leave), file, { stallMs, cancel, deadline });
      if ('why' in received && received.why === 'expired')
        logger.warn('an export ran past EXPORT_MAX_MS; the download was broken off', {
          requestId: task.requestId,
          kind: task.request.kind,
          format: task.request.format,
          maxMs,
        });
      return received;
    } finally {
      clearTimeout(timer);
      await file.close();
    }
  }

  return {
    /**
     * A download of a report (./export.ts): its chunks go to `receiver` as they are written to its
     * spool file; `cancel` aborted (the browser went away) stops it. Resolves once the last chunk
     * was taken; a refusal before the first byte is raised as its domain error; a failure after
     * it throws. 429 while the member has another download running; 503 while the server stops.
     */
    async export(task: Omit<ExportTask, 'port' | 'operationId'>, receiver: ExportReceiver, cancel: AbortSignal): Promise<Received> {
      const member = task.actor.userId;
      if (exporting.has(member)) throw oneExportAtATime();
      if (stopping.signal.aborted) throw new ThreadsBusy(0, 1);
      exporting.add(member);
      const download = spooled(task, receiver, cancel).finally(() => {
        exporting.delete(member);
        running.delete(download);
      });
      running.add(download);
      return download;
    },
    spool,
    async close(endThreads: () => Promise<void>): Promise<void> {
      // Their threads stop at their next batch (2 s at most, then they are ended with the pool).
      stopping.abort('stopping');
      const settled = Promise.allSettled([...running]);
      await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await endThreads();
      await settled;
      await spool.close();
    },
  };
}
