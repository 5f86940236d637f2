import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { createImportRunner, type ImportRunner } from './threads/imports.js';
import { bootstrapBanner, bootstrapIfEmpty, type BootstrapResult } from './bootstrap.js';
import { type Clock, systemClock } from './clock.js';
import { type Config, ConfigError, riskySettings } from './config.js';
import { ProviderMisconfigured } from './modules/oidc/service.js';
import { serverLockFile, serverMark, takeServerLock } from './db/backup.js';
import { startCheckpointer } from './threads/checkpointer.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { type Durability, durably, flushBatch, type SyncFile } from './db/durability.js';
import { type AppDeps, createApp } from './http/app.js';
import { type ContractDocument, loadContract } from './contract.js';
import { probeDatabase } from './db/probe.js';
import { createReadiness } from './health.js';
import { startReplicationMonitor } from './replication.js';
import { createLogger, errorFields, type Logger } from './logger.js';
import { createMetrics } from './metrics.js';
import type { Resolver } from './modules/webhooks/targets.js';
import type { WebhookSender } from './modules/webhooks/sender.js';
import { createShutdown, type Shutdown } from './shutdown.js';
import { type SenderThread, startSenderThread } from './threads/sender.js';
import { createReaderPool, type ReaderOptions, type ReaderPool } from './threads/readers/pool.js';
import { createDocumentPool, type DocumentPool } from './threads/documents/pool.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { createWeb } from './web/index.js';
import { createBodyCheck } from './web/kit/forms.js';
import { createLiveFeed, type LiveFeed } from './web/live.js';
import { webPaths } from './web/paths.js';
import { Flashes } from './web/kit/flashes.js';
import { linkBase, recordAddress } from './links.js';
import { OPERATOR } from './principal.js';
import { loadSecretKey } from './secret-key.js';
import { configuredServices, graphSettings, type ServiceOptions, type Services, WEBHOOK_TIMEOUT_MS } from './services.js';

export interface RuntimeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Where the one-time bootstrap banner goes (stdout by default; never the log). */
  announce?: (text: string) => void;
  /** Webhook tests: a fake resolver, their own CA, a shorter attempt limit. */
  webhooks?: { resolve?: Resolver; ca?: string; timeoutMs?: number };
  /**
   * Tests: send webhook deliveries from this process instead of the sender's thread (a manual
   * clock, a fake resolver or a CA of the test's own cannot cross to a thread).
   */
  senderInProcess?: boolean;
  /** Tests of the durability barrier: the WAL's sync replaced (one that fails, or waits to be released). */
  sync?: SyncFile;
  /** Tests of the pipeline itself serve a fixture contract with fixture handlers. */
  contract?: ContractDocument;
  /** Tests: every statement that writes outside a transaction throws (the one write path). */
  strictWrites?: boolean;
  /** Tests: a hooks module the reader threads load (a slow report, a crashing read). */
  readers?: Pick<ReaderOptions, 'hooks' | 'exportStallMs' | 'exportQueueMs'>;
  handlers?: AppDeps['handlers'];
  /** Tests: scrypt's cost for new passwords lowered (production's when absent). */
  passwordCost?: ServiceOptions['passwordCost'];
}

export interface RunningServer {
  server: Server;
  url: string;
  database: DatabaseHandle;
  services: Services;
  scheduler: Scheduler;
  /** Where the heavy reads run. */
  readers: ReaderPool;
  /** Where invoice documents (PDF, XML) are made. */
  documents: DocumentPool;
  /** The web app's live streams (null when the settings page, and so the app, is off). */
  live: LiveFeed | null;
  /** Stops accepting, drains in-flight requests, closes the database. */
  close(): Promise<void>;
}

/** The reader threads of the heavy reads (src/threads/readers), as configured. */
function readerPool(
  config: Config,
  options: RuntimeOptions,
  parts: { secretKey: Buffer; logger: Logger; services: Services; beforeRead: () => void },
): ReaderPool {
  return createReaderPool({
    threads: config.readerThreads,
    budgetMs: config.readBudgetMs,
    queueMs: config.readQueueMs,
    cacheMb: config.readerCacheMb,
    kept: config.readerThreadsKept,
    exportMaxMs: config.exportMaxMs,
    ...options.readers,
    databasePath: config.databasePath,
    settings: graphSettings(config),
    ...parts,
  });
}

