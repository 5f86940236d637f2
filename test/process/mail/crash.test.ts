import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { systemClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { parseMailSettings } from '../../../src/modules/mail/service.js';
import { OPERATOR } from '../../../src/principal.js';
import { loadSecretKey } from '../../../src/secret-key.js';
import { createServices } from '../../../src/services.js';
import { send } from '../../helpers/server.js';
import { plainUrl, startRelay } from '../../helpers/smtp.js';
import { closedPort } from '../../helpers/mail-world.js';
import { MAIN } from '../../helpers/entry.js';

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('mail survives a crash', function () {
  this.timeout(90_000);

  it('SIGKILL with a message queued and one in flight: after a restart each arrives, and none the relay accepted is sent again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-mail-crash-'));
    const databasePath = join(dir, 'timetrack.db');
    const relay = await startRelay();
    // The first message is accepted; the second is held at DATA (its reply never comes): in flight at the kill.
    relay.answer((n) => (n === 2 ? 'hold' : 'accept'));
    const port = await closedPort();
    const mailEnv = { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' };
    const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_PATH: databasePath, LOG_LEVEL: 'warn', ...mailEnv };
    const children: ChildProcess[] = [];
    const start = async () => {
      const child = spawn(process.execPath, [...MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (c) => (out += c));
      child.stderr!.on('data', (c) => (out += c));
      await until(
        async () => (await send(`http://127.0.0.1:${port}`, 'GET', '/api/v1/openapi.json').catch(() => null))?.status === 200,
        30_000,
        `the server (${out})`,
      );
      return child;
    };
    try {
      const first = await start();
      // Another process (a command line's) writes the messages: the server's tick finds them.
      const database = openDatabase(databasePath);
      const problems: string[] = [];
      const services = createServices(database, {
        clock: systemClock,
        secretKey: loadSecretKey(databasePath, undefined),
        mail: { settings: parseMailSettings(mailEnv, problems), links: () => null },
      });
      const workspaceId = services.accounts.listWorkspaces(OPERATOR)[0]!.id;
      const queue = (to: string) =>
        services.mail.message({
          kind: 'message',
          to: { address: to },
          workspaceId,
          userId: null,
          subject: `For ${to}`,
          text: 'x',
          html: '<p>x</p>',
        });
      const state = (id: string) =>
        database.sqlite.prepare('select status, attempts, claimed_until as claimedUntil from mail_messages where id = ?').get(id) as {
          status: string;
          attempts: number;
          claimedUntil: number | null;
        };
      try {
        const a = queue('a@example.org');
        await relay.until(1);
        await until(() => state(a).status === 'sent', 10_000, 'a recorded as sent');
        const b = queue('b@example.org');
        await until(() => relay.attempts === 2, 10_000, 'b in flight');
        const c = queue('c@example.org');
        first.kill('SIGKILL');
        await new Promise((resolve) => first.once('exit', resolve));
        expect(state(b)).to.include({ status: 'queued', attempts: 0 });
        expect(state(b).claimedUntil).to.be.a('number');
        expect(state(c)).to.include({ status: 'queued', attempts: 0 });

        await start();
        await relay.until(3, 20_000);
        await until(() => state(b).status === 'sent' && state(c).status === 'sent', 10_000, 'b and c recorded as sent');
        const ids = relay.received.map((m) => m.parsed.messageId);
        expect(ids.filter((id) => id === `<${a}@example.org>`)).to.have.length(1);
        expect(ids.filter((id) => id === `<${b}@example.org>`)).to.have.length(1);
        expect(ids.filter((id) => id === `<${c}@example.org>`)).to.have.length(1);
        // The held attempt reached the relay's DATA once before the kill: the relay saw b twice, accepted it once.
        expect(relay.attempts).to.equal(4);
        expect(state(a)).to.include({ attempts: 1 });
        expect(state(b)).to.include({ attempts: 1, claimedUntil: null });
        // The kill may reset the connection held at DATA (the relay hears it, not the next test); nothing else failed.
        expect(relay.errors.map((e) => (e as NodeJS.ErrnoException).code).filter((code) => code !== 'ECONNRESET')).to.deep.equal([]);
      } finally {
        database.close();
      }
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      await relay.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
