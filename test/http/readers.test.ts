import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { performance } from 'node:perf_hooks';
import { expect } from 'chai';
import { seed } from '../helpers/seed.js';
import { expectProblem, startTestServer, type TestServer } from '../helpers/server.js';
import { readerHooks } from '../helpers/reader-hooks.mjs';

const summary = '/api/v1/reports/summary?from=2026-11-01&to=2026-11-30&groupBy=day';

/** The entries every test reads: two days of work, one tagged. */
const seedWork = (server: TestServer) =>
  seed(server, {
    projects: { design: { hourlyRate: 90, billable: true } },
    tags: { review: {} },
    entries: {
      monday: { start: '2026-11-02T09:00:00Z', end: '2026-11-02T11:00:00Z', project: 'design', tags: ['review'] },
      tuesday: { start: '2026-11-03T09:00:00Z', end: '2026-11-03T10:00:00Z', project: 'design' },
    },
  });

describe('reader threads: heavy reads off the request thread', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("keeps READER_THREADS_KEPT threads ready from a second after the start (off the first answer's path: issue 60), so the first report waits for no thread to start (issue 46 item 10)", async () => {
    server = await startTestServer({ env: { READER_THREADS: '2', READER_THREADS_KEPT: '1' } });
    // Not on the path to the first answer (issue 60): none while the server starts and answers its first requests.
    expect(server.running.readers.threads()).to.equal(0);
    expect((await server.request('GET', '/api/v1/me')).status).to.equal(200);
    expect(server.running.readers.threads()).to.equal(0);
    // A second after listening, ready before any heavy read (piscina never ends a kept one for idleness).
    const until = Date.now() + 10_000;
    while (server.running.readers.threads() === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.running.readers.threads()).to.equal(1);
    seedWork(server);
    expect((await server.request('GET', summary)).status).to.equal(200);
    expect(server.running.readers.threads()).to.equal(1);
    await server.close();
    // None kept (the tests' default): no thread until a heavy read comes.
    server = await startTestServer({ env: { READER_THREADS: '2' } });
    expect(server.running.readers.threads()).to.equal(0);
  });

  it('answers every heavy read from a reader thread, as the request thread would without threads', async () => {
    const answers = async (threads: string) => {
      server = await startTestServer({ env: { READER_THREADS: threads } });
      seedWork(server);
      const paths = [
        summary,
        '/api/v1/reports/weekly?from=2026-11-02',
        '/api/v1/entries?from=2026-11-01&to=2026-11-30',
        '/api/v1/projects',
      ];
      const responses = await Promise.all(paths.map((path) => server!.request('GET', path)));
      for (const response of responses) expect(response.status, response.text).to.equal(200);
      const [report, weekly, entries, projects] = responses.map((r) => r.body.data);
      const shape = {
        report: { totals: report.totals, groups: report.groups },
        weekly: weekly.totals,
        entries: entries.length,
        progress: projects[0].progress,
      };
      const threadCount = server.running.readers.threads();
      await server.close();
      server = undefined;
      return { shape, threadCount };
    };
    const threaded = await answers('1');
    const inProcess = await answers('0');
    expect([threaded.threadCount, inProcess.threadCount]).to.deep.equal([1, 0]);
    expect(threaded.shape).to.deep.equal(inProcess.shape);
    expect(threaded.shape.report.totals).to.deep.equal({ durationSec: 3 * 3600, billableSec: 3 * 3600, amount: 270, entryCount: 2 });
  });

  it('a slow report does not hold up GET /me, or point reads, on the request thread', async () => {
    server = await startTestServer({ env: { READER_THREADS: '1' }, readers: readerHooks({ slowReportsMs: 1500 }) });
    seedWork(server);
    const started = performance.now();
    const report = server.request('GET', summary);
    // Let the report reach its thread, then time light requests while it runs.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const light: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      expect((await server.request('GET', '/api/v1/me')).status).to.equal(200);
      light.push(performance.now() - t);
    }
    const answered = await report;
    expect(answered.status).to.equal(200);
    expect(performance.now() - started).to.be.above(1400);
    // Each /me was answered while the report ran, far sooner than the report.
    expect(Math.max(...light)).to.be.below(500);
  });

  it('reader threads give way to the request thread when the cores are busy: they run at nice 10, the request thread at 0 (Linux)', async function () {
    if (!existsSync('/proc/thread-self')) this.skip();
    /** Each thread of this process (the test server runs in it) and its nice value (field 19 of its stat). */
    const niceByThread = () =>
      new Map(
        readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          return [Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
        }),
      );
    server = await startTestServer({ env: { READER_THREADS: '1' } });
    seedWork(server);
    const before = niceByThread();
    expect((await server.request('GET', summary)).status).to.equal(200);
    const started = [...niceByThread()].filter(([tid]) => !before.has(tid));
    expect(started.map(([, nice]) => nice)).to.include(10);
    expect(niceByThread().get(process.pid)).to.equal(0);
  });

  it('a read past its budget has its thread replaced, answers 500 with the fixed detail, and is logged with its request id', async () => {
    // A budget of 5 s: the replacement thread's first read below counts its start too, which
    // through tsx beside the other tiers took more than the 1.5 s this test once gave it.
    server = await startTestServer({
      env: { READER_THREADS: '1', READ_BUDGET_MS: '5000' },
      readers: readerHooks({ slowReportsMs: 10_000 }),
    });
    seedWork(server);
    const res = await server.request('GET', summary);
    expectProblem(res, 500, 'internal-error', server.config.problemsBase, '/api/v1/reports/summary');
    expect(res.body.detail).to.equal('The server could not complete this request.');
    const requestId = res.headers.get('x-request-id');
    const logged = server.logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'a read ran past its budget; its reader thread was replaced');
    expect(logged).to.include({ requestId, operationId: 'getSummaryReport', budgetMs: 5000 });
    // The replacement thread answers the next read.
    const projects = await server.request('GET', '/api/v1/projects');
    expect(projects.status).to.equal(200);
    expect(server.running.readers.threads()).to.equal(1);
  });

  it('a read that waits longer than READ_QUEUE_MS for a thread answers 503 readers-busy with Retry-After, at once; the running read is untouched', async () => {
    server = await startTestServer({
      env: { READER_THREADS: '1', READ_QUEUE_MS: '300' },
      readers: readerHooks({ slowReportsMs: 2000 }),
    });
    seedWork(server);
    const started = performance.now();
    const first = server.request('GET', summary);
    // The first report holds the only thread; the second waits in line behind it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const waitedFrom = performance.now();
    const second = await server.request('GET', '/api/v1/reports/weekly?from=2026-11-02');
    const waited = performance.now() - waitedFrom;
    expectProblem(second, 503, 'readers-busy', server.config.problemsBase, '/api/v1/reports/weekly');
    expect(second.headers.get('retry-after')).to.match(/^[1-9][0-9]*$/);
    expect(second.body.detail).to.match(/^Every reader thread was busy for 300 ms; retry in [0-9]+ seconds?\.$/);
    // Refused after its wait in line (300 ms), not after the running report (2 s).
    expect(waited).to.be.within(250, 1500);
    const answered = await first;
    expect(answered.status).to.equal(200);
    expect(performance.now() - started).to.be.above(1900);
    const logged = server.logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'a heavy read waited too long for a reader thread; refused with 503');
    expect(logged).to.include({ requestId: second.headers.get('x-request-id'), operationId: 'getWeeklyReport', queueMs: 300 });
    // With the thread free again, the same read is answered.
    expect((await server.request('GET', '/api/v1/reports/weekly?from=2026-11-02')).status).to.equal(200);
  });

  it('reads waiting for a thread start in the order they came (first come, first served)', async () => {
    server = await startTestServer({ env: { READER_THREADS: '1', READ_QUEUE_MS: '10000' }, readers: readerHooks({ slowReportsMs: 300 }) });
    seedWork(server);
    const done: string[] = [];
    const read = async (name: string, path: string) => {
      const res = await server!.request('GET', path);
      expect(res.status, res.text).to.equal(200);
      done.push(name);
    };
    const reads: Array<Promise<void>> = [];
    const GROUPS: Record<string, string> = { a: 'day', b: 'week', c: 'month', d: 'project' };
    for (const name of Object.keys(GROUPS)) {
      reads.push(read(name, `/api/v1/reports/summary?from=2026-11-01&to=2026-11-30&groupBy=${GROUPS[name]}`));
      // Each request reaches the server before the next is sent.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all(reads);
    expect(done).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('a reader thread that dies is replaced; only its read fails', async () => {
    server = await startTestServer({ env: { READER_THREADS: '1' }, readers: readerHooks({ crashOn: 'listTags' }) });
    seedWork(server);
    expectProblem(await server.request('GET', '/api/v1/tags'), 500, 'internal-error', server.config.problemsBase);
    expect(server.logLines.some((line) => line.includes('a reader thread failed; it is replaced'))).to.equal(true);
    const entries = await server.request('GET', '/api/v1/entries?from=2026-11-01&to=2026-11-30');
    expect(entries.status).to.equal(200);
    expect(entries.body.data).to.have.length(2);
  });

  it('a domain error of a read crosses back as its problem document', async () => {
    server = await startTestServer({ env: { READER_THREADS: '1' } });
    const res = await server.request('GET', '/api/v1/entries?from=2026-11-01&to=2026-11-30&cursor=not.ours');
    expectProblem(res, 400, 'invalid-request', server.config.problemsBase, '/api/v1/entries');
    expect(res.body.detail).to.contain('cursor');
  });

  it('runs on a reader thread exactly the operations the contract marks x-reader-thread', async function () {
    // Eight reads that each end their thread, and so eight threads started anew one after the other
    // (each loads the sources through tsx: seconds apiece on a busy machine).
    this.timeout(90_000);
    const contract = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'generated', 'contract.json'), 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string; 'x-reader-thread'?: boolean }>>;
    };
    const marked = Object.values(contract.paths)
      .flatMap((methods) => Object.values(methods))
      .filter((op) => op['x-reader-thread'] === true)
      .map((op) => op.operationId)
      .sort();
    expect(marked).to.deep.equal([
      'getDetailedReport',
      'getSummaryReport',
      'getWeeklyReport',
      'listClients',
      'listEntries',
      'listProjects',
      'listTags',
      'listTasks',
    ]);
    // A reader thread that runs any of them, or getEntry (not marked), ends: only the marked fail.
    server = await startTestServer({ env: { READER_THREADS: '1' }, readers: readerHooks({ crashOn: [...marked, 'getEntry'] }) });
    const entry = await server.request('POST', '/api/v1/entries', { json: { start: '2026-11-01T08:00:00Z', end: '2026-11-01T09:00:00Z' } });
    expect((await server.request('GET', `/api/v1/entries/${entry.body.data.id}`)).status).to.equal(200);
    const range = 'from=2026-11-01&to=2026-11-01';
    for (const path of [
      '/entries?' + range,
      '/reports/summary?' + range,
      '/reports/detailed?' + range,
      '/reports/weekly?from=2026-11-01',
      '/clients',
      '/projects',
      '/tasks',
      '/tags',
    ])
      expect((await server.request('GET', `/api/v1${path}`)).status, path).to.equal(500);
  });
});
