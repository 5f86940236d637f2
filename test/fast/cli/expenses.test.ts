import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/*
 * `timetrack expense add|list|delete` (issue 57 item 1), in process over the services on :memory::
 * an expense with its own VAT and a receipt file, the list as a table and as JSON, the refusals
 * (exit 1 with the service's sentence, exit 2 for a bad --tax), and the deletion.
 */
describe('timetrack expense add|list|delete', () => {
  let w: ServiceWorld;
  let dir: string;
  let projectId: string;
  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => ({ ...w.database, close: () => {} }),
      createServices: () => w.services,
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr, json: argv.includes('--json') && code === 0 ? JSON.parse(stdout) : undefined };
  };

  beforeEach(() => {
    w = memoryServices();
    dir = mkdtempSync(join(tmpdir(), 'expense-cli-'));
    projectId = w.services.catalog.projects.create(w.owner, { name: 'Buch', billable: true }).id;
  });
  afterEach(() => {
    w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const add = (...extra: string[]) =>
    cli('expense', 'add', '--workspace', w.workspaceId, '--user', w.ownerId, '--day', '2026-10-20', '--project', projectId, ...extra);

  it('adds an expense with its VAT and a receipt, lists it as a table and as JSON, and deletes it', async () => {
    writeFileSync(join(dir, 'ticket.png'), PNG);
    const added = await add('--amount', '49,90', '--description', 'Train', '--tax', 'S:7', '--receipt', join(dir, 'ticket.png'), '--json');
    expect(added.code, added.stderr).to.equal(0);
    expect(added.json).to.deep.include({
      day: '2026-10-20',
      description: 'Train',
      amount: 49.9,
      billable: true,
      tax: { category: 'S', rate: 7 },
    });
    expect(added.json.receipt).to.deep.equal({ fileName: 'ticket.png', mediaType: 'image/png', size: PNG.length });
    const second = await add('--amount', '10', '--description', 'Coffee', '--tax', 'Z', '--not-billable', '--json');
    expect(second.json).to.deep.include({ billable: false, tax: { category: 'Z', rate: 0 } });

    const listed = await cli('expense', 'list', '--workspace', w.workspaceId, '--month', '2026-10');
    expect(listed.code, listed.stderr).to.equal(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^ID\s+DAY\s+MEMBER\s+PROJECT\s+AMOUNT\s+TAX\s+BILLABLE\s+INVOICE\s+RECEIPT\s+DESCRIPTION$/);
    expect(lines).to.have.length(3);
    expect(lines.find((l) => l.startsWith(added.json.id))).to.match(
      new RegExp(`^${added.json.id}\\s+2026-10-20\\s+\\S.*Buch\\s+49\\.90 EUR\\s+S 7 %\\s+yes\\s+-\\s+ticket\\.png\\s+Train$`),
    );
    expect(lines.find((l) => l.startsWith(second.json.id))).to.match(/10\.00 EUR\s+Z\s+no\s+-\s+-\s+Coffee$/);
    expect((await cli('expense', 'list', '--workspace', w.workspaceId, '--month', '2026-11')).stdout).to.equal('No expenses.\n');
    const json = await cli('expense', 'list', '--workspace', w.workspaceId, '--json');
    expect(json.json.expenses.map((e: { description: string }) => e.description)).to.have.members(['Train', 'Coffee']);

    const deleted = await cli('expense', 'delete', added.json.id, '--json');
    expect(deleted.code, deleted.stderr).to.equal(0);
    expect(deleted.json).to.deep.equal({ id: added.json.id, deleted: true });
    expect(w.services.expenses.list(OPERATOR, { workspaceId: w.workspaceId }).map((e) => e.description)).to.deep.equal(['Coffee']);
  });

  it('lists by --project, given by its id or its name, beside --month; refuses a project nobody has and a name two projects bear', async () => {
    const other = w.services.catalog.projects.create(w.owner, { name: 'Website', billable: true }).id;
    const acme = w.services.catalog.clients.create(w.owner, { name: 'Acme' }).id;
    const globex = w.services.catalog.clients.create(w.owner, { name: 'Globex' }).id;
    const audits = [acme, globex].map(
      (clientId) => w.services.catalog.projects.create(w.owner, { name: 'Audit', clientId, billable: true }).id,
    );
    expect((await add('--amount', '12', '--description', 'Train October')).code).to.equal(0);
    const november = ['--day', '2026-11-03', '--project', projectId, '--amount', '8', '--description', 'Train November'];
    expect((await cli('expense', 'add', '--workspace', w.workspaceId, '--user', w.ownerId, ...november)).code).to.equal(0);
    const site = ['--day', '2026-10-21', '--project', other, '--amount', '30', '--description', 'Fonts'];
    expect((await cli('expense', 'add', '--workspace', w.workspaceId, '--user', w.ownerId, ...site)).code).to.equal(0);
    const list = async (...argv: string[]) => {
      const run = await cli('expense', 'list', '--workspace', w.workspaceId, ...argv, '--json');
      expect(run.code, run.stderr).to.equal(0);
      return (run.json.expenses as Array<{ description: string }>).map((e) => e.description).sort();
    };
    expect(await list('--project', projectId)).to.deep.equal(['Train November', 'Train October']);
    // By its name, as the catalog compares names (case and spaces aside).
    expect(await list('--project', ' buch ')).to.deep.equal(['Train November', 'Train October']);
    expect(await list('--project', 'Buch', '--month', '2026-10')).to.deep.equal(['Train October']);
    expect(await list('--project', 'Website')).to.deep.equal(['Fonts']);
    expect(await list('--project', audits[0] as string)).to.deep.equal([]);
    const table = await cli('expense', 'list', '--workspace', w.workspaceId, '--project', 'Website');
    expect(table.stdout.trimEnd().split('\n')).to.have.length(2);

    const unknown = await cli('expense', 'list', '--workspace', w.workspaceId, '--project', 'Nothing', '--json');
    expect(unknown.code).to.equal(1);
    expect(JSON.parse(unknown.stderr).error).to.deep.include({
      code: 'not_found',
      message: `No project of workspace ${w.workspaceId} has the id or the name "Nothing".`,
    });
    const twice = await cli('expense', 'list', '--workspace', w.workspaceId, '--project', 'audit', '--json');
    expect(twice.code).to.equal(1);
    expect(JSON.parse(twice.stderr).error).to.deep.include({
      code: 'invalid',
      message: `2 projects are named "audit": ${[...audits]
        .sort()
        .map((id) => `Audit (${id === audits[0] ? 'Acme' : 'Globex'}) ${id}`)
        .join(', ')}. Give the one you mean by its id.`,
    });
  });

  it('refuses an HTML receipt, a bad amount and a bad --tax, writing nothing', async () => {
    writeFileSync(join(dir, 'receipt.png'), '<!doctype html><script>alert(1)</script>');
    const html = await add('--amount', '5', '--description', 'X', '--receipt', join(dir, 'receipt.png'));
    expect(html.code).to.equal(1);
    expect(html.stderr).to.include('receipt: the file is not a PDF, PNG, JPEG or WebP image');
    const amount = await add('--amount', '5.555', '--description', 'X');
    expect(amount.code).to.equal(1);
    expect(amount.stderr).to.include('amount must be the net amount above 0');
    const tax = await add('--amount', '5', '--description', 'X', '--tax', '19');
    expect(tax.code).to.equal(2);
    expect(tax.stderr).to.include('--tax must be S:RATE');
    expect(w.services.expenses.list(OPERATOR, { workspaceId: w.workspaceId })).to.deep.equal([]);
  });
});
