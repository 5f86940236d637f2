import { expect } from 'chai';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SEC } from '../../src/http/cors.js';
import { addMemberWithToken, expectProblem, send, startTestServer, type TestServer } from '../helpers/server.js';

const APP = 'https://app.example.org';
const DEV = 'http://localhost:5173';
const OTHER = 'https://evil.example.net';

/** A browser's preflight: OPTIONS with Origin and Access-Control-Request-Method (and -Headers). */
const preflight = (server: TestServer, path: string, origin: string, method = 'POST', headers = 'authorization,content-type') =>
  send(server.url, 'OPTIONS', path, {
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

const methodsOf = (value: string | null) => (value ?? '').split(', ').sort();

describe('CORS', () => {
  describe('with CORS_ORIGINS set to two origins', () => {
    let server: TestServer;
    before(async () => {
      // A tight anonymous budget: preflights must not draw on it.
      server = await startTestServer({ env: { CORS_ORIGINS: `${APP}/, ${DEV}`, RATE_LIMIT_ANONYMOUS_PER_MIN: '2' } });
    });
    after(() => server.close());

    it('answers a preflight from an allowed origin with 204, the methods of the path, the allowed headers and a max age', async () => {
      const res = await preflight(server, '/api/v1/projects', APP);
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expect(res.headers.get('access-control-allow-origin')).to.equal(APP);
      expect(methodsOf(res.headers.get('access-control-allow-methods'))).to.deep.equal(['GET', 'HEAD', 'POST']);
      expect(res.headers.get('access-control-allow-headers')).to.equal('Authorization, Content-Type, If-None-Match');
      expect(res.headers.get('access-control-max-age')).to.equal(String(CORS_MAX_AGE_SEC));
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      expect(res.headers.get('vary')).to.equal('Origin, Accept-Encoding');
      expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      // No token was read: no rate-limit headers.
      expect(res.headers.get('ratelimit-remaining')).to.equal(null);
      // A templated path names its own methods; the second origin is allowed too.
      const item = await preflight(server, '/api/v1/projects/prj_anything', DEV, 'PATCH');
      expect(item.status).to.equal(204);
      expect(item.headers.get('access-control-allow-origin')).to.equal(DEV);
      expect(methodsOf(item.headers.get('access-control-allow-methods'))).to.deep.equal(['DELETE', 'GET', 'HEAD', 'PATCH']);
      const timer = await preflight(server, '/api/v1/entries/current/stop', APP);
      expect(methodsOf(timer.headers.get('access-control-allow-methods'))).to.deep.equal(['POST']);
    });

    it('gives a disallowed origin no CORS headers: its preflight is an OPTIONS like any other (404)', async () => {
      const res = await preflight(server, '/api/v1/projects', OTHER);
      expectProblem(res, 404, 'no-such-route', server.config.problemsBase, '/api/v1/projects');
      for (const name of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-expose-headers'])
        expect(res.headers.get(name), name).to.equal(null);
      // Not a prefix match: the allowed origin with another port, scheme or a suffix is another origin.
      for (const origin of ['https://app.example.org:8443', 'http://app.example.org', 'https://app.example.org.evil.net'])
        expect((await preflight(server, '/api/v1/projects', origin)).headers.get('access-control-allow-origin'), origin).to.equal(null);
      // A plain OPTIONS (no Access-Control-Request-Method) is no preflight either.
      const plain = await send(server.url, 'OPTIONS', '/api/v1/projects', { headers: { origin: APP } });
      expect(plain.status).to.equal(404);
    });

    it('answers a preflight for an unknown path 404 (a preflight must succeed, so the browser refuses)', async () => {
      const res = await preflight(server, '/api/v1/nowhere', APP);
      expectProblem(res, 404, 'no-such-route', server.config.problemsBase);
      expect(res.headers.get('access-control-allow-methods')).to.equal(null);
      expect((await preflight(server, '/api/v1/projects/', APP)).status).to.equal(404);
    });

    it('preflights draw nothing from the per-address budget of requests without a token', async () => {
      for (let i = 0; i < 6; i++) expect((await preflight(server, '/api/v1/me', APP, 'GET', 'authorization')).status).to.equal(204);
      const anonymous = await server.request('GET', '/api/v1/me', { token: null, headers: { origin: APP } });
      expectProblem(anonymous, 401, 'invalid-token', server.config.problemsBase);
    });

    it('actual answers, problem documents and 429s included, carry Allow-Origin, Expose-Headers and Vary: Origin', async () => {
      const me = await server.request('GET', '/api/v1/me', { headers: { origin: APP } });
      expect(me.status).to.equal(200);
      expect(me.headers.get('access-control-allow-origin')).to.equal(APP);
      expect(me.headers.get('access-control-expose-headers')).to.equal(CORS_EXPOSED_HEADERS);
      expect(CORS_EXPOSED_HEADERS.split(', ')).to.deep.equal([
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
        'X-Request-Id',
        'ETag',
        // A deprecated operation's notice (src/http/deprecation.ts), readable by a page's script too.
        'Deprecation',
        'Sunset',
        'Link',
      ]);
      expect(CORS_ALLOWED_HEADERS).to.equal('Authorization, Content-Type, If-None-Match');
      expect(me.headers.get('vary')).to.equal('Origin, Accept-Encoding');

      const invalid = await server.request('GET', '/api/v1/projects?archived=maybe', { headers: { origin: DEV } });
      expectProblem(invalid, 400, 'invalid-request', server.config.problemsBase);
      expect(invalid.headers.get('access-control-allow-origin')).to.equal(DEV);

      const limited = addMemberWithToken(server.services, server.workspaceId, { rateLimitPerMin: 1 });
      expect((await server.request('GET', '/api/v1/me', { token: limited.token, headers: { origin: APP } })).status).to.equal(200);
      const refused = await server.request('GET', '/api/v1/me', { token: limited.token, headers: { origin: APP } });
      expectProblem(refused, 429, 'rate-limited', server.config.problemsBase);
      expect(refused.headers.get('access-control-allow-origin')).to.equal(APP);
      expect(refused.headers.get('access-control-expose-headers')).to.contain('Retry-After');
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('an actual request from another origin is answered without CORS headers (the browser withholds it), still Vary: Origin', async () => {
      const res = await server.request('GET', '/api/v1/me', { headers: { origin: OTHER } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      expect(res.headers.get('access-control-expose-headers')).to.equal(null);
      expect(res.headers.get('vary')).to.equal('Origin, Accept-Encoding');
      // No Origin at all (curl, a server): no CORS headers either.
      const plain = await server.request('GET', '/api/v1/me');
      expect(plain.headers.get('access-control-allow-origin')).to.equal(null);
    });
  });

  describe('with CORS_ORIGINS=*', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { CORS_ORIGINS: '*' } });
    });
    after(() => server.close());

    it('allows every origin with a literal * and never credentials; answers do not vary by Origin', async () => {
      const res = await preflight(server, '/api/v1/entries', OTHER);
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      expect(res.headers.get('access-control-allow-credentials')).to.equal(null);
      const me = await server.request('GET', '/api/v1/me', { headers: { origin: OTHER } });
      expect(me.headers.get('access-control-allow-origin')).to.equal('*');
      expect(me.headers.get('vary')).to.equal('Accept-Encoding');
    });
  });

  describe('without CORS_ORIGINS (the default)', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.close());

    it('sends no CORS headers and answers a preflight 404 like any OPTIONS', async () => {
      const res = await preflight(server, '/api/v1/projects', APP);
      expectProblem(res, 404, 'no-such-route', server.config.problemsBase);
      expect(res.headers.get('access-control-allow-origin')).to.equal(null);
      const me = await server.request('GET', '/api/v1/me', { headers: { origin: APP } });
      expect(me.headers.get('access-control-allow-origin')).to.equal(null);
      expect(me.headers.get('vary')).to.equal('Accept-Encoding');
    });
  });
});
