/**
 * `npm run bench`: the real server and a bare node:http + better-sqlite3 baseline, each in its own
 * process on 127.0.0.1, measured with autocannon in the same run. Prints a table and writes
 * bench/results.json. Loopback only; every load is bounded in time.
 *
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=20 npm run bench
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer as createNetServer } from 'node:net';
import autocannon from 'autocannon';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

interface Measured {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  peakRssMb: number;
}

function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** Peak resident set size of a process, sampled from /proc while the load runs. */
function sampleRss(pid: number): () => number {
  let peak = 0;
  const read = async () => {
    try {
      const { readFile } = await import('node:fs/promises');
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb / 1024);
    } catch {
      // the process is gone
    }
  };
  const timer = setInterval(read, 250);
  return () => {
    clearInterval(timer);
    return Math.round(peak);
  };
}

async function load(url: string, path: string, token: string, pid: number): Promise<Measured> {
  const stop = sampleRss(pid);
  const result = await autocannon({
    url: `${url}${path}`,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise((r) => setTimeout(r, 300));
  return {
    requestsPerSec: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    peakRssMb: stop(),
  };
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
  for (let i = 0; i < 600; i++) {
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

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-'));
  const databasePath = join(dir, 'timetrack.db');
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    const started = Date.now();
    const server = await startProcess(
      ['--import', 'tsx', 'src/main.ts'],
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_PATH: databasePath,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_TOKEN_PER_MIN: '1000000000',
        RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
      },
      /token +(tt_\S+)/,
    );
    children.push(server.child);
    const token = server.match[1] as string;
    const serverUrl = `http://127.0.0.1:${port}`;
    await untilAnswered(`${serverUrl}/api/v1/me`, token);
    const coldStartMs = Date.now() - started;
    const baseline = await startProcess(['--import', 'tsx', 'bench/baseline-server.ts'], { BENCH_DATABASE_PATH: databasePath }, /BASELINE_LISTENING (\S+)/);
    children.push(baseline.child);
    const baselineUrl = baseline.match[1] as string;

    // Warm both up, then measure one after the other (never at once: 2 cores).
    await autocannon({ url: `${serverUrl}/api/v1/me`, connections, duration: 2, headers: { authorization: `Bearer ${token}` } });
    await autocannon({ url: `${baselineUrl}/api/v1/me`, connections, duration: 2, headers: { authorization: `Bearer ${token}` } });
    const rows = [];
    const real = await load(serverUrl, '/api/v1/me', token, server.child.pid as number);
    const bare = await load(baselineUrl, '/api/v1/me', token, baseline.child.pid as number);
    rows.push({ scenario: 'GET /api/v1/me', server: real, baseline: bare, ratio: Math.round((real.requestsPerSec / bare.requestsPerSec) * 100) / 100 });

    console.log(`\ntimetrack benchmark: ${connections} connections, ${seconds} s per measurement, node ${process.version}, cold start ${coldStartMs} ms\n`);
    console.log('| scenario | server req/s | p50 ms | p99 ms | baseline req/s | baseline p99 ms | ratio | server peak RSS MB | non-2xx |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      console.log(
        `| ${row.scenario} | ${row.server.requestsPerSec} | ${row.server.p50Ms} | ${row.server.p99Ms} | ${row.baseline.requestsPerSec} | ${row.baseline.p99Ms} | ${row.ratio} | ${row.server.peakRssMb} | ${row.server.non2xx + row.baseline.non2xx} |`,
      );
    }
    writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, connections, seconds, coldStartMs, rows }, null, 2)}\n`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
