import { expect } from 'chai';
import type { operations } from '../../generated/openapi.js';
import type { Actor } from '../../src/principal.js';
import { expectTypedProblem, typedClient } from '../helpers/client.js';
import { expectProblem, startTestServer, type TestServer } from '../helpers/server.js';

const T = (iso: string) => Date.parse(iso);
type ListQuery = operations['listEntries']['parameters']['query'];

describe('GET /entries: overlap, filters and paging', () => {
  let server: TestServer;
  let api: ReturnType<typeof typedClient>;
  let owner: Actor;
  const base = () => server.config.problemsBase;
  const ids = async (query: ListQuery) => {
    const { data, error, response } = await api.GET('/api/v1/entries', { params: { query } });
    expect(response.status, JSON.stringify(error)).to.equal(200);
    return data!.data.map((row) => row.description);
  };
  /** `ids` for a query string the typed client does not write (an unencoded +, a comma-separated list). */
  const rawIds = async (query: string) => {
    const res = await server.request('GET', `/api/v1/entries?${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.map((row: { description: string }) => row.description);
  };

  before(async () => {
    server = await startTestServer({ now: T('2026-11-10T12:00:00Z') });
    api = typedClient(server);
    owner = server.services.tokens.authenticate(server.ownerToken)!.actor;
    const add = (description: string, start: string, end: string) => server.services.entries.create(owner, { description, start, end });
    add('day-before', '2026-11-01T09:00:00Z', '2026-11-01T10:00:00Z');
    add('across-midnight', '2026-11-01T23:00:00Z', '2026-11-02T01:00:00Z');
    add('morning', '2026-11-02T08:00:00Z', '2026-11-02T09:00:00Z');
    add('ends-at-midnight', '2026-11-02T23:00:00Z', '2026-11-03T00:00:00Z');
    add('next-day', '2026-11-03T00:00:00Z', '2026-11-03T01:00:00Z');
    add('week-long', '2026-10-28T00:00:00Z', '2026-11-04T00:00:00Z');
    // A timer started days ago and still running.
    server.services.timers.start(owner, { description: 'running', start: '2026-11-01T20:00:00Z' });
  });
  after(() => server.close());

  it('selects entries overlapping a calendar day, newest first, including one across midnight, a week-long one and a running timer', async () => {
    expect(await ids({ from: '2026-11-02', to: '2026-11-02' })).to.deep.equal([
      'ends-at-midnight',
      'morning',
      'across-midnight',
      'running',
      'week-long',
    ]);
  });

  it('treats the range as [from, to): touching is not overlapping', async () => {
    expect(await ids({ from: '2026-11-03T00:00:00Z', to: '2026-11-03T00:30:00Z' })).to.deep.equal(['next-day', 'running', 'week-long']);
    expect(await ids({ from: '2026-11-02T09:00:00Z', to: '2026-11-02T23:00:00Z' })).to.deep.equal(['running', 'week-long']);
  });

  it('reads offsets in date-time bounds, also when the + arrives unencoded as a space', async () => {
    const expected = ['morning', 'across-midnight', 'running', 'week-long'];
    // The typed client encodes + as %2B.
    expect(await ids({ from: '2026-11-02T01:30:00+02:00', to: '2026-11-02T10:00:00+01:00' })).to.deep.equal(expected);
    expect(await rawIds('from=2026-11-02T01:30:00+02:00&to=2026-11-02T10:00:00+01:00')).to.deep.equal(expected);
  });

  it('refuses from after to, bad dates and a page size outside 1..500, naming the field', async () => {
    const bad = async (query: string, field: string) => {
      const res = await server.request('GET', `/api/v1/entries?${query}`);
      expectProblem(res, 400, 'invalid-request', base(), '/api/v1/entries');
      expect(res.body.detail).to.contain(field);
    };
    await bad('from=2026-11-03&to=2026-11-02', 'from');
    await bad('from=2026-13-01&to=2026-11-02', 'from');
    await bad('from=yesterday&to=2026-11-02', 'query.from');
    await bad('to=2026-11-02', 'query.from');
    await bad('from=2026-11-01&to=2026-11-02&limit=0', 'query.limit');
    await bad('from=2026-11-01&to=2026-11-02&limit=501', 'query.limit');
    await bad('from=2026-11-01&to=2026-11-02&limit=ten', 'query.limit');
    await bad(`from=2026-11-01&to=2026-11-02&search=${'s'.repeat(201)}`, 'query.search');
    await bad(`from=2026-11-01&to=2026-11-02&tagIds=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(',')}`, 'query.tagIds');
    await bad('from=2026-11-01&to=2026-11-02&projectIds=', 'query.projectIds[0]');
    const range = { from: '2026-11-01', to: '2026-11-02' };
    expect((await api.GET('/api/v1/entries', { params: { query: { ...range, limit: 1 } } })).data!.data).to.have.length(1);
    expect((await api.GET('/api/v1/entries', { params: { query: { ...range, limit: 500 } } })).response.status).to.equal(200);
  });

  describe('filters', () => {
    before(() => {
      const client = server.services.catalog.clients.create(owner, { name: 'Client F' });
      const project = server.services.catalog.projects.create(owner, { name: 'Filtered', clientId: client.id, color: '#112233' });
      const task = server.services.catalog.tasks.create(owner, { projectId: project.id, name: 'Task F' });
      const tag = server.services.catalog.tags.create(owner, { name: 'tag-f' });
      server.services.entries.create(owner, {
        description: 'Straße Überprüfung',
        start: '2026-11-05T08:00:00Z',
        end: '2026-11-05T09:00:00Z',
        projectId: project.id,
        taskId: task.id,
        tagIds: [tag.id],
        billable: true,
      });
      server.services.entries.create(owner, { description: 'plain', start: '2026-11-05T10:00:00Z', end: '2026-11-05T11:00:00Z' });
      Object.assign(filterIds, { client: client.id, project: project.id, task: task.id, tag: tag.id });
    });
    const filterIds = { client: '', project: '', task: '', tag: '' };
    const day = { from: '2026-11-05', to: '2026-11-05' };

    it('by project, client, task, tag (repeated or comma-separated), billable and case-insensitive search', async () => {
      const straße = ['Straße Überprüfung'];
      expect(await ids({ ...day, projectIds: [filterIds.project] })).to.deep.equal(straße);
      expect(await ids({ ...day, clientIds: [filterIds.client] })).to.deep.equal(straße);
      expect(await ids({ ...day, taskIds: [filterIds.task] })).to.deep.equal(straße);
      // Comma-separated: the typed client repeats the parameter instead.
      expect(await rawIds(`from=${day.from}&to=${day.to}&tagIds=${filterIds.tag},tag_other`)).to.deep.equal(straße);
      expect(await ids({ ...day, tagIds: ['tag_other', filterIds.tag] })).to.deep.equal(straße);
      expect(await ids({ ...day, billable: true })).to.deep.equal(straße);
      expect(await ids({ ...day, billable: false })).to.deep.equal(['plain', 'running']);
      expect(await ids({ ...day, search: 'üBERPRÜF' })).to.deep.equal(straße);
      expect(await ids({ ...day, search: 'PLAIN' })).to.deep.equal(['plain']);
      expect(await ids({ ...day, search: '%' })).to.deep.equal([]);
    });

    it('search: any substring, case-insensitively, through the trigram index or not, whatever form the text was stored in', async () => {
      const at = (hour: number) => ({
        start: `2026-11-06T${String(hour).padStart(2, '0')}:00:00Z`,
        end: `2026-11-06T${String(hour).padStart(2, '0')}:30:00Z`,
      });
      const create = (description: string, hour: number) => server.services.entries.create(owner, { description, ...at(hour) });
      create('Café crème (NFC)', 1);
      create('Cafe\u0301 noir (NFD)', 2);
      create('ÉTÉ report "quoted" OR NEAR(x) *', 3);
      const edited = create('old wording', 4);
      const deleted = create('soon gone wording', 5);
      create('ΣΟΦΟΣ', 6);
      create('Ꭰ ledger', 7);
      create('Q', 8);
      const search = (text: string) => ids({ from: '2026-11-06', to: '2026-11-06', search: text });
      // Once with the writes queued for the index, once after the server's job indexed them.
      const expectFound = async () => {
        expect(await search('CAFÉ')).to.deep.equal(['Cafe\u0301 noir (NFD)', 'Café crème (NFC)']);
        expect(await search('été')).to.deep.equal(['ÉTÉ report "quoted" OR NEAR(x) *']);
        // FTS syntax is text to the search, not a query.
        for (const text of ['"quoted"', 'OR NEAR(x) *', '" OR "', 'NEAR(', '*'])
          expect(await search(text), text).to.have.length(text === '" OR "' ? 0 : 1);
        // Patterns under 3 characters: any trigram starting with them (a last character, a
        // one-character description too).
        expect(await search('q')).to.deep.equal(['Q', 'ÉTÉ report "quoted" OR NEAR(x) *']);
        expect(await search('x)')).to.deep.equal(['ÉTÉ report "quoted" OR NEAR(x) *']);
        expect(await search('*')).to.deep.equal(['ÉTÉ report "quoted" OR NEAR(x) *']);
        // A letter JavaScript lower-cases and SQLite's own Unicode tables do not (Cherokee Ꭰ):
        // found either way, the index holds the text as the search folds it.
        expect(await search('ꭰ')).to.deep.equal(['Ꭰ ledger']);
        expect(await search('Ꭰ LEDG')).to.deep.equal(['Ꭰ ledger']);
        expect(await search('É')).to.deep.equal(['ÉTÉ report "quoted" OR NEAR(x) *', 'Cafe\u0301 noir (NFD)', 'Café crème (NFC)']);
        expect(await search('σο')).to.deep.equal(['ΣΟΦΟΣ']);
        // Final sigma: JavaScript lower-cases ΣΟΦΟΣ to σοφος, so σοφοσ is not a substring.
        expect(await search('σοφοσ')).to.deep.equal([]);
        expect(await search('σοφος')).to.deep.equal(['ΣΟΦΟΣ']);
      };
      await expectFound();
      expect(server.services.entries.searchIndexPending()).to.be.at.least(8);
      await server.running.scheduler.tick();
      expect(server.services.entries.searchIndexPending()).to.equal(0);
      await expectFound();
      // Edits and deletes: found as they are at once, and after the index caught up.
      server.services.entries.update(owner, edited.id, { description: 'new phrasing' });
      server.services.entries.delete(owner, deleted.id);
      for (const round of ['queued', 'indexed']) {
        expect(await search('wording'), round).to.deep.equal([]);
        expect(await search('phrasing'), round).to.deep.equal(['new phrasing']);
        await server.running.scheduler.tick();
      }
    });

    it('list rows carry project, colour, client and task names', async () => {
      const res = await api.GET('/api/v1/entries', { params: { query: { ...day, projectIds: [filterIds.project] } } });
      expect(res.data!.data[0]).to.include({
        projectName: 'Filtered',
        projectColor: '#112233',
        clientName: 'Client F',
        taskName: 'Task F',
      });
      expect(res.data!.data[0]!.tagIds).to.deep.equal([filterIds.tag]);
      const plain = await api.GET('/api/v1/entries', { params: { query: { ...day, search: 'plain' } } });
      expect(plain.data!.data[0]).to.include({ projectName: null, projectColor: null, clientName: null, taskName: null, amount: 0 });
    });
  });

  describe('paging', () => {
    let pager: TestServer;
    let pagerApi: ReturnType<typeof typedClient>;
    let actor: Actor;
    before(async () => {
      pager = await startTestServer({ now: T('2026-12-31T12:00:00Z') });
      pagerApi = typedClient(pager);
      actor = pager.services.tokens.authenticate(pager.ownerToken)!.actor;
      const sqlite = pager.running.database.sqlite;
      sqlite.transaction(() => {
        for (let i = 0; i < 1200; i++) {
          // Pairs share a start, so the id breaks ties.
          const start = new Date(T('2026-12-01T00:00:00Z') + Math.floor(i / 2) * 60_000).toISOString();
          const end = new Date(T(start) + 30_000).toISOString();
          pager.services.entries.create(actor, { description: `e${i}`, start, end });
        }
      })();
    });
    after(() => pager.close());

    it('pages 1,200 entries by 500 while rows are inserted between pages: no skip, no repeat, then null', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      let inserted = 0;
      do {
        const query: ListQuery = { from: '2026-12-01', to: '2026-12-31', limit: 500, ...(cursor ? { cursor } : {}) };
        const res = await pagerApi.GET('/api/v1/entries', { params: { query } });
        expect(res.response.status).to.equal(200);
        seen.push(...res.data!.data.map((r) => r.id));
        cursor = res.data!.nextCursor;
        pages++;
        // Inserts between pages: one newer than everything (already passed), one older (still ahead).
        pager.services.entries.create(actor, {
          description: `new-late-${pages}`,
          start: '2026-12-30T00:00:00Z',
          end: '2026-12-30T01:00:00Z',
        });
        pager.services.entries.create(actor, {
          description: `new-early-${pages}`,
          start: '2026-12-01T00:00:00Z',
          end: '2026-12-01T00:00:10Z',
        });
        inserted += 2;
      } while (cursor !== null);
      expect(pages).to.equal(3);
      expect(new Set(seen).size).to.equal(seen.length);
      const all = pager.running.database.sqlite.prepare('SELECT id, description FROM entries').all() as Array<{
        id: string;
        description: string;
      }>;
      const original = all.filter((e) => /^e\d+$/.test(e.description)).map((e) => e.id);
      expect(original).to.have.length(1200);
      for (const id of original) expect(seen).to.include(id);
      // Rows inserted ahead of the position (older) are found; those behind it (newer) are not.
      const early = all.filter((e) => e.description.startsWith('new-early')).map((e) => e.id);
      expect(early.filter((id) => seen.includes(id))).to.have.length(2); // inserted after pages 1 and 2
      expect(seen.filter((id) => all.find((e) => e.id === id)!.description.startsWith('new-late'))).to.have.length(0);
      expect(inserted).to.equal(6);
    });

    it('keeps the order start desc, id desc across pages', async () => {
      const query = { from: '2026-12-01', to: '2026-12-31', limit: 3 };
      const first = await pagerApi.GET('/api/v1/entries', { params: { query } });
      const second = await pagerApi.GET('/api/v1/entries', { params: { query: { ...query, cursor: first.data!.nextCursor! } } });
      const rows = [...first.data!.data, ...second.data!.data];
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1]!, rows[i]!];
        expect(a.start > b.start || (a.start === b.start && Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)) > 0)).to.equal(true);
      }
    });

    it('refuses a tampered cursor, a made-up one, and one sent with other filters, with 400', async () => {
      const query = { from: '2026-12-01', to: '2026-12-31', limit: 2 };
      const list = (q: ListQuery) => pagerApi.GET('/api/v1/entries', { params: { query: q } });
      const first = await list(query);
      const cursor: string = first.data!.nextCursor!;
      const [payload, mac] = cursor.split('.') as [string, string];
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = `${Buffer.from(JSON.stringify({ ...decoded, s: decoded.s + 1 })).toString('base64url')}.${mac}`;
      // One character of the MAC changed in the middle: every bit of it counts (the last ones of
      // base64url may not, and "AA" at the end can be what was there: a flake once in ~1,000 runs).
      const middle = Math.floor(mac.length / 2);
      const tampered = `${mac.slice(0, middle)}${mac[middle] === 'A' ? 'B' : 'A'}${mac.slice(middle + 1)}`;
      for (const bad of [forged, `${payload}.${tampered}`, 'abc', `${payload}`, `${cursor}.x`]) {
        const res = await list({ ...query, cursor: bad });
        const problem = expectTypedProblem(res, 400, 'invalid-request', pager.config.problemsBase, '/api/v1/entries');
        expect(problem.detail).to.contain('cursor');
      }
      const otherFilters = await list({ ...query, from: '2026-12-02', cursor });
      const problem = expectTypedProblem(otherFilters, 400, 'invalid-request', pager.config.problemsBase);
      expect(problem.detail).to.contain('other filters');
      const otherLimit = await list({ ...query, limit: 7, cursor });
      expect(otherLimit.response.status).to.equal(200);
    });

    it('pages on when the query string comes back reordered: names in another order, list values as a set', async () => {
      const a = pager.services.catalog.tags.create(actor, { name: 'reorder a' }).id;
      const b = pager.services.catalog.tags.create(actor, { name: 'reorder b' }).id;
      for (const [hour, tagIds] of [
        ['08', [a]],
        ['09', [b]],
        ['10', [a, b]],
      ] as const) {
        pager.services.entries.create(actor, {
          description: 'tagged',
          start: `2026-12-20T${hour}:00:00Z`,
          end: `2026-12-20T${hour}:30:00Z`,
          tagIds: [...tagIds],
        });
      }
      const first = await pager.request(
        'GET',
        `/api/v1/entries?from=2026-12-20&to=2026-12-20&billable=false&search=tag&tagIds=${b},${a}&limit=2`,
      );
      expect(first.body.data).to.have.length(2);
      const cursor = encodeURIComponent(first.body.nextCursor);
      for (const query of [
        `search=tag&billable=false&to=2026-12-20&from=2026-12-20&tagIds=${a},${b}&limit=2&cursor=${cursor}`,
        `cursor=${cursor}&tagIds=${a}&tagIds=${b}&tagIds=${a}&limit=2&billable=false&search=tag&from=2026-12-20&to=2026-12-20`,
      ]) {
        const next = await pager.request('GET', `/api/v1/entries?${query}`);
        expect(next.status, next.text).to.equal(200);
        expect(next.body.data.map((e: { start: string }) => e.start)).to.deep.equal(['2026-12-20T08:00:00.000Z']);
      }
    });
  });
});

/** The README and docs/client.md say it: calendar-day bounds are UTC days, whatever the server's zone; a zone's week is sent as offset date-times. */
describe('GET /entries: calendar days are UTC days', () => {
  let server: TestServer;
  before(async () => {
    // A server in Berlin: its zone decides reports without timeZone, not the entry list.
    server = await startTestServer({ now: T('2026-11-10T12:00:00Z'), env: { TZ: 'Europe/Berlin' } });
    const owner = server.services.tokens.authenticate(server.ownerToken)!.actor;
    const add = (description: string, start: string, end: string) => server.services.entries.create(owner, { description, start, end });
    add('monday-00:30-berlin', '2026-11-01T23:30:00Z', '2026-11-01T23:45:00Z');
    add('wednesday', '2026-11-04T10:00:00Z', '2026-11-04T11:00:00Z');
    add('next-monday-00:30-berlin', '2026-11-08T23:30:00Z', '2026-11-08T23:45:00Z');
  });
  after(() => server.close());

  const list = async (query: string) => {
    const res = await server.request('GET', `/api/v1/entries?${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.map((row: { description: string }) => row.description);
  };

  it('from=2026-11-02&to=2026-11-08 is Monday 00:00 UTC to Monday 00:00 UTC, not the server zone week', async () => {
    expect(server.config.serverTimeZone).to.equal('Europe/Berlin');
    expect(await list('from=2026-11-02&to=2026-11-08')).to.deep.equal(['next-monday-00:30-berlin', 'wednesday']);
  });

  it('the Berlin week is sent as offset date-times, to exclusive', async () => {
    expect(await list('from=2026-11-02T00:00:00%2B01:00&to=2026-11-09T00:00:00%2B01:00')).to.deep.equal([
      'wednesday',
      'monday-00:30-berlin',
    ]);
  });
});
