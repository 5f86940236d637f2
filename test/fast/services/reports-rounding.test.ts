import { expect } from 'chai';
import { roundingSentence } from '../../../src/modules/reports/service.js';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/*
 * Reports rounded as invoices round (issue 56 item 4), when the reader asks: each entry by its
 * client's rule, else the workspace's; its amount made of the rounded time. Without asking, and
 * always over the REST API, a report is the time as tracked.
 */
describe('reports service: rounded when the reader asks (issue 56 item 4)', () => {
  let w: ServiceWorld;
  let ids: { acme: string; globex: string; site: string; shop: string; internal: string };
  const range = { from: '2026-10-01', to: '2026-10-31', timeZone: 'Europe/Berlin' };
  const entry = (projectId: string | null, start: string, seconds: number, billable = true, tagIds: string[] = [], by: Actor = w.owner) =>
    w.services.entries.create(by, {
      ...(projectId ? { projectId } : {}),
      start,
      end: new Date(Date.parse(start) + seconds * 1000).toISOString(),
      billable,
      tagIds,
    }).id;

  beforeEach(() => {
    w = memoryServices();
    const { services, owner, workspaceId } = w;
    const acme = services.catalog.clients.create(owner, { name: 'Acme' }).id;
    const globex = services.catalog.clients.create(owner, { name: 'Globex' }).id;
    const site = services.catalog.projects.create(owner, { name: 'Site', clientId: acme, billable: true, hourlyRate: 100 }).id;
    const shop = services.catalog.projects.create(owner, { name: 'Shop', clientId: globex, billable: true, hourlyRate: 90 }).id;
    const internal = services.catalog.projects.create(owner, { name: 'Internal', clientId: null, billable: false, hourlyRate: 60 }).id;
    ids = { acme, globex, site, shop, internal };
    services.invoices.setSettings(OPERATOR, workspaceId, { rounding: 'up-15' });
    services.invoices.setClientRounding(OPERATOR, workspaceId, globex, 'nearest-6');
    const red = services.catalog.tags.create(owner, { name: 'red' }).id;
    entry(site, '2026-10-05T07:00:00Z', 1840, true, [red]); // Acme, workspace's up-15: 45:00
    entry(site, '2026-10-05T09:00:00Z', 10); // 15:00
    entry(shop, '2026-10-06T07:00:00Z', 1840, true, [red]); // Globex, nearest-6: 30:00
    entry(shop, '2026-10-06T09:00:00Z', 170); // 0:00 (2:50 is under half of 6 minutes)
    entry(internal, '2026-10-07T07:00:00Z', 61, false); // no client, not billable: up-15, 15:00, worth nothing
    entry(null, '2026-10-07T09:00:00Z', 3601, false); // no project: up-15, 1:15:00
  });
  afterEach(() => w.close());

  const byName = (groups: Array<{ name: string | null; durationSec: number; billableSec: number; amount: number }>) =>
    Object.fromEntries(groups.map((g) => [g.name ?? '(none)', [g.durationSec, g.billableSec, g.amount]]));

  it('the time as tracked unless asked: the REST API’s summary and detailed report are unchanged', () => {
    const summary = w.services.reports.summary(w.owner, { ...range, groupBy: 'client' });
    expect(byName(summary.groups)).to.deep.equal({
      Acme: [1850, 1850, 51.39],
      Globex: [2010, 2010, 50.25],
      '(none)': [3662, 0, 0],
    });
    const rows = w.services.reports.detailed(w.owner, { ...range, limit: 50 }).rows;
    expect(rows.map((r) => r.durationSec)).to.deep.equal([1840, 10, 1840, 170, 61, 3601]);
  });

  it('asked, each entry by its client’s rule (Globex nearest 6), else the workspace’s (up to 15): hours, billable hours and amounts', () => {
    const summary = w.services.reports.summaryWindow(
      w.owner,
      { ...range, groupBy: 'client' },
      { offset: 0, limit: 10, subGroups: 10 },
      { rounded: true },
    );
    expect(byName(summary.groups)).to.deep.equal({
      // 45:00 + 15:00 at 100/h; 30:00 + 0:00 at 90/h; 15:00 + 1:15:00, not billable.
      Acme: [3600, 3600, 100],
      Globex: [1800, 1800, 45],
      '(none)': [5400, 0, 0],
    });
    expect(summary.totals).to.deep.equal({ durationSec: 10_800, billableSec: 5400, amount: 145, entryCount: 6 });
    expect(summary.rounding).to.deep.equal({ rule: 'up-15', clients: [{ name: 'Globex', rule: 'nearest-6' }] });
    expect(roundingSentence(summary.rounding!)).to.equal(
      'Rounded as invoices are, each entry on its own: up to 15 minutes (Globex: to the nearest 6 minutes).',
    );
  });

  it('rounds each entry, not a day or a group: by day, by tag and by member the rounded entries add up', () => {
    const options = { rounded: true } as const;
    const byDay = w.services.reports.summaryWindow(w.owner, { ...range, groupBy: 'day' }, { offset: 0, limit: 10, subGroups: 0 }, options);
    expect(byDay.groups.map((g) => [g.key, g.durationSec])).to.deep.equal([
      ['2026-10-05', 3600],
      ['2026-10-06', 1800],
      ['2026-10-07', 5400],
    ]);
    const byTag = w.services.reports.summaryWindow(w.owner, { ...range, groupBy: 'tag' }, { offset: 0, limit: 10, subGroups: 0 }, options);
    expect(byTag.groups.map((g) => [g.name, g.durationSec, g.amount])).to.deep.equal([
      ['red', 4500, 120],
      [null, 6300, 25],
    ]);
    const byUser = w.services.reports.summaryWindow(
      w.owner,
      { ...range, groupBy: 'user', subGroupBy: 'project' },
      { offset: 0, limit: 10, subGroups: 10 },
      options,
    );
    expect(byUser.totals.durationSec).to.equal(10_800);
    expect(byUser.groups[0]!.subGroups!.map((s) => [s.name, s.durationSec])).to.have.deep.members([
      ['Site', 3600],
      ['Shop', 1800],
      ['Internal', 900],
      [null, 4500],
    ]);
  });

  it('the detailed rows of a rounded report: each entry’s rounded time and its amount of it; the start and end as tracked', () => {
    const page = w.services.reports.detailed(w.owner, { ...range, limit: 50 }, { rounded: true });
    expect(page.rows.map((r) => [r.durationSec, r.amount])).to.deep.equal([
      [2700, 75],
      [900, 25],
      [1800, 45],
      [0, 0],
      [900, 0],
      [4500, 0],
    ]);
    expect(page.rows[0]!.end).to.equal('2026-10-05T07:30:40.000Z');
  });

  it('a client’s none turns it off for that client; no rule at all leaves every entry as tracked and says so', () => {
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, ids.acme, 'none');
    const rounded = w.services.reports.summaryWindow(
      w.owner,
      { ...range, groupBy: 'client' },
      { offset: 0, limit: 10, subGroups: 0 },
      { rounded: true },
    );
    expect(byName(rounded.groups).Acme).to.deep.equal([1850, 1850, 51.39]);
    expect(roundingSentence(rounded.rounding!)).to.equal(
      'Rounded as invoices are, each entry on its own: up to 15 minutes (Acme: not rounded; Globex: to the nearest 6 minutes).',
    );
    w.services.invoices.setSettings(OPERATOR, w.workspaceId, { rounding: null });
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, ids.acme, '');
    w.services.invoices.setClientRounding(OPERATOR, w.workspaceId, ids.globex, '');
    const none = w.services.reports.summaryWindow(
      w.owner,
      { ...range, groupBy: 'client' },
      { offset: 0, limit: 10, subGroups: 0 },
      { rounded: true },
    );
    expect(none.totals.durationSec).to.equal(7522);
    expect(roundingSentence(none.rounding!)).to.equal('Rounded as invoices are: no rounding rule is set, so the time is as tracked.');
  });

  it('withheld money stays withheld when rounded: a member who sees colleagues’ time only gets rounded hours, no amounts', () => {
    const reader = w.member({ canViewOthersTime: true, canViewOthersMoney: false });
    const summary = w.services.reports.summaryWindow(
      reader,
      { ...range, groupBy: 'client' },
      { offset: 0, limit: 10, subGroups: 0 },
      { rounded: true, unseenMoney: 'withhold' },
    );
    expect(summary.moneyWithheld).to.equal(true);
    expect(byName(summary.groups).Acme).to.deep.equal([3600, 3600, 0]);
    const rows = w.services.reports.detailed(reader, { ...range, limit: 50 }, { rounded: true, unseenMoney: 'withhold' }).rows;
    expect(rows.map((r) => [r.durationSec, r.amount])[0]).to.deep.equal([2700, null]);
  });

  it('the exports of a rounded report: rounded rows, the rule in the head, -rounded in the file name', async () => {
    const base = {
      format: 'csv' as const,
      from: range.from,
      to: range.to,
      timeZone: range.timeZone,
      weekStart: 'monday' as const,
      groupBy: 'client' as const,
      subGroupBy: null,
    };
    const detailed = w.services.reports.exportTable(w.owner, { ...base, kind: 'detailed', rounded: true });
    expect(detailed.head.rounded).to.equal(
      'Rounded as invoices are, each entry on its own: up to 15 minutes (Globex: to the nearest 6 minutes).',
    );
    const rows: unknown[][] = [];
    for await (const batch of detailed.batches) for (const row of batch) rows.push(row.cells);
    expect(rows.map((cells) => cells[3])).to.deep.equal([2700, 900, 1800, 0, 900, 4500]);
    expect(detailed.totals()).to.deep.equal({ seconds: 10_800, amount: 145, count: 6 });
    const summary = w.services.reports.exportTable(w.owner, { ...base, kind: 'summary', rounded: true });
    expect(summary.totals()).to.deep.equal({ seconds: 10_800, amount: 145, count: 6 });
    const plain = w.services.reports.exportTable(w.owner, { ...base, kind: 'summary' });
    expect(plain.head.rounded).to.equal(null);
    expect(plain.totals().seconds).to.equal(7522);
    const { exportFileName } = await import('../../../src/modules/reports/export/index.js');
    expect(exportFileName({ kind: 'detailed', format: 'csv', from: '2026-10-01', to: '2026-10-31', rounded: true })).to.equal(
      'timetrack-entries-2026-10-01-to-2026-10-31-rounded.csv',
    );
  });
});
