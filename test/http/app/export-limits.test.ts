import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { MAX_PDF_PAGES } from '../../../src/modules/reports/export/index.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { readerHooks } from '../../helpers/reader-hooks.mjs';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');
const cookie = (client: SettingsClient) => [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');
const signIn = async (server: TestServer, userId: string, workspaceId = server.workspaceId) => {
  const client = new SettingsClient(server);
  await client.setUp(userId, PASSWORD, workspaceId);
  return client;
};
const waitFor = async (check: () => boolean, ms: number, what = 'timed out waiting') => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(what);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Where a test server spools its downloads: `timetrack-exports` beside its database. */
const spoolDir = (server: TestServer) => join(dirname(server.config.databasePath), 'timetrack-exports');
/** The files this process (the test server's) holds open in the spool folder: `/proc/self/fd` links, `… (deleted)` once unlinked. */
const openSpoolFiles = (dir: string) =>
  readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(`${dir}/`) ? [{ fd, target }] : [];
    } catch {
      return [];
    }
  });

/** 12,000 entries of the owner in November with long descriptions: a CSV of ~22 MB, far more than loopback sockets hold unread. */
async function seedBulk(server: TestServer, rows: number) {
  const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Bulk' } })).body.data;
  const actor = server.services.tokens.authenticate(server.ownerToken)!.actor;
  const start = Date.parse('2026-11-02T00:00:00Z');
  const filler = 'x'.repeat(1800);
  server.services.write(() => {
    for (let i = 0; i < rows; i++)
      server.services.entries.create(actor, {
        start: new Date(start + i * 60_000).toISOString(),
        end: new Date(start + i * 60_000 + 30_000).toISOString(),
        description: `${i} ${filler}`,
        projectId: project.id,
      });
  });
}

/**
 * A browser downloading over a raw socket at `bytesPerSec` (its response paused between reads,
 * so what it has not read backs up into the server's writes); `fast()` reads the rest at once,
 * `leave()` goes away. `ended` settles when the response ends or breaks off.
 */
function download(server: TestServer, client: SettingsClient, path: string, bytesPerSec: number, keep = false) {
  let rate = bytesPerSec;
  let req!: ClientRequest;
  const state = { status: 0, received: 0, chunks: [] as Buffer[], complete: false };
  let firstBytes!: () => void;
  const first = new Promise<void>((resolve) => (firstBytes = resolve));
  let resume: (() => void) | null = null;
  const ended = new Promise<{ complete: boolean }>((resolve) => {
    req = httpRequest(new URL(`${server.url}${path}`), { headers: { cookie: cookie(client) } }, (res) => {
      state.status = res.statusCode ?? 0;
      res.on('data', (chunk: Buffer) => {
        state.received += chunk.byteLength;
        if (keep) state.chunks.push(chunk);
        firstBytes();
        if (rate === Infinity) return;
        res.pause();
        const timer = setTimeout(() => res.resume(), rate === 0 ? 3_600_000 : (chunk.byteLength / rate) * 1000).unref();
        resume = () => {
          clearTimeout(timer);
          res.resume();
        };
      });
      res.on('error', () => undefined);
      res.on('close', () => {
        state.complete = res.complete;
        firstBytes();
        resolve({ complete: res.complete });
      });
    });
    req.on('error', () => resolve({ complete: false }));
    req.end();
  });
  return {
    state,
    first,
    ended,
    fast() {
      rate = Infinity;
      resume?.();
    },
    leave: () => req.destroy(),
  };
}

/**
 * Issue 54, N2 (after issue 44, M3): every workspace's downloads shared one reader slot, held
 * until the browser had read the last byte, so one member reading a 9.5 MB CSV at 64 KiB/s made
 * every other workspace's downloads answer 503. Now a download is written to a private spooled
 * file on its reader thread at the disk's pace (the thread is free again after that), the file
 * is sent as it grows and freed however the download ends; downloads take turns per workspace;
 * one per member at a time (429); a browser that stops reading is broken off after a stall, and
 * every download after EXPORT_MAX_MS.
 */
