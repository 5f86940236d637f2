import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import { DomainError } from '../../src/errors.js';
import type { Actor } from '../../src/principal.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/modules/webhooks/sender.js';
import {
  BLOCKED_IPV4,
  BLOCKED_IPV6,
  blockedRange,
  checkUrl,
  type ResolvedAddress,
  resolveTarget,
  TargetRefused,
} from '../../src/modules/webhooks/targets.js';
import { contractChecker } from '../helpers/contract.js';
import { addMemberWithToken, rawWrite, startTestServer, type TestServer } from '../helpers/server.js';
import { typedClient } from '../helpers/client.js';
import { makePki, startReceiver, verify } from '../helpers/webhooks.js';

const T = (iso: string) => Date.parse(iso);
type Pki = Awaited<ReturnType<typeof makePki>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

describe('webhooks', function () {
  this.timeout(30_000);
  let pki: Pki;
  before(async () => {
    pki = await makePki(['hooks.test', 'other.test']);
  });

  /** A server whose resolver maps test hostnames to loopback (or what a test says). */
  async function setup(options: { allowPrivate: boolean; timeoutMs?: number; resolve?: (host: string) => ResolvedAddress[] }) {
    const resolverCalls: string[] = [];
    const resolve = async (host: string) => {
      resolverCalls.push(host);
      if (options.resolve) return options.resolve(host);
      if (host.endsWith('.test')) return [{ address: '127.0.0.1', family: 4 as const }];
      throw new Error(`ENOTFOUND ${host}`);
    };
    const server = await startTestServer({
      now: T('2026-11-02T09:00:00Z'),
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: String(options.allowPrivate) },
      webhooks: { resolve, ca: pki.ca, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) },
    });
    const owner = server.services.tokens.authenticate(server.ownerToken)!.actor;
    return { server, owner, resolverCalls };
  }
  const settle = async (server: TestServer) => {
    await new Promise((r) => setImmediate(r));
    await server.services.sender.tick();
  };
  const log = (server: TestServer, id: string) => server.services.webhooks.deliveries(OPERATOR, id);

  describe('deliveries (WEBHOOK_ALLOW_PRIVATE_TARGETS=true: loopback receivers, TLS still verified)', () => {
    let server: TestServer;
    let owner: Actor;
    let receiver: Receiver;
    let resolverCalls: string[];
    beforeEach(async () => {
      ({ server, owner, resolverCalls } = await setup({ allowPrivate: true, timeoutMs: 300 }));
      receiver = await startReceiver(pki.certs['hooks.test']!);
    });
    afterEach(async () => {
      await server.close();
      await receiver.close();
    });
    const subscribe = (events: string[], userId = server.ownerId, host = 'hooks.test') =>
      server.services.webhooks.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId,
        url: `https://${host}:${receiver.port}/hook`,
        events,
      });

    it('a REST write is delivered, signed over the raw bytes, with the envelope of the contract', async () => {
      const hook = await subscribe(['entry.created', 'entry.deleted']);
      const api = typedClient(server);
      const created = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T08:30:00Z', originId: 'crm-7' },
      });
      const id = created.data!.data.id;
      await receiver.waitFor(1);
      await settle(server);
      const [request] = receiver.requests;
      expect(request!.method).to.equal('POST');
      expect(request!.url).to.equal('/hook');
      expect(request!.headers['content-type']).to.equal('application/json');
      expect(request!.headers['user-agent']).to.equal('timetrack-webhooks/1.0');
      expect(request!.headers.host).to.equal(`hooks.test:${receiver.port}`);
      expect(request!.headers['x-service-event']).to.equal('entry.created');
      const deliveryId = String(request!.headers['x-service-delivery']);
      expect(deliveryId).to.match(/^[0-9a-f]{24}$/);
      expect(request!.headers['x-service-timestamp']).to.equal(String(Math.floor(server.clock.now() / 1000)));
      expect(verify(hook.secret, request!, server.clock.now() / 1000)).to.equal(true);
      expect(verify('whsec_wrong', request!, server.clock.now() / 1000)).to.equal(false);
      expect(verify(hook.secret, request!, server.clock.now() / 1000 + 301)).to.equal(false);
      const body = request!.json;
      expect(body).to.include({ id: deliveryId, event: 'entry.created', workspaceId: server.workspaceId });
      expect(body.createdAt).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(body.data.kind).to.equal('entry');
      expect(body.data.entry).to.include({ id, originId: 'crm-7', durationSec: 1800, currency: 'EUR' });
      expect(contractChecker().webhookViolations('entry.created', body)).to.deep.equal([]);
      const [row] = log(server, hook.id);
      expect(row).to.include({
        id: deliveryId,
        event: 'entry.created',
        status: 'success',
        attempt: 1,
        responseCode: 200,
        error: null,
        errorDetail: null,
        nextAttemptAt: null,
      });

      await api.DELETE('/api/v1/entries/{id}', { params: { path: { id } } });
      await receiver.waitFor(2);
      expect(receiver.requests[1]!.json.data).to.deep.equal({ kind: 'entry-deleted', id, authorId: server.ownerId });
      expect(contractChecker().webhookViolations('entry.deleted', receiver.requests[1]!.json)).to.deep.equal([]);
      expect(resolverCalls).to.deep.equal(['hooks.test', 'hooks.test', 'hooks.test']); // creation, then one lookup per attempt
    });

    it('sends a subscription’s deliveries one at a time in event order, each starting with a full attempt left on its lease', async () => {
      const hook = await subscribe(['entry.created']);
      const lease = server.running.database.sqlite.prepare('SELECT claimed_until AS until FROM webhook_deliveries WHERE id = ?');
      const seen: Array<{ description: string; leaseLeftMs: number }> = [];
      receiver.respond((request, res) => {
        const row = lease.get(String(request.headers['x-service-delivery'])) as { until: number };
        seen.push({ description: request.json.data.entry.description, leaseLeftMs: row.until - server.clock.now() });
        // A slow receiver: 25 s per attempt, so a 60 s lease covers three attempts, not five.
        server.clock.advance(25_000);
        res.writeHead(204).end();
      });
      // Five events committed before the sender runs.
      for (let i = 0; i < 5; i++)
        server.services.entries.create(owner, {
          start: `2026-11-02T0${i}:00:00Z`,
          end: `2026-11-02T0${i}:30:00Z`,
          description: `e${i}`,
        });
      await settle(server);
      expect(seen.map((s) => s.description)).to.deep.equal(['e0', 'e1', 'e2', 'e3', 'e4']);
      // An attempt starts only if its 300 ms limit ends inside the lease; the rest are leased anew.
      for (const s of seen) expect(s.leaseLeftMs, s.description).to.be.at.least(300);
      expect(log(server, hook.id).map((d) => [d.status, d.attempt])).to.deep.equal(Array.from({ length: 5 }, () => ['success', 1]));
      expect(new Set(receiver.requests.map((r) => r.headers['x-service-delivery'])).size).to.equal(5);
    });

    it('a subscription with more due deliveries than one lane leases gets them all in event order, each once', async () => {
      const hook = await subscribe(['entry.created']);
      // 30 events: a lane leases 25, and the sender runs 8 lanes at once. A second lane of the same
      // subscription (a claim made before the first lane was marked active) would send e25 on beside e0.
      for (let i = 0; i < 30; i++)
        server.services.entries.create(owner, {
          start: `2026-11-0${1 + Math.floor(i / 10)}T0${i % 10}:00:00Z`,
          end: `2026-11-0${1 + Math.floor(i / 10)}T0${i % 10}:30:00Z`,
          description: `e${i}`,
        });
      await settle(server);
      expect(receiver.requests.map((r) => r.json.data.entry.description)).to.deep.equal(Array.from({ length: 30 }, (_, i) => `e${i}`));
      expect(log(server, hook.id).filter((d) => d.status === 'success')).to.have.length(30);
    });

    it('a lane sends its batch over one kept connection to the checked address; the next batch connects anew (issue 60)', async () => {
      const hook = await subscribe(['entry.created']);
      for (let i = 0; i < 6; i++)
        server.services.entries.create(owner, { start: `2026-11-02T0${i}:00:00Z`, end: `2026-11-02T0${i}:30:00Z`, description: `e${i}` });
      await settle(server);
      expect(log(server, hook.id).map((d) => d.status)).to.deep.equal(Array.from({ length: 6 }, () => 'success'));
      // Six deliveries, one TLS connection (before: one each); every attempt still resolved the name first.
      expect(receiver.connections()).to.equal(1);
      expect(resolverCalls.filter((h) => h === 'hooks.test').length).to.be.at.least(6);
      // A receiver's body is read and dropped, and the connection kept; the next batch connects anew.
      receiver.respond((_request, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(10_000)));
      for (let i = 6; i < 9; i++)
        server.services.entries.create(owner, { start: `2026-11-02T0${i}:00:00Z`, end: `2026-11-02T0${i}:30:00Z`, description: `e${i}` });
      await settle(server);
      expect(log(server, hook.id).filter((d) => d.status === 'success')).to.have.length(9);
      expect(receiver.connections()).to.equal(2);
    });

    it('a write through the service, without HTTP, enqueues the same deliveries', async () => {
      const hook = await subscribe(['entry.created', 'entry.started', 'entry.stopped']);
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await typedClient(server).POST('/api/v1/entries', { body: { start: '2026-11-02T07:00:00Z', end: '2026-11-02T08:00:00Z' } });
      server.services.timers.start(owner, {});
      await receiver.waitFor(3);
      await settle(server);
      expect(
        log(server, hook.id)
          .map((d) => [d.event, d.status])
          .sort(),
      ).to.deep.equal([
        ['entry.created', 'success'],
        ['entry.created', 'success'],
        ['entry.started', 'success'],
      ]);
    });

    it('a failed attempt is retried with the same delivery id and a fresh timestamp and signature', async () => {
      const hook = await subscribe(['entry.created']);
      receiver.respond((_r, res) => res.writeHead(503).end());
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(1);
      await settle(server);
      expect(log(server, hook.id)[0]).to.include({
        status: 'failure',
        attempt: 1,
        responseCode: 503,
        error: 'http_status',
        errorDetail: 'The receiver answered 503.',
        nextAttemptAt: '2026-11-02T09:00:30.000Z',
      });
      receiver.respond((_r, res) => res.writeHead(204).end());
      server.clock.advance(29_999);
      await settle(server);
      expect(receiver.requests).to.have.length(1);
      server.clock.advance(1);
      await settle(server);
      const [first, second] = receiver.requests;
      expect(second!.headers['x-service-delivery']).to.equal(first!.headers['x-service-delivery']);
      expect(second!.json.id).to.equal(first!.json.id);
      expect(Number(second!.headers['x-service-timestamp']) - Number(first!.headers['x-service-timestamp'])).to.equal(30);
      expect(second!.headers['x-service-signature']).not.to.equal(first!.headers['x-service-signature']);
      expect(verify(hook.secret, second!, server.clock.now() / 1000)).to.equal(true);
      expect(log(server, hook.id)[0]).to.include({ status: 'success', attempt: 2, responseCode: 204 });
    });

    it('follows the schedule (now, 30 s, 2 min, 10 min, 1 h, 6 h), then abandons', async () => {
      const hook = await subscribe(['entry.created']);
      receiver.respond((_r, res) => res.writeHead(500).end());
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(1);
      await settle(server);
      const seen: Array<[number, string | null, string]> = [];
      const row = () => log(server, hook.id)[0]!;
      seen.push([row().attempt, row().nextAttemptAt, row().status]);
      for (const delay of RETRY_DELAYS_MS) {
        server.clock.advance(delay - 1);
        await settle(server);
        expect(row().attempt).to.equal(seen.length); // not yet
        server.clock.advance(1);
        await settle(server);
        seen.push([row().attempt, row().nextAttemptAt, row().status]);
      }
      expect(seen).to.deep.equal([
        [1, '2026-11-02T09:00:30.000Z', 'failure'],
        [2, '2026-11-02T09:02:30.000Z', 'failure'],
        [3, '2026-11-02T09:12:30.000Z', 'failure'],
        [4, '2026-11-02T10:12:30.000Z', 'failure'],
        [5, '2026-11-02T16:12:30.000Z', 'failure'],
        [6, null, 'abandoned'],
      ]);
      expect(receiver.requests).to.have.length(MAX_ATTEMPTS);
      server.clock.advance(86_400_000);
      await settle(server);
      expect(receiver.requests).to.have.length(MAX_ATTEMPTS);
      expect(server.services.webhooks.list(OPERATOR, server.workspaceId)[0]).to.include({ consecutiveFailures: 1, enabled: true });
    });

    it('15 consecutive failed deliveries disable the subscription; a success clears the count', async () => {
      const hook = await subscribe(['entry.created']);
      const abandonAll = async (count: number) => {
        for (let i = 0; i < count; i++)
          server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
        await settle(server);
        for (const delay of RETRY_DELAYS_MS) {
          server.clock.advance(delay);
          await settle(server);
        }
      };
      receiver.respond((_r, res) => res.writeHead(500).end());
      await abandonAll(14);
      expect(server.services.webhooks.list(OPERATOR, server.workspaceId)[0]).to.include({ consecutiveFailures: 14, enabled: true });
      receiver.respond((_r, res) => res.writeHead(200).end());
      await abandonAll(1); // succeeds at once
      expect(server.services.webhooks.list(OPERATOR, server.workspaceId)[0]).to.include({ consecutiveFailures: 0, enabled: true });
      receiver.respond((_r, res) => res.writeHead(500).end());
      await abandonAll(14);
      expect(server.services.webhooks.list(OPERATOR, server.workspaceId)[0]).to.include({ consecutiveFailures: 14, enabled: true });
      await abandonAll(1);
      const disabled = server.services.webhooks.list(OPERATOR, server.workspaceId)[0]!;
      expect(disabled).to.include({ consecutiveFailures: 15, enabled: false });
      expect(disabled.disabledAt).to.match(/Z$/);
      const before = receiver.requests.length;
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await settle(server);
      expect(receiver.requests.length).to.equal(before);
      expect(log(server, hook.id)).to.have.length(30); // no delivery for the event after disabling
      server.services.webhooks.enable(OPERATOR, hook.id);
      expect(server.services.webhooks.list(OPERATOR, server.workspaceId)[0]).to.include({
        consecutiveFailures: 0,
        enabled: true,
        disabledAt: null,
      });
    });

    it('redelivers a delivery that did not succeed: the same id, signed afresh; a failing redelivery of an abandoned one is not counted twice', async () => {
      const hook = await subscribe(['entry.created']);
      receiver.respond((_r, res) => res.writeHead(500).end());
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await settle(server);
      for (const delay of RETRY_DELAYS_MS) {
        server.clock.advance(delay);
        await settle(server);
      }
      const [abandoned] = log(server, hook.id);
      expect(abandoned).to.include({ status: 'abandoned', attempt: 6, error: 'http_status' });
      expect(server.services.webhooks.get(OPERATOR, hook.id).consecutiveFailures).to.equal(1);
      // Once more, still failing: one more attempt, abandoned again, counted once only.
      server.services.webhooks.redeliver(OPERATOR, hook.id, abandoned!.id);
      expect(log(server, hook.id)[0]).to.include({ status: 'pending', attempt: 6 });
      expect(() => server.services.webhooks.redeliver(OPERATOR, hook.id, abandoned!.id)).to.throw(DomainError, 'still queued');
      await settle(server);
      expect(log(server, hook.id)[0]).to.include({ id: abandoned!.id, status: 'abandoned', attempt: 7, nextAttemptAt: null });
      expect(server.services.webhooks.get(OPERATOR, hook.id).consecutiveFailures).to.equal(1);
      // The receiver works again: the same delivery id arrives, with a new timestamp and signature.
      receiver.respond((_r, res) => res.writeHead(204).end());
      server.clock.advance(5_000);
      server.services.webhooks.redeliver(OPERATOR, hook.id, abandoned!.id);
      await settle(server);
      expect(log(server, hook.id)[0]).to.include({ id: abandoned!.id, status: 'success', attempt: 8, responseCode: 204 });
      expect(server.services.webhooks.get(OPERATOR, hook.id).consecutiveFailures).to.equal(0);
      const [previous, last] = receiver.requests.slice(-2);
      expect(last!.headers['x-service-delivery']).to.equal(abandoned!.id);
      expect(last!.headers['x-service-timestamp']).not.to.equal(previous!.headers['x-service-timestamp']);
      expect(last!.headers['x-service-signature']).not.to.equal(previous!.headers['x-service-signature']);
      expect(() => server.services.webhooks.redeliver(OPERATOR, hook.id, abandoned!.id)).to.throw(DomainError, 'succeeded');
      expect(() => server.services.webhooks.redeliver(OPERATOR, hook.id, '0'.repeat(24))).to.throw(DomainError, 'was not found');
    });

    it('a test ping is one signed POST of the contract’s ping envelope, shown in the log as a ping, not counted', async () => {
      const hook = await subscribe(['invoice.created']);
      receiver.respond((_r, res) => res.writeHead(200).end());
      const sent = await server.services.webhooks.ping(OPERATOR, hook.id);
      expect(sent?.outcome).to.deep.equal({ status: 'success', responseCode: 200 });
      const request = receiver.requests.at(-1)!;
      expect(request.headers['x-service-event']).to.equal('ping');
      expect(request.headers['x-service-delivery']).to.equal(sent!.deliveryId);
      expect(request.json).to.deep.equal({
        id: sent!.deliveryId,
        event: 'ping',
        workspaceId: server.workspaceId,
        createdAt: new Date(server.clock.now()).toISOString(),
        data: { kind: 'ping', webhookId: hook.id },
      });
      expect(contractChecker().webhookViolations('ping', request.json)).to.deep.equal([]);
      receiver.respond((_r, res) => res.writeHead(503).end());
      const failed = await server.services.webhooks.ping(OPERATOR, hook.id);
      expect(failed?.outcome).to.include({ status: 'failure', responseCode: 503, error: 'http_status' });
      expect(log(server, hook.id)).to.deep.equal([]);
      // The log shows the pings apart from the deliveries, newest first.
      const page = server.services.webhooks.deliveryPage(OPERATOR, hook.id, { limit: 10 });
      expect(page.deliveries).to.deep.equal([]);
      expect(page.pings.map((p) => [p.id, p.status, p.responseCode, p.error])).to.deep.equal([
        [failed.deliveryId, 'failure', 503, 'http_status'],
        [sent.deliveryId, 'success', 200, null],
      ]);
      expect(server.services.webhooks.get(OPERATOR, hook.id).consecutiveFailures).to.equal(0);
      expect(await server.services.webhooks.ping(OPERATOR, 'whk_unknown').catch((e: DomainError) => e.code)).to.equal('not_found');
      // Each ping is logged with the subscription and its outcome.
      const pings = server.logLines.filter((line) => line.includes('"msg":"webhook ping"')).map((line) => JSON.parse(line));
      expect(pings.map((p) => [p.webhookId, p.status, p.responseCode, p.error])).to.deep.equal([
        [hook.id, 'success', 200, undefined],
        [hook.id, 'failure', 503, 'http_status'],
      ]);
    });

    it('a member may send one test ping every 10 seconds; the operator is not limited', async () => {
      const hook = await subscribe(['entry.created']);
      receiver.respond((_r, res) => res.writeHead(204).end());
      const member = { ...(server.services.tokens.authenticate(server.ownerToken)?.actor as Actor), tokenId: null };
      expect((await server.services.webhooks.ping(member, hook.id)).outcome.status).to.equal('success');
      const refused = await server.services.webhooks.ping(member, hook.id).catch((e: DomainError) => e);
      expect(refused).to.be.instanceOf(DomainError).and.include({ code: 'rate_limited' });
      expect((refused as Error).message).to.equal('Send one test ping at a time: try again in 10 seconds.');
      expect((await server.services.webhooks.ping(OPERATOR, hook.id)).outcome.status).to.equal('success');
      server.clock.advance(10_000);
      expect((await server.services.webhooks.ping(member, hook.id)).outcome.status).to.equal('success');
      expect(receiver.requests.filter((r) => r.headers['x-service-event'] === 'ping')).to.have.length(3);
    });

    it('disabling a subscription ends its open deliveries as cancelled: final, not resumed by enable', async () => {
      const hook = await subscribe(['entry.created']);
      const create = () => server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      receiver.respond((_r, res) => res.writeHead(500).end());
      rawWrite(server, 'UPDATE webhooks SET consecutive_failures = 14 WHERE id = ?', hook.id);
      // The 15th delivery fails five times; meanwhile two more fail once (retries due later).
      const last = create();
      await settle(server);
      for (const delay of RETRY_DELAYS_MS.slice(0, -1)) {
        server.clock.advance(delay);
        await settle(server);
      }
      create();
      create();
      await settle(server);
      expect(log(server, hook.id).map((d) => [d.status, d.attempt])).to.deep.equal([
        ['failure', 1],
        ['failure', 1],
        ['failure', 5],
      ]);
      server.clock.advance(RETRY_DELAYS_MS.at(-1)!);
      await settle(server);
      expect(server.services.webhooks.list(OPERATOR, server.workspaceId)[0]).to.include({ enabled: false, consecutiveFailures: 15 });
      const rows = log(server, hook.id);
      expect(rows.map((d) => [d.status, d.attempt, d.responseCode, d.error, d.nextAttemptAt])).to.deep.equal([
        // Their retries were due in the same run as the last attempt of the 15th: made, then cancelled.
        ['cancelled', 2, 500, 'subscription_disabled', null],
        ['cancelled', 2, 500, 'subscription_disabled', null],
        ['abandoned', 6, 500, 'http_status', null],
      ]);
      expect(rows[0]!.errorDetail).to.equal('The subscription was disabled before this delivery was made; it is not retried.');
      expect(last.id).to.be.a('string');
      // Enabling again sends new events only; the cancelled deliveries stay as they are.
      const sent = receiver.requests.length;
      server.services.webhooks.enable(OPERATOR, hook.id);
      server.clock.advance(86_400_000);
      await settle(server);
      expect(receiver.requests.length).to.equal(sent);
      expect(log(server, hook.id).map((d) => d.status)).to.deep.equal(['cancelled', 'cancelled', 'abandoned']);
    });

    it('a 3xx is recorded redirect_not_followed and its Location is never requested', async () => {
      const hook = await subscribe(['entry.created']);
      receiver.respond((request, res) =>
        request.url === '/hook'
          ? res.writeHead(302, { location: `https://hooks.test:${receiver.port}/elsewhere` }).end()
          : res.writeHead(200).end(),
      );
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(1);
      await settle(server);
      await new Promise((r) => setTimeout(r, 100));
      expect(receiver.requests.map((r) => r.url)).to.deep.equal(['/hook']);
      expect(log(server, hook.id)[0]).to.include({
        status: 'redirect_not_followed',
        attempt: 1,
        responseCode: 302,
        error: 'redirect_not_followed',
        nextAttemptAt: '2026-11-02T09:00:30.000Z',
      });
    });

    it('a receiver that does not answer in time fails the attempt (timeout)', async () => {
      const hook = await subscribe(['entry.created']);
      receiver.respond(() => {
        /* never answers */
      });
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(1);
      await settle(server);
      expect(log(server, hook.id)[0]).to.include({ status: 'failure', attempt: 1, responseCode: null });
      expect(log(server, hook.id)[0]).to.include({ error: 'timeout', errorDetail: 'No answer within 300 ms.' });
    });

    it('a name lookup that does not answer in time fails the attempt within its budget (timeout)', async () => {
      await server.close();
      let calls = 0;
      // The subscription's check resolves; the attempt's lookup never answers.
      ({ server, owner, resolverCalls } = await setup({
        allowPrivate: true,
        timeoutMs: 300,
        resolve: () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : (new Promise(() => {}) as never)),
      }));
      const hook = await subscribe(['entry.created']);
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      const started = performance.now();
      await settle(server);
      expect(performance.now() - started).to.be.below(3000);
      expect(log(server, hook.id)[0]).to.include({
        status: 'failure',
        attempt: 1,
        error: 'timeout',
        errorDetail: 'hooks.test did not resolve within 300 ms.',
      });
      expect(receiver.requests).to.have.length(0);
    });

    it('pins the connection to the checked address: a rebinding after the check is not followed', async () => {
      let calls = 0;
      await server.close();
      ({ server, owner, resolverCalls } = await setup({
        allowPrivate: true,
        // First answer per attempt: 127.0.0.1 (the receiver); any second lookup would get 127.0.0.2, where nothing listens.
        resolve: () => [{ address: calls++ % 2 === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }],
      }));
      const hook = await subscribe(['entry.created']);
      calls = 0;
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(1);
      await settle(server);
      expect(log(server, hook.id)[0]).to.include({ status: 'success' });
      expect(calls).to.equal(1);
    });

    it('refuses a certificate for another name', async () => {
      await receiver.close();
      receiver = await startReceiver(pki.certs['other.test']!);
      const hook = await subscribe(['entry.created']); // https://hooks.test, answered with other.test's certificate
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await settle(server);
      await new Promise((r) => setTimeout(r, 50));
      await settle(server);
      const [row] = log(server, hook.id);
      expect(row).to.include({ status: 'failure', attempt: 1, responseCode: null });
      expect(row!.error).to.equal('tls');
      expect(row!.errorDetail).to.match(/ERR_TLS_CERT_ALTNAME_INVALID|altnames/i);
      expect(receiver.requests).to.have.length(0);
    });

    describe('visibility at send time', () => {
      it('withholds a colleague’s entries from an owner without canViewOthersTime: skipped_visibility, not retried, not counted', async () => {
        const watcher = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: false });
        const hook = await subscribe(['entry.created'], watcher.userId);
        server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
        await settle(server);
        server.clock.advance(7 * 3_600_000);
        await settle(server);
        expect(receiver.requests).to.have.length(0);
        expect(log(server, hook.id)[0]).to.include({
          status: 'skipped_visibility',
          attempt: 0,
          nextAttemptAt: null,
          error: 'visibility_withheld',
        });
        expect(server.services.webhooks.list(OPERATOR, server.workspaceId).find((w) => w.id === hook.id)).to.include({
          consecutiveFailures: 0,
        });
      });

      it('sends a colleague’s entry with hourlyRate null (currency kept) to an owner without canViewOthersMoney; the own rate stays', async () => {
        server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { hourlyRate: 70 });
        const watcher = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true, canViewOthersMoney: false });
        await subscribe(['entry.created'], watcher.userId);
        server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
        server.services.entries.create(server.services.tokens.authenticate(watcher.token)!.actor, {
          start: '2026-11-02T07:00:00Z',
          end: '2026-11-02T08:00:00Z',
        });
        await receiver.waitFor(2);
        const byAuthor = new Map(receiver.requests.map((r) => [r.json.data.entry.authorId, r.json.data.entry]));
        expect(byAuthor.get(server.ownerId)).to.include({ hourlyRate: null, currency: 'EUR' });
        expect(byAuthor.get(watcher.userId)).to.include({ hourlyRate: 70, currency: 'EUR' });
      });

      it('uses the owner’s flags at send time, and sends nothing for an owner removed from the workspace', async () => {
        const watcher = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true, canViewOthersMoney: true });
        const hook = await subscribe(['entry.created'], watcher.userId);
        receiver.respond((_r, res) => res.writeHead(500).end());
        server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
        await receiver.waitFor(1);
        await settle(server);
        server.services.accounts.removeMember(OPERATOR, { workspaceId: server.workspaceId, userId: watcher.userId });
        server.clock.advance(30_000);
        await settle(server);
        expect(receiver.requests).to.have.length(1);
        expect(log(server, hook.id)[0]).to.include({ status: 'skipped_visibility', attempt: 1 });
      });

      it('sends invoice events to whoever reads invoices (the invoices rule: an owner who may see money), and withholds them from a member who sees time only, one who sees money only and an owner without money visibility', async () => {
        server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: 19 });
        const client = server.services.catalog.clients.create(owner, { name: 'Invoiced Co' });
        const project = server.services.catalog.projects.create(owner, {
          name: 'Billed',
          clientId: client.id,
          billable: true,
          hourlyRate: 100,
        });
        server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:30:00Z', projectId: project.id });
        const timeOnly = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true, canViewOthersMoney: false });
        const withheld = await subscribe(['invoice.created', 'invoice.status_changed'], timeOnly.userId);
        // Issue 44 L2 and issue 45 item 6: who reads invoices is one rule, so money without colleagues' time
        // (a member) or an owner without money gets no invoice events, as they get no Invoices page.
        const moneyOnly = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: false, canViewOthersMoney: true });
        const blindOwner = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true, canViewOthersMoney: false });
        server.services.accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: blindOwner.userId, isOwner: true });
        const moneyOnlyHook = await subscribe(['invoice.created', 'invoice.status_changed'], moneyOnly.userId);
        const blindOwnerHook = await subscribe(['invoice.created', 'invoice.status_changed'], blindOwner.userId);
        const full = await subscribe(['invoice.created', 'invoice.status_changed']);
        const invoice = server.services.invoices.create(OPERATOR, {
          workspaceId: server.workspaceId,
          userId: server.ownerId,
          clientId: client.id,
          from: '2026-11-02',
          to: '2026-11-02',
        });
        // What its PDF needs, filled (issuing checks it first: issue 56 item 1); a fill sends no event.
        server.services.invoices.fill(OPERATOR, invoice.id, server.ownerId, [
          ['issuer.legalName', 'Studio'],
          ['issuer.country', 'DE'],
          ['issuer.taxNumber', '30/123/45678'],
          ['recipient.country', 'DE'],
        ]);
        server.services.invoices.changeStatus(OPERATOR, invoice.id, 'sent', server.ownerId);
        server.services.invoices.changeStatus(OPERATOR, invoice.id, 'void', server.ownerId);
        await settle(server);
        await receiver.waitFor(3);
        await settle(server);
        expect(receiver.requests.map((r) => r.json.event)).to.have.members([
          'invoice.created',
          'invoice.status_changed',
          'invoice.status_changed',
        ]);
        for (const request of receiver.requests)
          expect(contractChecker().webhookViolations(request.json.event, request.json), request.json.event).to.deep.equal([]);
        const created = receiver.requests.find((r) => r.json.event === 'invoice.created')!.json.data.invoice;
        expect(created).to.deep.include({
          status: 'draft',
          number: null,
          issueDate: null,
          netTotal: 150,
          taxTotal: 28.5,
          grossTotal: 178.5,
          amountDue: 178.5,
          language: 'en',
          note: null,
          creditNote: null,
        });
        expect(created.lines).to.deep.equal([
          { description: 'Billed', projectId: project.id, quantitySec: 5400, hourlyRate: 100, amount: 150, taxCategory: 'S', taxRate: 19 },
        ]);
        const moves = receiver.requests.filter((r) => r.json.event === 'invoice.status_changed').map((r) => r.json.data);
        const sent = moves.find((m) => m.to === 'sent')!;
        expect(sent).to.include({ kind: 'invoice-status', from: 'draft', to: 'sent' });
        expect(sent.invoice).to.deep.include({
          id: invoice.id,
          total: 150,
          status: 'sent',
          number: '2026-0001',
          issueDate: '2026-11-02',
          dueDate: '2026-11-16',
          paidDate: null,
          paymentTerms: 'Payable within 14 days, by 16 November 2026.',
          amountDue: 178.5,
        });
        const voided = moves.find((m) => m.to === 'void')!;
        expect(voided.invoice).to.deep.include({
          status: 'void',
          amountDue: 0,
          creditNote: { number: '2026-0002', issueDate: '2026-11-02' },
        });
        for (const hook of [withheld, moneyOnlyHook, blindOwnerHook])
          expect(log(server, hook.id).map((d) => d.status)).to.deep.equal([
            'skipped_visibility',
            'skipped_visibility',
            'skipped_visibility',
          ]);
        expect(log(server, full.id).map((d) => d.status)).to.deep.equal(['success', 'success', 'success']);
      });

      it('deleting the owner’s account deletes its webhooks', async () => {
        const watcher = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true });
        await subscribe(['entry.created'], watcher.userId);
        server.services.accounts.deleteUser(OPERATOR, watcher.userId);
        expect(server.services.webhooks.list(OPERATOR, server.workspaceId)).to.deep.equal([]);
        server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
        await settle(server);
        expect(receiver.requests).to.have.length(0);
      });
    });

    it('purges the delivery log after 30 days', async () => {
      const hook = await subscribe(['entry.created']);
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(1);
      await settle(server);
      server.clock.advance(29 * 86_400_000);
      server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
      await receiver.waitFor(2);
      await settle(server);
      expect(server.services.sender.purge()).to.equal(0);
      server.clock.advance(1 * 86_400_000 + 1);
      expect(server.services.sender.purge()).to.equal(1);
      expect(log(server, hook.id)).to.have.length(1);
      // A large purge (the first after a long stop) deletes a chunk of 1,000 per write, so the
      // server's requests run between them: 2,500 old rows in three writes; the newer row stays.
      const sqlite = server.running.database.sqlite;
      await new Promise((resolve) => setImmediate(resolve)); // the server's batch committed
      sqlite.exec('BEGIN');
      sqlite
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
           INSERT INTO webhook_deliveries (id, webhook_id, event_seq, event, status, attempt, created_at, updated_at)
           SELECT 'whd_old_' || i, webhook_id, event_seq, event, status, attempt, i, i FROM n, webhook_deliveries`,
        )
        .run();
      sqlite.exec('COMMIT');
      const writes = server.services.durability.writes();
      expect(server.services.sender.purge()).to.equal(2_500);
      expect(server.services.durability.writes() - writes).to.equal(3);
      expect(log(server, hook.id)).to.have.length(1);
    });
  });

  describe('target safety (WEBHOOK_ALLOW_PRIVATE_TARGETS off)', () => {
    it('blocks a sample address of every listed range, and allows public ones', () => {
      const samples: Record<string, string> = {
        '0.0.0.0/8': '0.1.2.3',
        '10.0.0.0/8': '10.9.8.7',
        '100.64.0.0/10': '100.100.1.1',
        '127.0.0.0/8': '127.0.0.1',
        '169.254.0.0/16': '169.254.169.254',
        '172.16.0.0/12': '172.31.255.255',
        '192.0.0.0/24': '192.0.0.8',
        '192.0.2.0/24': '192.0.2.1',
        '192.31.196.0/24': '192.31.196.1',
        '192.52.193.0/24': '192.52.193.1',
        '192.88.99.0/24': '192.88.99.1',
        '192.168.0.0/16': '192.168.1.1',
        '192.175.48.0/24': '192.175.48.1',
        '198.18.0.0/15': '198.19.0.1',
        '198.51.100.0/24': '198.51.100.7',
        '203.0.113.0/24': '203.0.113.9',
        '224.0.0.0/4': '239.255.255.250',
        '240.0.0.0/4': '250.1.1.1',
        '255.255.255.255/32': '255.255.255.255',
        '::/128': '::',
        '::1/128': '::1',
        '::/96': '::a00:1',
        '64:ff9b::/96': '64:ff9b::a00:1',
        '64:ff9b:1::/48': '64:ff9b:1::1',
        '100::/64': '100::1',
        '2001::/23': '2001::1',
        '2001:db8::/32': '2001:db8::1',
        '2002::/16': '2002:c000:201::1',
        '2620:4f:8000::/48': '2620:4f:8000::1',
        '3fff::/20': '3fff::1',
        '5f00::/16': '5f00::1',
        'fc00::/7': 'fd12:3456::1',
        'fe80::/10': 'fe80::1',
        'fec0::/10': 'fec0::1',
        'ff00::/8': 'ff02::1',
      };
      for (const [cidr] of [...BLOCKED_IPV4, ...BLOCKED_IPV6]) {
        const sample = samples[cidr];
        expect(sample, `a sample for ${cidr}`).to.be.a('string');
        // 255.255.255.255/32 lies inside 240.0.0.0/4 too: any listed range may name it.
        expect(blockedRange(sample!), `${sample} in ${cidr}`)
          .to.be.a('string')
          .and.match(
            cidr === '255.255.255.255/32' ? /^240\.0\.0\.0\/4|^255/ : new RegExp(`^${cidr.replace(/[.*+?^$()|[\]\\]/g, '\\$&')} `),
          );
      }
      expect(blockedRange('::ffff:127.0.0.1')).to.contain('127.0.0.0/8'); // IPv4-mapped is checked as IPv4
      expect(blockedRange('::ffff:10.0.0.1')).to.contain('10.0.0.0/8');
      for (const open of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
        expect(blockedRange(open), open).to.equal(null);
    });

    it('IPv6: only global unicast (2000::/3) outside the special-purpose ranges is a target', () => {
      // Addresses a list of blocked ranges let through: IPv4-translated loopback, 100::/8 beyond
      // the discard /64, unallocated space, and more outside 2000::/3.
      for (const outside of ['::ffff:0:7f00:1', '100:0:0:1::1', '1::', '4000::1', 'e000::1', '::ffff:0:a00:1', '1fff::1'])
        expect(blockedRange(outside), outside).to.be.a('string');
      expect(blockedRange('1::')).to.equal('outside 2000::/3 (RFC 4291: only global unicast is a target)');
      for (const open of ['2000::1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '3ffe::1'])
        expect(blockedRange(open), open).to.equal(null);
    });

    it('the name lookup counts inside the attempt’s time budget', async () => {
      const slow = () => new Promise<never>(() => {}); // never answers
      const started = performance.now();
      const error = await resolveTarget(checkUrl('https://slow.test/', false), false, slow, 200).catch((e: unknown) => e);
      expect(performance.now() - started).to.be.below(2000);
      expect(error).to.be.instanceOf(TargetRefused);
      expect(error).to.include({ code: 'timeout', message: 'slow.test did not resolve within 200 ms.' });
    });

    it('refuses IP literals in any notation, without a lookup', async () => {
      const never = async () => {
        throw new Error('looked up');
      };
      for (const raw of [
        'https://127.1/',
        'https://0x7f000001/',
        'https://2130706433/',
        'https://0177.0.0.1/',
        'https://[::ffff:7f00:1]/',
        'https://[::1]:8443/',
        'https://169.254.169.254/latest/meta-data',
      ]) {
        const error = await resolveTarget(checkUrl(raw, false), false, never).catch((e: unknown) => e);
        expect(error, raw).to.be.instanceOf(TargetRefused);
        expect((error as TargetRefused).code, raw).to.equal('blocked_address');
      }
    });

    it('refuses a name with one public and one private address, http, and credentials', async () => {
      const mixed = async () => [
        { address: '93.184.216.34', family: 4 as const },
        { address: '10.0.0.5', family: 4 as const },
      ];
      const error = await resolveTarget(checkUrl('https://mixed.test/', false), false, mixed).catch((e: unknown) => e);
      expect((error as TargetRefused).code).to.equal('blocked_address');
      expect((error as Error).message).to.contain('10.0.0.5');
      expect(() => checkUrl('http://hooks.test/', false)).to.throw(TargetRefused, /https/);
      expect(() => checkUrl('ftp://hooks.test/', true)).to.throw(TargetRefused);
      expect(() => checkUrl('https://user:pw@hooks.test/', false)).to.throw(TargetRefused, /credentials/);
      expect(checkUrl('http://hooks.test/', true).protocol).to.equal('http:');
    });

    it('refuses such targets when a subscription is created, with a clear message', async () => {
      const { server } = await setup({ allowPrivate: false });
      try {
        const create = (url: string) =>
          server.services.webhooks
            .create(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId, url, events: ['entry.created'] })
            .catch((e: Error) => e);
        expect(String(await create('http://hooks.test/hook'))).to.contain('url: Webhook URLs must use https');
        expect(String(await create('https://hooks.test/hook'))).to.match(/127\.0\.0\.1, a private or special-use address/);
        expect(String(await create('https://unknown.example/hook'))).to.contain('does not resolve');
        expect(
          String(
            await server.services.webhooks
              .create(OPERATOR, {
                workspaceId: server.workspaceId,
                userId: server.ownerId,
                url: 'https://x.test/',
                events: ['entry.exploded'],
              })
              .catch((e: Error) => e),
          ),
        ).to.contain('unknown entry.exploded');
        // A member (the settings page) is told only that the target is not allowed; the log keeps why.
        const member = { ...(server.services.tokens.authenticate(server.ownerToken)?.actor as Actor), tokenId: null };
        const asMember = (url: string) =>
          server.services.webhooks.create(member, { url, events: ['entry.created'] }).catch((e: Error) => e);
        for (const url of ['https://hooks.test/hook', 'https://unknown.example/hook']) {
          const refused = String(await asMember(url));
          expect(refused, url).to.contain(
            'url: this target is not allowed: webhooks go to https URLs whose host name resolves to public addresses only.',
          );
          expect(refused, url).to.contain('WEBHOOK_ALLOW_PRIVATE_TARGETS');
          expect(refused, url).not.to.match(/127\.0\.0\.1|resolve to|does not resolve/);
        }
        const logged = server.logLines.filter((line) => line.includes('webhook target refused'));
        expect(logged).to.have.length(2);
        expect(logged[0]).to.contain('resolves to 127.0.0.1');
      } finally {
        await server.close();
      }
    });

    it('checks again before every attempt: a name that turns private is refused, nothing is sent', async () => {
      let answer = '93.184.216.34'; // only ever returned by this fake resolver; never connected to
      const receiver = await startReceiver(pki.certs['hooks.test']!);
      const { server, owner } = await setup({ allowPrivate: false, resolve: () => [{ address: answer, family: 4 }] });
      try {
        const hook = await server.services.webhooks.create(OPERATOR, {
          workspaceId: server.workspaceId,
          userId: server.ownerId,
          url: `https://hooks.test:${receiver.port}/hook`,
          events: ['entry.created'],
        });
        answer = '127.0.0.1';
        server.services.entries.create(owner, { start: '2026-11-02T06:00:00Z', end: '2026-11-02T07:00:00Z' });
        await settle(server);
        const [row] = server.services.webhooks.deliveries(OPERATOR, hook.id);
        expect(row).to.include({ status: 'failure', attempt: 1, responseCode: null });
        expect(row!.error).to.equal('blocked_address');
        expect(row!.errorDetail).to.match(/^hooks\.test resolves to 127\.0\.0\.1/);
        expect(receiver.requests).to.have.length(0);
      } finally {
        await server.close();
        await receiver.close();
      }
    });
  });
});
