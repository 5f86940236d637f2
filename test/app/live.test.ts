import { expect } from 'chai';
import { OPERATOR } from '../../src/principal.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, SettingsClient } from '../settings/client.js';

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
  return {
    response,
    messages,
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

  it('a page reconnecting with Last-Event-ID is told to read again; streams are bounded per member, with a clear refusal; no session, no stream', async () => {
    server = await startTestServer({ env: { APP_STREAMS_PER_MEMBER: '2' } });
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const first = await openStream(owner);
    await settle();
    const seen = Number(first.messages[0]?.id);
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
      expect(await refused.text()).to.equal(
        'You have 2 pages open with live updates, the most this server allows (APP_STREAMS_PER_MEMBER). Close one and reload.',
      );
      const anonymous = await fetch(`${server.url}/app/events`);
      expect([anonymous.status, await anonymous.text()]).to.deep.equal([401, 'Sign in again.']);
    } finally {
      await again.close();
      await third.close();
    }
  });
});
