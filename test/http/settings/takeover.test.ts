import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Owner-made setup links: a link sets the account's password and signs its opener in as the
 * account, in every workspace it belongs to. So an owner may make one only for an account that
 * has no password yet and whose memberships are all in workspaces this owner owns; the rules
 * hold again when the link is used.
 */
describe('settings page: owner-made setup links cannot take over accounts', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it, and people
  // with addresses of their own.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  const unique = () => Math.random().toString(36).slice(2);

  /** A member of the test's workspace; optionally also of a workspace owned by someone else. */
  const member = (name: string, options: { alsoIn?: string } = {}) => {
    const { accounts } = server.services;
    const user = accounts.createUser(OPERATOR, { name, email: `${name.toLowerCase()}.${unique()}@example.org` });
    accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: user.id });
    if (options.alsoIn) accounts.addMember(OPERATOR, { workspaceId: options.alsoIn, userId: user.id });
    return user.id;
  };
  const otherWorkspace = () => {
    const { accounts } = server.services;
    const ws = accounts.createWorkspace(OPERATOR, { name: 'Other company' });
    const boss = accounts.createUser(OPERATOR, { name: 'Boss', email: `boss.${unique()}@example.org` });
    accounts.addMember(OPERATOR, { workspaceId: ws.id, userId: boss.id, isOwner: true });
    return ws.id;
  };
  const linksOf = (userId: string) =>
    server.running.database.sqlite
      .prepare('select count(*) from setup_links where user_id = ? and used_at is null')
      .pluck()
      .get(userId) as number;
  const passwordOf = (userId: string) =>
    server.running.database.sqlite.prepare('select password_hash from users where id = ?').pluck().get(userId) as string | null;

  it('refuses a link for a member of a workspace the owner does not own, saying why, and makes none', async () => {
    const other = otherWorkspace();
    const ada = member('Ada', { alsoIn: other });
    const refused = await owner.submit('/settings/members', `/settings/members/${ada}/invite`, {});
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('Ada is also a member of a workspace you do not own');
    expect(refused.text).to.include('ask the person who runs timetrack to make this link');
    expect(linksOf(ada)).to.equal(0);
    // The operator may.
    expect(server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: ada }).secret).to.be.a('string');
  });

  it('refuses a link for an account that has a password, saying why', async () => {
    const bea = member('Bea');
    await new SettingsClient(server).setUp(bea, PASSWORD);
    const hash = passwordOf(bea);
    const refused = await owner.submit('/settings/members', `/settings/members/${bea}/invite`, {});
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('Bea has set a password already');
    expect(refused.text).to.include('“Forgot your password?” on the sign-in page mails a new link');
    expect(linksOf(bea)).to.equal(0);
    expect(passwordOf(bea)).to.equal(hash);
  });

  it('makes a link for a new member only in the owner’s workspaces, and checks again when it is used', async () => {
    // A member of two workspaces, both owned by this owner: allowed.
    const second = server.services.accounts.createWorkspace(OPERATOR, { name: 'Second' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: second.id, userId: server.ownerId, isOwner: true });
    const cy = member('Cy', { alsoIn: second.id });
    const made = await owner.submit('/settings/members', `/settings/members/${cy}/invite`, {});
    const shown = await owner.follow(made, '/settings/members');
    expect(shown.text).to.match(/\/settings\/setup\/[A-Za-z0-9_-]{43}/);

    // A link made for Dan, who then joins someone else's workspace: it no longer works.
    const dan = member('Dan');
    const forDan = await owner.follow(await owner.submit('/settings/members', `/settings/members/${dan}/invite`, {}), '/settings/members');
    const path = /(\/settings\/setup\/[A-Za-z0-9_-]{43})/.exec(forDan.text)?.[1] as string;
    server.services.accounts.addMember(OPERATOR, { workspaceId: otherWorkspace(), userId: dan });
    const opener = new SettingsClient(server);
    expect((await opener.get(path)).status).to.equal(410);
    const form = await opener.get('/settings/sign-in');
    const used = await opener.post(path, { _csrf: SettingsClient.csrf(form.text), password: PASSWORD, confirm: PASSWORD });
    expect(used.status).to.equal(410);
    expect(passwordOf(dan)).to.equal(null);
  });

  it('lets no member but an owner of the workspace make a link, whatever the page', () => {
    const eve = member('Eve');
    const fay = member('Fay');
    const asMember = { ...(server.services.tokens.authenticate(server.ownerToken)?.actor as never as object), isOwner: false };
    expect(() =>
      server.services.sessions.invite(asMember as Parameters<typeof server.services.sessions.invite>[0], {
        workspaceId: server.workspaceId,
        userId: fay,
      }),
    )
      .to.throw()
      .with.property('code', 'forbidden');
    expect(linksOf(fay)).to.equal(0);
    expect(linksOf(eve)).to.equal(0);
  });
});
