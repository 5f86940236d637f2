import { OPERATOR } from '../../src/principal.js';
import { scopeValues } from '../../generated/openapi.js';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { type Config, parseConfig } from '../../src/config.js';
import type { ContractDocument } from '../../src/contract.js';
import type { Handlers } from '../../src/operations/types.js';
import { createLogger } from '../../src/logger.js';
import { type RunningServer, type RuntimeOptions, startServer } from '../../src/server.js';
import type { Services } from '../../src/services.js';
import { ContractChecker, contractChecker } from './contract.js';
import { TEST_PASSWORD_COST } from './password-cost.js';
import { wire } from './wire.js';

export interface TestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  body: any;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  /** A value to send as JSON. */
  json?: unknown;
  /** Raw bytes or text to send as the body (with `contentType`). */
  raw?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  config: Config;
  clock: ManualClock;
  /** The instant the manual clock started at. */
  startedAt: number;
  services: Services;
  running: RunningServer;
  /** The token printed by the bootstrap of the empty database (all scopes, owner sees everything). */
  ownerToken: string;
  workspaceId: string;
  ownerId: string;
  logLines: string[];
  /** What the first start printed (the token, the owner's setup link). */
  banner: string;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Start of the manual clock (ms); the default is a fixed instant mid-window. */
  now?: number;
  contract?: ContractDocument;
  handlers?: (real: Handlers) => Handlers;
  webhooks?: RuntimeOptions['webhooks'];
  readers?: RuntimeOptions['readers'];
  /** The WAL's sync replaced (the durability barrier's tests). */
  sync?: RuntimeOptions['sync'];
  /** Production's scrypt cost instead of the tests' (TEST_PASSWORD_COST): for tests of how hashing bears load. */
  productionPasswordCost?: boolean;
}

let template: string | undefined;

/**
 * An empty database file with every migration applied, made once per test process: each test
 * server starts from a copy of it instead of running every migration again (about 0.1 s of each
 * start). The server still migrates it at start, finding nothing to do; migrating old databases
 * is test/http/migrations.test.ts's, and a server given its own DATABASE_PATH starts from nothing.
 */
function migratedTemplate(): string {
  if (template && existsSync(template)) return template;
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-template-'));
  template = join(dir, 'timetrack.db');
  openDatabase(template).close();
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return template;
}

/** 2026-11-02T10:00:30Z: thirty seconds into a rate-limit window. */
export const DEFAULT_NOW = Date.UTC(2026, 10, 2, 10, 0, 30);

/**
 * The real server on 127.0.0.1 and an ephemeral port, over a real SQLite file in a temp
 * directory, with a manual clock. Every response `request` receives is checked against the
 * contract.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-test-'));
  try {
    return await startIn(dir, options);
  } catch (error) {
    // A start that fails (the tests of refused starts) leaves nothing behind in the temp folder.
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function startIn(dir: string, options: TestServerOptions): Promise<TestServer> {
  if (!options.env?.DATABASE_PATH) copyFileSync(migratedTemplate(), join(dir, 'timetrack.db'));
  const config = parseConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_PATH: join(dir, 'timetrack.db'),
    LOG_LEVEL: 'debug',
    // Tests run the scheduled jobs themselves (running.scheduler.tick()) under the manual clock.
    SCHEDULER_CRON: 'off',
    // The server's zone (reports without timeZone), as on a deployment.
    TZ: 'UTC',
    // One reader thread (started on the first heavy read): each thread boots tsx in a test, which
    // takes seconds on a loaded machine; reads wait for it (tests of the queue set their own).
    READER_THREADS: '1',
    // None kept ready: most tests never read on a thread, and each start costs seconds under tsx.
    READER_THREADS_KEPT: '0',
    READ_QUEUE_MS: '30000',
    ...options.env,
  });
  const clock = new ManualClock(options.now ?? DEFAULT_NOW);
  const logLines: string[] = [];
  let banner = '';
  const running = await startServer(config, {
    clock,
    // Every write of the services must take the one write path: a write outside a transaction throws.
    strictWrites: true,
    // The manual clock (and a fake resolver or CA) cannot cross to the sender's thread.
    senderInProcess: true,
    ...(options.productionPasswordCost ? {} : { passwordCost: TEST_PASSWORD_COST }),
    logger: createLogger('debug', (line) => logLines.push(line)),
    announce: (text) => {
      banner += text;
    },
    // One contract object for every server of the run, so they share its compiled request validators.
    contract: options.contract ?? contractChecker().document,
    ...(options.handlers ? { handlers: options.handlers } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    ...(options.readers ? { readers: options.readers } : {}),
    ...(options.sync ? { sync: options.sync } : {}),
  });
  const ownerToken = /token +(tt_\S+)/.exec(banner)?.[1];
  const workspaceId = /workspace +(ws_\S+)/.exec(banner)?.[1];
  const ownerId = /owner +(usr_\S+)/.exec(banner)?.[1];
  if (!ownerToken || !workspaceId || !ownerId) throw new Error(`no bootstrap banner: ${banner}`);
  const checker = options.contract ? new ContractChecker(options.contract) : contractChecker();

  return {
    url: running.url,
    config,
    clock,
    startedAt: clock.now(),
    services: running.services,
    running,
    ownerToken,
    workspaceId,
    ownerId,
    logLines,
    banner,
    request(method, path, requestOptions = {}) {
      return checkedSend(running.url, method, path, { token: ownerToken, ...requestOptions }, checker);
    },
    async close() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `send`, plus the contract check every test response gets. */
