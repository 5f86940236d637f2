import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { systemClock } from '../src/clock.js';
import { openDatabase } from '../src/db/database.js';
import { OPERATOR } from '../src/principal.js';
import { createServices } from '../src/services.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `timetrack …` as a process of its own (bin/timetrack.js) against the test's database file. */
function timetrack(databasePath: string, ...argv: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/timetrack.js', ...argv],
      { env: { ...process.env, DATABASE_PATH: databasePath, TZ: 'UTC' } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The command line's invoice commands as a self-hoster runs them: separate processes on one
 * database file (days in the past are given with --date, so the machine's date does not matter).
 */
describe('timetrack invoice commands (processes)', function () {
  this.timeout(120_000);
  let dir: string;
  let databasePath: string;
  let ids: { workspaceId: string; userId: string; clientId: string; projectId: string };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-invoice-cli-'));
    databasePath = join(dir, 'timetrack.db');
    const database = openDatabase(databasePath);
    const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
    const { accounts, tokens, catalog, entries } = services;
    const workspaceId = accounts.createWorkspace(OPERATOR, { name: 'Studio' }).id;
    const userId = accounts.createUser(OPERATOR, { name: 'Ada', email: 'ada@example.org' }).id;
    accounts.addMember(OPERATOR, { workspaceId, userId, canViewOthersTime: true, canViewOthersMoney: true, isOwner: true });
    const token = tokens.create(OPERATOR, { workspaceId, userId, name: 't', scopes: ['entries:write', 'catalog:write'] }).token;
    const owner = tokens.authenticate(token)!.actor;
    const clientId = catalog.clients.create(owner, { name: 'Acme GmbH', city: 'Berlin' }).id;
    const projectId = catalog.projects.create(owner, { name: 'Relaunch', clientId, billable: true, hourlyRate: 95 }).id;
    for (const day of ['04', '05', '06', '07'])
      entries.create(owner, { projectId, start: `2024-03-${day}T09:00:00Z`, end: `2024-03-${day}T11:30:00Z`, description: `Day ${day}` });
    database.close();
    ids = { workspaceId, userId, clientId, projectId };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const json = (run: Run) => {
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.trim().split('\n')).to.have.length(1);
    return JSON.parse(run.stdout);
  };
  const refusedWith = (run: Run, exit: number, code: string) => {
    expect(run, run.stderr).to.deep.include({ code: exit, stdout: '' });
    const { error } = JSON.parse(run.stderr) as { error: { code: string; message: string } };
    expect(error.code).to.equal(code);
    return error.message;
  };
  const stored = (fn: (services: ReturnType<typeof createServices>) => unknown) => {
    const database = openDatabase(databasePath);
    try {
      return fn(createServices(database, { clock: systemClock, secretKey: randomBytes(32) }));
    } finally {
      database.close();
    }
  };

  it('settings, create, show, issue and list print the documented JSON; refusals exit 1 saying what to do, bad arguments 2', async () => {
    const { workspaceId, userId, clientId } = ids;
    const tt = (...argv: string[]) => timetrack(databasePath, ...argv);
    expect(json(await tt('workspace', 'invoicing', workspaceId, '--json'))).to.deep.equal({
      invoicing: {
        numberPattern: '{yyyy}-{seq:4}',
        taxCategory: 'S',
        taxRate: null,
        exemptionReason: null,
        exemptionReasonCode: null,
        language: 'en',
      },
    });
    const create = [
      'invoice',
      'create',
      '--workspace',
      workspaceId,
      '--user',
      userId,
      '--client',
      clientId,
      '--from',
      '2024-03-01',
      '--to',
      '2024-03-31',
    ];
    // Without a rate a draft is still made (decisions 11a: issuing asks for it); voiding it releases its entries.
    const untaxed = json(await tt(...create, '--json'));
    expect(json(await tt('invoice', 'status', untaxed.id, '--to', 'void', '--user', userId, '--json'))).to.deep.equal({
      id: untaxed.id,
      from: 'draft',
      to: 'void',
    });
    expect(json(await tt('workspace', 'invoicing', workspaceId, '--set', 'taxRate=19', '--set', 'language=de', '--json'))).to.deep.equal({
      id: workspaceId,
    });
    expect(
      refusedWith(await tt('workspace', 'invoicing', workspaceId, '--set', 'numberPattern={yyyy}-0001', '--json'), 1, 'invalid'),
    ).to.match(/must hold \{seq\}.*For example/);
    expect(refusedWith(await tt(...create, '--group-by', 'week', '--json'), 2, 'usage')).to.contain(
      '--group-by must be one of project, task, member, entry, single',
    );

    const created = json(await tt(...create, '--group-by', 'entry', '--note', 'PO 4711', '--json'));
    expect(created).to.have.all.keys('id');
    const shown = json(await tt('invoice', 'show', created.id, '--json'));
    expect(shown).to.have.all.keys('invoice');
    expect(shown.invoice).to.deep.equal(stored((s) => s.invoices.get(OPERATOR, created.id)));
    expect(shown.invoice).to.deep.include({
      status: 'draft',
      number: null,
      note: 'PO 4711',
      language: 'de',
      netTotal: 950,
      taxTotal: 180.5,
      grossTotal: 1130.5,
    });
    expect(shown.invoice.lines.map((l: { description: string }) => l.description)).to.deep.equal([
      '2024-03-04 Day 04',
      '2024-03-05 Day 05',
      '2024-03-06 Day 06',
      '2024-03-07 Day 07',
    ]);

    const status = ['invoice', 'status', created.id, '--user', userId];
    expect(refusedWith(await tt(...status, '--to', 'paid', '--json'), 1, 'conflict')).to.contain(
      'a draft is issued first (to sent), then marked paid',
    );
    expect(json(await tt(...status, '--to', 'sent', '--date', '2024-04-02', '--json'))).to.deep.equal({
      id: created.id,
      from: 'draft',
      to: 'sent',
      number: '2024-0001',
    });
    const listed = json(await tt('invoice', 'list', '--workspace', workspaceId, '--json'));
    expect(listed).to.have.all.keys('invoices');
    expect(listed.invoices.map((i: { status: string }) => i.status)).to.deep.equal(['sent', 'void']);
    expect(listed.invoices[0]).to.deep.include({ id: created.id, number: '2024-0001', issueDate: '2024-04-02', dueDate: '2024-04-16' });
    expect(listed.invoices[0].paymentTerms).to.equal('Zahlbar innerhalb von 14 Tagen bis zum 16.04.2024.');
    expect(json(await tt('invoice', 'list', '--workspace', workspaceId, '--status', 'draft', '--json'))).to.deep.equal({ invoices: [] });

    // Without --json, a person's view of the invoice.
    const human = await tt('invoice', 'show', created.id);
    expect(human.code).to.equal(0);
    expect(human.stdout).to.contain(`invoice 2024-0001  sent  ${created.id}`);
    expect(human.stdout).to.contain('net 950.00 EUR  tax 180.50 EUR  gross 1130.50 EUR  due 1130.50 EUR');
  });

  it('two processes issuing at the same moment get two numbers, one after the other, without a gap', async () => {
    const { workspaceId, userId, clientId } = ids;
    const [first, second] = stored((s) => {
      s.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
      const make = (day: string) => s.invoices.create(OPERATOR, { workspaceId, userId, clientId, from: day, to: day }).id;
      return [make('2024-03-04'), make('2024-03-05')];
    }) as [string, string];

    // Each process loads, says it is ready, and waits; the test holds the write lock while both are told to go.
    const start = (id: string) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'test/helpers/waiting-cli.ts',
          'invoice',
          'status',
          id,
          '--to',
          'sent',
          '--user',
          userId,
          '--date',
          '2024-04-02',
          '--json',
        ],
        {
          env: { ...process.env, DATABASE_PATH: databasePath, TZ: 'UTC' },
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const ready = new Promise<void>((resolve) =>
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('ready\n')) resolve();
        }),
      );
      const exited = new Promise<Run>((resolve) =>
        child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr: stderr.replace('ready\n', '') })),
      );
      return { child, ready, exited };
    };
    const racers = [start(first), start(second)];
    await Promise.all(racers.map((r) => r.ready));
    const holder = new Database(databasePath);
    holder.exec('BEGIN IMMEDIATE');
    for (const racer of racers) (racer.child as ChildProcess).stdin!.write('go\n');
    // Both are now waiting for the lock (within their 5 s busy timeout); release it and let them race.
    await new Promise((resolve) => setTimeout(resolve, 500));
    holder.exec('COMMIT');
    holder.close();
    const results = await Promise.all(racers.map((r) => r.exited));
    for (const result of results) expect(result.code, result.stderr).to.equal(0);
    const numbers = results.map((r) => JSON.parse(r.stdout).number as string).sort();
    expect(numbers).to.deep.equal(['2024-0001', '2024-0002']);
    const register = stored((s) => s.invoices.list(OPERATOR, workspaceId).map((i) => [i.id, i.number])) as Array<[string, string]>;
    expect(new Map(register).size).to.equal(2);
    expect(register.map(([, number]) => number).sort()).to.deep.equal(['2024-0001', '2024-0002']);
  });
});
