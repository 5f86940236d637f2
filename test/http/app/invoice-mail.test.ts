import { expect } from 'chai';
import type { AddressObject, Attachment } from 'mailparser';
import { runCli } from '../../../src/cli/main.js';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * Sending an issued invoice by mail from its page (issue 38): the real server over HTTP, a real
 * SMTP server on 127.0.0.1; the PDF and the chosen e-invoice XML arrive as the document routes
 * make them. The server's clock stands at 2026-11-02; the time invoiced is October's.
 */
describe('web app: an invoice sent by mail', function () {
  this.timeout(120_000);
  let server: TestServer;
  let relay: TestRelay | null = null;
  afterEach(async () => {
    await server?.close();
    await relay?.close();
    relay = null;
  });

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  const signIn = async (userId: string) => {
    const client = new SettingsClient(server);
    await client.setUp(userId, PASSWORD);
    return client;
  };
  const download = async (client: SettingsClient, path: string) => {
    const response = await fetch(`${server.url}${path}`, {
      redirect: 'manual',
      headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(response.status, path).to.equal(200);
    return Buffer.from(await response.arrayBuffer());
  };
  /** October's draft through the New invoice page; its id. */
  const createDraft = async (owner: SettingsClient, clientId: string) => {
    const made = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      note: '',
      intent: 'create',
    });
    expect(made.status, made.text.slice(0, 2000)).to.equal(303);
    return /^\/app\/invoices\/(inv_[\w-]+)$/.exec(made.headers.get('location') ?? '')?.[1] as string;
  };
  const issue = async (owner: SettingsClient, id: string) => {
    const confirm = await owner.get(`/app/invoices/${id}/issue`);
    const issued = await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text) });
    expect(issued.status, issued.text.slice(0, 1500)).to.equal(303);
  };
  const withMail = async () => {
    relay = await startRelay();
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  };
  const mailLog = () => server.services.mail.log(OPERATOR, { workspaceId: server.workspaceId }).messages;
  /** The command line in this process, on the server's own services (as the operator on the machine runs it). */
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
  const unescape = (text: string) =>
    text
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  /** The mail as the Send form lays it out: its header lines, the greeting's value, the paragraphs (by their XML), the facts. */
  const formMail = (page: string) => {
    const form = /<form class="stack wide mail-form"[\s\S]*?<\/form>/.exec(page)?.[0] ?? '';
    const head = /<dl class="facts compact mail-head">([\s\S]*?)<\/dl>/.exec(form)?.[1] ?? '';
    const dd = [...head.matchAll(/<dd>([\s\S]*?)<\/dd>/g)].map((m) =>
      unescape(
        m[1]!
          .replace(/<[^>]+>/g, '')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    );
    const paragraphs = [...form.matchAll(/<p class="mail-text(?: closing)?"(?: data-xml="([\w-]+)")?>([\s\S]*?)<\/p>/g)].map((m) => ({
      xml: m[1] ?? null,
      text: unescape(m[2]!),
    }));
    const factsHtml = /<dl class="facts compact mail-facts">([\s\S]*?)<\/dl>/.exec(form)?.[1] ?? '';
    const facts = [...factsHtml.matchAll(/<dt>([\s\S]*?)<\/dt>\s*<dd>([\s\S]*?)<\/dd>/g)].map(
      (m) => `${unescape(m[1]!)}: ${unescape(m[2]!)}`,
    );
    return {
      from: dd[0],
      replyTo: dd[1],
      subject: dd[2],
      greeting: unescape(/<input\s+id="send-greeting"[^>]*value="([^"]*)"/.exec(form)?.[1] ?? ''),
      paragraphs,
      facts,
    };
  };
  /** The plain text the form's layout says will be sent, with the greeting and message typed and the XML chosen. */
  const expectedText = (shown: ReturnType<typeof formMail>, typed: { greeting: string; message: string; xml: string }) => {
    const [opening, ...rest] = shown.paragraphs.filter((p) => p.xml === null);
    const closing = rest.at(-1)!;
    const files = shown.paragraphs.find((p) => p.xml === typed.xml);
    const paragraphs = [typed.greeting, opening!.text, typed.message, files?.text].filter((p): p is string => Boolean(p));
    return `${paragraphs.join('\n\n')}\n\n${shown.facts.join('\n')}\n\n${closing.text}\n`;
  };

  it('an owner sends an issued invoice: the client’s mailbox holds the PDF and the XML as the document routes make them; the Mail page lists it', async () => {
    await withMail();
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const owner = await signIn(server.ownerId);
    const id = await createDraft(owner, clientId);
    await issue(owner, id);

    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include(`action="/app/invoices/${id}/send"`);
    expect(page.text).to.match(/<input id="send-to" type="email" name="to" value="billing@acme\.example"/);
    // The whole mail before it is sent (issue 45 item 12): From the issuer's name at the server's address, Reply-To the issuer's email, the greeting in its field.
    const shown = formMail(page.text);
    expect(shown).to.deep.include({
      from: 'Ada Lovelace Design <time@example.org>',
      replyTo: 'ada@example.org',
      subject: 'Invoice 2026-0001 from Ada Lovelace Design',
      greeting: 'Hello,',
    });
    expect(shown.paragraphs.map((p) => p.xml)).to.deep.equal([null, 'xrechnung-ubl', 'xrechnung-cii', 'peppol', null]);
    // The ready formats, the first one chosen, and "none".
    const options = [...page.text.matchAll(/<option value="([\w-]+)"\s*(selected)?/g)].map((m) => `${m[1]}${m[2] ? '*' : ''}`);
    expect(options.slice(-4)).to.deep.equal(['xrechnung-ubl*', 'xrechnung-cii', 'peppol', 'none']);

    const sent = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: ' accounts@acme.example ',
      xml: 'xrechnung-cii',
      greeting: 'Hello,',
      message: 'Thank you for the relaunch work together.',
    });
    expect(sent.status, sent.text.slice(0, 2000)).to.equal(303);
    const back = await owner.follow(sent, `/app/invoices/${id}`);
    expect(flat(back.text)).to.include('Queued for accounts@acme.example: see the <a href="/settings/mail">Mail page</a>.');

    // The scheduler's tick sends it (the server also wakes its sender after the commit).
    await server.running.scheduler.tick();
    const [mail] = await relay!.until(1);
    await server.services.mail.idle();
    expect(relay!.received).to.have.length(1);
    expect(mail!.to).to.deep.equal(['accounts@acme.example']);
    // The envelope and the From address stay the server's (MAIL_FROM); the display name is the issuer's, replies go to the issuer.
    expect(mail!.from).to.equal('time@example.org');
    expect((mail!.parsed.from as AddressObject).value).to.deep.equal([{ address: 'time@example.org', name: 'Ada Lovelace Design' }]);
    expect((mail!.parsed.replyTo as AddressObject).value).to.deep.equal([{ address: 'ada@example.org', name: 'Ada Lovelace Design' }]);
    expect(mail!.parsed.subject).to.equal('Invoice 2026-0001 from Ada Lovelace Design');
    // What the form showed is what was sent, word for word.
    expect(mail!.parsed.text).to.equal(
      expectedText(shown, { greeting: 'Hello,', message: 'Thank you for the relaunch work together.', xml: 'xrechnung-cii' }),
    );
    const text = mail!.parsed.text ?? '';
    for (const part of [
      'Please find attached invoice 2026-0001 of 2 Nov 2026 from Ada Lovelace Design for €1,130.50.',
      'Thank you for the relaunch work together.',
      'Invoice number: 2026-0001',
      'Invoice date: 2 Nov 2026',
      'Total: €1,130.50',
      'Due date: 16 Nov 2026',
      'Payment terms: ',
      '2026-0001-xrechnung-cii.xml holds the same invoice',
    ])
      expect(text).to.include(part);
    expect(mail!.parsed.html).to.include('<html lang="en">');
    expect(mail!.parsed.html).to.include('Thank you for the relaunch work together.');

    const attachments = mail!.parsed.attachments as Attachment[];
    expect(attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([
      ['2026-0001.pdf', 'application/pdf'],
      ['2026-0001-xrechnung-cii.xml', 'application/xml'],
    ]);
    const [pdf, xml] = attachments as [Attachment, Attachment];
    expect(pdf.content.subarray(0, 5).toString('latin1')).to.equal('%PDF-');
    expect(pdf.content.equals(await download(owner, `/app/invoices/${id}/document.pdf?format=pdf`))).to.equal(true);
    expect(xml.content.equals(await download(owner, `/app/invoices/${id}/document.xml?format=xrechnung-cii`))).to.equal(true);

    const mailPage = await owner.get('/settings/mail');
    expect(mailPage.status).to.equal(200);
    expect(mailPage.text).to.include('Invoice 2026-0001 from Ada Lovelace Design');
    expect(mailPage.text).to.include('accounts@acme.example');
    expect(mailLog().map((m) => [m.kind, m.recipient, m.status])).to.deep.equal([['invoice', 'accounts@acme.example', 'sent']]);

    // The send is recorded: on the invoice page, and in `invoice show --json` (when, to whom, which files, by whom, where the mail stands).
    const after = flat((await owner.get(`/app/invoices/${id}`)).text);
    const sendsTable = /<h2 id="sends-heading">Sent by mail<\/h2>(.*?)<\/table>/.exec(after)?.[1] ?? '';
    expect(sendsTable).to.include('<td data-label="When" class="c-time">2 Nov 2026, 10:00 UTC</td>');
    expect(sendsTable).to.include('<td data-label="To">accounts@acme.example</td>');
    expect(sendsTable).to.include('<td data-label="Files">2026-0001.pdf, 2026-0001-xrechnung-cii.xml</td>');
    expect(sendsTable).to.include('<td data-label="By">Owner</td>');
    expect(sendsTable).to.match(/<span class="badge good"\s*>sent<\/span\s*>/);
    const showed = await cli('invoice', 'show', id);
    expect(showed.code, showed.stderr).to.equal(0);
    expect(showed.json.sends).to.deep.equal([
      {
        id: showed.json.sends[0].id,
        at: '2026-11-02T10:00:30.000Z',
        document: 'invoice',
        to: 'accounts@acme.example',
        files: ['2026-0001.pdf', '2026-0001-xrechnung-cii.xml'],
        by: { userId: server.ownerId, name: 'Owner' },
        mailId: mailLog()[0]!.id,
        delivery: 'sent',
      },
    ]);
    expect(showed.json.sends[0].id).to.match(/^isnd_/);
  });

  it('a typed greeting replaces the built-in one: it is written once (the form shows the mail’s first line as a field)', async () => {
    await withMail();
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { language: 'de' });
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const owner = await signIn(server.ownerId);
    // The mail is the workspace's German; the page (and its refusals) is read in English here.
    owner.acceptLanguage = 'en';
    const id = await createDraft(owner, clientId);
    await issue(owner, id);
    const page = await owner.get(`/app/invoices/${id}`);
    const shown = formMail(page.text);
    expect(shown.greeting).to.equal('Guten Tag,');
    expect(shown.paragraphs[0]!.text).to.equal(
      'anbei erhalten Sie die Rechnung 2026-0001 vom 02.11.2026 von Ada Lovelace Design über 1.130,50\u00a0€.',
    );
    const sent = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: 'billing@acme.example',
      xml: 'none',
      greeting: 'Guten Tag Frau Meier,',
      message: 'vielen Dank für den Auftrag.',
    });
    expect(sent.status, sent.text.slice(0, 2000)).to.equal(303);
    await server.running.scheduler.tick();
    const [mail] = await relay!.until(1);
    const text = mail!.parsed.text ?? '';
    expect(text.match(/Guten Tag/g)).to.have.length(1);
    expect(text).to.equal(expectedText(shown, { greeting: 'Guten Tag Frau Meier,', message: 'vielen Dank für den Auftrag.', xml: 'none' }));
    expect(text.startsWith('Guten Tag Frau Meier,\n\nanbei erhalten Sie die Rechnung 2026-0001')).to.equal(true);
    expect(String(mail!.parsed.html).match(/Guten Tag/g)).to.have.length(1);

    // A greeting of two lines is refused at its field, the values kept; an empty one means none (the opening then starts the mail).
    const page2 = await owner.get(`/app/invoices/${id}`);
    const refused = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page2.text),
      to: 'billing@acme.example',
      xml: 'none',
      greeting: 'Hallo\nBcc: x@example.org',
      message: 'Kept',
    });
    expect(refused.status).to.equal(400);
    expect(flat(refused.text)).to.include('The greeting is one line of at most 200 characters');
    expect(refused.text).to.match(/<input\s+id="send-greeting"[^>]*aria-invalid="true"/);
    expect(refused.text).to.match(/>\s*Kept<\/textarea>/);
    const bare = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page2.text),
      to: 'billing@acme.example',
      xml: 'none',
      greeting: ' ',
      message: '',
    });
    expect(bare.status).to.equal(303);
    await server.running.scheduler.tick();
    const [, second] = await relay!.until(2);
    expect(second!.parsed.text!.startsWith('Anbei erhalten Sie die Rechnung 2026-0001')).to.equal(true);
  });

  it('mails the credit note of an invoice voided after issuing, with its own documents; the command line sends the same way; each send is recorded', async () => {
    await withMail();
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const owner = await signIn(server.ownerId);
    const id = await createDraft(owner, clientId);
    await issue(owner, id);
    const confirm = await owner.get(`/app/invoices/${id}/void`);
    expect((await owner.post(`/app/invoices/${id}/void`, { _csrf: SettingsClient.csrf(confirm.text) })).status).to.equal(303);

    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.text).to.include('<h2 id="send-heading">Send the credit note by mail</h2>');
    const shown = formMail(page.text);
    expect(shown.subject).to.equal('Credit note 2026-0002 from Ada Lovelace Design');
    const sent = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: 'billing@acme.example',
      xml: 'xrechnung-ubl',
      greeting: 'Hello,',
      message: '',
    });
    expect(sent.status, sent.text.slice(0, 2000)).to.equal(303);
    expect(flat((await owner.follow(sent, `/app/invoices/${id}`)).text)).to.include('The credit note is queued for billing@acme.example');
    await server.running.scheduler.tick();
    const [mail] = await relay!.until(1);
    expect(mail!.parsed.subject).to.equal('Credit note 2026-0002 from Ada Lovelace Design');
    expect(mail!.parsed.text).to.equal(expectedText(shown, { greeting: 'Hello,', message: '', xml: 'xrechnung-ubl' }));
    expect(mail!.parsed.text).to.include(
      'Please find attached credit note 2026-0002 of 2 Nov 2026 from Ada Lovelace Design for €1,130.50. It cancels invoice 2026-0001 of 2 Nov 2026.',
    );
    const attachments = mail!.parsed.attachments as Attachment[];
    expect(attachments.map((a) => a.filename)).to.deep.equal(['2026-0002.pdf', '2026-0002-xrechnung-ubl.xml']);
    expect(attachments[0]!.content.equals(await download(owner, `/app/invoices/${id}/document.pdf?format=pdf&creditNote=1`))).to.equal(
      true,
    );
    expect(
      attachments[1]!.content.equals(await download(owner, `/app/invoices/${id}/document.xml?format=xrechnung-ubl&creditNote=1`)),
    ).to.equal(true);

    // The command line: the same send, as the member it names; refused without mail-able values, as the page refuses.
    const bad = await cli('invoice', 'send', id, '--user', server.ownerId, '--to', 'Acme <x@example.org>');
    expect(bad.code).to.equal(1);
    expect(JSON.parse(bad.stderr).error.message).to.include('cannot receive mail from here');
    const byCli = await cli(
      'invoice',
      'send',
      id,
      '--user',
      server.ownerId,
      '--to',
      'books@acme.example',
      '--message',
      'For your records.',
    );
    expect(byCli.code, byCli.stderr).to.equal(0);
    expect(byCli.json).to.deep.include({ address: 'books@acme.example', document: 'credit-note', files: ['2026-0002.pdf'], invoiceId: id });
    await server.running.scheduler.tick();
    const [, second] = await relay!.until(2);
    expect(second!.to).to.deep.equal(['books@acme.example']);
    expect(second!.parsed.text).to.include('For your records.');
    const sends = (await cli('invoice', 'show', id)).json.sends as Array<Record<string, unknown>>;
    expect(sends.map((x) => [x.document, x.to, (x.files as string[]).join(' '), (x.by as { name: string }).name])).to.deep.equal([
      ['credit-note', 'billing@acme.example', '2026-0002.pdf 2026-0002-xrechnung-ubl.xml', 'Owner'],
      ['credit-note', 'books@acme.example', '2026-0002.pdf', 'Owner'],
    ]);
  });

  it('a German invoice is written in German; the PDF alone when "none" is chosen', async () => {
    await withMail();
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { language: 'de' });
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const owner = await signIn(server.ownerId);
    const id = await createDraft(owner, clientId);
    await issue(owner, id);
    const page = await owner.get(`/app/invoices/${id}`);
    const sent = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: 'billing@acme.example',
      xml: 'none',
    });
    expect(sent.status, sent.text.slice(0, 2000)).to.equal(303);
    await server.running.scheduler.tick();
    const [mail] = await relay!.until(1);
    expect(mail!.parsed.subject).to.equal('Rechnung 2026-0001 von Ada Lovelace Design');
    const text = flat(mail!.parsed.text ?? '');
    expect(text).to.include('anbei erhalten Sie die Rechnung 2026-0001 vom 02.11.2026 von Ada Lovelace Design über 1.130,50 €.');
    expect(text).to.include('Fällig am: 16.11.2026');
    expect(mail!.parsed.html).to.include('<html lang="de">');
    expect((mail!.parsed.attachments as Attachment[]).map((a) => a.filename)).to.deep.equal(['2026-0001.pdf']);
  });

  it('refuses a draft (409), an address that cannot receive mail and an unknown format at their fields with the values kept (400); hides it from who may not read invoices (404) and refuses a reader (403); nothing is queued', async () => {
    await withMail();
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const reader = addMemberWithToken(server.services, server.workspaceId, {
      name: 'Mo Money',
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const plain = addMemberWithToken(server.services, server.workspaceId, { name: 'Pat Plain', canViewOthersTime: true });
    const owner = await signIn(server.ownerId);
    const id = await createDraft(owner, clientId);

    const draftPage = await owner.get(`/app/invoices/${id}`);
    expect(draftPage.text).to.not.include(`action="/app/invoices/${id}/send"`);
    const csrf = SettingsClient.csrf(draftPage.text);
    const draft = await owner.post(`/app/invoices/${id}/send`, { _csrf: csrf, to: 'billing@acme.example', xml: 'none' });
    expect(draft.status).to.equal(409);
    expect(flat(draft.text)).to.include('This invoice is a draft: issue it first');

    await issue(owner, id);
    const page = await owner.get(`/app/invoices/${id}`);
    const token = SettingsClient.csrf(page.text);
    const bad = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: token,
      to: 'Acme <billing@acme.example>',
      xml: 'peppol',
      message: 'Kept',
    });
    expect(bad.status).to.equal(400);
    expect(flat(bad.text)).to.include('Acme &lt;billing@acme.example&gt; cannot receive mail from here');
    expect(bad.text).to.match(
      /<input id="send-to" type="email" name="to" value="Acme &lt;billing@acme.example&gt;"[^>]*aria-invalid="true"/,
    );
    expect(bad.text).to.match(/<option value="peppol"\s*selected/);
    expect(bad.text).to.match(/>\s*Kept<\/textarea>/);
    const empty = await owner.post(`/app/invoices/${id}/send`, { _csrf: token, to: '  ', xml: 'none' });
    expect(empty.status).to.equal(400);
    expect(flat(empty.text)).to.include('Type the address to send the invoice to');
    const format = await owner.post(`/app/invoices/${id}/send`, { _csrf: token, to: 'billing@acme.example', xml: 'pdf' });
    expect(format.status).to.equal(400);
    expect(flat(format.text)).to.include('Choose the e-invoice to attach beside the PDF: xrechnung-ubl, xrechnung-cii, peppol, or none');
    const long = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: token,
      to: 'billing@acme.example',
      xml: 'none',
      message: 'x'.repeat(2001),
    });
    expect(long.status).to.equal(400);
    expect(flat(long.text)).to.include('The message may be at most 2000 characters (it has 2001)');

    const money = await signIn(reader.userId);
    const readerPage = await money.get(`/app/invoices/${id}`);
    expect(readerPage.status).to.equal(200);
    expect(readerPage.text).to.not.include('Send by mail');
    const refused = await money.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(readerPage.text),
      to: 'billing@acme.example',
      xml: 'none',
    });
    expect(refused.status).to.equal(403);
    expect(flat(refused.text)).to.include('Only the workspace&#39;s owners send invoices');

    const other = await signIn(plain.userId);
    const week = await other.get('/app/week');
    const hidden = await other.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(week.text),
      to: 'billing@acme.example',
      xml: 'none',
    });
    expect(hidden.status).to.equal(404);
    expect(hidden.text).to.not.include('Acme');

    expect(mailLog()).to.deep.equal([]);
    await server.running.scheduler.tick();
    await server.services.mail.idle();
    expect(relay!.received).to.have.length(0);
  });

  it('offers only the ready e-invoice formats, and refuses one with missing values at its field (400)', async () => {
    await withMail();
    // Without the client's reference (BT-10), XRechnung cannot be made.
    const { clientId } = freelancer(server, { email: 'billing@acme.example', reference: undefined });
    const owner = await signIn(server.ownerId);
    const id = await createDraft(owner, clientId);
    await issue(owner, id);
    const page = await owner.get(`/app/invoices/${id}`);
    // Peppol needs it too: the PDF alone is left, and chosen.
    const select = /<select id="send-xml"[\s\S]*?<\/select>/.exec(page.text)?.[0] ?? '';
    const options = [...select.matchAll(/<option value="([\w-]+)"\s*(selected)?/g)].map((m) => `${m[1]}${m[2] ? '*' : ''}`);
    expect(options).to.deep.equal(['none*']);
    const refused = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: 'billing@acme.example',
      xml: 'xrechnung-ubl',
    });
    expect(refused.status).to.equal(400);
    // The page's words (issue 58): the values themselves are named under Documents, in the reader's language.
    expect(flat(refused.text)).to.include(
      'The xrechnung-ubl e-invoice cannot be made for this invoice yet: it lacks 1 value, listed under Documents. Fill it on this page, or attach another format or none.',
    );
    expect(refused.text).to.match(/<select id="send-xml" name="xml"[^>]*aria-invalid="true"/);
    expect(mailLog()).to.deep.equal([]);
  });

  it('without mail set up the form is absent: a line says so, and a send is refused', async () => {
    server = await startTestServer();
    const { clientId } = freelancer(server, { email: 'billing@acme.example' });
    const owner = await signIn(server.ownerId);
    const id = await createDraft(owner, clientId);
    await issue(owner, id);
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.not.include(`action="/app/invoices/${id}/send"`);
    expect(flat(page.text)).to.include('Mail is not set up on this server: download the documents above');
    const sent = await owner.post(`/app/invoices/${id}/send`, {
      _csrf: SettingsClient.csrf(page.text),
      to: 'billing@acme.example',
      xml: 'none',
    });
    expect(sent.status).to.equal(400);
    expect(flat(sent.text)).to.include('Mail is not set up on this server: the person who runs timetrack sets it up.');
    expect(mailLog()).to.deep.equal([]);
  });
});
