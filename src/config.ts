import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import type { Synchronous } from './db/database.js';
import type { LogLevel } from './logger.js';
import { isLoopbackHost, OIDC_BACKCHANNEL_PATH, OIDC_CALLBACK_PATH, type OidcSettings } from './modules/oidc/settings.js';
import { readReplicationSettings, type ReplicationSettings } from './replication-config.js';
import { type MailSettings, parseMailSettings } from './modules/mail/settings.js';

export type { LogLevel } from './logger.js';

export interface Config {
  baseUrl: string;
  /** Whether BASE_URL was set (else baseUrl is a guess from PORT). */
  baseUrlSet: boolean;
  problemsBase: string;
  /** True when PROBLEMS_BASE was not set, so the server itself publishes the problem pages. */
  servesProblemPages: boolean;
  port: number;
  host: string;
  databasePath: string;
  webhookAllowPrivateTargets: boolean;
  rateLimitTokenPerMin: number;
  rateLimitWorkspacePerMin: number;
  /** TOKENS_PER_MEMBER: active API tokens a member may mint for themselves on the settings page. */
  tokensPerMember: number;
  /** APP_STREAMS_PER_MEMBER: the web app's open live streams a member may hold (a tab each). */
  appStreamsPerMember: number;
  /** APP_STREAMS_PER_WORKSPACE: the web app's open live streams of one workspace's members together. */
  appStreamsPerWorkspace: number;
  /** APP_STREAMS_TOTAL: the web app's open live streams in all. */
  appStreamsTotal: number;
  /** Requests per client address and minute that carry no valid token (401s, unknown routes, the contract). */
  rateLimitAnonymousPerMin: number;
  /** Proxies whose X-Forwarded-For names the client (Express's `trust proxy`: addresses, CIDRs, loopback…); [] trusts none. */
  trustProxy: string[];
  maxBodyBytes: number;
  logLevel: LogLevel;
  /** SECRET_KEY: the server key's source; unset, a key file beside the database is used. */
  secretKey: string | undefined;
  /** SCHEDULER_CRON: when periodic jobs run (six-field node-cron expression), or null for `off`. */
  schedulerCron: string | null;
  /** The zone reports use without a timeZone parameter: TZ, else the system's (UTC on a deployment). */
  serverTimeZone: string;
  /** READER_THREADS: threads for heavy reads (0: on the request thread); default one per core. */
  readerThreads: number;
  /** READ_BUDGET_MS: a heavy read running longer has its thread replaced and answers 500. */
  readBudgetMs: number;
  /** READ_QUEUE_MS: a heavy read that waits longer for a free reader thread is not started and answers 503 readers-busy. */
  readQueueMs: number;
  /** READER_CACHE_MB: each reader connection's page cache. */
  readerCacheMb: number;
  /** READER_THREADS_KEPT: reader threads kept ready while idle (the first report after a quiet spell needs no thread start). */
  readerThreadsKept: number;
  /** EXPORT_MAX_MS: the longest a Reports page download may take, from its request to its last byte; past it, it is broken off. */
  exportMaxMs: number;
  /** DOCUMENT_THREADS: threads that make invoice documents (PDF, XML) off the request thread; 0 makes them on it. */
  documentThreads: number;
  /** DOCUMENT_QUEUE_MS: a document that waits longer for a free document thread is not started and answers 503. */
  documentQueueMs: number;
  /** SQLITE_SYNCHRONOUS: FULL (a commit survives a power cut) or NORMAL (it survives a crash of the process). */
  synchronous: Synchronous;
  /** Sync events older than this are deleted (those a delivery log row refers to stay until it goes). */
  eventRetentionDays: number;
  /** MIGRATION_BACKUPS: backups written before a migration that are kept (0: none written). */
  migrationBackups: number;
  /** WAL_CHECKPOINTS: `server` (its own checkpointer thread) or `external` (Litestream checkpoints; the server runs none). */
  walCheckpoints: 'server' | 'external';
  /** METRICS=true, or METRICS_TOKEN set: GET /metrics serves the Prometheus text format. */
  metrics: boolean;
  /** METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <it>`. */
  metricsToken: string | undefined;
  /**
   * CORS_ORIGINS: the browser origins (`scheme://host[:port]`, normalised) whose pages may call
   * the API; ['*'] allows every origin (no credentials: the API's only credential is the bearer
   * token a script sends itself); [] (the default) sends no CORS headers at all.
   */
  corsOrigins: string[];
  /** COMPRESSION_MIN_BYTES: answers at least this large are compressed when the client asks (br, gzip); null for `off`. */
  compressionMinBytes: number | null;
  /** SETTINGS_PATH: where the settings web page is served (`/settings`), or null for `off`. */
  settingsPath: string | null;
  /** IMPORT_UPLOAD_MAX_MB: the largest file the Import page accepts (the command line has no limit). */
  importUploadMaxBytes: number;
  /** IMPORT_UPLOADS_MEMBER_MB: what a member's uploaded files (checked, or being imported) may take on disk at once. */
  importUploadsMemberBytes: number;
  /** IMPORT_UPLOADS_TOTAL_MB: what all members' uploaded files may take on disk at once. */
  importUploadsTotalBytes: number;
  /** LITESTREAM_CONFIG (with REPLICATION_MAX_LAG_MS): continuous replication is meant to run; null when unset. */
  replication: ReplicationSettings | null;
  /** SHUTDOWN_ANNOUNCE_MS: after SIGTERM, how long the server keeps serving with GET /readyz at 503 before it stops accepting. */
  shutdownAnnounceMs: number;
  /** SMTP_URL, MAIL_FROM, SMTP_CA_FILE: the relay mail goes through; null (mail off) without SMTP_URL. */
  mail: MailSettings | null;
  /** OIDC_*: sign-in with the organisation's identity provider; null when OIDC_ISSUER is unset. */
  oidc: OidcSettings | null;
}

