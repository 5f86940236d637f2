import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Attachment } from 'mailparser';
import { runCli } from '../../../src/cli/main.js';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';

/**
 * The receipts of an invoice's expenses on its mail when the owner asks (issue 57 item 1): the
 * real server with a real SMTP server on 127.0.0.1. The server's clock stands at 2026-11-02.
 */
describe('an invoice mailed with the receipts of its expenses', function () {
  this.timeout(120_000);
  let server: TestServer;
  let relay: TestRelay;
  before(async () => {
    relay = await startRelay();
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  });
  after(async () => {
    await server.close();
    await relay.close();
  });

  /** The command line on the server's own services (as the operator on the machine runs it). */
  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli([...argv, '--json'], {
      openDatabase: () => ({ ...server.running.database, close: () => {} }),
      createServices: () => server.services,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    return { code, stderr, json: stdout ? JSON.parse(stdout) : undefined };
  };
  const png = (size: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(size - 8)]);
  const mailCount = () => server.services.mail.log(OPERATOR, { workspaceId: server.workspaceId }).messages.length;

  /** An issued invoice of October holding these expenses (each with its receipt); its id. */
  let clients = 0;
  const invoiced = (receipts: Array<{ name: string; bytes: Buffer } | null>) => {
    const { services, workspaceId } = server;
    clients += 1;
    const { owner, clientId, projectId } = freelancer(server, { email: 'billing@acme.example', name: `Acme ${clients}` });
    receipts.forEach((receipt, i) =>
      services.expenses.add(owner, { day: `2026-10-1${i}`, description: `Expense ${i}`, amount: '10', projectId, billable: true }, receipt),
    );
    const { id } = services.invoices.create(OPERATOR, {
      workspaceId,
      userId: server.ownerId,
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    });
    services.invoices.issue(OPERATOR, id, { userId: server.ownerId });
    return id;
  };

  it('the invoice page’s Send form offers “Attach the receipts” when its expenses have any, and sends them; refused over 10 MB at the checkbox, in German too, nothing queued', async () => {
    const owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const box = /<input id="send-receipts" type="checkbox" name="withReceipts" value="yes"/;
    // No receipt on the invoice: no checkbox.
    const bare = invoiced([null]);
    const plain = await owner.get(`/app/invoices/${bare}`);
    expect(plain.status).to.equal(200);
    expect(plain.text).to.include(`action="/app/invoices/${bare}/send"`);
    expect(flat(plain.text)).to.not.match(box);

    const ticket = png(1_200_000);
    const id = invoiced([{ name: 'ticket.png', bytes: ticket }, null, { name: 'hotel.pdf', bytes: Buffer.from('%PDF-1.4\n%%EOF\n') }]);
    const page = await owner.get(`/app/invoices/${id}`);
    expect(flat(page.text)).to.match(box);
    expect(flat(page.text)).to.include('Attach the receipts</label');
    expect(flat(page.text)).to.include('The receipts of its 2 expenses (1.1 MB) go after the documents; one mail carries at most 10.0 MB.');
    const sent = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: 'billing@acme.example',
      xml: 'none',
      greeting: 'Hello,',
      message: '',
      withReceipts: 'yes',
    });
    expect(sent.status, sent.text.slice(0, 2000)).to.equal(303);
    const [send] = server.services.invoices.sends(OPERATOR, id);
    expect(send!.files.slice(1)).to.deep.equal(['ticket.png', 'hotel.pdf']);
    await server.running.scheduler.tick();
    const [mail] = await relay.until(1);
    const attachments = mail!.parsed.attachments as Attachment[];
    expect(attachments.map((a) => a.filename)).to.deep.equal(send!.files);
    expect(attachments[1]!.content.equals(ticket)).to.equal(true);
    // The relay's inbox is the file's: the next test reads its first message.
    relay.received.splice(0);

    // Over what a mail carries: refused at the checkbox in words, the form kept, nothing queued; in the reader's language.
    const big = invoiced([
      { name: 'a.png', bytes: png(5_500_000) },
      { name: 'b.png', bytes: png(5_500_000) },
    ]);
    const before = mailCount();
    for (const [language, said] of [
      [
        'en',
        /The receipts \(10\.5 MB\) and the invoice’s documents \(0\.\d MB\) come to 10\.\d MB, and one mail carries at most 10\.0 MB\. Nothing was sent: send the invoice without its receipts/,
      ],
      [
        'de',
        /Die Belege \(10,5 MB\) und die Dokumente der Rechnung \(0,\d MB\) ergeben zusammen 10,\d MB, eine Mail trägt aber höchstens 10,0 MB\. Nichts wurde gesendet/,
      ],
    ] as const) {
      server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language });
      try {
        const form = await owner.get(`/app/invoices/${big}`);
        const refused = await owner.post(`/app/invoices/${big}/send`, {
          _csrf: SettingsClient.csrf(form.text),
          to: 'billing@acme.example',
          xml: 'none',
          greeting: 'Hallo,',
          message: 'Anbei',
          withReceipts: 'yes',
        });
        expect(refused.status).to.equal(400);
        const text = flat(refused.text);
        expect(text).to.match(new RegExp(`<span class="field-error" id="send-receipts-error">${said.source}`));
        expect(text).to.match(/<input id="send-receipts" type="checkbox" name="withReceipts" value="yes" checked/);
        expect(text).to.include('Anbei</textarea>');
        if (language === 'de') expect(text).to.include('Belege anhängen</label');
      } finally {
        server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'en' });
      }
    }
    expect(mailCount()).to.equal(before);
  });

  it('`invoice send --with-receipts` attaches each receipt after the PDF with its file name and media type, its bytes as stored', async () => {
    const ticket = png(30_000);
    const pdf = Buffer.from('%PDF-1.4\n% a hotel bill\n%%EOF\n');
    const id = invoiced([
      { name: 'ticket.png', bytes: ticket },
      { name: 'hotel.pdf', bytes: pdf },
      null,
      { name: 'ticket.png', bytes: png(100) },
    ]);
    const sent = await cli('invoice', 'send', id, '--user', server.ownerId, '--to', 'billing@acme.example', '--with-receipts');
    expect(sent.code, sent.stderr).to.equal(0);
    const number = sent.json.files[0].replace(/\.pdf$/, '');
    expect(sent.json.files).to.deep.equal([`${number}.pdf`, 'ticket.png', 'hotel.pdf', 'ticket (2).png']);
    await server.running.scheduler.tick();
    const [mail] = await relay.until(1);
    const attachments = mail!.parsed.attachments as Attachment[];
    expect(attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([
      [`${number}.pdf`, 'application/pdf'],
      ['ticket.png', 'image/png'],
      ['hotel.pdf', 'application/pdf'],
      ['ticket (2).png', 'image/png'],
    ]);
    expect(attachments[1]!.content.equals(ticket)).to.equal(true);
    expect(attachments[2]!.content.equals(pdf)).to.equal(true);
    // Without the flag, the documents alone (as before).
    const plain = await cli('invoice', 'send', id, '--user', server.ownerId, '--to', 'billing@acme.example');
    expect(plain.json.files).to.deep.equal([`${number}.pdf`]);
  });

  it('refuses, sending nothing, an invoice without receipts and receipts that with the documents exceed the 10 MB a mail carries', async () => {
    const none = invoiced([null]);
    const before = mailCount();
    const empty = await cli('invoice', 'send', none, '--user', server.ownerId, '--to', 'billing@acme.example', '--with-receipts');
    expect(empty.code).to.equal(1);
    expect(JSON.parse(empty.stderr).error).to.deep.include({
      message: 'This invoice has no expense with a receipt: there is nothing to attach. Send it without receipts.',
    });
    const big = invoiced([
      { name: 'a.png', bytes: png(5_500_000) },
      { name: 'b.png', bytes: png(5_500_000) },
    ]);
    const tooBig = await cli('invoice', 'send', big, '--user', server.ownerId, '--to', 'billing@acme.example', '--with-receipts');
    expect(tooBig.code).to.equal(1);
    expect(JSON.parse(tooBig.stderr).error.message).to.match(
      /^The 2 receipts \(10\.5 MB\) and the invoice's documents \(0\.\d MB\) come to 10\.\d MB; one mail carries at most 10\.0 MB of attachments\. Send the invoice without its receipts, and the receipts from the Expenses page, or scan them smaller\.$/,
    );
    expect(mailCount()).to.equal(before);
  });
});
