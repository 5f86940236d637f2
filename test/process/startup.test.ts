import { availableParallelism } from 'node:os';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ManualClock } from '../../src/clock.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import type { Handlers } from '../../src/operations/types.js';
import { subkey } from '../../src/kernel/keys.js';
import { createLogger } from '../../src/logger.js';
import { decryptSecret } from '../../src/modules/webhooks/crypto.js';
import { startServer } from '../../src/server.js';
import { ContractChecker } from '../helpers/contract.js';
import { fixtureContract, fixtureHandlers } from '../helpers/fixture.js';
import { checkedSend as send } from '../helpers/server.js';
import { MAIN } from '../helpers/entry.js';

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

  describe('file permissions', () => {
    const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

    it('a new database: its folder 0700, the database, its WAL and shared-memory files 0600', async () => {
      const dir = tempDir();
      const folder = join(dir, 'data');
      const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(folder, 'timetrack.db') });
      const lines: string[] = [];
      try {
        const running = await startServer(config, { logger: createLogger('info', (l) => lines.push(l)), announce: () => {} });
        try {
          const path = config.databasePath;
          expect([modeOf(folder), modeOf(path), modeOf(`${path}-wal`), modeOf(`${path}-shm`)]).to.deep.equal(['700', '600', '600', '600']);
          expect(modeOf(join(folder, 'secret.key'))).to.equal('600');
        } finally {
          await running.close();
        }
        expect(lines.filter((l) => l.includes('permissions tightened'))).to.deep.equal([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('an existing folder and database readable by others are tightened, with a log line each', async () => {
      const dir = tempDir();
      const folder = join(dir, 'data');
      const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(folder, 'timetrack.db') });
      try {
        await (await startServer(config, { logger: silent, announce: () => {} })).close();
        chmodSync(folder, 0o755);
        chmodSync(config.databasePath, 0o644);
        const lines: string[] = [];
        const running = await startServer(config, { logger: createLogger('info', (l) => lines.push(l)), announce: () => {} });
        await running.close();
        expect([modeOf(folder), modeOf(config.databasePath)]).to.deep.equal(['700', '600']);
        const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'permissions tightened: others could read the database');
        expect(logged.map((l) => [l.level, l.path, l.from, l.to])).to.deep.equal([
          ['warn', folder, '0755', '0700'],
          ['warn', config.databasePath, '0644', '0600'],
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
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
        baseUrlSet: false,
        problemsBase: 'http://localhost:8080/problems',
        servesProblemPages: true,
        port: 8080,
        host: '0.0.0.0',
        databasePath: './data/timetrack.db',
        documentThreads: 1,
        documentQueueMs: 2000,
        webhookAllowPrivateTargets: false,
        rateLimitTokenPerMin: 600,
        rateLimitWorkspacePerMin: 3000,
        rateLimitAnonymousPerMin: 120,
        tokensPerMember: 50,
        appStreamsPerMember: 10,
        appStreamsPerWorkspace: 250,
        appStreamsTotal: 1000,
        trustProxy: [],
        maxBodyBytes: 1048576,
        importUploadMaxBytes: 200 * 1024 * 1024,
        mail: null,
        importUploadsMemberBytes: 400 * 1024 * 1024,
        importUploadsTotalBytes: 1000 * 1024 * 1024,
        logLevel: 'info',
        secretKey: undefined,
        schedulerCron: '* * * * * *',
        serverTimeZone: 'UTC',
        readerThreads: availableParallelism(),
        readerThreadsKept: 1,
        readBudgetMs: 30_000,
        readQueueMs: 2000,
        readerCacheMb: 8,
        exportMaxMs: 1_800_000,
        synchronous: 'FULL',
        eventRetentionDays: 180,
        metrics: false,
        metricsToken: undefined,
        migrationBackups: 3,
        walCheckpoints: 'server',
        replication: null,
        shutdownAnnounceMs: 0,
        corsOrigins: [],
        compressionMinBytes: 1024,
        settingsPath: '/settings',
        oidc: null,
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
          SQLITE_SYNCHRONOUS: 'OFF',
          EVENT_RETENTION_DAYS: '0',
          TRUST_PROXY: 'loopback,not-an-address',
          METRICS: 'yes',
          METRICS_TOKEN: 'short',
          CORS_ORIGINS: 'https://ok.example.org,https://app.example.org/path',
          COMPRESSION_MIN_BYTES: 'small',
        }),
      )
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('PORT')
        .and.contains('RATE_LIMIT_TOKEN_PER_MIN')
        .and.contains('BASE_URL')
        .and.contains('WEBHOOK_ALLOW_PRIVATE_TARGETS')
        .and.contains('LOG_LEVEL')
        .and.contains('SQLITE_SYNCHRONOUS')
        .and.contains('EVENT_RETENTION_DAYS')
        .and.contains('TRUST_PROXY')
        .and.contains('METRICS must be true or false')
        .and.contains('METRICS_TOKEN must be at least 32 visible ASCII characters')
        .and.contains(
          'CORS_ORIGINS must list origins such as https://app.example.org (scheme, host, optional port) or * (got "https://app.example.org/path")',
        )
        .and.contains('COMPRESSION_MIN_BYTES');
    });

    it('CORS_ORIGINS: exact origins, normalised as browsers send them; * alone; nothing else', () => {
      expect(
        parseConfig({ CORS_ORIGINS: ' https://App.Example.org:443/ , http://localhost:5173,http://127.0.0.1:8080 ' }).corsOrigins,
      ).to.deep.equal(['https://app.example.org', 'http://localhost:5173', 'http://127.0.0.1:8080']);
      expect(parseConfig({ CORS_ORIGINS: '*' }).corsOrigins).to.deep.equal(['*']);
      for (const bad of [
        '*,https://a.example.org',
        'app.example.org',
        'ftp://a.example.org',
        'https://a.example.org?x',
        'https://u@a.example.org',
        'null',
      ])
        expect(() => parseConfig({ CORS_ORIGINS: bad }), bad).to.throw(ConfigError, 'CORS_ORIGINS');
      expect(parseConfig({ COMPRESSION_MIN_BYTES: 'off' }).compressionMinBytes).to.equal(null);
      expect(parseConfig({ COMPRESSION_MIN_BYTES: '0' }).compressionMinBytes).to.equal(0);
    });

    it('metrics: METRICS=true serves them; METRICS_TOKEN alone serves them behind the token; METRICS=false with a token is refused', () => {
      const token = 'a-metrics-token-of-32-characters!';
      expect(parseConfig({ METRICS: 'true' })).to.include({ metrics: true, metricsToken: undefined });
      expect(parseConfig({ METRICS: '1', METRICS_TOKEN: token })).to.include({ metrics: true, metricsToken: token });
      expect(parseConfig({ METRICS_TOKEN: token })).to.include({ metrics: true, metricsToken: token });
      expect(parseConfig({ METRICS: 'false' })).to.include({ metrics: false, metricsToken: undefined });
      expect(() => parseConfig({ METRICS: 'false', METRICS_TOKEN: token }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains('METRICS_TOKEN is set but METRICS is false');
      expect(() => parseConfig({ METRICS_TOKEN: `${token} with spaces` })).to.throw(ConfigError, 'METRICS_TOKEN');
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
        READ_QUEUE_MS: '750',
        READER_CACHE_MB: '64',
        EXPORT_MAX_MS: '600000',
        SQLITE_SYNCHRONOUS: 'normal',
        EVENT_RETENTION_DAYS: '30',
        RATE_LIMIT_ANONYMOUS_PER_MIN: '30',
        TRUST_PROXY: 'loopback, 10.0.0.0/8 ,fd00::1',
        METRICS: 'true',
        METRICS_TOKEN: 'a-metrics-token-of-32-characters!',
        CORS_ORIGINS: 'https://app.example.org',
        COMPRESSION_MIN_BYTES: '4096',
      });
      expect(config.corsOrigins).to.deep.equal(['https://app.example.org']);
      expect(config).to.include({
        compressionMinBytes: 4096,
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
        // Never more kept than there are threads.
        readerThreadsKept: 0,
        readBudgetMs: 5000,
        readQueueMs: 750,
        readerCacheMb: 64,
        exportMaxMs: 600_000,
        synchronous: 'NORMAL',
        eventRetentionDays: 30,
        baseUrlSet: true,
        rateLimitAnonymousPerMin: 30,
        metrics: true,
        metricsToken: 'a-metrics-token-of-32-characters!',
      });
      expect(config.trustProxy).to.deep.equal(['loopback', '10.0.0.0/8', 'fd00::1']);
    });
  });

  it('WAL_CHECKPOINTS=external leaves checkpoints to Litestream: no checkpointer, no automatic checkpoint', async () => {
    const dir = tempDir();
    try {
      for (const [setting, frames] of [
        [undefined, 16_384],
        ['external', 0],
      ] as const) {
        const config = parseConfig({
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_PATH: join(dir, `${setting ?? 'server'}.db`),
          ...(setting ? { WAL_CHECKPOINTS: setting } : {}),
        });
        const running = await startServer(config, { logger: silent, announce: () => {} });
        expect(running.database.sqlite.pragma('wal_autocheckpoint', { simple: true }), setting).to.equal(frames);
        await running.close();
      }
      expect(() => parseConfig({ WAL_CHECKPOINTS: 'sometimes' })).to.throw(ConfigError, /WAL_CHECKPOINTS must be server or external/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers to writes wait for the sync (group commit) unless SQLITE_SYNCHRONOUS=NORMAL relaxes it', async () => {
    const dir = tempDir();
    try {
      // SQLite's synchronous levels: 1 NORMAL, 2 FULL. By default the server's connection commits
      // with NORMAL and answers a write after its group's fdatasync (test/http/group-commit.test.ts);
      // with NORMAL set there is no barrier (no commit is counted, nothing waits).
      for (const [setting, level, counted] of [
        [undefined, 1, true],
        ['NORMAL', 1, false],
      ] as const) {
        const config = parseConfig({
          PORT: '0',
          HOST: '127.0.0.1',
          DATABASE_PATH: join(dir, `${setting ?? 'default'}.db`),
          ...(setting ? { SQLITE_SYNCHRONOUS: setting } : {}),
        });
        const running = await startServer(config, { logger: silent, announce: () => {} });
        expect(running.database.sqlite.pragma('synchronous', { simple: true }), setting).to.equal(level);
        // The first start's bootstrap committed: counted for the barrier only with group commit.
        expect(running.database.durability.commits() > 0, setting).to.equal(counted);
        await running.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('webhook secrets stored before subkeys are sealed again at start, bound to their subscription', async () => {
    const dir = tempDir();
    const config = parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'timetrack.db'),
      SECRET_KEY: 'a server key of at least thirty-two characters',
    });
    try {
      const first = await startServer(config, { logger: silent, announce: () => {} });
      const { workspaceId, userId } = first.database.sqlite
        .prepare('SELECT workspace_id AS workspaceId, user_id AS userId FROM members')
        .get() as {
        workspaceId: string;
        userId: string;
      };
      // As the previous version stored it: AES-GCM with the server key itself, no associated data.
      const serverKey = createHash('sha256').update('a server key of at least thirty-two characters').digest();
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', serverKey, iv);
      const body = Buffer.concat([cipher.update('whsec_kept', 'utf8'), cipher.final()]);
      first.database.sqlite
        .prepare(
          "INSERT INTO webhooks (id, workspace_id, user_id, url, events, secret_ciphertext, created_at, updated_at) VALUES ('whk_old', ?, ?, 'https://h.example.org/', '[]', ?, 0, 0)",
        )
        .run(workspaceId, userId, Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url'));
      await first.close();

      const lines: string[] = [];
      const second = await startServer(config, { logger: createLogger('info', (l) => lines.push(l)), announce: () => {} });
      const sealed = second.database.sqlite.prepare("SELECT secret_ciphertext FROM webhooks WHERE id = 'whk_old'").pluck().get() as string;
      await second.close();
      expect(decryptSecret(subkey(serverKey, 'webhook-secrets'), 'whk_old', sealed)).to.equal('whsec_kept');
      expect(
        lines
          .map((l) => JSON.parse(l))
          .filter((l) => l.msg.startsWith('webhook secrets sealed'))
          .map((l) => l.count),
      ).to.deep.equal([1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
      const child = spawn(process.execPath, [...MAIN], {
        env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db'), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // stdout: the JSON log lines only; stderr: the bootstrap banner, apart from the log stream.
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.stderr.on('data', (chunk) => (err += chunk));
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
        const whole = /The link works once.*\n/;
        await new Promise<void>((resolve) => (whole.test(err) ? resolve() : child.stderr.on('data', () => whole.test(err) && resolve())));
        const token = /token +(tt_\S+)/.exec(err)?.[1] as string;
        expect((await send(url, 'GET', '/api/v1/me', { token })).status).to.equal(200);
        expect(err.split(token).length - 1).to.equal(2); // the banner line and its curl example
        // The example works as printed: the address the server listens on, not a placeholder.
        expect(err).to.contain(`Try: curl -H "Authorization: Bearer ${token}" ${url}/api/v1/me\n`);
        // The owner's setup link for the settings page, printed once, and working as printed.
        const setup = new RegExp(`Settings page: open (${url}/settings/setup/[A-Za-z0-9_-]{43})\n`).exec(err)?.[1] as string;
        expect(setup).to.be.a('string');
        const page = await fetch(setup);
        expect(page.status).to.equal(200);
        expect(await page.text()).to.contain('Set your password');
        for (const line of out.trim().split('\n')) expect(() => JSON.parse(line), line).not.to.throw();
        expect(out).not.to.contain(token);
        expect(out).not.to.contain(setup.split('/').pop());
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
