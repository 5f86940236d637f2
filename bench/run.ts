/*
 * `npm run bench`: the real server and a bare node:http + better-sqlite3 baseline doing the same
 * work (bench/baseline-server.ts), each in its own process on 127.0.0.1, over a dataset of
 * 1,000,000 entries (bench/seed.ts; built once and cached in the temp directory), measured one
 * after the other with autocannon. Prints a table and writes bench/results.json. Loopback only;
 * every load is bounded in time.
 *
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=20 BENCH_ENTRIES=1000000 npm run bench
 *
 * BENCH_ONLY=<text> measures only the scenarios whose name contains it (`a|b`: either); BENCH_SERVER_NODE_ARGS
 * passes node flags to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
 */
import { OPERATOR } from '../src/principal.js';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { loadSecretKey } from '../src/secret-key.js';
import { createServices } from '../src/services.js';
import { candidates, costliest, mixed } from './extra.js';
import { cachedDataset, type Dataset, SIZES } from './seed.js';
import { measureSettingsLog, sessionOf, timePage } from './settings.js';
import { startCommand } from './start-command.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const only = process.env.BENCH_ONLY ?? '';
/** Whether BENCH_ONLY leaves a scenario or an extra in: it names a part of its name (or one of several, `a|b`). */
const wanted = (name: string) => only === '' || only.split('|').some((part) => name.includes(part));
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** The server runs exactly as `npm start` runs it: its environment, node flags and script. */
const { args: startArgs, env: startEnv } = startCommand(root);
const sizes = { ...SIZES, entries: Number(process.env.BENCH_ENTRIES ?? SIZES.entries) };

interface Measured {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
  /** The highest RSS sampled during this scenario alone. */
  scenarioRssMb: number;
  /** Bytes received per answer, headers included (autocannon's throughput over its request count). */
  bytesPerAnswer: number;
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Whether the baseline implements it (otherwise only the server is measured). */
  baseline: boolean;
  /** Concurrent connections, when not BENCH_CONNECTIONS (1 measures the latency of one request alone). */
  connections?: number;
  /** A sequence each connection repeats, with its own member's token (timers are per member). */
  sequence?: Array<{ method: 'POST'; path: string }>;
  /** Request headers besides the token (Accept-Encoding, If-None-Match). */
  headers?: Record<string, string>;
}

