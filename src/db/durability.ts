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
  /** Commits counted so far (0 and constant without group commit). */
  commits(): number;
  /** Resolves once commit number `commit` (and every one before it) is on disk; rejects if the sync covering it failed. */
  durable(commit: number): Promise<void>;
  /** Syncs done, and the commits they covered (metrics, the bench). */
  figures(): { syncs: number; commits: number };
  close(): void;
}

/** The durable step, replaceable by tests (a sync that fails, or waits to be released). */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

const counters = new WeakMap<Database.Database, { n: number }>();

/** write() calls this after each outermost commit on a connection. */
export function noteCommit(sqlite: Database.Database): void {
  const counter = counters.get(sqlite);
  if (counter) counter.n += 1;
}

/** Without group commit: every commit is synced by SQLite itself (synchronous=FULL) before it returns. */
export const IMMEDIATE: Durability = {
  commits: () => 0,
  durable: () => Promise.resolve(),
  figures: () => ({ syncs: 0, commits: 0 }),
  close: () => undefined,
};

/** Group commit over the WAL file `walPath` of `sqlite` (a WAL-mode connection with synchronous=NORMAL). */
export function groupCommit(sqlite: Database.Database, walPath: string, sync: SyncFile = fdatasync): Durability {
  const counter = { n: 0 };
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
    if (running || failure || waiting.length === 0) return;
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
    commits: () => counter.n,
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
  const before = durability.commits();
  const result = run();
  if (result instanceof Promise) {
    return result.then((value) => {
      const after = durability.commits();
      return after === before ? value : durability.durable(after).then(() => value);
    });
  }
  const after = durability.commits();
  return after === before ? result : durability.durable(after).then(() => result);
}
