import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 44: an account that belongs to no workspace could never join one. Sign-in refused an
 * account that is a member nowhere, and an invitation needs a signed-in account, so a person
 * removed from their last workspace (or made by `timetrack user create`) could never accept an
 * invitation in the browser. Such an account now signs in to a page that says it belongs to no
 * workspace yet, lists its invitations and joins one; it reaches nothing else.
 */
describe('settings page: an account that belongs to no workspace signs in to its invitations', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner Olga in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let olga: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    olga = new SettingsClient(server);
    await olga.setUp(server.ownerId, PASSWORD);
  });

  /** Bea's address: each test's Bea is another account. */
  let beaEmail: string;
  /** Bea: a member with a password, then removed from her only workspace. */
  async function removedBea(): Promise<string> {
    const { accounts, sessions } = server.services;
    beaEmail = `bea.${Math.random().toString(36).slice(2)}@example.org`;
    const bea = accounts.createUser(OPERATOR, { name: 'Bea', email: beaEmail }).id;
    accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea });
    await sessions.setPassword(OPERATOR, bea, PASSWORD);
    accounts.removeMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea });
    return bea;
  }
  /** Bea's open lobby sessions. */
  const lobbies = (userId: string) =>
    server.running.database.sqlite.prepare('select count(*) from lobby_sessions where user_id = ?').pluck().get(userId);
  const workspaceName = () =>
    server.running.database.sqlite.prepare('select name from workspaces where id = ?').pluck().get(server.workspaceId) as string;

  it('a member removed from her last workspace signs in, sees the invitation an owner made, joins, and is in that workspace’s week', async () => {
    const bea = await removedBea();
    const invited = await olga.submit('/settings/members', '/settings/members', { name: '', email: beaEmail });
    expect(invited.status).to.equal(303);

    const page = new SettingsClient(server);
    const signedIn = await page.signIn(beaEmail, PASSWORD);
    expect([signedIn.status, signedIn.headers.get('location')]).to.deep.equal([303, '/settings/invitations']);
    const lobby = await page.get('/settings/invitations');
    expect(lobby.status).to.equal(200);
    const text = flat(lobby.text);
    expect(text).to.include('<h1>You belong to no workspace yet</h1>');
    expect(text).to.include(`Signed in as <strong>Bea</strong> (${beaEmail}).`);
    expect(text).to.include(`<strong>${workspaceName()}</strong> invited you at ${beaEmail}; open until 5 Nov 2026, 10:00 UTC.`);
    const action = /action="(\/settings\/invitations\/ivt_[^"/]+\/join)"/.exec(lobby.text)?.[1] as string;
    expect(action, 'a Join form').to.be.a('string');

    // Nothing else opens: the workspace's pages send her to sign-in, which sends her back here.
    for (const path of ['/app/week', '/settings/tokens', '/settings/members']) {
      const other = await page.get(path);
      expect(other.status, path).to.equal(303);
      expect(other.headers.get('location'), path).to.match(/^\/settings\/sign-in/);
    }
    const again = await page.get('/settings/sign-in');
    expect([again.status, again.headers.get('location')]).to.deep.equal([303, '/settings/invitations']);

    const joined = await page.post(action, { _csrf: SettingsClient.csrf(lobby.text) });
    expect([joined.status, joined.headers.get('location')]).to.deep.equal([303, '/app/week']);
    const week = await page.get('/app/week');
    expect(week.status).to.equal(200);
    expect(flat(week.text)).to.include('You joined the workspace: this is your week in it.');
    expect(server.services.accounts.membership(server.workspaceId, bea)).to.include({ userId: bea, isOwner: false });
    // The lobby ended with the join; the page sends a member to her week.
    expect(lobbies(bea)).to.equal(0);
    expect((await page.get('/settings/invitations')).headers.get('location')).to.equal('/app/week');
  });

  it('without an invitation the page says what to do; another account’s invitation cannot be taken; sign-out and a new password end the lobby', async () => {
    const bea = await removedBea();
    const { accounts } = server.services;
    // Cid is invited (he has an account elsewhere); Bea must not be able to take his invitation.
    const elsewhere = accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' }).id;
    const cid = accounts.createUser(OPERATOR, { name: 'Cid', email: 'cid@example.org' }).id;
    accounts.addMember(OPERATOR, { workspaceId: elsewhere, userId: cid });
    const cidInvite = accounts.enrollMember(OPERATOR, { workspaceId: server.workspaceId, name: '', email: 'cid@example.org' });
    if (cidInvite.kind !== 'invited') throw new Error('expected an invitation');

    const page = new SettingsClient(server);
    expect((await page.signIn(beaEmail, 'not her password')).status).to.equal(401);
    expect((await page.signIn(beaEmail, PASSWORD)).status).to.equal(303);
    const lobby = await page.get('/settings/invitations');
    expect(flat(lobby.text)).to.include(
      `No invitation is open for you. Ask an owner of the workspace you work in to add ${beaEmail} on its Members page, then reload this page.`,
    );
    const taken = await page.post(`/settings/invitations/${cidInvite.invitationId}/join`, { _csrf: SettingsClient.csrf(lobby.text) });
    expect(taken.status).to.equal(404);
    expect(flat(taken.text)).to.include('This invitation no longer works');
    expect(accounts.membership(server.workspaceId, cid)).to.equal(undefined);

    // A password set by the operator ends the lobby as it ends sessions.
    await server.services.sessions.setPassword(OPERATOR, bea, `${PASSWORD}-new`);
    const ended = await page.get('/settings/invitations');
    expect([ended.status, ended.headers.get('location')]).to.deep.equal([303, '/settings/sign-in']);

    // Sign-out ends it too.
    expect((await page.signIn(beaEmail, `${PASSWORD}-new`)).status).to.equal(303);
    const open = await page.get('/settings/invitations');
    expect(open.status).to.equal(200);
    const out = await page.post('/settings/sign-out', { _csrf: SettingsClient.csrf(open.text) });
    expect([out.status, out.headers.get('location')]).to.deep.equal([303, '/settings/sign-in']);
    expect(lobbies(bea)).to.equal(0);
  });
});
