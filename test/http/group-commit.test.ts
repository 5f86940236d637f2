import { fdatasync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { SyncFile } from '../../src/db/durability.js';
import { expectProblem, startTestServer, type TestResponse, type TestServer } from '../helpers/server.js';
import { PASSWORD, SettingsClient } from '../helpers/settings-client.js';

/** The owner as a signed-in member acts (every scope), to read their running timer. */
const OWNER_ACTOR = (s: TestServer) =>
  ({
    kind: 'member',
    tokenId: null,
    workspaceId: s.workspaceId,
    userId: s.ownerId,
    scopes: new Set(),
    canViewOthersTime: true,
    canViewOthersMoney: true,
    isOwner: true,
    currency: 'EUR',
  }) as never;

/**
 * Group commit (src/db/durability.ts): the server commits with synchronous=NORMAL and answers a
 * write only after an fdatasync of the WAL that started after its commit. Here the sync is the
 * real fdatasync behind a gate the test holds, or one that fails: no write is acknowledged before
 * the sync covering it returns, a failed sync fails every write it covered, and writes that meet
 * share one sync.
 */
describe('group commit: the durability barrier', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A sync the test controls: each call waits until released, then runs the real fdatasync or fails. */
  function gatedSync() {
    const calls: Array<{ release: (error?: Error) => void; endedAt: number | null }> = [];
    let held = false;
    const sync: SyncFile = (fd, done) => {
      const call = {
        endedAt: null as number | null,
        release: (error?: Error) => {
          const finish = (err: Error | null) => {
            call.endedAt = performance.now();
            done(err);
          };
          if (error) finish(error);
          else fdatasync(fd, finish);
        },
      };
      calls.push(call);
      if (!held) call.release();
    };
    return {
      sync,
      calls,
      hold: () => {
        held = true;
      },
      releaseAll: (error?: Error) => {
        held = false;
        for (const call of calls) if (call.endedAt === null) call.release(error);
      },
    };
  }

  const until = async (condition: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  const entry = (i: number) => ({
    json: { start: `2026-11-02T0${i % 10}:00:00Z`, end: `2026-11-02T0${i % 10}:30:00Z`, description: `group ${i}` },
  });

  /** Sends a request and records when its answer arrived. */
  const timed = (promise: Promise<TestResponse>) => {
    const out: { res: TestResponse | null; at: number | null } = { res: null, at: null };
    const done = promise.then((res) => {
      out.res = res;
      out.at = performance.now();
      return res;
    });
    return { out, done };
  };

  it('holds every answer to a write until the sync covering its commit returns; concurrent writes share one sync', async () => {
    const gate = gatedSync();
    server = await startTestServer({ sync: gate.sync });
    const s = server;
    // A lone write does not wait for company: its sync starts at once.
    const lone = await s.request('POST', '/api/v1/entries', entry(0));
    expect(lone.status, lone.text).to.equal(200);
    const syncsBefore = gate.calls.length;
    expect(syncsBefore).to.be.at.least(1);

    gate.hold();
    const first = timed(s.request('POST', '/api/v1/entries', entry(1)));
    await until(() => gate.calls.length === syncsBefore + 1);
    // While the first write's sync is held, five more commit and wait for the next one.
    const rest = [2, 3, 4, 5, 6].map((i) => timed(s.request('POST', '/api/v1/entries', entry(i))));
    await until(() => countEntries(s) === 7);
    // A write that fails its own checks rolls back alone and answers at once: it has nothing to wait for.
    const refused = await s.request('POST', '/api/v1/entries', {
      json: { start: '2026-11-02T10:00:00Z', end: '2026-11-02T11:00:00Z', projectId: 'prj_unknown' },
    });
    expectProblem(refused, 404, 'not-found', s.config.problemsBase);
    // Reads are not held either.
    expect((await s.request('GET', '/api/v1/me')).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Committed (a reader sees them), but not one acknowledged: their sync has not returned.
    expect(countEntries(s)).to.equal(7);
    expect([first.out.at, ...rest.map((r) => r.out.at)]).to.deep.equal([null, null, null, null, null, null]);
    expect(gate.calls.length).to.equal(syncsBefore + 1);

    gate.releaseAll();
    await Promise.all([first.done, ...rest.map((r) => r.done)]);
    for (const r of [first, ...rest]) expect(r.out.res?.status, r.out.res?.text).to.equal(200);
    // The five waited for one sync of their own, started when the first one ended, and no answer left before it returned.
    expect(gate.calls.length).to.equal(syncsBefore + 2);
    const firstSync = gate.calls[syncsBefore]!;
    const sharedSync = gate.calls[syncsBefore + 1]!;
    expect(first.out.at!).to.be.at.least(firstSync.endedAt!);
    for (const r of rest) expect(r.out.at!).to.be.at.least(sharedSync.endedAt!);
    expect(s.running.database.durability.writes()).to.be.at.least(7);
  });

  it('writes of one turn of the event loop share one transaction; a write that fails its checks rolls back alone', async () => {
    server = await startTestServer();
    const s = server;
    const { durability } = s.running.database;
    // The start's last writes may still be in an open batch: let it commit first.
    await new Promise((resolve) => setImmediate(resolve));
    const before = { commits: durability.commits(), writes: durability.writes() };
    // Five writes in one turn (as concurrent requests arrive): one batch, each write a savepoint of it.
    for (const i of [1, 2]) s.services.entries.create(OWNER_ACTOR(s), entry(i).json);
    expect(() => s.services.entries.create(OWNER_ACTOR(s), { ...entry(3).json, projectId: 'prj_unknown' })).to.throw('prj_unknown');
    for (const i of [4, 5]) s.services.entries.create(OWNER_ACTOR(s), entry(i).json);
    // Open until the turn ends: its commit number is the next one, and another connection sees nothing yet.
    expect(durability.commits()).to.equal(before.commits + 1);
    const other = new Database(s.config.databasePath, { readonly: true });
    const count = () => (other.prepare('select count(*) as n from entries').get() as { n: number }).n;
    try {
      expect(count()).to.equal(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(count()).to.equal(4);
    } finally {
      other.close();
    }
    expect({ commits: durability.commits(), writes: durability.writes() }).to.deep.equal({
      commits: before.commits + 1,
      writes: before.writes + 4,
    });
    await durability.durable(durability.commits());
    // A heavy read on a reader thread (another connection) sees the writes made before it: the
    // open batch is committed before the read is handed over. The thread runs it while this
    // thread is kept busy (the turn, and so the batch's own commit, not over).
    const list = async () => {
      const pending = s.running.readers.run({
        operationId: 'listEntries',
        query: { from: '2026-11-02', to: '2026-11-02', limit: 100 },
        path: {},
        actor: { ...(OWNER_ACTOR(s) as object), scopes: ['entries:read'] } as never,
        now: Date.now(),
        requestId: 'batch-test',
        compression: null,
      });
      for (let i = 0; i < 20; i++) await Promise.resolve();
      const until = Date.now() + 300;
      while (Date.now() < until);
      const read = await pending;
      return (JSON.parse(Buffer.from('bytes' in read ? read.bytes : read).toString('utf8')) as { data: unknown[] }).data.length;
    };
    expect(await list()).to.equal(4);
    s.services.entries.create(OWNER_ACTOR(s), entry(6).json);
    expect(await list()).to.equal(5);
  });

  it("holds the web app's form answer until its sync returns, and answers 500 when that sync fails", async () => {
    const gate = gatedSync();
    server = await startTestServer({ sync: gate.sync });
    const s = server;
    const person = new SettingsClient(s);
    await person.setUp(s.ownerId, PASSWORD);
    const page = await person.get('/app/week');
    gate.hold();
    const started = person.post('/app/timer/start', { _csrf: SettingsClient.csrf(page.text), description: 'Held', week: '' });
    let answered = false;
    void started.then(() => (answered = true));
    await until(() => s.services.timers.current(OWNER_ACTOR(s)) !== null);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(answered, 'the form answered before its sync returned').to.equal(false);
    gate.releaseAll();
    expect((await started).status).to.equal(303);
    // A failed sync: the form's answer is a plain 500, nothing acknowledged.
    s.clock.advance(60_000);
    gate.hold();
    const stopped = person.post('/app/timer/stop', { _csrf: SettingsClient.csrf(page.text), week: '' });
    await until(() => s.services.timers.current(OWNER_ACTOR(s)) === null);
    gate.releaseAll(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const failed = await stopped;
    expect([failed.status, failed.text, failed.headers.get('location')]).to.deep.equal([
      500,
      'The server could not complete this request.',
      null,
    ]);
  });

  it('a failed sync fails every write it covered with 500, acknowledges none of them, and the server stops acknowledging writes', async () => {
    const gate = gatedSync();
    server = await startTestServer({ sync: gate.sync });
    const s = server;
    gate.hold();
    const writes = [1, 2, 3].map((i) => timed(s.request('POST', '/api/v1/entries', entry(i))));
    await until(() => countEntries(s) === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writes.map((w) => w.out.at)).to.deep.equal([null, null, null]);
    gate.releaseAll(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await Promise.all(writes.map((w) => w.done));
    for (const w of writes) {
      expectProblem(w.out.res!, 500, 'internal-error', s.config.problemsBase, '/api/v1/entries');
      expect(w.out.res!.body.detail).to.equal('The server could not complete this request.');
    }
    // After a failed fsync the kernel may have dropped the pages: no later write is acknowledged either.
    const later = await s.request('POST', '/api/v1/tags', { json: { name: 'after the failure' } });
    expectProblem(later, 500, 'internal-error', s.config.problemsBase, '/api/v1/tags');
    // Reads still answer.
    expect((await s.request('GET', '/api/v1/me')).status).to.equal(200);
    const logged = s.logLines.filter((line) => line.includes('the WAL could not be synced'));
    expect(logged.length).to.be.at.least(1);
  });
});

/** Entries in the database as a reader sees them (committed, durable or not). */
function countEntries(server: TestServer): number {
  return (server.running.database.sqlite.prepare('select count(*) as n from entries').get() as { n: number }).n;
}
