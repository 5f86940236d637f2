import { expect } from 'chai';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';
import { seed } from '../../helpers/seed.js';

const GROUPINGS = ['project', 'client', 'task', 'tag', 'user', 'billable', 'day', 'week', 'month'] as const;

/**
 * The reader threads answer a summary with the JSON text `summaryJson` writes, without the
 * objects: it must be, byte for byte, what JSON.stringify makes of `summary` (the objects every
 * other caller gets), for every grouping and sub-grouping. (Against the builder before issue 27
 * the same held on the bench dataset, 162 queries: docs/benchmarks.md.)
 */
describe('summary report as JSON text', () => {
  let world: ServiceWorld;
  before(() => {
    world = memoryServices();
    const ada = { name: 'Ada "Countess" Lovelace' };
    seed(world, {
      members: { ada, bob: { name: 'Bob \u00e9\u00e8 \ud83d\ude00' } },
      clients: { acme: { name: 'Acme\\Corp' }, zeta: { name: 'zeta' } },
      projects: {
        web: { name: 'Web "site"', client: 'acme', hourlyRate: 90.5 },
        app: { name: 'app', client: 'zeta', billable: false },
        ops: { name: 'Ops\n', hourlyRate: 33.33 },
      },
      tasks: { design: { name: 'Design', project: 'web' }, build: { name: 'build', project: 'app' } },
      tags: { red: { name: 'red' }, blue: { name: 'Blue' }, green: { name: '\u00c5ngstr\u00f6m' } },
      entries: {
        a: { by: 'ada', start: '2026-03-01T22:30:00Z', end: '2026-03-02T01:10:00Z', project: 'web', task: 'design', tags: ['red', 'blue'] },
        b: { by: 'bob', start: '2026-03-02T09:00:00Z', end: '2026-03-02T09:00:07Z', project: 'app', task: 'build', tags: ['green'] },
        c: { by: 'owner', start: '2026-03-09T10:00:00Z', end: '2026-03-09T11:13:00Z', project: 'ops', billable: true },
        d: { by: 'ada', start: '2026-03-15T07:00:00Z', end: '2026-03-15T08:01:01Z', tags: ['blue', 'green', 'red'] },
        e: { by: 'bob', start: '2026-03-29T00:30:00Z', end: '2026-03-29T03:30:00Z', project: 'web', billable: false, tags: ['red'] },
        f: { by: 'owner', start: '2026-03-31T23:00:00Z', end: '2026-04-01T01:00:00Z', project: 'ops', task: undefined, tags: [] },
      },
    });
  });
  after(() => world.close());

  for (const groupBy of GROUPINGS)
    for (const subGroupBy of [undefined, ...GROUPINGS.filter((g) => g !== groupBy)])
      it(`groupBy=${groupBy}${subGroupBy ? `&subGroupBy=${subGroupBy}` : ''}`, () => {
        const query = { from: '2026-03-01', to: '2026-04-02', timeZone: 'Europe/Berlin', groupBy, ...(subGroupBy ? { subGroupBy } : {}) };
        const objects = world.services.reports.summary(world.owner, query);
        expect(objects.groups.length).to.be.greaterThan(0);
        if (subGroupBy) expect(objects.groups.every((g) => (g.subGroups?.length ?? 0) >= 1)).to.equal(true);
        expect(world.services.reports.summaryJson(world.owner, query)).to.equal(JSON.stringify(objects));
      });

  it("a page's window: the groups from its offset, each with its largest sub-groups in the report's order and the rest counted and summed", () => {
    const query = { from: '2026-03-01', to: '2026-04-02', timeZone: 'Europe/Berlin', groupBy: 'user' as const, subGroupBy: 'tag' as const };
    const whole = world.services.reports.summary(world.owner, query);
    // Everything fits: the same groups and sub-groups as the report, nothing left over.
    const all = world.services.reports.summaryWindow(world.owner, query, { offset: 0, limit: 100, subGroups: 100 });
    expect(all.groupCount).to.equal(whole.groups.length);
    expect(all.totals).to.deep.equal(whole.totals);
    expect(all.groups).to.deep.equal(whole.groups);
    // Ada's three tags (red and Blue tie for the most time): one kept, the earlier of the tie in the report's order; two summed.
    const ada = whole.groups.findIndex((g) => g.name === 'Ada "Countess" Lovelace');
    const one = world.services.reports.summaryWindow(world.owner, query, { offset: ada, limit: 1, subGroups: 1 });
    expect(one.groupCount).to.equal(whole.groups.length);
    expect(one.groups).to.have.length(1);
    const subs = whole.groups[ada]?.subGroups ?? [];
    const largest = Math.max(...subs.map((g) => g.durationSec));
    const kept = subs.find((g) => g.durationSec === largest);
    expect(one.groups[0]?.subGroups).to.deep.equal([kept]);
    const rest = subs.filter((g) => g !== kept);
    expect(one.groups[0]?.otherSubGroups).to.deep.equal({
      count: rest.length,
      durationSec: rest.reduce((t, g) => t + g.durationSec, 0),
      billableSec: rest.reduce((t, g) => t + g.billableSec, 0),
      amount: Math.round(rest.reduce((t, g) => t + g.amount, 0) * 100) / 100,
      entryCount: rest.reduce((t, g) => t + g.entryCount, 0),
    });
    // Past the last group: none, and the count still says how many there are.
    const past = world.services.reports.summaryWindow(world.owner, query, { offset: 50, limit: 10, subGroups: 10 });
    expect(past.groups).to.deep.equal([]);
    expect(past.groupCount).to.equal(whole.groups.length);
  });

  it('an empty range: no groups', () => {
    const query = { from: '2020-01-01', to: '2020-01-02', groupBy: 'tag' as const, subGroupBy: 'project' as const };
    const text = world.services.reports.summaryJson(world.owner, query);
    expect(text).to.equal(JSON.stringify(world.services.reports.summary(world.owner, query)));
    expect((JSON.parse(text) as { groups: unknown[] }).groups).to.deep.equal([]);
  });
});
