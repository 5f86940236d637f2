import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { linkIn, plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { send } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { type OidcFixture, oidcFixture, rows, signedIn, visit } from '../../helpers/oidc-fixture.js';

const OTTO_KNOWS = 'otto set this one himself';
const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 44, H1: an owner of one workspace adds an unused address, opens the setup link shown to
 * them and sets a password; the real holder of the address then signs in through the identity
 * provider (verified email) and is bound to that account; another workspace invites them as an
 * owner. The decision (docs/design.md, "Whose address"): binding a verified provider email to an
 * account whose address nobody proved ends every password, session, token and link it had, and
 * its maker cannot make a link shown to them again. With mail set up, the link is mailed and never
 * shown to the owner.
 */
describe('identity provider: no account taken over through an address nobody proved (H1)', function () {
  this.timeout(120_000);

  /** OtherCo with its owner Otto signed in on the settings page; the bootstrap workspace is Acme (owner Olga), which lets acme.test join. */
  async function companies(fixture: OidcFixture) {
    const { accounts } = fixture.server.services;
    accounts.setWorkspace(OPERATOR, fixture.server.workspaceId, { name: 'Acme', joinDomains: ['acme.test'] });
    const otherCo = accounts.createWorkspace(OPERATOR, { name: 'OtherCo' }).id;
    const otto = accounts.createUser(OPERATOR, { name: 'Otto', email: 'otto@otherco.test' }).id;
    accounts.addMember(OPERATOR, { workspaceId: otherCo, userId: otto, isOwner: true });
    const ottoPage = new SettingsClient(fixture.server);
    await ottoPage.setUp(otto, PASSWORD, otherCo);
    const olga = new SettingsClient(fixture.server);
    await olga.setUp(fixture.server.ownerId, PASSWORD);
    return { otherCo, otto, ottoPage, olga };
  }

  const userIdOf = (fixture: OidcFixture, email: string) =>
    (rows(fixture.server, `select id from users where email = '${email}' and deleted_at is null`)[0] as { id: string }).id;

  describe('mail off: the whole chain of the review', () => {
    let fixture: OidcFixture;
    before(async () => {
      fixture = await oidcFixture({ users: { ceo: { email: 'ceo@acme.test', email_verified: true, name: 'The CEO' } } });
    });
    after(() => fixture.close());

    it('ends the password, sessions, tokens and links Otto made, and Otto cannot get back in or reach Acme', async () => {
      const { otherCo, otto, ottoPage, olga } = await companies(fixture);

      // (1) Otto adds the unused address; the link is shown to him (mail is off); he opens it and sets a password.
      const added = await ottoPage.submit('/settings/members', '/settings/members', { name: 'CEO', email: 'ceo@acme.test' });
      const shown = await ottoPage.follow(added, '/settings/members');
      const link = /\/settings\/setup\/[A-Za-z0-9_-]{43}/.exec(shown.text)?.[0] as string;
      expect(link, 'the link shown to Otto').to.be.a('string');
      const ceoId = userIdOf(fixture, 'ceo@acme.test');
      const asCeo = new SettingsClient(fixture.server);
      const form = await asCeo.get(link);
      expect(form.status).to.equal(200);
      const set = await asCeo.post(link, { _csrf: SettingsClient.csrf(form.text), password: OTTO_KNOWS, confirm: OTTO_KNOWS });
      expect(set.status, set.text).to.equal(303);
      // ... and mints an API token of the account, and makes a second setup link he keeps unused.
      const minted = await asCeo.submit('/settings/tokens', '/settings/tokens', { name: 'kept', scopes: ['entries:read'] });
      const token = /<code id="new-token"[^>]*>(tt_[^<]+)<\/code>/.exec(
        (await asCeo.follow(minted, '/settings/tokens')).text,
      )?.[1] as string;
      expect(token).to.be.a('string');
      expect((await send(fixture.server.url, 'GET', '/api/v1/me', { token })).status).to.equal(200);

      // (2) The real CEO signs in through the provider with that verified address: bound to the account Otto made.
      const ceo = await signedIn(fixture, 'ceo');
      expect(rows(fixture.server, "select user_id as userId from oidc_identities where subject = 'ceo'")).to.deep.equal([
        { userId: ceoId },
      ]);
      const week = await visit(fixture, ceo, '/app/week');
      expect(week.status).to.equal(200);
      expect(flat(week.text)).to.include(
        'The password this account had here no longer works, and its other sessions and API tokens ended: nobody had confirmed this address before',
      );
      // Everything Otto held of it ended in that write.
      expect(rows(fixture.server, `select password_hash as hash from users where id = '${ceoId}'`)).to.deep.equal([{ hash: null }]);
      expect(rows(fixture.server, `select count(*) as n from api_tokens where user_id = '${ceoId}' and revoked_at is null`)).to.deep.equal([
        { n: 0 },
      ]);
      expect(rows(fixture.server, `select count(*) as n from setup_links where user_id = '${ceoId}' and used_at is null`)).to.deep.equal([
        { n: 0 },
      ]);

      // Nor can Otto make a new link shown to him (before the CEO joins Acme, too): the address is the CEO's now, said in a sentence.
      const again = await ottoPage.submit('/settings/members', `/settings/members/${ceoId}/invite`, {});
      expect(again.status).to.equal(403);
      expect(flat(again.text)).to.include(
        'CEO&#39;s address is confirmed as theirs, so a setup link shown to you would let you in as CEO.',
      );
      expect(rows(fixture.server, `select count(*) as n from setup_links where user_id = '${ceoId}' and used_at is null`)).to.deep.equal([
        { n: 0 },
      ]);
      // (3) Olga invites the CEO into Acme as an owner; the CEO joins, signed in through the provider.
      const invited = await olga.submit('/settings/members', '/settings/members', { name: '', email: 'ceo@acme.test', isOwner: 'true' });
      const invitation = /\/settings\/setup\/[A-Za-z0-9_-]{43}/.exec((await olga.follow(invited, '/settings/members')).text)?.[0] as string;
      const join = await visit(fixture, ceo, invitation);
      expect(join.status, join.text).to.equal(200);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(join.text)?.[1] as string;
      const joined = await ceo.request(`${fixture.server.url}${invitation}/join`, {
        form: { _csrf: csrf },
        headers: { origin: fixture.server.url },
      });
      expect(joined.status, await joined.text()).to.equal(303);
      expect(
        fixture.server.services.accounts.getMember(OPERATOR, { workspaceId: fixture.server.workspaceId, userId: ceoId }).isOwner,
      ).to.equal(true);

      // (4) Otto: his password, his open session and his token as the CEO all fail; Acme's pages are out of reach.
      expect((await new SettingsClient(fixture.server).signIn('ceo@acme.test', OTTO_KNOWS)).status).to.equal(401);
      const stale = await asCeo.get('/settings/members');
      expect([stale.status, stale.headers.get('location')]).to.deep.equal([303, '/settings/sign-in?next=%2Fsettings%2Fmembers']);
      expect((await asCeo.get('/app/invoices')).status).to.equal(303);
      expect((await send(fixture.server.url, 'GET', '/api/v1/me', { token })).status).to.equal(401);
      // Otto himself is untouched: still the owner of OtherCo, signed in.
      expect((await ottoPage.get('/settings/members')).status).to.equal(200);
      void otto;
      void otherCo;
    });
  });

  describe('mail set up', () => {
    let fixture: OidcFixture;
    let relay: TestRelay;
    before(async () => {
      relay = await startRelay();
      fixture = await oidcFixture({
        users: { ceo: { email: 'ceo@acme.test', email_verified: true, name: 'The CEO' } },
        env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' },
      });
    });
    after(async () => {
      await fixture.close();
      await relay.close();
    });

    it('mails the setup link of a new address to that address and never shows it to the owner; opening it proves the address', async () => {
      const { ottoPage } = await companies(fixture);
      const added = await ottoPage.submit('/settings/members', '/settings/members', { name: 'CEO', email: 'ceo@acme.test' });
      const page = await ottoPage.follow(added, '/settings/members');
      expect(flat(page.text)).to.include('<strong>We mailed ceo@acme.test a link</strong> that lets them into OtherCo.');
      expect(page.text).not.to.match(/\/settings\/setup\//);
      expect(page.text).not.to.include('id="setup-link"');
      const ceoId = userIdOf(fixture, 'ceo@acme.test');
      // "Setup link" again: mailed too, and not shown.
      const again = await ottoPage.follow(
        await ottoPage.submit('/settings/members', `/settings/members/${ceoId}/invite`, {}),
        '/settings/members',
      );
      expect(flat(again.text)).to.include('<strong>We mailed CEO a setup link</strong>');
      expect(again.text).not.to.match(/\/settings\/setup\//);

      // Only the mailbox has it: the CEO opens the newest, sets a password, and the address is proved.
      const [, second] = await relay.until(2);
      const link = new URL(linkIn(second!, 'setup')).pathname;
      const ceo = new SettingsClient(fixture.server);
      const form = await ceo.get(link);
      const done = await ceo.post(link, { _csrf: SettingsClient.csrf(form.text), password: PASSWORD, confirm: PASSWORD });
      expect(done.status, done.text).to.equal(303);
      expect(
        (rows(fixture.server, `select email_proved_at as at from users where id = '${ceoId}'`)[0] as { at: number | null }).at,
      ).to.be.a('number');
      // Signing in through the provider then binds without ending anything: the CEO's own password still works.
      await signedIn(fixture, 'ceo');
      expect((await new SettingsClient(fixture.server).signIn('ceo@acme.test', PASSWORD)).status).to.equal(303);
    });
  });
});
