import type { Clock } from './clock.js';
import type { DatabaseHandle } from './db/database.js';
import { createWrite } from './db/write.js';
import { createCursorCodec } from './kernel/cursor.js';
import { subkey } from './kernel/keys.js';
import { createLogger, type Logger } from './logger.js';
import { createAccountsRepository } from './modules/accounts/repository.js';
import { type AccountsService, createAccountsService } from './modules/accounts/service.js';
import { createCatalogRepository } from './modules/catalog/repository.js';
import { type CatalogEntries, type CatalogService, createCatalogService } from './modules/catalog/service.js';
import { createEntriesRepository } from './modules/entries/repository.js';
import { createEntryServices } from './modules/entries/service.js';
import { createEventsRepository } from './modules/events/repository.js';
import { createEventLog, type DomainEvent, type DomainWrite, type EventLog } from './modules/events/service.js';
import { createImportsRepository } from './modules/imports/repository.js';
import { createImportsService } from './modules/imports/service.js';
import { createInvoicesRepository } from './modules/invoices/repository.js';
import { createInvoicesService, type InvoicePorts } from './modules/invoices/service.js';
import { createReportsService } from './modules/reports/service.js';
import { createOidcRepository } from './modules/oidc/repository.js';
import { createProviderClient, type ProviderClient } from './modules/oidc/provider.js';
import { createOidcService, type OidcSettings } from './modules/oidc/service.js';
import { createSessionsRepository } from './modules/sessions/repository.js';
import { createSessionsService } from './modules/sessions/service.js';
import { createTokensRepository } from './modules/tokens/repository.js';
import { createTokensService } from './modules/tokens/service.js';
import { createWebhooksRepository } from './modules/webhooks/repository.js';
import { createWebhookSender, type SenderPorts } from './modules/webhooks/sender.js';
import { createWebhooksService, type WebhooksService } from './modules/webhooks/service.js';
import { type Resolver, systemResolver } from './modules/webhooks/targets.js';

export interface ServiceOptions {
  clock: Clock;
  secretKey: Buffer;
  /** Reports without a timeZone use it. */
  defaultTimeZone?: string;
  /** EVENT_RETENTION_DAYS (the event retention job). */
  eventRetentionDays?: number;
  logger?: Logger;
  /** The operator's limits that owners and members may not lift (RATE_LIMIT_WORKSPACE_PER_MIN, TOKENS_PER_MEMBER). */
  limits?: { workspaceRateLimitPerMin?: number; tokensPerMember?: number };
  /**
   * How long the next write of an import may hold the database's write lock, in ms (asked before
   * each write): the default, IMPORT_SHARED_WRITE_MS, keeps a running server's writes waiting no
   * longer; the command line lengthens it while no server holds the database.
   */
  importWriteMs?: () => number;
  /** OIDC_*: sign-in through the organisation's identity provider (null or absent: none). */
  oidc?: OidcSettings | null;
  /** The provider's client for those settings (the SQL tour's stand-in; by default openid-client's, made here). */
  oidcProvider?: ProviderClient;
  webhooks?: {
    allowPrivateTargets?: boolean;
    resolve?: Resolver;
    timeoutMs?: number;
    ca?: string;
    /** Called after each commit that enqueued deliveries (the server wakes its sender; the CLI leaves them to it). */
    nudge?: () => void;
    /** Sends what is due (the scheduler's job): the server's sender thread, or this process's sender (the default). */
    deliver?: () => Promise<void>;
  };
}

/** Each webhook attempt's limit: 10 s, as the contract promises. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Subscriptions whose deliveries are sent at once (each one's in event order). */
export const WEBHOOK_CONCURRENCY = 8;

/**
 * The service graph over one database connection: the one object the HTTP app, the handlers,
 * the CLI and the tests are given. Every domain write goes through one write helper, which
 * records its events in the same transaction; the webhook outbox subscribes to those events.
 */
