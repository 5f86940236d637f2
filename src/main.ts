/**
 * The composition root, and the only module that reads process.env: `npm start` serves the
 * API, `timetrack <command>` runs the command line against the same database and services.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { bootstrapBanner, bootstrapIfEmpty } from './bootstrap.js';
import { runCli } from './cli/main.js';
import { type Clock, systemClock } from './clock.js';
import { type Config, ConfigError, parseConfig } from './config.js';
import { startCheckpointer } from './db/checkpointer.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { type AppDeps, createApp } from './http/app.js';
import { type ContractDocument, loadContract } from './http/contract.js';
import { createLogger, errorFields, type Logger } from './logger.js';
import { createAccountsService } from './modules/accounts/service.js';
import { createCatalogService } from './modules/catalog/service.js';
import { createEntryLister } from './modules/entries/list.js';
import { createEntriesService } from './modules/entries/service.js';
import { createEventLog } from './modules/events/service.js';
import { createInvoicesService } from './modules/invoices/service.js';
import { createCursorCodec } from './modules/paging/cursor.js';
import { createReportsService } from './modules/reports/service.js';
import { createTokensService } from './modules/tokens/service.js';
import { createWebhookSender } from './modules/webhooks/sender.js';
import { type SenderThread, startSenderThread } from './modules/webhooks/sender-thread.js';
import { createWebhooksService } from './modules/webhooks/service.js';
import { type Resolver, systemResolver } from './modules/webhooks/targets.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { loadSecretKey } from './secret-key.js';

export interface RuntimeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Where the one-time bootstrap banner goes (stdout by default; never the log). */
  announce?: (text: string) => void;
  /** Webhook tests: a fake resolver, their own CA, a shorter attempt limit. */
  webhooks?: { resolve?: Resolver; ca?: string; timeoutMs?: number };
  /** Tests of the pipeline itself serve a fixture contract with fixture handlers. */
  contract?: ContractDocument;
  handlers?: AppDeps['handlers'];
}

export interface ServiceOptions {
  clock: Clock;
  secretKey: Buffer;
  /** Reports without a timeZone use it. */
  defaultTimeZone?: string;
  logger?: Logger;
  webhooks?: {
    allowPrivateTargets?: boolean;
    resolve?: Resolver;
    timeoutMs?: number;
    ca?: string;
    /** Called after each commit that enqueued deliveries (the server wakes its sender; the CLI leaves them to it). */
    nudge?: () => void;
  };
}

/** Each attempt's limit (the spec's 10 s) and the subscriptions served at once. */
const WEBHOOK_TIMEOUT_MS = 10_000;
const WEBHOOK_CONCURRENCY = 8;

export function createServices(database: DatabaseHandle, options: ServiceOptions) {
  const { db } = database;
  const { clock } = options;
  const webhookOptions = {
    secretKey: options.secretKey,
    allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? false,
    resolve: options.webhooks?.resolve ?? systemResolver,
  };
  const webhooks = createWebhooksService({ db, clock, options: webhookOptions });
  const sender = createWebhookSender({
    db,
    clock,
    logger: options.logger ?? createLogger('silent'),
    options: {
      ...webhookOptions,
      timeoutMs: options.webhooks?.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      concurrency: WEBHOOK_CONCURRENCY,
      ca: options.webhooks?.ca,
    },
  });
  const events = createEventLog({
    db,
    clock,
    subscriber: (tx, seq, event) => {
      // setImmediate runs after the synchronous transaction has committed (or rolled back).
      const nudge = options.webhooks?.nudge;
      if (webhooks.enqueue(tx, seq, event) > 0 && nudge) setImmediate(nudge);
    },
  });
  const lister = createEntryLister({ db, cursors: createCursorCodec(options.secretKey) });
  return {
    accounts: createAccountsService({ db, clock }),
    tokens: createTokensService({ db, clock }),
    events,
    webhooks,
    sender,
    catalog: createCatalogService({ db, clock, events }),
    entries: createEntriesService({ db, clock, events, lister }),
    reports: createReportsService({ db, clock, lister, defaultTimeZone: options.defaultTimeZone ?? 'UTC' }),
    invoices: createInvoicesService({ db, clock, events }),
  };
}

export type Services = ReturnType<typeof createServices>;

