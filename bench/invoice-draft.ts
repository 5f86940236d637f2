/*
 * A month's draft with expenses, and its PDF (issue 57; targets: the draft < 1 s, its PDF < 1 s):
 * the 1,000,000-entry bench dataset (bench/seed.ts, cached) plus one client whose 10 projects (half
 * at 19 %, half at their own 7 %) got BENCH_INVOICE_ENTRIES (20,000) billable entries in October
 * 2026 from the 50 members, and BENCH_EXPENSES (200) billable expenses that month, each added
 * through the expenses service (every fourth with a receipt). Times, p50 and highest of
 * BENCH_ROUNDS, each round on a fresh draft (the last one voided first, untimed): the draft made
 * from the invoices page's service call (time and expenses, a line per project), and that draft's
 * PDF. Then SQLite's plan (EXPLAIN QUERY PLAN on this database) of every statement of the expenses
 * repository, and of the invoices repository's reads that the Overdue view and the reminders add,
 * each run once with real parameters: docs/benchmarks.md keeps the table. Nothing here uses the
 * network.
 *
 *   npx tsx bench/invoice-draft.ts    (BENCH_INVOICE_ENTRIES=20000 BENCH_EXPENSES=200 BENCH_ROUNDS=5
 *                                     BENCH_ENTRIES=1000000)
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { ManualClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { amountCents } from '../src/kernel/money.js';
import { createExpensesRepository } from '../src/modules/expenses/repository.js';
import { createInvoicesRepository } from '../src/modules/invoices/repository.js';
import { OPERATOR } from '../src/principal.js';
import { createServices } from '../src/services.js';
import { cachedDataset, NOW, SIZES } from './seed.js';

const ENTRIES = Number(process.env.BENCH_INVOICE_ENTRIES ?? 20_000);
const EXPENSES = Number(process.env.BENCH_EXPENSES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** The dataset's size (BENCH_ENTRIES, as bench/run.ts reads it). */
const sizes = { ...SIZES, entries: Number(process.env.BENCH_ENTRIES ?? SIZES.entries) };
const MEMBERS = 50;
const FROM = '2026-10-01';
const TO = '2026-10-31';
const TARGET_MS = 1000;

