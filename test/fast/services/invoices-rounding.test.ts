import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import type { DomainError } from '../../../src/errors.js';
import { einvoiceOf } from '../../../src/modules/invoices/documents/model.js';
import { type InvoiceView, printedLineHours, settingsPatchOfText } from '../../../src/modules/invoices/service.js';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * Rounding on invoices (issue 56 item 4, decisions 14): a rule per workspace, overridable per
 * client; each entry's seconds rounded before lines are grouped; a line's net rate × rounded
 * seconds / 3600 rounded once; the invoice keeps the rule it was made with.
 */

function setup() {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  const self = {
    ...world,
    settings: (...pairs: Array<[string, string]>) => services.invoices.setSettings(OPERATOR, workspaceId, settingsPatchOfText(pairs)),
    client: (name: string) => services.catalog.clients.create(owner, { name }).id,
    project: (name: string, clientId: string, hourlyRate = 100) =>
      services.catalog.projects.create(owner, { name, clientId, billable: true, hourlyRate }).id,
    entry: (projectId: string, start: string, seconds: number, by: Actor = owner) =>
      services.entries.create(by, {
        projectId,
        start,
        end: new Date(Date.parse(start) + seconds * 1000).toISOString(),
        billable: true,
      }).id,
    create: (clientId: string, groupBy = 'project', from = '2026-10-01', to = '2026-10-31') =>
      services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from, to, groupBy: groupBy as 'project' }).id,
    preview: (clientId: string, groupBy = 'project') =>
      services.invoices.preview(OPERATOR, {
        workspaceId,
        userId: ownerId,
        clientId,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: groupBy as 'project',
      }),
    get: (id: string): InvoiceView => services.invoices.get(OPERATOR, id),
    void: (id: string) => services.invoices.changeStatus(OPERATOR, id, 'void', ownerId),
  };
  return self;
}

const quantities = (invoice: InvoiceView) => invoice.lines.map((l) => l.quantitySec);
const amounts = (invoice: InvoiceView) => invoice.lines.map((l) => l.amount);

