import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Clock } from '../clock.js';
import type { Synchronous } from '../db/database.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { ImportOutcome, ImportProgress, ImportRequest } from '../modules/imports/service.js';
import type { Actor } from '../principal.js';
import { startThread } from '../workers.js';
import type { ImportThreadData, ImportThreadMessage } from './import-thread.js';

/** One run of the Import page: a dry run (the preview) or the import, on an uploaded file. */
export interface ImportJob {
  id: string;
  kind: 'preview' | 'import' | 'undo';
  /** The import an undo run takes back. */
  importId: string | null;
  /** What an undo run deleted. */
  deleted: number | null;
  userId: string;
  workspaceId: string;
  fileName: string;
  /** The uploaded file and the options it runs with (the import after a preview reuses them). */
  request: Omit<ImportRequest, 'progress'>;
  state: 'running' | 'done' | 'refused' | 'failed';
  progress: ImportProgress | null;
  outcome: ImportOutcome | null;
  /** Why it was refused (a whole-file refusal) or failed. */
  message: string | null;
  /** The refusal's domain code (the page answers with the API's status for it). */
  code: DomainError['code'] | null;
  startedAt: number;
}

/** Runs kept for the page to show: an hour after they started. */
const KEEP_MS = 60 * 60_000;
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
}) {
  const uploads = mkdtempSync(join(tmpdir(), 'timetrack-uploads-'));
  const jobs = new Map<string, ImportJob>();
  const workers = new Set<Worker>();

  function forget(): void {
    const now = options.clock.now();
    for (const [id, job] of jobs) {
      if (job.state !== 'running' && now - job.startedAt > KEEP_MS) {
        jobs.delete(id);
        if (![...jobs.values()].some((other) => other.request.path === job.request.path)) rmSync(job.request.path, { force: true });
      }
    }
  }

  return {
    /** Where an upload is written (a new file in the runner's directory). */
    uploadPath(): string {
      mkdirSync(uploads, { recursive: true });
      return join(uploads, `${newId('upl')}.csv`);
    },

    /** Starts a run for the member; refused while two run already. */
    start(
      actor: Actor,
      kind: ImportJob['kind'],
      request: Omit<ImportRequest, 'progress'>,
      fileName: string,
      importId: string | null = null,
    ): ImportJob {
      forget();
      if ([...jobs.values()].filter((j) => j.state === 'running').length >= AT_ONCE) {
        throw new DomainError('rate_limited', 'Two imports are running on this server already: try again when one has finished.');
      }
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
      };
      jobs.set(job.id, job);
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
        else Object.assign(job, { state: message.type, message: message.message, code: message.type === 'refused' ? message.code : null });
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
      });
      worker.on('exit', () => {
        workers.delete(worker);
        if (job.state === 'running') Object.assign(job, { state: 'failed', message: 'The import stopped unexpectedly.' });
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

    /** Stops the runs in progress (their imports are cleaned up at the next start) and removes the uploads. */
    async close(): Promise<void> {
      await Promise.all([...workers].map((w) => w.terminate()));
      rmSync(uploads, { recursive: true, force: true });
    },
  };
}

export type ImportRunner = ReturnType<typeof createImportRunner>;
