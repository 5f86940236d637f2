import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { linkIn, plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { noticeOf, type OidcFixture, oidcFixture, PROVIDER_NAME, rows, signedIn, visit } from '../../helpers/oidc-fixture.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 54, N5: under OIDC_ONLY=true an owner's setup link still let a member who is no
 * break-glass owner set a password, which gave a session of up to 7 days and API tokens the
 * provider never checked. A setup link now sets a password only for a break-glass owner; anyone
 * else's proves the address (mailed) and sends them to the provider.
 */
describe('OIDC_ONLY: a setup link sets a password only for a break-glass owner (N5)', function () {
  this.timeout(120_000);
  let fixture: OidcFixture;
  let relay: TestRelay;
  let owner: SettingsClient;

  before(async () => {
    relay = await startRelay();
    fixture = await oidcFixture({
      env: { OIDC_ONLY: 'true', SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' },
      users: { hire: { email: 'new.hire@example.org', email_verified: true, name: 'New Hire' } },
    });
    const { services, ownerId } = fixture.server;
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    services.accounts.setBreakGlass(OPERATOR, ownerId, true);
    owner = new SettingsClient(fixture.server);
    const form = await owner.get('/settings/sign-in?break-glass');
    const signed = await owner.post('/settings/sign-in', {
      _csrf: SettingsClient.csrf(form.text),
      email: 'owner@localhost',
      password: PASSWORD,
      breakGlass: '1',
    });
    expect(signed.status).to.equal(303);
  });
  after(async () => {
    await fixture.close();
    await relay.close();
  });

  it('a member’s mailed link shows no password form and sets none; its button proves the address and goes on to the provider', async () => {
    const added = await owner.submit('/settings/members', '/settings/members', { name: 'New Hire', email: 'new.hire@example.org' });
    expect(added.status).to.equal(303);
    const [mail] = await relay.until(1);
    const link = new URL(linkIn(mail!, 'setup')).pathname;
    const hire = (rows(fixture.server, "select id from users where email = 'new.hire@example.org'")[0] as { id: string }).id;

    const opener = new SettingsClient(fixture.server);
    const page = await opener.get(link);
    expect(page.status).to.equal(200);
    expect(page.text).to.not.include('name="password"');
    expect(flat(page.text)).to.include(
      `This server signs people in with ${PROVIDER_NAME}, so there is no password to set here: continue there with your address.`,
    );
    // A password posted anyway (the form of before) is refused: no password, no session.
    const posted = await opener.post(link, { _csrf: SettingsClient.csrf(page.text), password: PASSWORD, confirm: PASSWORD });
    expect(posted.status).to.equal(403);
    expect(noticeOf(posted.text)).to.equal(
      'This server signs people in with its identity provider only; passwords are for its break-glass owners. Use the button on this page to sign in there.',
    );
    expect(opener.jar.has('tt_session')).to.equal(false);
    expect(rows(fixture.server, `select password_hash as hash, email_proved_at as proved from users where id = '${hire}'`)).to.deep.equal([
      { hash: null, proved: null },
    ]);

    // The button: the link is used up, the mailed address proved, and the way goes on to the provider.
    const onwards = await opener.post(`${link}/provider`, { _csrf: SettingsClient.csrf(page.text) });
    expect([onwards.status, onwards.headers.get('location')]).to.deep.equal([303, '/settings/oidc/start?next=%2Fapp%2Fweek']);
    expect(opener.jar.has('tt_session')).to.equal(false);
    const after = rows(fixture.server, `select password_hash as hash, email_proved_at as proved from users where id = '${hire}'`)[0] as {
      hash: string | null;
      proved: number | null;
    };
    expect(after.hash).to.equal(null);
    expect(after.proved).to.be.a('number');
    expect((await opener.get(link)).status).to.equal(410);
    // Through the provider the member is in, bound to the account.
    const browser = await signedIn(fixture, 'hire');
    expect((await visit(fixture, browser, '/app/week')).status).to.equal(200);
    expect(rows(fixture.server, "select user_id as userId from oidc_identities where subject = 'hire'")).to.deep.equal([{ userId: hire }]);
  });

  it('a break-glass owner’s link (the operator’s) still sets a password', async () => {
    const { services, workspaceId, ownerId } = fixture.server;
    const made = services.sessions.invite(OPERATOR, { workspaceId, userId: ownerId });
    const opener = new SettingsClient(fixture.server);
    const page = await opener.get(`/settings/setup/${made.secret}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('name="password"');
    const done = await opener.post(`/settings/setup/${made.secret}`, {
      _csrf: SettingsClient.csrf(page.text),
      password: `${PASSWORD}-2`,
      confirm: `${PASSWORD}-2`,
    });
    expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/app/week?welcome=1']);
  });
});
