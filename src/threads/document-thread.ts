/*
 * A document thread (started by src/threads/documents/pool.ts through piscina): makes one invoice
 * document per task from the stored invoice it is given. No database, no clock, no network.
 */
import { move } from 'piscina';
import { type DocumentResult, type DocumentTask, renderTask } from './documents/task.js';
import { lowerThreadPriority } from './priority.js';

// A document is a second of CPU that nobody waits on as they wait on a page: this thread runs at
// nice 15, below the reader threads (10), so the request thread and then the readers get the cores
// first when they are short.
lowerThreadPriority(15);

export default async function render(task: DocumentTask): Promise<DocumentResult> {
  const result = await renderTask(task);
  // The bytes change hands: no copy of a large PDF on the request thread.
  return result instanceof Uint8Array ? (move(result) as Uint8Array) : result;
}
