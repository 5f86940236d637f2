import { closeSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';

/**
 * Group commit (docs/design.md, "Durable writes"). The server's connection commits with
 * `synchronous=NORMAL` (a commit appends its frames to the WAL, no fsync), and `write()` counts
 * its commits here; before the answer to a request that committed leaves, the request waits for
 * a durability barrier: an `fdatasync` of the WAL file (on libuv's thread pool, off the request
 * thread) that started after its commit. One sync runs at a time and covers every commit made
 * before it started; the writes that commit while it runs wait for the next one, which starts as
 * soon as it ends. A lone write starts its sync at once (it waits for no company); under load one
 * sync acknowledges many writes. A sync that fails fails every write waiting on it (500, nothing
 * of theirs acknowledged), and every later one: after a failed fsync the kernel may have dropped
 * the dirty pages and report success next time, so the server stops acknowledging writes until
 * it is restarted (and recovers from what is on disk).
 */
export interface Durability {
  /** The commit that covers every write so far: those committed, and the batch still open (0 and constant without group commit). */
  commits(): number;
  /** Writes done so far (outermost write() calls; 0 and constant without group commit): a request that moved it waits for the barrier. */
  writes(): number;
  /** Resolves once commit number `commit` (and every one before it) is on disk; rejects if the sync covering it failed. */
  durable(commit: number): Promise<void>;
  /** Syncs done, and the commits they covered (metrics, the bench). */
  figures(): { syncs: number; commits: number };
  close(): void;
}

/** The durable step, replaceable by tests (a sync that fails, or waits to be released). */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

interface Counter {
  /** Commits made. */
  n: number;
  /** Outermost writes done. */
  writes: number;
  /** A batch transaction is open (its commit is scheduled): it will be commit n + 1. */
  open: boolean;
  /** Whether writes share a transaction (batching), see `openBatch`. */
  batching: boolean;
  /** Called after each commit (starts a sync for the writes waiting on it). */
  committed: () => void;
  /** A batch's commit failed: every write waiting, and every later one, fails. */
  fail: (error: Error) => void;
}

const counters = new WeakMap<Database.Database, Counter>();

/** write() calls this after each outermost write on a connection (a commit of its own, or its part of the open batch). */
export function noteWrite(sqlite: Database.Database): void {
  const counter = counters.get(sqlite);
  if (!counter) return;
  counter.writes += 1;
  if (!counter.open && !sqlite.inTransaction) {
    counter.n += 1;
    counter.committed();
  }
}

/**
 * Batching (the server's connection): an outermost write joins the transaction that is open, or
 * opens one (`BEGIN IMMEDIATE`) whose commit runs once the writes that arrived in the same turn of
 * the event loop are done (setImmediate). Each write is a savepoint inside it, so a write that
 * fails its own checks rolls back alone; the pages the writes share (the hot ends of the indexes,
 * the event log, the outbox) are written to the WAL once per batch instead of once per write.
 * No answer leaves before its batch is committed and synced (the barrier waits for the commit
 * number the batch will have). Returns false when the connection does not batch.
 */
export function openBatch(sqlite: Database.Database): boolean {
  const counter = counters.get(sqlite);
  if (!counter?.batching) return false;
  if (counter.open) return true;
  if (sqlite.inTransaction) return false;
  sqlite.exec('BEGIN IMMEDIATE');
  counter.open = true;
  setImmediate(() => commitBatch(sqlite, counter));
  return true;
}

function commitBatch(sqlite: Database.Database, counter: Counter): void {
  if (!counter.open) return;
  counter.open = false;
  try {
    // A statement error that aborts the whole transaction (I/O, disk full) ends the batch with it.
    if (!sqlite.inTransaction) throw new Error('the batch transaction was rolled back by SQLite');
    sqlite.exec('COMMIT');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    counter.fail(new Error(`a batch of writes could not be committed: ${(error as Error).message}`, { cause: error }));
    return;
  }
  counter.n += 1;
  counter.committed();
}

/** Commits the open batch now (before work that needs it committed on this connection: a backup, closing). */
export function flushBatch(sqlite: Database.Database): void {
  const counter = counters.get(sqlite);
  if (counter?.open) commitBatch(sqlite, counter);
}

/** Without group commit: every commit is synced by SQLite itself (synchronous=FULL) before it returns. */
export const IMMEDIATE: Durability = {
  commits: () => 0,
  writes: () => 0,
  durable: () => Promise.resolve(),
  figures: () => ({ syncs: 0, commits: 0 }),
  close: () => undefined,
};

/** Group commit over the WAL file `walPath` of `sqlite` (a WAL-mode connection with synchronous=NORMAL); `batching`: see openBatch. */
export function groupCommit(sqlite: Database.Database, walPath: string, sync: SyncFile = fdatasync, batching = false): Durability {
  const counter: Counter = {
    n: 0,
    writes: 0,
    open: false,
    batching,
    committed: () => start(),
    fail: (error) => {
      failure ??= error;
      settle();
    },
  };
  counters.set(sqlite, counter);
  // The WAL exists from the first write in WAL mode (the migrations, or an earlier run) and keeps
  // its inode while a connection is open: a checkpoint restarts or truncates it, never replaces it.
  const fd = openSync(walPath, 'r');
  let synced = 0;
  let running = false;
  let failure: Error | null = null;
  let syncs = 0;
  let covered = 0;
  const waiting: Array<{ commit: number; resolve: () => void; reject: (error: Error) => void }> = [];

  const settle = () => {
    for (let i = waiting.length - 1; i >= 0; i--) {
      const waiter = waiting[i] as (typeof waiting)[number];
      if (failure) waiter.reject(failure);
      else if (waiter.commit <= synced) waiter.resolve();
      else continue;
      waiting.splice(i, 1);
    }
  };

  const start = () => {
    // A sync covers the commits made before it starts: none is started for a batch still open.
    if (running || failure || !waiting.some((w) => w.commit <= counter.n)) return;
    running = true;
    const upTo = counter.n;
    sync(fd, (error) => {
      running = false;
      syncs += 1;
      if (error) failure = new Error(`the WAL could not be synced: ${error.message}`, { cause: error });
      else {
        covered += upTo - synced;
        synced = upTo;
      }
      settle();
      start();
    });
  };

  return {
    commits: () => counter.n + (counter.open ? 1 : 0),
    writes: () => counter.writes,
    durable(commit) {
      if (failure) return Promise.reject(failure);
      if (commit <= synced) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiting.push({ commit, resolve, reject });
        start();
      });
    },
    figures: () => ({ syncs, commits: covered }),
    close() {
      if (counter.open) commitBatch(sqlite, counter);
      counters.delete(sqlite);
      closeSync(fd);
    },
  };
}

/**
 * Runs a request's work and, when it committed (the connection's count moved while it ran),
 * waits for the barrier that makes its commits durable before handing back its result: so no
 * answer to a write leaves before the write is on disk. A run that awaits may see another
 * request's commits too and wait for them as well (a few milliseconds at most, never wrong).
 */
export function durably<T>(durability: Durability, run: () => T | Promise<T>): T | Promise<T> {
  const before = durability.writes();
  const result = run();
  if (result instanceof Promise) {
    return result.then((value) => (durability.writes() === before ? value : durability.durable(durability.commits()).then(() => value)));
  }
  return durability.writes() === before ? result : durability.durable(durability.commits()).then(() => result);
}