describe('invoices service: rounding (issue 56 item 4)', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('without a rule (the default) an invoice bills the seconds as they are: today’s amounts, and a cent between groupings', () => {
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    // Three timers of 10:01 at 100.00/h: each 16.694… → 16.69; together 30:03 → 50.083… → 50.08.
    for (const day of ['05', '06', '07']) w.entry(site, `2026-10-${day}T09:00:00Z`, 601);
    const byEntry = w.get(w.create(acme, 'entry'));
    expect(quantities(byEntry)).to.deep.equal([601, 601, 601]);
    expect(amounts(byEntry)).to.deep.equal([16.69, 16.69, 16.69]);
    expect(byEntry.netTotal).to.equal(50.07);
    expect(w.services.invoices.rounding(OPERATOR, byEntry.id)).to.equal(null);
    w.void(byEntry.id);
    const byProject = w.get(w.create(acme, 'project'));
    expect(quantities(byProject)).to.deep.equal([1803]);
    expect(byProject.netTotal).to.equal(50.08);
    expect(printedLineHours(byProject.lines[0]!)).to.equal('0.500833');
  });

  it('rounds each entry before lines are grouped: the issue’s 30:40 and 10 s timers up to 6 minutes', () => {
    w.settings(['rounding', 'up-6']);
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    w.entry(site, '2026-10-05T09:00:00Z', 1840); // 0.511111 h → 0.6 h
    w.entry(site, '2026-10-06T09:00:00Z', 10); // 0.002778 h → 0.1 h
    w.entry(site, '2026-10-07T09:00:00Z', 2160); // 0.6 h exactly: stays
    const byProject = w.get(w.create(acme));
    expect(byProject.lines).to.have.length(1);
    // 2160 + 360 + 2160 = 4680 (1.3 h), not the sum 1840 + 10 + 2160 = 4010 rounded up (4320, 1.2 h): each entry on its own.
    expect(quantities(byProject)).to.deep.equal([4680]);
    expect(amounts(byProject)).to.deep.equal([130]);
    expect(printedLineHours(byProject.lines[0]!)).to.equal('1.30');
    expect(w.services.invoices.rounding(OPERATOR, byProject.id)).to.equal('up-6');
    w.void(byProject.id);
    const byEntry = w.get(w.create(acme, 'entry'));
    expect(quantities(byEntry)).to.deep.equal([2160, 360, 2160]);
    expect(amounts(byEntry)).to.deep.equal([60, 10, 60]);
    expect(byEntry.lines.map(printedLineHours)).to.deep.equal(['0.60', '0.10', '0.60']);
    expect(byEntry.netTotal).to.equal(byProject.netTotal);
  });

  it('rounds per entry, not per group: nearest 15 minutes of two 7:30 entries is 30 minutes, of their 15:00 sum it would be 15', () => {
    w.settings(['rounding', 'nearest-15']);
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    w.entry(site, '2026-10-05T09:00:00Z', 450);
    w.entry(site, '2026-10-05T10:00:00Z', 450);
    w.entry(site, '2026-10-05T11:00:00Z', 449); // 7:29 → 0
    const invoice = w.get(w.create(acme));
    expect(quantities(invoice)).to.deep.equal([1800]);
    expect(invoice.netTotal).to.equal(50);
  });

  it('a line’s net is rate × rounded seconds / 3600 rounded once, so printed hours × rate = amount (and in the XML)', () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    const site = w.project('Site', acme, 12.34);
    const other = w.project('Other', acme, 95.5);
    [601, 1578, 2555, 3532, 4400].forEach((seconds, i) => w.entry(site, `2026-10-0${i + 1}T09:00:00Z`, seconds));
    w.entry(other, '2026-10-09T09:00:00Z', 1);
    const invoice = w.get(w.create(acme, 'project'));
    // Site: 15, 30, 45, 60, 75 min = 225 min = 3.75 h × 12.34 = 46.275 → 46.28 (once), Other: 0.25 h × 95.5 = 23.875 → 23.88.
    expect(invoice.lines.map((l) => [l.description, l.quantitySec, l.amount])).to.deep.equal([
      ['Other', 900, 23.88],
      ['Site', 13_500, 46.28],
    ]);
    expect(invoice.lines.map(printedLineHours)).to.deep.equal(['0.25', '3.75']);
    const xml = einvoiceOf(invoice, false);
    for (const line of xml.lines) {
      const product = Math.round(Number(line.quantity) * Number(line.price) * 100) / 100;
      expect(product.toFixed(2), line.name).to.equal(line.net);
    }
    expect(xml.lines.map((l) => l.quantity)).to.deep.equal(['0.250000', '3.750000']);
  });

  it('with whole-euro rates and a step of 3, 6, 15, 30 or 60 minutes, per entry and per project agree to the cent', () => {
    const acme = w.client('Acme');
    const site = w.project('Site', acme, 95);
    const durations = [601, 1840, 10, 3599, 2701, 905, 47, 4444, 1201, 333];
    durations.forEach((seconds, i) => w.entry(site, `2026-10-${String(i + 1).padStart(2, '0')}T09:00:00Z`, seconds));
    for (const rule of ['up-3', 'nearest-6', 'down-15', 'up-30', 'nearest-60']) {
      w.settings(['rounding', rule]);
      const byEntry = w.get(w.create(acme, 'entry'));
      w.void(byEntry.id);
      const byProject = w.get(w.create(acme, 'project'));
      w.void(byProject.id);
      expect(byEntry.netTotal, rule).to.equal(byProject.netTotal);
      expect(
        byEntry.lines.map(printedLineHours).every((h) => /^\d+\.\d\d$/.test(h)),
        rule,
      ).to.equal(true);
    }
  });

  it('a client’s own rule wins over the workspace’s, and its none turns rounding off for it alone', () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    const globex = w.client('Globex');
    const initech = w.client('Initech');
    const projects = [w.project('A', acme), w.project('G', globex), w.project('I', initech)];
    for (const p of projects) w.entry(p, '2026-10-05T09:00:00Z', 1840);
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, acme, 'nearest-6');
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, globex, 'none');
    expect([...w.services.invoices.clientRoundings(OPERATOR, w.workspaceId)]).to.have.deep.members([
      [acme, 'nearest-6'],
      [globex, 'none'],
    ]);
    const a = w.get(w.create(acme));
    const g = w.get(w.create(globex));
    const i = w.get(w.create(initech));
    expect([quantities(a), quantities(g), quantities(i)]).to.deep.equal([[1800], [1840], [2700]]);
    expect([a, g, i].map((x) => w.services.invoices.rounding(OPERATOR, x.id))).to.deep.equal(['nearest-6', null, 'up-15']);
    // Blank goes back to the workspace's.
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, globex, '');
    expect(w.services.invoices.clientRoundings(OPERATOR, w.workspaceId).has(globex)).to.equal(false);
  });

  it('an invoice keeps the rule it was made with: a later change of the settings changes neither its lines nor its rule', () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    // What issuing checks first (its PDF's seller and buyer values: issue 56 item 1).
    w.services.invoices.setBusinessProfile(OPERATOR, w.workspaceId, {
      legalName: 'Ada Lovelace Design',
      country: 'DE',
      vatId: 'DE136695976',
    });
    w.services.catalog.clients.update(w.owner, acme, { country: 'DE' });
    const site = w.project('Site', acme);
    w.entry(site, '2026-10-05T09:00:00Z', 1840);
    const id = w.create(acme);
    w.services.invoices.issue(OPERATOR, id, { userId: w.ownerId });
    const before = w.get(id);
    w.settings(['rounding', 'down-1']);
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, acme, 'none');
    expect(w.get(id)).to.deep.equal(before);
    expect(quantities(before)).to.deep.equal([2700]);
    expect(before.netTotal).to.equal(75);
    expect(w.services.invoices.rounding(OPERATOR, id)).to.equal('up-15');
  });

  it('the preview says the rule, the time worked and the time billed, and writes nothing', () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    const entry = w.entry(site, '2026-10-05T09:00:00Z', 1840);
    w.entry(site, '2026-10-06T09:00:00Z', 10);
    const preview = w.preview(acme);
    expect(preview.rounding).to.deep.equal({ rule: 'up-15', workedSec: 1850, billedSec: 3600 });
    expect(preview.lines.map((l) => l.quantitySec)).to.deep.equal([3600]);
    expect(w.services.entries.get(w.owner, entry).invoiceId).to.equal(null);
    w.settings(['rounding', '']);
    expect(w.preview(acme).rounding).to.equal(null);
  });

  it('rounds each entry’s own duration, not its days: 23:50 to 00:20 in Berlin is 30 minutes, up to 15 stays 30', () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    // 23:50 Berlin (CEST) on 5 October to 00:20 on the 6th: 20 and 10 minutes of two days, one entry of 30.
    w.entry(site, '2026-10-05T21:50:00Z', 1800);
    const invoice = w.services.invoices.create(OPERATOR, {
      workspaceId: w.workspaceId,
      userId: w.ownerId,
      clientId: acme,
      from: '2026-10-05',
      to: '2026-10-05',
      timeZone: 'Europe/Berlin',
      groupBy: 'entry',
    });
    const lines = w.get(invoice.id).lines;
    expect(lines.map((l) => [l.description, l.quantitySec])).to.deep.equal([['5 Oct 2026 Site', 1800]]);
  });

  it('a line per member sums its entries’ rounded seconds; 5 minutes prints as exactly as the amount needs', () => {
    w.settings(['rounding', 'up-5']);
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    const colleague = w.member({ name: 'Bo', canViewOthersTime: false });
    w.entry(site, '2026-10-05T09:00:00Z', 61);
    w.entry(site, '2026-10-05T10:00:00Z', 301);
    w.entry(site, '2026-10-05T11:00:00Z', 1, colleague);
    const invoice = w.get(w.create(acme, 'member'));
    expect(invoice.lines.map((l) => [l.quantitySec, l.amount])).to.deep.equal([
      [300, 8.33],
      [900, 25],
    ]);
    // 5 minutes is no whole hundredth of an hour: 0.083333… h prints as exactly as any other such time (six places).
    expect(invoice.lines.map(printedLineHours)).to.deep.equal(['0.083333', '0.25']);
  });

  it('who sets a client’s rule: owners and the operator; a member is refused; a rule that is none of the 24 is refused at its field', () => {
    const acme = w.client('Acme');
    const member = w.member({ canViewOthersTime: true, canViewOthersMoney: true });
    const refused = refusal(() => w.services.invoices.setClientRounding(member, w.workspaceId, acme, 'up-15'));
    expect(refused.code).to.equal('forbidden');
    const stranger = w.member();
    expect(refusal(() => w.services.invoices.setClientRounding(stranger, w.workspaceId, acme, 'up-15')).code).to.equal('not_found');
    const bad: DomainError = refusal(() => w.services.invoices.setClientRounding(w.owner, w.workspaceId, acme, 'up-7'));
    expect([bad.code, bad.field]).to.deep.equal(['invalid', 'rounding']);
    expect(refusal(() => w.services.invoices.setClientRounding(w.owner, w.workspaceId, 'cli_nothing', 'up-15')).code).to.equal('not_found');
    expect(w.services.invoices.setClientRounding(w.owner, w.workspaceId, acme, 'Down 10')).to.deep.equal({ id: acme });
    expect(w.services.invoices.clientRoundings(w.owner, w.workspaceId).get(acme)).to.equal('down-10');
    // The API's client does not carry it (the contract is unchanged): a web app and command line setting.
    expect(w.services.catalog.clients.get(w.owner, acme)).to.not.have.property('rounding');
  });
});

