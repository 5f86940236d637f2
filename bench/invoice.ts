/*
 * Invoicing a month of a 50-member team (issue 35; target: creating the invoice < 1 s): the
 * 1,000,000-entry bench dataset (bench/seed.ts, cached) plus one client whose 10 projects got
 * BENCH_INVOICE_ENTRIES (20,000) billable entries in October 2026 from the 50 members. Times the
 * service calls the command line and the pages make (preview, create by project and by entry,
 * issue, void of a draft and of an issued invoice, each committed on its own connection with the
 * command line's settings; median and highest of BENCH_ROUNDS), then `timetrack invoice create`
 * and `invoice status` as processes, and prints SQLite's plan of every statement invoicing ran on
 * that database. Nothing here uses the network.
 *
 *   npx tsx bench/invoice.ts    (BENCH_INVOICE_ENTRIES=20000 BENCH_ROUNDS=5 BENCH_ENTRIES=1000000;
 *                               the last part of `npm run bench`, alone with BENCH_ONLY=invoice)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { ManualClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { amountCents } from '../src/kernel/money.js';
import { OPERATOR } from '../src/principal.js';
import { createServices } from '../src/services.js';
import { cachedDataset, NOW, SIZES } from './seed.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.env.BENCH_ONLY ?? '';
const ENTRIES = Number(process.env.BENCH_INVOICE_ENTRIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The dataset's size (BENCH_ENTRIES, as bench/run.ts reads it). */
const sizes = { ...SIZES, entries: Number(process.env.BENCH_ENTRIES ?? SIZES.entries) };
const MEMBERS = 50;
const FROM = '2026-10-01';
const TO = '2026-10-31';

