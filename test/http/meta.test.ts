import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { problemTypes } from '../../generated/problems.js';
import { loadContract } from '../../src/contract.js';
import { expectProblem, send, startTestServer, type TestServer } from '../helpers/server.js';

// `send` here fetches the HTML problem pages, which are not API operations of the contract.

describe('the served contract and the problem pages', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { BASE_URL: 'https://time.example.org' } });
  });
  after(() => server.close());

  it('GET /api/v1/openapi.json serves the contract unauthenticated, with servers set from BASE_URL', async () => {
    const res = await server.request('GET', '/api/v1/openapi.json', { token: null });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(res.headers.get('ratelimit-limit')).to.equal(null);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.info.version).to.equal('1.0.0');
    expect(res.body.servers).to.deep.equal([{ url: 'https://time.example.org' }]);
    const { servers: _served, ...served } = res.body;
    const { servers: _original, ...original } = loadContract();
    expect(served).to.deep.equal(original);
  });

  it('serves openapi.json to a bad token too (it needs none)', async () => {
    expect((await server.request('GET', '/api/v1/openapi.json', { token: 'tt_bogus' })).status).to.equal(200);
  });

  it('every problem type URI resolves to a human-readable page', async () => {
    for (const [slug, { status }] of Object.entries(problemTypes)) {
      const res = await send(server.url, 'GET', `/problems/${slug}`);
      expect(res.status, slug).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.text).to.contain(`<code>${slug}</code>`).and.contain(String(status));
    }
    const index = await send(server.url, 'GET', '/problems');
    expect(index.status).to.equal(200);
    for (const slug of Object.keys(problemTypes)) expect(index.text).to.contain(`https://time.example.org/problems/${slug}`);
    expect((await send(server.url, 'GET', '/problems/nope')).status).to.equal(404);
  });

  it('problem pages: nosniff, a policy that allows only their own inline style, never framed', async () => {
    for (const path of ['/problems', '/problems/conflict', '/problems/nope']) {
      const res = await send(server.url, 'GET', path);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(
        csp.split('; ').filter((d) => !d.startsWith('style-src')),
        path,
      ).to.deep.equal(["default-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]);
      // The style-src hash is the page's one <style> element, so the browser applies it.
      const style = /<style>([^<]*)<\/style>/.exec(res.text)?.[1] ?? '';
      expect(csp).to.contain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
      expect(res.text).not.to.contain('<script');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      expect(res.headers.get('cache-control')).to.equal(null);
    }
  });

  it('API responses: nosniff everywhere, no-store (answers are per token)', async () => {
    for (const [path, token] of [
      ['/api/v1/me', undefined],
      ['/api/v1/me', null],
      ['/api/v1/nope', undefined],
      ['/api/v1/openapi.json', null],
    ] as const) {
      const res = await server.request('GET', path, token === null ? { token: null } : {});
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('cache-control'), path).to.equal('no-store');
    }
  });

  it('problem types use PROBLEMS_BASE (default: BASE_URL/problems)', async () => {
    const res = await server.request('GET', '/api/v1/me', { token: null });
    expectProblem(res, 401, 'invalid-token', 'https://time.example.org/problems', '/api/v1/me');
  });

  it('every slug of the contract has a status, and problem documents use its status phrase as title', () => {
    expect(Object.keys(problemTypes).sort()).to.deep.equal(
      [
        'conflict',
        'forbidden',
        'insufficient-scope',
        'internal-error',
        'invalid-request',
        'invalid-token',
        'money-visibility-required',
        'no-such-route',
        'not-found',
        'payload-too-large',
        'rate-limited',
        'readers-busy',
        'workspace-not-addressable',
      ].sort(),
    );
  });

  describe('with a custom PROBLEMS_BASE', () => {
    let custom: TestServer;
    before(async () => {
      custom = await startTestServer({ env: { PROBLEMS_BASE: 'https://docs.example.org/errors' } });
    });
    after(() => custom.close());

    it('uses it in every problem type and does not serve the pages itself', async () => {
      const res = await custom.request('GET', '/api/v1/me', { token: null });
      expectProblem(res, 401, 'invalid-token', 'https://docs.example.org/errors');
      const page = await custom.request('GET', '/problems/invalid-token', { token: null });
      expectProblem(page, 404, 'no-such-route', 'https://docs.example.org/errors', '/problems/invalid-token');
    });
  });
});

describe('the public route takes no parameters', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers 400 invalid-request for an unknown query parameter, without rate-limit headers', async () => {
    const res = await server.request('GET', '/api/v1/openapi.json?format=yaml', { token: null });
    expectProblem(res, 400, 'invalid-request', server.config.problemsBase, '/api/v1/openapi.json');
    expect(res.body.detail).to.equal('query.format: is not a parameter of this route');
    expect(res.headers.get('ratelimit-limit')).to.equal(null);
  });
});