export interface RunningServer {
  server: Server;
  url: string;
  database: DatabaseHandle;
  services: Services;
  scheduler: Scheduler;
  /** Stops accepting, drains in-flight requests, closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  // V8's allocation-site pretenuring sees the rows of a large listing (GET /projects: 2,000 rows,
  // ~8 MB of short-lived objects per answer) outlive a scavenge under load, and from then on
  // allocates every listing's rows in the old generation, where only a full GC frees them: the
  // heap then swings between 25 and 115 MB (peak RSS 150 MB or 235 MB, by chance of that
  // decision). Off, they die young. The flag is read at each decision, so setting it here works.
  setFlagsFromString('--no-allocation-site-pretenuring');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = openDatabase(config.databasePath);
  // The webhook sender runs on its own thread, unless the runtime injects what a thread cannot
  // share (tests: a manual clock, a fake resolver, their own CA); then it runs in this one.
  const threaded = !options.clock && !options.webhooks?.resolve && !options.webhooks?.ca;
  let senderThread: SenderThread | null = null;
  try {
    const secretKey = loadSecretKey(config.databasePath, config.secretKey);
    const services = createServices(database, {
      clock,
      logger,
      secretKey,
      defaultTimeZone: config.serverTimeZone,
      webhooks: {
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        ...options.webhooks,
        nudge: () => void (senderThread ?? services.sender).tick(),
      },
    });
    // Attempts a previous process left in flight are due again at once (at least once).
    services.sender.recover();
    const scheduler = createScheduler({
      logger,
      expression: config.schedulerCron,
      jobs: [
        { name: 'runaway timers', run: () => services.entries.detectRunaways() },
        { name: 'webhook deliveries', run: () => (senderThread ?? services.sender).tick() },
      ],
    });
    const bootstrapped = bootstrapIfEmpty(database.db, services.accounts, services.tokens);
    if (bootstrapped) {
      (options.announce ?? ((text) => process.stdout.write(text)))(bootstrapBanner(bootstrapped));
      logger.info('bootstrapped an empty database', { workspaceId: bootstrapped.workspaceId, tokenId: bootstrapped.tokenId });
    }
    const app = await createApp({
      config,
      logger,
      clock,
      contract: options.contract ?? loadContract(),
      tokens: services.tokens,
      entries: services.entries,
      catalog: services.catalog,
      reports: services.reports,
      ...(options.handlers ? { handlers: options.handlers } : {}),
    });
    // Request lines up to 64 KiB: the contract allows five id lists of 100 ids in a query.
    const server = createServer({ maxHeaderSize: 64 * 1024 }, app);
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
    logger.info('listening', { url, baseUrl: config.baseUrl, databasePath: config.databasePath });
    scheduler.start();
    if (threaded) {
      senderThread = startSenderThread({
        databasePath: config.databasePath,
        secretKey,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        timeoutMs: options.webhooks?.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        concurrency: WEBHOOK_CONCURRENCY,
        logger,
        onFailure: () => {
          senderThread = null;
          void services.sender.tick();
        },
      });
    }
    const checkpointer = startCheckpointer({ database, path: config.databasePath, logger });

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= new Promise<void>((resolve) => {
        // In-flight requests finish; keep-alive connections are closed as soon as they go idle.
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        force.unref();
        const schedulerStopped = scheduler.shutdown().then(() => (senderThread ? senderThread.stop() : services.sender.idle()));
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          void schedulerStopped.then(async () => {
            await checkpointer.stop();
            database.close();
            logger.info('stopped');
            resolve();
          });
        });
        server.closeIdleConnections();
      }));
    return { server, url, database, services, scheduler, close };
  } catch (error) {
    await senderThread?.stop();
    database.close();
    throw error;
  }
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let config: Config;
  try {
    config = parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`timetrack: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (argv.length > 0 && argv[0] !== 'serve') {
    return runCli(argv, {
      openDatabase: () => openDatabase(config.databasePath),
      createServices: (database) =>
        createServices(database, {
          clock: systemClock,
          secretKey: loadSecretKey(config.databasePath, config.secretKey),
          defaultTimeZone: config.serverTimeZone,
          webhooks: { allowPrivateTargets: config.webhookAllowPrivateTargets },
        }),
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    });
  }
  const logger = createLogger(config.logLevel);
  const running = await startServer(config, { logger });
  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    void running.close().then(() => {
      process.exitCode = 0;
    });
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.on('unhandledRejection', (reason) => logger.error('unhandled rejection', errorFields(reason)));
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), process.env).then(
    (code) => {
      if (code !== 0) process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`timetrack: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
