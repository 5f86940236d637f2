import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import fc from 'fast-check';
import type { operations } from '../../generated/openapi.js';
import type { Actor } from '../../src/principal.js';
import { expectTypedProblem, typedClient } from '../helpers/client.js';
import { seed } from '../helpers/seed.js';
import {
  addMemberWithToken,
  expectProblem,
  type FreshWorkspace,
  freshWorkspace,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';

const T = (iso: string) => Date.parse(iso);
type SummaryQuery = operations['getSummaryReport']['parameters']['query'];
type DetailedQuery = operations['getDetailedReport']['parameters']['query'];

describe('reports', () => {
  // One server for the file; each test has a fresh workspace and owner in it, at the start instant.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: Actor;
  const base = () => server.config.problemsBase;
  const actorOf = (token: string) => server.services.tokens.authenticate(token)!.actor;
  const add = (actor: Actor, start: string, end: string, extra: Record<string, unknown> = {}) =>
    server.services.entries.create(actor, { start, end, ...extra });
  const summary = async (query: SummaryQuery, token = server.ownerToken) => {
    const { data, error, response } = await typedClient(server, token).GET('/api/v1/reports/summary', { params: { query } });
    expect(response.status, JSON.stringify(error)).to.equal(200);
    return data!.data;
  };

  before(async () => {
    shared = await startTestServer({ now: T('2026-12-01T12:00:00Z') });
  });
  after(() => shared.close());
  beforeEach(() => {
    server = freshWorkspace(shared);
    owner = actorOf(server.ownerToken);
  });

  describe('time zones', () => {
    it('the spec’s example: 00:30 in Berlin is the previous day without timeZone, its own day with it', async () => {
      add(owner, '2026-11-10T00:30:00+01:00', '2026-11-10T01:30:00+01:00');
      const utc = await summary({ from: '2026-11-09', to: '2026-11-10', groupBy: 'day' });
      expect(utc).to.include({ timeZone: 'UTC', from: '2026-11-09T00:00:00.000Z', to: '2026-11-11T00:00:00.000Z', currency: 'EUR' });
      expect(utc.groups.map((g) => g.key)).to.deep.equal(['2026-11-09']);
      const berlin = await summary({ from: '2026-11-09', to: '2026-11-10', groupBy: 'day', timeZone: 'Europe/Berlin' });
      expect(berlin).to.include({ timeZone: 'Europe/Berlin', from: '2026-11-08T23:00:00.000Z', to: '2026-11-10T23:00:00.000Z' });
      expect(berlin.groups.map((g) => [g.key, g.durationSec])).to.deep.equal([['2026-11-10', 3600]]);
    });

    it('a 23-hour and a 25-hour day in Europe/Berlin are single days', async () => {
      // 2026-03-29: clocks go 02:00 -> 03:00 (23 h). 2026-10-25: 03:00 -> 02:00 (25 h).
      add(owner, '2026-03-29T00:30:00+01:00', '2026-03-29T01:00:00+01:00'); // first minutes of the short day
      add(owner, '2026-03-29T23:30:00+02:00', '2026-03-29T23:45:00+02:00'); // its last minutes
      add(owner, '2026-03-30T00:10:00+02:00', '2026-03-30T00:20:00+02:00'); // next day
      add(owner, '2026-10-25T00:15:00+02:00', '2026-10-25T00:45:00+02:00'); // first minutes of the long day
      add(owner, '2026-10-25T02:30:00+01:00', '2026-10-25T02:40:00+01:00'); // the repeated hour, second pass
      add(owner, '2026-10-25T23:50:00+01:00', '2026-10-25T23:55:00+01:00'); // its last minutes
      const march = await summary({ from: '2026-03-29', to: '2026-03-30', groupBy: 'day', timeZone: 'Europe/Berlin' });
      expect(march.groups.map((g) => [g.key, g.durationSec, g.entryCount])).to.deep.equal([
        ['2026-03-29', 2700, 2],
        ['2026-03-30', 600, 1],
      ]);
      expect(T(march.to) - T(march.from)).to.equal(47 * 3600_000); // 23 h + 24 h
      const october = await summary({ from: '2026-10-25', to: '2026-10-25', groupBy: 'day', timeZone: 'Europe/Berlin' });
      expect(october.groups).to.have.length(1);
      expect(october.groups[0]).to.include({ key: '2026-10-25', durationSec: 1800 + 600 + 300, entryCount: 3 });
      expect(T(october.to) - T(october.from)).to.equal(25 * 3600_000);
    });

    it('a 23-hour and a 25-hour day in America/New_York, in the weekly report too', async () => {
      // 2026-03-08 (23 h) and 2026-11-01 (25 h) in New York.
      add(owner, '2026-03-08T23:30:00-04:00', '2026-03-09T00:00:00-04:00');
      add(owner, '2026-03-09T00:00:00-04:00', '2026-03-09T00:30:00-04:00');
      add(owner, '2026-11-01T01:30:00-05:00', '2026-11-01T01:45:00-05:00'); // the repeated 01:30, second pass
      add(owner, '2026-11-01T23:59:00-05:00', '2026-11-02T00:09:00-05:00');
      const march = await summary({ from: '2026-03-08', to: '2026-03-09', groupBy: 'day', timeZone: 'America/New_York' });
      expect(march.groups.map((g) => [g.key, g.durationSec])).to.deep.equal([
        ['2026-03-08', 1800],
        ['2026-03-09', 1800],
      ]);
      const week = await typedClient(server).GET('/api/v1/reports/weekly', {
        params: { query: { from: '2026-10-29', timeZone: 'America/New_York', groupBy: 'user' } },
      });
      expect(week.response.status).to.equal(200);
      const weekly = week.data!.data;
      expect(weekly.days).to.deep.equal(['2026-10-29', '2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04']);
      expect(weekly.rows).to.have.length(1);
      expect(weekly.rows[0]!.days.map((d) => d.durationSec)).to.deep.equal([0, 0, 0, 900 + 600, 0, 0, 0]);
      expect(T(weekly.to) - T(weekly.from)).to.equal((7 * 24 + 1) * 3600_000);
    });

    it('weeks start on Monday unless weekStart=sunday; months are local months', async () => {
      add(owner, '2026-11-01T10:00:00Z', '2026-11-01T11:00:00Z'); // a Sunday
      add(owner, '2026-11-02T10:00:00Z', '2026-11-02T11:00:00Z'); // a Monday
      const monday = await summary({ from: '2026-10-26', to: '2026-11-08', groupBy: 'week' });
      expect(monday.groups.map((g) => [g.key, g.entryCount])).to.deep.equal([
        ['2026-10-26', 1],
        ['2026-11-02', 1],
      ]);
      const sunday = await summary({ from: '2026-10-26', to: '2026-11-08', groupBy: 'week', weekStart: 'sunday' });
      expect(sunday.groups.map((g) => [g.key, g.entryCount])).to.deep.equal([['2026-11-01', 2]]);
      add(owner, '2026-10-31T23:30:00Z', '2026-10-31T23:45:00Z');
      const months = await summary({ from: '2026-10-01', to: '2026-11-30', groupBy: 'month', timeZone: 'Europe/Berlin' });
      expect(months.groups.map((g) => [g.key, g.entryCount])).to.deep.equal([['2026-11', 3]]);
    });
  });

  describe('grouping', () => {
    it('groups by project, client, task, user, billable and tag, with key null groups and tags counted under each tag', async () => {
      server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { hourlyRate: 100 });
      const client = server.services.catalog.clients.create(owner, { name: 'Zeta Corp' });
      const alpha = server.services.catalog.projects.create(owner, { name: 'alpha', clientId: client.id, billable: true });
      const beta = server.services.catalog.projects.create(owner, { name: 'Beta' });
      const task = server.services.catalog.tasks.create(owner, { projectId: alpha.id, name: 'Build' });
      const red = server.services.catalog.tags.create(owner, { name: 'red' });
      const blue = server.services.catalog.tags.create(owner, { name: 'Blue' });
      add(owner, '2026-11-02T08:00:00Z', '2026-11-02T09:00:00Z', { projectId: alpha.id, taskId: task.id, tagIds: [red.id, blue.id] });
      add(owner, '2026-11-02T10:00:00Z', '2026-11-02T10:30:00Z', { projectId: beta.id, tagIds: [red.id] });
      add(owner, '2026-11-02T11:00:00Z', '2026-11-02T11:15:00Z');
      const range = { from: '2026-11-02', to: '2026-11-02' };
      const view = (groups: Array<{ key: string | null; name: string | null; durationSec: number; amount: number }>) =>
        groups.map((g) => [g.name, g.durationSec, g.amount]);

      const byProject = await summary({ ...range, groupBy: 'project' });
      expect(byProject.totals).to.deep.equal({ durationSec: 6300, billableSec: 3600, amount: 100, entryCount: 3 });
      expect(view(byProject.groups)).to.deep.equal([
        ['alpha', 3600, 100],
        ['Beta', 1800, 0],
        [null, 900, 0],
      ]);
      expect(byProject.groups[0]!.key).to.equal(alpha.id);
      expect(view((await summary({ ...range, groupBy: 'client' })).groups)).to.deep.equal([
        ['Zeta Corp', 3600, 100],
        [null, 2700, 0],
      ]);
      expect(view((await summary({ ...range, groupBy: 'task' })).groups)).to.deep.equal([
        ['Build', 3600, 100],
        [null, 2700, 0],
      ]);
      expect(view((await summary({ ...range, groupBy: 'user' })).groups)).to.deep.equal([['Owner', 6300, 100]]);
      expect(view((await summary({ ...range, groupBy: 'billable' })).groups)).to.deep.equal([
        ['Billable', 3600, 100],
        ['Non-billable', 2700, 0],
      ]);
      const byTag = await summary({ ...range, groupBy: 'tag' });
      expect(view(byTag.groups)).to.deep.equal([
        ['Blue', 3600, 100],
        ['red', 5400, 100],
        [null, 900, 0],
      ]);
      expect(byTag.totals.durationSec).to.equal(6300); // totals count each entry once

      const nested = await summary({ ...range, groupBy: 'project', subGroupBy: 'tag' });
      expect(nested.subGroupBy).to.equal('tag');
      expect(nested.groups[0]!.subGroups!.map((g) => [g.name, g.durationSec])).to.deep.equal([
        ['Blue', 3600],
        ['red', 3600],
      ]);
      expect(nested.groups[2]!.subGroups).to.deep.equal([
        { key: null, name: null, durationSec: 900, billableSec: 0, amount: 0, entryCount: 1 },
      ]);
    });

    it('covers completed entries that start in the range (running timers and earlier starts are left out), and applies the filters', async () => {
      add(owner, '2026-11-01T23:00:00Z', '2026-11-02T01:00:00Z'); // started the day before
      add(owner, '2026-11-02T08:00:00Z', '2026-11-02T09:00:00Z', { description: 'Include me', billable: true });
      server.services.timers.start(owner, { start: '2026-11-02T10:00:00Z' });
      const day = { from: '2026-11-02', to: '2026-11-02' };
      const report = await summary(day);
      expect(report.totals).to.include({ entryCount: 1, durationSec: 3600 });
      expect((await summary({ ...day, search: 'include', billable: true })).totals.entryCount).to.equal(1);
      expect((await summary({ ...day, billable: false })).totals.entryCount).to.equal(0);
      expect((await summary({ ...day, userIds: [server.ownerId] })).totals.entryCount).to.equal(1);
    });
  });

  describe('visibility, on every report route', () => {
    const routes = [
      '/api/v1/reports/summary?from=2026-11-02&to=2026-11-02',
      '/api/v1/reports/detailed?from=2026-11-02&to=2026-11-02',
      '/api/v1/reports/weekly?from=2026-11-02',
    ] as const;
    /** A route of `routes` through the typed client, with its duration and amount (summed or totalled). */
    const report = async (route: (typeof routes)[number], token: string, userIds?: string[]) => {
      const api = typedClient(server, token);
      const query = { from: '2026-11-02', to: '2026-11-02', ...(userIds ? { userIds } : {}) };
      if (route === routes[0]) {
        const res = await api.GET('/api/v1/reports/summary', { params: { query } });
        return { ...res, durationSec: res.data?.data.totals.durationSec, amount: res.data?.data.totals.amount };
      }
      if (route === routes[1]) {
        const res = await api.GET('/api/v1/reports/detailed', { params: { query } });
        return { ...res, durationSec: res.data?.data.reduce((s, r) => s + r.durationSec, 0), amount: res.data?.data[0]?.amount };
      }
      const res = await api.GET('/api/v1/reports/weekly', { params: { query: { from: query.from, ...(userIds ? { userIds } : {}) } } });
      return { ...res, durationSec: res.data?.data.totals.durationSec, amount: res.data?.data.totals.amount };
    };
    const seedReaders = () =>
      seed(server, {
        members: {
          own: { scopes: ['reports:read'] },
          timeOnly: { scopes: ['reports:read'], canViewOthersTime: true, hourlyRate: 80 },
          noReports: { scopes: ['entries:read'] },
        },
        entries: {
          owns: { by: 'own', start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' },
          owners: { by: 'owner', start: '2026-11-02T10:00:00Z', end: '2026-11-02T12:00:00Z' },
          timeOnlys: { by: 'timeOnly', start: '2026-11-02T13:00:00Z', end: '2026-11-02T13:30:00Z', billable: true },
        },
      }).members;
    let readers: ReturnType<typeof seedReaders>;
    beforeEach(() => {
      readers = seedReaders();
    });
    const durationOf = (route: string, body: any): number =>
      route.includes('summary')
        ? body.data.totals.durationSec
        : route.includes('weekly')
          ? body.data.totals.durationSec
          : body.data.reduce((s: number, r: { durationSec: number }) => s + r.durationSec, 0);

    it('without canViewOthersTime: served, own entries only', async () => {
      for (const route of routes) {
        const res = await report(route, readers.own.token);
        expect(res.response.status, route).to.equal(200);
        expect(res.durationSec, route).to.equal(3600);
      }
    });
    it('with time but not money: 403 money-visibility-required, unless narrowed to the own entries', async () => {
      for (const route of routes) {
        const { token, userId } = readers.timeOnly;
        expectTypedProblem(await report(route, token), 403, 'money-visibility-required', base(), route.split('?')[0]);
        // Narrowed to someone else, or to the caller and someone else (comma-separated, which the
        // typed client does not write): still 403.
        expect((await report(route, token, [server.ownerId])).response.status).to.equal(403);
        expect((await server.request('GET', `${route}&userIds=${userId},${server.ownerId}`, { token })).status).to.equal(403);
        // userIds=<own id> (repeated too): the answer holds the caller's own entries, money included.
        const own = await report(route, token, [userId]);
        expect(own.response.status, route).to.equal(200);
        expect(own.durationSec, route).to.equal(1800);
        expect(own.amount, route).to.equal(40);
        const res = await server.request('GET', `${route}&userIds=${userId},${userId}`, { token });
        expect(res.status, route).to.equal(200);
        expect(durationOf(route, res.body), route).to.equal(1800);
        const amount = route.includes('detailed') ? res.body.data[0].amount : res.body.data.totals.amount;
        expect(amount, route).to.equal(40);
      }
    });
    it('with both: everything', async () => {
      for (const route of routes) {
        const res = await report(route, server.ownerToken);
        expect(res.durationSec, route).to.equal(3 * 3600 + 1800);
      }
    });
    it('a token without reports:read is refused with 403 insufficient-scope', async () => {
      for (const route of routes) {
        expectTypedProblem(await report(route, readers.noReports.token), 403, 'insufficient-scope', base());
      }
    });
  });

  describe('validation', () => {
    it('names the field', async () => {
      const bad = async (path: string, field: string) => {
        const res = await server.request('GET', path);
        expectProblem(res, 400, 'invalid-request', base());
        expect(res.body.detail).to.contain(field);
      };
      await bad('/api/v1/reports/summary?from=2026-11-02&to=2026-11-02&groupBy=tag&subGroupBy=tag', 'subGroupBy');
      await bad('/api/v1/reports/summary?from=2026-11-02&to=2026-11-02&groupBy=color', 'query.groupBy');
      await bad('/api/v1/reports/summary?from=2026-11-02&to=2026-11-02&timeZone=Nowhere/City', 'timeZone');
      await bad('/api/v1/reports/summary?from=2025-01-01&to=2026-11-02', 'to');
      await bad('/api/v1/reports/summary?from=2026-11-03&to=2026-11-02', 'from');
      await bad('/api/v1/reports/weekly?from=2026-11-02T00:00:00Z', 'query.from');
      await bad('/api/v1/reports/weekly?from=2026-11-02&groupBy=tag', 'query.groupBy');
      await bad('/api/v1/reports/detailed?from=2026-11-02&to=2026-11-02&limit=501', 'query.limit');
      // Found by the fuzzer: a window past 9999-12-31 could not be echoed as a timestamp.
      await bad('/api/v1/reports/weekly?from=9999-12-25', 'from');
      await bad('/api/v1/reports/summary?from=9999-12-01&to=9999-12-31', 'to');
    });
  });

  it('property: summary totals, groups and sub-groups equal the sums of the detailed rows on the same filters', async () => {
    const projects = [
      server.services.catalog.projects.create(owner, { name: 'P1', hourlyRate: 90, billable: true }),
      server.services.catalog.projects.create(owner, { name: 'P2' }),
    ];
    const tags = [server.services.catalog.tags.create(owner, { name: 'T1' }), server.services.catalog.tags.create(owner, { name: 'T2' })];
    const colleague = actorOf(addMemberWithToken(server.services, server.workspaceId, { name: 'C' }).token);
    const dayMs = 86_400_000;
    const entry = fc.record({
      author: fc.constantFrom(owner, colleague),
      offsetMin: fc.integer({ min: 0, max: 20 * 24 * 60 }),
      minutes: fc.integer({ min: 1, max: 600 }),
      project: fc.option(fc.constantFrom(...projects), { nil: null }),
      billable: fc.option(fc.boolean(), { nil: undefined }),
      tags: fc.subarray(tags),
    });
    const filters = fc.record({
      zone: fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'),
      fromDay: fc.integer({ min: 0, max: 10 }),
      days: fc.integer({ min: 0, max: 12 }),
      billable: fc.option(fc.boolean(), { nil: undefined }),
      tag: fc.option(fc.constantFrom(...tags), { nil: undefined }),
      groupings: fc
        .subarray(['project', 'tag', 'user', 'billable'] as const, { minLength: 1, maxLength: 2 })
        .chain((g) => fc.shuffledSubarray(g, { minLength: g.length })),
    });
    type Row = {
      durationSec: number;
      amount: number | null;
      billable: boolean;
      projectId: string | null;
      authorId: string;
      tagIds: string[];
    };
    // A detailed row's keys under a grouping (an entry counts under each of its tags).
    const keysOf = (row: Row, grouping: string): Array<string | null> =>
      grouping === 'tag'
        ? row.tagIds.length
          ? row.tagIds
          : [null]
        : grouping === 'project'
          ? [row.projectId]
          : grouping === 'user'
            ? [row.authorId]
            : [String(row.billable)];
    const figuresOf = (list: Row[]) => ({
      durationSec: list.reduce((s, r) => s + r.durationSec, 0),
      entryCount: list.length,
      cents: list.reduce((s, r) => s + Math.round((r.amount ?? 0) * 100), 0),
    });
    let batch = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 0, maxLength: 30 }), filters, async (list, f) => {
        batch++;
        const origin = T('2026-06-01T00:00:00Z') + batch * 40 * dayMs; // each run in its own period
        for (const e of list) {
          const start = origin + e.offsetMin * 60_000;
          server.services.entries.create(e.author, {
            start: new Date(start).toISOString(),
            end: new Date(start + e.minutes * 60_000).toISOString(),
            projectId: e.project?.id ?? null,
            ...(e.billable === undefined ? {} : { billable: e.billable }),
            tagIds: e.tags.map((t) => t.id),
          });
        }
        const day = (n: number) => new Date(origin + n * dayMs).toISOString().slice(0, 10);
        const query = {
          from: day(f.fromDay),
          to: day(f.fromDay + f.days),
          timeZone: f.zone,
          ...(f.billable === undefined ? {} : { billable: f.billable }),
          ...(f.tag ? { tagIds: [f.tag.id] } : {}),
        };
        const [groupBy, subGroupBy] = f.groupings;
        const report = await summary({ ...query, groupBy, ...(subGroupBy ? { subGroupBy } : {}) });
        const totals = report.totals;
        let rows: Row[] = [];
        let cursor: string | null = null;
        do {
          const page: DetailedQuery = { ...query, limit: 7, ...(cursor ? { cursor } : {}) };
          const res = await typedClient(server).GET('/api/v1/reports/detailed', { params: { query: page } });
          rows = rows.concat(res.data!.data);
          cursor = res.data!.nextCursor;
        } while (cursor);
        expect(totals.entryCount).to.equal(rows.length);
        expect(totals.durationSec).to.equal(rows.reduce((s, r) => s + r.durationSec, 0));
        expect(totals.billableSec).to.equal(rows.filter((r) => r.billable).reduce((s, r) => s + r.durationSec, 0));
        expect(Math.round(totals.amount * 100)).to.equal(rows.reduce((s, r) => s + Math.round((r.amount ?? 0) * 100), 0));
        // Each group (and sub-group) sums the rows under its key.
        type Group = { key: string | null; durationSec: number; entryCount: number; amount: number; subGroups?: Group[] };
        const check = (groups: Group[], list: Row[], levels: string[]) => {
          const [level, ...rest] = levels as [string, ...string[]];
          const expected = new Map<string | null, Row[]>();
          for (const row of list) for (const key of keysOf(row, level)) expected.set(key, [...(expected.get(key) ?? []), row]);
          expect(groups.map((g) => g.key).sort()).to.deep.equal([...expected.keys()].sort());
          for (const group of groups) {
            const under = expected.get(group.key) ?? [];
            const want = figuresOf(under);
            expect({ durationSec: group.durationSec, entryCount: group.entryCount, cents: Math.round(group.amount * 100) }).to.deep.equal(
              want,
            );
            if (rest.length > 0) check(group.subGroups ?? [], under, rest);
          }
        };
        check(report.groups as Group[], rows, f.groupings);
      }),
      { numRuns: 25, seed: 20261122 },
    );
  });
});
