/*
 * Continuous replication with the real Litestream binary, a file replica in the temp directory
 * (nothing leaves the machine), over the bench dataset (bench/seed.ts, cached by bench/run.ts):
 *
 *   1. POST /api/v1/entries throughput (autocannon, 3 webhook subscriptions) without replication
 *      and under `litestream replicate -exec` (sync interval 200 ms, monitor interval 100 ms), the
 *      two servers in turn BENCH_REPLICATION_ROUNDS times (3), compared by their medians;
 *   2. a steady write load (BENCH_REPLICATION_RATE writes/s for BENCH_REPLICATION_SECONDS) with
 *      the replication lag read from Litestream's figures every 50 ms (p50, p99, max);
 *   3. kill -9 of both at a random moment in the second half, `litestream restore` of the replica
 *      onto a new path (RTO), `timetrack restore --from` (the checks), the server's start on it,
 *      and what was lost: acknowledged writes missing, and how long before the kill they were
 *      acknowledged.
 *
 *   BENCH_ENTRIES=1000000 BENCH_REPLICATION_SECONDS=60 BENCH_REPLICATION_RATE=200 npx tsx bench/replication.ts
 *
 * BENCH_ONLY=<text> runs this only when "replication" contains it. Writes its figures to
 * $TMPDIR/timetrack-bench-replication-results.json.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { OPERATOR } from '../src/principal.js';
import { loadSecretKey } from '../src/secret-key.js';
import { createServices } from '../src/services.js';
import {
  freePort,
  MONITOR_MS,
  restoreReplica,
  serverCommand,
  sleep,
  startReplicated,
  SYNC_MS,
  until,
  usableLitestream,
  watchLag,
  writeLitestreamConfig,
} from '../test/helpers/litestream.js';
import { type Dataset, SIZES, seed } from './seed.js';

/** BENCH_LITESTREAM_NICE: Litestream's nice value (0: as the server's); the server stays at 0. */
const LITESTREAM_NICE = Number(process.env.BENCH_LITESTREAM_NICE ?? 0);
/** BENCH_LITESTREAM_SYNC_MS, BENCH_LITESTREAM_MONITOR_MS: Litestream's sync and monitor intervals (the tests' 200 and 100 ms). */
const syncMs = Number(process.env.BENCH_LITESTREAM_SYNC_MS ?? SYNC_MS);
const monitorMs = Number(process.env.BENCH_LITESTREAM_MONITOR_MS ?? MONITOR_MS);
/** BENCH_REPLICATION_ROUNDS: how many times each server's POST throughput is measured, in turn (the medians are compared). */
const ROUNDS = Number(process.env.BENCH_REPLICATION_ROUNDS ?? 3);
/** BENCH_LITESTREAM_META_DIR: where Litestream keeps its shadow WAL (its `meta-path`; default: beside the database). */
const META_PARENT = process.env.BENCH_LITESTREAM_META_DIR ?? '';
/** BENCH_PLAIN_ENV: settings (JSON) for the server measured without replication, e.g. `{"WAL_CHECKPOINTS":"external"}`. */
const PLAIN_ENV = JSON.parse(process.env.BENCH_PLAIN_ENV ?? '{}') as Record<string, string>;
/** BENCH_REPLICA_DIR: where the replica's directory is made (default: beside the database, on its disk). */
const REPLICA_PARENT = process.env.BENCH_REPLICA_DIR ?? '';

const only = process.env.BENCH_ONLY ?? '';
const entries = Number(process.env.BENCH_ENTRIES ?? SIZES.entries);
const loadSeconds = Number(process.env.BENCH_REPLICATION_SECONDS ?? 60);
const rate = Number(process.env.BENCH_REPLICATION_RATE ?? 200);
const cannonSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

const ENV = {
  LOG_LEVEL: 'warn',
  RATE_LIMIT_TOKEN_PER_MIN: '1000000000',
  RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
};

