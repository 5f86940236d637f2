/*
 * The first heavy read after an idle spell (issue 46 item 10, issue 49 "first Reports page after an
 * idle minute"): a reader thread ends after 10 s without reads, so the next report starts one. This
 * starts the built server (`node ROOT/dist/src/main.js`, as `npm start` runs it) of each checkout
 * given, on a small database on 127.0.0.1, and times GET /api/v1/reports/summary: once the server is
 * up (the first thread), after 11 s idle (a thread again), and right after (a warm thread). Rounds
 * alternate the checkouts, so old and new see the same machine.
 *
 *   npx tsx bench/first-read.ts [ROOT ...]      (default: this checkout; ROUNDS=5; exits 1 when the
 *                                                median cold read of the last ROOT is over 300 ms)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_ROOT } from '../src/paths.js';

const roots = process.argv.length > 2 ? process.argv.slice(2).map((r) => resolve(r)) : [PACKAGE_ROOT];
const rounds = Number(process.env.ROUNDS ?? 5);
const TARGET_MS = 300;

const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });

interface Running {
  child: ChildProcess;
  base: string;
  token: string;
  dir: string;
}

async function start(root: string): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-first-read-'));
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    DATABASE_PATH: join(dir, 'tt.db'),
    SECRET_KEY: 'b'.repeat(48),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    TZ: 'Europe/Berlin',
  };
  const child = spawn(process.execPath, ['--max-old-space-size=512', join(root, 'dist/src/main.js')], { env, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      await sleep(50);
    }
  }
  const cli = (...args: string[]): { id?: string; token?: string } =>
    JSON.parse(execFileSync(process.execPath, [join(root, 'bin/timetrack.js'), ...args, '--json'], { env, encoding: 'utf8' })) as {
      id?: string;
      token?: string;
    };
  const workspace = cli('workspace', 'create', '--name', 'Bench').id as string;
  const user = cli('user', 'create', '--name', 'Ada', '--email', 'ada@example.org').id as string;
  cli('member', 'add', '--workspace', workspace, '--user', user, '--can-view-others-time', '--can-view-others-money');
  const token = cli('token', 'create', '--workspace', workspace, '--user', user, '--name', 'bench', '--scopes', 'reports:read')
    .token as string;
  return { child, base, token, dir };
}

async function timedRead(run: Running): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${run.base}/api/v1/reports/summary?from=2026-01-01&to=2026-12-31&groupBy=project`, {
    headers: { authorization: `Bearer ${run.token}` },
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`summary answered ${response.status}`);
  return performance.now() - started;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const results = new Map<string, { first: number[]; cold: number[]; warm: number[] }>(
  roots.map((r) => [r, { first: [], cold: [], warm: [] }]),
);
console.log(`load average at start: ${loadavg()[0]?.toFixed(2)} (a figure counts from under 1.5)`);
for (let round = 0; round < rounds; round += 1) {
  for (const root of round % 2 === 0 ? roots : [...roots].reverse()) {
    const run = await start(root);
    try {
      const into = results.get(root) as { first: number[]; cold: number[]; warm: number[] };
      into.first.push(await timedRead(run));
      await sleep(11_000);
      into.cold.push(await timedRead(run));
      into.warm.push(await timedRead(run));
    } finally {
      run.child.kill('SIGTERM');
      await new Promise((done) => run.child.once('exit', done));
      rmSync(run.dir, { recursive: true, force: true });
    }
  }
}
console.log('| checkout | first read after start (median ms) | first read after 11 s idle | the next read |');
console.log('|---|---|---|---|');
for (const [root, r] of results)
  console.log(`| ${root} | ${median(r.first).toFixed(0)} | ${median(r.cold).toFixed(0)} | ${median(r.warm).toFixed(0)} |`);
const last = results.get(roots[roots.length - 1] as string) as { cold: number[] };
if (median(last.cold) > TARGET_MS) {
  console.log(`over target: the first read after idle took ${median(last.cold).toFixed(0)} ms (target ${TARGET_MS} ms)`);
  process.exitCode = 1;
}
