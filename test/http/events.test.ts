import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import type { Actor } from '../../src/principal.js';
import { rawWrite, startTestServer, type TestServer } from '../helpers/server.js';

const DAY = 86_400_000;

/** The sync event log's retention (EVENT_RETENTION_DAYS), run by the server's scheduled job. */
describe('sync events: retention', () => {
  // A server per test: the retention job, its once-an-hour gate and the oldest sequence number are
  // the server's, over every workspace's events.
  let server: TestServer;
  let owner: Actor;
  beforeEach(async () => {
    // Webhook attempts resolve every name to 127.0.0.1, which the sender refuses: no traffic.
    server = await startTestServer({
      env: { EVENT_RETENTION_DAYS: '2' },
      webhooks: { resolve: async () => [{ address: '127.0.0.1', family: 4 }] },
    });
    owner = server.services.tokens.authenticate(server.ownerToken)!.actor;
  });
  afterEach(() => server.close());

  const seqs = () => server.services.events.tail(OPERATOR, server.workspaceId, 0, 100_000).map((e) => e.seq);
  const create = () => server.services.entries.create(owner, { start: '2026-11-01T06:00:00Z', end: '2026-11-01T07:00:00Z' });

  it('deletes events older than the retention, oldest first, and keeps the rest', async () => {
    for (let i = 0; i < 3; i++) create();
    const old = seqs();
    server.clock.advance(DAY);
    for (let i = 0; i < 2; i++) create();
    const recent = seqs().slice(old.length);
    await server.running.scheduler.tick();
    expect(seqs()).to.deep.equal([...old, ...recent]); // nothing is two days old yet
    server.clock.advance(DAY + 1);
    await server.running.scheduler.tick();
    expect(seqs()).to.deep.equal(recent);
    expect(server.services.events.oldestSeq()).to.equal(recent[0]);
  });

  it('runs at most once an hour, in batches, until everything past the retention is gone but the newest', async () => {
    for (let i = 0; i < 12; i++) create();
    const newest = seqs().at(-1);
    server.clock.advance(3 * DAY);
    expect(server.running.services.write(() => server.services.events.purge(server.clock.now() - 2 * DAY, 5))).to.deep.equal({
      deleted: 5,
      next: (seqs()[0] as number) - 1,
    });
    await server.running.scheduler.tick();
    // The workspace's newest event stays: it names the state of its data (catalog ETags).
    expect(seqs()).to.deep.equal([newest]);
    create();
    create();
    const [, second, third] = seqs();
    const MINUTE = 60_000;
    server.clock.advance(2 * DAY - 30 * MINUTE);
    await server.running.scheduler.tick(); // runs: the two new events are not two days old yet
    expect(seqs()).to.deep.equal([second, third]);
    server.clock.advance(31 * MINUTE);
    await server.running.scheduler.tick(); // they are old now, but the last run was 31 minutes ago
    expect(seqs()).to.deep.equal([second, third]);
    server.clock.advance(30 * MINUTE);
    await server.running.scheduler.tick();
    expect(seqs()).to.deep.equal([third]);
  });

  it('keeps an event while a delivery log row refers to it', async () => {
    const now = server.clock.now();
    rawWrite(
      server,
      "INSERT INTO webhooks (id, workspace_id, user_id, url, events, secret_ciphertext, created_at, updated_at) VALUES ('whk_1', ?, ?, 'https://hooks.test/hook', '[\"entry.created\"]', 'unused', ?, ?)",
      server.workspaceId,
      server.ownerId,
      now,
      now,
    );
    const entry = create();
    server.services.catalog.tags.create(owner, { name: 'not delivered' });
    server.clock.advance(3 * DAY);
    await server.running.scheduler.tick();
    const kept = server.services.events.tail(OPERATOR, server.workspaceId, 0, 100);
    // The entry's event (a delivery refers to it) and the newest event of the workspace stay.
    expect(kept.map((e) => [e.entityId === entry.id, e.event])).to.deep.equal([
      [true, 'entry.created'],
      [false, null],
    ]);
    expect(server.services.webhooks.deliveries(OPERATOR, 'whk_1').map((d) => [d.status, d.error])).to.deep.equal([
      ['failure', 'blocked_address'],
    ]);
  });
});
