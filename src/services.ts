import { isLanguage, translator } from './i18n/index.js';
import { OPERATOR } from './principal.js';
import type { Clock } from './clock.js';
import type { DatabaseHandle } from './db/database.js';
import { createWrite, type Write } from './db/write.js';
import { createCursorCodec } from './kernel/cursor.js';
import { subkey } from './kernel/keys.js';
import { createLogger, type Logger } from './logger.js';
import { createAccountsRepository } from './modules/accounts/repository.js';
import { createApprovalsRepository } from './modules/approvals/repository.js';
import { type ApprovalEntries, type ApprovalMail, type ApprovalsService, createApprovalsService } from './modules/approvals/service.js';
import { type AccountsService, createAccountsService } from './modules/accounts/service.js';
import { createCatalogRepository } from './modules/catalog/repository.js';
import { type CatalogEntries, type CatalogService, createCatalogService } from './modules/catalog/service.js';
import { createEntriesRepository } from './modules/entries/repository.js';
import { createEntryServices } from './modules/entries/service.js';
import { createEventsRepository } from './modules/events/repository.js';
import { createEventLog, type DomainEvent, type DomainWrite, type EventLog } from './modules/events/service.js';
import { createExpensesRepository } from './modules/expenses/repository.js';
import { createExpensesService } from './modules/expenses/service.js';
import { createImportsRepository } from './modules/imports/repository.js';
import { createImportsService } from './modules/imports/service.js';
import { createInvoicesRepository } from './modules/invoices/repository.js';
import { createInvoicesService, type DocumentRenderer, type InvoicePorts, readsInvoices } from './modules/invoices/service.js';
import { createReportsService } from './modules/reports/service.js';
import { createOidcRepository } from './modules/oidc/repository.js';
import { createProviderClient, type ProviderClient } from './modules/oidc/provider.js';
import { createOidcService, type OidcSettings } from './modules/oidc/service.js';
import { createSessionsRepository } from './modules/sessions/repository.js';
import type { HashCost } from './modules/sessions/password.js';
import { createSessionsService } from './modules/sessions/service.js';
import { createTokensRepository } from './modules/tokens/repository.js';
import { createTokensService } from './modules/tokens/service.js';
import { changeStamp } from './db/changes.js';
import { createWebhooksRepository } from './modules/webhooks/repository.js';
import { createWebhookSender, type QueueWriter, type SenderPorts } from './modules/webhooks/sender.js';
import { createWebhooksService, type WebhooksService } from './modules/webhooks/service.js';
import { type Resolver, systemResolver } from './modules/webhooks/targets.js';
import { createMailRepository } from './modules/mail/repository.js';
import type { Relay } from './modules/mail/transport.js';
import {
  addressProblem,
  createMailService,
  MAX_ATTACHMENT_BYTES,
  type Language,
  type MailService,
  type MailSettings,
  type Recipient,
} from './modules/mail/service.js';
import type { SessionMail } from './modules/sessions/service.js';
import type { RunawayReminders } from './modules/entries/service.js';

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
  /** Outgoing mail (SMTP_URL, MAIL_FROM): off without settings. */
  mail?: {
    settings: MailSettings | null;
    /** The settings page's address, under which mailed links point (null when the pages are off). */
    links: () => string | null;
    /** The server wakes its sender after a commit that queued mail; the command line leaves it to the server. */
    wake?: boolean;
    /** The relay replaced (`npm run sql`'s tour, which sends nothing anywhere). */
    relay?: Relay;
  };
  /** Where invoice documents are made: the server's document threads; absent, this process (the command line, threads, tests). */
  documents?: DocumentRenderer;
  /** OIDC_*: sign-in through the organisation's identity provider (null or absent: none). */
  oidc?: OidcSettings | null;
  /** scrypt's cost for new passwords: production's when absent. Only the test helpers lower it; never from the environment. */
  passwordCost?: HashCost;
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
    /** Where the sender's queue writes are made (the sender's thread: the server's write path); by default on this connection. */
    writer?: QueueWriter;
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
  const webhookOptions = webhookOptionsOf(options);
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
  const mail = mailService(database, options, write, logger);
  // The invitation's mail reads the accounts it is part of: bound once both exist.
  let mailed: ReturnType<typeof mailPorts> | null = null;
  // An invitation speaks its workspace's language (its documents'): bound once the invoices service exists.
  let workspaceLanguage: (workspaceId: string) => string | null = () => null;
  const accounts = createAccountsService({
    repo: createAccountsRepository(db),
    clock,
    write,
    workspaceRateLimitPerMin: options.limits?.workspaceRateLimitPerMin,
    mailInvitation: (input) => (mailed as ReturnType<typeof mailPorts>).invitation(input),
    invitationBudget: (input) => {
      if (mail.enabled()) mail.checkBudget({ kind: 'invitation', userId: input.invitedBy, workspaceId: input.workspaceId });
    },
  });
  mailed = mailPorts(mail, accounts, (workspaceId) => workspaceLanguage(workspaceId));
  const sender = webhookSender(database, options, webhooksRepo, events, accounts, logger);
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
    changes: changeStamp(database.sqlite),
    maxActivePerMember: options.limits?.tokensPerMember,
  });
  const { sessions, oidc } = signIns(db, options, { accounts, clock, write, logger, mail: mailed.sessions });
  accountListeners(accounts, { tokens, sessions, webhooks, mail });
  let catalogPorts: CatalogEntries | null = null;
  const catalog = createCatalogService({
    repo: createCatalogRepository(db),
    clock,
    write,
    entries: () => catalogPorts as CatalogEntries,
  });
  const { approvals, entryServices } = entriesWithApprovals(db, options, { write, cursors, catalog, accounts, mailed });
  catalogPorts = entryServices.catalogPorts;
  const { entries, timers, lister } = entryServices;
  const expenses = expensesOf(db, options.clock, write, accounts, catalog);
  const invoices = createInvoicesService({
    repo: createInvoicesRepository(db),
    ports: invoicePorts(accounts, catalog, entries, mail, approvals, expenses.invoicing),
    clock,
    write,
    defaultTimeZone: options.defaultTimeZone ?? 'UTC',
    ...(options.documents ? { render: options.documents } : {}),
    logger,
  });
  workspaceLanguage = (workspaceId) => invoices.workspaceLanguage(OPERATOR, workspaceId);
  return {
    accounts,
    tokens,
    sessions,
    oidc,
    events,
    webhooks,
    sender,
    mail,
    catalog,
    entries,
    timers,
    approvals,
    expenses,
    reports: createReportsService({
      clock,
      lister,
      ports: { ...catalog, aggregate: entries.aggregate, userNames: accounts.userNames, roundingRules: invoices.roundingRules },
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
      invoices: invoices.imports,
      approvals: approvals.transfer,
      expenses: expenses.transfer,
      logger,
      ...(options.importWriteMs ? { writeMs: options.importWriteMs } : {}),
    }),
    invoices,
    /** The write helper of this connection (the first-start bootstrap writes through it). */
    write,
    /** When this connection's commits are on disk: answers to writes wait for it (src/db/durability.ts). */
    durability: database.durability,
    /** The periodic jobs, each registered by the module that owns it (the server's scheduler runs them). */
    jobs: [...entryServices.jobs, ...webhooks.jobs, ...invoices.jobs, ...mail.jobs, ...events.jobs, ...sessions.jobs, ...accounts.jobs],
  };
}

