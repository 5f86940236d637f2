import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { OPERATOR } from '../../src/principal.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { checkedSend } from '../helpers/server.js';
import { startReceiver, verify } from '../helpers/webhooks.js';

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The server as production runs it, end to end: the system clock, the scheduler ticking every
 * second (the jobs the modules registered), the webhook sender on its own thread, heavy reads on
 * the reader threads, and close running the registered steps. Every other server test runs the
 * sender in-process under a manual clock; this one does not.
 */
describe('the production topology, end to end', function () {
  this.timeout(30_000);
  let dir: string;
  let server: RunningServer;
  let banner = '';
  const lines: string[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-topology-'));
    const config = parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'timetrack.db'),
      // The receiver is plain http on loopback.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      READER_THREADS: '2',
      TZ: 'UTC',
    });
    server = await startServer(config, {
      strictWrites: true,
      logger: createLogger('info', (line) => lines.push(line)),
      announce: (text) => (banner += text),
    });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends from the sender thread, reads on reader threads, runs the scheduled jobs, and stops cleanly', async () => {
    const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
    const call = (method: string, path: string, json?: unknown) =>
      checkedSend(server.url, method, path, { token, ...(json === undefined ? {} : { json }) });
    const receiver = await startReceiver(null);
    try {
      const me = (await call('GET', '/api/v1/me')).body.data;
      const hook = await server.services.webhooks.create(OPERATOR, {
        workspaceId: me.workspaceId,
        userId: me.userId,
        url: `http://127.0.0.1:${receiver.port}/hook`,
        events: ['entry.created', 'entry.updated'],
      });

      // A write: its delivery leaves from the sender's thread, signed.
      const created = await call('POST', '/api/v1/entries', { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' });
      expect(created.status).to.equal(200);
      await receiver.waitFor(1);
      expect(verify(hook.secret, receiver.requests[0]!, Math.floor(Date.now() / 1000))).to.equal(true);
      expect(receiver.requests[0]?.json.data.entry.id).to.equal(created.body.data.id);

      // A heavy read: answered by a reader thread.
      const page = await call('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02');
      expect(page.body.data.map((e: { id: string }) => e.id)).to.deep.equal([created.body.data.id]);
      expect(server.readers.threads()).to.be.at.least(1);

      // A timer started 11 hours ago: the scheduler's runaway job (every second) flags it
      // (the default limit is 10 hours), and its entry.updated leaves from the thread too.
      const started = await call('POST', '/api/v1/entries/current', { start: new Date(Date.now() - 11 * 3_600_000).toISOString() });
      expect(started.status).to.equal(200);
      await until(
        async () => (await call('GET', '/api/v1/entries/current')).body.data?.runaway?.action === 'flagged',
        10_000,
        'the runaway job',
      );
      await receiver.waitFor(2);
      expect(receiver.requests[1]?.headers['x-service-event']).to.equal('entry.updated');

      const ready = await checkedSend(server.url, 'GET', '/readyz');
      expect(ready.body).to.deep.equal({ status: 'ok', checks: { database: 'ok', migrations: 'ok', webhookSender: 'ok' } });
    } finally {
      await receiver.close();
    }
    await server.close();
    expect(lines.map((l) => JSON.parse(l).msg)).to.include('stopped');
    expect(lines.filter((l) => JSON.parse(l).level === 'error')).to.deep.equal([]);
  });
});