/**
 * WAL_CHECKPOINTS: `server` or `external`; with replication (LITESTREAM_CONFIG) it is `external`
 * unless set, and `server` is refused: the server's checkpoints would race Litestream's.
 */
function walCheckpointsOf(raw: string | undefined, replicated: boolean, problems: string[]): 'server' | 'external' {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return replicated ? 'external' : 'server';
  if (value !== 'server' && value !== 'external') {
    problems.push(`WAL_CHECKPOINTS must be server or external (got ${JSON.stringify(raw)})`);
    return replicated ? 'external' : 'server';
  }
  if (value === 'server' && replicated)
    problems.push(
      "WAL_CHECKPOINTS=server with LITESTREAM_CONFIG: the server would checkpoint behind Litestream's back; unset WAL_CHECKPOINTS (replication sets it to external)",
    );
  return value;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** The budgets: requests per minute, tokens per member, the web app's live streams. */
function limits(int: (name: string, fallback: number, min: number, max: number) => number) {
  return {
    rateLimitTokenPerMin: int('RATE_LIMIT_TOKEN_PER_MIN', 600, 1, 1_000_000_000),
    rateLimitWorkspacePerMin: int('RATE_LIMIT_WORKSPACE_PER_MIN', 3000, 1, 1_000_000_000),
    rateLimitAnonymousPerMin: int('RATE_LIMIT_ANONYMOUS_PER_MIN', 120, 1, 1_000_000_000),
    tokensPerMember: int('TOKENS_PER_MEMBER', 50, 1, 100_000),
    appStreamsPerMember: int('APP_STREAMS_PER_MEMBER', 10, 1, 1000),
    appStreamsPerWorkspace: int('APP_STREAMS_PER_WORKSPACE', 250, 1, 100_000),
    appStreamsTotal: int('APP_STREAMS_TOTAL', 1000, 1, 100_000),
  };
}

const DEFAULT_SCHEDULER_CRON = '* * * * * *';
// node-cron checks a SCHEDULER_CRON that is set, loaded then: every start (a command's too) would
// otherwise compile it for the default, which needs no check.
const requireHere = createRequire(import.meta.url);
const validCron = (expression: string): boolean => (requireHere('node-cron') as typeof import('node-cron')).validate(expression);

/**
 * Configuration, parsed once from the environment into a typed object. Only src/main.ts calls
 * this; everything else receives the object. Every bad value is named in one ConfigError.
 */
export function parseConfig(env: Env, readFile: (path: string) => string = (path) => readFileSync(path, 'utf8')): Config {
  const problems: string[] = [];

  const text = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw.trim());
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string): boolean => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return false;
    const value = raw.trim().toLowerCase();
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    problems.push(`${name} must be true or false (got ${JSON.stringify(raw)})`);
    return false;
  };
  const url = (name: string, fallback: string): string => {
    const value = text(name, fallback).replace(/\/+$/, '');
    try {
      const parsed = new URL(value);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
      if (parsed.search || parsed.hash) throw new Error('query');
    } catch {
      problems.push(`${name} must be an absolute http(s) URL without query or fragment (got ${JSON.stringify(env[name])})`);
    }
    return value;
  };

  const port = int('PORT', 8080, 0, 65535);
  const baseUrl = url('BASE_URL', `http://localhost:${port}`);
  const problemsBaseSet = env.PROBLEMS_BASE !== undefined && env.PROBLEMS_BASE.trim() !== '';
  const problemsBase = url('PROBLEMS_BASE', `${baseUrl}/problems`);
  const trustProxy = (): string[] => {
    const list = (env.TRUST_PROXY ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    const named = ['loopback', 'linklocal', 'uniquelocal'];
    const bad = list.filter((item) => !named.includes(item) && !isIpOrCidr(item));
    if (bad.length > 0)
      problems.push(
        `TRUST_PROXY must list addresses, CIDR ranges, loopback, linklocal or uniquelocal (got ${JSON.stringify(bad.join(','))})`,
      );
    return list;
  };
  const synchronous = text('SQLITE_SYNCHRONOUS', 'FULL').toUpperCase();
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    problems.push(`SQLITE_SYNCHRONOUS must be FULL or NORMAL (got ${JSON.stringify(env.SQLITE_SYNCHRONOUS)})`);
  }
  const logLevel = text('LOG_LEVEL', 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(env.LOG_LEVEL)})`);
  }

  const secretKey = (): string | undefined => {
    const value = env.SECRET_KEY;
    if (value === undefined || value === '') return undefined;
    if (value.length < 32) problems.push('SECRET_KEY must be at least 32 characters');
    return value;
  };
  const schedulerCron = text('SCHEDULER_CRON', DEFAULT_SCHEDULER_CRON);
  if (schedulerCron !== 'off' && schedulerCron !== DEFAULT_SCHEDULER_CRON && !validCron(schedulerCron)) {
    problems.push(`SCHEDULER_CRON must be a node-cron expression or off (got ${JSON.stringify(schedulerCron)})`);
  }

  const serverTimeZone = (() => {
    const zone = text('TZ', Intl.DateTimeFormat().resolvedOptions().timeZone).replace(/^:/, '');
    try {
      return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    } catch {
      problems.push(`TZ must be an IANA time zone name (got ${JSON.stringify(env.TZ)})`);
      return 'UTC';
    }
  })();

  const databasePath = text('DATABASE_PATH', './data/timetrack.db');
  const litestreamConfig = text('LITESTREAM_CONFIG', '');
  const replication = replicationOf(litestreamConfig, databasePath, int('REPLICATION_MAX_LAG_MS', 10_000, 500, 3_600_000), env, problems);

  const config: Config = {
    baseUrl,
    baseUrlSet: env.BASE_URL !== undefined && env.BASE_URL.trim() !== '',
    problemsBase,
    servesProblemPages: !problemsBaseSet || problemsBase === `${baseUrl}/problems`,
    port,
    host: text('HOST', '0.0.0.0'),
    databasePath,
    webhookAllowPrivateTargets: bool('WEBHOOK_ALLOW_PRIVATE_TARGETS'),
    ...limits(int),
    trustProxy: trustProxy(),
    maxBodyBytes: int('MAX_BODY_BYTES', 1024 * 1024, 1, 1024 * 1024 * 1024),
    logLevel: LOG_LEVELS.includes(logLevel) ? logLevel : 'info',
    secretKey: secretKey(),
    schedulerCron: schedulerCron === 'off' ? null : schedulerCron,
    serverTimeZone,
    ...readerSettings(int),
    documentThreads: int('DOCUMENT_THREADS', 1, 0, 16),
    documentQueueMs: int('DOCUMENT_QUEUE_MS', 2000, 1, 3_600_000),
    synchronous: synchronous === 'NORMAL' ? 'NORMAL' : 'FULL',
    eventRetentionDays: int('EVENT_RETENTION_DAYS', 180, 1, 36_500),
    migrationBackups: int('MIGRATION_BACKUPS', 3, 0, 100),
    walCheckpoints: walCheckpointsOf(env.WAL_CHECKPOINTS, litestreamConfig !== '', problems),
    ...metricsSettings(env, bool('METRICS'), problems),
    corsOrigins: corsOrigins(env.CORS_ORIGINS, problems),
    compressionMinBytes: compressionMinBytes(env.COMPRESSION_MIN_BYTES, problems),
    settingsPath: settingsPath(env.SETTINGS_PATH, problems),
    ...uploadSettings(int),
    replication,
    shutdownAnnounceMs: int('SHUTDOWN_ANNOUNCE_MS', 0, 0, 60_000),
    mail: parseMailSettings(env, problems),
    oidc: null,
  };
  config.oidc = oidcSettings(env, config, bool, problems, readFile);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return config;
}

/**
 * OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET or OIDC_CLIENT_SECRET_FILE, OIDC_NAME, OIDC_ONLY,
 * OIDC_SCOPES: null unless OIDC_ISSUER is set. The addresses the provider sends people back to are
 * built from BASE_URL (which must be set: the provider must know them in advance) and SETTINGS_PATH.
 */
function oidcSettings(
  env: Env,
  config: Config,
  bool: (name: string) => boolean,
  problems: string[],
  readFile: (path: string) => string,
): OidcSettings | null {
  const value = (name: string) => (env[name] ?? '').trim();
  const issuer = value('OIDC_ISSUER');
  if (issuer === '') {
    const stray = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_CLIENT_SECRET_FILE', 'OIDC_NAME', 'OIDC_ONLY', 'OIDC_SCOPES'].filter(
      (name) => value(name) !== '',
    );
    if (stray.length > 0)
      problems.push(
        `${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set but OIDC_ISSUER is not: set OIDC_ISSUER to sign in with an identity provider, or unset them`,
      );
    return null;
  }
  const before = problems.length;
  let url: URL | null = null;
  try {
    url = new URL(issuer);
  } catch {
    // reported below
  }
  if (
    url === null ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== ''
  )
    problems.push(
      `OIDC_ISSUER must be the identity provider's issuer URL, such as https://sso.example.org/realms/staff (got ${JSON.stringify(issuer)})`,
    );
  else if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    problems.push(
      `OIDC_ISSUER must be https (plain http only for a provider on this machine, 127.0.0.1 or localhost; got ${JSON.stringify(issuer)})`,
    );
  const clientId = value('OIDC_CLIENT_ID');
  if (clientId === '') problems.push('OIDC_CLIENT_ID must be set with OIDC_ISSUER: the client id the identity provider gave timetrack');
  const secret = value('OIDC_CLIENT_SECRET');
  const secretFile = value('OIDC_CLIENT_SECRET_FILE');
  let clientSecret = secret;
  if (secret !== '' && secretFile !== '') problems.push('OIDC_CLIENT_SECRET and OIDC_CLIENT_SECRET_FILE are both set: keep one');
  else if (secretFile !== '') {
    try {
      clientSecret = readFile(secretFile).trim();
      if (clientSecret === '') problems.push(`OIDC_CLIENT_SECRET_FILE ${secretFile} is empty`);
    } catch (error) {
      problems.push(`OIDC_CLIENT_SECRET_FILE ${secretFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  } else if (secret === '')
    problems.push(
      'OIDC_CLIENT_SECRET (or OIDC_CLIENT_SECRET_FILE) must be set with OIDC_ISSUER: the client secret the identity provider gave timetrack',
    );
  if (!config.baseUrlSet)
    problems.push(
      `OIDC_ISSUER needs BASE_URL: the identity provider sends people back to BASE_URL${config.settingsPath ?? '/settings'}${OIDC_CALLBACK_PATH}, which must be registered with it`,
    );
  if (config.settingsPath === null) problems.push('OIDC_ISSUER needs the sign-in page, but SETTINGS_PATH is off');
  const scopes = (value('OIDC_SCOPES') || 'openid email profile').split(/[\s,]+/).filter((s) => s !== '');
  if (!scopes.includes('openid')) scopes.unshift('openid');
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))
    problems.push(`OIDC_SCOPES must be scope names separated by spaces (got ${JSON.stringify(env.OIDC_SCOPES)})`);
  const name = value('OIDC_NAME') || (url?.host ?? issuer);
  if (name.length > 60) problems.push('OIDC_NAME must be at most 60 characters');
  const only = bool('OIDC_ONLY');
  if (problems.length > before) return null;
  const settings = `${config.baseUrl}${config.settingsPath ?? '/settings'}`;
  return {
    issuer,
    clientId,
    clientSecret,
    name,
    only,
    scopes,
    redirectUri: `${settings}${OIDC_CALLBACK_PATH}`,
    postLogoutRedirectUri: `${settings}/sign-in`,
    backchannelLogoutUri: `${settings}${OIDC_BACKCHANNEL_PATH}`,
  };
}

/** LITESTREAM_CONFIG and REPLICATION_MAX_LAG_MS: null (no replication) unless the first is set; the file is read and checked. */
function replicationOf(path: string, databasePath: string, maxLagMs: number, env: Env, problems: string[]): ReplicationSettings | null {
  if (path !== '') return readReplicationSettings(path, databasePath, maxLagMs, env, problems);
  if ((env.REPLICATION_MAX_LAG_MS ?? '').trim() !== '')
    problems.push('REPLICATION_MAX_LAG_MS is set but LITESTREAM_CONFIG is not: set LITESTREAM_CONFIG to replicate, or unset both');
  return null;
}

/** IMPORT_UPLOAD_MAX_MB, IMPORT_UPLOADS_MEMBER_MB, IMPORT_UPLOADS_TOTAL_MB: what the Import page's uploads may take, in bytes. */
function uploadSettings(
  int: (name: string, fallback: number, min: number, max: number) => number,
): Pick<Config, 'importUploadMaxBytes' | 'importUploadsMemberBytes' | 'importUploadsTotalBytes'> {
  return {
    importUploadMaxBytes: int('IMPORT_UPLOAD_MAX_MB', 200, 1, 10_000) * 1024 * 1024,
    importUploadsMemberBytes: int('IMPORT_UPLOADS_MEMBER_MB', 400, 1, 100_000) * 1024 * 1024,
    importUploadsTotalBytes: int('IMPORT_UPLOADS_TOTAL_MB', 1000, 1, 1_000_000) * 1024 * 1024,
  };
}

/** The reader threads (src/threads/readers): how many, how long a read may wait and run, their page cache; how long a download may take. */
function readerSettings(
  int: (name: string, fallback: number, min: number, max: number) => number,
): Pick<Config, 'readerThreads' | 'readBudgetMs' | 'readQueueMs' | 'readerCacheMb' | 'readerThreadsKept' | 'exportMaxMs'> {
  const readerThreads = int('READER_THREADS', Math.max(1, availableParallelism()), 0, 64);
  return {
    readerThreads,
    // One kept by default: starting a thread costs 0.4-0.7 s of CPU (docs/benchmarks.md, first read after idle); never more than there are.
    readerThreadsKept: Math.min(readerThreads, int('READER_THREADS_KEPT', 1, 0, 64)),
    readBudgetMs: int('READ_BUDGET_MS', 30_000, 100, 3_600_000),
    readQueueMs: int('READ_QUEUE_MS', 2000, 1, 3_600_000),
    readerCacheMb: int('READER_CACHE_MB', 8, 1, 4096),
    // Half an hour: a year of a 50-member team as CSV (~32 MB) at 64 KiB/s takes ~9 minutes (issue 54, N2).
    exportMaxMs: int('EXPORT_MAX_MS', 30 * 60_000, 1000, 24 * 3_600_000),
  };
}

/** METRICS and METRICS_TOKEN: a token alone turns the metrics on; METRICS=false beside one is refused. */
function metricsSettings(env: Env, on: boolean, problems: string[]): Pick<Config, 'metrics' | 'metricsToken'> {
  const token = env.METRICS_TOKEN === undefined || env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN;
  if (token === undefined) return { metrics: on, metricsToken: undefined };
  if (!/^[\x21-\x7e]{32,}$/.test(token)) problems.push('METRICS_TOKEN must be at least 32 visible ASCII characters without spaces');
  if (['false', '0'].includes((env.METRICS ?? '').trim().toLowerCase()))
    problems.push('METRICS_TOKEN is set but METRICS is false: unset one of them');
  return { metrics: true, metricsToken: token };
}

/**
 * CORS_ORIGINS: comma-separated exact origins (`https://app.example.org`, `http://localhost:5173`),
 * each normalised as browsers send it in `Origin` (lower-case scheme and host, no default port);
 * or `*` alone for any origin. A path, query, user or a scheme other than http(s) is refused:
 * an origin is never a prefix or a pattern.
 */
function corsOrigins(raw: string | undefined, problems: string[]): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (list.includes('*')) {
    if (list.length > 1) problems.push('CORS_ORIGINS: `*` (every origin) must stand alone');
    return ['*'];
  }
  const origins: string[] = [];
  for (const item of list) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(item);
    } catch {
      // reported below
    }
    if (
      parsed === null ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      parsed.username !== '' ||
      parsed.password !== '' ||
      parsed.pathname !== '/' ||
      /[?#]/.test(item)
    ) {
      problems.push(
        `CORS_ORIGINS must list origins such as https://app.example.org (scheme, host, optional port) or * (got ${JSON.stringify(item)})`,
      );
      continue;
    }
    if (!origins.includes(parsed.origin)) origins.push(parsed.origin);
  }
  return origins;
}

/**
 * SETTINGS_PATH: a path of one or more lower-case segments (`/settings`, `/admin/settings`), or
 * `off`; never under /api or the problem pages.
 */
function settingsPath(raw: string | undefined, problems: string[]): string | null {
  const value = (raw ?? '').trim();
  if (value === '') return '/settings';
  if (value.toLowerCase() === 'off') return null;
  const path = value.replace(/\/+$/, '');
  if (
    !/^(\/[a-z0-9][a-z0-9._-]*)+$/.test(path) ||
    path === '/api' ||
    path.startsWith('/api/') ||
    path === '/problems' ||
    path.startsWith('/problems/')
  ) {
    problems.push(
      `SETTINGS_PATH must be a path such as /settings (lower-case segments, not under /api or /problems), or off (got ${JSON.stringify(raw)})`,
    );
    return '/settings';
  }
  return path;
}

/** COMPRESSION_MIN_BYTES: a size in bytes (default 1024), or `off`. */
function compressionMinBytes(raw: string | undefined, problems: string[]): number | null {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '') return 1024;
  if (value === 'off') return null;
  const bytes = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(bytes) || bytes > 1024 * 1024 * 1024) {
    problems.push(`COMPRESSION_MIN_BYTES must be a whole number of bytes up to 1073741824, or off (got ${JSON.stringify(raw)})`);
    return 1024;
  }
  return bytes;
}

/** An IPv4 or IPv6 address, or a CIDR range of either. */
function isIpOrCidr(text: string): boolean {
  if (ipaddr.isValid(text)) return true;
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The settings in force that weaken the server, one line each, for the log at start: a person
 * who set one for a test or a first try sees it still set.
 */
export function riskySettings(config: Config): string[] {
  const risks: string[] = [];
  if (config.webhookAllowPrivateTargets)
    risks.push(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may target private addresses and plain http, so any member can make this server send requests into its own network. Local development only.',
    );
  if (config.metrics && config.metricsToken === undefined)
    risks.push('GET /metrics is served without METRICS_TOKEN: anyone who reaches the server reads its metrics. Set METRICS_TOKEN.');
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(config.host) || config.host.startsWith('127.');
  if (!loopback && config.trustProxy.length === 0 && !config.baseUrl.startsWith('https:'))
    risks.push(
      `Plain http on ${config.host}${config.host === '0.0.0.0' || config.host === '::' ? ' (every interface)' : ''}, with no trusted proxy and no https BASE_URL: tokens, passwords and session cookies cross the network unencrypted. Put a TLS proxy in front (HOST=127.0.0.1, TRUST_PROXY, an https BASE_URL).`,
    );
  return risks;
}