/** Spawns a node process; resolves when its output matches `ready` (at once when null). */
function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp | null,
): Promise<{ child: ChildProcess; match: RegExpExecArray | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    if (ready === null) {
      child.stdout?.resume();
      child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
      resolve({ child, match: null });
      return;
    }
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGTERM') process.stderr.write(`${args.join(' ')} exited (${code ?? signal}): ${out.slice(-2000)}\n`);
      reject(new Error(`exited ${code}: ${out}`));
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Polls until the URL answers 200: the cold start ends at the first answered request. */
async function untilAnswered(url: string, token: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${url} never answered`);
}

/** Peak resident set size of a process (VmHWM), read from /proc after the load. */
async function peakRss(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

let memberTokens: string[] = [];

/** The process's resident set now (VmRSS) and per thread is not in /proc: the whole process, in MB. */
function rssNow(pid: number): number {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

async function load(url: string, scenario: Scenario, token: string, pid: number, duration = seconds): Promise<Measured> {
  let next = 0;
  // The highest RSS during this scenario (VmHWM is the highest since the start, of every scenario before).
  let scenarioRss = rssNow(pid);
  const sampler = setInterval(() => (scenarioRss = Math.max(scenarioRss, rssNow(pid))), 200);
  const result = await autocannon({
    url: `${url}${scenario.path}`,
    method: scenario.method,
    connections: scenario.connections ?? connections,
    duration,
    // A sequence sets each connection's own token in setupClient; default headers would override it.
    ...(scenario.sequence
      ? {}
      : {
          headers: {
            authorization: `Bearer ${token}`,
            ...scenario.headers,
            ...(scenario.body ? { 'content-type': 'application/json' } : {}),
          },
        }),
    ...(scenario.body ? { body: scenario.body } : {}),
    ...(scenario.sequence
      ? {
          // Each connection (its own context) takes one member's token for all its requests.
          requests: scenario.sequence.map((step) => ({
            ...step,
            setupRequest: (request: Record<string, unknown>, context: { token?: string }) => {
              context.token ??= memberTokens[next++ % memberTokens.length];
              return { ...request, headers: { ...(request.headers as object), authorization: `Bearer ${context.token}` } };
            },
          })),
        }
      : {}),
  } as autocannon.Options);
  clearInterval(sampler);
  return {
    scenarioRssMb: scenarioRss,
    requestsPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    peakRssMb: await peakRss(pid),
    bytesPerAnswer: result.requests.total > 0 ? Math.round(result.throughput.total / result.requests.total) : 0,
  };
}

/** The dataset is expensive to build: one per size is kept in the temp directory (bench/seed.ts). */
function dataset(): { path: string; data: Dataset } {
  return cachedDataset(sizes);
}

/**
 * Subscribes `count` webhooks (entry.created) of the dataset's owner to the local receiver, mints
 * a token for each of 20 members (timer scenarios run one member per connection), and picks an
 * entry for GET /entries/{id}.
 */
async function subscribe(
  databasePath: string,
  token: string,
  port: number,
  count: number,
): Promise<{ entryId: string; tokens: string[]; own: string }> {
  const database = openDatabase(databasePath);
  try {
    const services = createServices(database, {
      clock: systemClock,
      secretKey: loadSecretKey(databasePath, undefined),
      webhooks: { allowPrivateTargets: true },
    });
    const actor = services.tokens.authenticate(token)!.actor;
    for (let i = 0; i < count; i++) {
      await services.webhooks.create(OPERATOR, {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        url: `http://127.0.0.1:${port}/hook${i}`,
        events: ['entry.created'],
      });
    }
    const memberIds = database.sqlite
      .prepare('SELECT user_id FROM members WHERE workspace_id = ? ORDER BY user_id LIMIT 20')
      .all(actor.workspaceId) as Array<{ user_id: string }>;
    const tokens = memberIds.map(
      (m) =>
        services.tokens.create(OPERATOR, {
          workspaceId: actor.workspaceId,
          userId: m.user_id,
          name: 'bench timer',
          scopes: ['entries:write', 'entries:read'],
        }).token,
    );
    const entry = database.sqlite
      .prepare('SELECT id FROM entries WHERE workspace_id = ? ORDER BY start_at DESC LIMIT 1 OFFSET 1000')
      .get(actor.workspaceId) as { id: string };
    // A member without canViewOthersTime (the seed gives it to member 0 only), reading.
    const member = database.sqlite
      .prepare("SELECT m.user_id FROM members m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.name = 'Member 1'")
      .get(actor.workspaceId) as { user_id: string };
    const own = services.tokens.create(OPERATOR, {
      workspaceId: actor.workspaceId,
      userId: member.user_id,
      name: 'bench own',
      scopes: ['entries:read', 'catalog:read', 'reports:read'],
    }).token;
    return { entryId: entry.id, tokens, own };
  } finally {
    database.close();
  }
}

/** The write scenario whose deliveries the webhook line reports. */
const WEBHOOK_SCENARIO = 'POST /api/v1/entries (3 webhook subscriptions)';

/** A plain receiver on loopback that answers 204 and notes each delivery's lag behind its event. */
async function startWebhookReceiver() {
  const lags: number[] = [];
  const arrivals: number[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string };
      lags.push(now - Date.parse(envelope.createdAt));
      arrivals.push(now);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  };
  return {
    port,
    /** Forgets the deliveries noted so far (the next summary covers what arrives after this). */
    reset() {
      lags.length = 0;
      arrivals.length = 0;
    },
    /** Waits (at most a minute) until every delivery in the database is final, then summarises. */
    async drain(databasePath: string) {
      const database = openDatabase(databasePath);
      try {
        const pending = database.sqlite.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL');
        const until = Date.now() + 60_000;
        while ((pending.get() as { n: number }).n > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
        const total = (database.sqlite.prepare('SELECT count(*) AS n FROM webhook_deliveries').get() as { n: number }).n;
        const span = arrivals.length > 1 ? ((arrivals.at(-1) as number) - (arrivals[0] as number)) / 1000 : 0;
        return {
          enqueued: total,
          delivered: arrivals.length,
          perSecond: span > 0 ? Math.round(arrivals.length / span) : null,
          lagP50Ms: percentile(lags, 50),
          lagP99Ms: percentile(lags, 99),
        };
      } finally {
        database.close();
      }
    },
    close: () => server.close(),
  };
}

