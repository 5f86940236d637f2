import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { bootstrapIfEmpty } from '../../../src/bootstrap.js';
import { runCli } from '../../../src/cli/main.js';
import { systemClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { parseMailSettings } from '../../../src/modules/mail/service.js';
import { createServices } from '../../../src/services.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';

describe('timetrack mail …', function () {
  this.timeout(30_000);
  let dir: string;
  let databasePath: string;
  let relay: TestRelay;
  let workspaceId: string;
  const secretKey = randomBytes(32);
  let smtpUrl: string | null;

  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const problems: string[] = [];
    const settings = smtpUrl === null ? null : parseMailSettings({ SMTP_URL: smtpUrl, MAIL_FROM: 'time@example.org' }, problems);
    const code = await runCli(argv, {
      openDatabase: () => openDatabase(databasePath),
      createServices: (database) => createServices(database, { clock: systemClock, secretKey, mail: { settings, links: () => null } }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    let json: any;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr, json };
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-mail-cli-'));
    databasePath = join(dir, 'timetrack.db');
    relay = await startRelay();
    smtpUrl = plainUrl(relay);
    const database = openDatabase(databasePath);
    const services = createServices(database, { clock: systemClock, secretKey });
    workspaceId = bootstrapIfEmpty(services.write, services.accounts, services.tokens)!.workspaceId;
    database.close();
  });
  afterEach(async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mail test ADDRESS sends a test message now and prints what the relay answered; a refusal exits 1 with it', async () => {
    const ok = await cli('mail', 'test', 'ada@example.org', '--json');
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.json).to.include({ to: 'ada@example.org', status: 'sent' });
    expect(ok.json.relay).to.match(/^smtp:\/\/127\.0\.0\.1:\d+ \(no TLS\)$/);
    expect(ok.json.response).to.match(/^250 /);
    const [got] = await relay.until(1);
    expect(got!.parsed.subject).to.equal('timetrack: test message');
    expect(got!.parsed.text).to.include('If you read this, the server can send mail.');

    relay.answer(() => ({ code: 550, text: 'Relaying denied' }));
    const refused = await cli('mail', 'test', 'ada@example.org', '--json');
    expect(refused.code).to.equal(1);
    expect(refused.json).to.include({ status: 'permanent', error: 'rejected' });
    expect(JSON.parse(refused.stderr).error.message).to.match(/the relay did not take it \(rejected\): 550 .*Relaying denied/);

    const smuggled = await cli('mail', 'test', 'ada@example.org, eve@evil.example');
    expect(smuggled.code).to.equal(1);
    expect(smuggled.stderr).to.match(/cannot receive mail from here/);
    smtpUrl = null;
    const off = await cli('mail', 'test', 'ada@example.org');
    expect(off.code).to.equal(1);
    expect(off.stderr).to.include('Mail is off on this server: set SMTP_URL and MAIL_FROM');
  });

  it('mail list shows the log, newest first; mail retry sends a given-up message again now', async () => {
    const database = openDatabase(databasePath);
    let id: string;
    try {
      const services = createServices(database, {
        clock: systemClock,
        secretKey,
        mail: { settings: parseMailSettings({ SMTP_URL: smtpUrl!, MAIL_FROM: 'time@example.org' }, []), links: () => null },
      });
      id = services.mail.message({
        kind: 'message',
        to: { address: 'ada@example.org' },
        workspaceId,
        userId: null,
        subject: 'Hello',
        text: 'x',
        html: 'x',
      });
      relay.answer((n) => (n === 1 ? { code: 554, text: 'Message refused' } : 'accept'));
      await services.mail.deliver();
    } finally {
      database.close();
    }
    const listed = await cli('mail', 'list', '--workspace', workspaceId, '--json');
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.json.queued).to.equal(0);
    expect(listed.json.messages).to.have.length(1);
    expect(listed.json.messages[0]).to.include({
      id,
      recipient: 'ada@example.org',
      subject: 'Hello',
      status: 'failed',
      attempts: 1,
      error: 'rejected',
    });
    expect(listed.json.messages[0].detail).to.match(/554 .*Message refused/);
    expect((await cli('mail', 'list', '--workspace', 'ws_nope')).code).to.equal(1);

    const retried = await cli('mail', 'retry', id, '--json');
    expect(retried.code, retried.stderr).to.equal(0);
    expect(retried.json).to.include({ id, status: 'sent' });
    await relay.until(1);
    const again = await cli('mail', 'retry', id);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include('This message was sent already');
  });
});
