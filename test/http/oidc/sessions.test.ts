import { expect } from 'chai';
import type { JWK } from 'jose';
import { OPERATOR } from '../../../src/principal.js';
import { CookieBrowser } from '../../helpers/oidc-provider.js';
import { expectProblem } from '../../helpers/server.js';
import { SettingsClient } from '../../helpers/settings-client.js';
import { noticeOf, type OidcFixture, oidcFixture, PROVIDER_NAME, rows, signedIn, visit } from '../../helpers/oidc-fixture.js';

const PASSWORD = 'correct horse battery staple';
const SIXTEEN_MINUTES = 16 * 60_000;

/** Signs out at the provider (its own sign-out page, confirmed), as the person would there. */
async function signOutAtProvider(fixture: OidcFixture, browser: CookieBrowser): Promise<void> {
  const page = await browser.request(`${fixture.provider.issuer}/session/end`);
  const html = await page.text();
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  expect(xsrf && action, html).to.be.a('string');
  const done = await browser.request(new URL(action as string, fixture.provider.issuer).toString(), {
    form: { xsrf: xsrf as string, logout: 'yes' },
  });
  expect(done.status).to.be.oneOf([200, 303]);
}

const backchannel = (fixture: OidcFixture, token: string) =>
  fetch(`${fixture.server.url}/settings/oidc/backchannel-logout`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }).toString(),
  });

/**
 * A sign-in through the provider lasts no longer than the provider's session: back-channel logout
 * ends it at once, a refresh every 15 minutes ends it when the provider refuses, and signing out
 * here signs out there. A provider that is down ends nothing.
 */
