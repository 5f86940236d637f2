/*
 * A document thread (started by src/threads/documents/pool.ts through piscina): makes one invoice
 * document per task from the stored invoice it is given. No database, no clock, no network.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { move } from 'piscina';
import { type DocumentResult, type DocumentTask, renderTask } from './documents/task.js';

// A document is a second of CPU that nobody waits on as they wait on a page: on Linux this
// thread runs at nice 10 (setpriority on its own thread id, /proc/thread-self), so the request
// thread and the readers get the cores first when they are short. Elsewhere it stays as it is.
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
} catch {
  // Not Linux, or not allowed: the default priority.
}

export default async function render(task: DocumentTask): Promise<DocumentResult> {
  const result = await renderTask(task);
  // The bytes change hands: no copy of a large PDF on the request thread.
  return result instanceof Uint8Array ? (move(result) as Uint8Array) : result;
}
