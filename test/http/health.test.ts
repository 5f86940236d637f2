import { probeDatabase } from '../../src/db/probe.js';
import { OPERATOR } from '../../src/principal.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createReadiness, shippedMigrations } from '../../src/health.js';
import { createLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { addMemberWithToken, checkedSend, expectProblem, rawWrite, send, startTestServer, type TestServer } from '../helpers/server.js';

// `send` (unchecked) fetches GET /metrics, which is not an operation of the contract.

const READY = { status: 'ok', checks: { database: 'ok', migrations: 'ok', webhookSender: 'ok' } };
const logged = (server: TestServer, msg: string) =>
  server.logLines.map((line) => JSON.parse(line)).filter((line: { msg: string }) => line.msg === msg);

describe('GET /healthz and GET /readyz', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MIN: '2' } });
  });
  after(() => server.close());

  it('/healthz answers {"status":"ok"} without a token, with the API headers and no rate-limit headers', async () => {
    const res = await server.request('GET', '/healthz', { token: null });
    expect([res.status, res.text]).to.deep.equal([200, '{"status":"ok"}']);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('ratelimit-limit')).to.equal(null);
    const head = await server.request('HEAD', '/healthz', { token: null });
    expect([head.status, head.text, head.headers.get('content-length')]).to.deep.equal([200, '', '15']);
  });

  it('/readyz answers 200 with every check ok, a token or none', async () => {
    for (const token of [null, server.ownerToken, 'tt_bogus']) {
      const res = await server.request('GET', '/readyz', { token });
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('{"status":"ok","checks":{"database":"ok","migrations":"ok","webhookSender":"ok"}}');
    }
  });

  it('are exempt from the per-address budget of requests without a token', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await server.request('GET', '/healthz', { token: null })).status).to.equal(200);
      expect((await server.request('GET', '/readyz', { token: null })).status).to.equal(200);
    }
    // The budget (2 a minute) was left whole for the contract route.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await server.request('GET', '/api/v1/openapi.json', { token: null })).status);
    expect(statuses).to.deep.equal([200, 200, 429]);
    expect((await server.request('GET', '/readyz', { token: null })).status).to.equal(200);
  });

  it('are contract routes: an unknown parameter is 400, other paths and methods 404', async () => {
    const base = server.config.problemsBase;
    const bad = await server.request('GET', '/readyz?verbose=1', { token: null });
    expectProblem(bad, 400, 'invalid-request', base, '/readyz');
    expect(bad.body.detail).to.equal('query.verbose: is not a parameter of this route');
    expectProblem(await server.request('GET', '/healthz/', { token: null }), 404, 'no-such-route', base, '/healthz/');
    expectProblem(await server.request('GET', '/api/v1/healthz', { token: null }), 404, 'no-such-route', base);
    expectProblem(await server.request('POST', '/readyz', { token: null }), 404, 'no-such-route', base);
  });

  it('a migration missing from __drizzle_migrations: 503 naming it, logged once; ready again when it is back', async () => {
    const { sqlite } = server.running.database;
    const last = sqlite.prepare('SELECT * FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1').get() as Record<string, unknown>;
    rawWrite(server, 'DELETE FROM __drizzle_migrations WHERE created_at = ?', last.created_at);
    try {
      for (let i = 0; i < 2; i++) {
        const res = await server.request('GET', '/readyz', { token: null });
        expect(res.status).to.equal(503);
        expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
        expect(res.body).to.deep.equal({ status: 'unavailable', checks: { database: 'ok', migrations: 'failing', webhookSender: 'ok' } });
      }
      const n = shippedMigrations().length;
      expect(logged(server, 'not ready').map((l) => [l.level, l.causes])).to.deep.equal([
        ['warn', { migrations: `${n - 1} of the ${n} migrations are applied` }],
      ]);
      expect((await server.request('GET', '/healthz', { token: null })).status).to.equal(200);
    } finally {
      rawWrite(server, 'INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)', last.hash, last.created_at);
    }
    expect((await server.request('GET', '/readyz', { token: null })).body).to.deep.equal(READY);
    expect(logged(server, 'ready again')).to.have.length(1);
  });

  it('the database closed: 503 with database failing and migrations unknown; /healthz still 200', async () => {
    const other = await startTestServer();
    try {
      other.running.database.sqlite.close();
      const res = await other.request('GET', '/readyz', { token: null });
      expect([res.status, res.text]).to.deep.equal([
        503,
        '{"status":"unavailable","checks":{"database":"failing","migrations":"unknown","webhookSender":"ok"}}',
      ]);
      expect(logged(other, 'not ready')[0].causes).to.deep.equal({ database: 'The database connection is not open' });
      expect((await other.request('GET', '/healthz', { token: null })).body).to.deep.equal({ status: 'ok' });
    } finally {
      await other.close();
    }
  });

  it('a delivery pass after the database closed (a nudge just at a stop) is logged, not an unhandled rejection', async () => {
    const other = await startTestServer();
    try {
      const job = other.services.webhooks.jobs.find((j) => j.name === 'webhook deliveries');
      await new Promise((resolve) => setImmediate(resolve));
      other.running.database.sqlite.close();
      // Nobody awaits a nudge: a rejection here would end the process (mocha's worker, once).
      expect(await job?.run()).to.equal(undefined);
      const [line] = logged(other, 'webhook delivery pass failed');
      expect([line?.level, line?.error?.name, line?.error?.message]).to.deep.equal([
        'error',
        'TypeError',
        'The database connection is not open',
      ]);
    } finally {
      await other.close();
    }
  });

  it('the webhook sender thread ended unasked: webhookSender failing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-health-'));
    const database = openDatabase(join(dir, 'timetrack.db'));
    const lines: string[] = [];
    try {
      let alive = true;
      const readiness = createReadiness({
        database: probeDatabase(database.sqlite),
        webhookSenderAlive: () => alive,
        logger: createLogger('info', (l) => lines.push(l)),
      });
      expect(readiness()).to.deep.equal({ ready: true, stopping: false, checks: READY.checks });
      alive = false;
      expect(readiness()).to.deep.equal({
        ready: false,
        stopping: false,
        checks: { database: 'ok', migrations: 'ok', webhookSender: 'failing' },
      });
      expect(lines.map((l) => JSON.parse(l).causes)).to.deep.equal([
        { webhookSender: 'the webhook sender thread ended; deliveries are sent from the request thread' },
      ]);
    } finally {
      database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the webhook sender on its own thread (the production set-up): ready', async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-health-'));
    const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db'), SCHEDULER_CRON: 'off' });
    const running = await startServer(config, { logger: createLogger('silent'), announce: () => {} });
    try {
      expect((await checkedSend(running.url, 'GET', '/readyz')).body).to.deep.equal(READY);
    } finally {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /metrics', function () {
  this.timeout(30_000);
  const TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

  it('is off by default: 404 no-such-route, like any unknown path', async () => {
    const server = await startTestServer();
    try {
      expectProblem(await server.request('GET', '/metrics', { token: null }), 404, 'no-such-route', server.config.problemsBase, '/metrics');
    } finally {
      await server.close();
    }
  });

  describe('METRICS=true', () => {
    let server: TestServer;
    let resolvable = true;
    before(async () => {
      server = await startTestServer({
        env: { METRICS: 'true', RATE_LIMIT_ANONYMOUS_PER_MIN: '3' },
        // The webhook target resolves once (to create the subscription), then never: no attempt leaves the machine.
        webhooks: {
          resolve: async (host) => {
            if (!resolvable) throw new Error(`ENOTFOUND ${host}`);
            return [{ address: '93.184.216.34', family: 4 }];
          },
        },
      });
    });
    after(() => server.close());
    const scrape = async () => {
      const res = await send(server.url, 'GET', '/metrics');
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      return parseExposition(res.text);
    };

    it('serves the Prometheus text format: every line parses, every family has HELP and TYPE', async () => {
      const samples = await scrape();
      for (const name of [
        'nodejs_eventloop_lag_seconds',
        'process_cpu_seconds_total',
        'timetrack_database_size_bytes',
        'timetrack_database_wal_size_bytes',
        'timetrack_webhook_deliveries_pending',
        'timetrack_webhook_deliveries_due',
        'timetrack_webhook_oldest_pending_age_seconds',
        'timetrack_runaway_timers_detected_total',
      ])
        expect(samples.has(name), name).to.equal(true);
      expect(samples.get('timetrack_database_size_bytes')).to.equal(statSync(server.config.databasePath).size);
      expect(samples.get('timetrack_database_wal_size_bytes')).to.be.a('number').and.be.at.least(0);
      expect(samples.get('timetrack_webhook_deliveries_total{outcome="success"}')).to.equal(0);
      const head = await send(server.url, 'HEAD', '/metrics');
      expect([head.status, head.text]).to.deep.equal([200, '']);
    });

    it('counts API requests by operationId and status, with a latency histogram, and 429s by caller', async () => {
      const member = addMemberWithToken(server.services, server.workspaceId, { rateLimitPerMin: 1 });
      await server.request('GET', '/api/v1/me');
      await server.request('GET', '/api/v1/me');
      await server.request('GET', '/api/v1/me', { token: null });
      await server.request('GET', '/api/v1/nowhere', { token: null });
      await server.request('GET', '/api/v1/me', { token: member.token });
      await server.request('GET', '/api/v1/me', { token: member.token }); // 429: its own budget is 1
      for (let i = 0; i < 3; i++) await server.request('GET', '/api/v1/openapi.json', { token: null }); // the third: 429
      await server.request('GET', '/healthz', { token: null });
      const samples = await scrape();
      const count = (labels: string) => samples.get(`timetrack_http_requests_total{${labels}}`);
      expect(count('operation="getMe",status="200"')).to.equal(3);
      expect(count('operation="getMe",status="401"')).to.equal(1);
      expect(count('operation="getMe",status="429"')).to.equal(1);
      expect(count('operation="none",status="404"')).to.equal(1);
      // The anonymous budget (3) also counted the 401 above.
      expect(count('operation="getOpenApiDocument",status="200"')).to.equal(2);
      expect(count('operation="getOpenApiDocument",status="429"')).to.equal(1);
      expect(count('operation="getLiveness",status="200"')).to.equal(1);
      expect(samples.get('timetrack_http_request_duration_seconds_count{operation="getMe",status="200"}')).to.equal(3);
      expect(samples.get('timetrack_http_request_duration_seconds_bucket{le="+Inf",operation="getMe",status="200"}')).to.equal(3);
      expect(samples.get('timetrack_rate_limit_refusals_total{caller="token"}')).to.equal(1);
      expect(samples.get('timetrack_rate_limit_refusals_total{caller="anonymous"}')).to.equal(1);
      // A scrape is not an API request.
      expect([...samples.keys()].some((key) => key.includes('operation="none",status="200"'))).to.equal(false);
    });

    it('counts runaway timers the scheduler detects', async () => {
      const before = (await scrape()).get('timetrack_runaway_timers_detected_total') as number;
      server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { runawayLimitSec: 60, runawayAction: 'flagged' });
      const member = addMemberWithToken(server.services, server.workspaceId);
      expect((await server.request('POST', '/api/v1/entries/current', { json: {} })).status).to.equal(200);
      expect((await server.request('POST', '/api/v1/entries/current', { json: {}, token: member.token })).status).to.equal(200);
      server.clock.advance(61_000);
      await server.running.scheduler.tick();
      await server.running.scheduler.tick(); // detected once only
      expect((await scrape()).get('timetrack_runaway_timers_detected_total')).to.equal(before + 2);
    });

    it('webhook deliveries: pending, due and the oldest age from the queue; final outcomes counted once', async () => {
      await server.services.webhooks.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        url: 'https://hooks.example.org/in',
        events: ['entry.created'],
      });
      resolvable = false;
      const created = await server.request('POST', '/api/v1/entries', {
        json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' },
      });
      expect(created.status).to.equal(200);
      // The attempt the commit triggered fails (the name does not resolve): retried in 30 seconds.
      await new Promise((r) => setImmediate(r));
      await server.services.sender.tick();
      const { sqlite } = server.running.database;
      expect(sqlite.prepare('SELECT status, attempt FROM webhook_deliveries').all()).to.deep.equal([{ status: 'failure', attempt: 1 }]);
      let samples = await scrape();
      expect(samples.get('timetrack_webhook_deliveries_pending')).to.equal(1);
      expect(samples.get('timetrack_webhook_deliveries_due')).to.equal(0);
      expect(samples.get('timetrack_webhook_oldest_pending_age_seconds')).to.equal(0);
      server.clock.advance(45_000);
      samples = await scrape();
      expect(samples.get('timetrack_webhook_deliveries_due')).to.equal(1);
      expect(samples.get('timetrack_webhook_oldest_pending_age_seconds')).to.equal(45);

      rawWrite(server, "UPDATE webhook_deliveries SET status = 'success', next_attempt_at = NULL");
      for (const advance of [0, 10 * 60_000]) {
        // The second scrape counts it from behind the watermark: still once.
        server.clock.advance(advance);
        samples = await scrape();
        expect(samples.get('timetrack_webhook_deliveries_pending')).to.equal(0);
        expect(samples.get('timetrack_webhook_oldest_pending_age_seconds')).to.equal(0);
        expect(samples.get('timetrack_webhook_deliveries_total{outcome="success"}')).to.equal(1);
        expect(samples.get('timetrack_webhook_deliveries_total{outcome="abandoned"}')).to.equal(0);
      }
    });
  });

  it('METRICS_TOKEN: only `Authorization: Bearer <it>` reads them; anything else is 401 invalid-token', async () => {
    const server = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
    try {
      const base = server.config.problemsBase;
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN, `Bearer ${server.ownerToken}`]) {
        const res = await send(server.url, 'GET', '/metrics', authorization ? { headers: { authorization } } : {});
        expectProblem(res, 401, 'invalid-token', base, '/metrics');
        expect(res.body.detail).to.equal('GET /metrics needs the bearer token set in METRICS_TOKEN.');
        expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="timetrack-metrics"');
      }
      const res = await send(server.url, 'GET', '/metrics', { token: TOKEN });
      expect(res.status).to.equal(200);
      expect(parseExposition(res.text).get('timetrack_database_size_bytes')).to.be.above(0);
    } finally {
      await server.close();
    }
  });
});

