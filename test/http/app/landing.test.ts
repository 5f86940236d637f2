import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** Where a person lands: `/`, the sign-in that returns to the page asked for (never elsewhere), setup links on the week. */
describe('web pages: where a person lands', () => {
  // One server for the file; each test has a fresh workspace and owner (with a password) in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
  });

  const signIn = async (client: SettingsClient, next: string | null) => {
    const page = await client.get(`/settings/sign-in${next === null ? '' : `?next=${encodeURIComponent(next)}`}`);
    expect(page.status).to.equal(200);
    const hidden = /<input type="hidden" name="next" value="([^"]*)"/.exec(page.text)?.[1] ?? null;
    const form: Record<string, string> = { _csrf: SettingsClient.csrf(page.text), email: server.ownerEmail, password: PASSWORD };
    if (next !== null) form.next = next;
    const posted = await client.post('/settings/sign-in', form);
    return { hidden, status: posted.status, location: posted.headers.get('location') };
  };

  it('a signed-out browser asking for a page goes to the sign-in, which returns it there afterwards', async () => {
    const client = new SettingsClient(server);
    const asked = '/app/reports?from=2026-11-02&to=2026-11-08&groupBy=client';
    const away = await client.get(asked);
    expect([away.status, away.headers.get('location')]).to.deep.equal([303, `/settings/sign-in?next=${encodeURIComponent(asked)}`]);
    const settingsAway = await client.get('/settings/members');
    expect(settingsAway.headers.get('location')).to.equal(`/settings/sign-in?next=${encodeURIComponent('/settings/members')}`);
    const back = await signIn(client, asked);
    expect(back).to.deep.equal({ hidden: asked.replace(/&/g, '&amp;'), status: 303, location: asked });
    expect((await client.get(asked)).status).to.equal(200);
    // Signed in already: the sign-in page sends the person on.
    const again = await client.get(`/settings/sign-in?next=${encodeURIComponent('/app/catalog')}`);
    expect([again.status, again.headers.get('location')]).to.deep.equal([303, '/app/catalog']);
  });

  it('never returns anywhere but these pages: other origins, schemes, //host, backslashes and the sign-in itself land on the week', async () => {
    for (const next of [
      'https://evil.example/app/week',
      '//evil.example/app/week',
      '/\\evil.example',
      'javascript:alert(1)',
      '/api/v1/me',
      '/settings/sign-out',
      '/app/week\r\nSet-Cookie: x=1',
      '',
    ]) {
      const client = new SettingsClient(server);
      const landed = await signIn(client, next);
      expect([landed.status, landed.location], JSON.stringify(next)).to.deep.equal([303, '/app/week']);
      expect(landed.hidden, JSON.stringify(next)).to.equal(null);
    }
  });

  it('`/` sends a signed-in browser to its week and others to the sign-in; an API client asking for JSON gets the problem document', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    const anonymous = new SettingsClient(server);
    const out = await anonymous.get('/', html);
    expect([out.status, out.headers.get('location')]).to.deep.equal([303, '/settings/sign-in']);
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const home = await owner.get('/', html);
    expect([home.status, home.headers.get('location')]).to.deep.equal([303, '/app/week']);
    const api = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } });
    expect(api.status).to.equal(404);
    expect(api.headers.get('content-type')).to.equal('application/problem+json');
    expect(((await api.json()) as { type: string }).type).to.match(/\/problems\/no-such-route$/);
    const bare = await fetch(`${server.url}/`);
    expect([bare.status, bare.headers.get('content-type')]).to.deep.equal([404, 'application/problem+json']);
  });

  it('a setup link lands on the week with a one-line welcome, once', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const client = new SettingsClient(server);
    await client.setUp(bea.id, PASSWORD);
    const week = await client.get('/app/week?welcome=1');
    expect(week.status).to.equal(200);
    expect(week.text).to.include('Welcome! Your password is set. Start a timer, or add the time you worked.');
    expect((await client.get('/app/week')).text).not.to.include('Welcome!');
  });

  it('app errors are pages: an unknown page and a hidden entry answer HTML with the API’s status, and a link home', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const missing = await owner.get('/app/nowhere');
    expect([missing.status, missing.headers.get('content-type')]).to.deep.equal([404, 'text/html; charset=utf-8']);
    expect(missing.text).to.include('There is no such page.').and.include('href="/app/week"');
    const page = await owner.get('/app/week');
    const gone = await owner.post('/app/entries/ent_nothere/delete', { _csrf: SettingsClient.csrf(page.text), week: '' });
    expect([gone.status, gone.headers.get('content-type')]).to.deep.equal([404, 'text/html; charset=utf-8']);
    expect(gone.text).to.include('It is not here: it does not exist (any more), or it is not yours to see.');
    expect(gone.text).not.to.include('ent_nothere');
  });
});
