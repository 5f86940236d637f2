import { readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../../src/modules/mail/service.js';
import { generate } from 'selfsigned';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { closedPort, mailWorld } from '../../helpers/mail-world.js';

/** A CA of the test's own and the relay's certificate for 127.0.0.1 (an IP address SAN), signed by it. */
async function relayPki() {
  const ec = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;
  const ca = await generate([{ name: 'commonName', value: 'timetrack mail test CA' }], {
    ...ec,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    ...ec,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { ca: ca.cert, cert: { key: leaf.private, cert: leaf.cert } };
}

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'mail');

describe('mail: the outbox against a real SMTP server', function () {
  this.timeout(30_000);
  let relay: TestRelay;
  beforeEach(async () => {
    relay = await startRelay();
  });
  afterEach(() => relay.close());

  const message = (world: ReturnType<typeof mailWorld>, overrides: Record<string, unknown> = {}) =>
    world.services.mail.message({
      kind: 'message',
      to: { address: 'ada@example.org', name: 'Ada Lovelace' },
      workspaceId: world.workspaceId,
      userId: null,
      subject: 'Your timesheet',
      text: 'Attached: the timesheet.\n',
      html: '<p>Attached: the <b>timesheet</b>.</p>',
      ...overrides,
    });

  it('sends one message: From, To, Subject, Message-ID, Date, both bodies, and attachments with their names, types and bytes', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      const pdf = readFileSync(join(FIXTURES, 'timesheet.pdf'));
      const bin = readFileSync(join(FIXTURES, 'data.bin'));
      const id = message(world, {
        attachments: [
          { name: 'timesheet.pdf', type: 'application/pdf', bytes: pdf },
          { name: 'data.bin', type: 'application/octet-stream', bytes: bin },
        ],
      });
      await world.services.mail.deliver();
      const [got] = await relay.until(1);
      expect(got!.from).to.equal('time@example.org');
      expect(got!.to).to.deep.equal(['ada@example.org']);
      const p = got!.parsed;
      expect(p.from?.value).to.deep.equal([{ address: 'time@example.org', name: 'Timetrack' }]);
      expect((p.to as { value: unknown[] }).value).to.deep.equal([{ address: 'ada@example.org', name: 'Ada Lovelace' }]);
      expect(p.subject).to.equal('Your timesheet');
      expect(p.messageId).to.equal(`<${id}@example.org>`);
      expect(p.date?.getTime()).to.equal(world.clock.now() - (world.clock.now() % 1000));
      expect(p.text).to.equal('Attached: the timesheet.\n');
      expect(p.html).to.equal('<p>Attached: the <b>timesheet</b>.</p>');
      expect(p.headers.get('auto-submitted')).to.equal('auto-generated');
      expect(p.attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([
        ['timesheet.pdf', 'application/pdf'],
        ['data.bin', 'application/octet-stream'],
      ]);
      expect(Buffer.compare(p.attachments[0]!.content, pdf)).to.equal(0);
      expect(Buffer.compare(p.attachments[1]!.content, bin)).to.equal(0);
      const [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ id, status: 'sent', attempts: 1, error: null, recipient: 'ada@example.org', subject: 'Your timesheet' });
      expect(row!.detail).to.match(/^250 .*Queued as test/);
      // Sent: its content (which may carry a link's secret) is no longer kept.
      expect(world.database.sqlite.prepare('select sealed from mail_messages where id = ?').get(id)).to.deep.equal({ sealed: null });
    } finally {
      world.close();
    }
  });

  it('an internationalised domain (anna@bücher.example): delivered once in punycode and logged as sent, so nothing offers to send it again (issue 44 L7)', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      const id = message(world, { to: { address: 'anna@bücher.example', name: 'Anna' } });
      await world.services.mail.deliver();
      const [got] = await relay.until(1);
      // The envelope went in punycode (smtp-server reports its domain decoded), the header too.
      expect(got!.to).to.deep.equal(['anna@bücher.example']);
      expect(got!.raw.toString()).to.include('To: Anna <anna@xn--bcher-kva.example>');
      const [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ id, status: 'sent', attempts: 1, error: null, recipient: 'anna@bücher.example', nextAttemptAt: null });
      expect(() => world.services.mail.retry(OPERATOR, id)).to.throw(/sent already/);
      world.clock.advance(86_400_000);
      await world.services.mail.deliver();
      expect([relay.attempts, relay.received.length]).to.deep.equal([1, 1]);
    } finally {
      world.close();
    }
  });

  it('421 then 250: the temporary refusal is retried after its backoff, with the same Message-ID', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      relay.answer((n) => (n === 1 ? { code: 421, text: 'Try again later' } : 'accept'));
      const id = message(world);
      await world.services.mail.deliver();
      let [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ status: 'queued', attempts: 1, error: 'rejected_temporarily' });
      expect(row!.detail).to.match(/421/);
      expect(row!.nextAttemptAt).to.equal(new Date(world.clock.now() + RETRY_DELAYS_MS[0]).toISOString());
      // Not before its time.
      await world.services.mail.deliver();
      expect(relay.attempts).to.equal(1);
      world.clock.advance(RETRY_DELAYS_MS[0]);
      await world.services.mail.deliver();
      const [got] = await relay.until(1);
      expect(got!.parsed.messageId).to.equal(`<${id}@example.org>`);
      [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ status: 'sent', attempts: 2, error: null });
    } finally {
      world.close();
    }
  });

  it('550: given up at once with the reason kept; sending it again (mail retry) delivers it', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      relay.answer((n) => (n === 1 ? { code: 550, text: 'No such user here' } : 'accept'));
      const id = message(world);
      await world.services.mail.deliver();
      const [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ status: 'failed', attempts: 1, error: 'rejected', nextAttemptAt: null });
      expect(row!.detail).to.match(/550.*No such user here/);
      world.clock.advance(86_400_000);
      await world.services.mail.deliver();
      expect(relay.attempts).to.equal(1);
      expect(() => world.services.mail.retry(OPERATOR, 'mail_nope')).to.throw(/not found/);
      world.services.mail.retry(OPERATOR, id);
      const outcome = await world.services.mail.sendNow(id);
      expect(outcome).to.include({ status: 'sent' });
      expect((await relay.until(1))[0]!.parsed.messageId).to.equal(`<${id}@example.org>`);
      expect(() => world.services.mail.retry(OPERATOR, id)).to.throw(/sent already/);
    } finally {
      world.close();
    }
  });

  it('a connection dropped mid-DATA is a temporary failure, retried', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      relay.answer((n) => (n === 1 ? 'drop' : 'accept'));
      message(world);
      await world.services.mail.deliver();
      const [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ status: 'queued', attempts: 1 });
      expect(row!.error).to.be.oneOf(['connection_closed', 'network']);
      world.clock.advance(RETRY_DELAYS_MS[0]);
      await world.services.mail.deliver();
      await relay.until(1);
      expect(world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages[0]).to.include({ status: 'sent', attempts: 2 });
    } finally {
      world.close();
    }
  });

  it('a relay that refuses connections keeps the mail queued (degraded) and gives up after its last attempt', async () => {
    const world = mailWorld({ SMTP_URL: `smtp://127.0.0.1:${await closedPort()}?starttls=never` });
    try {
      expect(world.services.mail.health()).to.equal('ok');
      message(world);
      await world.services.mail.deliver();
      expect(world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages[0]).to.include({
        status: 'queued',
        error: 'connection_refused',
      });
      expect(world.services.mail.health()).to.equal('degraded');
      for (const delay of RETRY_DELAYS_MS) {
        world.clock.advance(delay);
        await world.services.mail.deliver();
      }
      const [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row).to.include({ status: 'failed', attempts: MAX_ATTEMPTS, error: 'connection_refused' });
      expect(row!.detail).to.match(/^Gave up after 9 attempts; the last: /);
      // Nothing waits any more: not degraded.
      expect(world.services.mail.health()).to.equal('ok');
    } finally {
      world.close();
    }
  });

  it('STARTTLS (required by default) with a self-signed certificate trusted through SMTP_CA_FILE; without it, a TLS failure that waits', async () => {
    const pki = await relayPki();
    await relay.close();
    relay = await startRelay({ tls: pki.cert });
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-mail-ca-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), pki.ca);
      const untrusted = mailWorld({ SMTP_URL: `smtp://127.0.0.1:${relay.port}` });
      try {
        message(untrusted);
        await untrusted.services.mail.deliver();
        expect(untrusted.services.mail.log(OPERATOR, { workspaceId: untrusted.workspaceId }).messages[0]).to.include({
          status: 'queued',
          error: 'tls',
        });
        expect(relay.attempts).to.equal(0);
      } finally {
        untrusted.close();
      }
      const trusted = mailWorld({ SMTP_URL: `smtp://127.0.0.1:${relay.port}`, SMTP_CA_FILE: join(dir, 'ca.pem') });
      try {
        message(trusted);
        await trusted.services.mail.deliver();
        await relay.until(1);
        expect(trusted.services.mail.log(OPERATOR, { workspaceId: trusted.workspaceId }).messages[0]).to.include({ status: 'sent' });
      } finally {
        trusted.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('STARTTLS required: a relay that does not offer it gets nothing in the clear', async () => {
    const world = mailWorld({ SMTP_URL: `smtp://127.0.0.1:${relay.port}` });
    try {
      message(world);
      await world.services.mail.deliver();
      expect(relay.attempts).to.equal(0);
      expect(world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages[0]).to.include({
        status: 'queued',
        error: 'tls',
      });
    } finally {
      world.close();
    }
  });

  it('header injection: CR/LF in a subject or a name never makes a header, a smuggled recipient list is refused, a quoted name is encoded', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      message(world, {
        subject: 'Hello\r\nBcc: eve@evil.example\r\nX-Injected: yes',
        to: { address: 'ada@example.org', name: 'Ada\r\nCc: eve@evil.example' },
      });
      message(world, { to: { address: 'bob@example.org', name: 'Bob "The Builder", Esq. <bob@evil.example>' } });
      for (const smuggled of [
        'ada@example.org, eve@evil.example',
        'ada@example.org;eve@evil.example',
        '"Eve" <eve@evil.example>',
        'eve@evil.example\r\nBcc: x@y.org',
        'a,b@example.org',
      ])
        expect(() => message(world, { to: { address: smuggled } }), smuggled).to.throw(/cannot receive mail from here/);
      await world.services.mail.deliver();
      const got = [...(await relay.until(2))].sort((a, b) => (a.to[0]! < b.to[0]! ? -1 : 1));
      const first = got[0]!.parsed;
      expect(got[0]!.to).to.deep.equal(['ada@example.org']);
      expect(first.subject).to.equal('Hello Bcc: eve@evil.example X-Injected: yes');
      expect(first.headers.has('bcc')).to.equal(false);
      expect(first.headers.has('cc')).to.equal(false);
      expect(first.headers.has('x-injected')).to.equal(false);
      expect((first.to as { value: unknown[] }).value).to.deep.equal([{ address: 'ada@example.org', name: 'Ada Cc: eve@evil.example' }]);
      const raw = got[0]!.raw.toString('latin1');
      expect(raw).not.to.match(/^(Bcc|Cc|X-Injected):/im);
      expect(got[1]!.to).to.deep.equal(['bob@example.org']);
      expect((got[1]!.parsed.to as { value: unknown[] }).value).to.deep.equal([
        { address: 'bob@example.org', name: 'Bob "The Builder", Esq. <bob@evil.example>' },
      ]);
    } finally {
      world.close();
    }
  });

  it('bidirectional controls never reach a header: the From and Reply-To display names and the Subject are sent without them (issue 54 N4)', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      message(world, {
        subject: 'Invoice 2026-0001 from Acme\u202Efdp.exe',
        fromName: 'Acme\u202Efdp.exe \u2066GmbH\u2069',
        replyTo: { address: 'billing@acme.example', name: '\u200FAcme\u200E Billing\u061C' },
        to: { address: 'ada@example.org', name: 'Ada\u202A Lovelace\u202C' },
      });
      await world.services.mail.deliver();
      const [got] = await relay.until(1);
      const p = got!.parsed;
      expect(p.subject).to.equal('Invoice 2026-0001 from Acmefdp.exe');
      expect(p.from?.value).to.deep.equal([{ address: 'time@example.org', name: 'Acmefdp.exe GmbH' }]);
      expect((p.replyTo as { value: unknown[] }).value).to.deep.equal([{ address: 'billing@acme.example', name: 'Acme Billing' }]);
      expect((p.to as { value: unknown[] }).value).to.deep.equal([{ address: 'ada@example.org', name: 'Ada Lovelace' }]);
      // Nor does the mail log's subject (the Mail page) hold one.
      const [row] = world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages;
      expect(row!.subject).to.equal('Invoice 2026-0001 from Acmefdp.exe');
    } finally {
      world.close();
    }
  });

  it('refuses attachments without a plain name or a media type, and a deleted account’s waiting mail is cancelled', async () => {
    const world = mailWorld({ SMTP_URL: plainUrl(relay) });
    try {
      const bytes = Buffer.from('x');
      expect(() => message(world, { attachments: [{ name: '../etc/passwd', type: 'text/plain', bytes }] })).to.throw(/plain file name/);
      expect(() => message(world, { attachments: [{ name: 'a.txt', type: 'text/plain\r\nX: y', bytes }] })).to.throw(/media type/);
      const user = world.services.accounts.createUser(OPERATOR, { name: 'Gone', email: 'gone@example.org' });
      message(world, { userId: user.id, to: { address: 'gone@example.org' } });
      world.services.accounts.deleteUser(OPERATOR, user.id);
      await world.services.mail.deliver();
      expect(relay.attempts).to.equal(0);
      expect(world.services.mail.log(OPERATOR, { workspaceId: world.workspaceId }).messages[0]).to.include({ status: 'cancelled' });
    } finally {
      world.close();
    }
  });
});
