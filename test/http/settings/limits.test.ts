import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** The operator's limits hold on the settings page: owners and members cannot lift them. */
describe("settings page: the operator's limits", () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer({ env: { RATE_LIMIT_WORKSPACE_PER_MIN: '3000', TOKENS_PER_MEMBER: '2' } });
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });

  const workspaceForm = (rateLimitPerMin: string) => ({
    name: 'My workspace',
    currency: 'EUR',
    hourlyRate: '',
    runawayLimitHours: '10',
    runawayAction: 'flagged',
    rateLimitPerMin,
  });
  const budget = () => server.services.accounts.getWorkspace(OPERATOR, server.workspaceId).rateLimitPerMin;

  it('lets an owner lower the workspace budget or raise it up to RATE_LIMIT_WORKSPACE_PER_MIN, not beyond', async () => {
    const lifted = await owner.submit('/settings/workspace', '/settings/workspace', workspaceForm('1000000000'));
    expect(lifted.status).to.equal(400);
    expect(lifted.text).to.include('At most 3000 requests a minute, the server&#39;s limit; the person who runs timetrack can allow more.');
    expect(lifted.text).to.include('value="1000000000"');
    expect(budget()).to.equal(null);
    expect((await owner.submit('/settings/workspace', '/settings/workspace', workspaceForm('3000'))).status).to.equal(303);
    expect(budget()).to.equal(3000);
    expect((await owner.submit('/settings/workspace', '/settings/workspace', workspaceForm('120'))).status).to.equal(303);
    expect(budget()).to.equal(120);
    // The operator (the command line) may set more.
    server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { rateLimitPerMin: 1_000_000 });
    expect(budget()).to.equal(1_000_000);
  });

  it('caps the active tokens a member mints (TOKENS_PER_MEMBER); revoking one makes room; the operator is not capped', async () => {
    // The bootstrap token is the owner's first.
    const mint = (name: string) => owner.submit('/settings/tokens', '/settings/tokens', { name, scopes: ['entries:read'] });
    expect((await mint('second')).status).to.equal(303);
    const third = await mint('third');
    expect(third.status).to.equal(409);
    expect(third.text).to.include('You hold 2 active tokens, the most a member may (TOKENS_PER_MEMBER): revoke one');
    expect(third.text).to.include('value="third"');
    const second = server.services.tokens.list(OPERATOR, server.workspaceId).find((t) => t.name === 'second')?.id as string;
    const page = await owner.get('/settings/tokens');
    expect((await owner.post(`/settings/tokens/${second}/revoke`, { _csrf: SettingsClient.csrf(page.text) })).status).to.equal(303);
    expect((await mint('third')).status).to.equal(303);
    server.services.tokens.create(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId, name: 'cli', scopes: [] });
    expect(server.services.tokens.list(OPERATOR, server.workspaceId).filter((t) => t.revokedAt === null)).to.have.length(3);
  });
});
