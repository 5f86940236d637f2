import { expect } from 'chai';
import type { JWK } from 'jose';
import { CookieBrowser } from '../../helpers/oidc-provider.js';
import {
  back,
  noticeOf,
  type OidcFixture,
  oidcFixture,
  PROVIDER_NAME,
  rows,
  signedIn,
  throughProvider,
} from '../../helpers/oidc-fixture.js';

const AGAIN = `The sign-in with ${PROVIDER_NAME} could not be completed (it may have taken too long, or been started in another tab). Start again from the sign-in page.`;

/** The log lines of refused sign-ins since `from`, by their reason. */
const refusals = (fixture: OidcFixture, from: number): string[] =>
  fixture.server.logLines
    .slice(from)
    .map((line) => JSON.parse(line) as { msg: string; reason?: string })
    .filter((line) => line.msg === 'identity provider sign-in refused')
    .map((line) => line.reason ?? '');

/**
 * The way back from the provider lets nobody in unless every check passes: the state the browser
 * took out, a code used once, an ID token for this client, unexpired, signed by a key the provider
 * publishes. Each refusal is a 400 page that says to start again, and no session.
 */
describe('sign-in through the identity provider: the checks of the way back', function () {
  this.timeout(60_000);
  let fixture: OidcFixture;
  let firstKey: JWK;

  before(async () => {
    fixture = await oidcFixture({ users: { ada: { email: 'owner@localhost', email_verified: true } } });
    firstKey = fixture.provider.keys[0] as JWK;
  });
  after(() => fixture.close());
  afterEach(() => {
    fixture.provider.rewriteIdToken = null;
    fixture.provider.publishedKeys = null;
  });

  const refusedWith = async (callback: string, browser: CookieBrowser) => {
    const answer = await back(browser, callback);
    expect(answer.status, answer.text).to.equal(400);
    expect(noticeOf(answer.text)).to.equal(AGAIN);
    expect(browser.cookie(fixture.server.url, 'tt_session')).to.equal(undefined);
    return answer;
  };

  it('refuses a way back whose state is not the one this browser took out, or without the state cookie', async () => {
    const sessions = rows(fixture.server, 'select count(*) as n from sessions');
    const out = await throughProvider(fixture, 'ada');
    const forged = new URL(out.callback);
    forged.searchParams.set('state', 'another-state');
    const from = fixture.server.logLines.length;
    await refusedWith(forged.toString(), out.browser);
    // The real way back, in a browser that never went out (an attacker's link): no state cookie.
    await refusedWith(out.callback, new CookieBrowser());
    // A state cookie changed by a byte does not open. The byte is in the middle: the last
    // characters of base64url carry bits no decoder reads, and "AA" at the end could be what was
    // there (this failed once in a fresh clone's run: the cookie opened and signed in).
    const tampered = new CookieBrowser();
    const middle = Math.floor(out.stateCookie.length / 2);
    const changed = out.stateCookie[middle] === 'A' ? 'B' : 'A';
    tampered.setCookie(fixture.server.url, 'tt_oidc', `${out.stateCookie.slice(0, middle)}${changed}${out.stateCookie.slice(middle + 1)}`);
    await refusedWith(out.callback, tampered);
    expect(refusals(fixture, from)).to.deep.equal(['state does not match', 'no state cookie', 'no state cookie']);
    expect(rows(fixture.server, 'select count(*) as n from sessions')).to.deep.equal(sessions);
  });

  it('refuses a code used twice (the way back replayed with its state cookie)', async () => {
    const out = await throughProvider(fixture, 'ada');
    expect((await back(out.browser, out.callback)).status).to.equal(200);
    const replay = new CookieBrowser();
    replay.setCookie(fixture.server.url, 'tt_oidc', out.stateCookie);
    const from = fixture.server.logLines.length;
    await refusedWith(out.callback, replay);
    expect(refusals(fixture, from)).to.have.length(1);
    expect(refusals(fixture, from)[0]).to.match(/^invalid_grant/);
    // Neither the code nor the state reached the log.
    const params = new URL(out.callback).searchParams;
    expect(fixture.server.logLines.join('\n')).to.not.include(params.get('code') as string);
    expect(fixture.server.logLines.join('\n')).to.not.include(params.get('state') as string);
  });

  it('refuses an ID token for another audience', async () => {
    fixture.provider.rewriteIdToken = (claims) => ({ ...claims, aud: 'another-client' });
    const out = await throughProvider(fixture, 'ada');
    const from = fixture.server.logLines.length;
    await refusedWith(out.callback, out.browser);
    expect(refusals(fixture, from)[0]).to.match(/"aud" \(audience\) claim/);
  });

  it('refuses an expired ID token', async () => {
    const now = Math.floor(Date.now() / 1000);
    fixture.provider.rewriteIdToken = (claims) => ({ ...claims, iat: now - 7200, exp: now - 3600 });
    const out = await throughProvider(fixture, 'ada');
    const from = fixture.server.logLines.length;
    await refusedWith(out.callback, out.browser);
    expect(refusals(fixture, from)[0]).to.match(/"exp" \(expiration time\) claim/);
  });

  it('refuses an ID token signed by a key the provider does not publish', async () => {
    const stranger = await fixture.provider.newKey();
    fixture.provider.publishedKeys = [stranger];
    fixture.server.clock.advance(301_000); // the kept key set is 5 minutes old: read again
    const out = await throughProvider(fixture, 'ada');
    const from = fixture.server.logLines.length;
    await refusedWith(out.callback, out.browser);
    expect(refusals(fixture, from)[0]).to.match(/no applicable keys found/);
  });

  it('follows a key rotation: a new kid is fetched once; a key the provider removed is refused once the kept set is renewed', async () => {
    fixture.server.clock.advance(301_000);
    await signedIn(fixture, 'ada');
    const fetches = fixture.provider.jwksFetches;
    // The provider rotates: a new key signs, the old one is still published.
    const second = await fixture.provider.newKey();
    await fixture.provider.stop();
    await fixture.provider.restart([second, firstKey]);
    // An unknown kid is looked up at most once a minute (a flood of made-up kids cannot make this server hammer the provider).
    fixture.server.clock.advance(61_000);
    await signedIn(fixture, 'ada');
    expect(fixture.provider.jwksFetches).to.equal(fetches + 1);
    await signedIn(fixture, 'ada');
    await signedIn(fixture, 'ada');
    expect(fixture.provider.jwksFetches, 'fetched once').to.equal(fetches + 1);

    // The old key is removed from the published set, but a token signed with it still arrives (a
    // leaked key): refused once the kept set is renewed (at most 5 minutes).
    await fixture.provider.stop();
    await fixture.provider.restart([firstKey, second]);
    fixture.provider.publishedKeys = [second];
    fixture.server.clock.advance(301_000);
    const out = await throughProvider(fixture, 'ada');
    const from = fixture.server.logLines.length;
    await refusedWith(out.callback, out.browser);
    expect(refusals(fixture, from)[0]).to.match(/no applicable keys found/);
    expect(fixture.provider.jwksFetches).to.equal(fetches + 2);
  });
});