/**
 * Entries, and the approvals module (decisions §13) over the same connection: the entries' core
 * asks approvals in every write, and approvals read entries in turn (bound once both exist).
 */
function entriesWithApprovals(
  db: DatabaseHandle['db'],
  options: ServiceOptions,
  parts: {
    write: DomainWrite;
    cursors: ReturnType<typeof createCursorCodec>;
    catalog: CatalogService;
    accounts: AccountsService;
    mailed: ReturnType<typeof mailPorts>;
  },
) {
  const { write, cursors, catalog, accounts, mailed } = parts;
  const { clock } = options;
  let approvalEntries: ApprovalEntries | null = null;
  const approvals = createApprovalsService({
    repo: createApprovalsRepository(db),
    clock,
    write,
    accounts: {
      membership: accounts.membership,
      timeZoneOf: (userId) => accounts.preferences(userId).timeZone,
      userNames: accounts.userNames,
      requireWorkspace: accounts.requireWorkspace,
    },
    entries: () => approvalEntries as ApprovalEntries,
    mail: mailed.approvals,
    defaultTimeZone: options.defaultTimeZone ?? 'UTC',
  });
  accounts.onMemberRemoved(approvals.memberRemoved);
  accounts.onAccountDeleted(approvals.accountDeleted);
  const entryServices = createEntryServices({
    repo: createEntriesRepository(db),
    clock,
    write,
    cursors,
    catalog,
    accounts,
    reminders: mailed.reminders,
    locks: { entryLock: approvals.entryLock },
  });
  const { entries, catalogPorts } = entryServices;
  approvalEntries = {
    running: entries.runningOf,
    runningStarts: (workspaceId) => catalogPorts.running(workspaceId).map((r) => r.startAt),
    rows: entries.periodRows,
    sums: entries.periodSums,
  };
  return { approvals, entryServices };
}

