import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
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
  let relay: TestRelay;
  let server: TestServer;
  let carl: SettingsClient;
  let carlId: string;

  beforeEach(async () => {
    relay = await startRelay();
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
    carlId = server.services.accounts.createUser(OPERATOR, { name: 'Carl', email: 'carl@example.org' }).id;
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: carlId });
    carl = new SettingsClient(server);
    await carl.setUp(carlId, PASSWORD);
  });
  afterEach(async () => {
    await server.close();
    await relay.close();
  });

  /** A reset link mailed to carl@example.org, as "Forgot your password?" sends it. */
  const resetLink = async (): Promise<string> => {
    const visitor = new SettingsClient(server);
    const form = await visitor.get('/settings/forgot');
    expect((await visitor.post('/settings/forgot', { _csrf: SettingsClient.csrf(form.text), email: 'carl@example.org' })).status).to.equal(
      200,
    );
    const received = await relay.until(relay.received.length + 1);
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
    expect((await new SettingsClient(server).signIn('carl@example.org', NEW_PASSWORD)).status).to.equal(401);
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
      email: 'carl@new.example.org',
      emailPassword: PASSWORD,
      timeZone: 'UTC',
      weekStart: 'monday',
    });
    expect(saved.status).to.equal(303);
    const confirmation = new URL(
      linkIn(relay.received.find((m) => m.to.includes('carl@new.example.org')) ?? (await relay.until(2))[1]!, 'confirm-email'),
    ).pathname;
    const page = await carl.get(confirmation);
    expect((await carl.post(confirmation, { _csrf: SettingsClient.csrf(page.text) })).status).to.equal(200);
    await ended(link);
  });

  it('an email changed by the operator, or a password the operator sets, ends it too', async () => {
    const first = await resetLink();
    server.services.accounts.setUser(OPERATOR, carlId, { email: 'carl@elsewhere.example.org' });
    await ended(first);
    server.services.accounts.setUser(OPERATOR, carlId, { email: 'carl@example.org' });
    const second = await resetLink();
    server.clock.advance(1000);
    await server.services.sessions.setPassword(OPERATOR, carlId, 'the operator’s new password');
    await ended(second);
  });
});
