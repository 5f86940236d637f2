import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { buildApiReference } from '../../scripts/api-reference.js';
import { formatChangelog } from '../../scripts/contract-diff/changelog.js';
import { judge } from '../../scripts/contract-diff/gate.js';
import type { ContractDocument } from '../../src/contract.js';
import { CHANGELOG_CSP, CHANGELOG_PATH, deprecationAnchor, renderChangelog } from '../../src/http/changelog.js';
import { compileDeprecations } from '../../src/http/deprecation.js';
import { PACKAGE_ROOT } from '../../src/paths.js';
import { fixtureContract, fixtureHandlers } from '../helpers/fixture.js';
import { expectProblem, send, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Deprecation made visible: the fixture contract (the real one plus the pipeline's fixture
 * operations) with a deprecated operation and two deprecated parameters, served by the real
 * server. No operation of the real API is deprecated for this.
 */
const deprecate = (document: ContractDocument): ContractDocument => {
  const items = (document.paths['/api/v1/fixture/items'] as any) ?? {};
  Object.assign(items.post, { deprecated: true, 'x-deprecated-at': '2026-10-01', 'x-sunset': '2027-04-01' });
  items.post.parameters = [
    {
      name: 'dryRun',
      in: 'query',
      schema: { type: 'boolean' },
      deprecated: true,
      'x-deprecated-at': '2026-09-01',
      'x-sunset': '2027-06-30',
    },
  ];
  const billable = items.get.parameters.find((p: any) => p.name === 'billable');
  Object.assign(billable, { deprecated: true, 'x-deprecated-at': '2026-11-15T12:00:00Z', 'x-sunset': '2027-01-31' });
  return document;
};

describe('deprecation: Deprecation, Sunset and Link headers from the contract (src/http/deprecation.ts)', () => {
  let server: TestServer;
  let changelog: string;
  before(async () => {
    server = await startTestServer({ contract: deprecate(fixtureContract()), handlers: fixtureHandlers });
    changelog = `${server.config.baseUrl}${CHANGELOG_PATH}`;
  });
  after(() => server.close());

  it('a deprecated operation answers with all three, on success and on refusal alike', async () => {
    const expected = {
      deprecation: `@${Date.UTC(2026, 9, 1) / 1000}`,
      sunset: 'Thu, 01 Apr 2027 00:00:00 GMT',
      link: `<${changelog}#deprecated-post-api-v1-fixture-items>; rel="deprecation"; type="text/html"`,
    };
    expect(expected.deprecation).to.equal('@1790812800');
    const headers = (res: { headers: Headers }) => ({
      deprecation: res.headers.get('deprecation'),
      sunset: res.headers.get('sunset'),
      link: res.headers.get('link'),
    });
    const created = await server.request('POST', '/api/v1/fixture/items', { json: { name: 'a' } });
    expect(created.status).to.equal(200);
    expect(headers(created)).to.deep.equal(expected);
    const invalid = await server.request('POST', '/api/v1/fixture/items', { json: { name: 'too long' } });
    expectProblem(invalid, 400, 'invalid-request', server.config.problemsBase);
    expect(headers(invalid)).to.deep.equal(expected);
    const anonymous = await server.request('POST', '/api/v1/fixture/items', { token: null, json: { name: 'a' } });
    expectProblem(anonymous, 401, 'invalid-token', server.config.problemsBase);
    expect(headers(anonymous)).to.deep.equal(expected);
  });

  it('a deprecated parameter: only when it is sent; with a deprecated operation, the earliest dates and a link each', async () => {
    const without = await server.request('GET', '/api/v1/fixture/items?limit=5');
    expect(without.status).to.equal(200);
    expect([without.headers.get('deprecation'), without.headers.get('sunset'), without.headers.get('link')]).to.deep.equal([
      null,
      null,
      null,
    ]);

    const withBillable = await server.request('GET', '/api/v1/fixture/items?billable=true');
    expect(withBillable.status).to.equal(200);
    expect(withBillable.headers.get('deprecation')).to.equal(`@${Date.parse('2026-11-15T12:00:00Z') / 1000}`);
    expect(withBillable.headers.get('sunset')).to.equal('Sun, 31 Jan 2027 00:00:00 GMT');
    expect(withBillable.headers.get('link')).to.equal(
      `<${changelog}#deprecated-get-api-v1-fixture-items-query-billable>; rel="deprecation"; type="text/html"`,
    );
    // HEAD is the GET: the same headers.
    const head = await server.request('HEAD', '/api/v1/fixture/items?billable=false');
    expect(head.headers.get('deprecation')).to.equal(withBillable.headers.get('deprecation'));

    const both = await server.request('POST', '/api/v1/fixture/items?dryRun=true', { json: { name: 'a' } });
    expect(both.status).to.equal(200);
    expect(both.headers.get('deprecation')).to.equal(`@${Date.UTC(2026, 8, 1) / 1000}`); // dryRun's, the earlier
    expect(both.headers.get('sunset')).to.equal('Thu, 01 Apr 2027 00:00:00 GMT'); // the operation's, the earlier
    expect(both.headers.get('link')).to.equal(
      `<${changelog}#deprecated-post-api-v1-fixture-items>; rel="deprecation"; type="text/html", ` +
        `<${changelog}#deprecated-post-api-v1-fixture-items-query-dryrun>; rel="deprecation"; type="text/html"`,
    );
  });

  it('nothing on an operation that is not deprecated, or on an unknown route', async () => {
    const me = await server.request('GET', '/api/v1/me');
    expect(me.status).to.equal(200);
    expect(me.headers.get('deprecation')).to.equal(null);
    const unknown = await server.request('GET', '/api/v1/nothing-here?billable=true');
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.get('deprecation')).to.equal(null);
  });

  it('the server refuses a contract whose deprecated operation or parameter lacks its dates, saying what to add', () => {
    const missing = deprecate(fixtureContract()) as any;
    delete missing.paths['/api/v1/fixture/items'].post['x-sunset'];
    expect(() => compileDeprecations(missing, changelog)).to.throw(
      'POST /api/v1/fixture/items is deprecated: true, so the contract must say when in x-sunset (a date such as "2026-12-01", or an RFC 3339 date-time); it has undefined',
    );
    const reversed = deprecate(fixtureContract()) as any;
    reversed.paths['/api/v1/fixture/items'].get.parameters.find((p: any) => p.name === 'billable')['x-sunset'] = '2026-01-01';
    expect(() => compileDeprecations(reversed, changelog)).to.throw(
      'GET /api/v1/fixture/items query.billable: x-sunset (2026-01-01) is before x-deprecated-at (2026-11-15T12:00:00Z)',
    );
  });

  it("the link points at the deprecation's entry of the generated changelog, served at /api/changelog", async () => {
    // The changelog section the release would generate for this contract.
    const before = fixtureContract();
    const after = deprecate(fixtureContract());
    const section = formatChangelog({
      verdict: judge(before, after),
      after,
      version: '1.1.0',
      date: '2026-12-01',
      fromLabel: 'v1.0.0',
      toLabel: 'v1.1.0',
      command: 'npm run -s contract:diff -- --format changelog v1.0.0 v1.1.0',
      acceptedFile: 'openapi/accepted-changes.json',
    });
    expect(section).to.contain(
      [
        '### Deprecated',
        '',
        '- `GET /api/v1/fixture/items query.billable` deprecated on 2026-11-15T12:00:00Z, sunset 2027-01-31 (parameter).',
        '- `POST /api/v1/fixture/items` deprecated on 2026-10-01, sunset 2027-04-01 (operation).',
      ].join('\n'),
    );
    const html = renderChangelog(section);
    for (const location of ['POST /api/v1/fixture/items', 'GET /api/v1/fixture/items query.billable'])
      expect(html).to.contain(`<li id="${deprecationAnchor(location)}"><code>${location}</code> deprecated on`);
    expect(html).to.contain('<h2 id="110-2026-12-01">1.1.0 (2026-12-01)</h2>');
    // The dryRun parameter was added deprecated: it is new, not a deprecation of something clients used.
    expect(section).to.contain('- `POST /api/v1/fixture/items`: `query.dryRun` parameter-added: optional');

    // The server serves the repository's CHANGELOG.md: as a page, and as Markdown when asked.
    const page = await send(server.url, 'GET', CHANGELOG_PATH, { headers: { 'accept-encoding': 'identity' } });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).to.equal(CHANGELOG_CSP);
    expect(page.text).to.match(/^<!doctype html>/);
    expect(page.text).to.contain('<h1 id="changelog-of-the-timetrack-api">Changelog of the timetrack API</h1>');
    const file = readFileSync(join(PACKAGE_ROOT, 'CHANGELOG.md'), 'utf8');
    const markdown = await send(server.url, 'GET', CHANGELOG_PATH, { headers: { accept: 'text/markdown', 'accept-encoding': 'identity' } });
    expect(markdown.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    expect(markdown.text).to.equal(file);
    const again = await send(server.url, 'GET', CHANGELOG_PATH, { headers: { 'if-none-match': page.headers.get('etag') as string } });
    expect(again.status).to.equal(304);
  });

  it('raw HTML in the changelog is shown as text, not run; links to repository files keep their text only', () => {
    const html = renderChangelog(
      '## 1.0.0\n\n<script>alert(1)</script>\n\n- a <img src=x onerror=alert(1)>\n- see [the guide](docs/contributing.md), [RFC 9745](https://www.rfc-editor.org/rfc/rfc9745) and [1.0.0](#100)\n',
    );
    expect(html).not.to.match(/<script>|<img/);
    expect(html).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).to.contain(
      '<li>see the guide, <a href="https://www.rfc-editor.org/rfc/rfc9745">RFC 9745</a> and <a href="#100">1.0.0</a></li>',
    );
  });
});

