import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { linkIn, plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { type OidcFixture, oidcFixture, PROVIDER_NAME, rows } from '../../helpers/oidc-fixture.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');
const NEW_PASSWORD = 'a new and longer passphrase';

/**
 * Issue 44, M1: under OIDC_ONLY=true "Forgot your password?" was a way around the provider: any
 * member reset by mail and was signed in for 7 days, never checked with the provider. A reset is
 * now refused as a password sign-in is: only break-glass owners get a link; anyone else is
 * answered alike (no account discovery) and mailed nothing.
 */
describe('OIDC_ONLY: "Forgot your password?" is for break-glass owners only (M1)', function () {
  this.timeout(60_000);
  let fixture: OidcFixture;
  let relay: TestRelay;

  before(async () => {
    relay = await startRelay();
    fixture = await oidcFixture({
      env: { OIDC_ONLY: 'true', SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' },
    });
    const { services, workspaceId, ownerId } = fixture.server;
    services.accounts.setUser(OPERATOR, ownerId, { email: 'boss@example.org' });
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    services.accounts.setBreakGlass(OPERATOR, ownerId, true);
    const colleague = services.accounts.createUser(OPERATOR, { name: 'Colleague', email: 'colleague@example.org' }).id;
    services.accounts.addMember(OPERATOR, { workspaceId, userId: colleague });
    await services.sessions.setPassword(OPERATOR, colleague, PASSWORD);
  });
  after(async () => {
    await fixture.close();
    await relay.close();
  });

  const ask = async (email: string) => {
    const visitor = new SettingsClient(fixture.server);
    const form = await visitor.get('/settings/forgot');
    expect(form.status).to.equal(200);
    return { page: form, answer: await visitor.post('/settings/forgot', { _csrf: SettingsClient.csrf(form.text), email }) };
  };

  it('mails a member who is no break-glass owner nothing, answering alike; a break-glass owner gets the link and sets a password', async () => {
    const member = await ask('colleague@example.org');
    const owner = await ask('boss@example.org');
    expect([member.answer.status, owner.answer.status]).to.deep.equal([200, 200]);
    // The same words either way: nothing says which address is a break-glass owner's.
    expect(member.answer.text.replaceAll('colleague@example.org', 'X')).to.equal(owner.answer.text.replaceAll('boss@example.org', 'X'));

    // The owner's link arrives (sent after the member's would have been); the member got none, and none is queued.
    const [mail] = await relay.until(1);
    expect(mail!.to).to.deep.equal(['boss@example.org']);
    expect(relay.received.map((m) => m.to.join())).to.deep.equal(['boss@example.org']);
    expect(rows(fixture.server, "select count(*) as n from mail_messages where recipient = 'colleague@example.org'")).to.deep.equal([
      { n: 0 },
    ]);
    expect(
      rows(
        fixture.server,
        "select count(*) as n from password_resets r join users u on u.id = r.user_id where u.email = 'colleague@example.org'",
      ),
    ).to.deep.equal([{ n: 0 }]);

    const link = new URL(linkIn(mail!, 'reset')).pathname;
    const owners = new SettingsClient(fixture.server);
    const form = await owners.get(link);
    expect(form.status).to.equal(200);
    const done = await owners.post(link, { _csrf: SettingsClient.csrf(form.text), password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/app/week']);

    // The page says whom it is for.
    expect(flat(member.page.text)).to.include(
      `This server signs people in with <a href="/settings/sign-in">${PROVIDER_NAME}</a>; passwords are only for its break-glass owners, and only they get a link here.`,
    );
    // A link mailed before the mark was taken away stops working, saying why.
    await ask('boss@example.org');
    const [, later] = await relay.until(2);
    fixture.server.services.accounts.setBreakGlass(OPERATOR, fixture.server.ownerId, false);
    const stale = await new SettingsClient(fixture.server).get(new URL(linkIn(later!, 'reset')).pathname);
    expect(stale.status).to.equal(410);
    expect(flat(stale.text)).to.include(
      `This server signs people in with ${PROVIDER_NAME} only; passwords are for its break-glass owners.`,
    );
  });
});