/** Every statement the entries and invoices repositories prepare, with the parameters of its first run. */
function recordStatements(sqlite: Database.Database): Map<string, unknown[]> {
  const seen = new Map<string, unknown[]>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    if (!/\/src\/modules\/(entries|invoices)\/repository/.test(new Error().stack ?? '')) return statement;
    if (!seen.has(source)) seen.set(source, []);
    const target = statement as unknown as Record<'run' | 'get' | 'all', (...args: unknown[]) => unknown>;
    for (const method of ['run', 'get', 'all'] as const) {
      const original = target[method].bind(statement);
      target[method] = (...args: unknown[]) => {
        if ((seen.get(source) as unknown[]).length === 0 && args.length > 0) seen.set(source, args);
        return original(...args);
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
  return seen;
}

interface Timing {
  medianMs: number;
  maxMs: number;
  /** This process's CPU time (user + system), median: what the call costs whatever else runs on the machine. */
  cpuMs: number;
}

/** Median and highest of `rounds` timings of `fn` (ms, wall and CPU), after `before` each time (not timed). */
function timed(rounds: number, fn: () => void, before: () => void = () => {}): Timing {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < rounds; i++) {
    before();
    const cpu = process.cpuUsage();
    const started = performance.now();
    fn();
    walls.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number);
  return { medianMs: median(walls), maxMs: Math.round(Math.max(...walls)), cpuMs: median(cpus) };
}

async function main(): Promise<void> {
  // `npm run bench` runs it last; BENCH_ONLY=invoice runs only this part.
  if (!'invoice'.includes(only)) return;
  const { path: cached, data } = cachedDataset(sizes);
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-invoice-'));
  const databasePath = join(dir, 'timetrack.db');
  copyFileSync(cached, databasePath);
  try {
    const database = openDatabase(databasePath);
    const statements = recordStatements(database.sqlite);
    const clock = new ManualClock(NOW);
    const services = createServices(database, { clock, secretKey: randomBytes(32), defaultTimeZone: 'UTC' });
    const { accounts, tokens, catalog, invoices } = services;
    const owner = tokens.authenticate(data.ownerToken)!.actor;
    const workspaceId = data.workspaceId;
    const memberIds = accounts.listMembers(OPERATOR, workspaceId).map((m) => m.userId);
    const userId = owner.userId;
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    // What an issued invoice's PDF needs of its issuer (issuing checks it first).
    invoices.setBusinessProfile(OPERATOR, workspaceId, { legalName: 'Bench Studio', country: 'DE', taxNumber: '30/123/45678' });
    const clientId = catalog.clients.create(owner, { name: 'Invoice bench client', city: 'Berlin', country: 'DE' }).id;
    const projectIds = Array.from(
      { length: 10 },
      (_, i) => catalog.projects.create(owner, { name: `Invoiced ${i}`, clientId, billable: true, hourlyRate: i % 2 ? 120 : 95 }).id,
    );

    // A month of the team: each member's entries on the working days of October, 9:00 onwards.
    const insert = database.sqlite.prepare(
      `INSERT INTO entries (id, workspace_id, author_id, description, project_id, billable, start_at, end_at, duration_sec,
         hourly_rate, amount_cents, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, 'api', ?, ?)`,
    );
    const days = Array.from({ length: 31 }, (_, d) => Date.UTC(2026, 9, d + 1)).filter((ms) => ![0, 6].includes(new Date(ms).getUTCDay()));
    const perMemberDay = Math.ceil(ENTRIES / (MEMBERS * days.length));
    database.sqlite.transaction(() => {
      for (let n = 0; n < ENTRIES; n++) {
        const member = n % MEMBERS;
        const slot = Math.floor(n / MEMBERS);
        const day = days[Math.floor(slot / perMemberDay) % days.length] as number;
        const start = day + 9 * 3_600_000 + (slot % perMemberDay) * 25 * 60_000;
        const durationSec = 600 + ((n * 37) % 900);
        const project = n % projectIds.length;
        const rate = project % 2 ? 120 : 95;
        insert.run(
          `ent_inv${n.toString(36).padStart(6, '0')}${randomBytes(5).toString('hex')}`,
          workspaceId,
          memberIds[member],
          `Work item ${n % 313}`,
          projectIds[project],
          start,
          start + durationSec * 1000,
          durationSec,
          rate,
          amountCents(true, rate, durationSec),
          start,
          start,
        );
      }
    })();
    database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const monthEntries = database.sqlite
      .prepare('SELECT count(*) FROM entries WHERE workspace_id = ? AND start_at >= ? AND start_at < ?')
      .pluck()
      .get(workspaceId, Date.UTC(2026, 9, 1), Date.UTC(2026, 10, 1)) as number;

    const input = { workspaceId, userId, clientId, from: FROM, to: TO };
    const rows: Array<[string, Timing, string]> = [];
    let id = '';
    const create = (groupBy: 'project' | 'entry') => () => {
      id = invoices.create(OPERATOR, { ...input, groupBy }).id;
    };
    const voidIt = () => invoices.void(OPERATOR, id, { userId });
    const issue = () => invoices.issue(OPERATOR, id, { userId });
    /** Voids the last invoice unless it is void already: its entries are free again. */
    const release = () => {
      if (id !== '' && ['draft', 'sent'].includes(invoices.get(OPERATOR, id).status)) voidIt();
    };
    const fresh =
      (then: () => unknown = () => {}) =>
      () => {
        release();
        create('project')();
        then();
      };
    const preview = invoices.preview(OPERATOR, input);
    rows.push([
      'preview (by project), nothing written',
      timed(ROUNDS, () => invoices.preview(OPERATOR, input)),
      `${preview.lines.length} lines`,
    ]);
    rows.push(['create by project (marks the entries)', timed(ROUNDS, create('project'), release), `${preview.entryCount} entries`]);
    rows.push(['void a draft (releases the entries)', timed(ROUNDS, voidIt, fresh()), '']);
    const byEntry = timed(ROUNDS, create('entry'), release);
    rows.push(['create by entry (one line per entry)', byEntry, `${invoices.get(OPERATOR, id).lines.length} lines`]);
    rows.push(['issue (number, dates, terms)', timed(ROUNDS, issue, fresh()), '']);
    rows.push(['void an issued invoice (credit note, release)', timed(ROUNDS, voidIt, fresh(issue)), '']);
    release();
    const issued = invoices.list(OPERATOR, workspaceId).length;
    database.close();

    // The command line as a self-hoster runs it (a process each, its start included).
    const cli = (...argv: string[]) => {
      const started = performance.now();
      const out = execFileSync(process.execPath, ['bin/timetrack.js', ...argv, '--json'], {
        cwd: root,
        env: { ...process.env, DATABASE_PATH: databasePath },
        encoding: 'utf8',
      });
      return { ms: Math.round(performance.now() - started), json: JSON.parse(out) as { id: string } };
    };
    const made = cli('invoice', 'create', '--workspace', workspaceId, '--user', userId, '--client', clientId, '--from', FROM, '--to', TO);
    const shown = cli('invoice', 'show', made.json.id);
    const voided = cli('invoice', 'status', made.json.id, '--to', 'void', '--user', userId);

    console.log(
      `\nInvoicing a month of a ${MEMBERS}-member team: ${preview.entryCount} entries of one client in October 2026 (${monthEntries} entries of the workspace that month, 1M in the database); ${ROUNDS} rounds, ${issued} invoices made:\n`,
    );
    console.log(
      `(load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} on ${availableParallelism()} cores)\n`,
    );
    console.log('| call | median ms | highest ms | median CPU ms | |');
    console.log('|---|---|---|---|---|');
    for (const [what, t, note] of rows) console.log(`| ${what} | ${t.medianMs} | ${t.maxMs} | ${t.cpuMs} | ${note} |`);
    console.log(`| \`timetrack invoice create\` (a process, its start included) | ${made.ms} | | | |`);
    console.log(`| \`timetrack invoice show --json\` | ${shown.ms} | | | |`);
    console.log(`| \`timetrack invoice status --to void\` | ${voided.ms} | | | |`);

    // The plans of every statement invoicing ran, on this database.
    const check = openDatabase(databasePath, { readOnly: true });
    console.log('\nQuery plans (EXPLAIN QUERY PLAN on this database):\n');
    for (const [source, params] of statements) {
      if (!/invoice/.test(source)) continue;
      const args = params.length > 0 ? params : Array.from(source.matchAll(/\?/g), () => null);
      const plan = check.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...args) as Array<{ detail: string }>;
      console.log(`${source.replace(/\s+/g, ' ').slice(0, 160)}${source.length > 160 ? ' …' : ''}`);
      for (const step of plan) console.log(`    ${step.detail}`);
    }
    check.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
