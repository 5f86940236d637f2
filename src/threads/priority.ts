import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority (its nice value, by default +10) so that, when the
 * cores are busy, the request thread's short answers go before this thread's long work (a year's
 * summary, a PDF): a heavy read then waits a little longer, a point read beside it far less (issue
 * 60). Linux keeps a nice value per thread; the thread's id is the last part of
 * /proc/thread-self. Raising one's own nice value needs no privilege; it is never lowered again.
 * Returns false where it cannot (no /proc, another system): the thread then runs as before.
 */
export function lowerThreadPriority(nice = 10): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isSafeInteger(tid) || tid <= 0 || tid === process.pid) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