/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every line is empty, a HELP or
 * TYPE comment or a sample; every sample belongs to a family with one TYPE, declared before it; no
 * series twice; histogram buckets are cumulative and end at +Inf with the count. Returns each
 * sample's value by `name{labels}` (labels as written), and each family name with the value of
 * its unlabelled sample (or NaN).
 */
function parseExposition(text: string): Map<string, number> {
  expect(text.endsWith('\n'), 'ends with a newline').to.equal(true);
  const name = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const label = '[a-zA-Z_][a-zA-Z0-9_]*="(?:\\\\[\\\\"n]|[^"\\\\\\n])*"';
  // What Go's strconv.ParseFloat reads (Prometheus parses values with it): NaN and Inf in any case.
  const value = '(?:[nN][aA][nN]|[+-]?[iI][nN][fF]|[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)';
  const sample = new RegExp(`^(${name})(\\{(?:${label}(?:,${label})*,?)?\\})? (${value})(?: -?\\d+)?$`);
  const comment = new RegExp(`^# (HELP|TYPE) (${name})(?: (.*))?$`);
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples = new Map<string, number>();
  for (const line of text.slice(0, -1).split('\n')) {
    // The format ignores empty lines (prom-client puts one between families).
    if (line === '') continue;
    const c = comment.exec(line);
    if (c) {
      const [, kind, family, rest] = c as unknown as [string, string, string, string | undefined];
      if (kind === 'HELP') {
        expect(helps.has(family), `HELP twice: ${family}`).to.equal(false);
        helps.add(family);
        continue;
      }
      expect(['counter', 'gauge', 'histogram', 'summary', 'untyped'], line).to.include(rest);
      expect(types.has(family), `TYPE twice: ${family}`).to.equal(false);
      types.set(family, rest as string);
      continue;
    }
    const s = sample.exec(line);
    expect(s, `not a sample, HELP or TYPE line: ${JSON.stringify(line)}`).not.to.equal(null);
    const [, metric, labels = '', raw] = s as unknown as [string, string, string | undefined, string];
    const family = [metric, metric.replace(/_(bucket|sum|count)$/, ''), metric.replace(/_(sum|count)$/, '')].find((f) => types.has(f));
    expect(family, `no TYPE before ${metric}`).to.be.a('string');
    expect(helps.has(family as string), `no HELP for ${family}`).to.equal(true);
    const key = `${metric}${labels}`;
    expect(samples.has(key), `series twice: ${key}`).to.equal(false);
    const number = /nan/i.test(raw) ? NaN : /inf/i.test(raw) ? (raw.startsWith('-') ? -Infinity : Infinity) : Number(raw);
    samples.set(key, number);
  }
  // Histograms: cumulative buckets, +Inf equal to _count.
  for (const [family] of [...types].filter(([, type]) => type === 'histogram')) {
    const series = new Map<string, Array<[number, number]>>();
    for (const [key, v] of samples) {
      const m = new RegExp(`^${family}_bucket\\{(.*)\\}$`).exec(key);
      if (!m) continue;
      const parts = (m[1] as string).split(/,(?=[a-zA-Z_]+=")/);
      const le = parts.find((p) => p.startsWith('le=')) as string;
      const rest = parts.filter((p) => p !== le).join(',');
      const bound = le.slice(4, -1) === '+Inf' ? Infinity : Number(le.slice(4, -1));
      series.set(rest, [...(series.get(rest) ?? []), [bound, v]]);
    }
    for (const [rest, buckets] of series) {
      const counts = buckets.sort((a, b) => a[0] - b[0]).map(([, v]) => v);
      expect(counts, `${family}{${rest}} buckets`).to.deep.equal([...counts].sort((a, b) => a - b));
      expect(buckets.at(-1)?.[0]).to.equal(Infinity);
      expect(samples.get(`${family}_count${rest ? `{${rest}}` : ''}`)).to.equal(counts.at(-1));
    }
  }
  for (const family of types.keys()) if (!samples.has(family)) samples.set(family, samples.get(family) ?? NaN);
  return samples;
}
