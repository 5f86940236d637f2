/*
 * The import's figures (issue 23), part of `npm run bench` (after bench/run.ts): a Toggl detailed
 * report of BENCH_IMPORT_ROWS rows (1,000,000 by default; 50 members, 2,000 projects under 100
 * clients, realistic descriptions and tags) imported by `timetrack import` as `npm start` runs
 * the compiled code: a dry run, the import, the same file again (all duplicates), each with its
 * wall time and the importing process's peak RSS; then the server's point reads and a point
 * write measured alone and while an import writes into its database. Loopback only.
 *
 *   BENCH_IMPORT_ROWS=1000000 npm run bench      (BENCH_ONLY=import runs this part only)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { OPERATOR } from '../src/principal.js';
import { createServices } from '../src/services.js';
import { IMPORT_ALONE_WRITE_MS, IMPORT_SHARED_WRITE_MS } from '../src/modules/imports/service.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.env.BENCH_ONLY ?? '';
const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const MEMBERS = 50;
const CLIENTS = 100;
const PROJECTS = 2000;
const WORDS = [
  'Design',
  'review',
  'of the',
  'landing page',
  'call with',
  'client',
  'fix',
  'bug in',
  'invoice',
  'export',
  'sprint',
  'planning',
  'standup',
  'API',
  'docs',
  'onboarding',
  'research',
  'support ticket',
  'refactor',
  'tests',
];
const TAGS = Array.from({ length: 40 }, (_, i) => `tag-${i}`);

interface Run {
  ms: number;
  peakRssMb: number;
  json: Record<string, unknown>;
}

/** A deterministic pseudo-random sequence (the same file on every run). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function writeTogglFile(path: string, count: number): Promise<void> {
  const next = random(42);
  const out = createWriteStream(path);
  const write = (line: string) => (out.write(line) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)\n');
  const start = Date.UTC(2022, 0, 3);
  const pad = (n: number) => String(n).padStart(2, '0');
  for (let i = 0; i < count; i++) {
    const member = i % MEMBERS;
    const project = Math.floor(next() * PROJECTS);
    // Exports are sorted by start, as the tools write them.
    const day = new Date(start + Math.floor((i / count) * 1400) * 86_400_000);
    const date = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`;
    const from = 8 * 60 + Math.floor(next() * 8 * 60);
    const length = 15 + Math.floor(next() * 180);
    const to = from + length;
    const words = Array.from({ length: 2 + Math.floor(next() * 5) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
    const tags = Array.from({ length: Math.floor(next() * 4) }, () => TAGS[Math.floor(next() * TAGS.length)]).join(', ');
    const task = next() < 0.3 ? `Task ${project % 7}` : '';
    await write(
      `Member ${member},member${member}@example.org,Client ${project % CLIENTS},Project ${project},${task},"${words} #${i}",${next() < 0.7 ? 'Yes' : 'No'},${date},${pad(Math.floor(from / 60))}:${pad(from % 60)}:00,${date},${pad(Math.floor(to / 60) % 24)}:${pad(to % 60)}:00,${pad(Math.floor(length / 60))}:${pad(length % 60)}:00,"${tags}",\n`,
    );
  }
  await new Promise<void>((resolve) => out.end(resolve));
}

/** A database with a workspace and its 50 members, and a token of the owner for the server. */
function prepareDatabase(path: string): { workspaceId: string; token: string } {
  const database = openDatabase(path);
  const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
  const { id: workspaceId } = services.accounts.createWorkspace(OPERATOR, { name: 'Import bench', currency: 'EUR' });
  let ownerId = '';
  for (let i = 0; i < MEMBERS; i++) {
    const { id } = services.accounts.createUser(OPERATOR, { name: `Member ${i}`, email: `member${i}@example.org` });
    services.accounts.addMember(OPERATOR, {
      workspaceId,
      userId: id,
      isOwner: i === 0,
      canViewOthersTime: i === 0,
      canViewOthersMoney: i === 0,
    });
    if (i === 0) ownerId = id;
  }
  const { token } = services.tokens.create(OPERATOR, {
    workspaceId,
    userId: ownerId,
    name: 'bench',
    scopes: ['entries:read', 'entries:write'],
    expiresAt: null,
    rateLimitPerMin: 1_000_000_000,
  });
  database.close();
  return { workspaceId, token };
}

/** The peak RSS of a process so far (VmHWM), in MB. */
function peakRss(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** `timetrack import …` as `npm start` runs the code (compiled, node's flags of npm start), timed, its peak RSS followed. */
async function timetrack(databasePath: string, args: string[]): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--max-old-space-size=512', join(root, 'dist/src/main.js'), ...args, '--json'], {
    env: { ...process.env, DATABASE_PATH: databasePath },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, peakRss(child.pid as number))), 50);
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  if (code !== 0) throw new Error(`timetrack ${args.join(' ')} exited ${code}: ${stdout}`);
  return { ms: performance.now() - started, peakRssMb: peak, json: JSON.parse(stdout) as Record<string, unknown> };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function startServer(databasePath: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--max-old-space-size=512', '--max-semi-space-size=4', join(root, 'dist/src/main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_WORKSPACE_PER_MIN: '1000000000',
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`${url}/healthz`);
      return { child, url };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('the server did not start');
}