describe('invoices service: rounding travels with the whole-workspace export (issue 56 item 4)', () => {
  let w: ReturnType<typeof setup>;
  let dir: string;
  beforeEach(() => {
    w = setup();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-rounding-'));
  });
  afterEach(() => {
    w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function exported(): Promise<string> {
    let text = '';
    for await (const chunk of w.services.imports.exportWorkspace(OPERATOR, { workspaceId: w.workspaceId }).chunks) text += chunk;
    return text;
  }
  async function restore(text: string) {
    const path = join(dir, `export-${Date.now()}.csv`);
    writeFileSync(path, text);
    const { id } = w.services.accounts.createWorkspace(OPERATOR, { name: 'Restored', currency: 'EUR' });
    const outcome = await w.services.imports.run(OPERATOR, { workspaceId: id, path, createMembers: true });
    return { id, outcome };
  }

  it('carries the workspace’s rule, a client’s own and each invoice’s; an import restores them as they were', async () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    const globex = w.client('Globex');
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, acme, 'nearest-6');
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, globex, 'none');
    w.entry(w.project('Site', acme), '2026-10-05T09:00:00Z', 1840);
    const invoice = w.get(w.create(acme));
    const { id, outcome } = await restore(await exported());
    expect(outcome.report.refused).to.deep.equal([]);
    expect(w.services.invoices.settings(OPERATOR, id).rounding).to.equal('up-15');
    const clients = new Map(w.services.catalog.clients.list({ ...w.owner, workspaceId: id }, {}).map((c) => [c.name, c.id]));
    const rules = w.services.invoices.clientRoundings(OPERATOR, id);
    expect([rules.get(clients.get('Acme')!), rules.get(clients.get('Globex')!)]).to.deep.equal(['nearest-6', 'none']);
    const [restored] = w.services.invoices.list(OPERATOR, id);
    expect(restored!.lines.map((l) => l.quantitySec)).to.deep.equal(quantities(invoice));
    expect(w.services.invoices.rounding(OPERATOR, restored!.id)).to.equal('nearest-6');
  });

  it('refuses a file whose rule is none of the rules, naming it; nothing is written', async () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    w.entry(w.project('Site', acme), '2026-10-05T09:00:00Z', 1840);
    w.create(acme);
    const text = await exported();
    expect(text).to.contain('""rounding"":""up-15""');
    const forged = await restore(text.replaceAll('""rounding"":""up-15""', '""rounding"":""up-7""'));
    expect(forged.outcome.stopped).to.equal(true);
    expect(forged.outcome.report.refused.map((r) => r.message).join(' ')).to.match(/rounding must be none, or up, nearest or down/);
    expect(w.services.invoices.list(OPERATOR, forged.id)).to.deep.equal([]);
  });
});

