import { availableParallelism } from 'node:os';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ManualClock } from '../src/clock.js';
import { ConfigError, parseConfig } from '../src/config.js';
import type { Handlers } from '../src/http/handlers/types.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { ContractChecker } from './helpers/contract.js';
import { fixtureContract, fixtureHandlers } from './helpers/fixture.js';
import { checkedSend as send } from './helpers/server.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'timetrack-startup-'));
const silent = createLogger('silent');

describe('startup', () => {
  it('bootstraps an empty database once: a workspace, an owner who sees everything, an all-scopes token', async () => {
    const dir = tempDir();
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'db', 'timetrack.db') });
    try {
      let banner = '';
      const first = await startServer(config, { logger: silent, announce: (t) => (banner += t) });
      const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
      expect(token).to.match(/^tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
      const me = await send(first.url, 'GET', '/api/v1/me', { token });
      expect(me.status).to.equal(200);
      expect(me.body.data.scopes).to.have.members(['entries:read', 'entries:write', 'catalog:read', 'catalog:write', 'reports:read']);
      expect(me.body.data.visibility).to.deep.equal({ canViewOthersTime: true, canViewOthersMoney: true });
      await first.close();

      let again = '';
      const second = await startServer(config, { logger: silent, announce: (t) => (again += t) });
      expect(again).to.equal('');
      expect((await send(second.url, 'GET', '/api/v1/me', { token })).status).to.equal(200);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails when a contract operation has no handler', async () => {
    const dir = tempDir();
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db') });
    const dropGetMe = (real: Handlers) => {
      const { getMe: _dropped, ...rest } = real;
      return rest as Handlers;
    };
    try {
      let error: unknown;
      await startServer(config, { logger: silent, announce: () => {}, handlers: dropGetMe }).catch((e) => (error = e));
      expect(String(error)).to.contain('contract operation getMe has no handler');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails when a handler has no contract operation', async () => {
    const dir = tempDir();
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db') });
    const addWidgets = (real: Handlers) => ({ ...real, listWidgets: () => ({ status: 200, body: {} }) }) as unknown as Handlers;
    try {
      let error: unknown;
      await startServer(config, { logger: silent, announce: () => {}, handlers: addWidgets }).catch((e) => (error = e));
      expect(String(error)).to.contain('handler listWidgets has no contract operation');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('works on an in-memory database with the real migrations', async () => {
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:' });
    let banner = '';
    const running = await startServer(config, {
      logger: silent,
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      announce: (t) => (banner += t),
    });
    try {
      const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
      expect((await send(running.url, 'GET', '/api/v1/me', { token })).status).to.equal(200);
    } finally {
      await running.close();
    }
  });

  describe('configuration', () => {
    it('has the documented defaults', () => {
      expect(parseConfig({ TZ: 'UTC' })).to.deep.equal({
        baseUrl: 'http://localhost:8080',
        problemsBase: 'http://localhost:8080/problems',
        servesProblemPages: true,
        port: 8080,
        host: '0.0.0.0',
        databasePath: './data/timetrack.db',
        webhookAllowPrivateTargets: false,
        rateLimitTokenPerMin: 600,
        rateLimitWorkspacePerMin: 3000,
        maxBodyBytes: 1048576,
        logLevel: 'info',
        secretKey: undefined,
        schedulerCron: '* * * * * *',
        serverTimeZone: 'UTC',
        readerThreads: availableParallelism(),
        readBudgetMs: 30_000,
        readerCacheMb: 8,
      });
    });

    it('refuses bad values with one message naming each', () => {
      expect(() =>
        parseConfig({
          PORT: 'eighty',
          RATE_LIMIT_TOKEN_PER_MIN: '0',
          BASE_URL: 'ftp://x',
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes',
          LOG_LEVEL: 'loud',
        }),
      )
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('PORT')
        .and.contains('RATE_LIMIT_TOKEN_PER_MIN')
        .and.contains('BASE_URL')
        .and.contains('WEBHOOK_ALLOW_PRIVATE_TARGETS')
        .and.contains('LOG_LEVEL');
    });

    it('reads every documented setting', () => {
      const config = parseConfig({
        BASE_URL: 'https://t.example.org/',
        PROBLEMS_BASE: 'https://docs.example.org/p',
        PORT: '9000',
        DATABASE_PATH: '/var/lib/tt.db',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        RATE_LIMIT_TOKEN_PER_MIN: '10',
        RATE_LIMIT_WORKSPACE_PER_MIN: '20',
        MAX_BODY_BYTES: '2048',
        LOG_LEVEL: 'warn',
        READER_THREADS: '0',
        READ_BUDGET_MS: '5000',
        READER_CACHE_MB: '64',
      });
      expect(config).to.include({
        baseUrl: 'https://t.example.org',
        problemsBase: 'https://docs.example.org/p',
        servesProblemPages: false,
        port: 9000,
        databasePath: '/var/lib/tt.db',
        webhookAllowPrivateTargets: true,
        rateLimitTokenPerMin: 10,
        rateLimitWorkspacePerMin: 20,
        maxBodyBytes: 2048,
        logLevel: 'warn',
        readerThreads: 0,
        readBudgetMs: 5000,
        readerCacheMb: 64,
      });
    });
  });

  it('close() drains an in-flight request, then closes the database', async () => {
    const contract = fixtureContract();
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const handlers = (real: Handlers) =>
      ({
        ...fixtureHandlers(real),
        fixtureList: () =>
          new Promise((resolve) => {
            entered();
            release = () => resolve({ status: 200, body: { data: { drained: true } } });
          }),
      }) as unknown as Handlers;
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: ':memory:' });
    let banner = '';
    const running = await startServer(config, { logger: silent, contract, handlers, announce: (t) => (banner += t) });
    const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
    const inFlight = send(running.url, 'GET', '/api/v1/fixture/items', { token }, new ContractChecker(contract));
    await inHandler;
    let closed = false;
    const closing = running.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).to.equal(false);
    expect(running.database.sqlite.open).to.equal(true);
    release();
    const response = await inFlight;
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ data: { drained: true } });
    await closing;
    expect(running.database.sqlite.open).to.equal(false);
    const refused = await send(running.url, 'GET', '/api/v1/me', { token }).catch((error: Error) => error);
    expect(refused).to.be.instanceOf(Error);
  });

  describe('the process', () => {
    it('npm start style: serves, then drains and exits 0 on SIGTERM', async function () {
      this.timeout(30_000);
      const dir = tempDir();
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db'), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stderr.on('data', (chunk) => (out += chunk));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
          child.stdout.on('data', () => {
            const match = /"msg":"listening","url":"([^"]+)"/.exec(out);
            if (match) {
              clearTimeout(timer);
              resolve(match[1] as string);
            }
          });
        });
        const token = /token +(tt_\S+)/.exec(out)?.[1] as string;
        expect((await send(url, 'GET', '/api/v1/me', { token })).status).to.equal(200);
        expect(out).to.contain(token); // printed once, in the banner
        expect(out.split(token).length - 1).to.equal(2); // the banner line and its curl example, no log line
        const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        expect(await exit).to.equal(0);
        expect(out).to.contain('"msg":"stopped"');
      } finally {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
