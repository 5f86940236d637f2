import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import fc from 'fast-check';
import { progressLine } from '../../src/cli/import-commands.js';
import { runCli } from '../../src/cli/main.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { OPERATOR } from '../../src/principal.js';
import { createServices } from '../../src/services.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhooks.js';
import { MAIN } from '../helpers/entry.js';

const FIXTURES = new URL('../fixtures/import/', import.meta.url).pathname;
const TOGGL_HEADER =
  'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)';

describe('timetrack import (the command)', () => {
  let dir: string;
  let databasePath: string;
  const key = randomBytes(32);
  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => openDatabase(databasePath),
      createServices: (database) => createServices(database, { clock: systemClock, secretKey: key }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    let json: any;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr, json };
  };
  let workspaceId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-import-cli-'));
    databasePath = join(dir, 'timetrack.db');
    workspaceId = (await cli('workspace', 'create', '--name', 'Acme', '--json')).json.id;
    const ada = (await cli('user', 'create', '--name', 'Ada Lovelace', '--email', 'ada@example.org', '--json')).json.id;
    await cli('member', 'add', '--workspace', workspaceId, '--user', ada, '--json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the documented JSON, exits 1 with the refused rows when one is refused, and lists, shows and undoes', async () => {
    const refused = await cli('import', join(FIXTURES, 'toggl.csv'), '--workspace', workspaceId, '--time-zone', 'Europe/Berlin', '--json');
    expect(refused.code).to.equal(1);
    expect(refused.json).to.have.all.keys(
      'importId',
      'format',
      'dryRun',
      'rows',
      'imported',
      'duplicates',
      'refused',
      'created',
      'unmatchedUsers',
      'notices',
      'restored',
    );
    expect(refused.json.refused[0].line).to.equal(5);
    expect(JSON.parse(refused.stderr).error.code).to.equal('refused');

    const done = await cli(
      'import',
      join(FIXTURES, 'toggl.csv'),
      '--workspace',
      workspaceId,
      '--time-zone',
      'Europe/Berlin',
      '--create-members',
      '--json',
    );
    expect(done.code, done.stderr).to.equal(0);
    expect(done.stderr).to.equal('');
    expect(done.stdout.trim().split('\n')).to.have.length(1);
    expect(done.json).to.deep.include({ format: 'toggl', dryRun: false, rows: 3, imported: 3, duplicates: 0, refused: [] });
    const id = done.json.importId as string;

    const listed = (await cli('import', 'list', '--workspace', workspaceId, '--json')).json.imports;
    expect(listed.map((i: { id: string; state: string; imported: number }) => [i.id, i.state, i.imported])).to.deep.equal([
      [id, 'done', 3],
    ]);
    const shown = (await cli('import', 'show', id, '--json')).json;
    expect(shown).to.deep.include({ id, workspaceId, format: 'toggl', fileName: 'toggl.csv', by: null, state: 'done', rows: 3 });
    expect((await cli('import', 'undo', id, '--json')).json).to.deep.equal({ importId: id, deleted: 3 });
    expect((await cli('import', 'show', id, '--json')).json.state).to.equal('undone');
  });

  it('without --json, says what it did and what it refused, line by line, and how to undo', async () => {
    const refused = await cli('import', join(FIXTURES, 'toggl-bad.csv'), '--workspace', workspaceId, '--time-zone', 'Europe/Berlin');
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.equal(
      [
        'toggl file, 6 rows: imported 0 entries, 0 duplicates skipped (imported before).',
        'To create: 1 client, 1 project, 20 tags.',
        'Refused rows:',
        "  line 3: Description: 501 characters; an entry's description holds at most 500: shorten it",
        '  line 4: Tags: 21 tags; an entry holds at most 20',
        '  line 5: End time: the end is at or before the start',
        '  line 6: the row has 4 cells and the header 14: a cell is missing (or a quote is not closed)',
        '',
      ].join('\n'),
    );
    expect(refused.stderr).to.match(/^timetrack: Rows were refused; nothing was imported\. Fix the file/);
    const done = await cli(
      'import',
      join(FIXTURES, 'toggl-bad.csv'),
      '--workspace',
      workspaceId,
      '--time-zone',
      'Europe/Berlin',
      '--skip-invalid',
    );
    expect(done.code).to.equal(0);
    const id = /Import (imp_\w+); undo it with: timetrack import undo imp_\w+/.exec(done.stdout)?.[1];
    expect(id, done.stdout).to.be.a('string');
    expect(done.stdout.split('\n')[0]).to.equal('toggl file, 6 rows: imported 2 entries, 0 duplicates skipped (imported before).');
  });

  it('checks its flags, and explains itself with --help', async () => {
    const bad = await cli('import', join(FIXTURES, 'toggl.csv'), '--workspace', workspaceId, '--format', 'excel', '--json');
    expect(bad.code).to.equal(2);
    expect(JSON.parse(bad.stderr).error.message).to.equal(
      '--format must be auto, toggl, clockify, harvest, kimai, timetrack (got "excel")',
    );
    const help = await cli('import', '--help');
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('timetrack import FILE --workspace W');
    expect(help.stdout).to.contain('timetrack import undo IMPORT_ID');
  });

  it('asks before each write how long it may hold the lock, and holds it no longer (one row a write at 0 ms)', async () => {
    const rows = [TOGGL_HEADER];
    for (let i = 0; i < 30; i++)
      rows.push(`Ada Lovelace,ada@example.org,,,,Row ${i},No,2026-03-02,09:00:00,2026-03-02,09:30:00,00:30:00,,`);
    const file = join(dir, 'thirty.csv');
    writeFileSync(file, `${rows.join('\n')}\n`);
    const run = async (writeMs: number) => {
      let asked = 0;
      const database = openDatabase(databasePath);
      try {
        const services = createServices(database, { clock: systemClock, secretKey: key, importWriteMs: () => (asked++, writeMs) });
        const { report } = await services.imports.run(OPERATOR, { workspaceId, path: file, timeZone: 'UTC' });
        expect(report.imported).to.equal(30);
        await services.imports.undo(OPERATOR, report.importId as string);
      } finally {
        database.close();
      }
      return asked;
    };
    // Once before the first write, then after each: 30 writes of one row, or one write of 30.
    expect(await run(0)).to.equal(31);
    expect(await run(60_000)).to.equal(2);
  });

  it('draws a progress line with rows, rows/s, elapsed and an estimate of what is left', () => {
    expect(progressLine({ phase: 'checking', rows: 50_000, bytes: 5_000_000, totalBytes: 10_000_000 }, 10_000)).to.equal(
      'checking 50,000 rows, 5,000 rows/s, 10 s elapsed, about 10 s left',
    );
  });

  it('a kill -9 midway leaves no entries of that import: the next `import show` records it failed and cleans up', async function () {
    this.timeout(60_000);
    const rows = [TOGGL_HEADER];
    for (let i = 0; i < 40_000; i++) {
      const day = `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
      rows.push(`Ada Lovelace,ada@example.org,Acme,Project ${i % 50},,Work ${i},Yes,${day},09:00:00,${day},10:00:00,01:00:00,t${i % 7},`);
    }
    const path = join(dir, 'big.csv');
    writeFileSync(path, `${rows.join('\n')}\n`);
    const child = spawn(process.execPath, [...MAIN, 'import', path, '--workspace', workspaceId, '--time-zone', 'UTC', '--json'], {
      env: { ...process.env, DATABASE_PATH: databasePath },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const peek = new Database(databasePath, { readonly: true });
    try {
      // Kill it once it has written some of its batches.
      for (let i = 0; i < 600; i++) {
        const row = peek.prepare("select imported from imports where state = 'running'").get() as { imported: number } | undefined;
        if (row && row.imported > 1000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const before = peek.prepare('select count(*) as n from entries where import_id is not null').get() as { n: number };
      expect(before.n).to.be.greaterThan(1000);
      child.kill('SIGKILL');
      await exited;
    } finally {
      peek.close();
    }
    const [record] = (await cli('import', 'list', '--workspace', workspaceId, '--json')).json.imports;
    expect(record.state).to.equal('failed');
    expect(record.failure).to.match(/stopped midway/);
    const check = new Database(databasePath, { readonly: true });
    try {
      expect(check.prepare('select count(*) as n from entries').get()).to.deep.equal({ n: 0 });
      expect(check.prepare('select count(*) as n from import_fingerprints').get()).to.deep.equal({ n: 0 });
    } finally {
      check.close();
    }
  });
});

describe('import into a running server', () => {
  // One server for the describe; each test imports into a fresh workspace of its own.
  let shared: TestServer;
  let server: FreshWorkspace;
  before(async () => {
    shared = await startTestServer({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      webhooks: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
    });
  });
  after(() => shared.close());
  beforeEach(() => {
    server = freshWorkspace(shared);
  });

  it('sends entry.created deliveries only with --webhooks, and entry.deleted on the undo of such an import', async () => {
    const receiver = await startReceiver(null);
    try {
      await server.services.webhooks.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        url: `http://hooks.test:${receiver.port}/hook`,
        events: ['entry.created', 'entry.deleted'],
      });
      const request = { workspaceId: server.workspaceId, path: join(FIXTURES, 'timetrack.csv'), user: server.ownerId };
      const quiet = await server.services.imports.run(OPERATOR, request);
      await server.services.sender.tick();
      expect(receiver.requests).to.have.length(0);
      await server.services.imports.undo(OPERATOR, quiet.report.importId as string);
      await server.services.sender.tick();
      expect(receiver.requests).to.have.length(0);

      const loud = await server.services.imports.run(OPERATOR, { ...request, webhooks: true });
      await server.services.sender.tick();
      await receiver.waitFor(1);
      expect(receiver.requests.map((r) => r.headers['x-service-event'])).to.deep.equal(['entry.created']);
      const entryId = (receiver.requests[0]!.json as { data: { entry: { id: string; source: string } } }).data.entry;
      expect(entryId.source).to.equal('import');
      await server.services.imports.undo(OPERATOR, loud.report.importId as string);
      await server.services.sender.tick();
      await receiver.waitFor(2);
      expect(receiver.requests.map((r) => r.headers['x-service-event'])).to.deep.equal(['entry.created', 'entry.deleted']);
    } finally {
      await receiver.close();
    }
  });

  it('property: random entries written as a timetrack file, imported into an empty workspace, come back the same through the API', async function () {
    this.timeout(120_000);
    const words = fc.constantFrom('Design', 'Review', 'Call, with a comma', 'Quote "this"', 'Line\nbreak', '', 'Ünïcödé');
    const entry = fc.record({
      startMin: fc.integer({ min: 0, max: 60 * 24 * 300 }),
      lengthSec: fc.integer({ min: 1, max: 86_400 }),
      description: words,
      project: fc.constantFrom('', 'Website', 'Backend'),
      tags: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 3 }),
      billable: fc.boolean(),
      rate: fc.option(fc.constantFrom('80.05', '100', '0.5', '1234.56'), { nil: null }),
      offset: fc.constantFrom('+01:00', '-05:00', 'Z'),
    });
    const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(entry, { minLength: 1, maxLength: 15, selector: (e) => e.startMin }), async (list) => {
        runs++;
        const ws = server.services.accounts.createWorkspace(OPERATOR, { name: `P${runs}` });
        server.services.accounts.addMember(OPERATOR, { workspaceId: ws.id, userId: server.ownerId, isOwner: true });
        const token = server.services.tokens.create(OPERATOR, {
          workspaceId: ws.id,
          userId: server.ownerId,
          name: 'p',
          scopes: ['entries:read', 'catalog:read'],
        }).token;
        const iso = (ms: number, offset: string) => {
          if (offset === 'Z') return new Date(ms).toISOString().replace('.000Z', 'Z');
          const shift = (offset.startsWith('-') ? -1 : 1) * Number(offset.slice(1, 3)) * 3_600_000;
          return `${new Date(ms + shift).toISOString().slice(0, 19)}${offset}`;
        };
        const base = Date.UTC(2025, 0, 1);
        const lines = ['email,start,end,description,client,project,task,tags,billable,hourlyRate'];
        for (const e of list) {
          const start = base + e.startMin * 60_000;
          const end = start + e.lengthSec * 1000;
          lines.push(
            [
              server.ownerEmail,
              iso(start, e.offset),
              iso(end, e.offset),
              quote(e.description),
              '',
              e.project,
              '',
              quote(e.tags.join(',')),
              String(e.billable),
              e.rate ?? '',
            ].join(','),
          );
        }
        const path = join(tmpdir(), `timetrack-property-${process.pid}-${runs}.csv`);
        writeFileSync(path, `${lines.join('\r\n')}\r\n`);
        try {
          const { report } = await server.services.imports.run(OPERATOR, { workspaceId: ws.id, path, user: server.ownerId });
          expect(report).to.deep.include({ imported: list.length, refused: [] });
        } finally {
          rmSync(path, { force: true });
        }
        const page = await server.request('GET', '/api/v1/entries?from=2024-12-01&to=2026-02-01&limit=500', { token });
        expect(page.status).to.equal(200);
        const tagNames = new Map(
          ((await server.request('GET', '/api/v1/tags', { token })).body.data as Array<{ id: string; name: string }>).map((t) => [
            t.id,
            t.name,
          ]),
        );
        const projectNames = new Map(
          ((await server.request('GET', '/api/v1/projects', { token })).body.data as Array<{ id: string; name: string }>).map((p) => [
            p.id,
            p.name,
          ]),
        );
        type Got = {
          start: string;
          end: string;
          description: string;
          projectId: string | null;
          tagIds: string[];
          billable: boolean;
          hourlyRate: number | null;
          source: string;
        };
        const got = (page.body.data as Got[])
          .map((g) => ({
            start: Date.parse(g.start),
            end: Date.parse(g.end),
            description: g.description,
            project: g.projectId ? projectNames.get(g.projectId) : '',
            tags: g.tagIds.map((t) => tagNames.get(t)).sort(),
            billable: g.billable,
            rate: g.hourlyRate,
            source: g.source,
          }))
          .sort((a, b) => a.start - b.start);
        const want = list
          .map((e) => ({
            start: base + e.startMin * 60_000,
            end: base + e.startMin * 60_000 + e.lengthSec * 1000,
            description: e.description,
            project: e.project,
            tags: [...e.tags].sort(),
            billable: e.billable,
            rate: e.rate === null ? null : Number(e.rate),
            source: 'import',
          }))
          .sort((a, b) => a.start - b.start);
        expect(got).to.deep.equal(want);
      }),
      { numRuns: 15, seed: 20261125 },
    );
  });
});