/**
 * A `timetrack` command's wall time as a self-hoster runs it (`token list --json`, the compiled
 * command line), median of 5 after one warm-up run.
 */
function cliWallMs(databasePath: string, workspaceId: string): number {
  const times: number[] = [];
  for (let i = 0; i < 6; i++) {
    const started = performance.now();
    const run = spawnSync(process.execPath, ['bin/timetrack.js', 'token', 'list', '--workspace', workspaceId, '--json'], {
      cwd: root,
      env: { ...process.env, DATABASE_PATH: databasePath },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`timetrack token list failed: ${run.stderr}`);
    if (i > 0) times.push(performance.now() - started);
  }
  const sorted = times.sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] as number);
}

async function main() {
  // BENCH_ONLY=import or export: those figures only (bench/import.ts and bench/export.ts run after this).
  if (only === 'import' || only === 'export') return;
  const { path: cachedPath, data } = dataset();
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-'));
  const databasePath = join(dir, 'timetrack.db');
  copyFileSync(cachedPath, databasePath);
  // On disk before anything is timed: the copy's ~1 GB of dirty pages, written back while the
  // server started, added ~60 ms to its cold start (547-582 against 481-503 ms, three pairs).
  onDisk(databasePath);
  const children: ChildProcess[] = [];
  const token = data.ownerToken;
  const receiver = await startWebhookReceiver();
  const { entryId, tokens, own } = await subscribe(databasePath, token, receiver.port, 3);
  memberTokens = tokens;
  // The reader-pool scenario starts servers of its own while the main one runs: one server holds
  // a database (its .server-lock), so they run on a copy (with the same key file).
  const poolDir = mkdtempSync(join(tmpdir(), 'timetrack-bench-pool-'));
  const poolDatabasePath = join(poolDir, 'timetrack.db');
  copyFileSync(databasePath, poolDatabasePath);
  onDisk(poolDatabasePath);
  if (existsSync(join(dir, 'secret.key'))) copyFileSync(join(dir, 'secret.key'), join(poolDir, 'secret.key'));
  try {
    // As `npm start` runs it: compiled to dist/ and bundled first (the build is not part of the
    // cold start), then the same node command.
    const build = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('the build failed');
    const bundled = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bundle.ts')], { cwd: root, stdio: 'inherit' });
    if (bundled.status !== 0) throw new Error('the bundle failed');
    /** The server as `npm start` runs it, with `env` added; resolves once it answers. */
    const startServer = async (env: Record<string, string> = {}) => {
      const port = await freePort();
      const started = Date.now();
      const server = await startProcess(
        [...serverNodeArgs, ...startArgs],
        {
          ...startEnv,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_PATH: databasePath,
          LOG_LEVEL: 'warn',
          RATE_LIMIT_TOKEN_PER_MIN: '1000000000',
          RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          ...env,
        },
        null,
      );
      children.push(server.child);
      const serverUrl = `http://127.0.0.1:${port}`;
      await untilAnswered(`${serverUrl}/api/v1/me`, token);
      return { server, serverUrl, coldStartMs: Date.now() - started };
    };
    const cliMs = cliWallMs(databasePath, data.workspaceId);
    const { server, serverUrl, coldStartMs } = await startServer();
    const baseline = await startProcess(
      ['--import', 'tsx', 'bench/baseline-server.ts'],
      { BENCH_DATABASE_PATH: databasePath },
      /BASELINE_LISTENING (\S+)/,
    );
    children.push(baseline.child);
    const baselineUrl = baseline.match?.[1] as string;
    // The same baseline syncing every commit: the write scenarios' floor at the server's durability.
    const baselineFull = await startProcess(
      ['--import', 'tsx', 'bench/baseline-server.ts'],
      { BENCH_DATABASE_PATH: databasePath, BENCH_SYNCHRONOUS: 'FULL' },
      /BASELINE_LISTENING (\S+)/,
    );
    children.push(baselineFull.child);
    const baselineFullUrl = baselineFull.match?.[1] as string;
    // The list's current ETag, for the clients that poll it (a 304 each time; autocannon counts 304 as non-2xx).
    const projectsTag =
      (await fetch(`${serverUrl}/api/v1/projects`, { headers: { authorization: `Bearer ${token}` } })).headers.get('etag') ?? '';

    // Reads first: the writes of POST grow the WAL, which the reads after them would pay for.
    const scenarios: Scenario[] = [
      { name: 'GET /api/v1/me', method: 'GET', path: '/api/v1/me', baseline: true },
      { name: 'GET /api/v1/entries/{id}', method: 'GET', path: `/api/v1/entries/${entryId}`, baseline: true },
      {
        name: 'GET /api/v1/entries?limit=100',
        method: 'GET',
        path: '/api/v1/entries?from=2025-11-01&to=2026-10-31&limit=100',
        baseline: true,
      },
      {
        name: 'GET /api/v1/reports/summary (one year, ~250k entries)',
        method: 'GET',
        path: '/api/v1/reports/summary?from=2025-11-01&to=2026-10-31',
        baseline: false,
      },
      {
        name: 'GET /api/v1/reports/summary (one year), 1 connection',
        method: 'GET',
        path: '/api/v1/reports/summary?from=2025-11-01&to=2026-10-31',
        baseline: false,
        connections: 1,
      },
      { name: 'GET /api/v1/projects (2,000 projects)', method: 'GET', path: '/api/v1/projects', baseline: false },
      {
        name: 'GET /api/v1/projects (2,000 projects), 1 connection',
        method: 'GET',
        path: '/api/v1/projects',
        baseline: false,
        connections: 1,
      },
      ...projectsVariants(projectsTag),
      {
        name: 'timer start + stop (20 members)',
        method: 'POST',
        path: '/api/v1/entries/current',
        baseline: true,
        sequence: [
          { method: 'POST', path: '/api/v1/entries/current' },
          { method: 'POST', path: '/api/v1/entries/current/stop' },
        ],
      },
      {
        name: WEBHOOK_SCENARIO,
        method: 'POST',
        path: '/api/v1/entries',
        body: JSON.stringify({
          start: '2026-10-30T08:00:00Z',
          end: '2026-10-30T09:00:00Z',
          description: 'bench',
          projectId: data.projectIds[1],
        }),
        baseline: true,
      },
      {
        name: 'POST /api/v1/entries (3 webhook subscriptions), 1 connection',
        method: 'POST',
        path: '/api/v1/entries',
        body: JSON.stringify({
          start: '2026-10-30T10:00:00Z',
          end: '2026-10-30T11:00:00Z',
          description: 'bench alone',
          projectId: data.projectIds[1],
        }),
        baseline: true,
        connections: 1,
      },
    ];

    const rows = [];
    const writes = (s: Scenario) => s.method === 'POST';
    const ordered = [...scenarios.filter((s) => !writes(s)), 'extras' as const, ...scenarios.filter(writes)];
    let extras: Awaited<ReturnType<typeof measureExtras>> | null = null;
    let webhooks: Awaited<ReturnType<typeof receiver.drain>> = {
      enqueued: 0,
      delivered: 0,
      perSecond: null,
      lagP50Ms: null,
      lagP99Ms: null,
    };
    for (const scenario of ordered) {
      if (scenario === 'extras') {
        extras = await measureExtras({ serverUrl, token, own, entryId, data, startServer, poolDatabasePath, databasePath });
        continue;
      }
      if (!wanted(scenario.name)) continue;
      // A write scenario starts with the server's webhook sender idle: the deliveries an earlier
      // scenario queued (tens of thousands after the 20-connection POST) would otherwise be sent
      // during this one and be counted against it (until 2026-12-03 the 1-connection POST ran
      // entirely beside the previous scenario's backlog).
      if (writes(scenario)) {
        await receiver.drain(databasePath);
        receiver.reset();
      }
      // Warm up each side briefly, then measure one after the other (never at once: 2 cores).
      await load(serverUrl, scenario, token, server.child.pid as number, 2);
      const real = await load(serverUrl, scenario, token, server.child.pid as number);
      // The webhook figures: the deliveries of the 20-connection POST, sent beside it and after it
      // (drained before the baselines are measured, which the sender would otherwise slow).
      if (scenario.name === WEBHOOK_SCENARIO) webhooks = await receiver.drain(databasePath);
      let bare: Measured | null = null;
      let bareFull: Measured | null = null;
      if (scenario.baseline) {
        await load(baselineUrl, scenario, token, baseline.child.pid as number, 2);
        bare = await load(baselineUrl, scenario, token, baseline.child.pid as number);
      }
      if (scenario.baseline && writes(scenario)) {
        await load(baselineFullUrl, scenario, token, baselineFull.child.pid as number, 2);
        bareFull = await load(baselineFullUrl, scenario, token, baselineFull.child.pid as number);
      }
      rows.push({
        scenario: scenario.name,
        server: real,
        baseline: bare,
        baselineFull: bareFull,
        ratio: bare ? Math.round((real.requestsPerSec / bare.requestsPerSec) * 100) / 100 : null,
      });
    }

    await receiver.drain(databasePath);
    // The delivery log is measured on the POST scenario's deliveries (none when BENCH_ONLY left it out).
    const settingsLog = webhooks.delivered > 0 ? await measureSettingsLog(serverUrl, databasePath, token) : null;

    console.log(
      `\ntimetrack benchmark: ${sizes.entries} entries, ${connections} connections, ${seconds} s per measurement, node ${process.version}, cold start ${coldStartMs} ms, CLI \`token list --json\` ${cliMs} ms\n`,
    );
    console.log(
      '| scenario | server req/s | p50 ms | p99 ms | baseline req/s | baseline p99 ms | ratio | baseline FULL req/s (p50 / p99 ms) | server peak RSS MB (in this scenario) | non-2xx or errors | server bytes per answer |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      console.log(
        `| ${row.scenario} | ${row.server.requestsPerSec} | ${row.server.p50Ms} | ${row.server.p99Ms} | ${row.baseline?.requestsPerSec ?? '-'} | ${row.baseline?.p99Ms ?? '-'} | ${row.ratio ?? '-'} | ${row.baselineFull ? `${row.baselineFull.requestsPerSec} (${row.baselineFull.p50Ms} / ${row.baselineFull.p99Ms})` : '-'} | ${row.server.peakRssMb} (${row.server.scenarioRssMb}) | ${row.server.non2xx + row.server.errors + (row.baseline ? row.baseline.non2xx + row.baseline.errors : 0)} | ${row.server.bytesPerAnswer} |`,
      );
    }
    if (extras) printExtras(extras);
    console.log(
      `\nwebhook deliveries (3 subscriptions, events of the POST scenario): ${webhooks.delivered} delivered, ${webhooks.perSecond}/s, lag from commit to arrival p50 ${webhooks.lagP50Ms} ms, p99 ${webhooks.lagP99Ms} ms (the sender runs on its own thread of the server, beside the API under load; 2 cores for server, sender and load generator)`,
    );
    if (settingsLog)
      console.log(
        `\nsettings page, a subscription's delivery log (${settingsLog.deliveries} deliveries, 1 connection): newest page p50 ${settingsLog.newest.p50Ms} ms (${settingsLog.newest.bytes} bytes, ${settingsLog.newest.status}), a page 30 deliveries from the oldest p50 ${settingsLog.deepPage?.p50Ms ?? '-'} ms; plan: ${settingsLog.plan}`,
      );
    writeFileSync(
      join(root, 'bench', 'results.json'),
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, entries: sizes.entries, connections, seconds, coldStartMs, cliMs, peakRssMb: await peakRss(server.child.pid as number), rows, extras, webhooks, settingsLog }, null, 2)}\n`,
    );
  } finally {
    receiver.close();
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dir, { recursive: true, force: true });
    rmSync(poolDir, { recursive: true, force: true });
  }
}

/**
 * GET /api/v1/projects as clients that ask for compression, and as clients that poll with the
 * ETag they hold (If-None-Match: 304, no body, the list not read). The plain scenarios above are
 * the same requests without either.
 */
function projectsVariants(tag: string): Scenario[] {
  const base = { method: 'GET' as const, path: '/api/v1/projects', baseline: false };
  return [
    { ...base, name: 'GET /api/v1/projects (2,000 projects), Accept-Encoding: gzip', headers: { 'accept-encoding': 'gzip' } },
    { ...base, name: 'GET /api/v1/projects (2,000 projects), Accept-Encoding: br', headers: { 'accept-encoding': 'br' } },
    {
      ...base,
      name: 'GET /api/v1/projects (2,000 projects), Accept-Encoding: gzip, 1 connection',
      headers: { 'accept-encoding': 'gzip' },
      connections: 1,
    },
    { ...base, name: 'GET /api/v1/projects (2,000 projects), If-None-Match (304)', headers: { 'if-none-match': tag } },
    {
      ...base,
      name: 'GET /api/v1/projects (2,000 projects), If-None-Match (304), 1 connection',
      headers: { 'if-none-match': tag },
      connections: 1,
    },
  ];
}

/** Writes a file's pages to disk (fsync) and returns when they are. */
function onDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

type ServerStarter = (env?: Record<string, string>) => Promise<{ server: { child: ChildProcess }; serverUrl: string; coldStartMs: number }>;

/** Resident memory of a process now (VmRSS), in MB. */
async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Point reads beside heavy reads, the costliest request of each read route, and the summary's throughput by pool size. */
async function measureExtras(ctx: {
  serverUrl: string;
  token: string;
  own: string;
  entryId: string;
  data: Dataset;
  startServer: ServerStarter;
  poolDatabasePath: string;
  databasePath: string;
}) {
  const mixedRows = wanted('mixed') ? await mixed(ctx.serverUrl, ctx.token, ctx.entryId, seconds) : [];
  const costRows = wanted('costliest')
    ? await costliest(ctx.serverUrl, { owner: ctx.token, own: ctx.own }, candidates({ ...ctx.data, entryId: ctx.entryId }))
    : [];
  const reportPages = wanted('app reports') ? await appReports(ctx.serverUrl, ctx.databasePath, ctx.token) : [];
  const suggestions = wanted('app suggest') ? await appSuggest(ctx.serverUrl, ctx.databasePath, ctx.token) : [];
  const pool: Array<{ threads: number; requestsPerSec: number; p50Ms: number; p99Ms: number; rssPerThreadMb: number | null }> = [];
  if (wanted('pool')) {
    for (const threads of [0, 1, 2]) {
      const { server, serverUrl } = await ctx.startServer({ READER_THREADS: String(threads), DATABASE_PATH: ctx.poolDatabasePath });
      const pid = server.child.pid as number;
      const before = await rss(pid);
      // Start every reader thread: as many heavy reads at once as there are threads.
      await Promise.all(
        Array.from({ length: Math.max(1, threads) }, () =>
          fetch(`${serverUrl}/api/v1/tags`, { headers: { authorization: `Bearer ${ctx.token}` } }),
        ),
      );
      const withThreads = await rss(pid);
      const scenario: Scenario = {
        name: 'summary',
        method: 'GET',
        path: '/api/v1/reports/summary?from=2025-11-01&to=2026-10-31',
        baseline: false,
      };
      await load(serverUrl, scenario, ctx.token, pid, 2);
      const measured = await load(serverUrl, scenario, ctx.token, pid);
      pool.push({
        threads,
        requestsPerSec: measured.requestsPerSec,
        p50Ms: measured.p50Ms,
        p99Ms: measured.p99Ms,
        rssPerThreadMb: threads > 0 ? Math.round((withThreads - before) / threads) : null,
      });
      // The next one takes the copy's lock once this one has let it go.
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
  }
  return { mixed: mixedRows, costliest: costRows, pool, reportPages, suggestions };
}

/**
 * The web app's suggestions while a member types a description (GET /app/suggest), for the
 * owner, one of the 50 members (20,000 of the 1M entries, about 1,200 in the last 90 days),
 * signed in: a common prefix, narrower texts and one that matches nothing; 1 connection.
 */
async function appSuggest(serverUrl: string, databasePath: string, token: string) {
  const session = await sessionOf(serverUrl, databasePath, token);
  const rows = [];
  for (const text of ['Wo', 'Work item', 'item 4', 'item 996', 'zzz']) {
    const path = `/app/suggest?q=${encodeURIComponent(text)}`;
    rows.push({ path, ...(await timePage(serverUrl, session, path, 200, 20)) });
  }
  return rows;
}

/**
 * The web app's Reports page for a year of the whole 50-member team, as the owner signed in
 * (its three reads on the reader threads, its HTML on the request thread): the default grouping
 * and the two costliest two-level ones; p50 of 5 after one not counted, one connection.
 */
async function appReports(serverUrl: string, databasePath: string, token: string) {
  const session = await sessionOf(serverUrl, databasePath, token);
  const year = '/app/reports?from=2025-11-01&to=2026-10-31&member=everyone';
  const rows = [];
  for (const grouping of ['groupBy=project', 'groupBy=user&subGroupBy=project', 'groupBy=tag&subGroupBy=project']) {
    const path = `${year}&${grouping}`;
    rows.push({ path, ...(await timePage(serverUrl, session, path, 5, 1)) });
  }
  return rows;
}

function printExtras(extras: Awaited<ReturnType<typeof measureExtras>>): void {
  if (extras.suggestions.length > 0) {
    console.log('\nsuggestions while typing (GET /app/suggest), the owner: 20,000 entries (1 connection, 200 requests):\n');
    console.log('| path | p50 ms | p99 ms | slowest ms | status | bytes |');
    console.log('|---|---|---|---|---|---|');
    for (const r of extras.suggestions)
      console.log(`| \`${r.path}\` | ${r.p50Ms} | ${r.p99Ms} | ${r.slowestMs} | ${r.status} | ${r.bytes} |`);
  }
  if (extras.reportPages.length > 0) {
    console.log("\nthe web app's Reports page, a year of the 50-member team, as the owner (1 connection, p50 of 5):\n");
    console.log('| page | p50 ms | slowest ms | status | bytes |');
    console.log('|---|---|---|---|---|');
    for (const r of extras.reportPages) console.log(`| \`${r.path}\` | ${r.p50Ms} | ${r.slowestMs} | ${r.status} | ${r.bytes} |`);
  }
  if (extras.mixed.length > 0) {
    console.log('\npoint reads (GET /api/v1/entries/{id}, 10 connections) beside heavy reads:\n');
    console.log('| beside | point req/s | point p50 ms | point p99 ms | heavy req/s | heavy p99 ms |');
    console.log('|---|---|---|---|---|---|');
    for (const r of extras.mixed)
      console.log(
        `| ${r.beside} | ${r.pointReqPerSec} | ${r.pointP50Ms} | ${r.pointP99Ms} | ${r.heavyReqPerSec ?? '-'} | ${r.heavyP99Ms ?? '-'} |`,
      );
  }
  if (extras.costliest.length > 0) {
    console.log('\nthe costliest request of each read route (1 connection, p50 of 5 after trying every combination once):\n');
    console.log('| route | token | p50 ms | status | combinations tried | the costliest |');
    console.log('|---|---|---|---|---|---|');
    // Long id lists shortened for the table (bench/results.json keeps the whole path).
    const shown = (path: string) =>
      path.replace(/=((?:[a-z]+_[0-9a-z]+,){3,}[a-z]+_[0-9a-z]+)/g, (_, ids: string) => `=<${ids.split(',').length} ids>`);
    for (const r of extras.costliest)
      console.log(`| ${r.route} | ${r.token} | ${r.p50Ms} | ${r.status} | ${r.tried} | \`${shown(r.path)}\` |`);
  }
  if (extras.pool.length > 0) {
    console.log(`\none-year summary by project at ${connections} connections, by reader threads (0: on the request thread):\n`);
    console.log('| reader threads | req/s | p50 ms | p99 ms | RSS per thread MB |');
    console.log('|---|---|---|---|---|');
    for (const r of extras.pool)
      console.log(`| ${r.threads} | ${r.requestsPerSec} | ${r.p50Ms} | ${r.p99Ms} | ${r.rssPerThreadMb ?? '-'} |`);
  }
}

await main();
