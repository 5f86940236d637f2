import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { DomainError, errorData } from '../../errors.js';
import { checkExport, ExportCancelled, type ExportRequest, type ExportSink, writeExport } from '../../modules/reports/service.js';
import type { Services } from '../../services.js';
import type { SpoolFile } from './spool.js';
import { type ActorData, actorOf, raise, type ReadResult } from './tasks.js';

/*
 * An export of a report on a reader thread (the Reports page's downloads): the thread reads the
 * report through the reports service as the member and writes the format, sending its bytes in
 * chunks over a port of its own; the request thread writes each chunk to the download's spool
 * file and acknowledges it once the disk took it, and sends the file to the socket as it grows
 * (issue 54, N2: acknowledged when the socket took them, a slow browser held the thread, and every
 * workspace's downloads waited behind it). At most WINDOW chunks are unacknowledged, so memory
 * holds a window, not the file. A browser that goes away cancels: the thread stops reading at its
 * next batch and is free again.
 */

/** The export as the request thread hands it over (its port travels in the transfer list). */
export interface ExportTask {
  type: 'export';
  /** What the reader threads' test hooks key on, as they key on a read's operation. */
  operationId: 'reportExport';
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
/** Request thread to thread: a chunk is on the spool; the export is stopped (its browser went away, or it was broken off). */
export type ExportReply = { type: 'ack' } | { type: 'cancel' };

/** Chunks (of 64 KiB) sent and not yet on the spool. */
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
  /** A chunk; `taken` once the socket took it (the next is handed over then). */
  chunk(bytes: Uint8Array, taken: () => void): void;
  /** The download is broken off (the browser marks it failed): see BrokenOff. */
  brokenOff(why: BrokenOff): void;
}

/**
 * Why a download was broken off before its end: its browser took nothing for the stall limit (it
 * stopped reading), it ran past its longest time (EXPORT_MAX_MS), or the server is stopping.
 */
export type BrokenOff = 'stalled' | 'expired' | 'stopping';

/** How an export ended for its receiver: whole, or cancelled (its browser went away, or it was broken off). */
export type Received = { rows: number; bytes: number } | { cancelled: true; why: 'gone' | BrokenOff };

/** Bytes read back from the spool and handed to the socket at a time. */
const SEND_BYTES = 64 * 1024;

/**
 * The request thread's side of an export (issue 54, N2): a channel whose far end `run` hands to
 * the export (a reader thread's, or runExport here); each chunk is written to the download's
 * spool file and acknowledged once the disk took it, so the thread writes at the disk's pace
 * and is free again when the file is written, whatever the browser's pace. From the first
 * chunk on, the file is read back and handed to `receiver` a chunk at a time, each once the one
 * before was taken; it is sent whole when the thread's end has come and every byte is taken.
 *
 * `limits.cancel` aborted (the browser went away) stops both; a chunk not taken within
 * `limits.stallMs` (a browser that stopped reading) and `limits.deadline` aborted (the longest a
 * download may take, reason 'expired', or the server stopping, 'stopping') break the download off
 * (`receiver.brokenOff`) and stop the thread if it still writes. A refusal before the first byte
 * is raised as its domain error; a failure of the thread or the spool is thrown. When this
 * returns, nothing reads or writes `spool` any more (the caller closes it).
 */
export async function receiveExport(
  task: Omit<ExportTask, 'port' | 'operationId'>,
  receiver: ExportReceiver,
  run: (task: ExportTask) => Promise<ExportOutcome>,
  spool: SpoolFile,
  limits: { stallMs: number; cancel: AbortSignal; deadline: AbortSignal },
): Promise<Received> {
  const { port1, port2 } = new MessageChannel();
  /** Bytes on the spool, and bytes the receiver took. */
  let written = 0;
  let sent = 0;
  /** The thread's end came and every chunk before it is on the spool. */
  let whole = false;
  let stopped: 'gone' | BrokenOff | 'failed' | null = null;
  let failure: unknown = null;
  /** The spool's writes, one after another. */
  let disk: Promise<void> = Promise.resolve();
  /** The sender, waiting for bytes or the end; the sender, waiting for the receiver to take a chunk. */
  let wake: (() => void) | null = null;
  let taking: (() => void) | null = null;
  let sending: Promise<void> = Promise.resolve();
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const nudge = () => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  const stop = (why: 'gone' | BrokenOff | 'failed', error?: unknown) => {
    if (stopped !== null) return;
    stopped = why;
    failure = error ?? null;
    port1.postMessage({ type: 'cancel' } satisfies ExportReply);
    if (why !== 'gone' && why !== 'failed') receiver.brokenOff(why);
    taking?.();
    nudge();
    finished();
  };
  /** Hands the spool's bytes to the receiver as they are written, one chunk taken before the next. */
  const send = async () => {
    while (stopped === null) {
      if (sent < written) {
        const buffer = new Uint8Array(Math.min(SEND_BYTES, written - sent));
        const read = await spool.read(buffer, sent);
        if (stopped !== null) return;
        if (read !== buffer.byteLength) throw new Error(`the spool gave ${read} of ${buffer.byteLength} bytes at ${sent}`);
        await new Promise<void>((resolve) => {
          let settled = false;
          const timer = setTimeout(() => stop('stalled'), limits.stallMs);
          const take = () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            if (taking === take) taking = null;
            resolve();
          };
          taking = take;
          receiver.chunk(buffer, take);
        });
        if (stopped !== null) return;
        sent += buffer.byteLength;
      } else if (whole) return finished();
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  port1.on('message', (message: ExportMessage) => {
    if (message.type === 'start') {
      // Stopped before it was allowed (its browser went, its time ran out): no headers, nothing sent.
      if (stopped !== null) return;
      receiver.start();
      sending = send().catch((error: unknown) => stop('failed', error));
    } else if (message.type === 'chunk') {
      const { bytes } = message;
      disk = disk
        .then(async () => {
          if (stopped !== null) return;
          await spool.write(bytes, written);
          written += bytes.byteLength;
          port1.postMessage({ type: 'ack' } satisfies ExportReply);
          nudge();
        })
        .catch((error: unknown) => stop('failed', error));
    } else
      disk = disk.then(() => {
        whole = true;
        nudge();
      });
  });
  const gone = () => stop('gone');
  const deadline = () => stop(limits.deadline.reason === 'stopping' ? 'stopping' : 'expired');
  for (const [signal, listener] of [
    [limits.cancel, gone],
    [limits.deadline, deadline],
  ] as const)
    if (signal.aborted) listener();
    else signal.addEventListener('abort', listener);
  try {
    let outcome: ExportOutcome;
    try {
      outcome = await run({ ...task, operationId: 'reportExport', port: port2 });
    } catch (error) {
      // Stopped while it waited or wrote (its thread ended, or it left the line): not a failure of its own.
      if (stopped !== null && stopped !== 'failed') return { cancelled: true, why: stopped };
      stop('failed', error);
      throw error;
    }
    if ('error' in outcome) return raise(outcome);
    // The thread is free again; what is left is the spool's to send.
    if (!('cancelled' in outcome)) await done;
    if (stopped === 'failed') throw failure;
    if (stopped !== null) return { cancelled: true, why: stopped };
    if ('cancelled' in outcome) return { cancelled: true, why: 'gone' };
    return outcome;
  } finally {
    limits.cancel.removeEventListener('abort', gone);
    limits.deadline.removeEventListener('abort', deadline);
    // Whatever ended it, the sender waits no more (it has returned unless the download stopped early).
    if (stopped === null) stop('gone');
    port1.close();
    await disk;
    await sending;
  }
}