describe('web app: report downloads hold no reader thread while the browser reads (N2, M3)', function () {
  this.timeout(120_000);
  let server: TestServer;
  // Longer than a steady 64 KiB/s reader goes without a write taken on loopback (the kernel wakes
  // the writer when a third of its multi-megabyte send buffer is free: ~1.4 MB, ~20 s at 64 KiB/s
  // after the buffers first fill), shorter than the 30 s of a deployment.
  const STALL_MS = 20_000;
  const RANGE = 'from=2026-11-01&to=2026-11-30';
  const ROWS = 12_000;
  let other: { workspaceId: string; userId: string };

  before(async () => {
    server = await startTestServer({
      now: Date.parse('2026-11-25T13:00:00Z'),
      env: { READER_THREADS: '2', READ_QUEUE_MS: '1500' },
      readers: { exportStallMs: STALL_MS },
    });
    // A CSV of ~22 MB and a PDF of hundreds of pages.
    await seedBulk(server, ROWS);
    // Another workspace, with a member who has a little time of their own.
    const workspaceId = server.services.accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' }).id;
    const member = addMemberWithToken(server.services, workspaceId, { name: 'Olu Other' });
    for (const day of ['03', '04'])
      expect(
        (
          await server.request('POST', '/api/v1/entries', {
            token: member.token,
            json: { start: `2026-11-${day}T09:00:00Z`, end: `2026-11-${day}T10:00:00Z`, description: `Other ${day}` },
          })
        ).status,
      ).to.equal(200);
    other = { workspaceId, userId: member.userId };
  });
  after(() => server.close());
  afterEach(function () {
    if (this.currentTest?.state === 'failed')
      console.log(
        server.logLines
          .filter((l) => /export|download|stopp/.test(l))
          .slice(-30)
          .join('\n'),
      );
  });

  it("N2: one plain member slowly reading a 22 MB CSV holds no reader: another workspace's download answers 200 meanwhile, not 503; the file is spooled privately and freed when the browser leaves", async () => {
    const bea = addMemberWithToken(server.services, server.workspaceId, { name: 'Bea', canViewOthersTime: true });
    const beaPage = await signIn(server, bea.userId);
    // 64 KiB a second: the 22 MB would take six minutes.
    const slow = download(server, beaPage, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=everyone`, 64 * 1024);
    await slow.first;
    expect(slow.state.status).to.equal(200);

    // Another workspace's download, while Bea's browser is still reading: answered at once, whole.
    const olu = await signIn(server, other.userId, other.workspaceId);
    const theirs = await olu.get(`/app/reports/export?format=csv&kind=detailed&${RANGE}`);
    expect(theirs.status, flat(theirs.text).slice(0, 600)).to.equal(200);
    expect(theirs.text.split('\r\n').filter((line) => line.includes('Other 0'))).to.have.length(2);
    // A heavy read and the Reports page answer too.
    expect(
      (await server.request('GET', `/api/v1/entries?from=2026-11-02T00:00:00Z&to=2026-11-03T00:00:00Z&limit=5`, { token: bea.token }))
        .status,
    ).to.equal(200);
    expect((await beaPage.get(`/app/reports?${RANGE}`)).status).to.equal(200);
    // ... and Bea's download is still being read (it has far to go).
    expect(slow.state.complete).to.equal(false);
    expect(slow.state.received).to.be.below(20 * 1024 * 1024);

    // Her file: one, open by the server alone (no name left in the folder: unlinked), 0600 in a 0700 folder.
    const dir = spoolDir(server);
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
    expect(readdirSync(dir)).to.deep.equal([]);
    const files = openSpoolFiles(dir);
    expect(files, JSON.stringify(files)).to.have.length(1);
    expect(files[0]?.target).to.match(/ \(deleted\)$/);
    expect(statSync(`/proc/self/fd/${files[0]?.fd}`).mode & 0o777).to.equal(0o600);
    // Written whole long before the browser reads it: the spool holds all ~22 MB.
    await waitFor(
      () => statSync(`/proc/self/fd/${files[0]?.fd}`).size > 20 * 1024 * 1024,
      30_000,
      'the spool file never grew to the whole CSV',
    );

    // The browser goes away: its file is freed.
    slow.leave();
    expect((await slow.ended).complete).to.equal(false);
    await waitFor(() => server.logLines.some((l) => l.includes('an export was cancelled: its browser went away')), 10_000);
    await waitFor(() => openSpoolFiles(dir).length === 0, 10_000, `spool files still open: ${JSON.stringify(openSpoolFiles(dir))}`);
  });

  it('N2: a download paused midway and read on gets every byte of the spooled file, which is freed after its last byte', async () => {
    const owner = await signIn(server, server.ownerId);
    const paused = download(server, owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}`, 0, true);
    await paused.first;
    // Nothing more read while the thread writes the whole file to the spool, then the rest at once.
    const [file] = openSpoolFiles(spoolDir(server));
    expect(file, 'a spool file while the download is sent').not.to.equal(undefined);
    await waitFor(
      () => statSync(`/proc/self/fd/${file?.fd}`).size > 20 * 1024 * 1024,
      30_000,
      'the spool file never grew to the whole CSV',
    );
    paused.fast();
    expect((await paused.ended).complete).to.equal(true);
    const bytes = Buffer.concat(paused.state.chunks);
    expect([...bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines.pop()).to.equal('');
    expect(lines).to.have.length(ROWS + 1);
    expect(lines[0]).to.equal('Date,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable,Rate,Amount');
    expect(lines.slice(1).map((line) => Number(line.split(',')[9]?.split(' ')[0]))).to.deep.equal([...Array(ROWS).keys()]);
    await waitFor(() => openSpoolFiles(spoolDir(server)).length === 0, 10_000, 'the spool file was not freed after the download');
  });

  it('M3: one download per member at a time (429) while it is sent; a browser that stops reading is broken off after the stall and its file freed', async () => {
    const owner = await signIn(server, server.ownerId);
    const stuck = download(server, owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=everyone`, 0);
    await stuck.first;
    expect(stuck.state.status).to.equal(200);

    // The same member again: 429, saying why, while the first is still being sent.
    const second = await owner.get(`/app/reports/export?format=csv&kind=detailed&${RANGE}`);
    expect(second.status).to.equal(429);
    expect(flat(second.text)).to.include(
      'You are downloading another report already, and each member downloads one at a time: wait until it has finished (or cancel it in your browser), then try again.',
    );
    // Another member of the same workspace downloads meanwhile (the reader is not held: N2).
    const cas = addMemberWithToken(server.services, server.workspaceId, { name: 'Cas', canViewOthersTime: true });
    const casPage = await signIn(server, cas.userId);
    expect((await casPage.get(`/app/reports/export?format=csv&kind=summary&${RANGE}&member=everyone`)).status).to.equal(200);

    // The browser that stopped reading is broken off after the stall; its member's turn and file are free again.
    await waitFor(
      () => server.logLines.some((l) => l.includes('an export was broken off: its browser stopped reading')),
      STALL_MS + 20_000,
    );
    // Its browser, reading again, finds the download broken off (not a file that looks whole).
    stuck.fast();
    expect((await stuck.ended).complete).to.equal(false);
    await waitFor(() => openSpoolFiles(spoolDir(server)).length === 0, 10_000, 'the stalled download kept its spool file');
    const again = await fetch(`${server.url}/app/reports/export?format=csv&kind=summary&${RANGE}`, { headers: { cookie: cookie(owner) } });
    expect(again.status).to.equal(200);
    expect((await again.arrayBuffer()).byteLength).to.be.greaterThan(0);
  });

  it('refuses a PDF past its page cap before the first byte, naming the pages and offering CSV; a shorter one downloads', async () => {
    const owner = new SettingsClient(server);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'UTC' });
    await owner.setUp(server.ownerId, PASSWORD);
    const refused = await owner.get(`/app/reports/export?format=pdf&kind=detailed&${RANGE}`);
    expect(refused.status).to.equal(400);
    expect(refused.headers.get('content-type')).to.match(/^text\/html/);
    const detail =
      /A PDF of this report would have about (\d+) pages, more than the (\d+) a PDF may have\. Download it as CSV or XLSX, or choose a shorter range or one member\./.exec(
        flat(refused.text),
      );
    expect(detail, flat(refused.text).slice(0, 2000)).not.to.equal(null);
    expect(Number(detail![1])).to.be.greaterThan(MAX_PDF_PAGES);
    expect(Number(detail![2])).to.equal(MAX_PDF_PAGES);
    // A day of it is a few pages.
    const day = await fetch(`${server.url}/app/reports/export?format=pdf&kind=detailed&from=2026-11-02&to=2026-11-02`, {
      headers: { cookie: cookie(owner) },
    });
    expect(day.status).to.equal(200);
    expect(
      Buffer.from(await day.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).to.equal('%PDF-');
  });

  // Last: it stops the server.
  it('N2: a server that stops breaks off a download still being sent and leaves no spool file or folder behind', async () => {
    const owner = await signIn(server, server.ownerId);
    const reading = download(server, owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}`, 0);
    await reading.first;
    const dir = spoolDir(server);
    expect(openSpoolFiles(dir)).to.have.length(1);
    // The server's own stop (the test server's close would remove its whole folder after it).
    await server.running.close();
    reading.fast();
    expect((await reading.ended).complete).to.equal(false);
    expect(openSpoolFiles(dir)).to.deep.equal([]);
    expect(existsSync(dir)).to.equal(false);
  });
});

describe('web app: a report download has a longest time (N2, EXPORT_MAX_MS)', function () {
  this.timeout(120_000);
  let server: TestServer;
  const MAX_MS = 5_000;
  afterEach(() => server.close());

  it('a download still being read after EXPORT_MAX_MS is broken off, however steadily its browser reads, and its file freed', async () => {
    // The stall limit stays a deployment's 30 s: only the longest time can end this one.
    server = await startTestServer({
      now: Date.parse('2026-11-25T13:00:00Z'),
      env: { READER_THREADS: '2', EXPORT_MAX_MS: String(MAX_MS) },
    });
    await seedBulk(server, 12_000);
    const owner = await signIn(server, server.ownerId);
    const started = Date.now();
    const steady = download(server, owner, '/app/reports/export?format=csv&kind=detailed&from=2026-11-01&to=2026-11-30', 64 * 1024);
    await steady.first;
    expect(steady.state.status).to.equal(200);
    // It reads all along, yet is broken off at the longest a download may take.
    const expired = () =>
      server.logLines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'an export ran past EXPORT_MAX_MS; the download was broken off');
    await waitFor(() => expired() !== undefined, MAX_MS + 20_000, 'the download was never broken off');
    expect(Date.now() - started).to.be.at.least(MAX_MS - 500);
    expect(expired()).to.include({ kind: 'detailed', format: 'csv', maxMs: MAX_MS });
    expect(server.logLines.some((l) => l.includes('its browser stopped reading'))).to.equal(false);
    // Its browser, reading on, finds the download broken off, far short of its end.
    steady.fast();
    expect((await steady.ended).complete).to.equal(false);
    expect(steady.state.received).to.be.below(20 * 1024 * 1024);
    await waitFor(() => openSpoolFiles(spoolDir(server)).length === 0, 10_000, 'the expired download kept its spool file');
  });
});

