import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { BudgetSpent } from '../../../src/errors.js';
import { MAIL_BUDGETS } from '../../../src/modules/mail/service.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');
const PHISHING = 'Your bank account is locked, call +1 555 0100 now';

/**
 * Issue 44, M5: the server's mail was a relay: any member sent 8 confirmation mails to arbitrary
 * addresses in 1.4 s with a phishing text as their name; an owner sent 15 invoice mails with any
 * message in 0.4 s. Every mail a person can cause now counts against a budget of theirs (per
 * member, per owner) and of the workspace, refused with 429 and a page saying when; text a person
 * chose appears in mail only where it must.
 */
describe('mail: budgets for every mail a person can cause (M5)', function () {
  this.timeout(180_000);
  // One relay and one server for the file; each test has a fresh workspace and signed-in owner in
  // it (budgets are per person and per workspace), at the start instant, and mails addresses of its own.
  let relay: TestRelay;
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;

  before(async () => {
    relay = await startRelay();
    shared = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  });
  after(async () => {
    await shared.close();
    await relay.close();
  });
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  const queued = (sql: string, ...params: unknown[]) =>
    server.running.database.sqlite
      .prepare(sql)
      .pluck()
      .get(...params) as number;
  /** The relay's messages to addresses `to` matches, once there are `n` of them. */
  const received = async (to: RegExp, n: number) => {
    const end = Date.now() + 15_000;
    for (;;) {
      const found = relay.received.filter((m) => m.to.some((address) => to.test(address)));
      if (found.length >= n) return found;
      if (Date.now() > end) throw new Error(`the relay got ${found.length} of ${n} messages to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('a member’s new-address confirmations: 3 an hour, the 4th refused with 429 saying when; none carries their name', async () => {
    const member = server.services.accounts.createUser(OPERATOR, { name: PHISHING, email: 'eve@example.org' }).id;
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: member });
    const eve = new SettingsClient(server);
    await eve.setUp(member, PASSWORD);
    const change = (email: string) =>
      eve.submit('/app/profile', '/app/profile', {
        name: PHISHING,
        email,
        emailPassword: PASSWORD,
        timeZone: 'UTC',
        weekStart: 'monday',
      });
    for (const n of [1, 2, 3]) expect((await change(`victim${n}@example.net`)).status).to.equal(303);
    const refused = await change('victim4@example.net');
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('3600');
    expect(flat(refused.text)).to.include(
      'Not sent: 3 confirmation links for a new sign-in email were mailed at your request in the last hour, the most one member may ask for. Try again in an hour.',
    );
    expect(queued("select count(*) from mail_messages where recipient = 'victim4@example.net'")).to.equal(0);
    const mails = await received(/^victim\d@example\.net$/, 3);
    for (const mail of mails) {
      expect(mail.parsed.text).not.to.include(PHISHING);
      expect(mail.parsed.html).not.to.include('bank account');
      expect(mail.parsed.to && 'value' in mail.parsed.to ? mail.parsed.to.value[0]?.name : null).to.equal('');
      expect(mail.parsed.text).to.include('A timetrack account asked to sign in with this address from now on.');
    }
    // An hour later it may ask again.
    server.clock.advance(3_600_000);
    expect((await change('victim4@example.net')).status).to.equal(303);
  });

  it('an owner’s setup links and invitations: 20 in 10 minutes, then 429 and nothing made', async () => {
    for (let n = 1; n <= 20; n++) {
      const added = await owner.submit('/settings/members', '/settings/members', { name: `New ${n}`, email: `new${n}@example.org` });
      expect(added.status, `add ${n}`).to.equal(303);
    }
    const users = queued('select count(*) from users');
    const refused = await owner.submit('/settings/members', '/settings/members', { name: 'One more', email: 'more@example.org' });
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 600);
    expect(flat(refused.text)).to.include(
      'Not sent: 20 setup links and invitations were mailed at your request in the last 10 minutes, the most one owner may ask for. Try again in 10 minutes.',
    );
    expect(queued('select count(*) from users')).to.equal(users);
    // "Setup link" for one of them is refused alike, and makes no link.
    const someone = server.running.database.sqlite.prepare("select id from users where email = 'new1@example.org'").pluck().get() as string;
    const links = queued(`select count(*) from setup_links where user_id = '${someone}'`);
    const again = await owner.submit('/settings/members', `/settings/members/${someone}/invite`, {});
    expect(again.status).to.equal(429);
    expect(queued(`select count(*) from setup_links where user_id = '${someone}'`)).to.equal(links);
  });

  it('an owner’s invoice mails: 10 a minute, the 11th refused with 429 saying when', async () => {
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const made = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      note: '',
      intent: 'create',
    });
    const id = /^\/app\/invoices\/(inv_[\w-]+)$/.exec(made.headers.get('location') ?? '')?.[1] as string;
    const confirm = await owner.get(`/app/invoices/${id}/issue`);
    expect((await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text) })).status).to.equal(303);
    const send = () =>
      owner.submit(`/app/invoices/${id}`, `/app/invoices/${id}/send`, { to: 'billing@acme.example', xml: 'none', message: 'Thanks!' });
    for (let n = 1; n <= 10; n++) expect((await send()).status, `send ${n}`).to.equal(303);
    const refused = await send();
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('60');
    expect(flat(refused.text)).to.include(
      'Not sent: 10 invoices were mailed at your request in the last minute, the most one owner may ask for. Try again in a minute.',
    );
    expect(queued("select count(*) from mail_messages where kind = 'invoice' and workspace_id = ?", server.workspaceId)).to.equal(10);
  });

  it('a workspace’s budget counts every person in it; the operator is not limited', () => {
    const { mail, write } = server.services;
    const [window] = MAIL_BUDGETS.workspace;
    write(() => {
      for (let n = 0; n < window!.limit; n++) mail.spend({ kind: 'invoice', userId: `usr_person${n}`, workspaceId: server.workspaceId });
    });
    let refused: unknown = null;
    try {
      write(() => mail.spend({ kind: 'verification', userId: 'usr_another', workspaceId: server.workspaceId }));
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(BudgetSpent);
    expect((refused as BudgetSpent).message).to.equal(
      'Not sent: this workspace has had 50 messages mailed in the last 10 minutes, the most one workspace may. Try again in 10 minutes.',
    );
    write(() => mail.spend({ kind: 'invoice', userId: null, workspaceId: server.workspaceId }));
  });

  it('password resets: besides the per-address budgets, 3 an hour per account; more are answered alike and not mailed', async () => {
    const carl = server.services.accounts.createUser(OPERATOR, { name: 'Carl', email: 'carl@example.org' }).id;
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: carl });
    const ask = async () => {
      const visitor = new SettingsClient(server);
      const form = await visitor.get('/settings/forgot');
      return visitor.post('/settings/forgot', { _csrf: SettingsClient.csrf(form.text), email: 'carl@example.org' });
    };
    for (let n = 0; n < 3; n++) expect((await ask()).status).to.equal(200);
    // The per-address budgets of 15 minutes have passed; the account's hour has not.
    server.clock.advance(16 * 60_000);
    const fourth = await ask();
    expect(fourth.status).to.equal(200);
    expect(flat(fourth.text)).to.include('If an account uses carl@example.org, a link to set a new password is on its way there.');
    expect(queued("select count(*) from mail_messages where kind = 'password-reset' and recipient = 'carl@example.org'")).to.equal(3);
  });
});
