import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { systemClock } from '../../src/clock.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { OPERATOR } from '../../src/principal.js';
import { loadSecretKey } from '../../src/secret-key.js';
import { startServer } from '../../src/server.js';
import { createServices } from '../../src/services.js';
import { checkedSend, send } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhooks.js';
import {
  freePort,
  MONITOR_MS,
  SYNC_MS,
  restoreReplica,
  sleep,
  startPlain,
  startReplicated,
  until,
  usableLitestream,
  watchLag,
  writeLitestreamConfig,
} from '../helpers/litestream.js';
import { MAIN } from '../helpers/entry.js';

const configProblem = (env: Record<string, string>): string => {
  try {
    parseConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('parseConfig accepted it');
};

/** A POST whose body arrives slowly: in flight from its headers until `finish()`. */
function slowPost(url: string, token: string, body: unknown) {
  const text = JSON.stringify(body);
  const { hostname, port } = new URL(url);
  let answer: (value: { status: number; body: string }) => void;
  const answered = new Promise<{ status: number; body: string }>((resolve) => (answer = resolve));
  const req = httpRequest(
    {
      host: hostname,
      port,
      method: 'POST',
      path: '/api/v1/entries',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
    },
    (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => answer({ status: res.statusCode ?? 0, body: data }));
    },
  );
  req.write(text.slice(0, 10));
  return { answered, finish: () => req.end(text.slice(10)) };
}

/** The owner's token the first start printed. */
const tokenIn = (output: string) => /token +(tt_\S+)/.exec(output)?.[1] as string;

describe('replication: settings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-replication-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('LITESTREAM_CONFIG read and checked: external checkpoints, the metrics URL, the replicas, the lag bound', () => {
    const databasePath = join(dir, 'timetrack.db');
    const file = join(dir, 'litestream.yml');
    writeFileSync(
      file,
      `addr: ":9393"\ndbs:\n  - path: \${TT_DIR}/timetrack.db\n    replicas:\n      - url: s3://key:secret@bucket/tt\n      - type: file\n        path: /mnt/b\n`,
    );
    const config = parseConfig({ DATABASE_PATH: databasePath, LITESTREAM_CONFIG: file, TT_DIR: dir, REPLICATION_MAX_LAG_MS: '2500' });
    expect(config.walCheckpoints).to.equal('external');
    expect(config.replication).to.deep.equal({
      configPath: file,
      metricsUrl: 'http://127.0.0.1:9393/metrics',
      databasePath,
      replicas: ['s3://bucket/tt', 'file:/mnt/b'],
      maxLagMs: 2500,
    });
    expect(parseConfig({ DATABASE_PATH: databasePath }).replication).to.equal(null);
  });

  it('a bad set-up is refused at start with what to do', () => {
    const databasePath = join(dir, 'timetrack.db');
    const file = join(dir, 'litestream.yml');
    expect(configProblem({ DATABASE_PATH: databasePath, LITESTREAM_CONFIG: file })).to.equal(
      `Invalid configuration: LITESTREAM_CONFIG (${file}) does not exist: write Litestream's configuration there (docs/operations.md, "Replication"), or unset LITESTREAM_CONFIG to run without replication`,
    );
    writeFileSync(file, 'dbs:\n  - path: /elsewhere.db\n    replicas: [{type: file, path: /r}]\n');
    expect(configProblem({ DATABASE_PATH: databasePath, LITESTREAM_CONFIG: file })).to.equal(
      `Invalid configuration: LITESTREAM_CONFIG (${file}) needs \`addr: 127.0.0.1:9090\` (a port of your choice): the server reads replication's progress from Litestream's figures there; ` +
        `LITESTREAM_CONFIG (${file}) does not replicate this database: add it under \`dbs:\` as \`- path: ${databasePath}\` (it names /elsewhere.db)`,
    );
    writeFileSync(file, `addr: 127.0.0.1:9090\ndbs:\n  - path: ${databasePath}\n`);
    expect(configProblem({ DATABASE_PATH: databasePath, LITESTREAM_CONFIG: file, WAL_CHECKPOINTS: 'server' })).to.equal(
      `Invalid configuration: LITESTREAM_CONFIG (${file}) names no usable replica for ${databasePath}: give it \`replicas:\` with a \`url\`, or a \`type\` (s3, sftp, file …) and its \`bucket\`/\`host\`/\`path\`; ` +
        "WAL_CHECKPOINTS=server with LITESTREAM_CONFIG: the server would checkpoint behind Litestream's back; unset WAL_CHECKPOINTS (replication sets it to external)",
    );
    expect(configProblem({ DATABASE_PATH: databasePath, REPLICATION_MAX_LAG_MS: '100' })).to.equal(
      'Invalid configuration: REPLICATION_MAX_LAG_MS must be a whole number from 500 to 3600000 (got "100"); REPLICATION_MAX_LAG_MS is set but LITESTREAM_CONFIG is not: set LITESTREAM_CONFIG to replicate, or unset both',
    );
  });

  it('configured but Litestream not running: GET /readyz 503 with replication failing, the cause logged', async () => {
    const databasePath = join(dir, 'timetrack.db');
    const port = await freePort();
    const file = writeLitestreamConfig(join(dir, 'litestream.yml'), databasePath, join(dir, 'replica'), port);
    const lines: string[] = [];
    const running = await startServer(
      parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: databasePath, LITESTREAM_CONFIG: file, SCHEDULER_CRON: 'off' }),
      { logger: createLogger('info', (l) => lines.push(l)), announce: () => {}, senderInProcess: true },
    );
    try {
      const res = await checkedSend(running.url, 'GET', '/readyz');
      expect([res.status, res.text]).to.deep.equal([
        503,
        '{"status":"unavailable","checks":{"database":"ok","migrations":"ok","webhookSender":"ok","replication":"failing"}}',
      ]);
      const notReady = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'not ready');
      expect(notReady.causes.replication).to.match(
        new RegExp(`^Litestream does not answer at http://127\\.0\\.0\\.1:${port}/metrics \\(ECONNREFUSED\\): it is not running`),
      );
      expect(running.database.sqlite.pragma('wal_autocheckpoint', { simple: true })).to.equal(0);
    } finally {
      await running.close();
    }
  });
});

