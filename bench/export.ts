/*
 * The whole-workspace export's figures (issue 37 item 4), part of `npm run bench` (after
 * bench/import.ts): `timetrack export` of the benchmark dataset's workspace (1,000,000 entries,
 * 2,000 projects, 50 tags; bench/seed.ts) as `npm start` runs the compiled code, timed, with the
 * exporting process's RSS sampled every 100 ms (flat memory: the RSS at each quarter of the run
 * and its peak), then the query plan of the export's page query on that dataset. The target:
 * at least 100,000 rows/s with flat memory. Nothing leaves the machine.
 *
 *   BENCH_ENTRIES=1000000 npm run bench      (BENCH_ONLY=export runs this part only)
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { cachedDataset, SIZES } from './seed.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.env.BENCH_ONLY ?? '';
const sizes = { ...SIZES, entries: Number(process.env.BENCH_ENTRIES ?? SIZES.entries) };
const TARGET_ROWS_PER_SEC = 100_000;

/** A process's resident set now (VmRSS) and its peak so far (VmHWM), in MB. */
function rss(pid: number): { now: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (key: string) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
    return { now: mb('VmRSS'), peak: mb('VmHWM') };
  } catch {
    return { now: 0, peak: 0 };
  }
}

interface Run {
  ms: number;
  json: { entries: number; clients: number; projects: number; tasks: number; tags: number; bytes: number };
  samples: number[];
  peakMb: number;
}

/** `timetrack export …` compiled, as npm start runs node, with its RSS sampled. */
async function exportRun(databasePath: string, workspaceId: string, out: string): Promise<Run> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--max-old-space-size=512',
      '--max-semi-space-size=4',
      join(root, 'dist/src/main.js'),
      'export',
      '--workspace',
      workspaceId,
      '--out',
      out,
      '--json',
    ],
    { env: { ...process.env, DATABASE_PATH: databasePath }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const samples: number[] = [];
  let peakMb = 0;
  const timer = setInterval(() => {
    const { now, peak } = rss(child.pid as number);
    if (now > 0) samples.push(now);
    peakMb = Math.max(peakMb, peak);
  }, 100);
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  if (code !== 0) throw new Error(`timetrack export exited ${code}: ${stdout}`);
  return { ms: performance.now() - started, json: JSON.parse(stdout) as Run['json'], samples, peakMb };
}

/** The export's page query (src/modules/entries/repository/imports.ts) and SQLite's plan of it on the dataset. */
function plan(databasePath: string, workspaceId: string): string[] {
  const db = new Database(databasePath, { readonly: true });
  try {
    const sql = `SELECT rowid, id, author_id, description, project_id, task_id, billable, start_at, end_at, hourly_rate, time_zone, tag_list
       FROM entries NOT INDEXED
       WHERE rowid > ? AND workspace_id = ? AND end_at IS NOT NULL AND start_at >= ? AND start_at < ?
       ORDER BY rowid LIMIT ?`;
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0, workspaceId, -2208988800000, 253370764800000, 1000) as Array<{
      detail: string;
    }>;
    return rows.map((r) => r.detail);
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  if (only !== '' && !'export'.includes(only)) return;
  const build = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the build failed');
  const { path: cached, data } = cachedDataset(sizes);
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-export-'));
  try {
    const databasePath = join(dir, 'timetrack.db');
    copyFileSync(cached, databasePath);
    console.log(`\nexport benchmark: the dataset's workspace, ${sizes.entries.toLocaleString('en')} entries, node ${process.version}\n`);
    console.log(`page query plan: ${plan(databasePath, data.workspaceId).join('; ')}\n`);
    const runs: Run[] = [];
    for (let i = 0; i < 2; i++) runs.push(await exportRun(databasePath, data.workspaceId, join(dir, `export-${i}.csv`)));
    console.log('| run | wall s | entries | rows/s | MB written | RSS at 25 / 50 / 75 / 100 % of the run, MB | peak RSS MB |');
    console.log('|---|---|---|---|---|---|---|');
    runs.forEach((run, i) => {
      const at = (share: number) => run.samples[Math.min(run.samples.length - 1, Math.floor(share * (run.samples.length - 1)))] ?? 0;
      const perSec = Math.round(run.json.entries / (run.ms / 1000));
      console.log(
        `| ${i === 0 ? 'first (cold cache)' : 'second'} | ${(run.ms / 1000).toFixed(1)} | ${run.json.entries.toLocaleString('en')} | ${perSec.toLocaleString('en')} | ${Math.round(run.json.bytes / 1024 / 1024)} | ${[0.25, 0.5, 0.75, 1].map(at).join(' / ')} | ${run.peakMb} |`,
      );
    });
    const best = Math.max(...runs.map((run) => run.json.entries / (run.ms / 1000)));
    console.log(
      `\n${Math.round(best).toLocaleString('en')} rows/s (the process's whole life, start included): ≥ ${TARGET_ROWS_PER_SEC.toLocaleString('en')}: ${best >= TARGET_ROWS_PER_SEC ? 'met' : '**not met**'}; file ${Math.round(statSync(join(dir, 'export-1.csv')).size / 1024 / 1024)} MB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