/** The first start: an empty database gets its workspace, owner and token. */
function bootstrap(services: Services, logger: Logger): BootstrapResult | null {
  const bootstrapped = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
  if (bootstrapped) logger.info('bootstrapped an empty database', { workspaceId: bootstrapped.workspaceId, tokenId: bootstrapped.tokenId });
  return bootstrapped;
}

/** An import whose process died midway (kill -9, a crash) is cleaned up and recorded failed. */
async function recoverImports(services: Services, logger: Logger): Promise<void> {
  const recovered = await services.imports.recover();
  if (recovered > 0) logger.warn('cleaned up imports that stopped midway', { imports: recovered });
}

/** The start's log lines: where it listens, its replication, the risky settings. */
function logListening(config: Config, logger: Logger, url: string, replication: { state(): object } | null): void {
  logger.info('listening', { url, baseUrl: config.baseUrl, databasePath: config.databasePath });
  if (config.replication)
    logger.info('replicated by Litestream', {
      config: config.replication.configPath,
      replicas: config.replication.replicas,
      maxLagMs: config.replication.maxLagMs,
      ...replication?.state(),
    });
  for (const risk of riskySettings(config)) logger.warn(`risky setting: ${risk}`);
}

/**
 * Invoice documents (a 500-line PDF is a second of CPU) on threads of their own: the invoices
 * service's render port (the pages and the mail make documents through it).
 */
function documentThreads(config: Config, logger: Logger, shutdown: ReturnType<typeof createShutdown>): DocumentPool {
  const documents = createDocumentPool({ threads: config.documentThreads, queueMs: config.documentQueueMs, logger });
  shutdown.add('release', 'document threads', () => documents.close());
  return documents;
}

/** The Import page's runs, each on a thread of its own connection. */
function pagesThreads(config: Config, secretKey: Buffer, clock: Clock, logger: Logger, shutdown: ReturnType<typeof createShutdown>) {
  const imports = importRunner(config, secretKey, clock, logger);
  shutdown.add('release', 'import threads', () => imports.close());
  return { imports };
}

/** The Import page's runner: each run on a thread of its own connection, its uploads within the configured limits. */
function importRunner(config: Config, secretKey: Buffer, clock: Clock, logger: Logger) {
  return createImportRunner({
    databasePath: config.databasePath,
    secretKey,
    settings: graphSettings(config),
    synchronous: config.synchronous,
    clock,
    logger,
    limits: {
      fileBytes: config.importUploadMaxBytes,
      memberBytes: config.importUploadsMemberBytes,
      totalBytes: config.importUploadsTotalBytes,
    },
  });
}

/** The server's services: its settings, its threads for documents and deliveries, mailed links at the address it serves. */
function serverServices(
  database: DatabaseHandle,
  config: Config,
  options: RuntimeOptions,
  parts: {
    clock: Clock;
    logger: Logger;
    secretKey: Buffer;
    sending: ReturnType<typeof senderTopology>;
    documents: DocumentPool;
    address: () => string | null;
  },
): Services {
  const { clock, logger, secretKey, sending, documents } = parts;
  return configuredServices(database, config, {
    clock,
    logger,
    secretKey,
    ...(options.passwordCost ? { passwordCost: options.passwordCost } : {}),
    documents: (doc, format, render) => documents.render(doc, format, render),
    webhooks: { ...options.webhooks, nudge: sending.nudge, deliver: sending.deliver },
    // Mailed links use the same address as the page's and the banner's (src/links.ts).
    mail: {
      links: () => (config.settingsPath === null ? null : `${linkBase(config, parts.address()).url}${config.settingsPath}`),
      wake: true,
    },
  });
}

/**
 * The server's life: open and migrate the database, build the services, bootstrap an empty
 * database, listen, run the scheduler (the jobs the modules registered), the webhook sender
 * thread and the WAL checkpointer; on close, the steps each part registered as it started
 * (src/shutdown.ts): requests drain while the scheduler and the sender finish, then the threads
 * go, then the database.
 */
