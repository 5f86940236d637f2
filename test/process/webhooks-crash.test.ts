import { OPERATOR } from '../../src/principal.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { startSenderThread } from '../../src/threads/sender.js';
import { loadSecretKey } from '../../src/secret-key.js';
import { startServer } from '../../src/server.js';
import { createServices, graphSettings } from '../../src/services.js';
import { send } from '../helpers/server.js';
import { startReceiver, verify } from '../helpers/webhooks.js';
import { MAIN } from '../helpers/entry.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('webhooks survive a crash', function () {
  this.timeout(60_000);

  it('SIGKILL with deliveries pending and in flight: after a restart every committed event is delivered at least once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-crash-'));
    const databasePath = join(dir, 'timetrack.db');
    const receiver = await startReceiver(null);
    receiver.respond(() => {
      /* hang: the attempt stays in flight */
    });
    const port = await freePort();
    const env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_PATH: databasePath,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    const children: ChildProcess[] = [];
    const start = async () => {
      const child = spawn(process.execPath, [...MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (c) => (out += c));
      child.stderr!.on('data', (c) => (out += c));
      await until(
        async () => (await send(`http://127.0.0.1:${port}`, 'GET', '/api/v1/openapi.json').catch(() => null))?.status === 200,
        20_000,
        `the server (${out})`,
      );
      return { child, output: () => out };
    };
    try {
      const first = await start();
      const token = /token +(tt_\S+)/.exec(first.output())?.[1] as string;
      const database = openDatabase(databasePath);
      let workspaceId: string;
      let webhookId: string;
      try {
        const services = createServices(database, {
          clock: systemClock,
          secretKey: loadSecretKey(databasePath, undefined),
          webhooks: { allowPrivateTargets: true },
        });
        const actor = services.tokens.authenticate(token)!.actor;
        workspaceId = actor.workspaceId;
        webhookId = (
          await services.webhooks.create(OPERATOR, {
            workspaceId,
            userId: actor.userId,
            url: `http://127.0.0.1:${receiver.port}/hook`,
            events: ['entry.created'],
          })
        ).id;
      } finally {
        database.close();
      }
      const created: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await send(`http://127.0.0.1:${port}`, 'POST', '/api/v1/entries', {
          token,
          json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: `e${i}` },
        });
        expect(res.status).to.equal(200);
        created.push(res.body.data.id);
      }
      await receiver.waitFor(1); // one attempt in flight, the others pending behind it
      first.child.kill('SIGKILL');
      await new Promise((r) => first.child.once('exit', r));

      receiver.respond((_r, res) => res.writeHead(200).end());
      await start();
      const check = openDatabase(databasePath);
      try {
        const services = createServices(check, { clock: systemClock, secretKey: loadSecretKey(databasePath, undefined) });
        await until(
          () => services.webhooks.deliveries(OPERATOR, webhookId).every((d) => d.status === 'success'),
          20_000,
          'every delivery to succeed',
        );
        const deliveries = services.webhooks.deliveries(OPERATOR, webhookId);
        expect(deliveries).to.have.length(5);
        const received = new Set(receiver.requests.map((r) => String(r.headers['x-service-delivery'])));
        for (const d of deliveries) expect(received.has(d.id), d.id).to.equal(true);
        const entriesDelivered = new Set(receiver.requests.filter((r) => r.json).map((r) => r.json.data.entry.id));
        for (const id of created) expect(entriesDelivered.has(id), id).to.equal(true);
        expect(services.events.tail(OPERATOR, workspaceId!, 0, 100).filter((e) => e.event === 'entry.created')).to.have.length(5);
      } finally {
        check.close();
      }
    } finally {
      for (const child of children) child.kill('SIGKILL');
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the server sends from its own thread: a REST write arrives signed, the log says success, close waits for the thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-thread-'));
    const receiver = await startReceiver(null);
    const lines: string[] = [];
    const config = parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'timetrack.db'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SCHEDULER_CRON: 'off',
    });
    let banner = '';
    // No injected clock, resolver or CA: the sender runs on its thread, as in production.
    const server = await startServer(config, {
      // Warnings and errors, but the risky-setting notice this test sets off on purpose.
      logger: { debug: () => {}, info: () => {}, warn: (m) => m.startsWith('risky setting') || lines.push(m), error: (m) => lines.push(m) },
      announce: (t) => (banner += t),
    });
    try {
      const token = /token +(tt_\S+)/.exec(banner)?.[1] as string;
      const actor = server.services.tokens.authenticate(token)!.actor;
      const hook = await server.services.webhooks.create(OPERATOR, {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        url: `http://127.0.0.1:${receiver.port}/hook`,
        events: ['entry.created'],
      });
      const res = await send(server.url, 'POST', '/api/v1/entries', {
        token,
        json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: 'threaded' },
      });
      expect(res.status).to.equal(200);
      // The commit's nudge reaches the thread: no scheduler tick runs here.
      // The thread loads its HTTP client on its first delivery (through tsx's loader here): seconds on a loaded machine.
      await receiver.waitFor(1, 15_000);
      const request = receiver.requests[0]!;
      expect(verify(hook.secret, request, Math.floor(Date.now() / 1000))).to.equal(true);
      expect(request.json.data.entry.id).to.equal(res.body.data.id);
      await until(
        () => server.services.webhooks.deliveries(OPERATOR, hook.id)[0]?.status === 'success',
        5_000,
        'the outcome to be written',
      );
      expect(server.services.webhooks.deliveries(OPERATOR, hook.id)).to.have.length(1);
    } finally {
      await server.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines).to.deep.equal([]);
  });

  it('a sender thread that cannot run says so and hands its work back', async () => {
    const errors: string[] = [];
    let handedBack = 0;
    const thread = startSenderThread({
      // Not a place a database can be opened: the thread fails at start.
      databasePath: '/dev/null/timetrack.db',
      secretKey: Buffer.alloc(32),
      settings: graphSettings(parseConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })),
      timeoutMs: 1_000,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: (m) => errors.push(m) },
      write: () => Promise.reject(new Error('no write is asked of a thread that cannot start')),
      onFailure: () => handedBack++,
    });
    await until(() => handedBack > 0, 10_000, 'the thread to fail');
    expect(handedBack).to.equal(1);
    expect(errors).to.deep.equal([
      'the webhook sender thread failed to start',
      'the webhook sender thread stopped; the server sends deliveries itself',
    ]);
    await thread.stop(); // at once: nothing left to stop
  });
});
