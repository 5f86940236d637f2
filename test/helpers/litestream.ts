import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { COVERAGE_RUN, MAIN } from './entry.js';
import { type Figures, LagTracker, litestreamBinary, readFigures } from '../../src/replication.js';
import { send } from './server.js';

/*
 * The real Litestream binary (@flydotio/litestream-linux-x64) around the real server process, with a
 * replica in a local directory: shared by test/process/replication.test.ts and bench/replication.ts.
 */

/** The binary, if it runs here (`litestream version`), or why not. */
export function usableLitestream(): { path: string; reason: null } | { path: null; reason: string } {
  const found = litestreamBinary();
  if (found.path === null) return found;
  const run = spawnSync(found.path, ['version'], { encoding: 'utf8', timeout: 10_000 });
  if (run.status !== 0 || !/^v\d/.test(run.stdout))
    return { path: null, reason: `${found.path} does not run here (${run.error?.message ?? (run.stderr || `exit ${run.status}`)})` };
  return { path: found.path, reason: null };
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Litestream's intervals as the tests and the bench set them (docs/operations.md recommends the same for a 1 s RPO). */
export const MONITOR_MS = 100;
export const SYNC_MS = 200;

/** A Litestream configuration with a file replica in `replicaDir`, its figures on `metricsPort`. */
export function writeLitestreamConfig(
  path: string,
  databasePath: string,
  replicaDir: string,
  metricsPort: number,
  syncMs = SYNC_MS,
  monitorMs = MONITOR_MS,
): string {
  writeFileSync(
    path,
    [
      `addr: 127.0.0.1:${metricsPort}`,
      'dbs:',
      `  - path: ${databasePath}`,
      `    monitor-interval: ${monitorMs}ms`,
      '    replicas:',
      '      - type: file',
      `        path: ${replicaDir}`,
      `        sync-interval: ${syncMs}ms`,
      '',
    ].join('\n'),
  );
  return path;
}

export interface Replicated {
  litestream: ChildProcess;
  /** The server's process (Litestream's child), from the mark it writes beside the database. */
  serverPid: number;
  url: string;
  output(): string;
  exited: Promise<number | null>;
}

/** The server command: as the tests start it (the build when current, else through tsx: ./entry.ts), or the build with `npm start`'s memory flags (the bench). */
export function serverCommand(compiled: boolean): string[] {
  return compiled
    ? [
        process.execPath,
        '--max-old-space-size=512',
        '--max-semi-space-size=4',
        join(PACKAGE_ROOT, COVERAGE_RUN ? 'dist/src/main.js' : 'dist/bundle/main.js'),
      ]
    : [process.execPath, ...MAIN];
}

/** `litestream replicate -config … -exec "<server>"`, as docs/operations.md runs it; resolves once GET /readyz answers 200. */
export async function startReplicated(options: {
  binary: string;
  configPath: string;
  databasePath: string;
  port: number;
  env: Record<string, string>;
  compiled?: boolean;
  /** How long to wait for readiness (the first snapshot of a large database is uploaded first). */
  readyWithinMs?: number;
}): Promise<Replicated> {
  const exec = serverCommand(options.compiled ?? false)
    .map((part) => `'${part}'`)
    .join(' ');
  const litestream = spawn(options.binary, ['replicate', '-config', options.configPath, '-exec', exec], {
    cwd: PACKAGE_ROOT,
    env: {
      ...process.env,
      ...options.env,
      LITESTREAM_CONFIG: options.configPath,
      DATABASE_PATH: options.databasePath,
      PORT: String(options.port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  litestream.stdout!.on('data', (c) => (out += c));
  litestream.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => litestream.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    async () => {
      if (gone) throw new Error(`litestream exited: ${out}`);
      return (await send(url, 'GET', '/readyz').catch(() => null))?.status === 200;
    },
    options.readyWithinMs ?? 30_000,
    `the replicated server to be ready (${out})`,
  );
  const serverPid = Number(readFileSync(`${options.databasePath}.server-pid`, 'utf8').trim());
  return { litestream, serverPid, url, output: () => out, exited };
}

/** `litestream restore -o <to> file://<replicaDir>`: the time it took. */
export function restoreReplica(binary: string, replicaDir: string, to: string): number {
  const started = performance.now();
  const run = spawnSync(binary, ['restore', '-o', to, `file://${replicaDir}`], { encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) throw new Error(`litestream restore failed: ${run.stderr}`);
  return performance.now() - started;
}

/**
 * Polls Litestream's figures (every `everyMs`) and keeps the replication lag they show: the
 * same reading the server's GET /readyz makes.
 */
export function watchLag(metricsPort: number, databasePath: string, everyMs = 50) {
  const tracker = new LagTracker();
  const samples: number[] = [];
  let last: Figures | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => null);
      if (res?.ok) {
        const figures = readFigures(await res.text(), databasePath);
        if (figures) {
          last = figures;
          samples.push(tracker.observe(performance.now(), figures));
        }
      }
      await sleep(everyMs);
    }
  })();
  return {
    samples,
    last: () => last,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** A server process (no Litestream) over `databasePath`: resolves once GET /readyz answers 200. */
export async function startPlain(databasePath: string, port: number, env: Record<string, string> = {}) {
  const [command, ...args] = serverCommand(false) as [string, ...string[]];
  const child = spawn(command, args, {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: databasePath, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await until(async () => (await send(url, 'GET', '/readyz').catch(() => null))?.status === 200, 30_000, `the server (${out})`);
  return { child, url, output: () => out, exited };
}
