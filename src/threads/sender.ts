import type { Logger } from '../logger.js';
import type { GraphSettings } from '../services.js';
import { startThread } from './boot.js';
import type { QueueWrite } from '../modules/webhooks/service.js';
import type { SenderThreadData, SenderThreadLog, SenderThreadWrite, SenderThreadWritten } from './sender-thread.js';

/**
 * The webhook sender on its own thread, with its own connection to the database: the attempts'
 * HTTP, signing and bookkeeping then run beside the API instead of taking turns with its
 * requests (they took a quarter of the request thread's CPU under a write load). This side only
 * nudges the thread, relays its log lines, makes the queue writes it asks for (`write`: the
 * server's one write path, so the thread's connection never holds the write lock the requests'
 * writes wait for) and stops it. At-least-once is unchanged: the leases live in the database.
 */
export function startSenderThread(options: {
  databasePath: string;
  secretKey: Buffer;
  /** What the configuration decides of the service graph: the thread's graph is the server's. */
  settings: GraphSettings;
  timeoutMs: number;
  logger: Logger;
  /** Makes a queue write the thread asks for, resolving once it is on disk. */
  write: (request: QueueWrite) => Promise<SenderThreadWritten['result']>;
  /** Called if the thread ends unasked (the server then sends in-process). */
  onFailure: () => void;
}) {
  const workerData: SenderThreadData = {
    databasePath: options.databasePath,
    secretKey: new Uint8Array(options.secretKey),
    settings: options.settings,
    timeoutMs: options.timeoutMs,
  };
  const worker = startThread(import.meta.url, './sender-thread', { workerData });
  let exited = false;
  let ready = false;
  let stopped: Promise<void> | null = null;
  worker.on('message', (message: SenderThreadLog | SenderThreadWrite | 'ready') => {
    if (message === 'ready') ready = true;
    else if ('write' in message) {
      const { write: id } = message;
      const answer = (reply: Omit<SenderThreadWritten, 'written'>) => {
        if (!exited) worker.postMessage({ written: id, ...reply } satisfies SenderThreadWritten);
      };
      // Synchronous throws (a constraint, a closed database) fail the write as a rejection does.
      Promise.resolve()
        .then(() => options.write(message.request))
        .then(
          (result) => answer({ result }),
          (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
        );
    } else options.logger[message.level](message.msg, message.fields);
  });
  worker.on('error', (error) =>
    options.logger.error(ready ? 'the webhook sender thread failed' : 'the webhook sender thread failed to start', {
      error: error.stack ?? error.message,
    }),
  );
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
