/*
 * A document thread (started by src/documents/pool.ts through piscina): makes one invoice
 * document per task from the stored invoice it is given. No database, no clock, no network.
 */
import { move } from 'piscina';
import { type DocumentResult, type DocumentTask, renderTask } from '../documents/task.js';

export default async function render(task: DocumentTask): Promise<DocumentResult> {
  const result = await renderTask(task);
  // The bytes change hands: no copy of a large PDF on the request thread.
  return result instanceof Uint8Array ? (move(result) as Uint8Array) : result;
}