/** Expenses (decisions §12) over this connection, reading the accounts and the catalog. */
function expensesOf(db: DatabaseHandle['db'], clock: Clock, write: DomainWrite, accounts: AccountsService, catalog: CatalogService) {
  return createExpensesService({
    repo: createExpensesRepository(db),
    clock,
    write,
    ports: {
      membership: accounts.membership,
      userNames: accounts.userNames,
      project: catalog.project,
      projectsNamed: catalog.projectsNamed,
      projectLabels: catalog.projectLabels,
    },
  });
}

/** What the other modules do, in the accounts' write, when a member leaves, an account's credentials end, or an account goes. */
function accountListeners(
  accounts: AccountsService,
  modules: {
    tokens: ReturnType<typeof createTokensService>;
    sessions: ReturnType<typeof createSessionsService>;
    webhooks: WebhooksService;
    mail: MailService;
  },
): void {
  const { tokens, sessions, webhooks, mail } = modules;
  accounts.onMemberRemoved(tokens.revokeMember);
  accounts.onMemberRemoved(sessions.endMemberSessions);
  accounts.onCredentialsEnded(tokens.revokeUser);
  accounts.onCredentialsEnded(sessions.endCredentialsOf);
  accounts.onAccountDeleted(tokens.deleteOfUser);
  accounts.onAccountDeleted(webhooks.deleteOfUser);
  accounts.onAccountDeleted(sessions.deleteOfUser);
  accounts.onAccountDeleted(mail.cancelOfUser);
}

/** The target rules and key of webhooks, as configured. */
const webhookOptionsOf = (options: ServiceOptions) => ({
  secretKey: options.secretKey,
  allowPrivateTargets: options.webhooks?.allowPrivateTargets ?? false,
  resolve: options.webhooks?.resolve ?? systemResolver,
});

/** The webhook sender of this process (the server's own runs on a thread of its own). */
function webhookSender(
  database: DatabaseHandle,
  options: ServiceOptions,
  webhooksRepo: ReturnType<typeof createWebhooksRepository>,
  events: EventLog,
  accounts: AccountsService,
  logger: Logger,
) {
  const { db } = database;
  const { clock } = options;
  const webhookOptions = webhookOptionsOf(options);
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
    writer: options.webhooks?.writer,
  });
  return sender;
}