export async function startServer(config: Config, options: RuntimeOptions = {}): Promise<RunningServer> {
  // V8's allocation-site pretenuring sees the rows of a large listing (GET /projects: 2,000 rows,
  // ~8 MB of short-lived objects per answer) outlive a scavenge under load, and from then on
  // allocates every listing's rows in the old generation, where only a full GC frees them: the
  // heap then swings between 25 and 115 MB (peak RSS 150 MB or 235 MB, by chance of that
  // decision). Off, they die young. The flag is read at each decision, so setting it here works.
  setFlagsFromString('--no-allocation-site-pretenuring');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  // Each part registers how it stops as it starts: the same steps run on close and on a failed start.
  const shutdown = createShutdown(logger);
  try {
    const { database, unmark } = openHeldDatabase(config, logger, options.strictWrites ?? false, options.sync);
    shutdown.add('close', 'database', () => {
      database.close();
      unmark();
    });
    const secretKey = loadSecretKey(config.databasePath, config.secretKey);
    const sending = senderTopology(config, options, secretKey, logger);
    let listeningAt: string | null = null;
    const documents = documentThreads(config, logger, shutdown);
    const services = serverServices(database, config, options, {
      clock,
      logger,
      secretKey,
      sending,
      documents,
      address: () => listeningAt,
    });
    sending.attach(services.sender, services.durability);
    prepareWebhooks(services, logger);
    await discoverProvider(services, logger);
    const metrics = config.metrics
      ? createMetrics({ deliveries: services.webhooks.figures, databasePath: config.databasePath, clock, logger })
      : null;
    const scheduler = createScheduler({
      logger,
      clock,
      expression: config.schedulerCron,
      jobs: services.jobs,
      onResult: (job, result) => job === 'runaway timers' && metrics?.runawaysDetected(result as number),
    });
    shutdown.add('stop', 'scheduler and senders', () =>
      scheduler
        .shutdown()
        .then(sending.stop)
        .then(() => services.mail.idle()),
    );
    await recoverImports(services, logger);
    const bootstrapped = bootstrap(services, logger);
    // A heavy read on a reader thread (another connection) sees every write the server made before it: the open batch is committed first.
    const readers = readerPool(config, options, { secretKey, logger, services, beforeRead: () => flushBatch(database.sqlite) });
    shutdown.add('release', 'reader threads', () => readers.close());
    const { imports } = pagesThreads(config, secretKey, clock, logger, shutdown);
    const replication = await watchReplication(config, shutdown);
    let stopping = false;
    const contract = options.contract ?? loadContract();
    const pages = browserPages({
      config,
      logger,
      services,
      clock,
      imports,
      readers,
      documents,
      contract,
      shutdown,
      serverAddress: () => listeningAt,
    });
    const app = await createApp({
      config,
      logger,
      clock,
      contract,
      services,
      readers,
      readiness: createReadiness({
        database: probeDatabase(database.sqlite),
        webhookSenderAlive: sending.alive,
        mail: () => services.mail.health(),
        logger,
        replication: replication?.state,
        stopping: () => stopping,
      }),
      metrics,
      web: pages.web,
      ...(options.handlers ? { handlers: options.handlers } : {}),
    });
    const { server, url } = await listen(config, app);
    // The address links use when BASE_URL is not set (src/links.ts): the page's, the banner's, and
    // the command line's (it reads the file).
    listeningAt = url;
    recordAddress(config.databasePath, url);
    // Stopping: GET /readyz answers 503 at once, for SHUTDOWN_ANNOUNCE_MS while the server still
    // accepts (a load balancer polling it stops sending), then the requests drain.
    shutdown.add('announce', 'readiness', async () => {
      stopping = true;
      if (config.shutdownAnnounceMs > 0) {
        logger.info('stopping: GET /readyz answers 503 before the server stops accepting', { ms: config.shutdownAnnounceMs });
        await new Promise((resolve) => setTimeout(resolve, config.shutdownAnnounceMs));
      }
    });
    shutdown.add('stop', 'requests', () => drain(server));
    // The kept reader threads start a second after listening, off the path to the first answer.
    setTimeout(() => readers.keep(), 1_000).unref();
    logListening(config, logger, url, replication);
    // The new token goes to stderr, once, apart from the JSON log lines on stdout (which a log
    // shipper stores); its example uses the public address when set, else the one listened on.
    if (bootstrapped) (options.announce ?? ((text) => process.stderr.write(text)))(firstStartBanner(bootstrapped, services, config, url));
    scheduler.start();
    sending.start();
    // WAL_CHECKPOINTS=external: Litestream (docs/operations.md) checkpoints; the server runs none.
    if (config.walCheckpoints === 'external') database.sqlite.pragma('wal_autocheckpoint = 0');
    else {
      const checkpointer = startCheckpointer({ database, path: config.databasePath, logger });
      shutdown.add('release', 'checkpointer', () => checkpointer.stop());
    }
    return { server, url, database, services, scheduler, readers, documents, live: pages.live, close: shutdown.run };
  } catch (error) {
    await shutdown.run();
    throw error;
  }
}

