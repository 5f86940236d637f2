import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { linkIn, plainUrl, type Received, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');
const NEW_PASSWORD = 'a new and longer passphrase';

/**
 * Issue 44, L1: a reset link mailed to the old address still worked after the email and the
 * password changed, so whoever read the old mailbox could take the account back. A change of the
 * password or of the sign-in email now ends the open reset links.
 */
describe('mail: a password or email change ends open reset links (L1)', function () {
  this.timeout(120_000);
  // One relay and one server for the file; each test has a fresh workspace with its own Carl, whose
  // addresses no other test uses.
  let relay: TestRelay;
  let shared: TestServer;
  let server: FreshWorkspace;
  let carl: SettingsClient;
  let carlId: string;
  /** Carl's sign-in email (carl.….@example.org), and the other addresses he moves to (….new, ….elsewhere). */
  let email: string;
  const other = (domain: string) => email.replace('@example.org', `@${domain}.example.org`);

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
    email = `carl.${Math.random().toString(36).slice(2)}@example.org`;
    carlId = server.services.accounts.createUser(OPERATOR, { name: 'Carl', email }).id;
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: carlId });
    carl = new SettingsClient(server);
    await carl.setUp(carlId, PASSWORD);
  });

  /** The relay's messages to `address`, once there are `n` of them. */
  const mailsTo = async (address: string, n: number): Promise<Received[]> => {
    const end = Date.now() + 15_000;
    for (;;) {
      const found = relay.received.filter((m) => m.to.includes(address));
      if (found.length >= n) return found;
      if (Date.now() > end) throw new Error(`the relay got ${found.length} of ${n} messages to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** A reset link mailed to Carl's address, as "Forgot your password?" sends it. */
  const resetLink = async (): Promise<string> => {
    const before = relay.received.filter((m) => m.to.includes(email)).length;
    const visitor = new SettingsClient(server);
    const form = await visitor.get('/settings/forgot');
    expect((await visitor.post('/settings/forgot', { _csrf: SettingsClient.csrf(form.text), email })).status).to.equal(200);
    const received = await mailsTo(email, before + 1);
    return new URL(linkIn(received[received.length - 1] as Received, 'reset')).pathname;
  };
  /** The link no longer works: its page says so, and a password posted to it sets nothing. */
  const ended = async (link: string) => {
    const other = new SettingsClient(server);
    const page = await other.get(link);
    expect(page.status).to.equal(404);
    expect(flat(page.text)).to.include('This link is not one this server made, or it was replaced by a newer one.');
    const form = await other.get('/settings/forgot');
    const posted = await other.post(link, { _csrf: SettingsClient.csrf(form.text), password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(posted.status).to.equal(404);
    expect((await new SettingsClient(server).signIn(email, NEW_PASSWORD)).status).to.equal(401);
  };

  it('a password change on the Profile page ends the link mailed before it', async () => {
    const link = await resetLink();
    const changed = await carl.submit('/app/profile', '/app/profile/password', {
      current: PASSWORD,
      password: 'yet another passphrase',
      repeat: 'yet another passphrase',
    });
    expect(changed.status).to.equal(303);
    await ended(link);
  });

  it('a confirmed change of the sign-in email ends the link mailed to the old address', async () => {
    const link = await resetLink();
    const saved = await carl.submit('/app/profile', '/app/profile', {
      name: 'Carl',
      email: other('new'),
      emailPassword: PASSWORD,
      timeZone: 'UTC',
      weekStart: 'monday',
    });
    expect(saved.status).to.equal(303);
    const confirmation = new URL(linkIn((await mailsTo(other('new'), 1))[0] as Received, 'confirm-email')).pathname;
    const page = await carl.get(confirmation);
    expect((await carl.post(confirmation, { _csrf: SettingsClient.csrf(page.text) })).status).to.equal(200);
    await ended(link);
  });

  it('an email changed by the operator, or a password the operator sets, ends it too', async () => {
    const first = await resetLink();
    server.services.accounts.setUser(OPERATOR, carlId, { email: other('elsewhere') });
    await ended(first);
    server.services.accounts.setUser(OPERATOR, carlId, { email });
    const second = await resetLink();
    server.clock.advance(1000);
    await server.services.sessions.setPassword(OPERATOR, carlId, 'the operator’s new password');
    await ended(second);
  });
});
