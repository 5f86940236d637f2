import { statSync } from 'node:fs';
import type { Logger } from '../logger.js';
import { startThread } from './boot.js';
import type { CheckpointerData } from './checkpointer-thread.js';
import type { DatabaseHandle } from '../db/database.js';

/** WAL frames (4 KiB pages) after which the server's own connection checkpoints: a backstop. */
const BACKSTOP_FRAMES = 16_384;
/** SQLite's default threshold, restored if the checkpointer thread dies. */
const DEFAULT_FRAMES = 1_000;
/**
 * The WAL's size (bytes) from which the thread runs: what SQLite's own default would first
 * checkpoint (1,000 frames of a 4 KiB page and its 24-byte header). Below it nothing is worth a
 * checkpoint, and a server that writes little never starts the thread (the http tier's test
 * servers: 212 of 220 stayed under it).
 */
const START_BYTES = DEFAULT_FRAMES * (4_096 + 24);

/**
 * Runs SQLite's WAL checkpoints on a worker thread with its own connection. A checkpoint copies
 * the pages committed since the last one into the database file and syncs it; under a write load
 * that is a large part of a commit's cost, and done by the committing connection (SQLite's
 * default, every 1,000 pages) it stalls every request queued behind that commit. The server's
 * connection keeps a high threshold as a backstop: it still checkpoints (mostly already done, so
 * cheap) and lets the WAL restart from its beginning, which a checkpoint racing the writer cannot.
 *
 * The thread starts once the WAL first reaches `startBytes` (the file's size, looked at every
 * `intervalMs` × 5 on this thread; a thread costs ~60 ms of CPU and its memory to start), and
 * then runs until the server stops.
 */
export function startCheckpointer({
  database,
  path,
  logger,
  intervalMs = 100,
  startBytes = START_BYTES,
}: {
  database: DatabaseHandle;
  path: string;
  logger: Logger;
  intervalMs?: number;
  startBytes?: number;
}) {
  if (path === ':memory:') return { stop: async () => {} };
  database.sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
  let thread: ReturnType<typeof runThread> | null = null;
  const walPath = `${path}-wal`;
  const look = () => {
    if (thread !== null || (statSync(walPath, { throwIfNoEntry: false })?.size ?? 0) < startBytes) return;
    clearInterval(watch);
    thread = runThread({ database, path, logger, intervalMs });
  };
  const watch = setInterval(look, intervalMs * 5);
  watch.unref();
  // A log left large by the last run (a crash) is taken at once.
  look();
  return {
    /** Stops the thread (after its current checkpoint) and closes its connection. */
    async stop(): Promise<void> {
      clearInterval(watch);
      await thread?.stop();
    },
  };
}

function runThread({ database, path, logger, intervalMs }: { database: DatabaseHandle; path: string; logger: Logger; intervalMs: number }) {
  const workerData: CheckpointerData = { path, intervalMs };
  const worker = startThread(import.meta.url, './checkpointer-thread', {
    workerData,
    // A thread that only runs pragmas: a small heap keeps its footprint small.
    resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
  });
  let stopping = false;
  let exited = false;
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
