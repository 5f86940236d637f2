import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { createLogger } from '../../../src/logger.js';
import { parseMailSettings } from '../../../src/modules/mail/service.js';
import type { Envelope } from '../../../src/modules/mail/transport.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices } from '../../helpers/services.js';

/*
 * Who is due which payment reminder (issue 57 item 3), over the services on :memory: with mail on
 * (a relay stand-in that keeps what it is given) and the workspace in Europe/Berlin: nothing while
 * reminders are off; one mail per invoice and level once it is that many days past due, never
 * twice, never for a paid or voided invoice or without an address; the highest level reached
 * when reminders are turned on late; recorded on the invoice with the mail's id.
 */

function setup(options: { language?: 'en' | 'de'; email?: string | null } = {}) {
  const relayed: Envelope[] = [];
  const logged: Array<Record<string, unknown>> = [];
  const world = memoryServices({
    logger: createLogger('warn', (line) => void logged.push(JSON.parse(line) as Record<string, unknown>)),
    now: Date.parse('2026-11-02T10:00:00Z'),
    defaultTimeZone: 'Europe/Berlin',
    mail: {
      settings: parseMailSettings({ SMTP_URL: 'smtp://relay.invalid', MAIL_FROM: 'time@example.org' }, []),
      links: () => 'http://localhost:8080/settings',
      relay: async (message) => {
        relayed.push(message);
        return { status: 'sent', response: '250 ok' };
      },
    },
  });
  const { services, owner, workspaceId, ownerId } = world;
  services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19, language: options.language ?? 'en' });
  services.invoices.setBusinessProfile(OPERATOR, workspaceId, {
    legalName: 'Ada Lovelace Design',
    country: 'DE',
    taxNumber: '30/123/45678',
    email: 'ada@example.org',
  });
  const email = options.email === undefined ? 'billing@acme.example' : options.email;
  const clientId = services.catalog.clients.create(owner, { name: 'Acme', country: 'DE', ...(email ? { email } : {}) } as never).id;
  const projectId = services.catalog.projects.create(owner, { name: 'Design', clientId, billable: true, hourlyRate: 100 }).id;
  services.entries.create(owner, { projectId, start: '2026-10-05T09:00:00Z', end: '2026-10-05T19:00:00Z', billable: true });
  const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
  services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2026-11-02' });
  const remindAt = async (iso: string) => {
    world.clock.set(Date.parse(iso));
    return services.invoices.remind();
  };
  const levels = () => services.invoices.reminders(OPERATOR, id).map((r) => [r.level, r.daysOverdue, r.amountDue]);
  const turnOn = (days: string) => services.invoices.setSettings(OPERATOR, workspaceId, { reminders: days });
  return { ...world, id, relayed, logged, remindAt, levels, turnOn };
}