describe('command line: rounding (issue 56 item 4)', () => {
  let w: ReturnType<typeof setup>;
  let dir: string;
  beforeEach(() => {
    w = setup();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-rounding-cli-'));
  });
  afterEach(() => {
    w.close();
    rmSync(dir, { recursive: true, force: true });
  });
  async function cli(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => ({ ...w.database, close: () => {} }),
      createServices: () => w.services,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr };
  }
  const json = async (...argv: string[]) => {
    const run = await cli(...argv, '--json');
    return {
      code: run.code,
      out: run.stdout ? JSON.parse(run.stdout) : undefined,
      error: run.stderr ? JSON.parse(run.stderr).error : undefined,
    };
  };

  it('workspace invoicing sets the workspace’s rule and, with --client, a client’s own; invoice show prints the invoice’s', async () => {
    const ws = w.workspaceId;
    expect((await json('workspace', 'invoicing', ws, '--set', 'rounding=Up 15')).out).to.deep.equal({ id: ws });
    expect((await json('workspace', 'invoicing', ws)).out.invoicing.rounding).to.equal('up-15');
    const acme = w.client('Acme');
    expect((await json('workspace', 'invoicing', ws, '--client', acme)).out).to.deep.equal({
      client: acme,
      rounding: null,
      language: null,
    });
    expect((await json('workspace', 'invoicing', ws, '--client', acme, '--set', 'rounding=nearest-6')).out).to.deep.equal({ id: acme });
    expect((await json('workspace', 'invoicing', ws, '--client', acme)).out).to.deep.equal({
      client: acme,
      rounding: 'nearest-6',
      language: null,
    });

    const usage = await json('workspace', 'invoicing', ws, '--client', acme, '--set', 'taxRate=19');
    expect(usage.code).to.equal(2);
    expect(usage.error.message).to.match(/--client takes only --set rounding=… and --set language=…/);
    const bad = await json('workspace', 'invoicing', ws, '--set', 'rounding=up-7');
    expect([bad.code, bad.error.code]).to.deep.equal([1, 'invalid']);
    expect(bad.error.message).to.match(/rounding must be none, or up, nearest or down to 1, 3, 5, 6, 10, 15, 30 or 60 minutes/);

    w.entry(w.project('Site', acme), '2026-10-05T09:00:00Z', 1840);
    const id = w.create(acme);
    const shown = await json('invoice', 'show', id);
    expect(shown.out.rounding).to.equal('nearest-6');
    expect(shown.out.invoice.lines[0].quantitySec).to.equal(1800);
    const human = await cli('invoice', 'show', id);
    expect(human.stdout).to.include('rounding: each entry to the nearest 6 minutes');
    expect(human.stdout).to.match(/Site\s+0\.50 h × +100 =/);
  });

  it('report export --rounded writes each entry rounded; without it, the time as tracked', async () => {
    w.settings(['rounding', 'up-15']);
    const acme = w.client('Acme');
    w.entry(w.project('Site', acme), '2026-10-05T09:00:00Z', 1840);
    const out = join(dir, 'entries.csv');
    const base = ['report', 'export', '--workspace', w.workspaceId, '--user', w.ownerId, '--kind', 'detailed', '--format', 'csv'];
    const range = ['--from', '2026-10-01', '--to', '2026-10-31', '--time-zone', 'UTC', '--out', out];
    expect((await json(...base, ...range, '--rounded')).code).to.equal(0);
    const hours = (text: string) =>
      text
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n')[1]!
        .split(',')[3];
    expect(hours(readFileSync(out, 'utf8'))).to.equal('0.75');
    expect((await json(...base, ...range)).code).to.equal(0);
    expect(hours(readFileSync(out, 'utf8'))).to.equal('0.51');
  });
});