export async function checkedSend(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
  checker = contractChecker(),
): Promise<TestResponse> {
  const response = await send(baseUrl, method, path, options);
  const violations = checker.violations({
    method,
    path,
    status: response.status,
    contentType: response.headers.get('content-type'),
    headers: response.headers,
    body: response.body,
  });
  expect(violations, `contract violations of ${method} ${path}`).to.deep.equal([]);
  return response;
}

export async function send(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.raw !== undefined) {
    body = options.raw;
    if (options.contentType) headers['content-type'] = options.contentType;
  }
  const response = await wire(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const { text } = response;
  const type = response.headers.get('content-type') ?? '';
  const parsed = /json/.test(type) && text !== '' ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Asserts a problem document: exact status, type slug, all five fields and the content type. */
export function expectProblem(response: TestResponse, status: number, slug: string, problemsBase: string, instance?: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers.get('content-type')).to.equal('application/problem+json');
  expect(response.body).to.have.all.keys('type', 'title', 'status', 'detail', 'instance');
  expect(response.body.type).to.equal(`${problemsBase}/${slug}`);
  expect(response.body.status).to.equal(status);
  expect(response.body.title).to.be.a('string').and.not.equal('');
  expect(response.body.detail).to.be.a('string').and.not.equal('');
  if (instance !== undefined) expect(response.body.instance).to.equal(instance);
}

/** Creates a member with a token through the real services, as the CLI would. */
export function addMemberWithToken(
  services: Services,
  workspaceId: string,
  options: {
    scopes?: string[];
    canViewOthersTime?: boolean;
    canViewOthersMoney?: boolean;
    expiresAt?: number;
    rateLimitPerMin?: number;
    name?: string;
  } = {},
) {
  const user = services.accounts.createUser(OPERATOR, {
    name: options.name ?? 'Member',
    email: `m${Math.random().toString(36).slice(2)}@example.org`,
  });
  services.accounts.addMember(OPERATOR, {
    workspaceId,
    userId: user.id,
    canViewOthersTime: options.canViewOthersTime ?? false,
    canViewOthersMoney: options.canViewOthersMoney ?? false,
  });
  const token = services.tokens.create(OPERATOR, {
    workspaceId,
    userId: user.id,
    name: 'test',
    scopes: options.scopes ?? ['entries:read', 'entries:write', 'catalog:read', 'catalog:write', 'reports:read'],
    expiresAt: options.expiresAt ?? null,
    rateLimitPerMin: options.rateLimitPerMin ?? null,
  });
  return { userId: user.id, tokenId: token.id, token: token.token };
}

/**
 * A statement a test runs on the server's database to put it into a state no service makes (a
 * row of an old version, a counter near its limit): in a transaction of its own, as every write
 * must be on a test server (strictWrites).
 */
export function rawWrite(server: Pick<TestServer, 'running'>, source: string, ...params: unknown[]): void {
  const { sqlite } = server.running.database;
  sqlite.transaction(() => sqlite.prepare(source).run(...params))();
}

/** What `freshWorkspace` adds to the server it returns. */
export interface FreshWorkspace extends TestServer {
  /** The new owner's sign-in email (unique in the server). */
  ownerEmail: string;
  /** The new owner's name (the bootstrap's, "Owner", unless given). */
  ownerName: string;
}

let freshCount = 0;

/**
 * What a test needs fresh when its file shares one server: a new workspace inside `server` with an
 * owner who sees everyone's time and money and a token with every scope, as the first start makes
 * (src/bootstrap.ts), through the real services; and the manual clock set back to `now` (the
 * server's start instant unless given). Returns the server as seen from that workspace:
 * `workspaceId`, `ownerId`, `ownerToken` and `request`'s default token are the new ones, `logLines`
 * holds only what was logged since, and `close()` closes nothing (the file's `after` closes the
 * server). `banner` is still the first start's: a test about the first start needs its own server.
 */
export function freshWorkspace(
  server: TestServer,
  options: { now?: number; name?: string; ownerName?: string; ownerEmail?: string; currency?: string; hourlyRate?: number | null } = {},
): FreshWorkspace {
  const { services } = server;
  server.clock.set(options.now ?? server.startedAt);
  const n = ++freshCount;
  const ownerName = options.ownerName ?? 'Owner';
  const ownerEmail = options.ownerEmail ?? `owner.${n}.${Math.random().toString(36).slice(2, 8)}@example.org`;
  const { workspaceId, ownerId, ownerToken } = services.write(() => {
    const workspace = services.accounts.createWorkspace(OPERATOR, {
      name: options.name ?? 'My workspace',
      ...(options.currency !== undefined ? { currency: options.currency } : {}),
      ...(options.hourlyRate !== undefined ? { hourlyRate: options.hourlyRate } : {}),
    });
    const user = services.accounts.createUser(OPERATOR, { name: ownerName, email: ownerEmail });
    services.accounts.addMember(OPERATOR, {
      workspaceId: workspace.id,
      userId: user.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
      isOwner: true,
    });
    const token = services.tokens.create(OPERATOR, { workspaceId: workspace.id, userId: user.id, name: 'bootstrap', scopes: scopeValues });
    return { workspaceId: workspace.id, ownerId: user.id, ownerToken: token.token };
  });
  const logFrom = server.logLines.length;
  return {
    url: server.url,
    config: server.config,
    clock: server.clock,
    startedAt: server.startedAt,
    services,
    running: server.running,
    ownerToken,
    workspaceId,
    ownerId,
    ownerEmail,
    ownerName,
    get logLines() {
      return server.logLines.slice(logFrom);
    },
    banner: server.banner,
    request(method, path, requestOptions = {}) {
      return server.request(method, path, { token: ownerToken, ...requestOptions });
    },
    close: async () => {},
  };
}