describe('stopping: the graceful handover', function () {
  this.timeout(60_000);

  it('SIGTERM: /readyz 503 stopping at once, the in-flight request answers 200, exit 0, the WAL checkpointed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-stop-'));
    const databasePath = join(dir, 'timetrack.db');
    const server = await startPlain(databasePath, await freePort(), { SHUTDOWN_ANNOUNCE_MS: '600', LOG_LEVEL: 'info' });
    try {
      const token = tokenIn(server.output());
      const entry = { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: 'in flight' };
      const slow = slowPost(server.url, token, entry);
      await sleep(100);
      const signalled = performance.now();
      server.child.kill('SIGTERM');
      await until(async () => (await send(server.url, 'GET', '/readyz').catch(() => null))?.status === 503, 2_000, '/readyz 503');
      const ready = await checkedSend(server.url, 'GET', '/readyz');
      expect([ready.status, ready.text]).to.deep.equal([
        503,
        '{"status":"stopping","checks":{"database":"ok","migrations":"ok","webhookSender":"ok"}}',
      ]);
      slow.finish();
      const answer = await slow.answered;
      expect(answer.status, answer.body).to.equal(200);
      expect(JSON.parse(answer.body).data.description).to.equal('in flight');
      expect(await server.exited).to.equal(0);
      // The announce phase held the listener open for SHUTDOWN_ANNOUNCE_MS.
      expect(performance.now() - signalled).to.be.at.least(600);
      const stopped = server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'stopped');
      expect(stopped.phasesMs).to.have.all.keys('announce', 'stop', 'release', 'close');
      expect(stopped.phasesMs.announce).to.be.at.least(600);
      // The last connection closed checkpointed the WAL into the database and removed it.
      expect(existsSync(`${databasePath}-wal`)).to.equal(false);
      const check = openDatabase(databasePath);
      try {
        expect(check.sqlite.pragma('integrity_check', { simple: true })).to.equal('ok');
        expect(check.sqlite.prepare("SELECT count(*) FROM entries WHERE description = 'in flight'").pluck().get()).to.equal(1);
      } finally {
        check.close();
      }
    } finally {
      server.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('replication with the real Litestream binary', function () {
  this.timeout(120_000);
  const litestream = usableLitestream();
  let dir: string;
  before(function () {
    if (litestream.path === null) {
      console.log(`      skipped: ${litestream.reason}`);
      this.skip();
    }
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-litestream-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('kill -9 of both under a write load, restore on a new path: every write older than the lag is there, intact; the outbox resumes', async () => {
    const binary = litestream.path as string;
    const databasePath = join(dir, 'old', 'timetrack.db');
    mkdirSync(join(dir, 'old'), { mode: 0o700 });
    const replicaDir = join(dir, 'replica');
    const metricsPort = await freePort();
    const configPath = writeLitestreamConfig(join(dir, 'litestream.yml'), databasePath, replicaDir, metricsPort);
    const receiver = await startReceiver(null);
    const env = {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_TOKEN_PER_MIN: '1000000',
      RATE_LIMIT_WORKSPACE_PER_MIN: '1000000',
    };
    const replicated = await startReplicated({ binary, configPath, databasePath, port: await freePort(), env });
    const pids = [replicated.litestream.pid as number, replicated.serverPid];
    try {
      const ready = await checkedSend(replicated.url, 'GET', '/readyz');
      expect(ready.text).to.equal('{"status":"ok","checks":{"database":"ok","migrations":"ok","webhookSender":"ok","replication":"ok"}}');
      const token = tokenIn(replicated.output());
      // A webhook subscription, through the services on a connection of the test's own.
      const side = openDatabase(databasePath);
      let webhookId: string;
      try {
        const services = createServices(side, {
          clock: systemClock,
          secretKey: loadSecretKey(databasePath, undefined),
          webhooks: { allowPrivateTargets: true },
        });
        const actor = services.tokens.authenticate(token)!.actor;
        webhookId = (
          await services.webhooks.create(OPERATOR, {
            workspaceId: actor.workspaceId,
            userId: actor.userId,
            url: `http://127.0.0.1:${receiver.port}/hook`,
            events: ['entry.created'],
          })
        ).id;
      } finally {
        side.close();
      }

      // Four writers for a random 0.8 to 1.6 s (and 21 writes at least), then kill -9 of both processes at once.
      const lag = watchLag(metricsPort, databasePath);
      const acknowledged = new Map<string, { description: string; at: number }>();
      const attempted = new Set<string>();
      let stop = false;
      const writer = async (n: number) => {
        for (let i = 0; !stop; i++) {
          const description = `w${n}-${i}-${randomBytes(4).toString('hex')}`;
          attempted.add(description);
          const res = await send(replicated.url, 'POST', '/api/v1/entries', {
            token,
            json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description },
          }).catch(() => null);
          if (res === null) return;
          if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${res.text}`);
          acknowledged.set(res.body.data.id, { description, at: performance.now() });
          await sleep(10);
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await sleep(800 + Math.random() * 800);
      // And at least 21 acknowledged: on a loaded machine (a CI runner, the whole suite beside it)
      // 1.6 s gave as few as 10, and the test's load is what it is about.
      for (const until = performance.now() + 15_000; acknowledged.size <= 20 && performance.now() < until;) await sleep(20);
      const killedAt = performance.now();
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      stop = true;
      await Promise.all(writers);
      await lag.stop();
      await replicated.exited;

      // The new machine: the replica restored, checked and put in place by `timetrack restore`, the key file copied.
      mkdirSync(join(dir, 'new'), { mode: 0o700 });
      const restored = join(dir, 'restored.db');
      restoreReplica(binary, replicaDir, restored);
      const newPath = join(dir, 'new', 'timetrack.db');
      copyFileSync(join(dir, 'old', 'secret.key'), join(dir, 'new', 'secret.key'));
      const cli = spawnSync(process.execPath, [...MAIN, 'restore', '--from', restored, '--json'], {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, DATABASE_PATH: newPath },
        encoding: 'utf8',
      });
      expect(cli.status, cli.stderr).to.equal(0);
      expect(JSON.parse(cli.stdout)).to.include({ databasePath: newPath, replacedKeptAt: null });

      const server = await startPlain(newPath, await freePort(), env);
      try {
        // Every write acknowledged longer ago than the measured lag is there, as acknowledged.
        // The lag Litestream's figures showed (a reading between two syncs shows none, so never
        // below its sync interval), plus its monitor interval (the WAL's lead over its reading)
        // and the polling interval.
        const measuredLag = Math.max(SYNC_MS, ...lag.samples) + MONITOR_MS + 50;
        const present = new Map<string, string>();
        let cursor: string | null = null;
        do {
          const page = await checkedSend(
            server.url,
            'GET',
            `/api/v1/entries?from=2026-11-02T00:00:00Z&to=2026-11-03T00:00:00Z&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
            { token },
          );
          expect(page.status).to.equal(200);
          for (const entry of page.body.data) present.set(entry.id, entry.description);
          cursor = page.body.nextCursor ?? null;
        } while (cursor);
        const lost = [...acknowledged].filter(([id]) => !present.has(id));
        console.log({
          acked: acknowledged.size,
          present: present.size,
          lost: lost.length,
          measuredLag,
          newestLostAgeMs: Math.max(0, ...lost.map(([, w]) => killedAt - w.at)),
        });
        const oldLost = lost.filter(([, w]) => killedAt - w.at > measuredLag);
        expect(oldLost, `lost writes older than ${measuredLag} ms`).to.deep.equal([]);
        expect(acknowledged.size).to.be.greaterThan(20);
        expect(present.size).to.be.greaterThan(0);
        for (const [id, description] of present) {
          const ack = acknowledged.get(id);
          // An entry not acknowledged was in flight at the kill: one the writers sent, whole.
          if (ack) expect(description).to.equal(ack.description);
          else expect(attempted.has(description), description).to.equal(true);
        }
        // The outbox resumes: every entry's event is delivered, a repeat under the same delivery id.
        const check = openDatabase(newPath);
        try {
          const services = createServices(check, { clock: systemClock, secretKey: loadSecretKey(newPath, undefined) });
          await until(
            () =>
              services.webhooks.deliveries(OPERATOR, webhookId).length >= present.size &&
              services.webhooks.deliveries(OPERATOR, webhookId).every((d) => d.status === 'success'),
            30_000,
            'every delivery to succeed',
          );
          const deliveries = services.webhooks.deliveries(OPERATOR, webhookId);
          expect(deliveries).to.have.length(present.size);
          const received = new Map<string, Set<string>>();
          for (const r of receiver.requests) {
            const ids = received.get(String(r.headers['x-service-delivery'])) ?? new Set();
            ids.add(r.json.data.entry.id);
            received.set(String(r.headers['x-service-delivery']), ids);
          }
          for (const d of deliveries) expect(received.has(d.id), d.id).to.equal(true);
          for (const [delivery, entries] of received) expect(entries.size, delivery).to.equal(1);
          const deliveredEntries = new Set([...received.values()].flatMap((s) => [...s]));
          for (const id of present.keys()) expect(deliveredEntries.has(id), id).to.equal(true);
        } finally {
          check.close();
        }
      } finally {
        server.child.kill('SIGKILL');
      }
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      await receiver.close();
    }
  });

  it('SIGTERM to Litestream: the server drains and exits first, Litestream uploads the rest and exits 0; the replica holds every write', async () => {
    const binary = litestream.path as string;
    const databasePath = join(dir, 'timetrack.db');
    const replicaDir = join(dir, 'replica');
    const configPath = writeLitestreamConfig(join(dir, 'litestream.yml'), databasePath, replicaDir, await freePort());
    const replicated = await startReplicated({ binary, configPath, databasePath, port: await freePort(), env: { LOG_LEVEL: 'info' } });
    try {
      const token = tokenIn(replicated.output());
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await send(replicated.url, 'POST', '/api/v1/entries', {
          token,
          json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: `e${i}` },
        });
        expect(res.status).to.equal(200);
        ids.push(res.body.data.id);
      }
      // `timetrack backup` beside Litestream: the copy holds Litestream's two tables, and passes the checks.
      const backup = spawnSync(process.execPath, [...MAIN, 'backup', '--to', join(dir, 'backup.db'), '--json'], {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, DATABASE_PATH: databasePath },
        encoding: 'utf8',
      });
      expect(backup.status, backup.stderr).to.equal(0);
      expect(JSON.parse(backup.stdout)).to.include({ integrity: 'ok' });
      const slow = slowPost(replicated.url, token, { start: '2026-11-02T10:00:00Z', end: '2026-11-02T11:00:00Z', description: 'last' });
      await sleep(100);
      replicated.litestream.kill('SIGTERM');
      slow.finish();
      const answer = await slow.answered;
      expect(answer.status, answer.body).to.equal(200);
      // Its output says why, should it ever exit otherwise.
      expect(await replicated.exited, replicated.output().slice(-4000)).to.equal(0);
      expect(replicated.output()).to.include('"msg":"stopped"');
      const restored = join(dir, 'restored.db');
      restoreReplica(binary, replicaDir, restored);
      const copy = openDatabase(restored);
      try {
        expect(copy.sqlite.pragma('integrity_check', { simple: true })).to.equal('ok');
        const descriptions = copy.sqlite.prepare('SELECT description FROM entries ORDER BY description').pluck().all();
        expect(descriptions).to.deep.equal([...ids.map((_, i) => `e${i}`), 'last'].sort());
      } finally {
        copy.close();
      }
      expect(statSync(restored).size).to.be.greaterThan(0);
    } finally {
      replicated.litestream.kill('SIGKILL');
      try {
        process.kill(replicated.serverPid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });
});
