import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * A member's delivery log on the settings page: what it withholds (colleagues' activity the
 * member may not see), its opaque page links, and its notices.
 */
describe('settings page: a webhook delivery log', () => {
  // One server for the file; each test has a fresh workspace, owner and member Bea in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let bea: SettingsClient;
  let beaId: string;
  let beaEmail: string;
  let hookId: string;
  before(async () => {
    // Attempts go to a closed port on loopback (connection refused): nothing leaves the machine.
    shared = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    beaEmail = `bea.${server.workspaceId}@example.org`;
    const user = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: beaEmail });
    beaId = user.id;
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: beaId });
    bea = new SettingsClient(server);
    await bea.setUp(beaId, PASSWORD);
    const made = await bea.submit('/settings/webhooks', '/settings/webhooks', {
      url: 'https://127.0.0.1:9/hook',
      events: ['entry.created'],
    });
    expect(made.status, made.text).to.equal(303);
    hookId = server.services.webhooks.list(OPERATOR, server.workspaceId)[0]?.id as string;
  });

  const entry = (token: string, hour: number) =>
    server.request('POST', '/api/v1/entries', {
      token,
      json: { start: `2026-11-01T${String(hour).padStart(2, '0')}:00:00Z`, end: `2026-11-01T${String(hour).padStart(2, '0')}:30:00Z` },
    });
  const beaToken = () =>
    server.services.tokens.create(OPERATOR, { workspaceId: server.workspaceId, userId: beaId, name: 'bea', scopes: ['entries:write'] })
      .token;

  it("withholds colleagues' events from a member who may not see them, counting them, and offers no redelivery of them", async () => {
    for (const hour of [6, 7, 8]) expect((await entry(server.ownerToken, hour)).status).to.equal(200);
    expect((await entry(beaToken(), 9)).status).to.equal(200);
    await server.services.sender.tick();
    const all = server.services.webhooks.deliveries(OPERATOR, hookId);
    expect(all.map((d) => d.status).sort()).to.deep.equal(['failure', 'skipped_visibility', 'skipped_visibility', 'skipped_visibility']);
    const page = await bea.get(`/settings/webhooks/${hookId}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('3 deliveries were withheld');
    const own = all.find((d) => d.status === 'failure')?.id as string;
    expect(page.text).to.include(own);
    for (const withheld of all.filter((d) => d.status === 'skipped_visibility')) expect(page.text).not.to.include(withheld.id);
    expect(page.text).not.to.include('skipped_visibility');
    // Not redeliverable, even when asked directly: to a member it does not exist.
    const skipped = all.find((d) => d.status === 'skipped_visibility')?.id as string;
    const csrf = SettingsClient.csrf(page.text);
    const refused = await bea.post(`/settings/webhooks/${hookId}/deliveries/${skipped}/redeliver`, { _csrf: csrf });
    expect(refused.status).to.equal(404);
  });

  it('is a table of statuses in words; Retry now makes a waiting delivery due at once; Redeliver only where it can change the outcome', async () => {
    expect((await entry(beaToken(), 9)).status).to.equal(200);
    await server.services.sender.tick();
    const [waiting] = server.services.webhooks.deliveries(OPERATOR, hookId);
    expect(waiting).to.include({ status: 'failure', attempt: 1, nextAttemptAt: new Date(server.clock.now() + 30_000).toISOString() });
    const page = await bea.get(`/settings/webhooks/${hookId}`);
    const said = page.text.replace(/\s+/g, ' ');
    expect(said).to.include('<table class="rows deliveries" aria-label="Deliveries">');
    const next = new Date(server.clock.now() + 30_000).toISOString();
    expect(said).to.include(
      `<span class="badge bad">failed</span> next try <time datetime="${next}" title="${next.slice(0, 10)} ${next.slice(11, 19)} UTC" data-local >${next.slice(0, 10)} ${next.slice(11, 19)} UTC</time`,
    );
    expect(said).to.include(`action="/settings/webhooks/${hookId}/deliveries/${waiting?.id}/retry"`);
    expect(said).not.to.include('/redeliver"');
    expect(said).to.include('at 15 the subscription is disabled');
    const retried = await bea.post(`/settings/webhooks/${hookId}/deliveries/${waiting?.id}/retry`, {
      _csrf: SettingsClient.csrf(page.text),
    });
    expect([retried.status, retried.headers.get('location')]).to.deep.equal([303, `/settings/webhooks/${hookId}?done=retried`]);
    // Due at once: still waiting for the sender, or (the answer leaves after the write is on disk,
    // by which time the sender may have been woken) already tried a second time.
    const due = server.services.webhooks.deliveries(OPERATOR, hookId)[0];
    if (due?.attempt === 1) expect(due.nextAttemptAt).to.equal(new Date(server.clock.now()).toISOString());
    else expect(due).to.include({ attempt: 2, status: 'failure' });
    // Given up after its attempts: Redeliver, no Retry now.
    for (let i = 0; i < 6; i++) {
      server.clock.advance(6 * 3_600_000);
      await server.services.sender.tick();
    }
    const final = server.services.webhooks.deliveries(OPERATOR, hookId)[0];
    expect(final).to.include({ status: 'abandoned', attempt: 6, nextAttemptAt: null });
    await bea.signIn(beaEmail, PASSWORD); // a day later: the session ended
    const later = await bea.get(`/settings/webhooks/${hookId}`);
    const after = later.text.replace(/\s+/g, ' ');
    expect(after).to.include('<span class="badge bad">given up</span> after 6 attempts');
    expect(after).to.include(`/deliveries/${final?.id}/redeliver"`);
    expect(after).not.to.include('/retry"');
    const late = await bea.post(`/settings/webhooks/${hookId}/deliveries/${final?.id}/retry`, { _csrf: SettingsClient.csrf(later.text) });
    expect(late.status).to.equal(409);
    expect(late.text).to.include('This delivery is not waiting for a retry');
  });

  it('lists test pings in the log, marked and not counted toward auto-disable', async () => {
    const page = await bea.get(`/settings/webhooks/${hookId}`);
    expect(page.text).to.include('No deliveries yet.');
    const pinged = await bea.post(`/settings/webhooks/${hookId}/ping`, { _csrf: SettingsClient.csrf(page.text) });
    const shown = (await bea.follow(pinged, `/settings/webhooks/${hookId}`)).text.replace(/\s+/g, ' ');
    expect(shown).to.include('failed. The receiver refused the connection');
    expect(shown).not.to.include('No deliveries yet.');
    expect(shown).to.match(/<tr class="ping"> <td data-label="Event"><code>ping<\/code> <span class="badge">test ping<\/span>/);
    expect(shown).to.include('<span class="badge bad">failed</span> <span class="hint">not counted toward auto-disable</span>');
    expect(server.services.webhooks.get(OPERATOR, hookId).consecutiveFailures).to.equal(0);
  });

  it('offers all events, each described in a line', async () => {
    const form = await bea.get('/settings/webhooks');
    expect(form.text.replace(/\s+/g, ' ')).to.include(
      '<code>invoice.status_changed</code> <span class="hint">An invoice moves between draft, sent, paid and void',
    );
    const made = await bea.submit('/settings/webhooks', '/settings/webhooks', { url: 'https://127.0.0.1:9/all', events: ['all'] });
    expect(made.status).to.equal(303);
    const hook = server.services.webhooks.list(OPERATOR, server.workspaceId).find((w) => w.url === 'https://127.0.0.1:9/all');
    expect(hook?.events).to.deep.equal([
      'entry.started',
      'entry.stopped',
      'entry.created',
      'entry.updated',
      'entry.deleted',
      'invoice.created',
      'invoice.status_changed',
    ]);
  });

  it('pages the log with opaque, tamper-evident links that carry no counter or time', async () => {
    const token = beaToken();
    for (let i = 0; i < 30; i++) expect((await entry(token, i % 24)).status).to.equal(200);
    const first = await bea.get(`/settings/webhooks/${hookId}`);
    const link = /href="(\/settings\/webhooks\/[^"?]+\?after=([^"]+))">Older deliveries</.exec(first.text);
    expect(link, 'an Older deliveries link').to.not.equal(null);
    const cursor = decodeURIComponent((link as RegExpExecArray)[2] as string);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursor).not.to.match(/\d{10,}/);
    const second = await bea.get((link as RegExpExecArray)[1] as string);
    expect(second.status).to.equal(200);
    expect([...second.text.matchAll(/<code>entry\.created<\/code>/g)]).to.have.length(5);
    const altered = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
    const refused = await bea.get(`/settings/webhooks/${hookId}?after=${encodeURIComponent(altered)}`);
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('cursor: is not a cursor issued by this server, or was altered');
  });

  it('shows only its own notices for ?done= (not a property every object has)', async () => {
    await bea.get('/settings/webhooks'); // takes the notice of the creation
    for (const done of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const path of ['/settings/webhooks', `/settings/webhooks/${hookId}`]) {
        const page = await bea.get(`${path}?done=${done}`);
        expect(page.status, `${path}?done=${done}`).to.equal(200);
        expect(page.text, `${path}?done=${done}`).not.to.match(/class="notice ok"|function|\[object/);
      }
    }
    const enabled = await bea.get(`/settings/webhooks/${hookId}?done=enabled`);
    expect(enabled.text).to.include('The subscription is enabled again');
  });
});