describe('invoices service: payment reminders', () => {
  // Due 2026-11-16: 7 days past due from 2026-11-23 00:00 in Berlin (2026-11-22T23:00Z), 21 from 2026-12-07 00:00 (2026-12-06T23:00Z).
  it('sends nothing while reminders are off (the default), however late the invoice', async () => {
    const w = setup();
    try {
      expect(w.services.invoices.get(OPERATOR, w.id).dueDate).to.equal('2026-11-16');
      expect(await w.remindAt('2027-02-01T12:00:00Z')).to.equal(0);
      expect(w.levels()).to.deep.equal([]);
      expect(w.services.mail.queued()).to.equal(0);
    } finally {
      w.close();
    }
  });

  it('with 7 and 21 days: one reminder per level from the Berlin midnight it is due, never twice, recorded with its mail', async () => {
    const w = setup();
    try {
      w.turnOn('on');
      expect(await w.remindAt('2026-11-22T22:59:59Z')).to.equal(0);
      expect(await w.remindAt('2026-11-22T23:00:00Z')).to.equal(1);
      expect(w.levels()).to.deep.equal([[1, 7, 1190]]);
      expect(await w.remindAt('2026-11-23T10:00:00Z')).to.equal(0);
      expect(await w.remindAt('2026-12-06T22:59:59Z')).to.equal(0);
      expect(await w.remindAt('2026-12-06T23:00:00Z')).to.equal(1);
      expect(await w.remindAt('2026-12-30T10:00:00Z')).to.equal(0);
      expect(w.levels()).to.deep.equal([
        [1, 7, 1190],
        [2, 21, 1190],
      ]);
      const [first] = w.services.invoices.reminders(OPERATOR, w.id);
      expect(first).to.deep.include({
        to: 'billing@acme.example',
        files: ['2026-0001.pdf'],
        delivery: 'queued',
        at: '2026-11-22T23:00:00.000Z',
      });
      // Sent by the mail module's sender, as any message: the relay gets both, each with the PDF.
      await w.services.mail.deliver();
      expect(w.relayed.map((m) => [m.to.address, m.subject, m.attachments.map((a) => a.name)])).to.deep.equal([
        ['billing@acme.example', 'Payment reminder: invoice 2026-0001 – Ada Lovelace Design', ['2026-0001.pdf']],
        ['billing@acme.example', 'Second payment reminder: invoice 2026-0001 – Ada Lovelace Design', ['2026-0001.pdf']],
      ]);
      expect(w.relayed[0]?.replyTo?.address).to.equal('ada@example.org');
      expect(w.relayed[0]?.text).to.include(
        'invoice 2026-0001 of 2 Nov 2026 for €1,190.00 was due on 16 Nov 2026, and €1,190.00 of it is still open',
      );
      expect(w.relayed[1]?.text).to.include('Overdue by: 21 days');
      expect(w.services.invoices.reminders(OPERATOR, w.id)[0]?.delivery).to.equal('sent');
    } finally {
      w.close();
    }
  });

  it('a reminder travels with its invoice in the workspace’s export: the restored invoice is not reminded again at that level, its mail marked restored', async () => {
    const w = setup();
    const dir = mkdtempSync(join(tmpdir(), 'tt-reminders-'));
    try {
      w.turnOn('7');
      // A part paid before the reminder, which says what was left (1,000.00); and one recorded after it but dated
      // the day before it (a transfer entered late), which the reminder never saw (issue 57: the restore checks it so).
      w.clock.set(Date.parse('2026-11-20T10:00:00Z'));
      w.services.invoices.pay(OPERATOR, w.id, { amount: '190', userId: w.ownerId, date: '2026-11-20' });
      expect(await w.remindAt('2026-11-23T10:00:00Z')).to.equal(1);
      w.clock.set(Date.parse('2026-11-24T09:00:00Z'));
      w.services.invoices.pay(OPERATOR, w.id, { amount: '100', userId: w.ownerId, date: '2026-11-22', note: 'Transfer 4711' });
      const paymentsOf = (id: string) => w.services.invoices.payments(OPERATOR, id).map(({ id: _, ...payment }) => payment);
      let text = '';
      for await (const chunk of w.services.imports.exportWorkspace(OPERATOR, { workspaceId: w.workspaceId }).chunks) text += chunk;
      const path = join(dir, 'export.csv');
      writeFileSync(path, text);
      const { id: into } = w.services.accounts.createWorkspace(OPERATOR, { name: 'Restored', currency: 'EUR' });
      const outcome = await w.services.imports.run(OPERATOR, { workspaceId: into, path, createMembers: true });
      expect(outcome.stopped, JSON.stringify(outcome.report.refused)).to.equal(false);
      const [restored] = w.services.invoices.list(OPERATOR, into);
      const reminders = w.services.invoices.reminders(OPERATOR, (restored as { id: string }).id);
      expect(reminders.map((r) => [r.level, r.daysOverdue, r.amountDue, r.to, r.at])).to.deep.equal([
        [1, 7, 1000, 'billing@acme.example', '2026-11-23T10:00:00.000Z'],
      ]);
      // Unchanged: its payments (dates, amounts, notes, who, when recorded), what is due, and the reminder's record.
      expect(paymentsOf((restored as { id: string }).id)).to.deep.equal(paymentsOf(w.id));
      expect(paymentsOf(w.id).map((p) => [p.date, p.amount, p.recordedAt])).to.deep.equal([
        ['2026-11-20', 190, '2026-11-20T10:00:00.000Z'],
        ['2026-11-22', 100, '2026-11-24T09:00:00.000Z'],
      ]);
      expect(restored).to.deep.include({ status: 'sent', number: '2026-0001', amountDue: 900 });
      const strip = ({ mailId: _, delivery: __, ...reminder }: { mailId: string; delivery: unknown }) => reminder;
      expect(reminders.map(strip)).to.deep.equal(w.services.invoices.reminders(OPERATOR, w.id).map(strip));
      // Its mail stays with the server that sent it: marked restored, naming no message of this one.
      expect(reminders[0]?.mailId).to.match(/^restored:/);
      expect(reminders[0]?.delivery).to.equal(null);
      // The restored workspace's settings came with the file (reminders at 7 days): the tick sends the
      // original's level again for neither, and nothing new is queued.
      expect(await w.remindAt('2026-11-24T10:00:00Z')).to.equal(0);
      expect(w.services.invoices.reminders(OPERATOR, (restored as { id: string }).id)).to.have.length(1);
    } finally {
      w.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says what is still due after a partial payment, and never reminds a paid or a voided invoice', async () => {
    const w = setup();
    try {
      w.turnOn('7, 21');
      w.clock.set(Date.parse('2026-11-20T10:00:00Z'));
      w.services.invoices.pay(OPERATOR, w.id, { amount: '190', userId: w.ownerId, date: '2026-11-20' });
      expect(await w.remindAt('2026-11-23T10:00:00Z')).to.equal(1);
      expect(w.levels()).to.deep.equal([[1, 7, 1000]]);
      w.clock.set(Date.parse('2026-11-24T10:00:00Z'));
      w.services.invoices.pay(OPERATOR, w.id, { amount: '1000', userId: w.ownerId, date: '2026-11-24' });
      expect(await w.remindAt('2026-12-30T10:00:00Z')).to.equal(0);
      expect(w.levels()).to.deep.equal([[1, 7, 1000]]);

      const v = setup();
      try {
        v.turnOn('7');
        v.clock.set(Date.parse('2026-11-20T10:00:00Z'));
        v.services.invoices.void(OPERATOR, v.id, { userId: v.ownerId, date: '2026-11-20' });
        expect(await v.remindAt('2026-12-30T10:00:00Z')).to.equal(0);
        expect(v.levels()).to.deep.equal([]);
      } finally {
        v.close();
      }
    } finally {
      w.close();
    }
  });

  it('turned on when an invoice is 25 days late, sends the second level alone; none without a recipient address', async () => {
    const w = setup();
    try {
      expect(await w.remindAt('2026-12-11T10:00:00Z')).to.equal(0);
      w.turnOn('7, 21');
      expect(await w.remindAt('2026-12-11T10:05:00Z')).to.equal(1);
      expect(w.levels()).to.deep.equal([[2, 25, 1190]]);
      expect(await w.remindAt('2027-01-11T10:05:00Z')).to.equal(0);
    } finally {
      w.close();
    }
    const none = setup({ email: null });
    try {
      none.turnOn('on');
      expect(await none.remindAt('2026-12-30T10:00:00Z')).to.equal(0);
      expect(none.levels()).to.deep.equal([]);
    } finally {
      none.close();
    }
  });

  it('speaks the invoice language: a German invoice gets a Zahlungserinnerung, then a 1. Mahnung', async () => {
    const w = setup({ language: 'de' });
    try {
      w.turnOn('7, 21');
      await w.remindAt('2026-11-23T10:00:00Z');
      await w.remindAt('2026-12-07T10:00:00Z');
      await w.services.mail.deliver();
      expect(w.relayed.map((m) => m.subject)).to.deep.equal([
        'Zahlungserinnerung: Rechnung 2026-0001 – Ada Lovelace Design',
        '1. Mahnung: Rechnung 2026-0001 – Ada Lovelace Design',
      ]);
      expect(w.relayed[0]?.text).to.include(
        'nach unseren Unterlagen war die Rechnung 2026-0001 vom 02.11.2026 über 1.190,00\u00a0€ am 16.11.2026 fällig',
      );
      expect(w.relayed[0]?.text).to.include('Überfällig seit: 7 Tagen');
    } finally {
      w.close();
    }
  });

  it('a reminder not sent for want of an address (none, or one mail refuses) is logged, recorded, said by `invoice show`, and sent once a fill gives one', async () => {
    const w = setup({ email: null });
    try {
      w.turnOn('on');
      const show = async (...flags: string[]) => {
        let stdout = '';
        const code = await runCli(['invoice', 'show', w.id, ...flags], {
          openDatabase: () => ({ ...w.database, close: () => {} }),
          createServices: () => w.services,
          stdout: (text) => (stdout += text),
          stderr: () => {},
        });
        expect(code).to.equal(0);
        return stdout;
      };
      const said = async () => (await show()).split('\n').filter((l) => l.startsWith('reminder '));
      // Level 1 due since 23 November; the invoice's recipient has no email: nothing queued, the skip recorded and logged.
      expect(await w.remindAt('2026-11-23T10:00:00Z')).to.equal(0);
      expect(w.levels()).to.deep.equal([]);
      expect(w.services.mail.queued()).to.equal(0);
      expect(w.services.invoices.reminderSkip(OPERATOR, w.id)).to.deep.equal({
        level: 1,
        since: '2026-11-23',
        reason: 'address',
        detail: "the invoice's recipient has no email address",
        at: '2026-11-23T10:00:00.000Z',
      });
      expect(w.logged.map((l) => [l.level, l.msg, l.invoiceId, l.number, l.reminder, l.since, l.reason, l.detail])).to.deep.equal([
        [
          'warn',
          'payment reminder not sent',
          w.id,
          '2026-0001',
          1,
          '2026-11-23',
          'address',
          "the invoice's recipient has no email address",
        ],
      ]);
      expect(await said()).to.deep.equal([
        `reminder 1 due since 2026-11-23, not sent: no address mail can reach: the invoice's recipient has no email address (add one: timetrack invoice fill ${w.id} --user U --set recipient.email=ADDRESS); tried again hourly (last 2026-11-23T10:00:00.000Z)`,
      ]);
      expect((JSON.parse(await show('--json')) as { reminderSkip: unknown }).reminderSkip).to.deep.include({ reason: 'address', level: 1 });

      // A fill gives it an email the mail module refuses (no dot in its domain): still not sent, said in the mail module's words.
      w.services.invoices.fill(OPERATOR, w.id, w.ownerId, [['recipient.email', 'billing@acme']]);
      expect(await w.remindAt('2026-11-23T11:00:00Z')).to.equal(0);
      expect(w.services.invoices.reminderSkip(OPERATOR, w.id)).to.deep.include({
        reason: 'address',
        detail:
          'the recipient\'s email "billing@acme" cannot receive mail: its domain must be a name such as example.org (letters, digits, hyphens, dots)',
        at: '2026-11-23T11:00:00.000Z',
      });
      expect(w.logged).to.have.length(2);

      // Corrected by the fill (no document went out since), the next tick sends it to that address: nothing is said any more.
      w.services.invoices.fill(OPERATOR, w.id, w.ownerId, [['recipient.email', 'billing@acme.example']]);
      expect(await w.remindAt('2026-11-23T12:00:00Z')).to.equal(1);
      expect(w.services.invoices.reminders(OPERATOR, w.id).map((r) => [r.level, r.to])).to.deep.equal([[1, 'billing@acme.example']]);
      expect(w.services.invoices.reminderSkip(OPERATOR, w.id)).to.equal(null);
      expect(await said()).to.deep.equal([]);
      expect(w.logged).to.have.length(2);
    } finally {
      w.close();
    }
  });

  it('a reminder skipped (the mail budget spent, the PDF failing its rules) is logged, recorded and said by `invoice show` until one is sent', async () => {
    const w = setup();
    try {
      w.turnOn('on');
      const show = async () => {
        let stdout = '';
        const code = await runCli(['invoice', 'show', w.id], {
          openDatabase: () => ({ ...w.database, close: () => {} }),
          createServices: () => w.services,
          stdout: (text) => (stdout += text),
          stderr: () => {},
        });
        expect(code).to.equal(0);
        return stdout.split('\n').filter((l) => l.startsWith('reminder '));
      };
      // The workspace's budget spent by 50 messages in 10 minutes: level 1, due since 23 November, is not sent.
      w.clock.set(Date.parse('2026-11-23T08:00:00Z'));
      w.services.write(() => {
        for (let i = 0; i < 50; i++) w.services.mail.spend({ kind: 'reminder', userId: null, workspaceId: w.workspaceId });
      });
      expect(await w.remindAt('2026-11-23T08:01:00Z')).to.equal(0);
      expect(w.levels()).to.deep.equal([]);
      const skip = w.services.invoices.reminderSkip(OPERATOR, w.id);
      expect(skip).to.deep.include({ level: 1, since: '2026-11-23', reason: 'budget', at: '2026-11-23T08:01:00.000Z' });
      expect(skip?.detail).to.match(/^Not sent: this workspace has had 50 messages mailed in the last 10 minutes/);
      expect(w.logged.map((l) => [l.level, l.msg, l.invoiceId, l.number, l.reminder, l.since, l.reason])).to.deep.equal([
        ['warn', 'payment reminder not sent', w.id, '2026-0001', 1, '2026-11-23', 'budget'],
      ]);
      expect(await show()).to.deep.equal([
        `reminder 1 due since 2026-11-23, not sent: the workspace's mail budget was spent (${skip?.detail}); tried again hourly (last 2026-11-23T08:01:00.000Z)`,
      ]);

      // Its issuer's name gone from the stored invoice: the PDF cannot be made, and the next tick says so.
      const sql = (text: string) => w.services.write(() => w.database.sqlite.prepare(text).run(w.id));
      sql(`update invoices set issuer = json_remove(issuer, '$.legalName') where id = ?`);
      expect(await w.remindAt('2026-11-23T09:30:00Z')).to.equal(0);
      const refused = w.services.invoices.reminderSkip(OPERATOR, w.id);
      expect(refused).to.deep.include({ level: 1, since: '2026-11-23', reason: 'document' });
      expect(refused?.detail).to.match(/^Invoice 2026-0001 cannot be made as pdf: it lacks /);
      expect(w.logged.at(-1)).to.deep.include({ msg: 'payment reminder not sent', level: 'warn', reason: 'document', since: '2026-11-23' });
      expect((await show())[0]).to.match(
        /^reminder 1 due since 2026-11-23, not sent: its document fails its rules: Invoice 2026-0001 cannot/,
      );

      // Mended, the next tick sends it: nothing is said any more.
      sql(`update invoices set issuer = json_set(issuer, '$.legalName', 'Ada Lovelace Design') where id = ?`);
      expect(await w.remindAt('2026-11-23T10:30:00Z')).to.equal(1);
      expect(w.services.invoices.reminderSkip(OPERATOR, w.id)).to.equal(null);
      expect(await show()).to.deep.equal([]);
    } finally {
      w.close();
    }
  });
});
