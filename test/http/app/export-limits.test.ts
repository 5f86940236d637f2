import { request as httpRequest, type ClientRequest } from 'node:http';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { MAX_PDF_PAGES } from '../../../src/modules/reports/export/index.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 44, M3: two detailed-CSV downloads of a year that were never read held both reader
 * threads, and entry lists, summaries and the Reports page of every workspace answered 503; a
 * 57,000-row PDF was 1,556 pages. Now: one download per member at a time (429, saying so), all
 * downloads together hold at most one reader thread, a download whose browser stops reading is
 * broken off after a bounded stall, and a PDF past its page cap is refused before its first
 * byte, naming the pages and offering CSV.
 */
describe('web app: report downloads cannot starve the reader threads (M3)', function () {
  this.timeout(180_000);
  let server: TestServer;
  const STALL_MS = 8_000;
  const RANGE = 'from=2026-11-01&to=2026-11-30';

  before(async () => {
    server = await startTestServer({
      now: Date.parse('2026-11-25T13:00:00Z'),
      env: { READER_THREADS: '2', READ_QUEUE_MS: '1500' },
      readers: { exportStallMs: STALL_MS },
    });
    // 12,000 entries with long descriptions: a CSV of ~9 MB (far more than the loopback socket
    // holds unread) and a PDF of about 320 pages.
    const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Bulk' } })).body.data;
    const actor = server.services.tokens.authenticate(server.ownerToken)!.actor;
    const start = Date.parse('2026-11-02T00:00:00Z');
    const filler = 'x'.repeat(700);
    server.services.write(() => {
      for (let i = 0; i < 12_000; i++)
        server.services.entries.create(actor, {
          start: new Date(start + i * 60_000).toISOString(),
          end: new Date(start + i * 60_000 + 30_000).toISOString(),
          description: `${i} ${filler}`,
          projectId: project.id,
        });
    });
  });
  after(() => server.close());

  const signIn = async (userId: string) => {
    const client = new SettingsClient(server);
    await client.setUp(userId, PASSWORD);
    return client;
  };
  const cookie = (client: SettingsClient) => [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');

  /** A download whose browser reads the first bytes and then nothing more (it never goes away by itself). */
  function readsThenStops(client: SettingsClient, path: string): { first: Promise<number>; req: ClientRequest } {
    let req!: ClientRequest;
    const first = new Promise<number>((resolve, reject) => {
      req = httpRequest(new URL(`${server.url}${path}`), { headers: { cookie: cookie(client) } }, (res) => {
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.byteLength);
          res.pause();
        });
        res.on('error', () => undefined);
      });
      req.on('error', (error) => (/socket hang up|aborted|ECONNRESET/.test(error.message) ? undefined : reject(error)));
      req.end();
    });
    return { first, req };
  }
  const waitFor = async (check: () => boolean, ms: number) => {
    const until = Date.now() + ms;
    while (!check()) {
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('one download per member, one reader thread for all downloads, and a stalled download broken off', async () => {
    const owner = await signIn(server.ownerId);
    const colleague = addMemberWithToken(server.services, server.workspaceId, { name: 'Bea', canViewOthersTime: true });
    const beaPage = await signIn(colleague.userId);

    const stuck = readsThenStops(owner, `/app/reports/export?format=csv&kind=detailed&${RANGE}&member=everyone`);
    expect(await stuck.first).to.be.greaterThan(0);

    // The same member again: 429, saying why, while the first is still being written.
    const second = await owner.get(`/app/reports/export?format=csv&kind=detailed&${RANGE}`);
    expect(second.status).to.equal(429);
    expect(flat(second.text)).to.include(
      'You are downloading another report already, and each member downloads one at a time: wait until it has finished (or cancel it in your browser), then try again.',
    );

    // Another member's download waits for the one export thread and is refused after READ_QUEUE_MS (503, with when to retry) ...
    const other = await beaPage.get(`/app/reports/export?format=csv&kind=detailed&${RANGE}`);
    expect(other.status).to.equal(503);
    expect(other.headers.get('retry-after')).to.match(/^\d+$/);
    // ... while heavy reads keep the other reader thread: an entry list and the Reports page answer.
    const list = await server.request('GET', `/api/v1/entries?from=2026-11-02T00:00:00Z&to=2026-11-03T00:00:00Z&limit=5`, {
      token: colleague.token,
    });
    expect(list.status).to.equal(200);
    expect((await beaPage.get(`/app/reports?${RANGE}`)).status).to.equal(200);

    // The browser that stopped reading is broken off after the stall (its thread and its member's turn are free again) ...
    await waitFor(
      () => server.logLines.some((l) => l.includes('an export was broken off: its browser stopped reading')),
      STALL_MS + 20_000,
    );
    // ... so the other member's download now runs, and the owner may download again.
    const now = await beaPage.get(`/app/reports/export?format=csv&kind=summary&${RANGE}`);
    expect(now.status).to.equal(200);
    const again = await fetch(`${server.url}/app/reports/export?format=csv&kind=summary&${RANGE}`, { headers: { cookie: cookie(owner) } });
    expect(again.status).to.equal(200);
    expect((await again.arrayBuffer()).byteLength).to.be.greaterThan(0);
    stuck.req.destroy();
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
});