/** The cached dataset bench/run.ts builds (the same name), built here when missing. */
function dataset(): { path: string; data: Dataset } {
  const migrations = readdirSync(join(PACKAGE_ROOT, 'drizzle'))
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const digest = createHash('sha256');
  for (const file of migrations) digest.update(readFileSync(join(PACKAGE_ROOT, 'drizzle', file)));
  const cached = join(tmpdir(), `timetrack-bench-${entries}-m${migrations.length}-${digest.digest('hex').slice(0, 8)}.db`);
  if (!existsSync(cached) || !existsSync(`${cached}.json`)) {
    rmSync(cached, { force: true });
    const started = Date.now();
    writeFileSync(`${cached}.json`, JSON.stringify(seed(cached, { ...SIZES, entries })));
    console.log(`built the dataset (${entries} entries) in ${Math.round((Date.now() - started) / 1000)} s: ${cached}`);
  }
  return { path: cached, data: JSON.parse(readFileSync(`${cached}.json`, 'utf8')) as Dataset };
}

/** A copy of the dataset in a folder of its own, with three webhook subscriptions to a port nobody answers quickly. */
async function copyWithWebhooks(from: string, token: string, receiverPort: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-replication-'));
  const path = join(dir, 'timetrack.db');
  copyFileSync(from, path);
  const database = openDatabase(path);
  try {
    const services = createServices(database, {
      clock: systemClock,
      secretKey: loadSecretKey(path, undefined),
      webhooks: { allowPrivateTargets: true },
    });
    const actor = services.tokens.authenticate(token)!.actor;
    for (let i = 0; i < 3; i++)
      await services.webhooks.create(OPERATOR, {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        url: `http://127.0.0.1:${receiverPort}/hook${i}`,
        events: ['entry.created'],
      });
  } finally {
    database.close();
  }
  return path;
}

const body = (description: string) => JSON.stringify({ start: '2026-10-30T08:00:00Z', end: '2026-10-30T09:00:00Z', description });

async function postThroughput(
  url: string,
  token: string,
): Promise<{ requestsPerSec: number; p50Ms: number; p99Ms: number; non2xx: number }> {
  const result = await autocannon({
    url: `${url}/api/v1/entries`,
    method: 'POST',
    connections,
    duration: cannonSeconds,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body('bench'),
  });
  return {
    requestsPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
};

/** A webhook receiver that answers 204 (deliveries go on during the load). */
async function receiver(): Promise<{ port: number; quiet(ms: number): Promise<void>; close(): void }> {
  const { createServer } = await import('node:http');
  let last = performance.now();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      last = performance.now();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    /** Resolves once no delivery has arrived for `ms`: the last load's outbox has drained. */
    quiet: async (ms: number) => {
      while (performance.now() - last < ms) await sleep(100);
    },
    close: () => server.close(),
  };
}

/** The middle one of the rounds' figures (by throughput). */
const median = <T extends { requestsPerSec: number }>(runs: T[]): T =>
  [...runs].sort((a, b) => a.requestsPerSec - b.requestsPerSec)[Math.floor(runs.length / 2)] as T;