describe('the contract lint refuses a deprecated operation or parameter without its dates', function () {
  this.timeout(60_000);

  it('spectral (npm run lint:spectral) names each place and what to add', () => {
    const dir = mkdtempSync(join(tmpdir(), 'deprecation-lint-'));
    try {
      const document = fixtureContract() as any;
      document.paths['/api/v1/tags'].get.deprecated = true; // no dates
      Object.assign(document.paths['/api/v1/tags/{id}'].get, {
        deprecated: true,
        'x-deprecated-at': '2026-12-01',
        'x-sunset': '2027-06-01',
      });
      Object.assign(document.paths['/api/v1/tags/{id}'].delete, {
        deprecated: true,
        'x-deprecated-at': 'December',
        'x-sunset': '2027-06-01',
      });
      document.components.parameters.Limit.deprecated = true; // no dates
      const file = join(dir, 'openapi.yaml');
      writeFileSync(file, stringify(document));
      const run = spawnSync(
        join(PACKAGE_ROOT, 'node_modules/.bin/spectral'),
        ['lint', file, '--ruleset', join(PACKAGE_ROOT, '.spectral.yaml'), '--format', 'json', '--quiet'],
        { cwd: PACKAGE_ROOT, encoding: 'utf8' },
      );
      expect(run.status).to.equal(1);
      const found = (JSON.parse(run.stdout) as { code: string; path: string[]; message: string }[])
        .filter((r) => r.code.startsWith('deprecated-'))
        .map((r) => `${r.code} ${r.path.join('/')}`);
      expect([...new Set(found)].sort()).to.deep.equal([
        'deprecated-operation-dates paths//api/v1/tags/get',
        'deprecated-operation-dates paths//api/v1/tags/{id}/delete/x-deprecated-at',
        'deprecated-parameter-dates components/parameters/Limit',
      ]);
      expect(JSON.parse(run.stdout)[0].message).to.contain('Add x-deprecated-at and x-sunset (quoted dates, e.g. "2026-12-01")');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the API reference links the changelog', function () {
  this.timeout(60_000);

  it('its introduction starts with a link that resolves, from /api/reference, to /api/changelog', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-reference-'));
    try {
      const output = join(dir, 'reference.html');
      buildApiReference(output);
      const html = readFileSync(output, 'utf8');
      const href = /<strong>Changelog:<\/strong> <a href="([^"]+)">what changed in each version<\/a>/.exec(html)?.[1];
      expect(href).to.equal('changelog');
      expect(new URL(href!, 'http://127.0.0.1:8080/api/reference').pathname).to.equal(CHANGELOG_PATH);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
