import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { send, startTestServer, type TestServer } from '../../helpers/server.js';
import { linkIn, plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const OTTO_KNOWS = 'otto set this one himself';
const CFO_OWN = 'the real cfo chose this one';
const flat = (text: string) => text.replace(/\s+/g, ' ');
const noticeOf = (page: string): string =>
  flat((/<div class="notice[^"]*"[^>]*>([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '').replace(/<[^>]+>/g, ''))
    .replace(/&#39;/g, "'")
    .trim();

/**
 * Issue 54, N1 (High): the lobby of an account in no workspace listed and accepted its
 * invitations by id, never asking whether anyone proved the account's address. With mail off,
 * the owner of workspace B added cfo@a.example, opened the setup link shown to him, set a
 * password and removed the account from B; when workspace A invited cfo@a.example as an owner,
 * B's owner signed in to the lobby and joined A. Now an invitation is accepted only with its
 * link, or by an account whose address was proved; an account whose address nobody proved gets
 * no lobby and is told to confirm it. N6: the first proof of an address ends every credential
 * minted before, API tokens too.
 */
describe('settings page: an invitation is accepted only with proof of the address (issue 54, N1, N6)', () => {
  let server: TestServer;

  /** Acme (the bootstrap workspace, Olga its owner, signed in) and OtherCo (Otto its owner, signed in). */
  async function companies() {
    const { accounts } = server.services;
    accounts.setWorkspace(OPERATOR, server.workspaceId, { name: 'Acme' });
    const otherCo = accounts.createWorkspace(OPERATOR, { name: 'OtherCo' }).id;
    const otto = accounts.createUser(OPERATOR, { name: 'Otto', email: 'otto@otherco.example' }).id;
    accounts.addMember(OPERATOR, { workspaceId: otherCo, userId: otto, isOwner: true });
    const ottoPage = new SettingsClient(server);
    await ottoPage.setUp(otto, PASSWORD, otherCo);
    const olga = new SettingsClient(server);
    await olga.setUp(server.ownerId, PASSWORD);
    return { otherCo, ottoPage, olga };
  }
  const userIdOf = (email: string) =>
    server.running.database.sqlite.prepare('select id from users where email = ? and deleted_at is null').pluck().get(email) as string;
  const count = (sql: string, ...args: unknown[]) =>
    server.running.database.sqlite
      .prepare(sql)
      .pluck()
      .get(...args) as number;

  /** Otto mints an API token of the account signed in on `page` (the Tokens page); it works. */
  async function mintedToken(page: SettingsClient): Promise<string> {
    const minted = await page.submit('/settings/tokens', '/settings/tokens', { name: 'kept', scopes: ['entries:read'] });
    const token = /<code id="new-token"[^>]*>(tt_[^<]+)<\/code>/.exec((await page.follow(minted, '/settings/tokens')).text)?.[1] as string;
    expect(token, 'the new token').to.be.a('string');
    expect((await send(server.url, 'GET', '/api/v1/me', { token })).status).to.equal(200);
    return token;
  }

  /** Olga invites cfo@a.example into Acme as an owner; the link shown to her (mail off), or null (mailed). */
  async function acmeInvitesTheCfo(olga: SettingsClient): Promise<string | null> {
    const invited = await olga.submit('/settings/members', '/settings/members', { name: '', email: 'cfo@a.example', isOwner: 'true' });
    const page = await olga.follow(invited, '/settings/members');
    expect(page.text).to.include('<span class="card-title">cfo@a.example</span>');
    return /\/settings\/setup\/[A-Za-z0-9_-]{43}/.exec(page.text)?.[0] ?? null;
  }

  describe('mail off', () => {
    beforeEach(async () => {
      server = await startTestServer();
    });
    afterEach(() => server.close());

    /** (1) Otto adds the unused address cfo@a.example to OtherCo, opens the setup link shown to him and sets a password. */
    async function ottoMakesTheCfo(ottoPage: SettingsClient) {
      const added = await ottoPage.submit('/settings/members', '/settings/members', { name: 'CFO', email: 'cfo@a.example' });
      const link = /\/settings\/setup\/[A-Za-z0-9_-]{43}/.exec((await ottoPage.follow(added, '/settings/members')).text)?.[0] as string;
      expect(link, 'the setup link shown to Otto').to.be.a('string');
      const asCfo = new SettingsClient(server);
      const form = await asCfo.get(link);
      const set = await asCfo.post(link, { _csrf: SettingsClient.csrf(form.text), password: OTTO_KNOWS, confirm: OTTO_KNOWS });
      expect([set.status, set.headers.get('location')]).to.deep.equal([303, '/app/week?welcome=1']);
      const cfo = userIdOf('cfo@a.example');
      // Opening a link shown to its maker proves nothing.
      expect(count('select count(*) from users where id = ? and email_proved_at is null', cfo)).to.equal(1);
      return { cfo, asCfo };
    }

    it('the review’s chain: Otto signs in as the CFO he made and gets no lobby, cannot join Acme, and is told what to do; the real CFO joins with the link', async () => {
      const { ottoPage, olga } = await companies();
      const { cfo } = await ottoMakesTheCfo(ottoPage);
      // (2) Otto removes the account from OtherCo; (3) Acme invites cfo@a.example as an owner (the link shown to Olga).
      expect((await ottoPage.submit('/settings/members', `/settings/members/${cfo}/remove`, {})).status).to.equal(303);
      const link = (await acmeInvitesTheCfo(olga)) as string;
      expect(link, 'the invitation link shown to Olga').to.be.a('string');
      const [invitation] = server.services.accounts.invitations(OPERATOR, server.workspaceId);

      // (4) Otto signs in as the CFO: no lobby, a sentence that says why and what to do.
      const thief = new SettingsClient(server);
      const refused = await thief.signIn('cfo@a.example', OTTO_KNOWS);
      expect(refused.status, refused.text).to.equal(403);
      expect(noticeOf(refused.text)).to.equal(
        'You belong to no workspace here yet, and nobody has confirmed that cfo@a.example is your address, so your invitations are not shown. This server sends no mail to confirm it. Open the link of your invitation (the owner who invited you has it) and sign in on its page, or ask the person who runs timetrack to set you a new password, which confirms the address.',
      );
      expect(thief.jar.has('tt_session')).to.equal(false);
      expect(count('select count(*) from lobby_sessions')).to.equal(0);
      const lobby = await thief.get('/settings/invitations');
      expect([lobby.status, lobby.headers.get('location')]).to.deep.equal([303, '/settings/sign-in']);
      const form = await thief.get('/settings/sign-in');
      const join = await thief.post(`/settings/invitations/${invitation?.id}/join`, { _csrf: SettingsClient.csrf(form.text) });
      expect([join.status, join.headers.get('location')]).to.deep.equal([303, '/settings/sign-in']);
      expect(server.services.accounts.membership(server.workspaceId, cfo)).to.equal(undefined);

      // The real CFO has Olga's link; signed out, its page asks for the account's password, which Otto set.
      const real = new SettingsClient(server);
      const page = await real.get(link);
      expect(page.status).to.equal(200);
      expect(flat(page.text)).to.include(
        'You were invited to the workspace <strong>Acme</strong> at cfo@a.example. Sign in as the account of that address to join.',
      );
      const guessed = await real.post(`${link}/sign-in`, { _csrf: SettingsClient.csrf(page.text), password: 'the cfo guesses wrong' });
      expect(guessed.status).to.equal(401);
      expect(noticeOf(guessed.text)).to.equal('That is not the password of the account of cfo@a.example.');
      expect(server.services.accounts.membership(server.workspaceId, cfo)).to.equal(undefined);
      // The operator sets the CFO a password (mail off: `timetrack user password`); the link and it join Acme as an owner.
      await server.services.sessions.setPassword(OPERATOR, cfo, CFO_OWN);
      const again = await real.get(link);
      const joined = await real.post(`${link}/sign-in`, { _csrf: SettingsClient.csrf(again.text), password: CFO_OWN });
      expect([joined.status, joined.headers.get('location')]).to.deep.equal([303, '/app/week']);
      const week = await real.get('/app/week');
      expect(week.status).to.equal(200);
      expect(flat(week.text)).to.include('You joined the workspace: this is your week in it.');
      expect(server.services.accounts.membership(server.workspaceId, cfo)).to.include({ isOwner: true });
      expect((await new SettingsClient(server).signIn('cfo@a.example', OTTO_KNOWS)).status).to.equal(401);
    });

    it('N6: the operator’s new password (the first proof of the address) ends Otto’s sessions and the API tokens he minted as the CFO', async () => {
      const { ottoPage, otherCo } = await companies();
      const { cfo, asCfo } = await ottoMakesTheCfo(ottoPage);
      const token = await mintedToken(asCfo);
      await server.services.sessions.setPassword(OPERATOR, cfo, CFO_OWN);
      expect((await send(server.url, 'GET', '/api/v1/me', { token })).status).to.equal(401);
      expect(count('select count(*) from api_tokens where user_id = ? and revoked_at is null', cfo)).to.equal(0);
      expect((await asCfo.get('/settings/tokens')).status).to.equal(303);
      // The CFO is still a member of OtherCo, signed in with the password Otto does not know.
      expect(server.services.accounts.membership(otherCo, cfo)).to.not.equal(undefined);
      expect((await new SettingsClient(server).signIn('cfo@a.example', CFO_OWN)).status).to.equal(303);
      // A later proof is no first one: a token minted now survives the next password.
      const kept = server.services.tokens.create(OPERATOR, { workspaceId: otherCo, userId: cfo, name: 'ops', scopes: ['entries:read'] });
      await server.services.sessions.setPassword(OPERATOR, cfo, `${CFO_OWN}-2`);
      expect((await send(server.url, 'GET', '/api/v1/me', { token: kept.token })).status).to.equal(200);
    });
  });

  describe('mail set up', () => {
    let relay: TestRelay;
    beforeEach(async () => {
      relay = await startRelay();
      server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
    });
    afterEach(async () => {
      await server.close();
      await relay.close();
    });

    /**
     * With mail set up an owner's link is mailed, never shown: Otto's account is made at his own
     * second address (proved through the mailed link), then the operator changes its address to
     * cfo@a.example on request, which nobody confirmed. Otto knows its password; he is signed in as it.
     */
    async function ottosAccountAtTheCfosAddress(ottoPage: SettingsClient, otherCo: string) {
      const added = await ottoPage.submit('/settings/members', '/settings/members', { name: 'CFO', email: 'otto2@otherco.example' });
      expect(added.status).to.equal(303);
      const [mail] = await relay.until(1);
      const link = new URL(linkIn(mail!, 'setup')).pathname;
      const asCfo = new SettingsClient(server);
      const form = await asCfo.get(link);
      expect(
        (await asCfo.post(link, { _csrf: SettingsClient.csrf(form.text), password: OTTO_KNOWS, confirm: OTTO_KNOWS })).status,
      ).to.equal(303);
      const cfo = userIdOf('otto2@otherco.example');
      server.services.accounts.setUser(OPERATOR, cfo, { email: 'cfo@a.example' });
      expect(count('select count(*) from users where id = ? and email_proved_at is null', cfo)).to.equal(1);
      expect(server.services.accounts.membership(otherCo, cfo)).to.not.equal(undefined);
      return { cfo, asCfo };
    }

    it('Otto signing in as the CFO gets no lobby; the link mailed to the CFO confirms the address, and the CFO joins Acme from the lobby', async () => {
      const { ottoPage, olga, otherCo } = await companies();
      const { cfo } = await ottosAccountAtTheCfosAddress(ottoPage, otherCo);
      expect((await ottoPage.submit('/settings/members', `/settings/members/${cfo}/remove`, {})).status).to.equal(303);
      expect(await acmeInvitesTheCfo(olga)).to.equal(null);
      await relay.until(2);

      const thief = new SettingsClient(server);
      const refused = await thief.signIn('cfo@a.example', OTTO_KNOWS);
      expect(refused.status, refused.text).to.equal(403);
      expect(noticeOf(refused.text)).to.equal(
        'You belong to no workspace here yet, and nobody has confirmed that cfo@a.example is your address, so your invitations are not shown. We mailed a link to cfo@a.example: open it to confirm the address and choose a new password; your invitations show then. An invitation’s own link also lets you join.',
      );
      expect(count('select count(*) from lobby_sessions')).to.equal(0);
      expect(server.services.accounts.membership(server.workspaceId, cfo)).to.equal(undefined);

      // Only the mailbox gets the link.
      const [, , confirmation] = await relay.until(3);
      expect(confirmation!.to).to.deep.equal(['cfo@a.example']);
      expect(confirmation!.parsed.subject).to.equal('Confirm your timetrack address');
      const link = new URL(linkIn(confirmation!, 'reset')).pathname;
      const real = new SettingsClient(server);
      const form = await real.get(link);
      expect(form.status).to.equal(200);
      const done = await real.post(link, { _csrf: SettingsClient.csrf(form.text), password: CFO_OWN, confirm: CFO_OWN });
      expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/settings/invitations']);
      const lobby = await real.get('/settings/invitations');
      expect(flat(lobby.text)).to.include('<strong>Acme</strong> invited you at cfo@a.example as an owner;');
      const action = /action="(\/settings\/invitations\/ivt_[^"/]+\/join)"/.exec(lobby.text)?.[1] as string;
      const joined = await real.post(action, { _csrf: SettingsClient.csrf(lobby.text) });
      expect([joined.status, joined.headers.get('location')]).to.deep.equal([303, '/app/week']);
      expect(server.services.accounts.membership(server.workspaceId, cfo)).to.include({ isOwner: true });
      expect((await new SettingsClient(server).signIn('cfo@a.example', OTTO_KNOWS)).status).to.equal(401);
    });

    it('N6: the real CFO’s password reset ends the session Otto holds as the CFO and the API token he minted', async () => {
      const { ottoPage, otherCo } = await companies();
      const { cfo, asCfo } = await ottosAccountAtTheCfosAddress(ottoPage, otherCo);
      const token = await mintedToken(asCfo);

      const real = new SettingsClient(server);
      const forgot = await real.get('/settings/forgot');
      expect((await real.post('/settings/forgot', { _csrf: SettingsClient.csrf(forgot.text), email: 'cfo@a.example' })).status).to.equal(
        200,
      );
      const [, reset] = await relay.until(2);
      expect(reset!.to).to.deep.equal(['cfo@a.example']);
      const link = new URL(linkIn(reset!, 'reset')).pathname;
      const form = await real.get(link);
      const done = await real.post(link, { _csrf: SettingsClient.csrf(form.text), password: CFO_OWN, confirm: CFO_OWN });
      expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/app/week']);
      expect((await send(server.url, 'GET', '/api/v1/me', { token })).status).to.equal(401);
      expect(count('select count(*) from api_tokens where user_id = ? and revoked_at is null', cfo)).to.equal(0);
      expect((await asCfo.get('/settings/tokens')).status).to.equal(303);
      expect(server.services.accounts.membership(otherCo, cfo)).to.not.equal(undefined);
      expect(noticeOf((await real.get('/app/week')).text)).to.equal(
        'Your address is confirmed. Every other session and API token of this account ended: nobody had confirmed the address before, so someone else may have held them.',
      );
    });
  });
});