export function createServices(database: DatabaseHandle, options: ServiceOptions) {
  const { db } = database;
  const { clock } = options;
  const logger = options.logger ?? createLogger('silent');
  const cursors = createCursorCodec(subkey(options.secretKey, 'cursor-signing'));
  const webhookOptions = {
    secretKey: options.secretKey,
    allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? false,
    resolve: options.webhooks?.resolve ?? systemResolver,
  };
  const webhooksRepo = createWebhooksRepository(db);
  let webhooks: WebhooksService | null = null;
  let write: DomainWrite | null = null;
  const events = createEventLog({
    repo: createEventsRepository(db),
    clock,
    write: (body) => (write as DomainWrite)(() => body()),
    retentionDays: options.eventRetentionDays,
    inUse: webhooksRepo.eventsInUse,
    subscriber: (seq, event) => {
      // setImmediate runs after the synchronous transaction has committed (or rolled back).
      // The sender is woken once the commit is on disk: no delivery announces a write that a
      // power cut could still take back (its own poll may, in the few milliseconds before).
      const nudge = options.webhooks?.nudge;
      if ((webhooks?.enqueue(seq, event) ?? 0) > 0 && nudge)
        setImmediate(() => void database.durability.durable(database.durability.commits()).then(nudge, () => undefined));
    },
  });
  write = createWrite<DomainEvent>(db, events.record);
  const accounts = createAccountsService({
    repo: createAccountsRepository(db),
    clock,
    write,
    workspaceRateLimitPerMin: options.limits?.workspaceRateLimitPerMin,
  });
  const sender = createWebhookSender({
    repo: webhooksRepo,
    write: createWrite(db, null),
    ports: senderPorts(events, accounts),
    clock,
    logger,
    options: {
      ...webhookOptions,
      timeoutMs: options.webhooks?.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      concurrency: WEBHOOK_CONCURRENCY,
      ca: options.webhooks?.ca,
    },
  });
  webhooks = createWebhooksService({
    repo: webhooksRepo,
    write,
    isMember: (workspaceId, userId) => accounts.membership(workspaceId, userId) !== undefined,
    clock,
    options: webhookOptions,
    cursors,
    logger,
    sendPing: sender.ping,
    deliver: () => (options.webhooks?.deliver ?? sender.tick)(),
    onQueued: () => options.webhooks?.nudge?.(),
  });
  const tokens = createTokensService({
    repo: createTokensRepository(db),
    accounts,
    clock,
    write,
    maxActivePerMember: options.limits?.tokensPerMember,
  });
  const { sessions, oidc } = signIns(db, options, { accounts, clock, write, logger });
  accounts.onMemberRemoved(tokens.revokeMember);
  accounts.onMemberRemoved(sessions.endMemberSessions);
  accounts.onAccountDeleted(tokens.deleteOfUser);
  accounts.onAccountDeleted(webhooks.deleteOfUser);
  accounts.onAccountDeleted(sessions.deleteOfUser);
  let catalogPorts: CatalogEntries | null = null;
  const catalog = createCatalogService({
    repo: createCatalogRepository(db),
    clock,
    write,
    entries: () => catalogPorts as CatalogEntries,
  });
  const entryServices = createEntryServices({ repo: createEntriesRepository(db), clock, write, cursors, catalog, accounts });
  catalogPorts = entryServices.catalogPorts;
  const { entries, timers, lister } = entryServices;
  return {
    accounts,
    tokens,
    sessions,
    oidc,
    events,
    webhooks,
    sender,
    catalog,
    entries,
    timers,
    reports: createReportsService({
      clock,
      lister,
      ports: { ...catalog, aggregate: entries.aggregate, userNames: accounts.userNames },
      defaultTimeZone: options.defaultTimeZone ?? 'UTC',
    }),
    imports: createImportsService({
      repo: createImportsRepository(db),
      // Never in the server's batch of writes: an import's writes set pragmas for their transaction.
      write: (body, options) => write(body, { ...options, alone: true }),
      clock,
      entries: entryServices.imports,
      catalog: catalog.imports,
      accounts,
      logger,
      ...(options.importWriteMs ? { writeMs: options.importWriteMs } : {}),
    }),
    invoices: createInvoicesService({
      repo: createInvoicesRepository(db),
      ports: invoicePorts(accounts, catalog, entries),
      clock,
      write,
      defaultTimeZone: options.defaultTimeZone ?? 'UTC',
    }),
    /** The write helper of this connection (the first-start bootstrap writes through it). */
    write,
    /** When this connection's commits are on disk: answers to writes wait for it (src/db/durability.ts). */
    durability: database.durability,
    /** The periodic jobs, each registered by the module that owns it (the server's scheduler runs them). */
    jobs: [...entryServices.jobs, ...webhooks.jobs, ...events.jobs, ...sessions.jobs, ...accounts.jobs],
  };
}

/** Sign-in: sessions (passwords, setup links) and, with OIDC_ISSUER, the identity provider. */
function signIns(
  db: DatabaseHandle['db'],
  options: ServiceOptions,
  parts: { accounts: AccountsService; clock: Clock; write: DomainWrite; logger: Logger },
) {
  const { accounts, clock, write, logger } = parts;
  const sessions = createSessionsService({
    repo: createSessionsRepository(db),
    accounts,
    clock,
    write,
    passwordSignIn: options.oidc?.only ? 'break-glass' : 'everyone',
  });
  const settings = options.oidc ?? null;
  const oidc = createOidcService({
    settings,
    provider: settings === null ? null : (options.oidcProvider ?? createProviderClient(settings, clock)),
    repo: createOidcRepository(db),
    accounts,
    sessions,
    clock,
    write,
    secretKey: options.secretKey,
    logger,
  });
  return { sessions, oidc };
}

/** What invoicing reads and changes of the accounts, catalog and entries modules. */
export function invoicePorts(
  accounts: AccountsService,
  catalog: CatalogService,
  entries: Pick<
    ReturnType<typeof createEntryServices>['entries'],
    'invoiceableGroups' | 'invoiceableEntries' | 'unratedInvoiceable' | 'markInvoiced' | 'releaseInvoice'
  >,
): InvoicePorts {
  return {
    requireWorkspace: accounts.requireWorkspace,
    membership: accounts.membership,
    timeZoneOf: (userId) => accounts.preferences(userId).timeZone,
    businessProfile: accounts.businessProfile,
    storeBusinessProfile: accounts.storeBusinessProfile,
    client: catalog.client,
    projectsOfClients: catalog.projectsOfClients,
    projectLabels: catalog.projectLabels,
    taskNames: catalog.taskNames,
    userNames: accounts.userNames,
    invoiceableGroups: entries.invoiceableGroups,
    invoiceableEntries: entries.invoiceableEntries,
    unratedInvoiceable: entries.unratedInvoiceable,
    markInvoiced: entries.markInvoiced,
    releaseInvoice: entries.releaseInvoice,
  };
}

/** What the webhook sender reads of the events and accounts modules (on whatever connection it runs). */
export function senderPorts(events: Pick<EventLog, 'bySeq'>, accounts: Pick<AccountsService, 'access'>): SenderPorts {
  return {
    eventOf: (seq) => events.bySeq(seq),
    ownerOf: (workspaceId, userId) => {
      const access = accounts.access(workspaceId, userId);
      return access && { userId, canViewOthersTime: access.canViewOthersTime, canViewOthersMoney: access.canViewOthersMoney };
    },
  };
}

export type Services = ReturnType<typeof createServices>;
