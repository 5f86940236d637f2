import { performance } from 'node:perf_hooks';

/*
 * The lines in front of the threads' pools: the heavy reads' and the documents' (first come,
 * first served) and the downloads' (taking turns per workspace). Work that waits too long is
 * refused at once (ThreadsBusy: 503 with Retry-After) rather than answered after seconds of
 * silence.
 */

/** Which pool's threads were busy. */
export type ThreadKind = 'reader' | 'document';

/** Work that waited for a free thread longer than its line allows: not started; retry after `retryAfterSec`. */
export class ThreadsBusy extends Error {
  override name = 'ThreadsBusy';
  constructor(
    readonly waitedMs: number,
    readonly retryAfterSec: number,
    readonly kind: ThreadKind = 'reader',
  ) {
    super(`Every ${kind} thread was busy for ${waitedMs} ms; retry in ${retryAfterSec} second${retryAfterSec === 1 ? '' : 's'}.`);
  }
}

/**
 * The waiting line in front of the threads: at most `slots` reads run at once, the others wait
 * in arrival order (first come, first served) for at most `queueMs` each; a read still waiting
 * then is taken out of the line and refused with ThreadsBusy, so a client hears at once rather
 * than after seconds of silence, and the reads that are started finish within their own time.
 * Retry-After: the line ahead of a newcomer, at the recent reads' average time, over the slots.
 */
export function createThreadQueue(slots: number, queueMs: number, kind: ThreadKind = 'reader') {
  let running = 0;
  let averageMs = 100;
  const waiting: Array<{ start: () => void; timer: NodeJS.Timeout }> = [];
  const retryAfterSec = () => Math.max(1, Math.ceil(((waiting.length + 1) * averageMs) / slots / 1000));
  const release = (ms: number) => {
    averageMs = averageMs * 0.8 + ms * 0.2;
    running -= 1;
    const next = waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
    }
  };
  return {
    /** Runs `read` when a slot is free, or refuses it after `queueMs` in the line. */
    async run<T>(read: () => Promise<T>): Promise<T> {
      if (running >= slots) {
        await new Promise<void>((resolve, reject) => {
          const entry = {
            start: () => resolve(),
            timer: setTimeout(() => {
              waiting.splice(waiting.indexOf(entry), 1);
              reject(new ThreadsBusy(queueMs, retryAfterSec(), kind));
            }, queueMs),
          };
          waiting.push(entry);
        });
      }
      running += 1;
      const started = performance.now();
      try {
        return await read();
      } finally {
        release(performance.now() - started);
      }
    },
    /** Reads waiting for a slot now. */
    waiting: () => waiting.length,
  };
}

/**
 * The exports' line (issue 54, N2): at most `slots` run at once; the others wait, each for at most
 * `waitMs` (then ThreadsBusy), in a line per workspace. When a slot frees, the next export is the
 * first waiting one of the workspace whose last export started longest ago (one that never had
 * one first; between those, the one waiting longest): a workspace whose members ask for ten
 * downloads has its next turn after every other workspace waiting has had one, so it cannot
 * starve them. An export whose `signal` is aborted while it waits leaves the line (rejected with
 * the signal's reason).
 */
export function createFairQueue(slots: number, waitMs: number) {
  interface Waiting {
    key: string;
    arrived: number;
    start: () => void;
    timer: NodeJS.Timeout;
  }
  let running = 0;
  let averageMs = 1000;
  let arrivals = 0;
  let starts = 0;
  /** Each workspace's line, in arrival order; the start number of its latest export (kept while it has one waiting or running). */
  const lines = new Map<string, Waiting[]>();
  const lastStart = new Map<string, number>();
  const runningOf = new Map<string, number>();
  const waitingCount = () => [...lines.values()].reduce((n, line) => n + line.length, 0);
  const retryAfterSec = () => Math.max(1, Math.ceil(((waitingCount() + 1) * averageMs) / slots / 1000));
  const forget = (key: string) => {
    if (!lines.has(key) && !runningOf.has(key)) lastStart.delete(key);
  };
  const leave = (entry: Waiting) => {
    const line = lines.get(entry.key);
    if (!line) return;
    line.splice(line.indexOf(entry), 1);
    if (line.length === 0) lines.delete(entry.key);
    forget(entry.key);
  };
  const next = (): Waiting | undefined => {
    let best: Waiting | undefined;
    for (const [key, line] of lines) {
      const head = line[0] as Waiting;
      const turn = lastStart.get(key) ?? -1;
      const bestTurn = best ? (lastStart.get(best.key) ?? -1) : Infinity;
      if (!best || turn < bestTurn || (turn === bestTurn && head.arrived < best.arrived)) best = head;
    }
    return best;
  };
  const begin = (key: string) => {
    running += 1;
    runningOf.set(key, (runningOf.get(key) ?? 0) + 1);
    lastStart.set(key, (starts += 1));
  };
  const release = (key: string, ms: number) => {
    averageMs = averageMs * 0.8 + ms * 0.2;
    running -= 1;
    const left = (runningOf.get(key) ?? 1) - 1;
    if (left > 0) runningOf.set(key, left);
    else runningOf.delete(key);
    forget(key);
    const chosen = next();
    if (chosen) {
      clearTimeout(chosen.timer);
      leave(chosen);
      begin(chosen.key);
      chosen.start();
    }
  };
  return {
    /** Runs `work` when a slot is free and it is `key`'s turn, or refuses it after `waitMs` in the line. */
    async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (running >= slots) {
        await new Promise<void>((resolve, reject) => {
          const gone = () => {
            clearTimeout(entry.timer);
            leave(entry);
            reject(signal?.reason);
          };
          const entry: Waiting = {
            key,
            arrived: (arrivals += 1),
            start: () => {
              signal?.removeEventListener('abort', gone);
              resolve();
            },
            timer: setTimeout(() => {
              signal?.removeEventListener('abort', gone);
              const retry = retryAfterSec();
              leave(entry);
              reject(new ThreadsBusy(waitMs, retry));
            }, waitMs),
          };
          if (signal?.aborted) return gone();
          signal?.addEventListener('abort', gone, { once: true });
          const line = lines.get(key);
          if (line) line.push(entry);
          else lines.set(key, [entry]);
        });
      } else begin(key);
      const started = performance.now();
      try {
        return await work();
      } finally {
        release(key, performance.now() - started);
      }
    },
    /** Exports waiting for a slot now. */
    waiting: waitingCount,
  };
}
