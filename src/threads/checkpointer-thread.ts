/*
 * The WAL checkpointer's thread (started by ./checkpointer.ts): its own connection, PASSIVE
 * checkpoints every `intervalMs`, which copy what no reader still needs and never wait for or
 * block the writer. It never writes rows, so it never checkpoints on its own schedule either.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openCheckpointConnection } from '../db/checkpoints.js';

export interface CheckpointerData {
  path: string;
  intervalMs: number;
}

if (isMainThread || !parentPort) throw new Error('checkpointer-thread runs as a worker thread (see ./checkpointer.ts)');
const port = parentPort;
const data = workerData as CheckpointerData;
const connection = openCheckpointConnection(data.path);
let failing = false;
const timer = setInterval(() => {
  try {
    connection.checkpoint();
    failing = false;
  } catch (error) {
    // Reported once per run of failures; the next interval retries.
    if (!failing) port.postMessage({ error: String((error as Error).message) });
    failing = true;
  }
}, data.intervalMs);
port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  connection.close();
  port.close();
});