/**
 * At start: the identity provider's discovery (OIDC_ISSUER). A provider whose discovery document
 * does not fit the settings stops the start with what is wrong (it never fixes itself); one that
 * does not answer lets the server start, with password sign-in and existing sessions working and
 * the sign-in page saying so, and is looked at again when someone wants to sign in through it.
 */
async function discoverProvider(services: Services, logger: Logger): Promise<void> {
  if (!services.oidc.enabled) return;
  try {
    const { available } = await services.oidc.start();
    if (available) logger.info('identity provider ready', { name: services.oidc.name });
    else
      logger.warn('starting without the identity provider: it does not answer; sign-in through it waits until it does', {
        name: services.oidc.name,
      });
  } catch (error) {
    if (error instanceof ProviderMisconfigured) throw new ConfigError(`Invalid configuration: OIDC_ISSUER: ${error.message}`);
    throw error;
  }
}

/** At start: seal webhook secrets stored before subkeys again, and make attempts a previous process left in flight due at once. */
function prepareWebhooks(services: Services, logger: Logger): void {
  const resealed = services.webhooks.resealLegacySecrets();
  if (resealed > 0) logger.info('webhook secrets sealed with their own subkey, bound to their subscription', { count: resealed });
  // Attempts a previous process left in flight are due again at once (at least once).
  services.sender.recover();
  // Mail a previous process was sending when it stopped (kill -9) is due again: at least once, with its Message-ID.
  const mail = services.mail.recover();
  if (mail > 0) logger.warn('mail left in flight by the previous process is sent again', { messages: mail });
  if (services.mail.relay) logger.info('mail is on', { relay: services.mail.relay, queued: services.mail.queued() });
}

/**
 * Where webhook deliveries are sent from: the sender's own thread (production), or this process
 * when the runtime says so (tests whose manual clock, fake resolver or CA a thread cannot
 * share) or the database is in memory. A thread that ends unasked hands its work back to this process (GET /readyz then
 * names it).
 */
function senderTopology(config: Config, options: RuntimeOptions, secretKey: Buffer, logger: Logger) {
  let local: WebhookSender | null = null;
  let durability: Durability | null = null;
  let thread: SenderThread | null = null;
  let failed = false;
  // An in-memory database cannot be shared with a thread either.
  const inProcess = (options.senderInProcess ?? false) || config.databasePath === ':memory:';
  // A nudge is not awaited: a pass that fails (one nudged just as the database closed, at a stop)
  // is logged, never an unhandled rejection.
  const deliver = (): Promise<void> =>
    (thread ? thread.tick() : (local?.tick() ?? Promise.resolve())).catch((error: unknown) => {
      logger.error('webhook delivery pass failed', errorFields(error));
    });
  return {
    nudge: () => void deliver(),
    deliver,
    /** The server's sender, and when its connection's commits are on disk (the thread's writes are made with them). */
    attach(sender: WebhookSender, commits: Durability): void {
      local = sender;
      durability = commits;
    },
    start(): void {
      if (inProcess) return;
      thread = startSenderThread({
        databasePath: config.databasePath,
        secretKey,
        settings: graphSettings(config),
        timeoutMs: options.webhooks?.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        logger,
        // The thread's leases and outcomes join the requests' batch on this connection; the answer
        // waits until they are on disk (a claim, too: what it leases must be, before it is sent).
        write: async (request) => durably(durability as Durability, () => (local as WebhookSender).apply(request)),
        onFailure: () => {
          thread = null;
          failed = true;
          void local?.tick();
        },
      });
    },
    /** Lets the attempts in flight finish and their outcomes be written. */
    stop: (): Promise<void> => (thread ? thread.stop() : (local?.idle() ?? Promise.resolve())),
    alive: (): boolean => !failed,
  };
}

