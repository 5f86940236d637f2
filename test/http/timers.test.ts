import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import { expectTypedProblem, typedClient } from '../helpers/client.js';
import { addMemberWithToken, type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.js';

const T = (iso: string) => Date.parse(iso);

describe('timers', () => {
  // One server for the file; each test has a fresh workspace and owner in it, at 09:00.
  let shared: TestServer;
  let server: FreshWorkspace;
  let api: ReturnType<typeof typedClient>;
  const base = () => server.config.problemsBase;
  const eventsAfter = (seq: number) => server.services.events.tail(OPERATOR, server.workspaceId, seq, 1000);
  const lastSeq = () => server.services.events.tail(OPERATOR, server.workspaceId, 0, 100000).at(-1)?.seq ?? 0;
  const runningCount = (userId: string) =>
    (
      server.running.database.sqlite.prepare('SELECT count(*) AS n FROM entries WHERE author_id = ? AND end_at IS NULL').get(userId) as {
        n: number;
      }
    ).n;

  before(async () => {
    shared = await startTestServer({ now: T('2026-11-02T09:00:00Z') });
  });
  after(() => shared.close());
  beforeEach(() => {
    server = freshWorkspace(shared);
    api = typedClient(server);
  });

  it('starts a timer (entry.started), shows it as current with the elapsed time, and stops it (entry.stopped)', async () => {
    expect((await api.GET('/api/v1/entries/current')).data).to.deep.equal({ data: null });
    const seq = lastSeq();
    const started = await api.POST('/api/v1/entries/current', { body: { description: 'Focus' } });
    expect(started.response.status).to.equal(200);
    expect(started.data!.data).to.include({
      description: 'Focus',
      start: '2026-11-02T09:00:00.000Z',
      end: null,
      durationSec: 0,
      source: 'api',
    });
    server.clock.advance(90_500);
    const current = await api.GET('/api/v1/entries/current');
    expect(current.data!.data).to.include({ id: started.data!.data.id, durationSec: 90, end: null });
    const stopped = await api.POST('/api/v1/entries/current/stop');
    expect(stopped.data!.data).to.include({ id: started.data!.data.id, end: '2026-11-02T09:01:30.500Z', durationSec: 90 });
    expect(eventsAfter(seq).map((e) => e.event)).to.deep.equal(['entry.started', 'entry.stopped']);
    expect((await api.GET('/api/v1/entries/current')).data).to.deep.equal({ data: null });
  });

  it('starts without a body, or with an explicit start in the past', async () => {
    const bare = await api.POST('/api/v1/entries/current');
    expect(bare.data!.data.start).to.equal('2026-11-02T09:00:00.000Z');
    await api.POST('/api/v1/entries/current/stop', { body: { end: '2026-11-02T09:30:00Z' } });
    const past = await api.POST('/api/v1/entries/current', { body: { start: '2026-11-02T08:59:00+01:00' } });
    expect(past.response.status).to.equal(200);
  });

  it('starting while one runs stops that one at the new start: entry.stopped, then entry.started', async () => {
    const first = await api.POST('/api/v1/entries/current', {
      body: { description: 'first', start: '2026-11-02T08:00:00Z' },
    });
    const seq = lastSeq();
    const second = await api.POST('/api/v1/entries/current', {
      body: { description: 'second', start: '2026-11-02T08:30:00Z' },
    });
    expect(second.data!.data).to.include({ description: 'second', end: null });
    const stoppedFirst = await api.GET('/api/v1/entries/{id}', { params: { path: { id: first.data!.data.id } } });
    expect(stoppedFirst.data!.data).to.include({ end: '2026-11-02T08:30:00.000Z', durationSec: 1800 });
    const events = eventsAfter(seq);
    expect(events.map((e) => [e.event, e.entityId])).to.deep.equal([
      ['entry.stopped', first.data!.data.id],
      ['entry.started', second.data!.data.id],
    ]);
    expect(runningCount(server.ownerId)).to.equal(1);
  });

  it('a new start not after the running timer’s start is 400 and changes nothing', async () => {
    await api.POST('/api/v1/entries/current', { body: { start: '2026-11-02T08:00:00Z' } });
    const seq = lastSeq();
    const res = await api.POST('/api/v1/entries/current', { body: { start: '2026-11-02T08:00:00Z' } });
    const problem = expectTypedProblem(res, 400, 'invalid-request', base(), '/api/v1/entries/current');
    expect(problem.detail).to.contain('start');
    expect(eventsAfter(seq)).to.deep.equal([]);
    expect(runningCount(server.ownerId)).to.equal(1);
  });

  it('a start in the future is 400', async () => {
    const res = await api.POST('/api/v1/entries/current', { body: { start: '2026-11-02T10:00:00Z' } });
    expectTypedProblem(res, 400, 'invalid-request', base());
  });

  it('two concurrent starts leave exactly one running timer, and the other stopped by it', async () => {
    const results = await Promise.all([
      api.POST('/api/v1/entries/current', { body: { description: 'a' } }),
      api.POST('/api/v1/entries/current', { body: { description: 'b' } }),
    ]);
    const statuses = results.map((r) => r.response.status).sort();
    expect(runningCount(server.ownerId)).to.equal(1);
    // Both at the same instant: the second cannot stop the first at the same start, so it is refused.
    expect(statuses).to.deep.equal([200, 400]);
    server.clock.advance(1000);
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        server.clock.advance(1000);
        return api.POST('/api/v1/entries/current', { body: { description: `c${i}` } });
      }),
    );
    expect(many.every((r) => r.response.status === 200 || r.response.status === 400)).to.equal(true);
    expect(runningCount(server.ownerId)).to.equal(1);
  });

  it('the database itself allows one running timer per member and workspace', () => {
    const sqlite = server.running.database.sqlite;
    const insert = sqlite.prepare(
      `INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, source, created_at, updated_at)
       VALUES (?, ?, ?, '', 0, 0, 'api', 0, 0)`,
    );
    const inTransaction = (id: string) => sqlite.transaction(() => insert.run(id, server.workspaceId, server.ownerId))();
    inTransaction('ent_a');
    expect(() => inTransaction('ent_b')).to.throw(/UNIQUE constraint failed/);
  });

  it('start: 409 conflict when the running-timer index refuses the insert (a writer that won the race)', async () => {
    // A writer elsewhere (another process on the same file) inserting a running timer between the
    // start's check and its insert; here a trigger stands in for it (in this test's workspace only,
    // and dropped at its end: the server is the file's).
    const sqlite = server.running.database.sqlite;
    sqlite.exec(`CREATE TRIGGER racing_writer BEFORE INSERT ON entries
      WHEN NEW.end_at IS NULL AND NEW.id <> 'ent_racer' AND NEW.workspace_id = '${server.workspaceId}' BEGIN
      INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, source, created_at, updated_at)
      VALUES ('ent_racer', NEW.workspace_id, NEW.author_id, '', 0, NEW.start_at, 'api', 0, 0);
    END`);
    try {
      const seq = lastSeq();
      const res = await api.POST('/api/v1/entries/current', { body: { description: 'Focus' } });
      const problem = expectTypedProblem(res, 409, 'conflict', base(), '/api/v1/entries/current');
      expect(problem.detail).to.equal('Another timer of this member was started at the same moment; retry.');
      // Nothing of the refused start was kept.
      expect(runningCount(server.ownerId)).to.equal(0);
      expect(eventsAfter(seq)).to.deep.equal([]);
    } finally {
      sqlite.exec('DROP TRIGGER racing_writer');
    }
  });

  it('stop: 404 when nothing runs; an end not after the start is 400', async () => {
    expectTypedProblem(await api.POST('/api/v1/entries/current/stop'), 404, 'not-found', base(), '/api/v1/entries/current/stop');
    await api.POST('/api/v1/entries/current', { body: { start: '2026-11-02T08:00:00Z' } });
    const early = await api.POST('/api/v1/entries/current/stop', { body: { end: '2026-11-02T07:00:00Z' } });
    const problem = expectTypedProblem(early, 400, 'invalid-request', base());
    expect(problem.detail).to.contain('end');
  });

  it('PATCH setting end on a running entry stops it and fires entry.stopped', async () => {
    const started = await api.POST('/api/v1/entries/current', { body: { start: '2026-11-02T08:00:00Z' } });
    const seq = lastSeq();
    const res = await api.PATCH('/api/v1/entries/{id}', {
      params: { path: { id: started.data!.data.id } },
      body: { end: '2026-11-02T08:45:00Z' },
    });
    expect(res.data!.data).to.include({ end: '2026-11-02T08:45:00.000Z', durationSec: 2700 });
    expect(eventsAfter(seq).map((e) => e.event)).to.deep.equal(['entry.stopped']);
  });

  it('a timer is only ever the caller’s own', async () => {
    const colleague = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true });
    await typedClient(server, colleague.token).POST('/api/v1/entries/current');
    expect((await api.GET('/api/v1/entries/current')).data!.data).to.equal(null);
    expectTypedProblem(await api.POST('/api/v1/entries/current/stop'), 404, 'not-found', base());
    expect(runningCount(colleague.userId)).to.equal(1);
  });

  describe('runaway timers', () => {
    const limit = 3600;
    const startAndPass = async (action: 'flagged' | 'capped' | 'stopped') => {
      server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { runawayLimitSec: limit, runawayAction: action });
      const started = await api.POST('/api/v1/entries/current', { body: { description: action } });
      const id = started.data!.data.id;
      server.clock.advance(limit * 1000 - 1000);
      await server.running.scheduler.tick();
      expect((await api.GET('/api/v1/entries/{id}', { params: { path: { id } } })).data!.data.runaway).to.equal(null);
      server.clock.advance(1500);
      const seq = lastSeq();
      await server.running.scheduler.tick();
      await server.running.scheduler.tick(); // detected once only
      const entry = (await api.GET('/api/v1/entries/{id}', { params: { path: { id } } })).data!.data;
      return { entry, events: eventsAfter(seq) };
    };

    it('flagged: keeps running, records the runaway, fires entry.updated once; stopping resolves it', async () => {
      const { entry, events } = await startAndPass('flagged');
      expect(entry.end).to.equal(null);
      expect(entry.runaway).to.deep.equal({
        detectedAt: '2026-11-02T10:00:00.500Z',
        elapsedSec: 3600,
        limitSec: 3600,
        action: 'flagged',
        resolvedAt: null,
      });
      expect(events.map((e) => e.event)).to.deep.equal(['entry.updated']);
      server.clock.advance(60_000);
      const stopped = await api.POST('/api/v1/entries/current/stop');
      expect(stopped.data!.data.runaway!.resolvedAt).to.equal('2026-11-02T10:01:00.500Z');
    });

    it('capped: stopped at start + limit, fires entry.stopped', async () => {
      const { entry, events } = await startAndPass('capped');
      expect(entry).to.include({ end: '2026-11-02T10:00:00.000Z', durationSec: 3600 });
      expect(entry.runaway).to.include({ action: 'capped', elapsedSec: 3600, limitSec: 3600, resolvedAt: null });
      expect(events.map((e) => e.event)).to.deep.equal(['entry.stopped']);
      expect((await api.GET('/api/v1/entries/current')).data!.data).to.equal(null);
    });

    it('stopped: stopped at detection, fires entry.stopped; editing start or end later resolves it', async () => {
      const { entry, events } = await startAndPass('stopped');
      expect(entry).to.include({ end: '2026-11-02T10:00:00.500Z', durationSec: 3600 });
      expect(entry.runaway).to.include({ action: 'stopped', detectedAt: '2026-11-02T10:00:00.500Z' });
      expect(events.map((e) => e.event)).to.deep.equal(['entry.stopped']);
      server.clock.advance(5000);
      const edited = await api.PATCH('/api/v1/entries/{id}', { params: { path: { id: entry.id } }, body: { end: '2026-11-02T09:30:00Z' } });
      expect(edited.data!.data.runaway!.resolvedAt).to.equal('2026-11-02T10:00:05.500Z');
      expect(edited.data!.data.durationSec).to.equal(1800);
    });

    it('a description edit does not resolve the flag', async () => {
      const { entry } = await startAndPass('flagged');
      const edited = await api.PATCH('/api/v1/entries/{id}', {
        params: { path: { id: entry.id } },
        body: { description: 'still running' },
      });
      expect(edited.data!.data.runaway!.resolvedAt).to.equal(null);
    });
  });
});
