import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** An open live stream of the web app (Server-Sent Events) read as a browser reads it: messages, one at a time. */
async function openStream(client: SettingsClient, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(`${client.server.url}/app/events`, {
    headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; '), ...headers },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const messages: Array<{ event: string; id: string; data: string }> = [];
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const field = (name: string) => [...block.matchAll(new RegExp(`^${name}: ?(.*)$`, 'gm'))].map((m) => m[1]).join('\n');
          if (block.startsWith(':')) continue;
          messages.push({ event: field('event') || 'message', id: field('id') || '', data: field('data') || '' });
        }
      }
    } catch {
      // aborted
    }
  })();
  let ended = false;
  void pump.then(() => {
    ended = true;
  });
  return {
    response,
    messages,
    ended: () => ended,
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('web app: the live stream', () => {
  let server: TestServer;
  afterEach(() => server.close());

  it("tells each open page of the changes its member may see, at send time, without content; never a colleague's to a member without time visibility", async () => {
    server = await startTestServer();
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const beaClient = new SettingsClient(server);
    await beaClient.setUp(bea.id, PASSWORD);
    const beaToken = server.services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      name: 'b',
      scopes: ['entries:write'],
    }).token;

    const ownerStream = await openStream(owner);
    const beaStream = await openStream(beaClient);
    try {
      expect(ownerStream.response.status).to.equal(200);
      expect(ownerStream.response.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
      await settle();
      expect(ownerStream.messages.map((m) => m.event)).to.deep.equal(['hello']);
      // The owner's entry (REST): told to the owner, not to Bea (she may not see colleagues' time).
      const made = await server.request('POST', '/api/v1/entries', {
        json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: 'Secret plan' },
      });
      server.running.live?.poll();
      await settle();
      expect(ownerStream.messages.slice(1)).to.deep.equal([
        {
          event: 'change',
          id: ownerStream.messages[1]?.id,
          data: JSON.stringify({ changes: [{ entity: 'entry', id: made.body.data.id, operation: 'create' }], more: 0 }),
        },
      ]);
      expect(beaStream.messages.map((m) => m.event)).to.deep.equal(['hello']);
      // Bea's own entry: told to her, and to the owner (who sees everyone's time).
      const hers = await server.request('POST', '/api/v1/entries', {
        token: beaToken,
        json: { start: '2026-11-02T10:00:00Z', end: '2026-11-02T11:00:00Z' },
      });
      server.running.live?.poll();
      await settle();
      expect(beaStream.messages.map((m) => [m.event, m.data])).to.deep.equal([
        ['hello', '{}'],
        ['change', JSON.stringify({ changes: [{ entity: 'entry', id: hers.body.data.id, operation: 'create' }], more: 0 })],
      ]);
      expect(ownerStream.messages).to.have.length(3);
      // Decided at send time: once Bea may see colleagues' time, the owner's next change reaches her.
      server.services.accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, canViewOthersTime: true });
      await server.request('DELETE', `/api/v1/entries/${made.body.data.id}`);
      server.running.live?.poll();
      await settle();
      expect(beaStream.messages.at(-1)).to.include({
        event: 'change',
        data: JSON.stringify({ changes: [{ entity: 'entry', id: made.body.data.id, operation: 'delete' }], more: 0 }),
      });
      expect(JSON.stringify(beaStream.messages)).not.to.include('Secret plan');
      // Removed from the workspace: her stream ends at the next change.
      server.services.accounts.removeMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
      await server.request('POST', '/api/v1/entries', { json: { start: '2026-11-02T12:00:00Z', end: '2026-11-02T13:00:00Z' } });
      server.running.live?.poll();
      await settle();
      expect(server.running.live?.count()).to.equal(1);
    } finally {
      await ownerStream.close();
      await beaStream.close();
    }
  });

  it('invoice changes reach exactly who reads invoices (one rule with the pages and the webhooks): not a member who sees money but not colleagues’ time, nor an owner without money visibility', async () => {
    server = await startTestServer();
    const { services, workspaceId } = server;
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const person = async (name: string, flags: { canViewOthersTime: boolean; canViewOthersMoney: boolean; isOwner?: boolean }) => {
      const user = services.accounts.createUser(OPERATOR, { name, email: `${name.toLowerCase()}@example.org` });
      services.accounts.addMember(OPERATOR, { workspaceId, userId: user.id, ...flags });
      const client = new SettingsClient(server);
      await client.setUp(user.id, PASSWORD);
      return openStream(client);
    };
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const streams = {
      owner: await openStream(owner),
      both: await person('Both', { canViewOthersTime: true, canViewOthersMoney: true }),
      moneyOnly: await person('Money', { canViewOthersTime: false, canViewOthersMoney: true }),
      blindOwner: await person('Blind', { canViewOthersTime: true, canViewOthersMoney: false, isOwner: true }),
    };
    try {
      const ownerActor = services.tokens.authenticate(server.ownerToken)!.actor;
      const client = services.catalog.clients.create(ownerActor, { name: 'Acme' });
      const project = services.catalog.projects.create(ownerActor, { name: 'P', clientId: client.id, billable: true, hourlyRate: 100 });
      services.entries.create(ownerActor, {
        projectId: project.id,
        start: '2026-10-05T09:00:00Z',
        end: '2026-10-05T10:00:00Z',
        billable: true,
      });
      server.running.live?.poll();
      await settle();
      for (const stream of Object.values(streams)) stream.messages.length = 0;
      const { id } = services.invoices.create(OPERATOR, {
        workspaceId,
        userId: server.ownerId,
        clientId: client.id,
        from: '2026-10-01',
        to: '2026-10-31',
      });
      server.running.live?.poll();
      await settle();
      const invoiceChanges = (stream: (typeof streams)['owner']) =>
        stream.messages
          .flatMap((m) => (m.event === 'change' ? (JSON.parse(m.data) as { changes: Array<{ entity: string; id: string }> }).changes : []))
          .filter((c) => c.entity === 'invoice')
          .map((c) => c.id);
      expect(invoiceChanges(streams.owner)).to.deep.equal([id]);
      expect(invoiceChanges(streams.both)).to.deep.equal([id]);
      expect(invoiceChanges(streams.moneyOnly)).to.deep.equal([]);
      expect(invoiceChanges(streams.blindOwner)).to.deep.equal([]);
    } finally {
      for (const stream of Object.values(streams)) await stream.close();
    }
  });

  it('a page reconnecting with Last-Event-ID is told to read again; streams are bounded per member, with a clear refusal; no session, no stream', async () => {
    server = await startTestServer({ env: { APP_STREAMS_PER_MEMBER: '2' } });
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const first = await openStream(owner);
    await settle();
    const seen = first.messages[0]?.id ?? '';
    await server.request('POST', '/api/v1/entries', { json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' } });
    server.running.live?.poll();
    await first.close();
    const again = await openStream(owner, { 'last-event-id': String(seen) });
    const third = await openStream(owner);
    const refused = await fetch(`${server.url}/app/events`, {
      headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    try {
      await settle();
      expect(again.messages[0]?.event).to.equal('resync');
      expect(third.messages[0]?.event).to.equal('hello');
      expect(refused.status).to.equal(429);
      expect(await refused.text()).to.equal('You have 2 pages open with live updates, the most this server allows. Close one and reload.');
      const anonymous = await fetch(`${server.url}/app/events`);
      expect([anonymous.status, await anonymous.text()]).to.deep.equal([401, 'Sign in again.']);
    } finally {
      await again.close();
      await third.close();
    }
  });

  it('L1: a stream ends when its session does: signing out, or a password change from another session', async () => {
    server = await startTestServer();
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const laptop = new SettingsClient(server);
    await laptop.setUp(server.ownerId, PASSWORD);
    // setUp ends the account's other sessions: sign the first one in again.
    expect((await owner.signIn('owner@localhost', PASSWORD)).status).to.equal(303);
    const phone = await openStream(owner);
    const desk = await openStream(laptop);
    try {
      await settle();
      expect([phone.response.status, desk.response.status]).to.deep.equal([200, 200]);
      // Signing out on the phone: its stream ends within a second; the laptop's stays.
      const page = await owner.get('/app/week');
      expect((await owner.post('/settings/sign-out', { _csrf: SettingsClient.csrf(page.text) })).status).to.equal(303);
      await new Promise((r) => setTimeout(r, 1_100));
      server.running.live?.poll();
      await settle();
      expect([phone.ended(), desk.ended()]).to.deep.equal([true, false]);
      // A password change in another session ends the laptop's session, and so its stream.
      await server.services.sessions.setPassword(OPERATOR, server.ownerId, 'another long password');
      await new Promise((r) => setTimeout(r, 1_100));
      server.running.live?.poll();
      await settle();
      expect(desk.ended()).to.equal(true);
    } finally {
      await phone.close();
      await desk.close();
    }
  });

  it('L2: one workspace holds at most APP_STREAMS_PER_WORKSPACE streams, so one owner cannot take the server’s budget', async () => {
    server = await startTestServer({ env: { APP_STREAMS_PER_WORKSPACE: '2' } });
    const clients: SettingsClient[] = [];
    for (const [i, email] of ['a@example.org', 'b@example.org', 'c@example.org'].entries()) {
      const user = server.services.accounts.createUser(OPERATOR, { name: `M${i}`, email });
      server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: user.id });
      const client = new SettingsClient(server);
      await client.setUp(user.id, PASSWORD);
      clients.push(client);
    }
    const first = await openStream(clients[0]!);
    const second = await openStream(clients[1]!);
    try {
      const third = await fetch(`${server.url}/app/events`, {
        headers: { cookie: [...clients[2]!.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      expect(third.status).to.equal(429);
      expect(await third.text()).to.equal('Your workspace has as many live pages open as this server allows it. Reload later.');
      // Another workspace's member still gets one.
      const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Other' });
      const dee = server.services.accounts.createUser(OPERATOR, { name: 'Dee', email: 'dee@example.org' });
      server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: dee.id });
      const deeClient = new SettingsClient(server);
      await deeClient.setUp(dee.id, PASSWORD, other.id);
      const elsewhere = await openStream(deeClient);
      expect(elsewhere.response.status).to.equal(200);
      await elsewhere.close();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('L3: the first stream after an idle spell replays nothing from before it; its ids count its own workspace only, opaquely', async () => {
    server = await startTestServer();
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Other' });
    const stranger = server.services.accounts.createUser(OPERATOR, { name: 'Stranger', email: 'stranger@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: stranger.id });
    const strangerToken = server.services.tokens.create(OPERATOR, {
      workspaceId: other.id,
      userId: stranger.id,
      name: 's',
      scopes: ['entries:write'],
    }).token;
    // Writes while nobody listens.
    for (let i = 0; i < 30; i++)
      await server.request('POST', '/api/v1/entries', { json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' } });
    const stream = await openStream(owner);
    try {
      server.running.live?.poll();
      await settle();
      expect(stream.messages.map((m) => m.event)).to.deep.equal(['hello']);
      const [epoch, count] = (stream.messages[0]?.id ?? '').split('.');
      expect(epoch).to.match(/^[0-9a-f]{12}$/);
      expect(count).to.equal('0');
      // Another workspace's writes move nothing here.
      for (let i = 0; i < 5; i++)
        await server.request('POST', '/api/v1/entries', {
          token: strangerToken,
          json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' },
        });
      await server.request('POST', '/api/v1/entries', { json: { start: '2026-11-03T08:00:00Z', end: '2026-11-03T09:00:00Z' } });
      server.running.live?.poll();
      await settle();
      expect(stream.messages.map((m) => [m.event, m.id])).to.deep.equal([
        ['hello', `${epoch}.0`],
        ['change', `${epoch}.1`],
      ]);
    } finally {
      await stream.close();
    }
  });
});
