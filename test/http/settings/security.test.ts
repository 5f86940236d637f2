import { OPERATOR } from '../../../src/principal.js';
import { expect } from 'chai';
import { PAGES_CSP as SETTINGS_CSP } from '../../../src/web/session/csp.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The settings page's security promises, over real HTTP against the real server: cookie flags,
 * headers, CSRF, the separation of cookies and bearer tokens, sessions re-checked per request,
 * sign-in limits, one-time setup links, and secrets kept out of the log.
 */
describe('settings page: security', () => {
  // Webhook targets stay on loopback (never contacted here: no event is written).
  const env = { TRUST_PROXY: 'loopback', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  // One server for the file; each test has a fresh workspace and owner in it, at the start instant.
  // Sign-in limits count per account and address: each test's owner is its own account and each
  // test that locks an address uses its own; 127.0.0.1 sees at most 7 failures in all (its limit is 20).
  let shared: TestServer;
  let server: FreshWorkspace;
  before(async () => {
    shared = await startTestServer({ env });
  });
  after(() => shared.close());
  beforeEach(() => {
    server = freshWorkspace(shared);
  });

  /** A second member of the test's workspace (not an owner), with a password. */
  const colleague = async (email = `bea.${Math.random().toString(36).slice(2)}@example.org`) => {
    const user = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: user.id });
    const client = new SettingsClient(server);
    await client.setUp(user.id, PASSWORD);
    return { id: user.id, client };
  };

  it('sets the session cookie HttpOnly, SameSite=Strict, on every path (the settings page and the web app share it); Secure with __Host- over https', async () => {
    const owner = new SettingsClient(server);
    const link = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    const page = await owner.get(`/settings/setup/${link.secret}`);
    const done = await owner.post(`/settings/setup/${link.secret}`, {
      _csrf: SettingsClient.csrf(page.text),
      password: PASSWORD,
      confirm: PASSWORD,
    });
    const session = done.headers.getSetCookie().find((c) => c.startsWith('tt_session='));
    // Path=/: the web app (/app) shares the session with the settings page.
    expect(session).to.match(/^tt_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/);

    // Behind a trusted proxy that terminated TLS.
    const https = new SettingsClient(server, 'https://timetrack.example.org');
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'timetrack.example.org' };
    const signInPage = await https.get('/settings/sign-in', headers);
    const signedIn = await https.post(
      '/settings/sign-in',
      { _csrf: SettingsClient.csrf(signInPage.text), email: server.ownerEmail, password: PASSWORD },
      headers,
    );
    expect(signedIn.status).to.equal(303);
    const secure = signedIn.headers.getSetCookie().find((c) => c.startsWith('__Host-tt_session='));
    expect(secure).to.match(/^__Host-tt_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800; Secure$/);
  });

  it('answers every page with the security headers, its own style sheet and script only, and no inline script or style', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    for (const path of [
      '/settings/sign-in',
      '/settings/tokens',
      '/settings/webhooks',
      '/settings/members',
      '/settings/workspace',
      '/settings/nowhere',
    ]) {
      const page = await owner.get(path);
      expect(page.status, path).to.equal(path === '/settings/nowhere' ? 404 : path === '/settings/sign-in' ? 303 : 200);
      expect(page.headers.get('content-security-policy'), path).to.equal(SETTINGS_CSP);
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.headers.get('referrer-policy')).to.equal('same-origin');
      expect(page.text).not.to.match(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    }
    expect(SETTINGS_CSP).to.include("frame-ancestors 'none'").and.include("script-src 'self'").and.not.include('unsafe');
    const tokens = await owner.get('/settings/tokens');
    for (const asset of tokens.text.matchAll(/(?:href|src)="(\/settings\/assets\/[^"]+)"/g)) {
      const served = await owner.get(asset[1] as string);
      expect(served.status).to.equal(200);
      const type = { css: /^text\/css/, js: /^(text|application)\/javascript/, svg: /^image\/svg\+xml/ }[
        asset[1]?.split('.').pop() as 'css'
      ];
      expect(served.headers.get('content-type')).to.match(type);
      expect(served.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    }
  });

  it("refuses a form post without the CSRF token, with another session's token, or from another origin, and changes nothing", async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const bea = await colleague();
    const before = server.services.tokens.list(OPERATOR, server.workspaceId).length;
    const missing = await owner.post('/settings/tokens', { name: 'No token', scopes: 'entries:read' });
    expect(missing.status).to.equal(403);
    expect(missing.text).to.include('The form was out of date or came from another site');
    const beaPage = await bea.client.get('/settings/tokens');
    const crossed = await owner.post('/settings/tokens', {
      _csrf: SettingsClient.csrf(beaPage.text),
      name: 'Crossed',
      scopes: 'entries:read',
    });
    expect(crossed.status).to.equal(403);
    const ownPage = await owner.get('/settings/tokens');
    const foreign = await owner.post(
      '/settings/tokens',
      { _csrf: SettingsClient.csrf(ownPage.text), name: 'Foreign', scopes: 'entries:read' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).to.equal(403);
    // Before sign-in the form cookie stands in for the session: a post without it is refused.
    const anonymous = new SettingsClient(server);
    const noCookie = await anonymous.post('/settings/sign-in', { _csrf: 'x'.repeat(43), email: server.ownerEmail, password: PASSWORD });
    expect(noCookie.status).to.equal(403);
    expect(server.services.tokens.list(OPERATOR, server.workspaceId)).to.have.length(before);
    // The same post with the page's token works.
    const ok = await owner.post('/settings/tokens', { _csrf: SettingsClient.csrf(ownPage.text), name: 'Fine', scopes: 'entries:read' });
    expect(ok.status).to.equal(303);
    // `Origin: null` with a session is foreign (this site's pages send their origin): refused even with the token.
    const page = await owner.get('/settings/tokens');
    const nullOrigin = await owner.post(
      '/settings/tokens',
      { _csrf: SettingsClient.csrf(page.text), name: 'Null origin', scopes: 'entries:read' },
      { origin: 'null' },
    );
    expect(nullOrigin.status).to.equal(403);
    const nullNoToken = await owner.post('/settings/tokens', { name: 'Null, no token', scopes: 'entries:read' }, { origin: 'null' });
    expect(nullNoToken.status).to.equal(403);
    expect(server.services.tokens.list(OPERATOR, server.workspaceId)).to.have.length(before + 1);
  });

  it('M1: a multipart post is accepted only by the upload, which reads its token itself; elsewhere it changes nothing', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const bea = await colleague();
    const cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const multipart = (path: string, fields: Record<string, string>, origin: string | null = server.url) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      return fetch(`${server.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, ...(origin === null ? {} : { origin }) },
        body: form,
      });
    };
    // Without a token (as `curl -F x=y` with the cookie): remove a member, clear flags, erase the business profile.
    const removed = await multipart(`/settings/members/${bea.id}/remove`, { x: 'y' });
    expect(removed.status).to.equal(403);
    const flags = await multipart(`/settings/members/${server.ownerId}`, { x: 'y' });
    expect(flags.status).to.equal(403);
    const profile = await multipart('/settings/workspace/profile', { x: 'y' });
    expect(profile.status).to.equal(403);
    // Even with the session's token in the multipart body: only the upload reads one.
    const page = await owner.get('/settings/members');
    const withToken = await multipart(`/settings/members/${bea.id}/remove`, { _csrf: SettingsClient.csrf(page.text) });
    expect(withToken.status).to.equal(403);
    // `Origin: null` (another port of this host under no-referrer) with the cookie: refused, even at the upload.
    const upload = await multipart('/settings/import', { _csrf: SettingsClient.csrf(page.text) }, 'null');
    expect(upload.status).to.equal(403);
    expect(server.services.accounts.listMembers(OPERATOR, server.workspaceId).map((m) => m.userId)).to.include(bea.id);
    expect(server.services.accounts.getMember(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId })).to.include({
      isOwner: true,
      canViewOthersTime: true,
    });
  });

  it('L5: an oversized form, too many fields or a foreign charset answer 413/400/415 pages, never a 500; out-of-range weeks are 400', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const page = await owner.get('/app/week');
    const csrf = SettingsClient.csrf(page.text);
    const big = await owner.post('/app/entries', { _csrf: csrf, description: 'x'.repeat(70_000) });
    expect([big.status, big.headers.get('content-type')]).to.deep.equal([413, 'text/html; charset=utf-8']);
    expect(big.text).to.include('The form was larger than this page accepts.');
    const many: Record<string, string> = { _csrf: csrf };
    for (let i = 0; i < 250; i++) many[`f${i}`] = 'x';
    const tooMany = await owner.post('/app/entries', many);
    expect(tooMany.status).to.equal(413);
    const ebcdic = await fetch(`${server.url}/app/entries`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=ebcdic', origin: server.url },
      body: 'a=b',
    });
    expect(ebcdic.status).to.equal(415);
    expect(await ebcdic.text()).to.include('an encoding this page does not read');
    for (const date of ['0000-01-01', '9999-12-31']) {
      const week = await owner.get(`/app/week?date=${date}`);
      expect(week.status, date).to.equal(400);
      expect(week.text).to.include(`There is no week of ${date} here: choose a day from 1900 to 9998.`);
    }
    expect(server.logLines.filter((line) => line.includes('"level":"error"'))).to.deep.equal([]);
  });

  it("never lets one member see, revoke or change another's tokens and webhooks", async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const bea = await colleague();
    const beaToken = server.services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      name: 'Bea script',
      scopes: ['entries:read'],
    });
    const hook = await server.services.webhooks.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      url: 'http://127.0.0.1:9/hook',
      events: ['entry.created'],
    });
    const ownerTokens = await owner.get('/settings/tokens');
    expect(ownerTokens.text).not.to.include('Bea script');
    const revoke = await owner.submit('/settings/tokens', `/settings/tokens/${beaToken.id}/revoke`, {});
    expect(revoke.status).to.equal(404);
    expect(server.services.tokens.list(OPERATOR, server.workspaceId).find((t) => t.userId === bea.id)?.revokedAt).to.equal(null);
    expect((await owner.get(`/settings/webhooks/${hook.id}`)).status).to.equal(404);
    expect((await owner.submit('/settings/webhooks', `/settings/webhooks/${hook.id}/delete`, {})).status).to.equal(404);
    expect(server.services.webhooks.list(OPERATOR, server.workspaceId)).to.have.length(1);
    // A member who is no owner does not reach the owners' pages.
    const members = await bea.client.get('/settings/members');
    expect(members.status).to.equal(403);
    expect(members.text).to.include('<h1>Not allowed</h1>');
    expect(members.text).to.include('Only the workspace&#39;s owners can do this. Ask one of them.');
    expect((await bea.client.get('/settings/workspace')).status).to.equal(403);
    expect((await bea.client.submit('/settings/tokens', `/settings/members/${bea.id}`, { isOwner: 'true' })).status).to.equal(403);
    expect(server.services.accounts.getMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id }).isOwner).to.equal(false);
  });

  it('keeps cookies and bearer tokens apart: the API ignores the session cookie, the settings page ignores Authorization', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const api = await server.request('GET', '/api/v1/me', { token: null, headers: { cookie } });
    expect(api.status).to.equal(401);
    expect(api.body.type).to.match(/\/invalid-token$/);
    const page = await fetch(`${server.url}/settings/tokens`, {
      redirect: 'manual',
      headers: { authorization: `Bearer ${server.ownerToken}` },
    });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/settings/sign-in?next=%2Fsettings%2Ftokens');
  });

  it('re-checks the session on every request: removing the member, deleting the account or taking the owner role applies at once', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const bea = await colleague();
    server.services.accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, isOwner: true });
    expect((await bea.client.get('/settings/members')).status).to.equal(200);
    server.services.accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, isOwner: false });
    expect((await bea.client.get('/settings/members')).status).to.equal(403);
    server.services.accounts.removeMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const removed = await bea.client.get('/settings/tokens');
    expect(removed.status).to.equal(303);
    expect(removed.headers.get('location')).to.equal('/settings/sign-in?next=%2Fsettings%2Ftokens');
    expect(removed.headers.getSetCookie().some((c) => /^tt_session=;.*Max-Age=0/.test(c))).to.equal(true);
    const catEmail = `cat.${Math.random().toString(36).slice(2)}@example.org`;
    const cat = await colleague(catEmail);
    server.services.accounts.deleteUser(OPERATOR, cat.id);
    expect((await cat.client.get('/settings/tokens')).status).to.equal(303);
    expect((await cat.client.signIn(catEmail, PASSWORD)).status).to.equal(401);
    // The last owner cannot give up the role.
    const last = await owner.submit('/settings/members', `/settings/members/${server.ownerId}`, {
      canViewOthersTime: 'true',
      hourlyRate: '',
    });
    expect(last.status).to.equal(400);
    expect(last.text).to.include('Owner is the last owner: make another member an owner first.');
  });

  it('limits sign-ins per account and address (5 in 15 minutes) and per address (20), with Retry-After', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const guesser = new SettingsClient(server);
    for (let i = 0; i < 5; i++) expect((await guesser.signIn(server.ownerEmail, `wrong password ${i}`)).status).to.equal(401);
    const locked = await guesser.signIn(server.ownerEmail.toUpperCase(), PASSWORD);
    expect(locked.status).to.equal(429);
    expect(Number(locked.headers.get('retry-after'))).to.be.within(1, 900);
    expect(locked.text).to.include('Too many sign-in attempts');
    server.clock.advance(15 * 60_000 + 1000);
    expect((await guesser.signIn(server.ownerEmail, PASSWORD)).status).to.equal(303);
    // Per address: 20 failures over many accounts lock the address (X-Forwarded-For, trusted here).
    const spray = new SettingsClient(server);
    const from = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 20; i++) {
      const page = await spray.get('/settings/sign-in', from);
      const r = await spray.post(
        '/settings/sign-in',
        { _csrf: SettingsClient.csrf(page.text), email: `nobody${i}@example.org`, password: 'whatever it is' },
        from,
      );
      expect(r.status).to.equal(401);
    }
    const page = await spray.get('/settings/sign-in', from);
    const blocked = await spray.post(
      '/settings/sign-in',
      { _csrf: SettingsClient.csrf(page.text), email: server.ownerEmail, password: PASSWORD },
      from,
    );
    expect(blocked.status).to.equal(429);
  });

  /** Sign-in posts sent at once from one client (one form token), each from the given address. */
  const burst = async (target: TestServer, attempts: Array<{ email: string; password: string; from: string }>) => {
    const client = new SettingsClient(target);
    const csrf = SettingsClient.csrf((await client.get('/settings/sign-in')).text);
    return Promise.all(
      attempts.map((a) =>
        client.post('/settings/sign-in', { _csrf: csrf, email: a.email, password: a.password }, { 'x-forwarded-for': a.from }),
      ),
    );
  };
  const statuses = (responses: Array<{ status: number }>) => {
    const count: Record<number, number> = {};
    for (const r of responses) count[r.status] = (count[r.status] ?? 0) + 1;
    return count;
  };

  it('counts a sign-in before its password is checked: 40 guesses at once get 5 checks, the right password among the rest none', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const guesses = Array.from({ length: 40 }, (_, i) => ({
      email: server.ownerEmail,
      password: i === 39 ? PASSWORD : `wrong password ${i}`,
      from: '203.0.113.20',
    }));
    const answers = await burst(server, guesses);
    expect(statuses(answers)).to.deep.equal({ 401: 5, 429: 35 });
    expect(answers[39]?.status).to.equal(429);
    // 80 guesses at once over 80 accounts from one address: the address's 20.
    const spray = await burst(
      server,
      Array.from({ length: 80 }, (_, i) => ({ email: `nobody${i}@example.org`, password: 'x'.repeat(12), from: '203.0.113.21' })),
    );
    // (The password checks at once are fewer still: some wait their turn, the rest answer 503.)
    const sprayed = statuses(spray);
    expect(sprayed[401]).to.be.within(1, 20);
    expect((sprayed[429] ?? 0) + (sprayed[503] ?? 0)).to.equal(80 - (sprayed[401] ?? 0));
  });

  it('lets the owner sign in from their address while someone else guesses at the account', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const guesses = await burst(
      server,
      Array.from({ length: 8 }, (_, i) => ({ email: server.ownerEmail, password: `wrong ${i} guess`, from: '203.0.113.30' })),
    );
    expect(statuses(guesses)).to.deep.equal({ 401: 5, 429: 3 });
    const again = new SettingsClient(server);
    const page = await again.get('/settings/sign-in', { 'x-forwarded-for': '198.51.100.31' });
    const signedIn = await again.post(
      '/settings/sign-in',
      { _csrf: SettingsClient.csrf(page.text), email: server.ownerEmail, password: PASSWORD },
      { 'x-forwarded-for': '198.51.100.31' },
    );
    expect(signedIn.status).to.equal(303);
  });

  it('checks at most a few passwords at once and answers the rest 503 with Retry-After, counting none of them', async () => {
    // Its own server: production's scrypt cost (a server-wide option), so that hashes take their real time and pile up.
    const own = await startTestServer({ env, productionPasswordCost: true });
    try {
      const answers = await burst(
        own,
        Array.from({ length: 60 }, (_, i) => ({ email: `p${i}@example.org`, password: 'y'.repeat(12), from: `198.51.100.${i + 1}` })),
      );
      const count = statuses(answers);
      expect(Object.keys(count).sort()).to.deep.equal(['401', '503']);
      expect(count[503]).to.be.greaterThan(0);
      for (const busy of answers.filter((a) => a.status === 503)) {
        expect(busy.headers.get('retry-after')).to.equal('1');
        expect(busy.text).to.include('checking many sign-ins at once');
      }
    } finally {
      await own.close();
    }
  });

  it('makes the hash an unknown email is checked against at start, not at the first sign-in', async () => {
    // Its own server: on the file's, another test's sign-in could have made the hash.
    const own = await startTestServer({ env });
    try {
      const deadline = Date.now() + 5000;
      while (!own.services.sessions.signInPrepared() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(own.services.sessions.signInPrepared()).to.equal(true);
    } finally {
      await own.close();
    }
  });

  it('uses a setup link once, refuses an expired or replaced one, and checks the password rules', async () => {
    const owner = new SettingsClient(server);
    const first = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    const second = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    expect((await owner.get(`/settings/setup/${first.secret}`)).status).to.equal(410);
    const page = await owner.get(`/settings/setup/${second.secret}`);
    const short = await owner.post(`/settings/setup/${second.secret}`, {
      _csrf: SettingsClient.csrf(page.text),
      password: 'short',
      confirm: 'short',
    });
    expect(short.status).to.equal(400);
    expect(short.text).to.include('password must be at least 12 characters long.');
    const differ = await owner.post(`/settings/setup/${second.secret}`, {
      _csrf: SettingsClient.csrf(page.text),
      password: PASSWORD,
      confirm: `${PASSWORD}!`,
    });
    expect(differ.status).to.equal(400);
    expect(differ.text).to.include('The two passwords differ.');
    expect(
      (
        await owner.post(`/settings/setup/${second.secret}`, {
          _csrf: SettingsClient.csrf(page.text),
          password: PASSWORD,
          confirm: PASSWORD,
        })
      ).status,
    ).to.equal(303);
    expect((await owner.get(`/settings/setup/${second.secret}`)).status).to.equal(410);
    const late = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    server.clock.advance(72 * 3_600_000 + 1);
    expect((await new SettingsClient(server).get(`/settings/setup/${late.secret}`)).status).to.equal(410);
  });

  it('ends a session after 12 idle hours and at sign-out', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.clock.advance(11 * 3_600_000);
    expect((await owner.get('/settings/tokens')).status).to.equal(200);
    server.clock.advance(12 * 3_600_000 + 1000);
    // The hourly job deletes expired sessions and links; the used setup link is gone with them.
    const rows = () =>
      server.running.database.sqlite
        .prepare('SELECT (SELECT count(*) FROM sessions WHERE user_id = ?) AS s, (SELECT count(*) FROM setup_links WHERE user_id = ?) AS l')
        .get(server.ownerId, server.ownerId);
    expect(rows()).to.deep.equal({ s: 1, l: 1 });
    await server.running.scheduler.tick();
    expect(rows()).to.deep.equal({ s: 0, l: 0 });
    expect((await owner.get('/settings/tokens')).status).to.equal(303);
    expect((await owner.signIn(server.ownerEmail, PASSWORD)).status).to.equal(303);
    const page = await owner.get('/settings/tokens');
    const out = await owner.post('/settings/sign-out', { _csrf: SettingsClient.csrf(page.text) });
    expect(out.status).to.equal(303);
    expect((await owner.get('/settings/tokens')).status).to.equal(303);
  });

  it('never writes a password, token, webhook secret, setup link or session secret to the log', async () => {
    const owner = new SettingsClient(server);
    const link = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    const page = await owner.get(`/settings/setup/${link.secret}`);
    await owner.post(`/settings/setup/${link.secret}`, { _csrf: SettingsClient.csrf(page.text), password: PASSWORD, confirm: PASSWORD });
    const minted = await owner.follow(
      await owner.submit('/settings/tokens', '/settings/tokens', { name: 'Logged?', scopes: ['entries:read'] }),
      '/settings/tokens',
    );
    const token = /tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}/.exec(minted.text)?.[0] as string;
    expect(token).to.be.a('string');
    await new SettingsClient(server).signIn(server.ownerEmail, 'a wrong password guess');
    const secrets = [PASSWORD, token, link.secret, ...owner.jar.values(), 'a wrong password guess'];
    const log = server.logLines.join('\n');
    expect(log).to.include('/settings/setup/…');
    for (const secret of secrets) expect(log, 'a secret in the log').not.to.include(secret);
  });
});
