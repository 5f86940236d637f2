import { connect } from 'node:net';
import { expect } from 'chai';
import { fixtureContract, fixtureHandlers } from '../helpers/fixture.js';
import { addMemberWithToken, expectProblem, startTestServer, type TestServer } from '../helpers/server.js';

describe('request pipeline', () => {
  let server: TestServer;
  let base: string;
  let readOnly: string; // entries:read only
  let noScopes: string;

  before(async () => {
    const contract = fixtureContract();
    server = await startTestServer({ contract, handlers: fixtureHandlers });
    base = server.config.problemsBase;
    readOnly = addMemberWithToken(server.services, server.workspaceId, { scopes: ['entries:read'] }).token;
    noScopes = addMemberWithToken(server.services, server.workspaceId, { scopes: [] }).token;
  });
  after(() => server.close());

  describe('1. routing comes first', () => {
    it('answers 404 no-such-route for an unknown path, before any token check', async () => {
      const res = await server.request('GET', '/api/v1/nothing-here', { token: null });
      expectProblem(res, 404, 'no-such-route', base, '/api/v1/nothing-here');
    });

    it('answers 404 no-such-route for a known path with another method', async () => {
      const res = await server.request('DELETE', '/api/v1/me', { token: null });
      expectProblem(res, 404, 'no-such-route', base, '/api/v1/me');
    });

    it('answers 404 no-such-route outside /api/v1 too', async () => {
      const res = await server.request('GET', '/', { token: null });
      expectProblem(res, 404, 'no-such-route', base, '/');
    });
  });

  describe('paths and HEAD', () => {
    it('a trailing slash names no route; the detail names the path without it', async () => {
      const res = await server.request('GET', '/api/v1/me/');
      expectProblem(res, 404, 'no-such-route', base, '/api/v1/me/');
      expect(res.body.detail).to.equal('No route matches GET /api/v1/me/. Paths have no trailing slash: GET /api/v1/me.');
      const templated = await server.request('GET', '/api/v1/fixture/fail/boom/');
      expectProblem(templated, 404, 'no-such-route', base);
      expect(templated.body.detail).to.contain('GET /api/v1/fixture/fail/boom.');
      // A route with array parameters, and a query: the same rule.
      const list = await server.request('GET', '/api/v1/entries/?tagIds=a,b');
      expectProblem(list, 404, 'no-such-route', base, '/api/v1/entries/');
      expect(list.body.detail).to.equal('No route matches GET /api/v1/entries/. Paths have no trailing slash: GET /api/v1/entries.');
      // No hint where the path without the slash does not name a route for this method either.
      const other = await server.request('DELETE', '/api/v1/me/');
      expect(other.body.detail).to.equal('No route matches DELETE /api/v1/me/.');
    });

    it('HEAD answers every GET route with the GET’s status and headers and no body', async () => {
      const get = await server.request('GET', '/api/v1/me');
      const head = await server.request('HEAD', '/api/v1/me');
      expect(head.status).to.equal(200);
      expect(head.text).to.equal('');
      expect(head.headers.get('content-type')).to.equal(get.headers.get('content-type'));
      expect(head.headers.get('content-length')).to.equal(String(Buffer.byteLength(get.text)));
      expect(Number(head.headers.get('ratelimit-remaining'))).to.equal(Number(get.headers.get('ratelimit-remaining')) - 1);
      expect(head.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      const document = await server.request('HEAD', '/api/v1/openapi.json', { token: null });
      expect(document.status).to.equal(200);
      expect(document.text).to.equal('');
    });

    it('HEAD passes the same pipeline: 401, 403, 400 and 404 with problem headers and no body', async () => {
      const unauthenticated = await server.request('HEAD', '/api/v1/fixture/items', { token: null });
      expect([unauthenticated.status, unauthenticated.text]).to.deep.equal([401, '']);
      expect(unauthenticated.headers.get('content-type')).to.equal('application/problem+json');
      expect(unauthenticated.headers.get('www-authenticate')).to.equal('Bearer realm="timetrack"');
      expect((await server.request('HEAD', '/api/v1/fixture/items', { token: noScopes })).status).to.equal(403);
      expect((await server.request('HEAD', '/api/v1/fixture/items?limit=0')).status).to.equal(400);
      expect((await server.request('HEAD', '/api/v1/nothing-here', { token: null })).status).to.equal(404);
      // HEAD is not an alias of any other method.
      expect((await server.request('HEAD', '/api/v1/entries/current/stop')).status).to.equal(404);
    });
  });

  describe('2. the token before everything else', () => {
    it('401 before 403 (no token on a scoped route)', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items', { token: null });
      expectProblem(res, 401, 'invalid-token', base, '/api/v1/fixture/items');
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="timetrack"');
      expect(res.headers.get('ratelimit-limit')).to.equal(null);
    });

    it('401 before 400 (bad token and invalid query)', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items?limit=0&bogus=1', { token: 'tt_nope' });
      expectProblem(res, 401, 'invalid-token', base);
    });

    it('401 before 413 and before malformed JSON', async () => {
      const big = await server.request('POST', '/api/v1/fixture/items', {
        token: null,
        raw: 'x'.repeat(2 * 1024 * 1024),
        contentType: 'application/json',
      });
      expectProblem(big, 401, 'invalid-token', base);
      const malformed = await server.request('POST', '/api/v1/fixture/items', { token: null, raw: '{', contentType: 'application/json' });
      expectProblem(malformed, 401, 'invalid-token', base);
    });
  });

  describe('3. the rate limit after the token, before scope and validation', () => {
    it('429 before 403 and before 400', async () => {
      const { token } = addMemberWithToken(server.services, server.workspaceId, { scopes: [], rateLimitPerMin: 1 });
      expectProblem(await server.request('GET', '/api/v1/fixture/items?limit=0', { token }), 403, 'insufficient-scope', base);
      const limited = await server.request('GET', '/api/v1/fixture/items?limit=0', { token });
      expectProblem(limited, 429, 'rate-limited', base, '/api/v1/fixture/items');
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    });
  });

  describe('4. scope after the token, before validation', () => {
    it('403 insufficient-scope names the missing scope', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items', { token: noScopes });
      expectProblem(res, 403, 'insufficient-scope', base, '/api/v1/fixture/items');
      expect(res.body.detail).to.contain('entries:read').and.contain('no scopes');
    });

    it('403 before 400 (invalid query, missing scope)', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items?limit=0', { token: noScopes });
      expectProblem(res, 403, 'insufficient-scope', base);
    });

    it('write scope does not imply read scope, nor read write', async () => {
      const writeOnly = addMemberWithToken(server.services, server.workspaceId, { scopes: ['entries:write'] }).token;
      expectProblem(await server.request('GET', '/api/v1/fixture/items', { token: writeOnly }), 403, 'insufficient-scope', base);
      expectProblem(
        await server.request('POST', '/api/v1/fixture/items', { token: readOnly, json: { name: 'a' } }),
        403,
        'insufficient-scope',
        base,
      );
    });

    it('403 before 413 and malformed JSON: a refused body is never read', async () => {
      const big = await server.request('POST', '/api/v1/fixture/items', {
        token: readOnly,
        raw: 'x'.repeat(2 * 1024 * 1024),
        contentType: 'application/json',
      });
      expectProblem(big, 403, 'insufficient-scope', base);
    });

    it('a token with no scopes can still read /me, which needs none', async () => {
      const res = await server.request('GET', '/api/v1/me', { token: noScopes });
      expect(res.status).to.equal(200);
      expect(res.body.data.scopes).to.deep.equal([]);
    });
  });

  describe('5. workspaceId before validation', () => {
    it('400 workspace-not-addressable for another workspace in the query, before other 400s', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items?workspaceId=ws_other&limit=0');
      expectProblem(res, 400, 'workspace-not-addressable', base, '/api/v1/fixture/items');
      expect(res.body.detail).to.contain('query.workspaceId');
    });

    it('ignores the token’s own workspaceId in the query', async () => {
      const res = await server.request('GET', `/api/v1/fixture/items?workspaceId=${server.workspaceId}&limit=3`);
      expect(res.status).to.equal(200);
      expect(res.body.data.query).to.deep.equal({ limit: 3 });
    });

    it('400 workspace-not-addressable for another workspace in the body', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', { json: { name: 'toolongname', workspaceId: 'ws_other' } });
      expectProblem(res, 400, 'workspace-not-addressable', base);
      expect(res.body.detail).to.contain('body.workspaceId');
    });

    it('ignores the token’s own workspaceId in the body (the operation never sees it)', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', { json: { name: 'ok', workspaceId: server.workspaceId } });
      expect(res.status).to.equal(200);
      expect(res.body.data.body).to.deep.equal({ name: 'ok' });
    });

    it('on /me as well', async () => {
      expectProblem(await server.request('GET', '/api/v1/me?workspaceId=ws_elsewhere'), 400, 'workspace-not-addressable', base);
      expect((await server.request('GET', `/api/v1/me?workspaceId=${server.workspaceId}`)).status).to.equal(200);
    });
  });

  describe('6. validation', () => {
    it('names every failing field in one detail', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items?limit=501&billable=maybe&tagIds=a,,b,c,d&extra=1');
      expectProblem(res, 400, 'invalid-request', base);
      for (const field of ['query.limit', 'query.billable', 'query.tagIds', 'query.extra']) expect(res.body.detail).to.contain(field);
    });

    it('a body with 150,000 failing items is a short 400 that counts what it does not list', async () => {
      const res = await server.request('POST', '/api/v1/entries', {
        json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', tagIds: new Array(150_000).fill(7) },
      });
      expectProblem(res, 400, 'invalid-request', base, '/api/v1/entries');
      expect(res.body.detail).to.match(/body\.tagIds\[0\]: must be string; .*; and \d+ more errors not listed$/);
      expect(res.text.length).to.be.below(2_000);
    });

    it('refuses unknown body fields and wrong types, naming them', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', { json: { name: 'abcdef', count: 1.5, colour: 'red' } });
      expectProblem(res, 400, 'invalid-request', base);
      expect(res.body.detail).to.contain('body.name').and.contain('body.count').and.contain('body.colour');
    });

    it('a missing required body is 400 naming the body', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items');
      expectProblem(res, 400, 'invalid-request', base);
      expect(res.body.detail).to.equal('body: is required');
    });

    it('malformed JSON is 400 invalid-request', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', { raw: '{"name": ', contentType: 'application/json' });
      expectProblem(res, 400, 'invalid-request', base);
      expect(res.body.detail).to.match(/JSON/);
    });

    it('a JSON scalar is not a body', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', { raw: '"name"', contentType: 'application/json' });
      expectProblem(res, 400, 'invalid-request', base);
    });

    it('a body that is not JSON by content type is 400', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', {
        raw: 'name=a',
        contentType: 'application/x-www-form-urlencoded',
      });
      expectProblem(res, 400, 'invalid-request', base);
      expect(res.body.detail).to.contain('Content-Type');
    });

    it('a body over MAX_BODY_BYTES is 413 payload-too-large', async () => {
      const res = await server.request('POST', '/api/v1/fixture/items', { json: { name: 'x'.repeat(1024 * 1024 + 10) } });
      expectProblem(res, 413, 'payload-too-large', base);
    });

    it('after a 413 the connection closes: the rest of a large upload is not read', async () => {
      const { hostname, port } = new URL(server.url);
      /** Sends the start of an upload that never ends; resolves with the answer once the server hangs up. */
      const upload = async (headers: string, body: string) => {
        const socket = connect(Number(port), hostname);
        let answer = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (answer += chunk));
        socket.on('error', () => {});
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        socket.write(
          `POST /api/v1/fixture/items HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${server.ownerToken}\r\n` +
            `Content-Type: application/json\r\n${headers}\r\n${body}`,
        );
        const outcome = await Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 5000))]);
        socket.destroy();
        return { outcome, answer };
      };
      // 100 MB announced, 64 KiB sent; then a chunked upload without a length, past the limit.
      const announced = await upload(`Content-Length: ${100 * 1024 * 1024}\r\n`, ' '.repeat(64 * 1024));
      const size = 1024 * 1024 + 1;
      const chunked = await upload('Transfer-Encoding: chunked\r\n', `${size.toString(16)}\r\n${' '.repeat(size)}\r\n`);
      for (const { outcome, answer } of [announced, chunked]) {
        expect(outcome, answer).to.equal('closed');
        expect(answer).to.match(/^HTTP\/1\.1 413 /);
        expect(answer.toLowerCase()).to.contain('\r\nconnection: close\r\n');
        expect(answer).to.contain(`"type":"${base}/payload-too-large"`);
      }
    });

    it('repeated and comma-separated array parameters give the same array', async () => {
      const repeated = await server.request('GET', '/api/v1/fixture/items?tagIds=a&tagIds=b');
      const comma = await server.request('GET', '/api/v1/fixture/items?tagIds=a,b');
      const mixed = await server.request('GET', '/api/v1/fixture/items?tagIds=a,b&tagIds=c');
      expect(repeated.body.data.query).to.deep.equal({ tagIds: ['a', 'b'] });
      expect(comma.body.data.query).to.deep.equal({ tagIds: ['a', 'b'] });
      expect(mixed.body.data.query).to.deep.equal({ tagIds: ['a', 'b', 'c'] });
    });

    it('coerces query types as the contract declares them', async () => {
      const res = await server.request('GET', '/api/v1/fixture/items?limit=500&billable=false&tagIds=x');
      expect(res.body.data.query).to.deep.equal({ limit: 500, billable: false, tagIds: ['x'] });
    });
  });

  describe('7. the operation', () => {
    const cases = [
      ['not_found', 404, 'not-found'],
      ['conflict', 409, 'conflict'],
      ['forbidden', 403, 'forbidden'],
      ['money_visibility_required', 403, 'money-visibility-required'],
    ] as const;
    for (const [code, status, slug] of cases) {
      it(`a domain error ${code} becomes ${status} ${slug}`, async () => {
        const res = await server.request('GET', `/api/v1/fixture/fail/${code}`);
        expectProblem(res, status, slug, base, `/api/v1/fixture/fail/${code}`);
        expect(res.body.detail).to.equal(`fixture ${code}`);
      });
    }

    it('an unexpected failure is 500 internal-error with the fixed detail; the log has the request id and stack', async () => {
      const res = await server.request('GET', '/api/v1/fixture/fail/boom');
      expectProblem(res, 500, 'internal-error', base, '/api/v1/fixture/fail/boom');
      expect(res.body.detail).to.equal('The server could not complete this request.');
      expect(res.text).not.to.contain('secret internal detail');
      const requestId = res.headers.get('x-request-id');
      expect(requestId).to.match(/^[0-9a-f-]{36}$/);
      const line = server.logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error' && l.requestId === requestId);
      expect(line?.error?.stack).to.contain('secret internal detail');
    });

    it('logs one structured line per request with its id, and never a token', async () => {
      const res = await server.request('GET', '/api/v1/me');
      const requestId = res.headers.get('x-request-id');
      const line = server.logLines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.requestId === requestId);
      expect(line).to.include({ method: 'GET', path: '/api/v1/me', operationId: 'getMe', status: 200 });
      const everything = server.logLines.join('\n');
      expect(everything).not.to.contain(server.ownerToken);
      expect(everything).not.to.contain(readOnly);
      expect(everything).not.to.match(/tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}/);
    });
  });
});