interface Point {
  readP99: number;
  readPerSec: number;
  writeP99: number;
  writeMax: number;
}

/** Point reads (GET /entries/{id}, 4 connections) and point writes (POST /entries, 1 connection), 5 s each at once. */
async function points(url: string, token: string, entryId: string): Promise<Point> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let n = 0;
  const [read, write] = await Promise.all([
    autocannon({ url: `${url}/api/v1/entries/${entryId}`, connections: 4, duration: 5, headers }),
    autocannon({
      url: `${url}/api/v1/entries`,
      method: 'POST',
      connections: 1,
      duration: 5,
      headers,
      setupClient: (client) => {
        client.setBody(
          JSON.stringify({
            start: new Date(Date.UTC(2021, 0, 1) + (n += 1) * 3_600_000).toISOString(),
            end: new Date(Date.UTC(2021, 0, 1) + n * 3_600_000 + 60_000).toISOString(),
          }),
        );
      },
    }),
  ]);
  return {
    readP99: read.latency.p99,
    readPerSec: Math.round(read.requests.average),
    writeP99: write.latency.p99,
    writeMax: write.latency.max,
  };
}

async function main(): Promise<void> {
  if (only !== '' && !'import'.includes(only)) return;
  const build = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the build failed');
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-import-'));
  try {
    const file = join(dir, 'toggl.csv');
    const made = performance.now();
    await writeTogglFile(file, rows);
    console.log(
      `\nimport benchmark: a Toggl file of ${rows.toLocaleString('en')} rows (${Math.round(statSync(file).size / 1024 / 1024)} MB, written in ${Math.round((performance.now() - made) / 1000)} s), node ${process.version}\n`,
    );
    const fresh = join(dir, 'fresh.db');
    const { workspaceId, token } = prepareDatabase(fresh);
    const databasePath = join(dir, 'timetrack.db');
    copyFileSync(fresh, databasePath);
    const args = ['import', file, '--workspace', workspaceId, '--time-zone', 'Europe/Berlin'];
    if (process.env.BENCH_IMPORT_KEEP) {
      // For profiling: the file and the database kept, the command printed, nothing measured.
      copyFileSync(file, join(process.env.BENCH_IMPORT_KEEP, 'toggl.csv'));
      copyFileSync(fresh, join(process.env.BENCH_IMPORT_KEEP, 'timetrack.db'));
      console.log(
        `DATABASE_PATH=${process.env.BENCH_IMPORT_KEEP}/timetrack.db timetrack ${args.join(' ').replace(file, `${process.env.BENCH_IMPORT_KEEP}/toggl.csv`)}`,
      );
      return;
    }

    const dry = await timetrack(databasePath, [...args, '--dry-run']);
    const first = await timetrack(databasePath, args);
    const again = await timetrack(databasePath, args);
    const perSec = (run: Run) => Math.round(rows / (run.ms / 1000));
    console.log('| run | wall s | rows/s | peak RSS MB | imported | duplicates |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, run] of [
      ['--dry-run', dry],
      ['import', first],
      ['the same file again', again],
    ] as const) {
      console.log(
        `| ${name} | ${(run.ms / 1000).toFixed(1)} | ${perSec(run).toLocaleString('en')} | ${run.peakRssMb} | ${String(run.json.imported)} | ${String(run.json.duplicates)} |`,
      );
    }
    console.log(
      `\ndry run ${(first.ms / dry.ms).toFixed(1)}× as fast as the import; rows are written in transactions of at most ${IMPORT_ALONE_WRITE_MS} ms each (${IMPORT_SHARED_WRITE_MS} ms while a server runs on the database).`,
    );

    // The server's point reads and writes, alone and while an import writes into its database.
    const serverDb = join(dir, 'server.db');
    copyFileSync(fresh, serverDb);
    const server = await startServer(serverDb);
    try {
      const seedEntry = await fetch(`${server.url}/api/v1/entries`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ start: '2020-06-01T09:00:00Z', end: '2020-06-01T10:00:00Z' }),
      });
      const entryId = ((await seedEntry.json()) as { data: { id: string } }).data.id;
      const alone = await points(server.url, token, entryId);
      const importing = timetrack(serverDb, args);
      await new Promise((r) => setTimeout(r, 15_000)); // past its reading and checking, into its writes
      const during = await points(server.url, token, entryId);
      const beside = await importing;
      console.log('\n| server beside | point read req/s | point read p99 ms | point write p99 ms | point write max ms |');
      console.log('|---|---|---|---|---|');
      console.log(`| nothing | ${alone.readPerSec} | ${alone.readP99} | ${alone.writeP99} | ${alone.writeMax} |`);
      console.log(`| an import writing | ${during.readPerSec} | ${during.readP99} | ${during.writeP99} | ${during.writeMax} |`);
      console.log(
        `\nthe import beside the server (writes of at most ${IMPORT_SHARED_WRITE_MS} ms): ${(beside.ms / 1000).toFixed(1)} s, ${perSec(beside).toLocaleString('en')} rows/s, peak RSS ${beside.peakRssMb} MB`,
      );
    } finally {
      server.child.kill('SIGTERM');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
