import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { OPERATOR } from '../../src/principal.js';
import { createServices } from '../../src/services.js';
import { BIN } from '../helpers/entry.js';

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
      [...BIN, ...argv],
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
    const clientId = catalog.clients.create(owner, { name: 'Acme GmbH', city: 'Berlin', country: 'DE' }).id;
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
        rounding: null,
        earlyPayment: null,
        reminders: null,
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
    // Who issues: what every issued invoice's PDF needs of the issuer (issuing checks it first: issue 56 item 1).
    expect(
      json(
        await tt(
          'workspace',
          'profile',
          workspaceId,
          '--set',
          'legalName=Ada Lovelace Design',
          '--set',
          'country=DE',
          '--set',
          'taxNumber=30/123/45678',
          '--json',
        ),
      ),
    ).to.deep.equal({ id: workspaceId });
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
    expect(shown).to.have.all.keys('invoice', 'rounding', 'sends', 'payments', 'reminders', 'reminderSkip');
    expect(shown.reminderSkip).to.equal(null);
    expect(shown.sends).to.deep.equal([]);
    expect(shown.payments).to.deep.equal([]);
    expect(shown.rounding).to.equal('none');
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
      '04.03.2024 Day 04',
      '05.03.2024 Day 05',
      '06.03.2024 Day 06',
      '07.03.2024 Day 07',
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
    expect(listed).to.have.all.keys('invoices', 'creditNotes');
    expect(listed.creditNotes).to.deep.equal([]);
    expect(listed.invoices.map((i: { status: string }) => i.status)).to.deep.equal(['sent', 'void']);
    expect(listed.invoices[0]).to.deep.include({ id: created.id, number: '2024-0001', issueDate: '2024-04-02', dueDate: '2024-04-16' });
    expect(listed.invoices[0].paymentTerms).to.equal('Zahlbar innerhalb von 14 Tagen bis zum 16.04.2024.');
    expect(json(await tt('invoice', 'list', '--workspace', workspaceId, '--status', 'draft', '--json'))).to.deep.equal({
      invoices: [],
      creditNotes: [],
    });

    // Without --json, a person's view of the invoice.
    const human = await tt('invoice', 'show', created.id);
    expect(human.code).to.equal(0);
    expect(human.stdout).to.contain(`invoice 2024-0001  sent  ${created.id}`);
    expect(human.stdout).to.contain('net 950.00 EUR  tax 180.50 EUR  gross 1130.50 EUR  due 1130.50 EUR');

    // Voided after issuing: its credit note is a document of the list too (issue 45 item 12), on the line above the invoice.
    expect(json(await tt(...status, '--to', 'void', '--date', '2024-04-03', '--json'))).to.deep.include({
      creditNote: { number: '2024-0002', issueDate: '2024-04-03' },
    });
    const withNote = json(await tt('invoice', 'list', '--workspace', workspaceId, '--json'));
    expect(withNote.creditNotes).to.deep.equal([
      {
        number: '2024-0002',
        issueDate: '2024-04-03',
        invoiceId: created.id,
        invoiceNumber: '2024-0001',
        invoiceIssueDate: '2024-04-02',
        clientId,
        clientName: withNote.invoices[0].recipient.name,
        currency: 'EUR',
        netTotal: 950,
        taxTotal: 180.5,
        grossTotal: 1130.5,
      },
    ]);
    const lines = (await tt('invoice', 'list', '--workspace', workspaceId)).stdout.trim().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(new RegExp(`^2024-0002 +credit 2024-04-03 .* -1130\\.50 EUR  ${created.id} \\(cancels 2024-0001\\)$`));
    expect(lines[1]).to.match(/^2024-0001 +void +2024-04-02 /);
    // The draft made without tax settings and voided above: no number, no credit note.
    expect(lines[2]).to.match(/^\(draft\) +void +Acme GmbH +950\.00 EUR {2}inv_/);
  });

  it('workspace invoicing --client sets a client’s own document language: its invoice is German in an English workspace; fr is refused as not offered yet (decisions §12)', async () => {
    const { workspaceId, userId, clientId } = ids;
    const tt = (...argv: string[]) => timetrack(databasePath, ...argv);
    expect(json(await tt('workspace', 'invoicing', workspaceId, '--client', clientId, '--json'))).to.deep.equal({
      client: clientId,
      rounding: null,
      language: null,
    });
    const message = refusedWith(
      await tt('workspace', 'invoicing', workspaceId, '--client', clientId, '--set', 'language=fr', '--json'),
      1,
      'invalid',
    );
    expect(message).to.equal(
      "language fr (French) is not offered yet: the French labels exist, but invoices are made in en or de only until the REST API's contract names fr (decisions §12).",
    );
    expect(json(await tt('workspace', 'invoicing', workspaceId, '--client', clientId, '--set', 'language=de', '--json'))).to.deep.equal({
      id: clientId,
    });
    expect(json(await tt('workspace', 'invoicing', workspaceId, '--client', clientId, '--json'))).to.deep.include({ language: 'de' });
    const created = json(
      await tt(
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
        '--json',
      ),
    );
    expect(json(await tt('invoice', 'show', created.id, '--json')).invoice).to.deep.include({ language: 'de' });
    expect(stored((s) => s.invoices.settings(OPERATOR, workspaceId).language)).to.equal('en');
  });

  it('an invoice in another currency than the VAT currency: issuing needs --exchange-rate, records it and the VAT total in that currency (BT-6, BT-111); refused without it, on an invoice that needs none, and when not issuing', async () => {
    const { workspaceId, userId, clientId } = ids;
    const tt = (...argv: string[]) => timetrack(databasePath, ...argv);
    expect((await tt('workspace', 'set', workspaceId, '--currency', 'CHF')).code).to.equal(0);
    expect((await tt('workspace', 'invoicing', workspaceId, '--set', 'taxRate=19')).code).to.equal(0);
    const profile = (...sets: string[]) => tt('workspace', 'profile', workspaceId, ...sets.flatMap((set) => ['--set', set]), '--json');
    const draft = async (from: string, to: string) =>
      json(
        await tt(
          'invoice',
          'create',
          '--workspace',
          workspaceId,
          '--user',
          userId,
          '--client',
          clientId,
          '--from',
          from,
          '--to',
          to,
          '--json',
        ),
      ).id as string;
    const issue = (id: string, ...more: string[]) =>
      tt('invoice', 'status', id, '--user', userId, '--to', 'sent', '--date', '2024-04-02', ...more, '--json');

    // An issuer that accounts for VAT in francs: a CHF invoice needs no rate, and takes none.
    expect((await profile('legalName=Ada Lovelace Design', 'country=DE', 'taxNumber=30/123/45678', 'vatCurrency=CHF')).code).to.equal(0);
    expect(refusedWith(await profile('vatCurrency=chf'), 1, 'invalid')).to.equal(
      'vatCurrency must be an ISO 4217 currency code such as EUR (got "chf").',
    );
    const own = await draft('2024-03-01', '2024-03-05');
    expect(refusedWith(await issue(own, '--exchange-rate', '1.0634'), 1, 'invalid')).to.equal(
      'This invoice is in CHF, the currency its issuer accounts for VAT in: it takes no exchange rate. Issue it without one.',
    );
    expect(json(await issue(own))).to.deep.include({ to: 'sent', number: '2024-0001' });
    expect(json(await tt('invoice', 'show', own, '--json')).invoice).to.not.have.property('vatCurrency');

    // A German issuer (no vatCurrency: EUR, the euro area's) states the VAT of a CHF invoice in EUR too, at the owner's rate.
    expect((await profile('vatCurrency=', 'vatId=DE136695976')).code).to.equal(0);
    const other = await draft('2024-03-06', '2024-03-31');
    expect(refusedWith(await issue(other), 1, 'invalid')).to.equal(
      `This invoice is in CHF but its issuer accounts for VAT in EUR: it states its VAT in EUR too (BT-111, VAT Directive art. 230), so issuing it needs the exchange rate of the issue date, how many EUR one CHF is worth (in Germany the monthly rate the Federal Ministry of Finance publishes, § 16 Abs. 6 UStG). Give it in the Issue form's exchange rate, or timetrack invoice status ${other} --to sent --exchange-rate R.`,
    );
    expect(refusedWith(await issue(other, '--exchange-rate', '0'), 1, 'invalid')).to.equal(
      'The exchange rate must be a positive decimal such as 1.0634 (got "0").',
    );
    // The refusals used no number: the next one is 2024-0002.
    expect(json(await issue(other, '--exchange-rate', '1.0634'))).to.deep.equal({
      id: other,
      from: 'draft',
      to: 'sent',
      number: '2024-0002',
    });
    const shown = json(await tt('invoice', 'show', other, '--json')).invoice;
    expect(shown).to.deep.include({ currency: 'CHF', netTotal: 475, taxTotal: 90.25 });
    // 90.25 CHF × 1.0634 = 95.97185 EUR: 95.97.
    expect(shown.vatCurrency).to.deep.equal({ currency: 'EUR', exchangeRate: 1.0634, taxTotal: 95.97 });
    expect((await tt('invoice', 'show', other)).stdout).to.contain('tax in EUR: 95.97 EUR (1 CHF = 1.0634 EUR)');
    // The PDF says it; its factur-x.xml carries BT-6 and BT-111.
    const out = join(dir, 'invoice.pdf');
    const exported = await tt('invoice', 'export', other, '--format', 'pdf', '--out', out);
    expect(exported.code, exported.stderr).to.equal(0);
    expect(execFileSync('pdftotext', ['-layout', out, '-']).toString().replace(/\s+/g, ' ')).to.contain(
      'VAT total in EUR (rate 1 CHF = 1.0634 EUR) €95.97',
    );
    execFileSync('pdfdetach', ['-saveall', '-o', dir, out]);
    const xml = readFileSync(join(dir, 'factur-x.xml'), 'utf8');
    expect(xml).to.contain('<ram:TaxCurrencyCode>EUR</ram:TaxCurrencyCode>');
    expect(xml).to.contain('<ram:TaxTotalAmount currencyID="EUR">95.97</ram:TaxTotalAmount>');
    expect(
      refusedWith(await tt('invoice', 'status', other, '--user', userId, '--to', 'paid', '--exchange-rate', '1', '--json'), 1, 'invalid'),
    ).to.equal('--exchange-rate is given when an invoice is issued (--to sent), not when it is marked paid.');
  });

  it('two processes issuing at the same moment get two numbers, one after the other, without a gap', async () => {
    const { workspaceId, userId, clientId } = ids;
    const [first, second] = stored((s) => {
      s.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
      s.invoices.setBusinessProfile(OPERATOR, workspaceId, { legalName: 'Ada Lovelace Design', country: 'DE', taxNumber: '30/123/45678' });
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
