/*
 * The soak: the compiled server (as `npm start` runs it) under a steady mixed load for
 * SOAK_SECONDS (300; issue 60's soak is 1800), its RSS sampled every second; prints the mean and highest RSS of each
 * minute, and whether the last minute stays within 10 % of the third (memory that levels off,
 * not a leak). Runs on a copy of the dataset `npm run bench` cached for BENCH_ENTRIES (run that
 * first); `npx tsx bench/soak.ts`.
 *
 * The mix, per connection, repeated: GET /me, GET /entries/{id}, a page of 100 entries, POST
 * /entries (3 webhook subscriptions from the bench), a one-month summary by project and day, and
 * every fifth round a one-year summary by project (the reader threads start, work and idle).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { startCommand } from './start-command.js';

const root = join(import.meta.dirname, '..');
const seconds = Number(process.env.SOAK_SECONDS ?? 300);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 10);
const entries = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const migrations = readdirSync(join(root, 'drizzle')).filter((f) => f.endsWith('.sql')).length;

const cached = readdirSync(tmpdir())
  .filter((f) => f.startsWith(`timetrack-bench-${entries}-m${migrations}-`) && f.endsWith('.db'))
  .map((f) => join(tmpdir(), f))
  .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
if (!cached || !existsSync(`${cached}.json`)) throw new Error(`no cached bench dataset of ${entries} entries: run npm run bench first`);
const data = JSON.parse(readFileSync(`${cached}.json`, 'utf8')) as { ownerToken: string; projectIds: string[] };
const dir = mkdtempSync(join(tmpdir(), 'timetrack-soak-'));
const databasePath = join(dir, 'timetrack.db');
copyFileSync(cached, databasePath);
const entryId = (new Database(databasePath, { readonly: true }).prepare('select id from entries limit 1').get() as { id: string }).id;

// The whole build: `npm start` runs the bundle (dist/bundle/main.js), which tsc alone leaves as it was.
const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) throw new Error('the build failed');
const { args, env: startEnv } = startCommand(root);
const port = 20_000 + Math.floor(Math.random() * 10_000);
const server: ChildProcess = spawn(process.execPath, args, {
  cwd: root,
  env: {
    ...process.env,
    ...startEnv,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_PATH: databasePath,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_TOKEN_PER_MIN: '1000000000',
    RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const url = `http://127.0.0.1:${port}`;
const auth = { authorization: `Bearer ${data.ownerToken}` };

const rss = (): number => {
  try {
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
};

try {
  for (let i = 0; ; i++) {
    if (i > 300) throw new Error('the server never answered');
    const ok = await fetch(`${url}/api/v1/me`, { headers: auth }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rss()), 1000);
  let round = 0;
  const body = JSON.stringify({
    start: '2026-10-30T08:00:00Z',
    end: '2026-10-30T09:00:00Z',
    description: 'soak',
    projectId: data.projectIds[1],
  });
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: auth,
    requests: [
      { method: 'GET', path: '/api/v1/me' },
      { method: 'GET', path: `/api/v1/entries/${entryId}` },
      { method: 'GET', path: '/api/v1/entries?from=2026-01-01&to=2026-10-31&limit=100' },
      { method: 'POST', path: '/api/v1/entries', body, headers: { ...auth, 'content-type': 'application/json' } },
      { method: 'GET', path: '/api/v1/reports/summary?from=2026-10-01&to=2026-10-31&groupBy=project&subGroupBy=day' },
      {
        method: 'GET',
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          path: ++round % 5 === 0 ? '/api/v1/reports/summary?from=2025-11-01&to=2026-10-31' : '/api/v1/me',
        }),
      },
    ],
  } as autocannon.Options);
  clearInterval(sampler);
  const minutes: Array<{ minute: number; mean: number; max: number }> = [];
  for (let m = 0; m * 60 < samples.length; m++) {
    const part = samples.slice(m * 60, (m + 1) * 60);
    minutes.push({ minute: m + 1, mean: Math.round(part.reduce((a, b) => a + b, 0) / part.length), max: Math.max(...part) });
  }
  console.log(
    `soak: ${seconds} s, ${connections} connections, ${entries} entries, ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
  );
  console.log('| minute | mean RSS MB | highest RSS MB |\n|---|---|---|');
  for (const m of minutes) console.log(`| ${m.minute} | ${m.mean} | ${m.max} |`);
  const third = minutes[2];
  const last = minutes[minutes.length - 1];
  if (third && last)
    console.log(
      `last minute vs the third: ${last.mean} / ${third.mean} MB = ${((last.mean / third.mean - 1) * 100).toFixed(1)} % (target: within 10 %)`,
    );
  // Issue 60's target for a 30-minute soak (SOAK_SECONDS=1800): under 5 MB of growth over its last 20 minutes.
  const before = minutes[minutes.length - 21];
  if (before && last)
    console.log(
      `the last 20 minutes: minute ${before.minute} ${before.mean} MB -> minute ${last.minute} ${last.mean} MB mean, ${last.mean - before.mean} MB (highest ${Math.max(...minutes.slice(-21).map((m) => m.max))} MB; target: < 5 MB)`,
    );
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