describe('sign-in through the identity provider: sessions end with the provider’s', function () {
  this.timeout(60_000);
  let fixture: OidcFixture;

  before(async () => {
    fixture = await oidcFixture({
      users: {
        ada: { email: 'owner@localhost', email_verified: true },
        ben: { email: 'ben@example.org', email_verified: true, name: 'Ben' },
        cy: { email: 'cy@example.org', email_verified: true, name: 'Cy' },
      },
    });
    for (const [name, email] of [
      ['Ben', 'ben@example.org'],
      ['Cy', 'cy@example.org'],
    ]) {
      const user = fixture.server.services.accounts.createUser(OPERATOR, { name: name as string, email: email as string });
      fixture.server.services.accounts.addMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: user.id });
    }
    await fixture.server.services.sessions.setPassword(OPERATOR, fixture.server.ownerId, PASSWORD);
  });
  after(() => fixture.close());

  it('ends the sessions a back-channel logout names at once; the provider’s post needs no session or form token', async () => {
    const ada = await signedIn(fixture, 'ada');
    const ben = await signedIn(fixture, 'ben');
    await signOutAtProvider(fixture, ada);
    // The provider's post was answered 200 before its sign-out page: the session is gone now.
    expect(fixture.provider.logoutsSent).to.deep.equal([{ status: 200 }]);
    const week = await visit(fixture, ada, '/app/week');
    expect(week.status).to.equal(303);
    expect(week.location).to.equal('/settings/sign-in');
    // Ben's session, of another provider session, goes on.
    expect((await visit(fixture, ben, '/app/week')).status).to.equal(200);
  });

  it('a logout at the provider ends sessions, not API tokens: the leaver’s token works until an owner removes them on the Members page (L3, as docs/operations.md says)', async () => {
    const { server } = fixture;
    const cyId = server.running.database.sqlite.prepare("select id from users where email = 'cy@example.org'").pluck().get() as string;
    // Signed in through the provider first (its first binding ends tokens of an unproved address: H1), then a token.
    const cy = await signedIn(fixture, 'cy');
    const minted = server.services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: cyId,
      name: 'script',
      scopes: ['entries:read'],
    });
    const me = () => server.request('GET', '/api/v1/me', { token: minted.token });
    expect((await me()).status).to.equal(200);
    await signOutAtProvider(fixture, cy);
    expect((await visit(fixture, cy, '/app/week')).status).to.equal(303);
    // The token is no session: it still answers (documented: the provider knows nothing of it).
    expect((await me()).status).to.equal(200);
    // The owner ends it: Remove on the Members page stops the member's tokens here at once.
    const ada = await signedIn(fixture, 'ada');
    const members = await visit(fixture, ada, '/settings/members');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(members.text)?.[1] as string;
    const removed = await ada.request(`${server.url}/settings/members/${cyId}/remove`, { form: { _csrf: csrf } });
    expect(removed.status).to.equal(303);
    expectProblem(await me(), 401, 'invalid-token', server.config.problemsBase, '/api/v1/me');
  });

  it('refuses a logout token that fails a check, and ends nothing', async () => {
    const ben = await signedIn(fixture, 'ben');
    const { sid } = (
      rows(fixture.server, "select sid from oidc_sessions where subject = 'ben' order by created_at desc limit 1") as Array<{ sid: string }>
    )[0]!;
    const { provider } = fixture;
    const key = provider.keys[0] as JWK;
    const stranger = await provider.newKey();
    const refused = [
      await provider.logoutToken('timetrack', { sid }, { ...stranger, kid: key.kid }), // another key under the provider's kid
      await provider.logoutToken('another-client', { sid }), // another audience
      await provider.logoutToken('timetrack', { sid, nonce: 'n' }), // an ID token, not a logout token
      await provider.logoutToken('timetrack', { sid, events: { 'http://schemas.openid.net/event/other': {} } }),
      await provider.logoutToken('timetrack', {}), // neither sub nor sid
      'not.a.jwt',
    ];
    for (const token of refused) {
      const answer = await backchannel(fixture, token);
      expect(answer.status, token).to.equal(400);
      expect(answer.headers.get('cache-control')).to.equal('no-store');
      expect(await answer.json()).to.deep.equal({ error: 'invalid_request', error_description: 'The logout token was not accepted.' });
    }
    expect((await visit(fixture, ben, '/app/week')).status).to.equal(200);
    // The right token, by sub, ends it; the same token again is refused (its jti was seen).
    const token = await provider.logoutToken('timetrack', { sub: 'ben' });
    expect((await backchannel(fixture, token)).status).to.equal(200);
    expect((await visit(fixture, ben, '/app/week')).status).to.equal(303);
    expect((await backchannel(fixture, token)).status).to.equal(400);
  });

  it('confirms a session with the provider every 15 minutes: a refresh it refuses (the person left) signs them out, saying so', async () => {
    const ben = await signedIn(fixture, 'ben');
    const [before] = rows(
      fixture.server,
      "select refresh_token as rt, checked_at as at from oidc_sessions where subject = 'ben' order by created_at desc limit 1",
    ) as Array<{
      rt: string;
      at: number;
    }>;
    // Stored sealed, never as the provider's token.
    expect(before!.rt)
      .to.be.a('string')
      .and.not.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    fixture.server.clock.advance(SIXTEEN_MINUTES);
    expect((await visit(fixture, ben, '/app/week')).status).to.equal(200);
    const [after] = rows(
      fixture.server,
      "select refresh_token as rt, checked_at as at from oidc_sessions where subject = 'ben' order by created_at desc limit 1",
    ) as Array<{
      rt: string;
      at: number;
    }>;
    expect(after!.at).to.equal(fixture.server.clock.now());
    expect(after!.rt).to.not.equal(before!.rt); // the provider rotated it
    // Within the 15 minutes no refresh is made, however many pages.
    fixture.provider.disabled.add('ben');
    fixture.server.clock.advance(14 * 60_000);
    expect((await visit(fixture, ben, '/app/week')).status).to.equal(200);
    fixture.server.clock.advance(2 * 60_000);
    const out = await visit(fixture, ben, '/app/reports');
    expect(out.status).to.equal(303);
    expect(out.location).to.equal('/settings/sign-in?provider=ended');
    const page = await visit(fixture, ben, out.location as string);
    expect(noticeOf(page.text)).to.equal(`Your sign-in at ${PROVIDER_NAME} has ended, so you were signed out here too. Sign in again.`);
    fixture.provider.disabled.delete('ben');
  });

  it('keeps password sign-in and open sessions working while the provider is down, and says so on the sign-in page', async () => {
    const ada = await signedIn(fixture, 'ada');
    await fixture.provider.stop();
    try {
      fixture.server.clock.advance(SIXTEEN_MINUTES);
      // The check cannot reach the provider: the session goes on (and is tried again a minute later).
      expect((await visit(fixture, ada, '/app/week')).status).to.equal(200);
      expect((await visit(fixture, ada, '/app/week')).status).to.equal(200);
      const someone = new SettingsClient(fixture.server);
      const page = await someone.get('/settings/sign-in');
      expect(page.status).to.equal(200);
      expect(noticeOf(page.text)).to.equal(
        `${PROVIDER_NAME} cannot be reached right now, so signing in with it does not work; if you are signed in already, you stay signed in. Sign in with your email and password instead.`,
      );
      expect(page.text).to.not.include('Sign in with Company SSO</a>');
      const start = await someone.get('/settings/oidc/start');
      expect(start.status).to.equal(303);
      expect(start.headers.get('location')).to.equal('/settings/sign-in?provider=unavailable');
      const signedInWithPassword = await someone.signIn('owner@localhost', PASSWORD);
      expect(signedInWithPassword.status, signedInWithPassword.text).to.equal(303);
      expect((await someone.get('/app/week')).status).to.equal(200);
    } finally {
      await fixture.provider.restart();
    }
    // Up again (looked at again after 30 s): the button is back.
    fixture.server.clock.advance(31_000);
    expect((await visit(fixture, new CookieBrowser(), '/settings/sign-in')).text).to.include(`Sign in with ${PROVIDER_NAME}</a>`);
  });

  it('signing out here goes on to the provider’s sign-out, which returns to the sign-in page', async () => {
    const ada = await signedIn(fixture, 'ada');
    const page = await visit(fixture, ada, '/settings/tokens');
    const out = await ada.request(`${fixture.server.url}/settings/sign-out`, {
      form: { _csrf: SettingsClient.csrf(page.text) },
      headers: { origin: fixture.server.url },
    });
    const html = await out.text();
    expect(out.status, html).to.equal(200);
    const to = /<meta http-equiv="refresh" content="0;url=([^"]+)" \/>/.exec(html)?.[1]?.replace(/&amp;/g, '&');
    const end = new URL(to as string);
    expect(`${end.origin}${end.pathname}`).to.equal(`${fixture.provider.issuer}/session/end`);
    expect(Object.fromEntries(end.searchParams)).to.deep.equal({
      client_id: 'timetrack',
      post_logout_redirect_uri: `${fixture.server.url}/settings/sign-in`,
    });
    expect((await visit(fixture, ada, '/app/week')).status).to.equal(303);
    // A password session signs out here only.
    const owner = new SettingsClient(fixture.server);
    await owner.signIn('owner@localhost', PASSWORD);
    const tokens = await owner.get('/settings/tokens');
    const plain = await owner.post('/settings/sign-out', { _csrf: SettingsClient.csrf(tokens.text) });
    expect(plain.status).to.equal(303);
    expect(plain.headers.get('location')).to.equal('/settings/sign-in');
  });
});

