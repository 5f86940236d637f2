import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { example, weekOf } from '../../examples/client.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { typedClient } from '../helpers/client.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.js';

/** The typed client of docs/client.md, run as a user runs it, against the real server. */
describe('the typed client (examples/client.ts)', function () {
  this.timeout(30_000);
  // One server for the file; each test has a fresh workspace and owner in it, at Thursday 13:00.
  let shared: TestServer;
  let server: FreshWorkspace;
  let api: ReturnType<typeof typedClient>;
  before(async () => {
    // Thursday 2026-11-05, 13:00 in Berlin.
    shared = await startTestServer({ now: Date.UTC(2026, 10, 5, 12) });
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    api = typedClient(server);
    const add = async (start: string, end: string, description: string) => {
      const { error } = await api.POST('/api/v1/entries', { body: { start, end, description } });
      expect(error).to.equal(undefined);
    };
    for (const day of ['02', '03', '04']) await add(`2026-11-${day}T08:00:00Z`, `2026-11-${day}T09:30:00Z`, `day ${day}`);
    // Sunday 23:30 in Berlin (the week before) and Monday 00:30 in Berlin (this week; Sunday in UTC).
    await add('2026-11-01T22:30:00Z', '2026-11-01T22:45:00Z', 'sunday late');
    await add('2026-11-01T23:30:00Z', '2026-11-01T23:45:00Z', 'monday early');
  });

  /** What the server holds after the run: the projects and the week's entries, by description. */
  async function state() {
    const projects = await api.GET('/api/v1/projects');
    const entries = await api.GET('/api/v1/entries', { params: { query: { from: '2026-10-01', to: '2026-11-30' } } });
    return { projects: projects.data!.data.map((p) => p.name), entries: entries.data!.data.map((e) => e.description) };
  }

  it('the week of a zone as offset date-times, Monday to the next Monday', () => {
    const thursday = new Date(Date.UTC(2026, 10, 5, 12));
    expect(weekOf(thursday, 'Europe/Berlin')).to.deep.equal({ from: '2026-11-02T00:00:00+01:00', to: '2026-11-09T00:00:00+01:00' });
    expect(weekOf(thursday, 'UTC')).to.deep.equal({ from: '2026-11-02T00:00:00+00:00', to: '2026-11-09T00:00:00+00:00' });
    expect(weekOf(thursday, 'America/New_York')).to.deep.equal({ from: '2026-11-02T00:00:00-05:00', to: '2026-11-09T00:00:00-05:00' });
    // Sunday 23:30 UTC is Monday in Berlin; across a DST change the two ends differ.
    expect(weekOf(new Date(Date.UTC(2026, 2, 29, 23, 30)), 'Europe/Berlin')).to.deep.equal({
      from: '2026-03-30T00:00:00+02:00',
      to: '2026-04-06T00:00:00+02:00',
    });
    expect(weekOf(new Date(Date.UTC(2026, 2, 25)), 'Europe/Berlin')).to.deep.equal({
      from: '2026-03-23T00:00:00+01:00',
      to: '2026-03-30T00:00:00+02:00',
    });
  });

  it('says what it will write, works in a project of its own, reads the week, and deletes what it wrote', async () => {
    const lines: string[] = [];
    let during: Awaited<ReturnType<typeof state>> | null = null;
    await example({
      baseUrl: server.url,
      token: server.ownerToken,
      timeZone: 'Europe/Berlin',
      now: new Date(server.clock.now()),
      // The server's clock is the test's: a minute passes between the start and the stop.
      wait: async () => {
        during = await state();
        server.clock.advance(60_000);
      },
      log: (line) => lines.push(line),
    });
    expect(lines[0]).to.match(
      /^This writes to http:\/\/127\.0\.0\.1:\d+: a project "timetrack client example \d{4}-\d\d-\d\dT[\d:.]+Z" and, unless a timer of yours is running, one entry in it; both are deleted at the end \(webhook subscribers see the entry created and deleted\)\.$/,
    );
    const name = /"([^"]+)"/.exec(lines[0]!)![1];
    expect(lines[1]).to.match(/^created project prj_[0-9a-z]+$/);
    expect(lines[2]).to.equal('this week (2026-11-02T00:00:00+01:00 to 2026-11-09T00:00:00+01:00, Europe/Berlin): 4 entries, 4.75 h');
    expect(lines[3]).to.match(/^started ent_[0-9a-z]+ at 2026-11-05T12:00:00\.000Z$/);
    expect(lines.slice(4)).to.deep.equal([
      'stopped after 60 s',
      '404 not-found: Entry ent_does_not_exist was not found.',
      'deleted what it wrote',
    ]);
    // While it ran, its project and its running timer were there; afterwards neither is.
    expect(during!.projects).to.deep.equal([name]);
    expect(during!.entries).to.deep.equal(['Trying the API', 'day 04', 'day 03', 'day 02', 'monday early', 'sunday late']);
    expect(await state()).to.deep.equal({ projects: [], entries: ['day 04', 'day 03', 'day 02', 'monday early', 'sunday late'] });
  });

  it('leaves a running timer of yours alone, and still deletes its project', async () => {
    const mine = await api.POST('/api/v1/entries/current', { body: { description: 'my own work' } });
    const lines: string[] = [];
    await example({
      baseUrl: server.url,
      token: server.ownerToken,
      timeZone: 'UTC',
      now: new Date(server.clock.now()),
      log: (l) => lines.push(l),
    });
    expect(lines.slice(2)).to.deep.equal([
      // In UTC days the Monday-00:30-in-Berlin entry is last week's; the running timer counts, 0 s so far.
      'this week (2026-11-02T00:00:00+00:00 to 2026-11-09T00:00:00+00:00, UTC): 4 entries, 4.50 h',
      `a timer of yours is running (${mine.data!.data.id}): no timer started, yours is left alone`,
      '404 not-found: Entry ent_does_not_exist was not found.',
      'deleted what it wrote',
    ]);
    const current = await api.GET('/api/v1/entries/current');
    expect(current.data!.data?.id).to.equal(mine.data!.data.id);
    expect((await state()).projects).to.deep.equal([]);
  });

  it('deletes what it wrote when a step fails, and fails with the problem it met', async () => {
    const lines: string[] = [];
    // The server's clock stands still: the stop would end the entry at its start, which is refused.
    const run = example({
      baseUrl: server.url,
      token: server.ownerToken,
      timeZone: 'UTC',
      wait: async () => {},
      log: (l) => lines.push(l),
    });
    let failure: unknown = null;
    await run.catch((error: unknown) => (failure = error));
    expect(String(failure)).to.equal(
      "Error: stopping the timer: invalid-request: end: must be after the entry's start (2026-11-05T12:00:00.000Z).",
    );
    expect(lines.at(-1)).to.equal('deleted what it wrote');
    expect(await state()).to.deep.equal({ projects: [], entries: ['day 04', 'day 03', 'day 02', 'monday early', 'sunday late'] });
    expect((await api.GET('/api/v1/entries/current')).data!.data).to.equal(null);
  });

  it('runs as a process, as docs/client.md says: tsx examples/client.ts with TIMETRACK_URL and TIMETRACK_TOKEN', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('examples', 'client.ts')], {
      cwd: PACKAGE_ROOT,
      env: { ...process.env, TIMETRACK_URL: server.url, TIMETRACK_TOKEN: server.ownerToken, TIMETRACK_TIME_ZONE: 'Europe/Berlin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      // The server's clock is the test's: a minute passes while the example waits its second.
      if (!out.includes('started') && `${out}${chunk}`.includes('started')) server.clock.advance(60_000);
      out += chunk;
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code, err).to.equal(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).to.match(/^This writes to http:\/\/127\.0\.0\.1:\d+: a project "timetrack client example /);
    expect(lines[1]).to.match(/^created project prj_/);
    // The process reads the week of its own clock, not the test server's.
    expect(lines[2]).to.match(
      /^this week \(\d{4}-\d\d-\d\dT00:00:00\+0[12]:00 to \d{4}-\d\d-\d\dT00:00:00\+0[12]:00, Europe\/Berlin\): \d+ entries, [\d.]+ h$/,
    );
    expect(lines.slice(3).map((line) => line.replace(/ent_[0-9a-z]+ at \S+/, 'ent_ at …'))).to.deep.equal([
      'started ent_ at …',
      'stopped after 60 s',
      '404 not-found: Entry ent_does_not_exist was not found.',
      'deleted what it wrote',
    ]);
    expect(await state()).to.deep.equal({ projects: [], entries: ['day 04', 'day 03', 'day 02', 'monday early', 'sunday late'] });
  });

  it('a problem document arrives typed: status, slug and detail', async () => {
    const { data, error, response } = await typedClient(server, 'tt_AbCdEfGh_wrong').GET('/api/v1/me');
    expect(data).to.equal(undefined);
    expect(response.status).to.equal(401);
    expect(error?.type).to.equal(`${server.config.problemsBase}/invalid-token`);
  });
});