/** Outgoing mail over this connection: off without settings; the server wakes its sender after each commit that queued mail. */
function mailService(database: DatabaseHandle, options: ServiceOptions, write: Write<never>, logger: Logger): MailService {
  const { db } = database;
  const { clock } = options;
  const mail: MailService = createMailService({
    repo: createMailRepository(db),
    write,
    clock,
    secretKey: options.secretKey,
    settings: options.mail?.settings ?? null,
    links: options.mail?.links ?? (() => null),
    logger,
    ...(options.mail?.relay ? { relay: options.mail.relay } : {}),
    // Woken once the commit is on disk, like the webhook sender: no mail announces a write a power cut could take back.
    ...(options.mail?.wake
      ? {
          afterEnqueue: () =>
            setImmediate(
              () =>
                void database.durability.durable(database.durability.commits()).then(
                  () => mail.deliver(),
                  () => undefined,
                ),
            ),
        }
      : {}),
  });
  return mail;
}

/**
 * What the other modules have mailed, composed from the accounts' data: each runs inside the
 * write that caused it. A recipient's language is their own where they chose one; "Add member"
 * mail is written in the workspace's language where it is one mail speaks, else the inviter's
 * (an invitation must say nothing of the account that holds the address, decisions §8a, and the
 * Mail page shows its subject to owners; decisions §14).
 */
function mailPorts(mail: MailService, accounts: AccountsService, workspaceLanguage: (workspaceId: string) => string | null) {
  const reader = (userId: string | null): { language: Language; timeZone: string } => {
    const prefs = userId === null ? null : accounts.preferences(userId);
    return { language: prefs?.language ?? 'en', timeZone: prefs?.timeZone ?? 'UTC' };
  };
  const recipientOf = (userId: string, address?: string): Recipient | null => {
    const user = accounts.userOf(userId);
    if (!user) return null;
    const to = address ?? user.email;
    return mail.deliverable(to) ? { address: to, name: user.name, ...reader(userId) } : null;
  };
  const inviterName = (invitedBy: string | null, workspaceName: string, language: Language) =>
    (invitedBy === null ? undefined : accounts.userOf(invitedBy)?.name) ??
    translator(language)('mail.invitation.owners', { workspace: workspaceName });
  const invitation = (input: {
    workspaceId: string;
    email: string;
    userId: string | null;
    invitedBy: string | null;
    secret: string;
    expiresAt: number;
  }): boolean => {
    const workspaceName = accounts.workspaceName(input.workspaceId);
    if (!mail.enabled() || workspaceName === null || !mail.deliverable(input.email)) return false;
    // An owner's invitation counts against their budget and the workspace's (issue 44, M5); refused, the write is undone.
    mail.spend({ kind: 'invitation', userId: input.invitedBy, workspaceId: input.workspaceId });
    const inviter = reader(input.invitedBy);
    const spoken = workspaceLanguage(input.workspaceId);
    const language = isLanguage(spoken) ? spoken : inviter.language;
    mail.invitation(
      { address: input.email, name: null, ...inviter, language },
      { ...input, workspaceName, inviterName: inviterName(input.invitedBy, workspaceName, language) },
    );
    return true;
  };
  const sessions: SessionMail = {
    enabled: () => mail.enabled(),
    setupLink: (input) => {
      const user = accounts.userOf(input.userId);
      return user !== undefined && invitation({ ...input, email: user.email });
    },
    passwordReset: (input) => {
      const to = recipientOf(input.userId);
      // A reset spent past its account's budget is not mailed; the page answers alike (issue 44, M5).
      if (!to || !mail.trySpend({ kind: 'reset', userId: input.userId, workspaceId: null })) return false;
      // No name of the account's choosing in the To header: the address alone.
      mail.passwordReset({ ...to, name: null }, input);
      return true;
    },
    addressConfirmation: (input) => {
      const to = recipientOf(input.userId);
      // Counted as a reset of the account (issue 44, M5): whoever knows the password cannot flood the mailbox.
      if (!to || !mail.trySpend({ kind: 'reset', userId: input.userId, workspaceId: null })) return false;
      mail.addressConfirmation({ ...to, name: null }, input);
      return true;
    },
    emailChange: (input) => {
      const to = recipientOf(input.userId, input.email);
      if (!to) return false;
      mail.spend({ kind: 'verification', userId: input.userId, workspaceId: input.workspaceId });
      // To an address nobody proved yet: nothing the member typed (their name) goes into it.
      mail.emailChange({ ...to, name: null }, input);
      return true;
    },
  };
  const reminders: RunawayReminders = {
    enabled: () => mail.enabled(),
    remind: (input) => {
      const to = recipientOf(input.userId);
      const workspaceName = accounts.workspaceName(input.workspaceId);
      if (!to || workspaceName === null || !accounts.membership(input.workspaceId, input.userId)) return;
      mail.runawayReminder(to, { ...input, workspaceName });
    },
  };
  // A decision on a member's period (approved, rejected, reopened by someone else): told by mail, within the decider's
  // budget and the workspace's; a spent budget leaves the decision made and the mail unsent (it is a courtesy).
  const approvals: ApprovalMail = {
    tell: (input) => {
      if (!mail.enabled()) return;
      const to = recipientOf(input.userId);
      const workspaceName = accounts.workspaceName(input.workspaceId);
      if (!to || workspaceName === null || !accounts.membership(input.workspaceId, input.userId)) return;
      if (!mail.trySpend({ kind: 'approval', userId: input.byUserId, workspaceId: input.workspaceId })) return;
      const byName = input.byUserId === null ? null : (accounts.userOf(input.byUserId)?.name ?? null);
      mail.approvalDecision(to, { ...input, workspaceName, byName });
    },
  };
  return { invitation, sessions, reminders, approvals };
}

