import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { DomainError, errorData } from '../errors.js';
import { checkExport, ExportCancelled, type ExportRequest, type ExportSink, writeExport } from '../modules/reports/export/index.js';
import type { Services } from '../services.js';
import { type ActorData, actorOf, raise, type ReadResult } from './tasks.js';

/*
 * An export of a report on a reader thread (the Reports page's downloads): the thread reads the
 * report through the reports service as the member and writes the format, sending its bytes in
 * chunks over a port of its own; the request thread writes each chunk to the socket and
 * acknowledges it once the socket took it. At most WINDOW chunks are unacknowledged, so a slow
 * browser slows the read and memory holds a window, not the file. A browser that goes away
 * cancels: the thread stops reading at its next batch and is free again.
 */

/** The export as the request thread hands it over (its port travels in the transfer list). */
export interface ExportTask {
  type: 'export';
  request: ExportRequest;
  actor: ActorData;
  /** The request's clock reading. */
  now: number;
  requestId: string;
  port: MessagePort;
}

/** How an export ended: written whole, cancelled by its receiver, or refused before its first byte. */
export type ExportOutcome = { rows: number; bytes: number } | { cancelled: true } | Extract<ReadResult, { error: unknown }>;

/** Thread to request thread: the export is allowed (headers may go), a chunk, the end (nothing follows). */
export type ExportMessage = { type: 'start' } | { type: 'chunk'; bytes: Uint8Array } | { type: 'end'; rows: number; bytes: number };
/** Request thread to thread: a chunk went to the socket; the receiver went away. */
export type ExportReply = { type: 'ack' } | { type: 'cancel' };

/** Chunks (of 64 KiB) sent and not yet taken by the socket. */
export const WINDOW = 8;

/** Runs an export and reports it on the task's port (a reader thread's, or the request thread's own without threads). */
export async function runExport(services: Pick<Services, 'reports'>, task: ExportTask): Promise<ExportOutcome> {
  const { port } = task;
  let inFlight = 0;
  let cancelled = false;
  let wake: (() => void) | null = null;
  const listener = (message: ExportReply) => {
    if (message.type === 'cancel') cancelled = true;
    else inFlight -= 1;
    wake?.();
    wake = null;
  };
  port.on('message', listener);
  try {
    let table;
    try {
      table = services.reports.exportTable(actorOf(task.actor), task.request);
      checkExport(table, task.request.format);
    } catch (error) {
      if (error instanceof DomainError) return { error: errorData(error) };
      throw error;
    }
    port.postMessage({ type: 'start' } satisfies ExportMessage);
    const sink: ExportSink = {
      get cancelled() {
        return cancelled;
      },
      async write(chunk: Uint8Array) {
        if (cancelled) throw new ExportCancelled();
        // A buffer of its own (a small one may be a slice of Node's shared pool), moved, not copied, to the request thread.
        const bytes = new Uint8Array(chunk);
        port.postMessage({ type: 'chunk', bytes } satisfies ExportMessage, [bytes.buffer]);
        inFlight += 1;
        while (inFlight >= WINDOW && !cancelled) await new Promise<void>((resolve) => (wake = resolve));
        if (cancelled) throw new ExportCancelled();
      },
    };
    const written = await writeExport(table, task.request.format, sink);
    port.postMessage({ type: 'end', ...written } satisfies ExportMessage);
    return written;
  } catch (error) {
    if (error instanceof ExportCancelled) return { cancelled: true };
    throw error;
  } finally {
    port.off('message', listener);
  }
}

/** What the request thread does with an export's bytes (the page writes them to the socket). */
export interface ExportReceiver {
  /** The export was allowed: headers may be sent. */
  start(): void;
  /** A chunk; `taken` once the socket took it (the thread may then send more). */
  chunk(bytes: Uint8Array, taken: () => void): void;
  /** Nothing sent was taken for the stall limit (a browser that stopped reading): the download is broken off. */
  stalled(): void;
}

/** How an export ended for its receiver: whole, or cancelled (the browser went away, or stopped reading: `stalled`). */
export type Received = { rows: number; bytes: number } | { cancelled: true; stalled: boolean };

/**
 * The request thread's side of an export: a channel whose far end `run` hands to the export
 * (a reader thread's, or runExport here), its chunks to `receiver` (each acknowledged once taken),
 * `cancel` aborted passed on. A receiver that takes nothing of what was sent for `stallMs` (a
 * browser that stopped reading) has the export cancelled and is told `stalled` (issue 44, M3:
 * such a download held a reader thread for up to 10 minutes). Resolves once the last chunk was
 * taken; a refusal before the first byte is raised as its domain error.
 */
export async function receiveExport(
  task: Omit<ExportTask, 'port'>,
  receiver: ExportReceiver,
  cancel: AbortSignal,
  run: (task: ExportTask) => Promise<ExportOutcome>,
  stallMs: number,
): Promise<Received> {
  const { port1, port2 } = new MessageChannel();
  let ended!: () => void;
  const end = new Promise<void>((resolve) => (ended = resolve));
  // Chunks handed to the receiver and not taken yet; the stall clock runs while there are any.
  let waiting = 0;
  let stalled = false;
  let timer: NodeJS.Timeout | null = null;
  let drained: (() => void) | null = null;
  const stop = () => port1.postMessage({ type: 'cancel' } satisfies ExportReply);
  const stall = () => {
    stalled = true;
    stop();
    receiver.stalled();
    ended();
    drained?.();
  };
  const clock = () => {
    if (timer !== null) clearTimeout(timer);
    timer = waiting > 0 && !stalled ? setTimeout(stall, stallMs) : null;
  };
  port1.on('message', (message: ExportMessage) => {
    if (message.type === 'start') receiver.start();
    else if (message.type === 'chunk') {
      waiting += 1;
      if (timer === null) clock();
      receiver.chunk(message.bytes, () => {
        waiting -= 1;
        clock();
        if (waiting === 0) drained?.();
        port1.postMessage({ type: 'ack' } satisfies ExportReply);
      });
    } else ended();
  });
  cancel.addEventListener('abort', stop);
  try {
    const outcome = await run({ ...task, port: port2 });
    if ('error' in outcome) return raise(outcome);
    if ('cancelled' in outcome) return { cancelled: true, stalled };
    await end;
    // Written whole: it is done once the socket took the last chunk (or stopped taking them).
    if (waiting > 0 && !stalled) await new Promise<void>((resolve) => (drained = resolve));
    return stalled ? { cancelled: true, stalled } : outcome;
  } finally {
    if (timer !== null) clearTimeout(timer);
    cancel.removeEventListener('abort', stop);
    port1.close();
  }
}
