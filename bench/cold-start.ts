/*
 * The cold start and the command line of builds side by side (issue 60): each round starts the
 * server of every variant in turn (`node --max-old-space-size=512 --max-semi-space-size=4 ENTRY`,
 * as `npm start` runs it) on one small database and times it to the first answered
 * `GET /api/v1/me` (what bench/run.ts polls), with the CPU the process used by then (user + sys of
 * all its threads, /proc/PID/stat); then runs `node ENTRY token list --workspace W --json` of every
 * variant (wall time, and user + sys through /usr/bin/time). The order of the variants alternates
 * from round to round, so old and new see the same machine; medians and the load average at the
 * start and the end are printed. The database is made by a first start of the last server variant.
 *
 *   npx tsx bench/cold-start.ts [NAME=ENTRY ...]    (ROUNDS=10; default: compiled=dist/src/main.js
 *                                                    bundle=dist/bundle/main.js; the command line
 *                                                    adds timetrack=bin/timetrack.js, CLI=NAME=ENTRY,...
 *                                                    to name its own)
 * Build first (`npm run build`): the script runs the builds as they are.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_ROOT } from '../src/paths.js';

const rounds = Number(process.env.ROUNDS ?? 10);
const NODE_FLAGS = ['--max-old-space-size=512', '--max-semi-space-size=4'];
const TICKS_PER_SECOND = 100;

interface Variant {
  name: string;
  entry: string;
}

const parseVariants = (specs: string[]): Variant[] =>
  specs.map((spec) => {
    const [name, entry] = spec.split('=');
    if (!name || !entry) throw new Error(`a variant is NAME=ENTRY: ${spec}`);
    return { name, entry: resolve(PACKAGE_ROOT, entry) };
  });

const servers = parseVariants(
  process.argv.length > 2 ? process.argv.slice(2) : ['compiled=dist/src/main.js', 'bundle=dist/bundle/main.js'],
);
const commands = process.env.CLI
  ? parseVariants(process.env.CLI.split(','))
  : [...servers, ...(process.argv.length > 2 ? [] : parseVariants(['timetrack=bin/timetrack.js']))];
for (const { entry } of [...servers, ...commands]) if (!existsSync(entry)) throw new Error(`${entry} is missing: npm run build first`);

const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });

/** user + sys of a process and all its threads so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of stat (utime, stime), counted from the state (field 3) here.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

const stopped = (child: ChildProcess): Promise<void> =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });

function serverEnv(databasePath: string, port: number): NodeJS.ProcessEnv {
  return { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: databasePath, LOG_LEVEL: 'warn' };
}

/** Polls GET /api/v1/me every 5 ms until it answers 200 (within a minute); resolves at the answer. */
async function untilAnswered(port: number, token: string, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  throw new Error('GET /api/v1/me did not answer 200 within a minute');
}

/** A fresh database, made by a first start of `entry`: its owner's token and workspace. */
async function firstStart(entry: string, databasePath: string): Promise<{ token: string; workspace: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, entry], { env: serverEnv(databasePath, port), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    for (let i = 0; i < 600 && !/workspace\s+ws_\S+[\s\S]*token\s+tt_\S+/.test(out); i++) await sleep(50);
    const token = /token\s+(tt_\S+)/.exec(out)?.[1];
    const workspace = /workspace\s+(ws_\S+)/.exec(out)?.[1];
    if (!token || !workspace) throw new Error(`the first start printed no token: ${out}`);
    // Stopped once it answers: a stop within its start could leave the database empty.
    await untilAnswered(port, token, child);
    return { token, workspace };
  } finally {
    await stopped(child);
  }
}

/** One cold start: spawn to the first answered request, and the CPU used by then. */
async function coldStart(entry: string, databasePath: string, token: string): Promise<{ wallMs: number; cpuMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, entry], {
    env: serverEnv(databasePath, port),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await untilAnswered(port, token, child);
    return { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid as number) };
  } finally {
    await stopped(child);
  }
}

/** One `token list --json`: wall time and user + sys (through /usr/bin/time when installed). */
function command(entry: string, databasePath: string, workspace: string): { wallMs: number; cpuMs: number | null } {
  const args = [entry, 'token', 'list', '--workspace', workspace, '--json'];
  const timed = existsSync('/usr/bin/time');
  const started = performance.now();
  const run = timed
    ? spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, ...args], {
        env: { ...process.env, DATABASE_PATH: databasePath },
        encoding: 'utf8',
      })
    : spawnSync(process.execPath, args, { env: { ...process.env, DATABASE_PATH: databasePath }, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (run.status !== 0) throw new Error(`${entry} token list failed: ${run.stderr}`);
  const cpu = /CPU (\S+) (\S+)/.exec(run.stderr);
  return { wallMs, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : null };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-cold-'));
  const databasePath = join(dir, 'timetrack.db');
  try {
    const { token, workspace } = await firstStart((servers.at(-1) as Variant).entry, databasePath);
    const loadAtStart = load();
    process.stdout.write(
      `cold start and token list --json, ${rounds} rounds alternated, node ${process.version}, load average at the start ${loadAtStart}\n`,
    );
    const starts = new Map<string, Array<{ wallMs: number; cpuMs: number }>>(servers.map((v) => [v.name, []]));
    const runs = new Map<string, Array<{ wallMs: number; cpuMs: number | null }>>(commands.map((v) => [v.name, []]));
    // One unmeasured run of each first: the page cache and the database's first open.
    for (const variant of servers) await coldStart(variant.entry, databasePath, token);
    for (const variant of commands) command(variant.entry, databasePath, workspace);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const variant of order) starts.get(variant.name)?.push(await coldStart(variant.entry, databasePath, token));
      const commandOrder = round % 2 === 0 ? commands : [...commands].reverse();
      for (const variant of commandOrder) runs.get(variant.name)?.push(command(variant.entry, databasePath, workspace));
    }
    const row = (name: string, values: Array<{ wallMs: number; cpuMs: number | null }>) => {
      const walls = values.map((v) => v.wallMs);
      const cpus = values.map((v) => v.cpuMs).filter((v): v is number => v !== null);
      return `  ${name.padEnd(12)} wall median ${median(walls).toFixed(0).padStart(5)} ms (min ${Math.min(...walls).toFixed(0)}, max ${Math.max(...walls).toFixed(0)})${
        cpus.length ? `, CPU median ${median(cpus).toFixed(0).padStart(5)} ms` : ''
      }\n`;
    };
    process.stdout.write('server: spawn to the first answered GET /api/v1/me\n');
    for (const [name, values] of starts) process.stdout.write(row(name, values));
    process.stdout.write('command: token list --json\n');
    for (const [name, values] of runs) process.stdout.write(row(name, values));
    process.stdout.write(`load average at the end ${load()}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
