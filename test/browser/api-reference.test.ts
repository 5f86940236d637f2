import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import express from 'express';
import type { Browser } from 'playwright-core';
// @ts-expect-error: plain JavaScript without types (it runs before any build)
import { staleReference } from '../../bin/build-check.js';
import { buildApiReference } from '../../scripts/api-reference.js';
import { loadContract } from '../../src/contract.js';
import { API_REFERENCE_PATH, apiReferenceCsp, apiReferencePage, inlineScripts } from '../../src/http/api-reference.js';
import { createLogger } from '../../src/logger.js';
import { send, startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, chromiumAvailable as available, CHROMIUM } from '../helpers/chromium.js';

/** What the contract says of GET /api/v1/me: its summary, and an id from its 200 example. */
const contract = loadContract() as any;
const getMe = contract.paths['/api/v1/me'].get;
const SUMMARY: string = getMe.summary;
const EXAMPLE_TOKEN_ID: string = getMe.responses['200'].content['application/json'].example.data.tokenId;

/**
 * The API reference at /api/reference: Redoc's page rendered from the contract by `npm run build`
 * (dist/api-reference.html, built here first when it is missing or older than the contract, as
 * `npm install` would), served by the real server without a token, under a policy of its own.
 */
describe('the API reference (GET /api/reference)', function () {
  this.timeout(60_000);
  // One server for the file: the page is the same for every request, and no test changes the server.
  let server: TestServer;
  before(async () => {
    if (staleReference() !== null) buildApiReference();
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers 200 text/html without a token: the contract rendered, its summaries and examples, with its own CSP', async () => {
    expect(SUMMARY).to.equal('The identity of the calling token');
    const res = await send(server.url, 'GET', API_REFERENCE_PATH, { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.text).to.match(/^<!DOCTYPE html>/);
    expect(res.text).to.contain('<title>timetrack API reference</title>');
    // The contract's description is rendered into the page; its operations and examples are in it too.
    expect(res.text).to.contain('Token-authenticated JSON REST API for time tracking.');
    expect(res.text).to.contain('"operationId":"getMe"');
    expect(res.text).to.contain(SUMMARY);
    expect(res.text).to.contain(EXAMPLE_TOKEN_ID);
    // Nothing is loaded from anywhere: no script, style sheet or font by URL (Redoc's bundle is
    // inline), and not Redoc's logo from its CDN either.
    const markup = inlineScripts(res.text).reduce((rest, script) => rest.replace(script, ''), res.text);
    expect(markup).not.to.match(/<script[^>]*\ssrc=|<link\b/i);
    expect(res.text).not.to.contain('https://cdn.redoc.ly/redoc/logo');
    const csp = res.headers.get('content-security-policy') as string;
    expect(csp).to.match(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]{43}=' 'sha256-[A-Za-z0-9+/]{43}='; style-src 'unsafe-inline'; img-src data:; font-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    expect(csp).to.equal(apiReferenceCsp(res.text));
    expect(res.headers.get('x-frame-options')).to.equal('DENY');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    expect(res.headers.get('content-length')).to.equal(String(Buffer.byteLength(res.text)));
    // No API answer: no request id, no rate-limit headers.
    expect(res.headers.get('x-request-id')).to.equal(null);
    expect(res.headers.get('ratelimit-limit')).to.equal(null);
    expect(server.logLines.some((line) => line.includes('"path":"/api/reference"'))).to.equal(false);
  });

  it('a token is neither needed nor read; HEAD has the headers; If-None-Match answers 304; gzip when asked', async () => {
    const plain = await send(server.url, 'GET', API_REFERENCE_PATH, {
      token: 'tt_AbCdEfGh_wrong',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('content-encoding')).to.equal(null);
    const etag = plain.headers.get('etag') as string;
    expect(etag).to.match(/^"ref-[A-Za-z0-9_-]{27}"$/);
    const head = await fetch(`${server.url}${API_REFERENCE_PATH}`, { method: 'HEAD', headers: { 'accept-encoding': 'identity' } });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(plain.headers.get('content-length'));
    expect(head.headers.get('content-security-policy')).to.equal(plain.headers.get('content-security-policy'));
    expect(await head.text()).to.equal('');
    const again = await send(server.url, 'GET', API_REFERENCE_PATH, { headers: { 'if-none-match': etag, 'accept-encoding': 'identity' } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    // Node's fetch decodes what it receives: ask with the raw module to see the bytes.
    const raw = await rawGet(`${server.url}${API_REFERENCE_PATH}`, { 'accept-encoding': 'gzip' });
    expect(raw.status).to.equal(200);
    expect(raw.headers['content-encoding']).to.equal('gzip');
    expect(raw.headers.etag).to.equal(etag.replace(/"$/, '-gzip"'));
    expect(raw.body.byteLength).to.be.below(Buffer.byteLength(plain.text) / 2);
    expect(gunzipSync(raw.body).toString('utf8')).to.equal(plain.text);
    // The tag of the compressed page names the same build: 304 too.
    expect((await send(server.url, 'GET', API_REFERENCE_PATH, { headers: { 'if-none-match': `W/${raw.headers.etag}` } })).status).to.equal(
      304,
    );
    // The API's paths beside it are still the API's: a trailing slash is no route.
    expect((await send(server.url, 'GET', `${API_REFERENCE_PATH}/`)).status).to.equal(404);
  });

  it('the CSP allows exactly the page inline scripts, by hash', () => {
    const html = '<p>x</p><script>one()</script><div><script type="module">two("<\\/script>")</script></div>';
    expect(inlineScripts(html)).to.deep.equal(['one()', 'two("<\\/script>")']);
    expect(apiReferenceCsp(html)).to.contain(
      "script-src 'sha256-HR7iaask9daLMRRskMI++QeJtjWDOjyPA6lGzYGzKW4=' 'sha256-aUeXJAfwtWMyr0Cb6RHFRheCfhe+C8MiKLtV9TEjfhs=';",
    );
  });

  it('answers 503 saying how to build it when the file is missing (a run from sources that never built)', async () => {
    const app = express();
    app.get(
      '/ref',
      apiReferencePage({ file: '/nonexistent/api-reference.html', compressionMinBytes: 1024, logger: createLogger('silent') }),
    );
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const res = await send(`http://127.0.0.1:${(listener.address() as AddressInfo).port}`, 'GET', '/ref');
      expect(res.status).to.equal(503);
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(res.text).to.equal('The API reference is not built: run `npm run build` (npm install does it).\n');
    } finally {
      listener.close();
    }
  });

  describe(`in headless Chromium${available ? '' : ` (skipped: no Chromium at ${CHROMIUM})`}`, () => {
    let browser: Browser | undefined;
    before(async function () {
      if (!available) this.skip();
      browser = await sharedBrowser();
    });
    after(closeContexts);

    it('renders the operations and their examples under its CSP: no violation but Redoc’s worker probe, no error, no request elsewhere', async () => {
      const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        const problems: string[] = [];
        const requests: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
        });
        page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
        page.on('request', (r) => requests.push(r.url()));
        await page.addInitScript(
          `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber))`,
        );
        const response = await page.goto(`${server.url}${API_REFERENCE_PATH}#tag/Meta/operation/getMe`);
        expect(response?.status()).to.equal(200);
        // Hydrated: the operation's summary as a heading, and its example answer in the page.
        await page.getByRole('heading', { name: SUMMARY }).first().waitFor({ timeout: 20_000 });
        await page.getByText(EXAMPLE_TOKEN_ID).first().waitFor({ timeout: 20_000 });
        // Redoc's search asks once, some time after the page is drawn, whether it may run its index
        // in a worker made from a string (`_factory ??= Function(source)` in a try); our CSP refuses
        // eval, Redoc catches the refusal and keeps the index in the page. That one refusal, at that
        // exact place in the page, is the policy working; any other is a failure.
        const probe = redocWorkerProbe((await send(server.url, 'GET', API_REFERENCE_PATH)).text);
        const allowed = `error: CSP violation: script-src eval at ${server.url}${API_REFERENCE_PATH}:${probe.line}:${probe.column}`;
        expect(problems.filter((problem) => problem !== allowed)).to.deep.equal([]);
        expect(requests.filter((url) => !url.startsWith(server.url) && !url.startsWith('data:'))).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });
});

/**
 * Where Redoc's search probes for a worker made from a string (1-based line and column of its
 * `Function(` in the page), as Chromium reports a refused eval.
 */
function redocWorkerProbe(page: string): { line: number; column: number } {
  const at = page.indexOf('_factory??=Function(');
  expect(at, "Redoc's worker probe not found: read the page's CSP violations anew").to.be.greaterThan(0);
  const call = at + '_factory??='.length;
  const before = page.slice(0, call).split('\n');
  return { line: before.length, column: (before.at(-1) as string).length + 1 };
}

/** A GET whose body is left as it came (fetch would decode it). */
async function rawGet(url: string, headers: Record<string, string>) {
  const { get } = await import('node:http');
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
