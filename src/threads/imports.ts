import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Clock } from '../clock.js';
import type { Synchronous } from '../db/database.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Writable } from 'node:stream';
import type { ExportCounts, ImportProgress, ImportRequest } from '../modules/imports/service.js';
import type { Actor } from '../principal.js';
import { startThread } from './boot.js';
import { createUploadStore, type UploadSlot } from './uploads.js';

export type { UploadSlot } from './uploads.js';
import type { ImportThreadData, ImportThreadMessage } from './import-thread.js';

import type { ImportJob } from './import-job.js';
export type { ImportJob };

/** How often expired runs and their files are swept, besides at each upload. */
const SWEEP_MS = 60_000;
const busy = () => new DomainError('rate_limited', 'Two imports are running on this server already: try again when one has finished.');
/** Imports running at once (each takes a core while it parses). */
const AT_ONCE = 2;
/**
 * The heap an import thread may use (V8's old and young generations). The engine streams the
 * file and holds per row only a number (its fingerprint's first bytes): a million rows check in
 * about 60 MB. A thread past it is ended by V8 (ERR_WORKER_OUT_OF_MEMORY), not the server.
 */
export const IMPORT_THREAD_HEAP_MB = 256;

/**
 * The Import page's runs, each on a worker thread of its own (./import-thread.ts) so the request
 * thread never parses or writes a row: uploads kept in a private directory, the runs' progress
 * and outcomes kept in memory for an hour, only for the member who started them.
 */
