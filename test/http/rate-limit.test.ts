import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import {
  addMemberWithToken,
  DEFAULT_NOW,
  expectProblem,
  type FreshWorkspace,
  freshWorkspace,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../helpers/server.js';

const headersOf = (res: TestResponse) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
  retryAfter: res.headers.get('retry-after'),
});

describe('rate limits', () => {
  // One server for the file: the budgets here are a token's and a workspace's, and each test has a
  // fresh workspace and token, with the clock back at DEFAULT_NOW.
  let shared: TestServer;
  let server: FreshWorkspace;
  before(async () => {
    // DEFAULT_NOW is 30 s into a window: Reset is 30.
    shared = await startTestServer({ env: { RATE_LIMIT_TOKEN_PER_MIN: '3', RATE_LIMIT_WORKSPACE_PER_MIN: '5' } });
  });
  after(() => shared.close());
  beforeEach(() => {
    server = freshWorkspace(shared);
  });

  it('counts down on every authenticated response and refuses the request past the token budget with 429', async () => {
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(headersOf(await server.request('GET', '/api/v1/me')));
    expect(seen).to.deep.equal([
      { limit: '3', remaining: '2', reset: '30', retryAfter: null },
      { limit: '3', remaining: '1', reset: '30', retryAfter: null },
      { limit: '3', remaining: '0', reset: '30', retryAfter: null },
    ]);
    const refused = await server.request('GET', '/api/v1/me');
    expectProblem(refused, 429, 'rate-limited', server.config.problemsBase, '/api/v1/me');
    expect(headersOf(refused)).to.deep.equal({ limit: '3', remaining: '0', reset: '30', retryAfter: '30' });
    expect(refused.body.detail).to.contain('this token');
  });

  it('puts the headers on refusals after authentication too (400)', async () => {
    const res = await server.request('GET', '/api/v1/me?bogus=1');
    expect(res.status).to.equal(400);
    expect(headersOf(res)).to.deep.equal({ limit: '3', remaining: '2', reset: '30', retryAfter: null });
  });

  it('the workspace budget binds when it is the tighter one, across all its tokens', async () => {
    const a = addMemberWithToken(server.services, server.workspaceId).token;
    const b = addMemberWithToken(server.services, server.workspaceId).token;
    // Workspace budget 5: tokens a (3) and b (3) share it.
    await server.request('GET', '/api/v1/me', { token: a });
    await server.request('GET', '/api/v1/me', { token: a });
    // a has 1 left of 3, the workspace 3 of 5: the token binds.
    expect(headersOf(await server.request('GET', '/api/v1/me', { token: b }))).to.include({ limit: '3', remaining: '2' });
    // Workspace has 2 left, b has 2 left: equal remaining, the smaller limit (token) is named.
    expect(headersOf(await server.request('GET', '/api/v1/me', { token: b }))).to.include({ limit: '3', remaining: '1' });
    // Workspace 1 left of 5, b 1 left of 3; the next takes the last of both.
    expect(headersOf(await server.request('GET', '/api/v1/me', { token: b }))).to.include({ remaining: '0' });
    // a still has 1 of its own 3, but the workspace has none: 429 under the workspace budget.
    const refused = await server.request('GET', '/api/v1/me', { token: a });
    expectProblem(refused, 429, 'rate-limited', server.config.problemsBase);
    expect(headersOf(refused)).to.deep.equal({ limit: '5', remaining: '0', reset: '30', retryAfter: '30' });
    expect(refused.body.detail).to.contain('this workspace');
  });

  it('names the workspace budget while it has fewer requests left than the token', async () => {
    server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { rateLimitPerMin: 2 });
    const token = addMemberWithToken(server.services, server.workspaceId, { rateLimitPerMin: 10 }).token;
    expect(headersOf(await server.request('GET', '/api/v1/me', { token }))).to.include({ limit: '2', remaining: '1' });
    expect(headersOf(await server.request('GET', '/api/v1/me', { token }))).to.include({ limit: '2', remaining: '0' });
    expect((await server.request('GET', '/api/v1/me', { token })).status).to.equal(429);
  });

  it('per-token overrides replace the default token budget', async () => {
    const token = addMemberWithToken(server.services, server.workspaceId, { rateLimitPerMin: 1 }).token;
    expect(headersOf(await server.request('GET', '/api/v1/me', { token }))).to.include({ limit: '1', remaining: '0' });
    expectProblem(await server.request('GET', '/api/v1/me', { token }), 429, 'rate-limited', server.config.problemsBase);
  });

  it('a refused request does not count, and the next window starts afresh', async () => {
    for (let i = 0; i < 3; i++) await server.request('GET', '/api/v1/me');
    for (let i = 0; i < 3; i++) expect((await server.request('GET', '/api/v1/me')).status).to.equal(429);
    server.clock.advance(29_000);
    expect(headersOf(await server.request('GET', '/api/v1/me'))).to.include({ retryAfter: '1', reset: '1' });
    server.clock.advance(1_000);
    expect(headersOf(await server.request('GET', '/api/v1/me'))).to.deep.equal({
      limit: '3',
      remaining: '2',
      reset: '60',
      retryAfter: null,
    });
  });

  it('does not limit unauthenticated requests (they carry no identity) nor send the headers', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await server.request('GET', '/api/v1/me', { token: null });
      expect(res.status).to.equal(401);
      expect(res.headers.get('ratelimit-limit')).to.equal(null);
    }
    expect(DEFAULT_NOW % 60_000).to.equal(30_000);
  });

  describe('requests without a valid token: a budget per client address', () => {
    // A server per test: each sets its own anonymous budget and TRUST_PROXY (server-wide, by env),
    // and counts requests per address, which is 127.0.0.1 for every test.
    let open: TestServer;
    afterEach(() => open.close());

    it('wrong guesses and the contract count; past the budget 429 with Retry-After, a valid token still passes', async () => {
      open = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MIN: '4' } });
      const base = open.config.problemsBase;
      const guesses = [];
      for (let i = 0; i < 2; i++) guesses.push((await open.request('GET', '/api/v1/me', { token: 'tt_AbCdEfGh_wrong' })).status);
      guesses.push((await open.request('GET', '/api/v1/me', { token: null })).status);
      guesses.push((await open.request('GET', '/api/v1/openapi.json', { token: null })).status);
      expect(guesses).to.deep.equal([401, 401, 401, 200]);
      for (const [path, token] of [
        ['/api/v1/me', 'tt_AbCdEfGh_wrong'],
        ['/api/v1/me', null],
        ['/api/v1/openapi.json', null],
      ] as const) {
        const refused = await open.request('GET', path, { token });
        expectProblem(refused, 429, 'rate-limited', base, path);
        expect(refused.headers.get('retry-after')).to.equal('30');
        expect(refused.body.detail).to.equal(
          'More than 4 requests per minute without a valid token came from 127.0.0.1; retry in 30 seconds.',
        );
      }
      // The owner's token is not held up by the guesses from the same address.
      expect((await open.request('GET', '/api/v1/me')).status).to.equal(200);
      expect((await open.request('GET', '/api/v1/nowhere', { token: null })).status).to.equal(404);
      // The next window has a fresh budget.
      open.clock.advance(30_000);
      expect((await open.request('GET', '/api/v1/me', { token: null })).status).to.equal(401);
    });

    it('X-Forwarded-For names the client only when the peer is a trusted proxy (TRUST_PROXY)', async () => {
      open = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MIN: '1' } });
      const as = (client: string) => open.request('GET', '/api/v1/me', { token: null, headers: { 'x-forwarded-for': client } });
      // Not trusted: every forged header is the same client, 127.0.0.1.
      expect([(await as('203.0.113.1')).status, (await as('203.0.113.2')).status]).to.deep.equal([401, 429]);
      await open.close();
      open = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MIN: '1', TRUST_PROXY: 'loopback' } });
      expect([(await as('203.0.113.1')).status, (await as('203.0.113.2')).status, (await as('203.0.113.1')).status]).to.deep.equal([
        401, 401, 429,
      ]);
      const refused = await as('198.51.100.7, 203.0.113.2');
      expect(refused.body.detail).to.contain('from 203.0.113.2');
    });

    it('counts an IPv6 client by its /64: other addresses of the same /64 share its budget', async () => {
      open = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MIN: '1', TRUST_PROXY: 'loopback' } });
      const as = (client: string) => open.request('GET', '/api/v1/me', { token: null, headers: { 'x-forwarded-for': client } });
      expect((await as('2001:db8:5:6::1')).status).to.equal(401);
      expect((await as('2001:db8:5:6:ffff:1234:abcd:9')).status).to.equal(429);
      expect((await as('2001:db8:5:7::1')).status).to.equal(401);
    });
  });
});