async function main() {
  if (only !== '' && !'replication'.includes(only)) return;
  const litestream = usableLitestream();
  if (litestream.path === null) {
    console.log(`replication bench skipped: ${litestream.reason}`);
    return;
  }
  const binary = litestream.path;
  const build = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: PACKAGE_ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the build failed');
  const { path: cached, data } = dataset();
  const token = data.ownerToken;
  const hooks = await receiver();
  const children: ChildProcess[] = [];
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    entries,
    loadSeconds,
    rate,
    syncMs: syncMs,
    monitorMs: monitorMs,
  };
  try {
    // 1a. Without replication: the server as npm start runs it (measured below, in turn with 1b).
    const plainPath = await copyWithWebhooks(cached, token, hooks.port);
    let plain: { child: ChildProcess; url: string };
    {
      const port = await freePort();
      const [command, ...args] = serverCommand(true) as [string, ...string[]];
      const child = spawn(command, args, {
        cwd: PACKAGE_ROOT,
        env: { ...process.env, ...ENV, ...PLAIN_ENV, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: plainPath },
        stdio: 'ignore',
      });
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await until(async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200, 120_000, 'the plain server');
      plain = { child, url };
    }

    // 1b. Under Litestream.
    const path = await copyWithWebhooks(cached, token, hooks.port);
    const dir = join(path, '..');
    // The replica's directory: beside the database (the same disk), or, with BENCH_REPLICA_DIR, under
    // another filesystem (a tmpfs standing in for the other disk or remote storage an operator uses).
    const replicaDir = REPLICA_PARENT ? mkdtempSync(join(REPLICA_PARENT, 'timetrack-replica-')) : join(dir, 'replica');
    results.replicaDir = replicaDir;
    const metricsPort = await freePort();
    const configPath = writeLitestreamConfig(join(dir, 'litestream.yml'), path, replicaDir, metricsPort, syncMs, monitorMs);
    if (META_PARENT) {
      // Litestream's own files (its shadow WAL) under another filesystem, not beside the database.
      const metaDir = mkdtempSync(join(META_PARENT, 'timetrack-litestream-meta-'));
      writeFileSync(
        configPath,
        readFileSync(configPath, 'utf8').replace(`  - path: ${path}\n`, `  - path: ${path}\n    meta-path: ${metaDir}\n`),
      );
      results.metaDir = metaDir;
    }
    const snapshotStarted = performance.now();
    const replicated = await startReplicated({
      binary,
      configPath,
      databasePath: path,
      port: await freePort(),
      env: ENV,
      compiled: true,
      readyWithinMs: 600_000,
    });
    children.push(replicated.litestream);
    if (LITESTREAM_NICE !== 0) {
      // Litestream (not its child, the server) at a lower CPU priority: every thread of its process.
      for (const tid of readdirSync(`/proc/${replicated.litestream.pid}/task`)) setPriority(Number(tid), LITESTREAM_NICE);
      results.litestreamNice = LITESTREAM_NICE;
    }
    results.readyUnderLitestreamMs = Math.round(performance.now() - snapshotStarted);
    // Litestream's first snapshot (the whole database read, compressed and written) runs on after
    // the server is ready; the steady cost is measured once it is in the replica.
    await until(() => snapshotWritten(replicaDir), 600_000, "Litestream's first snapshot");
    results.firstSnapshotMs = Math.round(performance.now() - snapshotStarted);
    console.log(
      `ready under Litestream in ${results.readyUnderLitestreamMs} ms, its first snapshot written in ${results.firstSnapshotMs} ms`,
    );
    // Both servers measured in turn, ROUNDS times, each load's deliveries drained before the next:
    // one 10 s run each way differs by more than the cost from one run to the next.
    const without: Array<Awaited<ReturnType<typeof postThroughput>>> = [];
    const withIt: typeof without = [];
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await postThroughput(plain.url, token));
      await hooks.quiet(1500);
      withIt.push(await postThroughput(replicated.url, token));
      await hooks.quiet(1500);
      console.log(
        `round ${round + 1}: POST /entries without / with replication`,
        without.at(-1)?.requestsPerSec,
        withIt.at(-1)?.requestsPerSec,
      );
    }
    results.withoutReplication = { ...median(without), rounds: without.map((r) => r.requestsPerSec) };
    results.withReplication = { ...median(withIt), rounds: withIt.map((r) => r.requestsPerSec) };
    plain.child.kill('SIGTERM');
    await new Promise((r) => plain.child.once('exit', r));
    console.log('POST /entries without replication', results.withoutReplication);
    console.log('POST /entries with replication', results.withReplication);

    // 2. A steady load with the lag read every 50 ms.
    const lag = watchLag(metricsPort, path);
    const acknowledged: Array<{ id: string; description: string; at: number }> = [];
    const killAfter = (loadSeconds / 2 + Math.random() * (loadSeconds / 2)) * 1000;
    const started = performance.now();
    let stop = false;
    let inFlight = 0;
    let failures = 0;
    const post = async (description: string) => {
      inFlight++;
      try {
        const res = await fetch(`${replicated.url}/api/v1/entries`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body(description),
        });
        const json = (await res.json()) as { data?: { id: string } };
        if (res.status === 200 && json.data) acknowledged.push({ id: json.data.id, description, at: performance.now() });
        else failures++;
      } catch {
        // the kill
      } finally {
        inFlight--;
      }
    };
    let sent = 0;
    while (!stop) {
      const now = performance.now() - started;
      if (now >= killAfter) break;
      while (sent < (now / 1000) * rate && inFlight < 64) void post(`load-${sent++}-${randomBytes(3).toString('hex')}`);
      await sleep(2);
    }
    stop = true;
    const killedAt = performance.now();
    process.kill(replicated.litestream.pid as number, 'SIGKILL');
    process.kill(replicated.serverPid, 'SIGKILL');
    await lag.stop();
    const lagSamples = lag.samples.filter((s) => s >= 0);
    results.load = {
      killedAfterMs: Math.round(killAfter),
      acknowledged: acknowledged.length,
      failures,
      writesPerSec: Math.round(acknowledged.length / (killAfter / 1000)),
      lagMs: {
        p50: Math.round(percentile(lagSamples, 50)),
        p99: Math.round(percentile(lagSamples, 99)),
        max: Math.round(Math.max(0, ...lagSamples)),
        samples: lagSamples.length,
      },
    };
    console.log('steady load', results.load);

    // 3. The new machine.
    const newDir = mkdtempSync(join(tmpdir(), 'timetrack-bench-restored-'));
    const restored = join(newDir, 'restored.db');
    const restoreMs = restoreReplica(binary, replicaDir, restored);
    const newPath = join(newDir, 'timetrack.db');
    copyFileSync(join(dir, 'secret.key'), join(newDir, 'secret.key'));
    const checkStarted = performance.now();
    const cli = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'dist/src/main.js'), 'restore', '--from', restored, '--json'], {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, DATABASE_PATH: newPath },
      encoding: 'utf8',
    });
    if (cli.status !== 0) throw new Error(`timetrack restore refused the replica: ${cli.stderr}`);
    const checkMs = performance.now() - checkStarted;
    const port = await freePort();
    const startStarted = performance.now();
    const [command, ...args] = serverCommand(true) as [string, ...string[]];
    const child = spawn(command, args, {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, ...ENV, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: newPath },
      stdio: 'ignore',
    });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${url}/readyz`).catch(() => null))?.status === 200, 120_000, 'the restored server');
    const startMs = performance.now() - startStarted;
    const check = openDatabase(newPath);
    let lost: typeof acknowledged;
    try {
      const has = check.sqlite.prepare('SELECT description FROM entries WHERE id = ?').pluck();
      lost = acknowledged.filter((w) => has.get(w.id) !== w.description);
    } finally {
      check.close();
    }
    const measuredLag = Math.max(syncMs, ...lagSamples) + monitorMs + 50;
    const lostAges = lost.map((w) => killedAt - w.at);
    results.recovery = {
      databaseBytes: statSync(newPath).size,
      litestreamRestoreMs: Math.round(restoreMs),
      timetrackRestoreChecksMs: Math.round(checkMs),
      serverStartMs: Math.round(startMs),
      totalMs: Math.round(restoreMs + checkMs + startMs),
      lostAcknowledged: lost.length,
      oldestLostMsBeforeKill: Math.round(Math.max(0, ...lostAges)),
      lostOlderThanMeasuredLag: lostAges.filter((age) => age > measuredLag).length,
      measuredLagMs: Math.round(measuredLag),
    };
    console.log('recovery', results.recovery);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const throughputCost =
      1 -
      (results.withReplication as { requestsPerSec: number }).requestsPerSec /
        (results.withoutReplication as { requestsPerSec: number }).requestsPerSec;
    results.throughputCost = Math.round(throughputCost * 1000) / 10;
    const resultsFile = join(tmpdir(), 'timetrack-bench-replication-results.json');
    writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
    console.log(`throughput cost of replication: ${results.throughputCost} % (all figures: ${resultsFile})`);
    rmSync(dir, { recursive: true, force: true });
    if (REPLICA_PARENT) rmSync(replicaDir, { recursive: true, force: true });
    if (typeof results.metaDir === 'string') rmSync(results.metaDir, { recursive: true, force: true });
    rmSync(join(plainPath, '..'), { recursive: true, force: true });
    rmSync(newDir, { recursive: true, force: true });
    if ((results.recovery as { lostOlderThanMeasuredLag: number }).lostOlderThanMeasuredLag > 0) process.exitCode = 1;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    hooks.close();
  }
}

await main();

/** Whether Litestream's file replica holds a snapshot (generations/<id>/snapshots/*.snapshot.lz4). */
function snapshotWritten(replicaDir: string): boolean {
  const generations = join(replicaDir, 'generations');
  if (!existsSync(generations)) return false;
  return readdirSync(generations).some((generation) => {
    const snapshots = join(generations, generation, 'snapshots');
    return existsSync(snapshots) && readdirSync(snapshots).some((name) => name.endsWith('.snapshot.lz4'));
  });
}
