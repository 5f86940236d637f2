import { expect } from 'chai';
import type { Attachment } from 'mailparser';
import { runCli } from '../../../src/cli/main.js';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Payment reminders through the real server and a real SMTP server on 127.0.0.1 (issue 57 item 3):
 * the scheduler's tick mails one reminder per level with the documents the invoice was mailed
 * with, records it on the invoice, and sends none twice. Its own server: mail is set by the
 * server's environment (SMTP_URL), which the shared one does not have. The clock starts at
 * 2026-11-02, the invoice's issue date; it is due on 2026-11-16.
 */
describe('web app: payment reminders by mail', function () {
  this.timeout(120_000);
  let server: TestServer;
  let relay: TestRelay;
  before(async () => {
    relay = await startRelay();
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>', TZ: 'Europe/Berlin' } });
  });
  after(async () => {
    await server?.close();
    await relay?.close();
  });

  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => ({ ...server.running.database, close: () => {} }),
      createServices: () => server.services,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stderr, stdout };
  };
  const tick = async () => {
    await server.running.scheduler.tick();
    await server.services.mail.idle();
  };

  it('a reminder arrives once per level with the PDF and the XML the invoice was sent with, recorded on the invoice', async () => {
    const { services, workspaceId, ownerId } = server;
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2026-11-02' });
    await services.invoices.send(OPERATOR, id, { userId: ownerId, to: 'billing@acme.example', xml: 'xrechnung-cii', message: null });
    await tick();
    await relay.until(1);
    expect((await cli('workspace', 'invoicing', workspaceId, '--set', 'reminders=7, 21')).code).to.equal(0);

    // Six days past due (2026-11-22 in Berlin): nothing yet.
    server.clock.set(Date.parse('2026-11-22T12:00:00Z'));
    await tick();
    expect(relay.received).to.have.length(1);
    // Seven days past due: the first reminder.
    server.clock.set(Date.parse('2026-11-23T08:00:00Z'));
    await tick();
    const [, reminder] = await relay.until(2);
    expect(reminder!.to).to.deep.equal(['billing@acme.example']);
    expect(reminder!.parsed.subject).to.equal('Payment reminder: invoice 2026-0001 – Ada Lovelace Design');
    const text = reminder!.parsed.text ?? '';
    for (const part of [
      'according to our records, invoice 2026-0001 of 2 Nov 2026 for €1,130.50 was due on 16 Nov 2026, and €1,130.50 of it is still open.',
      'The invoice is attached again: the PDF, and 2026-0001-xrechnung-cii.xml as an e-invoice for your accounting system.',
      'Amount due: €1,130.50',
      'Overdue by: 7 days',
    ])
      expect(text).to.include(part);
    const attachments = reminder!.parsed.attachments as Attachment[];
    expect(attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([
      ['2026-0001.pdf', 'application/pdf'],
      ['2026-0001-xrechnung-cii.xml', 'application/xml'],
    ]);
    expect(attachments[0]!.content.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    expect(attachments[1]!.content.toString('utf8')).to.include('<ram:ID>2026-0001</ram:ID>');

    // Recorded on the invoice with its mail; ticks later the same day send nothing more.
    const log = server.services.mail.log(OPERATOR, { workspaceId }).messages;
    const mailed = log.find((m) => m.kind === 'invoice-reminder');
    expect(mailed).to.deep.include({ recipient: 'billing@acme.example', status: 'sent' });
    expect(services.invoices.reminders(OPERATOR, id)).to.deep.equal([
      {
        level: 1,
        at: '2026-11-23T08:00:00.000Z',
        daysOverdue: 7,
        amountDue: 1130.5,
        to: 'billing@acme.example',
        files: ['2026-0001.pdf', '2026-0001-xrechnung-cii.xml'],
        mailId: mailed!.id,
        delivery: 'sent',
      },
    ]);
    server.clock.set(Date.parse('2026-11-23T18:00:00Z'));
    // The Overdue view names the last reminder.
    const owner = new SettingsClient(server);
    await owner.setUp(ownerId, PASSWORD);
    const overdue = (await owner.get('/app/invoices?status=overdue')).text.replace(/\s+/g, ' ');
    expect(overdue).to.include('<td data-label="Days overdue" class="num">7</td>');
    expect(overdue).to.include('<td data-label="Last reminder">Reminder 1 on 23 Nov 2026</td>');
    // The invoice's page lists its reminders (times in the viewer's zone, Berlin here), and `invoice show` prints them.
    const page = (await owner.get(`/app/invoices/${id}`)).text.replace(/\s+/g, ' ');
    expect(page).to.include('<h2 id="reminders-heading">Payment reminders</h2>');
    expect(page).to.include(
      '<td data-label="Level">1</td> <td data-label="When" class="c-time">23 Nov 2026, 09:00 CET</td> <td data-label="Days overdue" class="num">7</td> <td data-label="Amount due" class="num">€1,130.50</td> <td data-label="To">billing@acme.example</td> <td data-label="Files">2026-0001.pdf, 2026-0001-xrechnung-cii.xml</td> <td data-label="Delivery">sent</td>',
    );
    const shown = await cli('invoice', 'show', id, '--json');
    expect(shown.code, shown.stderr).to.equal(0);
    expect(JSON.parse(shown.stdout).reminders).to.deep.equal(services.invoices.reminders(OPERATOR, id));
    await tick();
    await tick();
    expect(relay.received).to.have.length(2);

    // Paid in full before the second level: no second reminder.
    services.invoices.pay(OPERATOR, id, { amount: '1130.50', userId: ownerId, date: '2026-11-23' });
    server.clock.set(Date.parse('2026-12-10T12:00:00Z'));
    await tick();
    expect(relay.received).to.have.length(2);
    expect(services.invoices.reminders(OPERATOR, id).map((r) => r.level)).to.deep.equal([1]);
  });

  it('a reminder the tick could not send (the mail budget spent) is said on the invoice’s page, in the reader’s language', async () => {
    const { services, workspaceId, ownerId } = server;
    const { clientId } = freelancer(server, { email: 'ap@beta.example', name: 'Beta' });
    server.clock.set(Date.parse('2026-12-10T12:00:00Z'));
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2026-12-10' });
    // Due 2026-12-24; seven days past due on 31 December in Berlin, the workspace's mail budget spent then.
    server.clock.set(Date.parse('2026-12-31T10:00:00Z'));
    services.write(() => {
      for (let i = 0; i < 50; i++) services.mail.spend({ kind: 'reminder', userId: null, workspaceId });
    });
    const before = relay.received.length;
    await tick();
    expect(relay.received).to.have.length(before);
    const owner = new SettingsClient(server);
    await owner.setUp(ownerId, PASSWORD);
    const said = async () => {
      const page = (await owner.get(`/app/invoices/${id}`)).text.replace(/\s+/g, ' ');
      return /<section class="sends reminders"[^>]*> <h2 id="reminders-heading">([^<]*)<\/h2> <div class="notice error" role="status"> ([^<]*) <\/div>/
        .exec(page)
        ?.slice(1);
    };
    expect(await said()).to.deep.equal([
      'Payment reminders',
      'Reminder 1 due since 31 Dec 2026, not sent: the workspace’s mail budget was spent; tried again hourly.',
    ]);
    services.accounts.setPreferences(OPERATOR, ownerId, { language: 'de' });
    try {
      expect(await said()).to.deep.equal([
        'Zahlungserinnerungen',
        'Erinnerung der Stufe 1 fällig seit 31.12.2026, nicht gesendet: Das Mail-Kontingent des Arbeitsbereichs war aufgebraucht; stündlich neuer Versuch.',
      ]);
    } finally {
      services.accounts.setPreferences(OPERATOR, ownerId, { language: 'en' });
    }
  });
  it('a reminder not sent for want of an address is said on the invoice’s page, which asks for the recipient’s email; filled, the next tick sends it', async () => {
    const { services, workspaceId, ownerId } = server;
    // A client without an email: the invoice's recipient has none.
    const { clientId } = freelancer(server, { name: 'Gamma' });
    server.clock.set(Date.parse('2027-01-04T12:00:00Z'));
    const id = services.invoices.create(OPERATOR, { workspaceId, userId: ownerId, clientId, from: '2026-10-01', to: '2026-10-31' }).id;
    services.invoices.issue(OPERATOR, id, { userId: ownerId, date: '2027-01-04' });
    // Due 2027-01-18; seven days past due on 25 January in Berlin.
    server.clock.set(Date.parse('2027-01-25T10:00:00Z'));
    await tick();
    expect(services.invoices.reminders(OPERATOR, id)).to.deep.equal([]);
    const owner = new SettingsClient(server);
    await owner.setUp(ownerId, PASSWORD);
    const page = (await owner.get(`/app/invoices/${id}`)).text.replace(/\s+/g, ' ');
    expect(
      /<section class="sends reminders"[^>]*> <h2 id="reminders-heading">([^<]*)<\/h2> <div class="notice error" role="status"> ([^<]*) <\/div>/
        .exec(page)
        ?.slice(1),
    ).to.deep.equal([
      'Payment reminders',
      'Reminder 1 due since 25 Jan 2027, not sent: its recipient has no email address mail can reach (fill in the recipient’s email above; an address it was issued with changes only by voiding it and issuing a new one); tried again hourly.',
    ]);
    const field = /<input id="(fill-\d+)" name="recipient\.email" value="" \/>/.exec(page);
    expect(field, 'the fill form asks for recipient.email').to.not.equal(null);
    const filled = await owner.post(`/app/invoices/${id}/fill`, {
      _csrf: SettingsClient.csrf(page),
      'recipient.email': 'ap@gamma.example',
    });
    expect(filled.status, filled.text).to.equal(303);
    server.clock.set(Date.parse('2027-01-25T11:00:00Z'));
    await tick();
    expect(services.invoices.reminders(OPERATOR, id).map((r) => [r.level, r.to, r.delivery])).to.deep.equal([
      [1, 'ap@gamma.example', 'sent'],
    ]);
    expect(relay.received.filter((m) => m.to.includes('ap@gamma.example')).map((m) => m.parsed.subject)).to.deep.equal([
      'Payment reminder: invoice 2027-0001 – Ada Lovelace Design',
    ]);
    expect(services.invoices.reminderSkip(OPERATOR, id)).to.equal(null);
    expect((await owner.get(`/app/invoices/${id}`)).text).to.not.include('not sent:');
  });
});
