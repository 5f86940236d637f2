import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { type RunningServer, startServer } from '../../../src/server.js';
import type { TestServer } from '../../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { SettingsClient } from '../../helpers/settings-client.js';

/**
 * Issue 44 (informational): the sign-in and reset budgets were counted in memory and started
 * afresh on every restart, so a guesser who could make the server restart (or wait for a deploy)
 * got new budgets. They are counted in the database now: a restart keeps them.
 */
describe('settings page: sign-in and reset budgets outlive a restart', function () {
  this.timeout(120_000);
  let dir: string;
  let relay: TestRelay;
  let running: RunningServer | null = null;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-budgets-'));
    relay = await startRelay();
  });
  after(async () => {
    await running?.close();
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async () => {
    const config = parseConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'timetrack.db'),
      SCHEDULER_CRON: 'off',
      READER_THREADS: '0',
      SMTP_URL: plainUrl(relay),
      MAIL_FROM: 'Timetrack <time@example.org>',
    });
    running = await startServer(config, { logger: createLogger('silent'), announce: () => {} });
    return new SettingsClient({ url: running.url } as TestServer);
  };
  const forgot = async (client: SettingsClient, email: string) => {
    const form = await client.get('/settings/forgot');
    return client.post('/settings/forgot', { _csrf: SettingsClient.csrf(form.text), email });
  };

  it('keeps a spent sign-in budget and a spent reset budget across a restart', async () => {
    const before = await serve();
    for (let n = 0; n < 5; n++) expect((await before.signIn('owner@localhost', `wrong guess number ${n}`)).status).to.equal(401);
    expect((await before.signIn('owner@localhost', 'one guess too many')).status).to.equal(429);
    for (let n = 0; n < 3; n++) expect((await forgot(before, 'someone@example.org')).status).to.equal(200);
    expect((await forgot(before, 'someone@example.org')).status).to.equal(429);

    await running!.close();
    running = null;
    const after = await serve();
    const signIn = await after.signIn('owner@localhost', 'a guess after the restart');
    expect(signIn.status).to.equal(429);
    expect(signIn.headers.get('retry-after')).to.match(/^\d+$/);
    expect(signIn.text).to.include('Too many sign-in attempts.');
    expect((await forgot(after, 'someone@example.org')).status).to.equal(429);
    // Another address typed is not held up by them.
    expect((await forgot(after, 'other@example.org')).status).to.equal(200);
  });
});
