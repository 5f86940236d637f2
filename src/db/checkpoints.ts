import Database from 'better-sqlite3';

/**
 * The WAL checkpointer's own connection (src/threads/checkpointer-thread.ts runs it): it never
 * writes rows, so it never checkpoints on its own schedule; each `checkpoint()` is a PASSIVE one,
 * which copies what no reader still needs and never waits for or blocks the writer.
 */
export function openCheckpointConnection(path: string): { checkpoint(): void; close(): void } {
  const sqlite = new Database(path);
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('wal_autocheckpoint = 0');
  return {
    checkpoint: () => void sqlite.pragma('wal_checkpoint(PASSIVE)'),
    close: () => sqlite.close(),
  };
}
