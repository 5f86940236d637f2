import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { BIN } from '../../helpers/entry.js';

const setupLinkOf = (html: string) => /<code id="setup-link"[^>]*>([^<]+)<\/code>/.exec(html)?.[1] ?? null;
const flat = (text: string) => text.replace(/\s+/g, ' ');

/** Running the team from the Members page: adding by email, removing, the first start's owner, and where links point. */
describe('settings page: the team', () => {
  // One server for the describe; each test has a fresh workspace and signed-in owner in it.
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

  const memberIds = () => server.services.accounts.listMembers(OPERATOR, server.workspaceId).map((m) => m.email);

  it('adds a new person by name and email with the flags and rate chosen, and shows the one link to send them, once', async () => {
    const added = await owner.submit('/settings/members', '/settings/members', {
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      canViewOthersTime: 'true',
      hourlyRate: '80,05',
    });
    const page = await owner.follow(added, '/settings/members');
    expect(flat(page.text)).to.include('<strong>Send this link to ada@example.org</strong>: it lets them into My workspace.');
    const url = setupLinkOf(page.text) as string;
    expect(url).to.match(new RegExp(`^${server.url}/settings/setup/[A-Za-z0-9_-]{43}$`));
    const ada = server.services.accounts.listMembers(OPERATOR, server.workspaceId).find((m) => m.email === 'ada@example.org');
    expect(ada).to.include({ name: 'Ada Lovelace', canViewOthersTime: true, canViewOthersMoney: false, isOwner: false, hourlyRate: 80.05 });
    // Ada's link works, once; the page then offers no link any more.
    const adaClient = new SettingsClient(server);
    const setup = await adaClient.get(new URL(url).pathname);
    expect(setup.text).to.include('For <strong>Ada Lovelace</strong> (ada@example.org)');
    const done = await adaClient.post(new URL(url).pathname, {
      _csrf: SettingsClient.csrf(setup.text),
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/app/week?welcome=1']);
    const after = await owner.get('/settings/members');
    expect(after.text).not.to.include('Send this link to');
    expect(after.text).not.to.include(`action="/settings/members/${ada?.userId}/invite"`);
    expect(after.text).to.include(`action="/settings/members/${server.ownerId}/remove"`);
  });

  it('H1: an address an account holds is never attached: the owner gets an invitation worded like any link, and only that account, signed in, joins', async () => {
    // The attack: member Mallory of W1 (she has a password) makes the new hire's address her sign-in email on the Profile page.
    const w1 = server.services.accounts.createWorkspace(OPERATOR, { name: 'Mallory & Co' });
    const mallory = server.services.accounts.createUser(OPERATOR, { name: 'Mallory', email: 'mallory@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: w1.id, userId: mallory.id });
    const malloryClient = new SettingsClient(server);
    await malloryClient.setUp(mallory.id, PASSWORD, w1.id);
    const profile = await malloryClient.get('/app/profile');
    const claimed = await malloryClient.post('/app/profile', {
      _csrf: SettingsClient.csrf(profile.text),
      name: 'Mallory',
      email: 'newhire@w2corp.example',
      emailPassword: PASSWORD,
      timeZone: 'UTC',
      weekStart: 'monday',
    });
    expect(claimed.status).to.equal(303);
    // The owner of "My workspace" adds that address: no member is added, an invitation is made.
    const before = memberIds();
    const added = await owner.follow(
      await owner.submit('/settings/members', '/settings/members', {
        name: 'New Hire',
        email: 'NewHire@w2corp.example',
        canViewOthersMoney: 'true',
        hourlyRate: '90',
      }),
      '/settings/members',
    );
    expect(memberIds()).to.deep.equal(before);
    const said = flat(added.text);
    // Worded as for a new account: nothing of the account that holds the address (no name, no password state).
    expect(said).to.include('<strong>Send this link to NewHire@w2corp.example</strong>: it lets them into My workspace.');
    expect(said).not.to.include('Mallory');
    const notice = /<div class="notice ok" role="status">(.*?)<\/div>/.exec(said)?.[1] ?? '';
    expect(notice).to.include('Send this link to');
    expect(notice).not.to.match(/password|is a member now|account/i);
    expect(said).to.include('<h2 id="invited-heading">Invited</h2>');
    expect(said).to.include('<span class="card-title">NewHire@w2corp.example</span>');
    const link = new URL(setupLinkOf(added.text) as string).pathname;
    // Mallory, signed in, cannot reach the workspace: no membership to switch to, and its pages are not hers.
    const page = await malloryClient.get('/settings/tokens');
    const switched = await malloryClient.post('/settings/switch', {
      _csrf: SettingsClient.csrf(page.text),
      workspaceId: server.workspaceId,
    });
    expect(switched.status).to.equal(404);
    // The link, opened signed out, asks for the invited account's password on its page, or a sign-in that comes back (issue 54);
    // another account signed in is refused without a name.
    const stranger = new SettingsClient(server);
    const out = await stranger.get(link);
    expect(out.status).to.equal(200);
    expect(flat(out.text)).to.include('Sign in as the account of that address to join.');
    expect(out.text).to.include(`<a href="/settings/sign-in?next=${encodeURIComponent(link)}">Sign in</a> first.`);
    const bob = server.services.accounts.createUser(OPERATOR, { name: 'Bob', email: 'bob@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: w1.id, userId: bob.id });
    const bobClient = new SettingsClient(server);
    await bobClient.setUp(bob.id, PASSWORD, w1.id);
    const bobPage = await bobClient.get(link);
    expect(bobPage.status).to.equal(200);
    const refused = await bobClient.post(`${link}/join`, { _csrf: SettingsClient.csrf(bobPage.text) });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('This invitation is for another account.');
    expect(memberIds()).to.deep.equal(before);
    // The account the invitation is for (here Mallory, who holds the address) joins only by opening it signed in;
    // the owner handed the link to the address, so in life it reaches the mailbox's owner, not her.
    const joinPage = await malloryClient.get(link);
    expect(flat(joinPage.text)).to.include('You were invited to the workspace <strong>My workspace</strong> at NewHire@w2corp.example.');
    const joined = await malloryClient.post(`${link}/join`, { _csrf: SettingsClient.csrf(joinPage.text) });
    expect([joined.status, joined.headers.get('location')]).to.deep.equal([303, '/app/week']);
    expect(server.services.accounts.getMember(OPERATOR, { workspaceId: server.workspaceId, userId: mallory.id })).to.include({
      canViewOthersMoney: true,
      canViewOthersTime: false,
      isOwner: false,
      hourlyRate: 90,
    });
    // Used up: a second opening says so.
    const again = await malloryClient.get(link);
    expect(again.status).to.equal(410);
    expect((await owner.get('/settings/members')).text).not.to.include('id="invited-heading"');
  });

  it('H1: an owner withdraws an invitation, and its link stops working at once; adding again replaces the old link', async () => {
    const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Other' });
    const cy = server.services.accounts.createUser(OPERATOR, { name: 'Cy', email: 'cy@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: cy.id });
    const cyClient = new SettingsClient(server);
    await cyClient.setUp(cy.id, PASSWORD, other.id);
    const first = await owner.follow(
      await owner.submit('/settings/members', '/settings/members', { email: 'cy@example.org' }),
      '/settings/members',
    );
    const firstLink = new URL(setupLinkOf(first.text) as string).pathname;
    const second = await owner.follow(
      await owner.submit('/settings/members', '/settings/members', { email: 'cy@example.org' }),
      '/settings/members',
    );
    const secondLink = new URL(setupLinkOf(second.text) as string).pathname;
    expect((await cyClient.get(firstLink)).status).to.equal(410);
    expect((await cyClient.get(secondLink)).status).to.equal(200);
    const [invitation] = server.services.accounts.invitations(OPERATOR, server.workspaceId);
    expect(second.text).to.include(`data-confirm="Withdraw the invitation of cy@example.org? Its link stops working at once."`);
    const withdrawn = await owner.follow(
      await owner.post(`/settings/members/invitations/${invitation?.id}/withdraw`, { _csrf: SettingsClient.csrf(second.text) }),
      '/settings/members',
    );
    expect(withdrawn.text).to.include('Withdrawn: its link no longer works.');
    expect((await cyClient.get(secondLink)).status).to.equal(410);
    expect(server.services.accounts.invitations(OPERATOR, server.workspaceId)).to.deep.equal([]);
  });

  it('keeps a refused "Add member" form as sent, the message at its field (tied to it), and adds nobody', async () => {
    const before = memberIds();
    const badEmail = await owner.submit('/settings/members', '/settings/members', {
      name: 'Ada',
      email: 'ada-at-example',
      hourlyRate: '12',
    });
    expect(badEmail.status).to.equal(400);
    expect(badEmail.text).to.match(/id="add-email"[^>]*value="ada-at-example"\s+aria-invalid="true" aria-describedby="add-email-error"/);
    expect(badEmail.text).to.include('<span class="field-error" id="add-email-error">The email must look like name@example.org');
    expect(badEmail.text).to.include('value="Ada"');
    const noName = await owner.submit('/settings/members', '/settings/members', { name: ' ', email: 'new@example.org' });
    expect(noName.status).to.equal(400);
    expect(noName.text).to.include('<span class="field-error" id="add-name-error">The name must not be empty.</span>');
    const badRate = await owner.submit('/settings/members', '/settings/members', {
      name: 'Ada',
      email: 'ada@example.org',
      hourlyRate: 'lots',
    });
    expect(badRate.status).to.equal(400);
    expect(badRate.text).to.include('id="add-rate-error">The hourly rate must be a number such as 85 or 92.50');
    const twice = await owner.submit('/settings/members', '/settings/members', { name: 'Owner', email: server.ownerEmail });
    expect(twice.status).to.equal(409);
    expect(twice.text).to.include(
      `Owner (${server.ownerEmail}) is a member of this workspace already; change their access in the list instead.`,
    );
    expect(memberIds()).to.deep.equal(before);
  });

  it('removes a member after a confirmation: their tokens and sessions stop at once; never the last owner', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const token = server.services.tokens.create(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, name: 't', scopes: [] }).token;
    const beaClient = new SettingsClient(server);
    await beaClient.setUp(bea.id, PASSWORD);
    expect((await beaClient.get('/settings/tokens')).status).to.equal(200);
    const page = await owner.get('/settings/members');
    expect(page.text).to.include(`data-confirm="Remove Bea from this workspace? Their tokens and sessions here stop at once."`);
    const removed = await owner.follow(
      await owner.post(`/settings/members/${bea.id}/remove`, { _csrf: SettingsClient.csrf(page.text) }),
      '/settings/members',
    );
    expect(removed.text).to.include('Removed Bea: their tokens and sessions in this workspace stopped working.');
    expect((await server.request('GET', '/api/v1/me', { token })).status).to.equal(401);
    expect((await beaClient.get('/settings/tokens')).headers.get('location')).to.equal('/settings/sign-in?next=%2Fsettings%2Ftokens');
    const last = await owner.post(`/settings/members/${server.ownerId}/remove`, { _csrf: SettingsClient.csrf(removed.text) });
    expect(last.status).to.equal(409);
    expect(last.text).to.include('Owner is the last owner: make another member an owner first.');
    expect(memberIds()).to.deep.equal([server.ownerEmail]);
  });
});

describe('settings page: the first start and where links point', () => {
  // A server per test: one reads the first start's banner and link, the other the address the
  // server recorded (and removes it).
  let server: TestServer;
  afterEach(() => server.close());

  it("asks the first owner's name and email and the workspace's name beside the password, checks them at their fields, and stores them", async () => {
    server = await startTestServer();
    const url = /Settings page: open (\S+)/.exec(server.banner)?.[1] as string;
    expect(url).to.match(new RegExp(`^${server.url}/settings/setup/[A-Za-z0-9_-]{43}$`));
    expect(server.banner).to.include('to give the owner a name, an email (the sign-in) and a password.');
    expect(server.banner).not.to.include('owner@localhost');
    const person = new SettingsClient(server);
    const path = new URL(url).pathname;
    const page = await person.get(path);
    expect(page.text).to.include('<label for="name">Your name');
    // The workspace's name, which invitations say ("Join My workspace" before issue 58 item 5).
    expect(page.text).to.match(/<label for="workspace"\s*>Your workspace(?:'|&#39;)s name/);
    expect(page.text).to.include('Name your workspace, and tell colleagues who you are:');
    expect(page.text).to.match(/<input\s+id="email"\s+name="email"\s+type="email"\s+autocomplete="username"[^>]*value=""/);
    const bad = await person.post(path, {
      _csrf: SettingsClient.csrf(page.text),
      name: 'Ada Lovelace',
      email: 'ada',
      workspace: 'Lovelace Consulting',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('<span class="field-error" id="email-error">The email must look like name@example.org');
    expect(bad.text).to.include('value="Ada Lovelace"');
    expect(bad.text).to.include('value="Lovelace Consulting"');
    const unnamed = await person.post(path, {
      _csrf: SettingsClient.csrf(bad.text),
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      workspace: ' ',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(unnamed.status).to.equal(400);
    expect(unnamed.text).to.include('<span class="field-error" id="workspace-error">The workspace&#39;s name must not be empty.</span>');
    // Nothing was stored: the link still works, the account keeps its first-start name.
    expect(server.services.sessions.setupLink(path.split('/').pop() as string)).to.include({ name: 'Owner', asksProfile: true });
    const done = await person.post(path, {
      _csrf: SettingsClient.csrf(bad.text),
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      workspace: 'Lovelace Consulting',
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/app/week?welcome=1']);
    expect(server.services.accounts.getUser(OPERATOR, server.ownerId)).to.include({ name: 'Ada Lovelace', email: 'ada@example.org' });
    expect((await person.get('/settings/tokens')).text).to.include('Ada Lovelace (ada@example.org), owner');
    expect(server.services.accounts.workspaceName(server.workspaceId)).to.equal('Lovelace Consulting');
    const again = new SettingsClient(server);
    expect((await again.signIn('ada@example.org', PASSWORD)).status).to.equal(303);
  });

  it('prints every link with one address: the banner, the Members page and `timetrack user invite` (which warns when none is known)', async function () {
    this.timeout(30_000);
    server = await startTestServer();
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    // The page is reached as localhost; its link still uses the address the server recorded.
    const viaLocalhost = new SettingsClient({ ...server, url: server.url.replace('127.0.0.1', 'localhost') }, null);
    viaLocalhost.jar.set('tt_session', owner.jar.get('tt_session') as string);
    const page = await viaLocalhost.follow(
      await viaLocalhost.submit('/settings/members', `/settings/members/${bea.id}/invite`, {}),
      '/settings/members',
    );
    expect(setupLinkOf(page.text)).to.match(new RegExp(`^${server.url}/settings/setup/`));
    expect(server.banner).to.include(`${server.url}/api/v1/me`);
    // The command line, run as the bin without PORT or BASE_URL, reads the recorded address.
    const run = promisify(execFile);
    const env = { ...process.env, DATABASE_PATH: server.config.databasePath, PORT: '', BASE_URL: '' };
    delete (env as Record<string, string | undefined>).PORT;
    delete (env as Record<string, string | undefined>).BASE_URL;
    const args = [...BIN, 'user', 'invite', '--workspace', server.workspaceId, '--user', bea.id, '--json'];
    const invited = await run(process.execPath, args, { env });
    expect(JSON.parse(invited.stdout).url).to.match(new RegExp(`^${server.url}/settings/setup/[A-Za-z0-9_-]{43}$`));
    expect(invited.stderr).to.equal('');
    // No recorded address and no BASE_URL: a guess, and a warning that says what to set.
    const { rmSync } = await import('node:fs');
    rmSync(`${server.config.databasePath}.server-address`);
    const guessed = await run(process.execPath, args, { env });
    expect(JSON.parse(guessed.stdout).url).to.match(/^http:\/\/localhost:8080\/settings\/setup\//);
    expect(JSON.parse(guessed.stderr).warning).to.match(
      /^BASE_URL is not set and no server has recorded its address yet, so this link guesses http:\/\/localhost:8080\. Set BASE_URL/,
    );
  });
});
