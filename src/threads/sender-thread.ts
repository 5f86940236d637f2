/*
 * The webhook sender's thread (started by ./sender.ts): the same sender as the in-process one,
 * over its own connection to the database and the services built on it, driven by the server's
 * messages ('tick', 'stop'); its log lines go back to the server's logger.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.js';
import { openDatabase, type Synchronous } from '../db/database.js';
import type { Logger } from '../logger.js';
import { configuredServices, type GraphSettings } from '../services.js';

export interface SenderThreadData {
  databasePath: string;
  synchronous: Synchronous;
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

if (isMainThread || !parentPort) throw new Error('sender-thread runs as a worker thread (see ./sender.ts)');
const port = parentPort;
const data = workerData as SenderThreadData;
const database = openDatabase(data.databasePath, { synchronous: data.synchronous });
const relay =
  (level: keyof Logger) =>
  (msg: string, fields?: Record<string, unknown>): void =>
    port.postMessage({ level, msg, fields } satisfies SenderThreadLog);
const { sender } = configuredServices(database, data.settings, {
  clock: systemClock,
  secretKey: Buffer.from(data.secretKey),
  logger: { debug: relay('debug'), info: relay('info'), warn: relay('warn'), error: relay('error') },
  webhooks: { timeoutMs: data.timeoutMs },
});
let stopping = false;
port.postMessage('ready');
port.on('message', (message: unknown) => {
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
