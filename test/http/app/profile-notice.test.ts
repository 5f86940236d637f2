import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * Issue 44 (informational): `/app/profile?done=email&to=…` showed any text of the address bar in
 * a success notice ("We mailed a link to …"), so a link could make the page say anything. The
 * notice now names the address the server itself mailed, and nothing of the query.
 */
describe('web app: the Profile page’s notice after an email change says only what the server did', () => {
  let relay: TestRelay;
  let server: TestServer;
  before(async () => {
    relay = await startRelay();
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  });
  after(async () => {
    await server.close();
    await relay.close();
  });

  it('names the address the link was mailed to, and never text from the address bar', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const forged = await owner.get(`/app/profile?done=email&to=${encodeURIComponent('Your account is locked: call +1 555 0100')}`);
    expect(forged.status).to.equal(200);
    expect(forged.text).not.to.include('call +1 555 0100');
    expect(flat(forged.text)).to.include('<div class="notice ok" role="status">Saved.</div>');

    const saved = await owner.submit('/app/profile', '/app/profile', {
      name: 'Olga',
      email: 'olga@example.org',
      emailPassword: PASSWORD,
      timeZone: 'UTC',
      weekStart: 'monday',
    });
    expect([saved.status, saved.headers.get('location')]).to.deep.equal([303, '/app/profile?done=email']);
    const page = await owner.get(`/app/profile?done=email&to=${encodeURIComponent('someone@else.example')}`);
    expect(flat(page.text)).to.include('Saved. We mailed a link to olga@example.org: your sign-in email changes when you open it');
    expect(page.text).not.to.include('someone@else.example');
  });
});