/** Sign-in: sessions (passwords, setup links) and, with OIDC_ISSUER, the identity provider. */
function signIns(
  db: DatabaseHandle['db'],
  options: ServiceOptions,
  parts: { accounts: AccountsService; clock: Clock; write: DomainWrite; logger: Logger; mail: SessionMail },
) {
  const { accounts, clock, write, logger, mail } = parts;
  const sessions = createSessionsService({
    repo: createSessionsRepository(db),
    accounts,
    clock,
    write,
    mail,
    passwordSignIn: options.oidc?.only ? 'break-glass' : 'everyone',
    ...(options.passwordCost ? { passwordCost: options.passwordCost } : {}),
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
    'invoiceableGroups' | 'invoiceableEntries' | 'invoiceableCount' | 'unratedInvoiceable' | 'markInvoiced' | 'releaseInvoice'
  > &
    Partial<Pick<ReturnType<typeof createEntryServices>['entries'], 'invoiceableWaiting'>>,
  /** Outgoing mail; without it (tests of invoicing alone) mail is off. */
  mail?: Pick<MailService, 'enabled' | 'deliverable' | 'message' | 'spend' | 'senderAddress' | 'delivery'>,
  /** Approval (decisions §13): invoices take only approved time; without it (tests of invoicing alone) all time. */
  approvals?: Pick<ApprovalsService, 'approvedSpans'>,
  /** Expenses (decisions §12): a draft takes them; without it (tests of invoicing alone) none. */
  expenses?: InvoicePorts['expenses'],
): InvoicePorts {
  return {
    requireWorkspace: accounts.requireWorkspace,
    membership: accounts.membership,
    timeZoneOf: (userId) => accounts.preferences(userId).timeZone,
    businessProfile: accounts.businessProfile,
    storeBusinessProfile: accounts.storeBusinessProfile,
    client: catalog.client,
    clientRoundings: catalog.clientRoundings,
    storeClientRounding: catalog.storeClientRounding,
    clientLanguages: catalog.clientLanguages,
    storeClientLanguage: catalog.storeClientLanguage,
    workTaxes: catalog.workTaxes,
    storeWorkTax: catalog.storeWorkTax,
    projectsOfClients: catalog.projectsOfClients,
    projectLabels: catalog.projectLabels,
    taskNames: catalog.taskNames,
    userNames: accounts.userNames,
    invoiceableGroups: entries.invoiceableGroups,
    invoiceableEntries: entries.invoiceableEntries,
    invoiceableCount: entries.invoiceableCount,
    unratedInvoiceable: entries.unratedInvoiceable,
    markInvoiced: entries.markInvoiced,
    releaseInvoice: entries.releaseInvoice,
    ...(approvals && entries.invoiceableWaiting
      ? { approvedSpans: approvals.approvedSpans, invoiceableWaiting: entries.invoiceableWaiting }
      : {}),
    ...(expenses ? { expenses } : {}),
    workspaceName: accounts.workspaceName,
    mail: {
      enabled: () => mail?.enabled() ?? false,
      deliverable: (address) => mail?.deliverable(address) ?? false,
      undeliverable: (address) => (mail ? addressProblem(address.trim()) : 'mail is off on this server'),
      spend: (cause) => mail?.spend(cause),
      senderAddress: () => mail?.senderAddress() ?? null,
      maxAttachmentBytes: () => MAX_ATTACHMENT_BYTES,
      delivery: (id) => mail?.delivery(id) ?? null,
      queue: (message) => {
        if (!mail) throw new Error('mail is not wired into these services');
        return mail.message(message);
      },
    },
  };
}

/** What the webhook sender reads of the events and accounts modules (on whatever connection it runs). */
export function senderPorts(events: Pick<EventLog, 'bySeq'>, accounts: Pick<AccountsService, 'access'>): SenderPorts {
  return {
    eventOf: (seq) => events.bySeq(seq),
    ownerOf: (workspaceId, userId) => {
      const access = accounts.access(workspaceId, userId);
      return (
        access && {
          userId,
          canViewOthersTime: access.canViewOthersTime,
          canViewOthersMoney: access.canViewOthersMoney,
          // The invoices module's one rule of who reads invoices (the pages and the live feed ask it too).
          readsInvoices: readsInvoices(access),
        }
      );
    },
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * What the configuration (src/config.ts) decides of the service graph: plain data, so each thread
 * is given it as the server holds it.
 */
export interface GraphSettings {
  /** TZ: reports without a timeZone use it. */
  serverTimeZone: string;
  eventRetentionDays: number;
  rateLimitWorkspacePerMin: number;
  tokensPerMember: number;
  oidc: OidcSettings | null;
  webhookAllowPrivateTargets: boolean;
  mail: MailSettings | null;
}

/** The graph's part of the configuration (a Config, or a thread's copy of one). */
export const graphSettings = (config: GraphSettings): GraphSettings => ({
  serverTimeZone: config.serverTimeZone,
  eventRetentionDays: config.eventRetentionDays,
  rateLimitWorkspacePerMin: config.rateLimitWorkspacePerMin,
  tokensPerMember: config.tokensPerMember,
  oidc: config.oidc,
  webhookAllowPrivateTargets: config.webhookAllowPrivateTargets,
  mail: config.mail,
});

/** What an entry brings of its own: its clock, key and log, and what only it has (the server's threads, the command line's import pace, mailed links). */
export type EntryParts = Omit<ServiceOptions, 'defaultTimeZone' | 'eventRetentionDays' | 'limits' | 'oidc' | 'mail' | 'webhooks'> & {
  webhooks?: Omit<NonNullable<ServiceOptions['webhooks']>, 'allowPrivateTargets'>;
  mail?: Omit<NonNullable<ServiceOptions['mail']>, 'settings' | 'links'> & { links?: () => string | null };
};

/**
 * The service graph as the configuration makes it: the one way every entry builds it (the
 * server, the command line, each thread over its own connection), so that a thread's graph is
 * the server's: the same zone, limits, identity provider, webhook targets and mail.
 */
export function configuredServices(database: DatabaseHandle, settings: GraphSettings, parts: EntryParts): Services {
  return createServices(database, {
    ...parts,
    defaultTimeZone: settings.serverTimeZone,
    eventRetentionDays: settings.eventRetentionDays,
    limits: { workspaceRateLimitPerMin: settings.rateLimitWorkspacePerMin, tokensPerMember: settings.tokensPerMember },
    oidc: settings.oidc,
    webhooks: { ...parts.webhooks, allowPrivateTargets: settings.webhookAllowPrivateTargets },
    mail: { ...parts.mail, settings: settings.mail, links: parts.mail?.links ?? (() => null) },
  });
}
