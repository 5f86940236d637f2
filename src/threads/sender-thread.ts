/*
 * The webhook sender's thread (started by ./sender.ts): the same sender as the in-process one,
 * over its own connection to the database and the services built on it, driven by the server's
 * messages ('tick', 'stop'); its log lines go back to the server's logger. It only reads on its
 * connection: its queue writes (leases, outcomes) go to the server, which makes them on its one
 * write path and answers once they are on disk.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.js';
import { openDatabase } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { QueueAnswer, QueueWrite, QueueWriter } from '../modules/webhooks/service.js';
import { configuredServices, type GraphSettings } from '../services.js';

export interface SenderThreadData {
  databasePath: string;
  secretKey: Uint8Array;
  settings: GraphSettings;
  timeoutMs: number;
}

/** A log line relayed to the server. */
export interface SenderThreadLog {
  level: keyof Logger;
  msg: string;
  fields?: Record<string, unknown> | undefined;
}

/** A queue write the thread asks the server to make. */
export interface SenderThreadWrite {
  write: number;
  request: QueueWrite;
}

/** The server's answer to a SenderThreadWrite: what the write returned, or why it failed. */
export interface SenderThreadWritten {
  written: number;
  result?: QueueAnswer;
  error?: string;
}

if (isMainThread || !parentPort) throw new Error('sender-thread runs as a worker thread (see ./sender.ts)');
const port = parentPort;
const data = workerData as SenderThreadData;
// Read-only: every write of the sender goes to the server (`writer`), none can take the lock here.
const database = openDatabase(data.databasePath, { readOnly: true });
const relay =
  (level: keyof Logger) =>
  (msg: string, fields?: Record<string, unknown>): void =>
    port.postMessage({ level, msg, fields } satisfies SenderThreadLog);
let writes = 0;
const pending = new Map<number, { resolve: (result: SenderThreadWritten['result']) => void; reject: (error: Error) => void }>();
const writer: QueueWriter = (request) =>
  new Promise((resolve, reject) => {
    writes += 1;
    pending.set(writes, { resolve, reject });
    port.postMessage({ write: writes, request } satisfies SenderThreadWrite);
  });
const { sender } = configuredServices(database, data.settings, {
  clock: systemClock,
  secretKey: Buffer.from(data.secretKey),
  logger: { debug: relay('debug'), info: relay('info'), warn: relay('warn'), error: relay('error') },
  webhooks: { timeoutMs: data.timeoutMs, writer },
});
let stopping = false;
port.postMessage('ready');
port.on('message', (message: unknown) => {
  if (typeof message === 'object' && message !== null && 'written' in message) {
    const { written, result, error } = message as SenderThreadWritten;
    const waiting = pending.get(written);
    pending.delete(written);
    if (error === undefined) waiting?.resolve(result);
    else waiting?.reject(new Error(`the server could not make the sender's write: ${error}`));
    return;
  }
  if (message === 'tick' && !stopping) void sender.tick();
  if (message === 'stop' && !stopping) {
    stopping = true;
    void sender.idle().then(() => {
      database.close();
      // Ends this thread only; a loader registered here would otherwise keep it alive.
      process.exit(0);
    });
  }
});
