/*
 * The Reports page's exports on the 1M dataset (bench/seed.ts; `npx tsx bench/report-exports.ts`, the
 * last part of `npm run bench`; `BENCH_ONLY=report-exports` runs it alone in `npm run bench`'s order):
 * the server as `npm start` runs it, the owner signed in, a year of the 50-member team's entries
 * (about 250,000) as CSV and as XLSX, each read to its end over HTTP: time to the first byte,
 * rows a second, the server's RSS growth (sampled every 50 ms from /proc); then point reads
 * (GET /api/v1/entries/{id}, autocannon, 10 connections) alone and while two CSV exports run (the owner's
 * and a colleague's who sees everyone: a member downloads one report at a time).
 * Targets (issue 37): CSV first byte < 1 s, >= 100,000 rows/s, RSS growth < 50 MB; XLSX >= 30,000
 * rows/s; point-read p99 <= 2x alone beside two exports. Only 127.0.0.1. BENCH_SERVER_NODE_ARGS
 * passes node flags to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cachedDataset } from './seed.js';
import { colleagueSessionOf, sessionOf } from './settings.js';
import { startCommand } from './start-command.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.env.BENCH_ONLY;
const YEAR = 'from=2025-11-01&to=2026-10-31&member=everyone';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** One export read to its end: first byte, whole time, rows (CSV lines, or the XLSX's row count), the server's RSS before and at its highest. */
async function exportOnce(url: string, session: string, path: string, pid: number) {
  const before = await rssMb(pid);
  let highest = before;
  const sampler = setInterval(() => {
    void rssMb(pid).then((mb) => (highest = Math.max(highest, mb)));
  }, 50);
  const started = performance.now();
  const response = await fetch(`${url}${path}`, { headers: { cookie: session } });
  if (response.status !== 200 || !response.body) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  let firstByteMs = 0;
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByteMs = performance.now() - started;
    bytes += chunk.byteLength;
    for (const b of chunk) if (b === 10) lines += 1;
  }
  const totalMs = performance.now() - started;
  clearInterval(sampler);
  return { firstByteMs, totalMs, bytes, lines, rssBeforeMb: before, rssHighestMb: highest };
}

async function pointReads(url: string, token: string, id: string, seconds: number) {
  const result = await autocannon({
    url: `${url}/api/v1/entries/${id}`,
    connections: 10,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    reqPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function main() {
  if (only && only !== 'report-exports') return;
  const { path: cachedPath, data } = cachedDataset();
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-exports-'));
  const databasePath = join(dir, 'timetrack.db');
  copyFileSync(cachedPath, databasePath);
  const build = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the build failed');
  const { args: startArgs, env: startEnv } = startCommand(root);
  // BENCH_SERVER_NODE_ARGS passes node flags to the server, as in bench/run.ts (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const args = [...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean), ...startArgs];
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let server: ChildProcess | null = null;
  try {
    server = spawn(process.execPath, args, {
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
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const pid = server.pid as number;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${data.ownerToken}` } }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      // A cached dataset of older migrations is migrated (and backed up) first: minutes on the 1M file.
      if (i > 9000) throw new Error('the server did not answer');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const session = await sessionOf(url, databasePath, data.ownerToken);
    const load = () =>
      loadavg()
        .map((n) => n.toFixed(1))
        .join(' / ');
    console.log(`load average at the start: ${load()}`);

    // Warm: the reader thread starts and the pages are cached, as on a server that has been up.
    await exportOnce(url, session, `/app/reports/export?format=csv&kind=detailed&from=2026-10-01&to=2026-10-31&member=everyone`, pid);
    const results: Record<string, unknown> = {};
    for (const format of ['csv', 'xlsx'] as const) {
      const runs = [];
      for (let i = 0; i < 3; i++)
        runs.push(await exportOnce(url, session, `/app/reports/export?format=${format}&kind=detailed&${YEAR}`, pid));
      results[format] = runs;
    }
    const csvRuns = results.csv as Array<Awaited<ReturnType<typeof exportOnce>>>;
    const rows = (csvRuns[0]?.lines ?? 1) - 1;
    const xlsxRuns = results.xlsx as Array<Awaited<ReturnType<typeof exportOnce>>>;
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

    console.log(`\nexports of a year of the 50-member team (${rows} entries), the owner, 3 runs each (load average now ${load()}):\n`);
    console.log(
      '| format | first byte ms (median) | total s (median) | rows/s (median) | bytes | server RSS before / highest MB | target |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const [format, runs, target] of [
      ['CSV', csvRuns, 'first byte < 1 s, >= 100,000 rows/s, RSS growth < 50 MB'],
      ['XLSX', xlsxRuns, '>= 30,000 rows/s'],
    ] as const) {
      const total = median(runs.map((r) => r.totalMs));
      console.log(
        `| ${format} | ${Math.round(median(runs.map((r) => r.firstByteMs)))} | ${(total / 1000).toFixed(2)} | ${Math.round(rows / (total / 1000))} | ${runs[0]?.bytes} | ${runs.map((r) => `${Math.round(r.rssBeforeMb)} / ${Math.round(r.rssHighestMb)}`).join(', ')} | ${target} |`,
      );
    }
    const id = (
      (await (
        await fetch(`${url}/api/v1/entries?from=2026-10-01&to=2026-10-02&limit=1`, {
          headers: { authorization: `Bearer ${data.ownerToken}` },
        })
      ).json()) as {
        data: Array<{ id: string }>;
      }
    ).data[0]?.id as string;
    const alone = await pointReads(url, data.ownerToken, id, 10);
    let exporting = true;
    let exportsDone = 0;
    // Two people's exports: one person's second download at once is refused (429), by design.
    const colleague = await colleagueSessionOf(url, databasePath, data.ownerToken);
    const loop = async (as: string) => {
      while (exporting) {
        await exportOnce(url, as, `/app/reports/export?format=csv&kind=detailed&${YEAR}`, pid);
        exportsDone += 1;
      }
    };
    const loops = [loop(session), loop(colleague)];
    await new Promise((resolve) => setTimeout(resolve, 500));
    const beside = await pointReads(url, data.ownerToken, id, 10);
    exporting = false;
    await Promise.all(loops);

    console.log(`\npoint reads (GET /api/v1/entries/{id}, 10 connections, 10 s):\n`);
    console.log('| beside | req/s | p50 ms | p99 ms | errors |');
    console.log('|---|---|---|---|---|');
    console.log(`| nothing | ${alone.reqPerSec} | ${alone.p50} | ${alone.p99} | ${alone.errors} |`);
    console.log(
      `| two CSV exports of the year, in a loop (${exportsDone} finished) | ${beside.reqPerSec} | ${beside.p50} | ${beside.p99} (${(beside.p99 / Math.max(1, alone.p99)).toFixed(1)}x) | ${beside.errors} |`,
    );
  } finally {
    server?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    rmSync(dir, { recursive: true, force: true });
    if (existsSync(dir)) console.warn(`could not remove ${dir}`);
  }
}

await main();
