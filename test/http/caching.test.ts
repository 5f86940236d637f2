import { OPERATOR } from '../../src/principal.js';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { seed } from '../helpers/seed.js';
import { addMemberWithToken, expectProblem, type TestResponse, startTestServer, type TestServer } from '../helpers/server.js';
import { readerHooks } from '../helpers/reader-hooks.mjs';

const API = '/api/v1';
const DAY = 86_400_000;
const at = (time: string) => `2026-11-01T${time}:00Z`;

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they crossed the wire (not decoded). */
  body: Buffer;
}

/** A request through node:http, which decodes nothing: the bytes and headers as the server sent them. */
function raw(server: TestServer, method: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${path}`,
      { method, headers: { authorization: `Bearer ${server.ownerToken}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const PROJECTS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'] as const;

/** Ten projects (about 4 KB of JSON), a client, a task and a tag, and members with and without money. */
function world(server: TestServer) {
  const project = (i: number) => ({ name: `Project ${i}`, client: 'acme' as const, hourlyRate: 100, billable: true });
  const projects = Object.fromEntries(PROJECTS.map((key, i) => [key, project(i)])) as Record<
    (typeof PROJECTS)[number],
    ReturnType<typeof project>
  >;
  return seed(server, {
    members: { plain: {}, plain2: {}, rich: { canViewOthersMoney: true, canViewOthersTime: true } },
    clients: { acme: {} },
    projects,
    tasks: { design: { project: 'p0' } },
    tags: { urgent: {} },
  });
}

describe('caching and compression', () => {
  describe('ETag of the catalog lists', () => {
    let server: TestServer;
    let w: ReturnType<typeof world>;
    before(async () => {
      server = await startTestServer();
      w = world(server);
    });
    after(() => server.close());

    // fetch asks for gzip by itself; these requests ask for no coding, so tags carry no suffix.
    const get = (path: string, options: { token?: string; ifNoneMatch?: string; method?: string } = {}) =>
      server.request(options.method ?? 'GET', `${API}${path}`, {
        token: options.token ?? server.ownerToken,
        headers: { 'accept-encoding': 'identity', ...(options.ifNoneMatch === undefined ? {} : { 'if-none-match': options.ifNoneMatch }) },
      });
    const etag = (res: TestResponse) => res.headers.get('etag') as string;
    const expectNotModified = (res: TestResponse, tag: string) => {
      expect(res.status, res.text).to.equal(304);
      expect(res.text).to.equal('');
      expect(res.headers.get('etag')).to.equal(tag);
      expect(res.headers.get('content-type')).to.equal(null);
      expect(res.headers.get('ratelimit-remaining')).to.match(/^\d+$/);
    };

    it('every list carries a strong ETag; If-None-Match with it answers 304 with no body, for GET and HEAD', async () => {
      for (const list of ['/clients', '/projects', '/tasks', '/tags']) {
        const first = await get(list);
        expect(first.status).to.equal(200);
        const tag = etag(first);
        expect(tag, list).to.match(new RegExp(`^"${list.slice(1)}-[0-9a-f]{20}"$`));
        expect((await get(list)).headers.get('etag'), 'stable while nothing changes').to.equal(tag);
        expectNotModified(await get(list, { ifNoneMatch: tag }), tag);
        expectNotModified(await get(list, { ifNoneMatch: tag, method: 'HEAD' }), tag);
      }
    });

    it('follows the writes each list reflects: entries move projects (progress), not clients, tasks or tags', async () => {
      const projects = etag(await get('/projects'));
      const clients = etag(await get('/clients'));
      const tasks = etag(await get('/tasks'));
      const tags = etag(await get('/tags'));
      const before = (await get('/projects')).body.data.find((p: { id: string }) => p.id === w.projects.p3.id);

      const entry = await server.request('POST', `${API}/entries`, {
        json: { start: at('09:00'), end: at('10:00'), projectId: w.projects.p3.id },
      });
      expect(entry.status, entry.text).to.equal(200);
      const moved = await get('/projects', { ifNoneMatch: projects });
      expect(moved.status).to.equal(200);
      expect(etag(moved)).to.not.equal(projects);
      const after = moved.body.data.find((p: { id: string }) => p.id === w.projects.p3.id);
      expect(after.progress.trackedSec).to.equal(before.progress.trackedSec + 3600);
      expectNotModified(await get('/clients', { ifNoneMatch: clients }), clients);
      expectNotModified(await get('/tasks', { ifNoneMatch: tasks }), tasks);
      expectNotModified(await get('/tags', { ifNoneMatch: tags }), tags);

      // An edit of an entry moves progress too; deleting it moves it back, under a new tag.
      const edited = etag(moved);
      await server.request('PATCH', `${API}/entries/${entry.body.data.id}`, { json: { end: at('10:30') } });
      const afterEdit = await get('/projects', { ifNoneMatch: edited });
      expect(afterEdit.status).to.equal(200);
      await server.request('DELETE', `${API}/entries/${entry.body.data.id}`);
      const afterDelete = await get('/projects', { ifNoneMatch: etag(afterEdit) });
      expect(afterDelete.status).to.equal(200);
      expect(etag(afterDelete)).to.not.be.oneOf([projects, edited]);

      // Catalog writes move their own list (and, through the shared catalog position, the others).
      const renamed = await server.request('PATCH', `${API}/clients/${w.clients.acme.id}`, { json: { name: 'Acme Ltd' } });
      expect(renamed.status).to.equal(200);
      const clientsNow = await get('/clients', { ifNoneMatch: clients });
      expect(clientsNow.status).to.equal(200);
      expect(clientsNow.body.data[0].name).to.equal('Acme Ltd');
      await server.request('POST', `${API}/tasks`, { json: { projectId: w.projects.p1.id, name: 'Review' } });
      expect((await get('/tasks', { ifNoneMatch: tasks })).status).to.equal(200);
      await server.request('PATCH', `${API}/tags/${w.tags.urgent.id}`, { json: { name: 'Later' } });
      expect((await get('/tags', { ifNoneMatch: tags })).status).to.equal(200);
      const archived = etag(await get('/projects'));
      await server.request('PATCH', `${API}/projects/${w.projects.p9.id}`, { json: { archived: true } });
      expect((await get('/projects', { ifNoneMatch: archived })).status).to.equal(200);
    });

    it('a running timer makes project progress a function of time: 304 at the same instant, 200 a second later', async () => {
      const timer = await server.request('POST', `${API}/entries/current`, { json: { projectId: w.projects.p5.id } });
      expect(timer.status, timer.text).to.equal(200);
      try {
        const first = await get('/projects');
        const tag = etag(first);
        expectNotModified(await get('/projects', { ifNoneMatch: tag }), tag);
        // A member without money sees null progress: their list does not change with time.
        const plain = etag(await get('/projects', { token: w.members.plain.token }));
        server.clock.advance(1000);
        const later = await get('/projects', { ifNoneMatch: tag });
        expect(later.status).to.equal(200);
        const progress = (res: TestResponse) => res.body.data.find((p: { id: string }) => p.id === w.projects.p5.id).progress.trackedSec;
        expect(progress(later)).to.equal(progress(first) + 1);
        expectNotModified(await get('/projects', { token: w.members.plain.token, ifNoneMatch: plain }), plain);
      } finally {
        expect((await server.request('POST', `${API}/entries/current/stop`, { json: {} })).status).to.equal(200);
      }
    });

    it('differs between tokens whose answers differ, and between queries; equal answers share a tag', async () => {
      const owner = await get('/projects');
      const plain = await get('/projects', { token: w.members.plain.token });
      expect(plain.body.data[0].progress).to.equal(null);
      expect(etag(plain)).to.not.equal(etag(owner));
      // The owner's tag does not let a member without money skip the read: a 200 with their view.
      expect((await get('/projects', { token: w.members.plain.token, ifNoneMatch: etag(owner) })).status).to.equal(200);
      // A member with the owner's visibility gets the owner's answer, and the same tag.
      const rich = await get('/projects', { token: w.members.rich.token });
      expect(rich.text).to.equal(owner.text);
      expect(etag(rich)).to.equal(etag(owner));
      expect(etag(await get('/projects', { token: w.members.plain2.token }))).to.equal(etag(plain));
      // Tasks show rates only with money, too.
      expect(etag(await get('/tasks', { token: w.members.plain.token }))).to.not.equal(etag(await get('/tasks')));
      const filtered = await get('/projects?archived=false');
      expect(etag(filtered)).to.not.equal(etag(owner));
      expect((await get('/projects?archived=false', { ifNoneMatch: etag(owner) })).status).to.equal(200);
      expect(etag(await get(`/projects?clientIds=${w.clients.acme.id}`))).to.not.be.oneOf([etag(owner), etag(filtered)]);
    });

    it('If-None-Match is compared weakly and in any coding; * and lists match; anything else reads the list', async () => {
      const tag = etag(await get('/tags'));
      expectNotModified(await get('/tags', { ifNoneMatch: `W/${tag}` }), tag);
      expectNotModified(await get('/tags', { ifNoneMatch: `"tags-00000000000000000000", ${tag}` }), tag);
      expectNotModified(await get('/tags', { ifNoneMatch: '*' }), tag);
      // The tag of the gzip answer, sent by a client that now asks for no coding: the same list.
      expectNotModified(await get('/tags', { ifNoneMatch: tag.replace(/"$/, '-gzip"') }), tag);
      for (const stale of ['"tags-00000000000000000000"', tag.replace(/-[0-9a-f]{20}"$/, '-00000000000000000000"'), 'garbage'])
        expect((await get('/tags', { ifNoneMatch: stale })).status, stale).to.equal(200);
      // A compressed answer's tag ends in its coding; its 304 says so too.
      const gz = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'gzip' });
      const gzTag = gz.headers.etag as string;
      expect(gzTag).to.match(/-gzip"$/);
      const notModified = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'gzip', 'if-none-match': gzTag });
      expect([notModified.status, notModified.body.length, notModified.headers.etag]).to.deep.equal([304, 0, gzTag]);
      const br = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'br', 'if-none-match': gzTag });
      expect([br.status, br.headers.etag]).to.deep.equal([304, gzTag.replace(/-gzip"$/, '-br"')]);
    });

    it('shows no write counter, and does not move when another workspace writes', async () => {
      const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' });
      const stranger = addMemberWithToken(server.services, other.id, { canViewOthersTime: true, canViewOthersMoney: true });
      const theirs = () => get('/clients', { token: stranger.token });
      const before = etag(await theirs());
      expect(before).to.match(/^"clients-[0-9a-f]{20}"$/);
      for (let i = 0; i < 3; i++) {
        const made = await server.request('POST', `${API}/clients`, { json: { name: `Leak check ${i}` } });
        expect(made.status, made.text).to.equal(200);
      }
      expect(etag(await theirs())).to.equal(before);
      const mine = await server.request('POST', `${API}/clients`, { json: { name: 'Their own' }, token: stranger.token });
      expect(mine.status, mine.text).to.equal(200);
      expect(etag(await theirs())).to.not.equal(before);
    });

    it('past the event retention the purge keeps each workspace’s newest event, so tags stay exact', async () => {
      const tagOf = async () => etag(await get('/clients'));
      const made = await server.request('POST', `${API}/clients`, { json: { name: 'Retention check' } });
      expect(made.status, made.text).to.equal(200);
      const tagBefore = await tagOf();
      server.clock.advance(server.config.eventRetentionDays * DAY + DAY);
      try {
        const { events } = server.services;
        const before = server.clock.now() - server.config.eventRetentionDays * DAY;
        for (let next: number | null = 0; next !== null;) {
          const from: number = next;
          next = server.running.services.write(() => events.purge(before, 5000, from)).next;
        }
        expect(await tagOf()).to.equal(tagBefore);
        expectNotModified(await get('/clients', { ifNoneMatch: tagBefore }), tagBefore);
        const renamed = await server.request('PATCH', `${API}/clients/${made.body.data.id}`, { json: { name: 'Retention checked' } });
        expect(renamed.status, renamed.text).to.equal(200);
        expect(await tagOf()).to.not.equal(tagBefore);
      } finally {
        server.clock.advance(-(server.config.eventRetentionDays * DAY + DAY));
      }
    });
  });

  describe('the lists answered lately, kept by their ETag', () => {
    let server: TestServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('answers a list of an ETag it answered lately without a read (even with every reader busy), in each coding; a write reads it afresh', async () => {
      // One reader thread, held by a slow report; a read that waits 300 ms for it is refused.
      server = await startTestServer({ env: { READER_THREADS: '1', READ_QUEUE_MS: '300' }, readers: readerHooks({ slowReportsMs: 1500 }) });
      const w = world(server);
      const first = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'gzip' });
      const identity = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'identity' });
      expect([first.status, identity.status]).to.deep.equal([200, 200]);
      expect(first.headers['content-encoding']).to.equal('gzip');
      const busy = server.request('GET', `${API}/reports/summary?from=2026-11-01&to=2026-11-30&groupBy=project`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      try {
        // The same list in the same coding: the same bytes and tag, at once, though no thread is free.
        const again = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'gzip' });
        expect(again.status).to.equal(200);
        expect(again.headers.etag).to.equal(first.headers.etag);
        expect(again.headers['content-encoding']).to.equal('gzip');
        expect(again.body.equals(first.body)).to.equal(true);
        const plain = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'identity' });
        expect(plain.body.equals(identity.body)).to.equal(true);
        expect(JSON.parse(gunzipSync(again.body).toString()).data).to.have.length(PROJECTS.length);
        // Another query is another list: it needs the thread, and waits for it in vain.
        const other = await server.request('GET', `${API}/projects?archived=false`);
        expectProblem(other, 503, 'readers-busy', server.config.problemsBase, `${API}/projects`);
      } finally {
        expect((await busy).status).to.equal(200);
      }
      // A write moves the tag: the list is read again and shows it.
      const renamed = await server.request('PATCH', `${API}/projects/${w.projects.p0.id}`, { json: { name: 'Renamed' } });
      expect(renamed.status, renamed.text).to.equal(200);
      const after = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': 'identity' });
      expect(after.headers.etag).to.not.equal(identity.headers.etag);
      expect(JSON.parse(after.body.toString()).data.map((p: { name: string }) => p.name)).to.include('Renamed');
    });
  });

  describe('compression', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
      world(server);
    });
    after(() => server.close());

    it('compresses a large answer with br or gzip as Accept-Encoding asks, on the reader thread, with the right length', async () => {
      const plain = await raw(server, 'GET', `${API}/projects`);
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(plain.body.length).to.be.greaterThan(2048);
      expect(plain.headers.vary).to.equal('Accept-Encoding');
      const json = JSON.parse(plain.body.toString('utf8'));
      const cases: Array<[string, 'br' | 'gzip' | undefined]> = [
        ['gzip, deflate, br', 'br'],
        ['gzip', 'gzip'],
        ['br;q=0, gzip;q=0.5', 'gzip'],
        ['*', 'gzip'],
        ['deflate', undefined],
        ['identity', undefined],
        ['gzip;q=0', undefined],
      ];
      for (const [accept, coding] of cases) {
        const res = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': accept });
        expect(res.headers['content-encoding'], accept).to.equal(coding);
        expect(res.headers['content-length'], accept).to.equal(String(res.body.length));
        const decoded = coding === 'br' ? brotliDecompressSync(res.body) : coding === 'gzip' ? gunzipSync(res.body) : res.body;
        expect(JSON.parse(decoded.toString('utf8')), accept).to.deep.equal(json);
        if (coding) expect(res.body.length, accept).to.be.lessThan(plain.body.length / 3);
      }
    });

    it('HEAD reports the length the GET would send, compressed or not', async () => {
      for (const accept of ['gzip', 'br', 'identity']) {
        const get = await raw(server, 'GET', `${API}/projects`, { 'accept-encoding': accept });
        const head = await raw(server, 'HEAD', `${API}/projects`, { 'accept-encoding': accept });
        expect(head.body.length).to.equal(0);
        expect([head.headers['content-length'], head.headers['content-encoding']], accept).to.deep.equal([
          String(get.body.length),
          get.headers['content-encoding'],
        ]);
      }
    });

    it('leaves small answers alone, and compresses large ones made on the request thread (the contract)', async () => {
      const me = await raw(server, 'GET', `${API}/me`, { 'accept-encoding': 'gzip, br' });
      expect(me.headers['content-encoding']).to.equal(undefined);
      expect(me.headers.vary).to.equal('Accept-Encoding');
      const contract = await raw(server, 'GET', `${API}/openapi.json`, { 'accept-encoding': 'br' });
      expect(contract.headers['content-encoding']).to.equal('br');
      expect(JSON.parse(brotliDecompressSync(contract.body).toString('utf8')).openapi).to.equal('3.1.0');
      const head = await raw(server, 'HEAD', `${API}/openapi.json`, { 'accept-encoding': 'br' });
      expect(head.headers['content-length']).to.equal(String(contract.body.length));
    });

    it('READER_THREADS=0 (lists read on the request thread) compresses off that thread, to the same bytes', async () => {
      const inProcess = await startTestServer({ env: { READER_THREADS: '0' } });
      try {
        world(inProcess);
        const res = await raw(inProcess, 'GET', `${API}/projects`, { 'accept-encoding': 'gzip' });
        expect(res.headers['content-encoding']).to.equal('gzip');
        expect(res.headers['content-length']).to.equal(String(res.body.length));
        expect(JSON.parse(gunzipSync(res.body).toString('utf8')).data).to.have.length(10);
      } finally {
        await inProcess.close();
      }
    });

    it('COMPRESSION_MIN_BYTES=off never compresses, and answers do not vary by Accept-Encoding', async () => {
      const off = await startTestServer({ env: { COMPRESSION_MIN_BYTES: 'off' } });
      try {
        world(off);
        const res = await raw(off, 'GET', `${API}/projects`, { 'accept-encoding': 'gzip, br' });
        expect(res.headers['content-encoding']).to.equal(undefined);
        expect(res.headers.vary).to.equal(undefined);
        expect(res.headers.etag).to.match(/[0-9a-f]"$/);
      } finally {
        await off.close();
      }
    });
  });
});