/** The statements of the expenses and invoices repositories, in the order first prepared, with the parameters of their first run. */
function recordStatements(sqlite: Database.Database): Map<string, { module: string; params: unknown[] }> {
  const seen = new Map<string, { module: string; params: unknown[] }>();
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    const module = /\/src\/modules\/(expenses|invoices)\/repository/.exec(new Error().stack ?? '')?.[1];
    if (module === undefined) return statement;
    if (!seen.has(source)) seen.set(source, { module, params: [] });
    const target = statement as unknown as Record<'run' | 'get' | 'all', (...args: unknown[]) => unknown>;
    for (const method of ['run', 'get', 'all'] as const) {
      const original = target[method].bind(statement);
      target[method] = (...args: unknown[]) => {
        const known = seen.get(source) as { params: unknown[] };
        if (known.params.length === 0 && args.length > 0) known.params = args;
        return original(...args);
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
  return seen;
}

interface Timing {
  p50: number;
  max: number;
  /** This process's CPU time (user + system), p50: what the call costs whatever else runs on the machine. */
  cpu: number;
}

const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number);

/** p50 and highest of `rounds` timings of `fn` (ms, wall and CPU), after `before` each time (not timed). */
async function timed(rounds: number, fn: () => unknown, before: () => unknown = () => {}): Promise<Timing> {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await before();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await fn();
    walls.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  return { p50: median(walls), max: Math.round(Math.max(...walls)), cpu: median(cpus) };
}

/** A small real PNG (1×1, grey): what a receipt's bytes look like to the checks. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgYGAAAAAEAAEnNCcKAAAAAElFTkSuQmCC', 'base64');

async function main(): Promise<void> {
  const { path: cached, data } = cachedDataset(sizes);
  const dir = mkdtempSync(join(tmpdir(), 'timetrack-bench-draft-'));
  const databasePath = join(dir, 'timetrack.db');
  copyFileSync(cached, databasePath);
  try {
    const database = openDatabase(databasePath);
    const statements = recordStatements(database.sqlite);
    const clock = new ManualClock(NOW);
    const services = createServices(database, { clock, secretKey: randomBytes(32), defaultTimeZone: 'UTC' });
    const { accounts, tokens, catalog, invoices, expenses } = services;
    const owner = tokens.authenticate(data.ownerToken)!.actor;
    const workspaceId = data.workspaceId;
    const memberIds = accounts.listMembers(OPERATOR, workspaceId).map((m) => m.userId);
    const userId = owner.userId;
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    // What an invoice's PDF needs of its issuer (a draft's PDF is checked as issuing will check it).
    invoices.setBusinessProfile(OPERATOR, workspaceId, { legalName: 'Bench Studio', country: 'DE', taxNumber: '30/123/45678' });
    const clientId = catalog.clients.create(owner, { name: 'Draft bench client', city: 'Berlin', country: 'DE' }).id;
    const projectIds = Array.from(
      { length: 10 },
      (_, i) => catalog.projects.create(owner, { name: `Drafted ${i}`, clientId, billable: true, hourlyRate: i % 2 ? 120 : 95 }).id,
    );
    // Half the projects at their own 7 % (a book's text), half at the invoice's 19 %: two rows of the VAT breakdown.
    for (const [i, id] of projectIds.entries())
      if (i % 2 === 1) invoices.setWorkTax(OPERATOR, workspaceId, { kind: 'project', id }, { taxCategory: 'S', taxRate: '7' });

    // A month of the team: each member's entries on the working days of October, 9:00 onwards (as bench/invoice.ts).
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
          `ent_drf${n.toString(36).padStart(6, '0')}${randomBytes(5).toString('hex')}`,
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
    // The month's expenses, each through the service as the page and `timetrack expense add` add it.
    for (let n = 0; n < EXPENSES; n++)
      expenses.add(
        OPERATOR,
        {
          workspaceId,
          authorId: memberIds[n % MEMBERS],
          day: `2026-10-${String((n % 31) + 1).padStart(2, '0')}`,
          description: `Travel ${n}`,
          amount: `${10 + (n % 90)}.${String(n % 100).padStart(2, '0')}`,
          projectId: projectIds[n % projectIds.length],
          ...(n % 5 === 0 ? { taxCategory: 'S', taxRate: '7' } : {}),
        },
        n % 4 === 0 ? { name: `ticket-${n}.png`, bytes: PNG } : null,
      );
    database.sqlite.pragma('wal_checkpoint(TRUNCATE)');

    const input = { workspaceId, userId, clientId, from: FROM, to: TO };
    let id = '';
    /** Voids the last draft: its entries and expenses are free again. */
    const release = () => {
      if (id !== '' && invoices.get(OPERATOR, id).status === 'draft') invoices.void(OPERATOR, id, { userId });
    };
    const draft = await timed(
      ROUNDS,
      () => {
        id = invoices.create(OPERATOR, input).id;
      },
      release,
    );
    const made = invoices.get(OPERATOR, id);
    const expenseLines = made.lines.filter((l) => l.description.includes('Travel')).length;
    let pdfBytes = 0;
    const pdf = await timed(ROUNDS, async () => {
      pdfBytes = (await invoices.document(OPERATOR, id, 'pdf')).bytes.length;
    });

    console.log(
      `\nA draft of a month of a ${MEMBERS}-member team with expenses: ${ENTRIES} entries and ${EXPENSES} expenses of one client in October 2026 (${sizes.entries.toLocaleString('en')} entries in the dataset); p50 of ${ROUNDS}:\n`,
    );
    console.log(
      `(load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} on ${availableParallelism()} cores)\n`,
    );
    const verdict = (t: Timing) => (t.p50 < TARGET_MS ? 'met' : '**not met**');
    console.log('| call | p50 ms | highest ms | p50 CPU ms | target | |');
    console.log('|---|---|---|---|---|---|');
    console.log(
      `| the draft (time and expenses, a line per project) | ${draft.p50} | ${draft.max} | ${draft.cpu} | < ${TARGET_MS} ms: ${verdict(draft)} | ${made.lines.length} lines (${expenseLines} of expenses), ${made.taxBreakdown?.length ?? 0} VAT rows |`,
    );
    console.log(
      `| its PDF (marked DRAFT) | ${pdf.p50} | ${pdf.max} | ${pdf.cpu} | < ${TARGET_MS} ms: ${verdict(pdf)} | ${pdfBytes.toLocaleString('en')} bytes |`,
    );

    // What the Overdue view and the reminders read: the draft issued, partly paid, its due date past.
    invoices.issue(OPERATOR, id, { userId });
    invoices.pay(OPERATOR, id, { amount: '100', date: '2026-11-01', userId });
    invoices.setSettings(OPERATOR, workspaceId, { reminders: '7, 21' });
    clock.advance(40 * 86_400_000);
    invoices.overdue(owner, workspaceId);
    invoices.reminders(owner, id);
    // The reminders' tick reads these (it stops before them with mail off, as here): the same repository's calls.
    const invoicesRepo = createInvoicesRepository(database.db);
    invoicesRepo.remindable('2026-12-11');
    invoicesRepo.sends(id);
    // The expenses repository's other reads, with parameters a page or command gives them.
    const expensesRepo = createExpensesRepository(database.db);
    const one = expensesRepo.ofInvoice(id)[0];
    expenses.list(owner, { from: FROM, to: TO });
    expenses.list(owner, { from: FROM, to: TO, projectId: projectIds[0] });
    expensesRepo.list({ workspaceId, fromDay: FROM, toDay: TO, authorId: memberIds[1] as string });
    expensesRepo.byIdAnywhere(one?.id ?? '');
    expensesRepo.receipt(one?.id ?? '');
    expensesRepo.count(workspaceId);
    // Its writes by id (the page's edit and delete), on an id no expense has: planned and run, nothing changed.
    expensesRepo.byId(workspaceId, 'exp_none');
    expensesRepo.update('exp_none', { description: 'none' });
    expensesRepo.removeReceipt('exp_none');
    expensesRepo.delete('exp_none');
    database.close();

    const check = openDatabase(databasePath, { readOnly: true });
    const counts = ['entries', 'expenses', 'expense_receipts', 'invoices', 'invoice_payments', 'invoice_reminders']
      .map((table) => `${table} ${(check.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number).toLocaleString('en')}`)
      .join(', ');
    console.log(`\nQuery plans (EXPLAIN QUERY PLAN on this database: ${counts}):\n`);
    for (const [source, { module, params }] of statements) {
      if (module === 'invoices' && !/invoice_reminders|invoice_sends|invoice_settings|"invoices"\."status" = \?/.test(source)) continue;
      const args = params.length > 0 ? params : Array.from(source.matchAll(/\?/g), () => null);
      const plan = check.sqlite.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...args) as Array<{ detail: string }>;
      // A plain insert reads nothing: no plan to show.
      if (plan.length === 0) continue;
      console.log(`[${module}] ${source.replace(/\s+/g, ' ').slice(0, 200)}${source.length > 200 ? ' …' : ''}`);
      for (const step of plan) console.log(`    ${step.detail}`);
    }
    check.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