/** Listens on the configured address; the URL tests and logs use (0.0.0.0 named as 127.0.0.1). */
async function listen(config: Config, app: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  // Request lines up to 64 KiB: the contract allows five id lists of 100 ids in a query.
  const server = createServer({ maxHeaderSize: 64 * 1024 }, app);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}` };
}

/** Replication (LITESTREAM_CONFIG): Litestream runs as its own process; its progress is read for GET /readyz. */
async function watchReplication(config: Config, shutdown: Shutdown) {
  const replication = config.replication ? startReplicationMonitor({ settings: config.replication }) : null;
  if (replication) {
    shutdown.add('release', 'replication monitor', () => replication.stop());
    await replication.started;
  }
  return replication;
}

/**
 * The pages a person opens in a browser (src/web: sign-in and settings under SETTINGS_PATH, the
 * web app under /app), on one set of sessions, with the app's live streams, ended first when
 * stopping (a browser reconnects wherever the server comes back). None when SETTINGS_PATH is off.
 */
function browserPages(deps: {
  config: Config;
  logger: Logger;
  services: Services;
  clock: Clock;
  imports: ImportRunner;
  readers: ReaderPool;
  documents: DocumentPool;
  contract: ContractDocument;
  shutdown: Shutdown;
  serverAddress: () => string | null;
}) {
  const { config, contract, shutdown } = deps;
  if (config.settingsPath === null) return { web: null, live: null };
  const live = createLiveFeed({
    services: deps.services,
    logger: deps.logger,
    perMember: config.appStreamsPerMember,
    perWorkspace: config.appStreamsPerWorkspace,
    total: config.appStreamsTotal,
  });
  shutdown.add('announce', 'live streams', () => live.close());
  const web = createWeb({
    config,
    logger: deps.logger,
    services: deps.services,
    clock: deps.clock,
    paths: webPaths(config.settingsPath),
    flashes: new Flashes(deps.clock),
    imports: deps.imports,
    serverAddress: deps.serverAddress,
    live,
    check: createBodyCheck(contract),
    readers: deps.readers,
    documents: deps.documents,
  });
  return { web, live };
}

/** Stops accepting; in-flight requests finish (10 s at most), keep-alive connections close as they go idle. */
function drain(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * The first start's banner: the token, and the owner's way into the settings page (a setup link),
 * shown only this once. Links use BASE_URL when set, else the address the server listens on.
 */
function firstStartBanner(bootstrapped: BootstrapResult, services: Services, config: Config, url: string): string {
  const base = linkBase(config, url).url;
  if (config.settingsPath === null) return bootstrapBanner(bootstrapped, base);
  const setup = services.sessions.invite(OPERATOR, {
    workspaceId: bootstrapped.workspaceId,
    userId: bootstrapped.userId,
    asksProfile: true,
  });
  return bootstrapBanner(bootstrapped, base, { url: `${base}${config.settingsPath}/setup/${setup.secret}`, expiresAt: setup.expiresAt });
}

/**
 * While it runs, the server holds the database's lock (`timetrack restore` and a second server
 * are refused then) and notes its process id beside it for their messages. Returns the release.
 */
function holdDatabase(databasePath: string): () => void {
  if (databasePath === ':memory:') return () => {};
  const lock = takeServerLock(databasePath);
  if (lock === null) throw new Error(`Another server uses ${databasePath} (it holds ${serverLockFile(databasePath)}); stop it first.`);
  const mark = serverMark(databasePath);
  writeFileSync(mark, `${process.pid}\n`, { mode: 0o600 });
  return () => {
    rmSync(mark, { force: true });
    lock.release();
  };
}

/**
 * Takes the database's lock, then opens and migrates it (a backup first when data is migrated),
 * logging what it tightened and backed up. Returns the database and the release of its lock.
 */
function openHeldDatabase(
  config: Config,
  logger: Logger,
  strictWrites: boolean,
  sync: SyncFile | undefined,
): { database: DatabaseHandle; unmark: () => void } {
  const unmark = holdDatabase(config.databasePath);
  let database: DatabaseHandle;
  try {
    database = openDatabase(config.databasePath, {
      synchronous: config.synchronous,
      // Acknowledged writes durable at the cost of one sync per group of concurrent writes (docs/design.md).
      // Writes of one turn of the event loop share a transaction (src/db/durability.ts, openBatch).
      groupCommit: { sync, batching: true },
      backupsBeforeMigrating: config.migrationBackups,
      strictWrites,
    });
  } catch (error) {
    unmark();
    throw error;
  }
  for (const change of database.tightened)
    logger.warn('permissions tightened: others could read the database', { path: change.path, from: change.from, to: change.to });
  if (database.migrationBackup) logger.info('backed up the database before migrating it', { backup: database.migrationBackup });
  return { database, unmark };
}