describe('web app: report downloads take turns per workspace (N2)', function () {
  this.timeout(120_000);
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("one workspace's many downloads cannot starve another's: when the reader frees, the workspace waiting without a turn goes first", async () => {
    // Each download holds the one export slot for 800 ms on its thread, so those asked meanwhile wait in line.
    server = await startTestServer({
      now: Date.parse('2026-11-25T13:00:00Z'),
      env: { READER_THREADS: '2' },
      readers: readerHooks({ slowExportsMs: 800 }),
    });
    const s = server;
    const elsewhere = s.services.accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' }).id;
    const people = {
      a1: await signIn(s, s.ownerId),
      a2: await signIn(s, addMemberWithToken(s.services, s.workspaceId, { name: 'A two' }).userId),
      a3: await signIn(s, addMemberWithToken(s.services, s.workspaceId, { name: 'A three' }).userId),
      b1: await signIn(s, addMemberWithToken(s.services, elsewhere, { name: 'B one' }).userId, elsewhere),
    };
    const started: string[] = [];
    const downloads: Array<Promise<void>> = [];
    for (const [name, client] of Object.entries(people)) {
      downloads.push(
        fetch(`${s.url}/app/reports/export?format=csv&kind=summary&from=2026-11-01&to=2026-11-30`, {
          headers: { cookie: cookie(client) },
        }).then(async (response) => {
          // Headers leave when the export starts on its thread.
          started.push(name);
          expect(response.status, name).to.equal(200);
          await response.arrayBuffer();
        }),
      );
      // Each reaches the line before the next is sent (the first holds the slot meanwhile).
      await new Promise((resolve) => setTimeout(resolve, name === 'a1' ? 400 : 100));
    }
    await Promise.all(downloads);
    // Workspace A asked three times before B asked once; B's turn comes right after A's first.
    expect(started).to.deep.equal(['a1', 'b1', 'a2', 'a3']);
  });

  it('the spool folder is emptied and made private at start (what a crash left is removed) and removed at stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-spool-'));
    try {
      const spool = join(dir, 'timetrack-exports');
      mkdirSync(spool, { mode: 0o755 });
      writeFileSync(join(spool, 'left-by-a-crash.part'), 'x'.repeat(4096));
      server = await startTestServer({ env: { DATABASE_PATH: join(dir, 'timetrack.db') } });
      expect(readdirSync(spool)).to.deep.equal([]);
      expect(statSync(spool).mode & 0o777).to.equal(0o700);
      await server.close();
      server = undefined;
      expect(existsSync(spool)).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
