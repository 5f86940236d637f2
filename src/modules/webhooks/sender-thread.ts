import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type MessagePort, Worker } from 'node:worker_threads';
import { systemClock } from '../../clock.js';
import { openDatabase } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { createWebhookSender } from './sender.js';
import { systemResolver } from './targets.js';

type Level = keyof Logger;

interface ThreadData {
  databasePath: string;
  secretKey: Uint8Array;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  concurrency: number;
  /** This module, for the thread to import. */
  entry: string;
  /** tsx's loader, registered in the thread when the server runs as TypeScript. */
  tsx: string | null;
}

/**
 * Loads this module in the thread. Plain JavaScript evaluated by the Worker: under tsx (tests,
 * the CLI) the thread must register tsx's loader before it can import TypeScript, since the
 * loader of the main thread does not reach worker threads.
 */
const BOOT = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  (await import(workerData.entry)).runSenderThread(workerData, parentPort);
})().catch((error) => {
  parentPort.postMessage({ level: 'error', msg: 'the webhook sender thread failed to start', fields: { error: String((error && error.stack) || error) } });
  process.exit(1);
});
`;

/** The ESM entry of tsx's loader API, from its package's exports (tests load this module as CommonJS). */
function tsxLoader(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(manifest), (exports['./esm/api'] as { import: { default: string } }).import.default)).href;
}

/**
 * The webhook sender on its own thread, with its own connection to the database: the attempts'
 * HTTP, signing and bookkeeping then run beside the API instead of taking turns with its
 * requests (they took a quarter of the request thread's CPU under a write load). The thread
 * runs the same sender as the in-process one; this side only nudges it, relays its log lines
 * and stops it. At-least-once is unchanged: the leases live in the database.
 */
export function startSenderThread(options: {
  databasePath: string;
  secretKey: Buffer;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  concurrency: number;
  logger: Logger;
  /** Called if the thread ends unasked (the server then sends in-process). */
  onFailure: () => void;
}) {
  const typescript = import.meta.url.endsWith('.ts');
  const data: ThreadData = {
    databasePath: options.databasePath,
    secretKey: new Uint8Array(options.secretKey),
    allowPrivateTargets: options.allowPrivateTargets,
    timeoutMs: options.timeoutMs,
    concurrency: options.concurrency,
    entry: import.meta.url,
    tsx: typescript ? tsxLoader() : null,
  };
  const worker = new Worker(BOOT, { eval: true, workerData: data });
  let exited = false;
  let stopped: Promise<void> | null = null;
  worker.on('message', (message: { level?: Level; msg?: string; fields?: Record<string, unknown> }) => {
    if (message.level && message.msg) options.logger[message.level](message.msg, message.fields);
  });
  worker.on('error', (error) => options.logger.error('the webhook sender thread failed', { error: error.message }));
  worker.on('exit', (code) => {
    exited = true;
    if (stopped) return;
    options.logger.error('the webhook sender thread stopped; the server sends deliveries itself', { code });
    options.onFailure();
  });
  worker.unref();
  return {
    /** Asks the thread to send what is due (after a commit, or on the scheduler's tick). */
    tick(): Promise<void> {
      if (!exited) worker.postMessage('tick');
      return Promise.resolve();
    },
    /** Lets the attempts in flight finish and their outcomes be written, then ends the thread. */
    stop(): Promise<void> {
      if (stopped) return stopped;
      stopped = exited
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            worker.ref();
            worker.postMessage('stop');
          });
      return stopped;
    },
  };
}

export type SenderThread = ReturnType<typeof startSenderThread>;

/** The thread's side: the sender over its own connection, driven by the server's messages. */
export function runSenderThread(data: ThreadData, port: MessagePort): void {
  const database = openDatabase(data.databasePath);
  const post = (level: Level) => (msg: string, fields?: Record<string, unknown>) => port.postMessage({ level, msg, fields });
  const sender = createWebhookSender({
    db: database.db,
    clock: systemClock,
    logger: { debug: post('debug'), info: post('info'), warn: post('warn'), error: post('error') },
    options: {
      secretKey: Buffer.from(data.secretKey),
      allowPrivateTargets: data.allowPrivateTargets,
      resolve: systemResolver,
      timeoutMs: data.timeoutMs,
      concurrency: data.concurrency,
    },
  });
  let stopping = false;
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
}