/**
 * A provider that gives no refresh token: the session is confirmed by a silent check (`prompt=none`)
 * that a page navigation starts every 15 minutes; the provider's answer that its session ended
 * (`login_required`) ends the one here. A client without back-channel logout learns of a sign-out
 * there this way.
 */
describe('sign-in through the identity provider: silent checks without refresh tokens', function () {
  this.timeout(60_000);
  let fixture: OidcFixture;

  before(async () => {
    fixture = await oidcFixture({
      refreshTokens: false,
      client: { backchannel_logout_uri: undefined, backchannel_logout_session_required: undefined },
      users: { ada: { email: 'owner@localhost', email_verified: true } },
    });
  });
  after(() => fixture.close());

  /** Follows a page navigation through the silent check and back, as a browser does (the page between the sites followed). */
  async function navigate(browser: CookieBrowser, path: string): Promise<string[]> {
    const trail: string[] = [];
    let url = `${fixture.server.url}${path}`;
    for (let hop = 0; hop < 12; hop += 1) {
      trail.push(url.replace(fixture.server.url, '').replace(fixture.provider.issuer, 'PROVIDER').replace(/\?.*$/, ''));
      const response = await browser.request(url, { headers: { 'sec-fetch-mode': 'navigate' } });
      const location = response.headers.get('location');
      const html = await response.text();
      const refresh = /<meta http-equiv="refresh" content="0;url=([^"]+)" \/>/.exec(html)?.[1];
      if (location) url = new URL(location, url).toString();
      else if (refresh) url = new URL(refresh.replace(/&amp;/g, '&'), url).toString();
      else return trail.concat(String(response.status));
    }
    throw new Error(`no end: ${trail.join(' ')}`);
  }

  it('checks the provider’s session silently after 15 minutes, and ends this one when the provider’s has ended', async () => {
    const browser = await signedIn(fixture, 'ada');
    expect(rows(fixture.server, 'select refresh_token as rt from oidc_sessions')).to.deep.equal([{ rt: null }]);
    fixture.server.clock.advance(SIXTEEN_MINUTES);
    expect(await navigate(browser, '/app/reports')).to.deep.equal([
      '/app/reports',
      '/settings/oidc/start',
      'PROVIDER/auth',
      '/settings/oidc/callback',
      '/app/reports',
      '200',
    ]);
    // Confirmed: no check for the next 15 minutes.
    expect(await navigate(browser, '/app/week')).to.deep.equal(['/app/week', '200']);

    await signOutAtProvider(fixture, browser);
    fixture.server.clock.advance(SIXTEEN_MINUTES);
    expect(await navigate(browser, '/app/week')).to.deep.equal([
      '/app/week',
      '/settings/oidc/start',
      'PROVIDER/auth',
      '/settings/oidc/callback',
      '/settings/sign-in',
      '200',
    ]);
    expect(rows(fixture.server, 'select count(*) as n from oidc_sessions')).to.deep.equal([{ n: 0 }]);
  });
});
