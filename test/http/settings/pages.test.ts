import { OPERATOR } from '../../../src/principal.js';
import { expect } from 'chai';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The forms of the settings page over real HTTP: what each changes through the domain services,
 * and bad input answered with a clear message and the form as it was sent (nothing lost).
 */
describe('settings page: forms', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
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

  it('first steps: Settings opens on the Workspace for an owner and on Profile for a member, never on API tokens; every settings page leads back to the app', async () => {
    const week = await owner.get('/app/week');
    expect(week.text).to.include('<li class="end"><a href="/settings">Settings</a></li>');
    expect([(await owner.get('/settings')).status, (await owner.get('/settings')).headers.get('location')]).to.deep.equal([
      303,
      '/settings/workspace',
    ]);
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    expect((await member.get('/settings')).headers.get('location')).to.equal('/app/profile');
    // The member's Profile leads on to the rest of Settings.
    expect((await member.get('/app/profile')).text).to.include('Also in <a href="/settings/tokens">Settings</a>');
    // The settings tabs: the workspace and its members first; every page has the way back.
    const workspace = await owner.get('/settings/workspace');
    expect([...workspace.text.matchAll(/<li><a href="\/settings\/([a-z]+)"/g)].map((m) => m[1])).to.deep.equal([
      'workspace',
      'members',
      'tokens',
      'webhooks',
      'import',
      'mail',
    ]);
    for (const path of ['workspace', 'members', 'tokens', 'webhooks', 'import', 'mail']) {
      const page = await owner.get(`/settings/${path}`);
      expect(page.status, path).to.equal(200);
      expect(page.text, path).to.include('<li class="end"><a href="/app/week">Track time</a></li>');
    }
    // Signed out, the pages still say which product they are, with nobody's navigation.
    const signIn = await new SettingsClient(server).get('/settings/sign-in');
    expect(signIn.text).to.include('<header class="top"><span class="brand">timetrack</span></header>');
    expect(signIn.text).to.not.include('<nav class="tabs"');
  });

  it('mints a token with the chosen scopes and expiry, shows it once, and keeps a bad form as it was sent', async () => {
    const bad = await owner.submit('/settings/tokens', '/settings/tokens', {
      name: 'Nightly export',
      scopes: ['entries:read', 'reports:read'],
      expires: '2020-01-01',
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('expiry must be in the future.');
    expect(bad.text).to.include('value="Nightly export"');
    expect(bad.text).to.match(/value="reports:read" checked/);
    expect(bad.text).to.include('value="2020-01-01"');
    const unknown = await owner.submit('/settings/tokens', '/settings/tokens', { name: 'X', scopes: ['entries:delete'] });
    expect(unknown.status).to.equal(400);
    expect(unknown.text).to.include('Unknown scope entries:delete');
    const made = await owner.submit('/settings/tokens', '/settings/tokens', {
      name: 'Nightly export',
      scopes: ['entries:read', 'reports:read'],
      expires: '2027-01-31',
    });
    const shown = await owner.follow(made, '/settings/tokens');
    expect(shown.status).to.equal(200);
    const token = /<code id="new-token"[^>]*>(tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43})<\/code>/.exec(shown.text)?.[1] as string;
    expect(token).to.be.a('string');
    const me = await server.request('GET', '/api/v1/me', { token });
    expect(me.status).to.equal(200);
    expect(me.body.data.scopes).to.deep.equal(['entries:read', 'reports:read']);
    const [row] = server.services.tokens.list(OPERATOR, server.workspaceId).filter((t) => t.name === 'Nightly export');
    expect(row).to.include({ expiresAt: '2027-01-31T00:00:00.000Z' });
    // A reload shows it no more, and mints nothing.
    const again = await owner.get('/settings/tokens');
    expect(again.text).not.to.include(token);
    expect(server.services.tokens.list(OPERATOR, server.workspaceId).filter((t) => t.name === 'Nightly export')).to.have.length(1);
    expect(again.text).to.include(`tt_${row?.prefix}_…`);
  });

  it('refuses a webhook target without telling how names resolve, and keeps the form; a good one shows its secret once', async () => {
    const bad = await owner.submit('/settings/webhooks', '/settings/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['entry.created'],
    });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include(
      'url: this target is not allowed: webhooks go to https URLs whose host name resolves to public addresses only.',
    );
    expect(bad.text).to.include('(WEBHOOK_ALLOW_PRIVATE_TARGETS)');
    expect(bad.text).to.include('value="http://127.0.0.1:9/hook"');
    // An internal name: the page does not say what it resolves to (the log does).
    const internal = await owner.submit('/settings/webhooks', '/settings/webhooks', {
      url: 'https://localhost/x',
      events: ['entry.created'],
    });
    expect(internal.status).to.equal(400);
    expect(internal.text).to.include('this target is not allowed');
    expect(internal.text).not.to.match(/127\.0\.0\.1|::1|localhost resolves/);
    expect(server.logLines.some((line) => line.includes('webhook target refused') && line.includes('localhost resolves to'))).to.equal(
      true,
    );
    expect(bad.text).to.match(/value="entry.created" checked/);
    const none = await owner.submit('/settings/webhooks', '/settings/webhooks', { url: 'https://127.0.0.1:9/hook' });
    expect(none.status).to.equal(400);
    expect(none.text).to.include('events: name at least one');
    expect(server.services.webhooks.list(OPERATOR, server.workspaceId)).to.deep.equal([]);
  });

  it('lets an owner change the workspace settings and the invoice issuer, with every value checked', async () => {
    const form = {
      name: 'Acme GmbH',
      currency: 'usd',
      hourlyRate: '92,50',
      runawayLimitHours: '8.5',
      runawayAction: 'stopped',
      rateLimitPerMin: '240',
    };
    const saved = await owner.submit('/settings/workspace', '/settings/workspace', form);
    expect(saved.status).to.equal(303);
    expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId)).to.include({
      name: 'Acme GmbH',
      currency: 'USD',
      hourlyRate: 92.5,
      runawayLimitSec: 30600,
      runawayAction: 'stopped',
      rateLimitPerMin: 240,
    });
    const bad = await owner.submit('/settings/workspace', '/settings/workspace', { ...form, runawayLimitHours: 'ten', name: 'Kept name' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.include('runaway limit must be a number');
    expect(bad.text).to.include('value="Kept name"');
    expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).name).to.equal('Acme GmbH');
    const profile = await owner.submit('/settings/workspace', '/settings/workspace/profile', {
      legalName: 'Acme GmbH',
      addressLines: 'Hauptstraße 1\r\n\r\n2. OG',
      country: 'DE',
      paymentTermsDays: '14',
      smallBusiness: 'true',
      // What § 35a GmbHG has a GmbH's invoices name (issue 56 item 5).
      registrationNumber: 'HRB 245678 B',
      registerCourt: 'Amtsgericht Charlottenburg',
      seat: 'Berlin',
      managingDirectors: 'Jörg Weiß, Dr. Anna Schmidt',
    });
    expect(profile.status).to.equal(303);
    expect(server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).businessProfile).to.deep.equal({
      legalName: 'Acme GmbH',
      addressLines: ['Hauptstraße 1', '2. OG'],
      country: 'DE',
      paymentTermsDays: 14,
      smallBusiness: true,
      registrationNumber: 'HRB 245678 B',
      registerCourt: 'Amtsgericht Charlottenburg',
      seat: 'Berlin',
      managingDirectors: 'Jörg Weiß, Dr. Anna Schmidt',
    });
    const badProfile = await owner.submit('/settings/workspace', '/settings/workspace/profile', {
      legalName: 'Acme GmbH',
      country: 'Germany',
    });
    expect(badProfile.status).to.equal(400);
    expect(badProfile.text).to.include('country');
    const page = await owner.get('/settings/workspace');
    expect(page.text).to.include('Hauptstraße 1\n2. OG</textarea>');
    expect(page.text).to.include('<legend>Company register</legend>');
    expect(page.text).to.match(/<input id="profile-registerCourt" name="registerCourt" type="text" value="Amtsgericht Charlottenburg"/);
    expect(page.text).to.match(
      /<input id="profile-managingDirectors" name="managingDirectors" type="text" value="Jörg Weiß, Dr\. Anna Schmidt"/,
    );
  });

  it('lets an owner narrow a member at once, make them an owner, and make their setup link', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const token = server.services.tokens.create(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, name: 't', scopes: [] }).token;
    expect((await server.request('GET', '/api/v1/me', { token })).body.data.visibility).to.deep.equal({
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const narrowed = await owner.submit('/settings/members', `/settings/members/${bea.id}`, {
      canViewOthersTime: 'true',
      hourlyRate: '70',
    });
    expect(narrowed.status).to.equal(303);
    expect((await server.request('GET', '/api/v1/me', { token })).body.data.visibility).to.deep.equal({
      canViewOthersTime: true,
      canViewOthersMoney: false,
    });
    expect(server.services.accounts.getMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id })).to.include({
      hourlyRate: 70,
      isOwner: false,
    });
    const badRate = await owner.submit('/settings/members', `/settings/members/${bea.id}`, { hourlyRate: 'seventy' });
    expect(badRate.status).to.equal(400);
    // Named, at its field and tied to it for screen readers, the form as sent.
    expect(badRate.text).to.include('Bea: the hourly rate must be a number such as 85 or 92.50, or empty for none.');
    expect(badRate.text).to.match(
      new RegExp(`id="${bea.id}-rate"[^>]*value="seventy"[^>]*aria-invalid="true" aria-describedby="${bea.id}-rate-error"`),
    );
    expect(badRate.text).to.include(`<span class="field-error" id="${bea.id}-rate-error">Bea: the hourly rate must be`);
    const link = await owner.submit('/settings/members', `/settings/members/${bea.id}/invite`, {});
    const linkPage = await owner.follow(link, '/settings/members');
    const url = /<code id="setup-link"[^>]*>([^<]+)<\/code>/.exec(linkPage.text)?.[1] as string;
    expect(url).to.match(new RegExp(`^${server.url}/settings/setup/[A-Za-z0-9_-]{43}$`));
    const beaClient = new SettingsClient(server);
    const setup = await beaClient.get(new URL(url).pathname);
    expect(setup.status).to.equal(200);
    expect(setup.text).to.include('For <strong>Bea</strong> (bea@example.org)');
  });

  it('switches between the workspaces of the account, and only to those', async () => {
    const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Side project' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: server.ownerId });
    const stranger = server.services.accounts.createWorkspace(OPERATOR, { name: 'Not mine' });
    const before = await owner.get('/settings/tokens');
    expect(before.text).to.include('<option value="' + other.id + '"');
    const switched = await owner.submit('/settings/tokens', '/settings/switch', { workspaceId: other.id });
    expect(switched.status).to.equal(303);
    const page = await owner.get('/settings/tokens');
    expect(page.text).to.include('Your tokens in Side project');
    // Not an owner there: no owners' tabs.
    expect(page.text).not.to.include('href="/settings/members"');
    const refused = await owner.submit('/settings/tokens', '/settings/switch', { workspaceId: stranger.id });
    expect(refused.status).to.equal(404);
    expect((await owner.get('/settings/tokens')).text).to.include('Your tokens in Side project');
  });
});
