import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 44, M4: an owner about to be removed invited his own second account as an owner; after
 * the removal that account joined and was an owner. A member's open invitations now end when they
 * are removed or lose the owner role (setup links already checked their maker).
 */
describe('settings page: an invitation does not outlive the owner who sent it (M4)', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner Olga in it, and
  // its Bob with addresses of his own.
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

  /** Bob, a second owner signed in; his other account bob2, a member elsewhere with a password, signed in too. */
  async function bobAndHisSecondAccount() {
    const { accounts } = server.services;
    const at = `${Math.random().toString(36).slice(2)}@example.org`;
    const bob = accounts.createUser(OPERATOR, { name: 'Bob', email: `bob.${at}` }).id;
    accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bob, isOwner: true });
    const bobPage = new SettingsClient(server);
    await bobPage.setUp(bob, PASSWORD);
    const elsewhere = accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' }).id;
    const bob2 = accounts.createUser(OPERATOR, { name: 'Bob Two', email: `bob2.${at}` }).id;
    accounts.addMember(OPERATOR, { workspaceId: elsewhere, userId: bob2 });
    const bob2Page = new SettingsClient(server);
    await bob2Page.setUp(bob2, PASSWORD, elsewhere);
    const invited = await bobPage.submit('/settings/members', '/settings/members', {
      name: '',
      email: `bob2.${at}`,
      isOwner: 'true',
    });
    const link = /\/settings\/setup\/[A-Za-z0-9_-]{43}/.exec((await bobPage.follow(invited, '/settings/members')).text)?.[0] as string;
    expect(link, 'the invitation link shown to Bob').to.be.a('string');
    expect((await bob2Page.get(link)).status).to.equal(200);
    return { bob, bob2, bob2Page, link };
  }
  const openInvitations = () =>
    server.running.database.sqlite
      .prepare('select count(*) from invitations where accepted_at is null and workspace_id = ?')
      .pluck()
      .get(server.workspaceId) as number;

  const refusedToJoin = async (bob2Page: SettingsClient, link: string, bob2: string) => {
    const page = await bob2Page.get(link);
    expect(page.status).to.equal(410);
    expect(flat(page.text)).to.include('This link no longer works');
    // Posting the Join form anyway (its token from another page of the session) joins nothing.
    const form = await bob2Page.get('/settings/tokens');
    const join = await bob2Page.post(`${link}/join`, { _csrf: SettingsClient.csrf(form.text) });
    expect(join.status).to.equal(404);
    expect(flat(join.text)).to.include('This invitation no longer works');
    expect(server.services.accounts.membership(server.workspaceId, bob2)).to.equal(undefined);
  };

  it('ends the open invitations of an owner who is removed: his second account cannot join', async () => {
    const { bob, bob2, bob2Page, link } = await bobAndHisSecondAccount();
    expect(openInvitations()).to.equal(1);
    const removed = await olga.submit('/settings/members', `/settings/members/${bob}/remove`, {});
    expect(removed.status).to.equal(303);
    expect(openInvitations()).to.equal(0);
    await refusedToJoin(bob2Page, link, bob2);
  });

  it('ends them when he loses the owner role', async () => {
    const { bob, bob2, bob2Page, link } = await bobAndHisSecondAccount();
    const demoted = await olga.submit('/settings/members', `/settings/members/${bob}`, { hourlyRate: '' });
    expect(demoted.status).to.equal(303);
    expect(server.services.accounts.getMember(OPERATOR, { workspaceId: server.workspaceId, userId: bob }).isOwner).to.equal(false);
    expect(openInvitations()).to.equal(0);
    await refusedToJoin(bob2Page, link, bob2);
  });

  it('keeps the invitations of an owner who stays one', async () => {
    const { bob2, bob2Page, link } = await bobAndHisSecondAccount();
    const page = await bob2Page.get(link);
    const joined = await bob2Page.post(`${link}/join`, { _csrf: SettingsClient.csrf(page.text) });
    expect(joined.status).to.equal(303);
    expect(server.services.accounts.getMember(OPERATOR, { workspaceId: server.workspaceId, userId: bob2 }).isOwner).to.equal(true);
  });
});
