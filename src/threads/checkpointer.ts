import type { Logger } from '../logger.js';
import { startThread } from './boot.js';
import type { CheckpointerData } from './checkpointer-thread.js';
import type { DatabaseHandle } from '../db/database.js';

/** WAL frames (4 KiB pages) after which the server's own connection checkpoints: a backstop. */
const BACKSTOP_FRAMES = 16_384;
/** SQLite's default threshold, restored if the checkpointer thread dies. */
const DEFAULT_FRAMES = 1_000;

/**
 * Runs SQLite's WAL checkpoints on a worker thread with its own connection. A checkpoint copies
 * the pages committed since the last one into the database file and syncs it; under a write load
 * that is a large part of a commit's cost, and done by the committing connection (SQLite's
 * default, every 1,000 pages) it stalls every request queued behind that commit. The server's
 * connection keeps a high threshold as a backstop: it still checkpoints (mostly already done, so
 * cheap) and lets the WAL restart from its beginning, which a checkpoint racing the writer cannot.
 */
export function startCheckpointer({
  database,
  path,
  logger,
  intervalMs = 100,
}: {
  database: DatabaseHandle;
  path: string;
  logger: Logger;
  intervalMs?: number;
}) {
  if (path === ':memory:') return { stop: async () => {} };
  const workerData: CheckpointerData = { path, intervalMs };
  const worker = startThread(import.meta.url, './checkpointer-thread', {
    workerData,
    // A thread that only runs pragmas: a small heap keeps its footprint small.
    resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
  });
  let stopping = false;
  let exited = false;
  database.sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
  worker.on('message', (message: { error?: string }) => {
    if (message.error) logger.warn('a WAL checkpoint failed; it is retried', { error: message.error });
  });
  worker.on('error', (error) => logger.error('the checkpointer thread failed', { error: error.message }));
  worker.on('exit', () => {
    exited = true;
    if (stopping || !database.sqlite.open) return;
    logger.warn('the checkpointer thread stopped; the server checkpoints on its own again');
    database.sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_FRAMES}`);
  });
  // It never keeps the process alive on its own.
  worker.unref();
  return {
    /** Stops the thread (after its current checkpoint) and closes its connection. */
    async stop(): Promise<void> {
      stopping = true;
      if (exited) return;
      const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Referenced again, so the process waits for the thread's last checkpoint and close.
      worker.ref();
      worker.postMessage('stop');
      await gone;
    },
  };
}

export type Checkpointer = ReturnType<typeof startCheckpointer>;
