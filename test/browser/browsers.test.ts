import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { seed } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';

/**
 * The API called from a page of another origin in a real browser: Debian's Chromium
 * (`apt-get install -y chromium`), driven by playwright-core (which downloads no browser of its
 * own). Everything stays on 127.0.0.1: the API server, and two tiny static origins serving the
 * page, one of them allowed by CORS_ORIGINS. Skipped, saying why, where Chromium is not installed.
 */

/**
 * The page's own script: it reads the API's address and a token from the fragment (never sent to
 * its origin), calls the API with fetch and a bearer token, and leaves what it saw in
 * `window.__result`: a list with headers read from JavaScript, the same list with If-None-Match,
 * and a POST with a JSON body (a preflighted request).
 */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>timetrack from another origin</title></head>
<body><pre id="out">running…</pre>
<script>
(async () => {
  const params = new URLSearchParams(location.hash.slice(1));
  const api = params.get('api');
  const auth = { Authorization: 'Bearer ' + params.get('token') };
  const result = {};
  try {
    const list = await fetch(api + '/api/v1/projects', { headers: auth });
    result.list = {
      status: list.status,
      count: (await list.json()).data.length,
      requestId: list.headers.get('X-Request-Id'),
      rateLimitRemaining: list.headers.get('RateLimit-Remaining'),
      etag: list.headers.get('ETag'),
      notExposed: list.headers.get('X-Content-Type-Options'),
    };
    const again = await fetch(api + '/api/v1/projects', { headers: { ...auth, 'If-None-Match': result.list.etag } });
    result.again = { status: again.status, etag: again.headers.get('ETag'), body: await again.text() };
    const created = await fetch(api + '/api/v1/tags', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'From ' + location.origin }),
    });
    result.created = { status: created.status, name: (await created.json()).data.name };
  } catch (error) {
    result.error = error.name + ': ' + error.message;
  }
  window.__result = result;
  document.getElementById('out').textContent = JSON.stringify(result, null, 2);
})();
</script></body></html>`;

/** A static origin on 127.0.0.1: serves PAGE at `/`. */
async function staticOrigin(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface PageResult {
  list?: {
    status: number;
    count: number;
    requestId: string | null;
    rateLimitRemaining: string | null;
    etag: string | null;
    notExposed: string | null;
  };
  again?: { status: number; etag: string | null; body: string };
  created?: { status: number; name: string };
  error?: string;
}

describe(`the API from a page of another origin, in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let api: TestServer | undefined;
  let allowed: Awaited<ReturnType<typeof staticOrigin>> | undefined;
  let other: Awaited<ReturnType<typeof staticOrigin>> | undefined;

  before(async function () {
    if (!available) {
      console.warn(`browsers.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    allowed = await staticOrigin();
    other = await staticOrigin();
    api = await startTestServer({ env: { CORS_ORIGINS: allowed.origin } });
    seed(api, { projects: { alpha: {}, beta: {}, gamma: {} } });
    browser = await sharedBrowser();
  });
  after(async () => {
    await closeContexts();
    await api?.close();
    await allowed?.close();
    await other?.close();
  });

  /** Opens the page of `origin` and returns what its script saw. */
  async function run(origin: string): Promise<PageResult> {
    const context = await (browser as Browser).newContext();
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const server = api as TestServer;
      await page.goto(`${origin}/#api=${encodeURIComponent(server.url)}&token=${encodeURIComponent(server.ownerToken)}`);
      const handle = await page.waitForFunction(() => (globalThis as unknown as { __result?: unknown }).__result);
      return (await handle.jsonValue()) as PageResult;
    } finally {
      await context.close();
    }
  }

  it('an allowed origin gets the JSON, reads the exposed headers, revalidates with If-None-Match and POSTs after a preflight', async () => {
    const server = api as TestServer;
    const result = await run((allowed as { origin: string }).origin);
    expect(result.error, 'the page script failed').to.equal(undefined);
    expect(result.list?.status).to.equal(200);
    expect(result.list?.count).to.equal(3);
    // Headers listed in Access-Control-Expose-Headers are readable from JavaScript; others are not.
    expect(result.list?.requestId).to.match(/^[0-9a-f-]{36}$/);
    expect(result.list?.rateLimitRemaining).to.match(/^\d+$/);
    // Chromium asks for br: the ETag names that coding.
    expect(result.list?.etag).to.match(/^"projects-[0-9a-f]{20}-br"$/);
    expect(result.list?.notExposed).to.equal(null);
    expect(result.again).to.deep.equal({ status: 304, etag: result.list?.etag, body: '' });
    expect(result.created).to.deep.equal({ status: 200, name: `From ${(allowed as { origin: string }).origin}` });
    // The browser sent real preflights (Authorization, then Content-Type: application/json), answered 204.
    const requests = server.logLines.map((line) => JSON.parse(line) as { msg?: string; method?: string; path?: string; status?: number });
    const preflights = requests.filter((line) => line.method === 'OPTIONS');
    expect(preflights.map((line) => [line.path, line.status])).to.deep.include.members([
      ['/api/v1/projects', 204],
      ['/api/v1/tags', 204],
    ]);
  });

  it('another origin gets a CORS failure: fetch rejects and nothing is written', async () => {
    const server = api as TestServer;
    const before = (await server.request('GET', '/api/v1/tags')).body.data.length;
    const logged = server.logLines.length;
    const result = await run((other as { origin: string }).origin);
    expect(result.list).to.equal(undefined);
    expect(result.error).to.equal('TypeError: Failed to fetch');
    expect((await server.request('GET', '/api/v1/tags')).body.data.length).to.equal(before);
    // Its preflight reached the server and got no CORS headers (404 no-such-route), so the GET was never sent.
    const requests = server.logLines.slice(logged).map((line) => JSON.parse(line) as { method?: string; path?: string; status?: number });
    expect(requests.filter((line) => line.path === '/api/v1/projects').map((line) => [line.method, line.status])).to.deep.equal([
      ['OPTIONS', 404],
    ]);
  });
});
