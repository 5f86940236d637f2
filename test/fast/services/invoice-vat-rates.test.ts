import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { type InvoiceView, settingsPatchOfText } from '../../../src/modules/invoices/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { refusal } from '../../helpers/refusal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * More than one VAT rate on one invoice (issue 57 item 2, decisions §12): a project and a task may
 * carry their own category and rate; each line of time carries its work's (the task's, else the
 * project's, else the invoice's own); the breakdown has a row per (category, rate); the client's
 * reverse charge, intra-community supply, export and "not subject", and a small business, still win.
 */

function setup() {
  const world = memoryServices();
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
  const self = {
    ...world,
    settings: (...pairs: Array<[string, string]>) => services.invoices.setSettings(OPERATOR, workspaceId, settingsPatchOfText(pairs)),
    client: (name: string, taxCategory: 'AE' | 'G' | 'O' | 'E' | null = null) =>
      services.catalog.clients.create(owner, {
        name,
        ...(taxCategory === null ? {} : { taxCategory, exemptionReason: taxCategory === 'E' ? 'Exempt under § 4 UStG' : null }),
      }).id,
    project: (name: string, clientId: string, hourlyRate = 100) =>
      services.catalog.projects.create(owner, { name, clientId, billable: true, hourlyRate }).id,
    task: (name: string, projectId: string) => services.catalog.tasks.create(owner, { name, projectId }).id,
    tax: (kind: 'project' | 'task', id: string, taxCategory: string, taxRate: string | number = '') =>
      services.invoices.setWorkTax(OPERATOR, workspaceId, { kind, id }, { taxCategory, taxRate }),
    entry: (projectId: string, start: string, seconds: number, taskId?: string) =>
      services.entries.create(owner, {
        projectId,
        ...(taskId ? { taskId } : {}),
        start,
        end: new Date(Date.parse(start) + seconds * 1000).toISOString(),
        billable: true,
      }).id,
    create: (clientId: string, groupBy = 'project') =>
      services.invoices.create(OPERATOR, {
        workspaceId,
        userId: ownerId,
        clientId,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: groupBy as 'project',
      }).id,
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

const taxes = (invoice: Pick<InvoiceView, 'lines'>) =>
  invoice.lines.map((l) => [l.description, l.amount, l.taxCategory, l.taxRate ?? null]);
const rows = (invoice: Pick<InvoiceView, 'taxBreakdown'>) =>
  (invoice.taxBreakdown ?? []).map((r) => [r.category, r.rate, r.basisAmount, r.taxAmount]);

describe('invoices service: a VAT rate per project and task (issue 57 item 2)', () => {
  let w: ReturnType<typeof setup>;
  beforeEach(() => {
    w = setup();
  });
  afterEach(() => w.close());

  it('a book’s text at 7 %, its consulting task at 19 %: each line at its work’s rate, a breakdown row per rate, exact totals', () => {
    const verlag = w.client('Verlag');
    const book = w.project('Buch', verlag, 80);
    const consulting = w.task('Beratung', book);
    const plain = w.task('Lektorat', book);
    w.tax('project', book, 'S', '7');
    w.tax('task', consulting, 'S', 19);
    w.entry(book, '2026-10-05T09:00:00Z', 3 * 3600, plain); // 240.00 at 7 %
    w.entry(book, '2026-10-06T09:00:00Z', 2 * 3600 + 1800); // 200.00 at 7 % (no task: the project's)
    w.entry(book, '2026-10-07T09:00:00Z', 5400, consulting); // 120.00 at 19 %

    const byProject = w.get(w.create(verlag));
    // One project, two rates: two lines (time taxed differently is never on one line).
    expect(taxes(byProject)).to.deep.equal([
      ['Buch', 440, 'S', 7],
      ['Buch', 120, 'S', 19],
    ]);
    expect(rows(byProject)).to.deep.equal([
      ['S', 7, 440, 30.8],
      ['S', 19, 120, 22.8],
    ]);
    expect([byProject.netTotal, byProject.taxTotal, byProject.grossTotal]).to.deep.equal([560, 53.6, 613.6]);
    w.void(byProject.id);

    const byTask = w.get(w.create(verlag, 'task'));
    expect(taxes(byTask)).to.deep.equal([
      ['Buch', 200, 'S', 7],
      ['Buch – Beratung', 120, 'S', 19],
      ['Buch – Lektorat', 240, 'S', 7],
    ]);
    expect(rows(byTask)).to.deep.equal(rows(byProject));
    w.void(byTask.id);

    // One line for the period: one per rate.
    const single = w.get(w.create(verlag, 'single'));
    expect(single.lines.map((l) => [l.amount, l.taxRate])).to.deep.equal([
      [440, 7],
      [120, 19],
    ]);
    w.void(single.id);
    const byEntry = w.get(w.create(verlag, 'entry'));
    expect(byEntry.lines.map((l) => l.taxRate)).to.deep.equal([7, 7, 19]);
  });

  it('a zero-rated task beside the standard rate: a Z row of 0, the rest at the workspace’s 19 %', () => {
    const acme = w.client('Acme');
    const site = w.project('Site', acme);
    const export_ = w.task('Zero', site);
    w.tax('task', export_, 'Z');
    w.entry(site, '2026-10-05T09:00:00Z', 3600);
    w.entry(site, '2026-10-06T09:00:00Z', 3600, export_);
    const invoice = w.get(w.create(acme));
    expect(taxes(invoice)).to.deep.equal([
      ['Site', 100, 'S', 19],
      ['Site', 100, 'Z', 0],
    ]);
    expect(rows(invoice)).to.deep.equal([
      ['S', 19, 100, 19],
      ['Z', 0, 100, 0],
    ]);
    expect(invoice.taxBreakdown?.map((r) => [r.exemptionReason, r.exemptionReasonCode])).to.deep.equal([
      [null, null],
      [null, null],
    ]);
  });

  it('the client’s reverse charge (AE), export (G) and “not subject” (O), and a small business, win over a project’s own rate', () => {
    const austria = w.client('Wien GmbH', 'AE');
    const usa = w.client('Acme Inc', 'G');
    const outside = w.client('Outside', 'O');
    const projects = [austria, usa, outside].map((c) => {
      const p = w.project('Buch', c);
      w.tax('project', p, 'S', 7);
      w.entry(p, '2026-10-05T09:00:00Z', 3600);
      return p;
    });
    expect(projects).to.have.length(3);
    for (const [client, category] of [
      [austria, 'AE'],
      [usa, 'G'],
      [outside, 'O'],
    ] as const) {
      const invoice = w.preview(client);
      expect(taxes(invoice), category).to.deep.equal([['Buch', 100, category, 0]]);
      expect(rows(invoice), category).to.deep.equal([[category, 0, 100, 0]]);
    }
    // An exempt client (E) does not win: the decision keeps it to AE, K, G (and O, which mixes with nothing).
    const school = w.client('Schule', 'E');
    const course = w.project('Kurs', school);
    w.tax('project', course, 'S', 7);
    w.entry(course, '2026-10-05T09:00:00Z', 3600);
    expect(taxes(w.preview(school))).to.deep.equal([['Kurs', 100, 'S', 7]]);
    // A small business charges no VAT on anything (§ 19 UStG).
    w.services.invoices.setBusinessProfile(OPERATOR, w.workspaceId, { smallBusiness: true });
    w.settings(['exemptionReason', 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.']);
    const verlag = w.client('Verlag');
    const book = w.project('Buch', verlag);
    w.tax('project', book, 'S', 7);
    w.entry(book, '2026-10-05T09:00:00Z', 3600);
    expect(taxes(w.preview(verlag))).to.deep.equal([['Buch', 100, 'E', 0]]);
  });

  it('a project’s own rate needs no workspace rate; time of other projects still lacks it, named', () => {
    w.settings(['taxRate', '']);
    const verlag = w.client('Verlag');
    const book = w.project('Buch', verlag);
    const web = w.project('Website', verlag);
    w.tax('project', book, 'S', 7);
    w.entry(book, '2026-10-05T09:00:00Z', 3600);
    expect(w.preview(verlag).missingTax).to.deep.equal([]);
    w.entry(web, '2026-10-06T09:00:00Z', 3600);
    const draft = w.preview(verlag);
    expect(draft.missingTax.map((m) => m.setting)).to.deep.equal(['taxRate']);
    expect(taxes(draft)).to.deep.equal([
      ['Buch', 100, 'S', 7],
      ['Website', 100, 'S', null],
    ]);
    expect(rows(draft)).to.deep.equal([['S', 7, 100, 7]]);
  });

  it('invoices keep the rates they were made with: a later change of the project’s rate changes the next invoice only', () => {
    const verlag = w.client('Verlag');
    const book = w.project('Buch', verlag);
    w.tax('project', book, 'S', 7);
    w.entry(book, '2026-10-05T09:00:00Z', 3600);
    const first = w.create(verlag);
    w.tax('project', book, '');
    expect(w.get(first).lines[0]?.taxRate).to.equal(7);
    w.void(first);
    expect(w.get(w.create(verlag)).lines[0]?.taxRate).to.equal(19);
  });

  it('who sets it and what it takes: owners and the operator; S with a rate above 0 and below 100, or Z; refusals at their field in words for people', () => {
    const verlag = w.client('Verlag');
    const book = w.project('Buch', verlag);
    const task = w.task('Satz', book);
    const member = w.member({ canViewOthersTime: true, canViewOthersMoney: true });
    expect(
      refusal(() => w.services.invoices.setWorkTax(member, w.workspaceId, { kind: 'project', id: book }, { taxCategory: 'S', taxRate: 7 }))
        .code,
    ).to.equal('forbidden');
    expect(
      w.services.invoices.setWorkTax(w.owner, w.workspaceId, { kind: 'task', id: task }, { taxCategory: 's', taxRate: '7,5' }),
    ).to.deep.equal({ id: task });
    expect(w.services.invoices.workTaxes(w.owner, w.workspaceId).tasks.get(task)).to.deep.equal({ category: 'S', rate: 7.5 });
    const cases: Array<[string, unknown, string, RegExp]> = [
      ['S', '', 'taxRate', /percentage above 0 and below 100/],
      ['S', 0, 'taxRate', /percentage above 0 and below 100/],
      ['S', 100, 'taxRate', /percentage above 0 and below 100/],
      ['S', '7%', 'taxRate', /percentage above 0 and below 100/],
      ['Z', 7, 'taxRate', /Z \(zero rated\) takes no rate/],
      ['AE', '', 'taxCategory', /are the client's or the workspace's/],
      ['', 7, 'taxCategory', /without a category the invoice's own tax applies/],
    ];
    for (const [taxCategory, taxRate, field, message] of cases) {
      const error = refusal(() => w.tax('project', book, taxCategory, taxRate as string));
      expect([error.code, error.field], `${taxCategory} ${String(taxRate)}`).to.deep.equal(['invalid', field]);
      expect(error.message).to.match(message);
      expect(error.people, 'said for people')
        .to.be.a('string')
        .and.not.match(/taxRate|taxCategory/);
    }
    expect(w.services.invoices.workTaxes(OPERATOR, w.workspaceId).projects.has(book)).to.equal(false);
    // Another workspace's project is not found.
    const other = w.services.accounts.createWorkspace(OPERATOR, { name: 'Other' });
    expect(
      refusal(() => w.services.invoices.setWorkTax(OPERATOR, other.id, { kind: 'project', id: book }, { taxCategory: 'Z' })).code,
    ).to.equal('not_found');
    // The API's project and task do not change (no tax in their views; the REST contract stays as it is).
    expect(Object.keys(w.services.catalog.tasks.get(w.owner, task))).to.not.include('taxCategory');
    expect(Object.keys(w.services.catalog.projects.get(w.owner, book))).to.not.include('taxRate');
  });

  describe('on the command line (workspace invoicing --project / --task)', () => {
    async function json(...argv: string[]) {
      let stdout = '';
      let stderr = '';
      const code = await runCli([...argv, '--json'], {
        openDatabase: () => ({ ...w.database, close: () => {} }),
        createServices: () => w.services,
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
      });
      return { code, out: stdout ? JSON.parse(stdout) : undefined, error: stderr ? JSON.parse(stderr).error : undefined };
    }

    it('prints and sets a project’s and a task’s own VAT; a blank category gives it back; bad values exit 1 saying what to give', async () => {
      const ws = w.workspaceId;
      const book = w.project('Buch', w.client('Verlag'));
      const task = w.task('Beratung', book);
      expect((await json('workspace', 'invoicing', ws, '--project', book)).out).to.deep.equal({
        project: book,
        taxCategory: null,
        taxRate: null,
      });
      expect(
        (await json('workspace', 'invoicing', ws, '--project', book, '--set', 'taxCategory=S', '--set', 'taxRate=7')).out,
      ).to.deep.equal({
        id: book,
      });
      expect((await json('workspace', 'invoicing', ws, '--project', book)).out).to.deep.equal({
        project: book,
        taxCategory: 'S',
        taxRate: 7,
      });
      expect((await json('workspace', 'invoicing', ws, '--task', task, '--set', 'taxCategory=Z')).out).to.deep.equal({ id: task });
      expect((await json('workspace', 'invoicing', ws, '--task', task)).out).to.deep.equal({ task, taxCategory: 'Z', taxRate: 0 });
      expect((await json('workspace', 'invoicing', ws, '--task', task, '--set', 'taxCategory=')).out).to.deep.equal({ id: task });
      expect((await json('workspace', 'invoicing', ws, '--task', task)).out).to.deep.equal({ task, taxCategory: null, taxRate: null });
      const bad = await json('workspace', 'invoicing', ws, '--project', book, '--set', 'taxCategory=S', '--set', 'taxRate=0');
      expect([bad.code, bad.error.code]).to.deep.equal([1, 'invalid']);
      expect(bad.error.message).to.match(/taxCategory S needs taxRate, a percentage above 0 and below 100/);
      const usage = await json('workspace', 'invoicing', ws, '--project', book, '--set', 'rounding=up-15');
      expect([usage.code, usage.error.code]).to.deep.equal([2, 'usage']);
      const both = await json('workspace', 'invoicing', ws, '--project', book, '--task', task);
      expect(both.code).to.equal(2);
      expect((await json('workspace', 'invoicing', ws, '--project', book)).out.taxRate).to.equal(7);
    });
  });
});