export function createImportRunner(options: {
  databasePath: string;
  secretKey: Buffer;
  synchronous: Synchronous;
  clock: Clock;
  logger: Logger;
  /** IMPORT_UPLOAD_MAX_MB, IMPORT_UPLOADS_MEMBER_MB, IMPORT_UPLOADS_TOTAL_MB: a file, a member's stored files, the server's (bytes). */
  limits: { fileBytes: number; memberBytes: number; totalBytes: number };
}) {
  // Beside the database (the disk the operator sized for data, not a /tmp that may be memory); a
  // throwaway database's in the temp directory.
  const beside = options.databasePath === ':memory:' ? tmpdir() : dirname(options.databasePath);
  const uploads = mkdtempSync(join(beside, 'timetrack-uploads-'));
  const jobs = new Map<string, ImportJob>();
  const workers = new Set<Worker>();
  const store = createUploadStore({ dir: uploads, jobs, limits: options.limits, clock: options.clock });
  const sweeper = setInterval(() => store.forget(), SWEEP_MS);
  sweeper.unref();
  const running = () => [...jobs.values()].filter((j) => j.state === 'running').length + store.uploading();
  let exporting = false;

  return {
    /**
     * A place for a member's upload, taken before its body is read: refused (429) while two
     * runs or uploads are under way, or when the member's or the server's stored files leave no
     * room; else the path to write and the most it may hold. Nothing is written for a refusal.
     */
    reserveUpload(actor: Actor): UploadSlot {
      store.forget();
      if (running() >= AT_ONCE) throw busy();
      return store.reserve(actor.userId);
    },

    /** Starts a run for the member; refused while two run already. */
    start(
      actor: Actor,
      kind: ImportJob['kind'],
      request: Omit<ImportRequest, 'progress'>,
      fileName: string,
      importId: string | null = null,
      upload: { slot: UploadSlot; bytes: number } | null = null,
    ): ImportJob {
      store.forget();
      // An upload's place becomes its run: it is counted once.
      if (upload) store.uploaded(upload.slot.path, upload.bytes);
      else if (running() >= AT_ONCE) throw busy();
      const job: ImportJob = {
        id: newId('job'),
        kind,
        importId,
        deleted: null,
        userId: actor.userId,
        workspaceId: actor.workspaceId,
        fileName,
        request: { ...request, fileName, dryRun: kind === 'preview' },
        state: 'running',
        progress: null,
        outcome: null,
        message: null,
        code: null,
        startedAt: options.clock.now(),
        fileGone: false,
      };
      jobs.set(job.id, job);
      // The import of a check takes its file over: the check no longer keeps it (it goes when the import ends).
      if (kind === 'import') for (const j of jobs.values()) if (j.kind === 'preview' && j.request.path === request.path) j.fileGone = true;
      const workerData: ImportThreadData = {
        databasePath: options.databasePath,
        secretKey: new Uint8Array(options.secretKey),
        synchronous: options.synchronous,
        principal: actor,
        request: job.request,
        undo: kind === 'undo' ? importId : null,
      };
      const worker = startThread(import.meta.url, './import-thread', {
        workerData,
        resourceLimits: { maxOldGenerationSizeMb: IMPORT_THREAD_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      });
      workers.add(worker);
      worker.on('message', (message: ImportThreadMessage) => {
        if (message.type === 'progress') job.progress = message as unknown as ImportProgress;
        else if (message.type === 'done') Object.assign(job, { state: 'done', outcome: message.outcome });
        else if (message.type === 'undone') Object.assign(job, { state: 'done', deleted: message.deleted });
        else if (message.type === 'refused' || message.type === 'failed')
          Object.assign(job, { state: message.type, message: message.message, code: message.type === 'refused' ? message.code : null });
        if (job.state !== 'running') store.ended(job);
      });
      worker.on('error', (error: Error & { code?: string }) => {
        options.logger.error('import thread failed', { jobId: job.id, message: error.message, code: error.code });
        Object.assign(job, {
          state: 'failed',
          message:
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? `The import needed more than the ${IMPORT_THREAD_HEAP_MB} MB of memory an import may use on the server, and was stopped; what it wrote is removed. Import the file with timetrack import on the server, or in parts.`
              : 'The import stopped unexpectedly; what it wrote was removed. The error was logged.',
        });
        store.ended(job);
      });
      worker.on('exit', () => {
        workers.delete(worker);
        if (job.state === 'running') Object.assign(job, { state: 'failed', message: 'The import stopped unexpectedly.' });
        store.ended(job);
      });
      return job;
    },

    /** A run of the member's (not_found for anyone else's). */
    job(actor: Actor, id: string): ImportJob {
      const job = jobs.get(id);
      if (!job || job.userId !== actor.userId || job.workspaceId !== actor.workspaceId)
        throw new DomainError('not_found', 'This import run was not found (runs are kept for an hour).');
      return job;
    },

    /**
     * A workspace's export for its owner, made on a thread of its own connection (one at a time
     * on the server: it takes a core while it runs); refused 429 while another runs.
     */
    exportWorkspace(actor: Actor, q: { workspaceId: string; from?: string; to?: string }): ExportRun {
      if (exporting) throw new DomainError('rate_limited', 'An export is running on this server already: try again in a moment.');
      exporting = true;
      const run = startExport({ ...options, principal: actor, q, workers });
      run.finished.finally(() => (exporting = false)).catch(() => undefined);
      return run;
    },

    /** What the uploads directory holds now, in bytes (a member's, or everyone's): what the limits count. */
    stored: (userId: string | null = null): number => store.storedBy(userId),

    /** Stops the runs in progress (their imports are cleaned up at the next start) and removes the uploads. */
    async close(): Promise<void> {
      clearInterval(sweeper);
      await Promise.all([...workers].map((w) => w.terminate()));
      rmSync(uploads, { recursive: true, force: true });
    },
  };
}

export type ImportRunner = ReturnType<typeof createImportRunner>;

/** A workspace's export under way on its thread. */
export interface ExportRun {
  /** The file's name once the export has begun; rejects with the refusal (who may, the range) before any byte. */
  ready: Promise<string>;
  /** Writes the chunks into `out` as the thread makes them, the next asked for once `out` has taken the last. */
  into(out: Writable): Promise<ExportCounts>;
  /** The download was given up: the thread is ended. */
  cancel(): void;
  /** Settles when the export has ended, however it ended (done, refused, failed, given up). */
  finished: Promise<void>;
}

/** Starts an export thread (./import-thread.ts with exportOf) and hands its chunks on with backpressure. */
function startExport(a: {
  databasePath: string;
  secretKey: Buffer;
  synchronous: Synchronous;
  logger: Logger;
  principal: Actor;
  q: { workspaceId: string; from?: string; to?: string };
  workers: Set<Worker>;
}): ExportRun {
  const workerData: ImportThreadData = {
    databasePath: a.databasePath,
    secretKey: new Uint8Array(a.secretKey),
    synchronous: a.synchronous,
    principal: a.principal,
    request: { workspaceId: a.q.workspaceId, path: '' },
    undo: null,
    exportOf: a.q,
  };
  const worker = startThread(import.meta.url, './import-thread', {
    workerData,
    resourceLimits: { maxOldGenerationSizeMb: IMPORT_THREAD_HEAP_MB, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
  });
  a.workers.add(worker);
  let out: Writable | null = null;
  let settle: { resolve: (counts: ExportCounts) => void; reject: (error: Error) => void } | null = null;
  let began: { resolve: (name: string) => void; reject: (error: Error) => void } | null = null;
  const ready = new Promise<string>((resolve, reject) => (began = { resolve, reject }));
  ready.catch(() => undefined);
  let ended: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (ended = resolve));
  const fail = (error: Error) => {
    began?.reject(error);
    settle?.reject(error);
    ended();
  };
  worker.on('message', (message: ImportThreadMessage) => {
    if (message.type === 'export-start') began?.resolve(message.fileName);
    else if (message.type === 'chunk') {
      const target = out as Writable;
      const next = () => worker.postMessage('next');
      if (target.write(message.bytes)) next();
      else target.once('drain', next);
    } else if (message.type === 'export-done') {
      settle?.resolve(message.counts);
      ended();
    } else if (message.type === 'refused') fail(new DomainError(message.code, message.message));
    else if (message.type === 'failed') fail(new Error(message.message));
  });
  worker.on('error', (error) => {
    a.logger.error('export thread failed', { message: error.message });
    fail(error);
  });
  worker.on('exit', () => {
    a.workers.delete(worker);
    fail(new Error('The export stopped.'));
  });
  return {
    ready,
    into(target) {
      out = target;
      const done = new Promise<ExportCounts>((resolve, reject) => (settle = { resolve, reject }));
      worker.postMessage('next');
      return done;
    },
    cancel: () => void worker.terminate(),
    finished,
  };
}
