import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { fatal, poppler, requireTools, validate } from '../tools.js';
import { readerHooks } from '../../helpers/reader-hooks.mjs';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The Invoices pages over real HTTP (decisions §11): who sees what, a new invoice with its
 * preview and refusals, each action with its confirmation and refusals, the documents (headers,
 * the PDF's text, each XML through the official rules), missing values shown and filled, and a
 * busy document pool. The server's clock stands at 2026-11-02; the time is October's.
 */
describe('web app: invoices', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dir: string;
  before(() => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-invoice-pages-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(() => server?.close());

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  const signIn = async (userId: string) => {
    const client = new SettingsClient(server);
    await client.setUp(userId, PASSWORD);
    return client;
  };
  /** Downloads with the session's cookie: status, headers, bytes. */
  const download = async (client: SettingsClient, path: string) => {
    const response = await fetch(`${server.url}${path}`, {
      redirect: 'manual',
      headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };
  /** Creates the draft of October through the page; its id. */
  const createDraft = async (owner: SettingsClient, clientId: string, extra: Record<string, string> = {}) => {
    const made = await owner.submit('/app/invoices/new', '/app/invoices/new', {
      clientId,
      from: '2026-10-01',
      to: '2026-10-31',
      groupBy: 'project',
      note: '',
      intent: 'create',
      ...extra,
    });
    expect(made.status, made.text.slice(0, 2000)).to.equal(303);
    const id = /^\/app\/invoices\/(inv_[\w-]+)$/.exec(made.headers.get('location') ?? '')?.[1];
    expect(id, made.headers.get('location') ?? '').to.be.a('string');
    return id as string;
  };
  /** An action through its confirmation page: the page's form, then its POST. */
  const act = async (owner: SettingsClient, id: string, action: 'issue' | 'pay' | 'void', date?: string) => {
    const confirm = await owner.get(`/app/invoices/${id}/${action}${date ? `?date=${date}` : ''}`);
    expect(confirm.status, confirm.text.slice(0, 1500)).to.equal(200);
    expect(confirm.text).to.include(`action="/app/invoices/${id}/${action}"`);
    return owner.post(`/app/invoices/${id}/${action}`, { _csrf: SettingsClient.csrf(confirm.text), ...(date ? { date } : {}) });
  };

  describe('who sees what', () => {
    it('owners and members who see money read invoices (only owners act); anyone else gets 404 on every address and no tab', async () => {
      server = await startTestServer();
      const { clientId } = freelancer(server);
      const reader = addMemberWithToken(server.services, server.workspaceId, {
        name: 'Mo Money',
        canViewOthersTime: true,
        canViewOthersMoney: true,
      });
      const plain = addMemberWithToken(server.services, server.workspaceId, { name: 'Pat Plain', canViewOthersTime: true });
      const owner = await signIn(server.ownerId);
      const id = await createDraft(owner, clientId);

      const tab = '<a href="/app/invoices"';
      expect((await owner.get('/app/week')).text).to.include(tab);
      const money = await signIn(reader.userId);
      expect((await money.get('/app/week')).text).to.include(tab);
      const list = await money.get('/app/invoices');
      expect(list.status).to.equal(200);
      expect(list.text).to.include(`href="/app/invoices/${id}"`);
      expect(list.text).to.not.include('New invoice');
      const detail = await money.get(`/app/invoices/${id}`);
      expect(detail.status).to.equal(200);
      expect(detail.text).to.not.include('Issue…');
      expect(detail.text).to.not.include('action="/app/invoices/' + id + '/fill"');
      expect((await download(money, `/app/invoices/${id}/document.pdf?format=pdf`)).status).to.equal(200);
      // A reader may not act: the service refuses (403), with its words.
      const newPage = await money.get('/app/invoices/new');
      expect(newPage.status).to.equal(403);
      expect(newPage.text).to.include('Only the workspace&#39;s owners make invoices');
      const csrf = SettingsClient.csrf(detail.text);
      const issued = await money.post(`/app/invoices/${id}/issue`, { _csrf: csrf });
      expect(issued.status).to.equal(403);
      expect(flat(issued.text)).to.include('Only the workspace&#39;s owners issue invoices');
      expect(server.services.invoices.get(OPERATOR, id).status).to.equal('draft');

      const other = await signIn(plain.userId);
      const week = await other.get('/app/week');
      expect(week.status).to.equal(200);
      expect(week.text).to.not.include(tab);
      for (const path of [
        '/app/invoices',
        '/app/invoices/new',
        `/app/invoices/${id}`,
        `/app/invoices/${id}/issue`,
        `/app/invoices/${id}/document.pdf?format=pdf`,
        `/app/invoices/${id}/document.xml?format=peppol`,
      ]) {
        const answer = await other.get(path);
        expect(answer.status, path).to.equal(404);
        expect(answer.text, path).to.not.include('Acme');
        expect(answer.text, path).to.not.include(tab);
      }
      const posted = await other.post(`/app/invoices/${id}/void`, { _csrf: SettingsClient.csrf(week.text) });
      expect(posted.status).to.equal(404);
      expect(server.services.invoices.get(OPERATOR, id).status).to.equal('draft');
    });
  });

  describe('who reads (issue 44 L2, issue 45 item 6)', () => {
    it('a member who sees colleagues’ money but not their time, and an owner without money visibility, get no tab and 404 on every address; seeing both, a member reads', async () => {
      server = await startTestServer();
      const { clientId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      // A line per entry: each colleague's day, description and hours, which Reports withhold without time visibility.
      const id = await createDraft(owner, clientId, { groupBy: 'entry' });
      const moneyOnly = addMemberWithToken(server.services, server.workspaceId, { name: 'Mia Money', canViewOthersMoney: true });
      const blindOwner = addMemberWithToken(server.services, server.workspaceId, { name: 'Otto Owner', canViewOthersTime: true });
      server.services.accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: blindOwner.userId, isOwner: true });
      const both = addMemberWithToken(server.services, server.workspaceId, {
        name: 'Bo Both',
        canViewOthersTime: true,
        canViewOthersMoney: true,
      });
      const tab = '<a href="/app/invoices"';
      for (const [who, userId] of [
        ['money only', moneyOnly.userId],
        ['owner without money', blindOwner.userId],
      ] as const) {
        const client = await signIn(userId);
        const week = await client.get('/app/week');
        expect(week.status, who).to.equal(200);
        expect(week.text, who).to.not.include(tab);
        for (const path of [
          '/app/invoices',
          '/app/invoices/new',
          `/app/invoices/${id}`,
          `/app/invoices/${id}/issue`,
          `/app/invoices/${id}/document.pdf?format=pdf`,
          `/app/invoices/${id}/document.xml?format=xrechnung-ubl`,
        ]) {
          const answer = await client.get(path);
          expect(answer.status, `${who} ${path}`).to.equal(404);
          expect(answer.text, `${who} ${path}`).to.not.include('Relaunch day');
          expect(answer.text, `${who} ${path}`).to.not.include('Acme');
        }
        const posted = await client.post(`/app/invoices/${id}/send`, {
          _csrf: SettingsClient.csrf(week.text),
          to: 'x@example.org',
          xml: 'none',
        });
        expect(posted.status, who).to.equal(404);
      }
      const reader = await signIn(both.userId);
      expect((await reader.get('/app/week')).text).to.include(tab);
      const page = await reader.get(`/app/invoices/${id}`);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Relaunch day 05');
    });
  });

  describe('a new invoice', () => {
    it('offers last month, previews the lines, tax and totals without writing anything, then creates the draft', async () => {
      server = await startTestServer();
      const { clientId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const empty = await owner.get('/app/invoices');
      expect(empty.status).to.equal(200);
      expect(flat(empty.text)).to.include('No invoices yet.');
      expect(empty.text).to.include('href="/app/invoices/new"');

      const form = await owner.get('/app/invoices/new');
      expect(form.status).to.equal(200);
      expect(form.text).to.include('name="from" value="2026-10-01"');
      expect(form.text).to.include('name="to" value="2026-10-31"');
      expect(form.text).to.include(`<option value="${clientId}" selected>Acme</option>`);

      const preview = await owner.post('/app/invoices/new', {
        _csrf: SettingsClient.csrf(form.text),
        clientId,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: 'project',
        note: 'Relaunch, phase 2',
        intent: 'preview',
      });
      expect(preview.status).to.equal(200);
      const text = flat(preview.text);
      expect(text).to.include('Preview <span class="hint inline">(nothing written yet)</span>');
      expect(text).to.include('4 entries from 1 Oct 2026 to 31 Oct 2026 (days in UTC), for Acme, in EUR.');
      expect(text).to.include('<td data-label="Description">Relaunch</td>');
      expect(text).to.include('<td data-label="Quantity" class="num">10.00 h <span class="hint">(10:00)</span></td>');
      expect(text).to.include('<td data-label="Net" class="num">€950.00</td>');
      expect(text).to.include('<td data-label="VAT" class="num">€180.50</td>');
      expect(text).to.include('<strong>€1,130.50</strong>');
      // The form keeps what was sent.
      expect(text).to.include('Relaunch, phase 2</textarea>');
      expect(server.services.invoices.list(OPERATOR, server.workspaceId)).to.have.length(0);

      const id = await createDraft(owner, clientId, { note: 'Relaunch, phase 2' });
      const detail = await owner.get(`/app/invoices/${id}`);
      expect(detail.status).to.equal(200);
      const shown = flat(detail.text);
      expect(shown).to.include('Draft created: its entries are now invoiced.');
      expect(shown).to.include('<h1>Draft invoice <span class="badge status-draft ">Draft</span></h1>');
      expect(shown).to.include('<dd>Relaunch, phase 2</dd>');
      expect(shown).to.include('<dd>1 Oct 2026 – 31 Oct 2026 <span class="hint inline">(days in UTC)</span></dd>');
      const list = flat((await owner.get('/app/invoices')).text);
      expect(list).to.include(`<td data-label="Number" class="c-number"><a href="/app/invoices/${id}">Draft</a></td>`);
      expect(list).to.include('<td data-label="Due amount" class="num">€1,130.50</td>');
    });

    it('L6: refuses an invoice of more than 1,000 lines at its Lines field, suggesting the other groupings; a year by entry is previewed on a reader thread, never built on the request thread', async () => {
      server = await startTestServer();
      const { clientId, projectId, owner: actor } = freelancer(server);
      // A year of short entries: 1,001 billable entries beside the four of October.
      const start = Date.UTC(2025, 10, 1, 7, 0, 0);
      for (let n = 0; n < 997; n++) {
        const at = start + Math.floor(n / 3) * 86_400_000 + (n % 3) * 3_600_000;
        server.services.entries.create(actor, {
          projectId,
          start: new Date(at).toISOString(),
          end: new Date(at + 1_800_000).toISOString(),
          description: `Task ${n}`,
          billable: true,
        });
      }
      const owner = await signIn(server.ownerId);
      const form = await owner.get('/app/invoices/new');
      const year = { clientId, from: '2025-11-01', to: '2026-10-31', note: '' };
      for (const intent of ['preview', 'create']) {
        const refused = await owner.post('/app/invoices/new', { _csrf: SettingsClient.csrf(form.text), ...year, groupBy: 'entry', intent });
        expect(refused.status, intent).to.equal(400);
        const text = flat(refused.text);
        expect(text, intent).to.include(
          'This invoice would have more than 1,000 lines (a line per entry); an invoice holds at most 1,000. Choose fewer lines: a line per project, a line per project and task, a line per member or one line for the whole period; or invoice a shorter range.',
        );
        // At the Lines field, with the form as sent.
        expect(refused.text, intent).to.match(/<select id="invoice-group" name="groupBy"[^>]*aria-invalid="true"/);
        expect(refused.text, intent).to.match(/<option value="entry"\s*selected/);
        // A refusal page, not the 27 MB of a year's lines.
        expect(refused.text.length, intent).to.be.below(30_000);
      }
      expect(server.services.invoices.list(OPERATOR, server.workspaceId)).to.deep.equal([]);
      // Another grouping makes the same year: one line.
      const byProject = await owner.post('/app/invoices/new', {
        _csrf: SettingsClient.csrf(form.text),
        ...year,
        groupBy: 'project',
        intent: 'preview',
      });
      expect(byProject.status).to.equal(200);
      expect(flat(byProject.text)).to.include('1001 entries from 1 Nov 2025 to 31 Oct 2026 (days in UTC), for Acme, in EUR.');
      expect(byProject.text.match(/<td data-label="Description">/g)).to.have.length(1);
    });

    it('I2: a New invoice by entry over the cap is refused from a count that stops past 1,000 entries (create and preview alike), not from reading the range; 1,000 are made', async () => {
      server = await startTestServer();
      const { clientId, projectId, owner: actor } = freelancer(server);
      // 1,500 billable entries, five a day from 1 November 2025 (300 days), before October's four.
      const start = Date.UTC(2025, 10, 1, 7, 0, 0);
      server.services.write(() => {
        for (let n = 0; n < 1500; n++) {
          const at = start + Math.floor(n / 5) * 86_400_000 + (n % 5) * 3_600_000;
          server.services.entries.create(actor, {
            projectId,
            start: new Date(at).toISOString(),
            end: new Date(at + 1_800_000).toISOString(),
            description: `Task ${n}`,
            billable: true,
          });
        }
      });
      const owner = await signIn(server.ownerId);
      const form = await owner.get('/app/invoices/new');
      const send = (to: string, intent: string) =>
        owner.post('/app/invoices/new', {
          _csrf: SettingsClient.csrf(form.text),
          clientId,
          from: '2025-11-01',
          to,
          groupBy: 'entry',
          note: '',
          intent,
        });
      for (const intent of ['create', 'preview']) {
        const refused = await send('2026-10-31', intent);
        expect(refused.status, intent).to.equal(400);
        // The count stopped at 1,001: the refusal knows "more than 1,000", not the 1,504 the range holds
        // (reading them all to say so cost ~190 ms of the request thread per refusal at 57,000).
        expect(flat(refused.text), intent).to.include(
          'This invoice would have more than 1,000 lines (a line per entry); an invoice holds at most 1,000.',
        );
        expect(flat(refused.text), intent).not.to.include('1,504');
        expect(refused.text, intent).to.match(/<select id="invoice-group" name="groupBy"[^>]*aria-invalid="true"/);
      }
      expect(server.services.invoices.list(OPERATOR, server.workspaceId)).to.deep.equal([]);
      // 200 days are 1,000 entries: as many lines as an invoice holds, previewed and made.
      const preview = await send('2026-05-19', 'preview');
      expect(preview.status, flat(preview.text).slice(0, 2000)).to.equal(200);
      expect(flat(preview.text)).to.include('1000 entries from 1 Nov 2025 to 19 May 2026 (days in UTC), for Acme, in EUR.');
      expect(preview.text.match(/<td data-label="Description">/g)).to.have.length(1000);
      const made = await send('2026-05-19', 'create');
      expect(made.status, flat(made.text).slice(0, 2000)).to.equal(303);
      const [invoice] = server.services.invoices.list(OPERATOR, server.workspaceId);
      expect(invoice?.lines).to.have.length(1000);
    });

    it('L6: the preview runs on a reader thread: when that thread dies the page answers 500 and the server goes on; the request thread never reads the entries', async () => {
      server = await startTestServer({ readers: readerHooks({ crashOn: 'invoicePreview' }) });
      const { clientId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const form = await owner.get('/app/invoices/new');
      const preview = await owner.post('/app/invoices/new', {
        _csrf: SettingsClient.csrf(form.text),
        clientId,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: 'entry',
        note: '',
        intent: 'preview',
      });
      expect(preview.status).to.equal(500);
      expect(preview.text).to.not.include('Relaunch day');
      expect((await owner.get('/app/invoices')).status).to.equal(200);
      expect(server.logLines.some((line) => line.includes('an invoice preview failed on its reader thread'))).to.equal(true);
    });

    it("shows the service's refusals at their field with the form as sent: nothing to invoice, entries without a rate; no tax rate is none", async () => {
      server = await startTestServer();
      const { clientId, owner: actor } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const send = (from: string, to: string, intent = 'preview') =>
        owner.submit('/app/invoices/new', '/app/invoices/new', { clientId, from, to, groupBy: 'task', note: 'kept', intent });

      const nothing = await send('2026-09-01', '2026-09-30', 'create');
      expect(nothing.status).to.equal(400);
      expect(flat(nothing.text)).to.match(
        /<span class="field-error" id="invoice-range-error">This client has no billable, un-invoiced, completed entries starting from 2026-09-01 to 2026-09-30/,
      );
      expect(nothing.text).to.include('name="from" value="2026-09-01"');
      expect(nothing.text).to.include('<option value="task" selected>');
      expect(nothing.text).to.include('kept</textarea>');

      const unratedProject = server.services.catalog.projects.create(actor, { name: 'Pro bono', clientId, billable: true }).id;
      server.services.entries.create(actor, {
        projectId: unratedProject,
        start: '2026-10-20T09:00:00Z',
        end: '2026-10-20T10:00:00Z',
        description: 'Unpriced',
        billable: true,
      });
      const unrated = await send('2026-10-01', '2026-10-31', 'create');
      expect(unrated.status).to.equal(400);
      expect(flat(unrated.text)).to.match(/id="invoice-range-error">A billable entry in this range has no hourly rate/);

      // No tax rate is no refusal (decisions 11a): the preview says the rate is not set and where to set it.
      server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: null });
      const untaxed = await send('2026-10-01', '2026-10-08');
      expect(untaxed.status).to.equal(200);
      expect(flat(untaxed.text)).to.include('Tax not set: the VAT rate is not set');
      expect(untaxed.text).to.include('<span class="badge bad">not set</span>');
      expect(untaxed.text).to.include('href="/settings/workspace"');
      expect(server.services.invoices.list(OPERATOR, server.workspaceId)).to.have.length(0);
    });
  });

  describe('actions', () => {
    it('issues after a confirmation, refuses issuing twice and paying a draft, marks paid, refuses voiding a paid one, voids another into a credit note', async () => {
      server = await startTestServer();
      const { clientId, owner: actor, projectId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const id = await createDraft(owner, clientId);

      const payDraft = await owner.post(`/app/invoices/${id}/pay`, {
        _csrf: SettingsClient.csrf((await owner.get(`/app/invoices/${id}`)).text),
      });
      expect(payDraft.status).to.equal(409);
      expect(flat(payDraft.text)).to.include(
        'This invoice cannot move from draft to paid: a draft is issued first (to sent), then marked paid; or voided.',
      );

      const confirm = await owner.get(`/app/invoices/${id}/issue?date=2026-11-01`);
      expect(flat(confirm.text)).to.include('It gets the next number of the workspace&#39;s series');
      expect(confirm.text).to.include('name="date" value="2026-11-01"');
      expect(server.services.invoices.get(OPERATOR, id).status, 'the confirmation writes nothing').to.equal('draft');
      const future = await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text), date: '2026-12-01' });
      expect(future.status).to.equal(400);
      expect(flat(future.text)).to.include('<span class="field-error" id="confirm-date-error">The issue date 2026-12-01 is after today');
      const issued = await act(owner, id, 'issue', '2026-11-01');
      expect(issued.status, issued.text.slice(0, 1000)).to.equal(303);
      const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
      expect(detail).to.include('Issued as 2026-0001, dated 1 Nov 2026, due 15 Nov 2026.');
      expect(detail).to.include('<h1>Invoice 2026-0001 <span class="badge status-sent ">Issued</span></h1>');
      expect(detail).to.include('Payable within 14 days, by 15 November 2026.');

      const twice = await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text) });
      expect(twice.status).to.equal(409);
      expect(flat(twice.text)).to.include('This invoice cannot move from sent to sent');
      expect(server.services.invoices.get(OPERATOR, id).number).to.equal('2026-0001');

      const paid = await act(owner, id, 'pay', '2026-11-02');
      expect(paid.status).to.equal(303);
      expect(flat((await owner.get(`/app/invoices/${id}`)).text)).to.include('2026-0001 is marked paid on 2 Nov 2026.');
      const voidPaid = await owner.post(`/app/invoices/${id}/void`, { _csrf: SettingsClient.csrf(confirm.text) });
      expect(voidPaid.status).to.equal(409);
      expect(flat(voidPaid.text)).to.include('a paid invoice is final');
      expect(server.services.invoices.get(OPERATOR, id).status).to.equal('paid');

      // Another issued invoice, voided: its credit note, and its entries released.
      server.services.entries.create(actor, {
        projectId,
        start: '2026-10-20T09:00:00Z',
        end: '2026-10-20T10:00:00Z',
        description: 'More',
        billable: true,
      });
      const second = await createDraft(owner, clientId);
      expect((await act(owner, second, 'issue')).status).to.equal(303);
      const voidConfirm = flat((await owner.get(`/app/invoices/${second}/void`)).text);
      expect(voidConfirm).to.include('It gets a credit note with the next number of the series');
      const voided = await act(owner, second, 'void');
      expect(voided.status).to.equal(303);
      const after = flat((await owner.get(`/app/invoices/${second}`)).text);
      expect(after).to.include('2026-0002 is void; its credit note 2026-0003 of 2 Nov 2026 is below.');
      expect(after).to.include('<dt id="credit-note">Credit note</dt> <dd>2026-0003 of 2 Nov 2026</dd>');
      expect(after).to.include(`href="/app/invoices/${second}/document.pdf?format=pdf&amp;creditNote=1"`);
      const note = await download(owner, `/app/invoices/${second}/document.pdf?format=pdf&creditNote=1`);
      expect(note.status).to.equal(200);
      expect(note.headers.get('content-disposition')).to.equal(`attachment; filename="2026-0003.pdf"; filename*=UTF-8''2026-0003.pdf`);
      writeFileSync(join(dir, 'credit-note.pdf'), note.bytes);
      expect(flat(poppler('pdftotext', '-layout', join(dir, 'credit-note.pdf'), '-'))).to.include('2026-0003');
      // The list: the void invoice and, on the row above it, its credit note (issue 45 item 12), with the amounts it credits.
      const list = flat((await owner.get('/app/invoices?status=void')).text);
      expect(list).to.include(`<a href="/app/invoices/${second}">2026-0002</a>`);
      expect(list).to.not.include(`<a href="/app/invoices/${id}">`);
      const creditRow = /<tr class="credit-note">(.*?)<\/tr>/.exec(list)?.[1] ?? '';
      expect(creditRow).to.include(`<a href="/app/invoices/${second}#credit-note">2026-0003</a>`);
      expect(creditRow).to.include('cancels 2026-0002');
      expect(creditRow).to.include('<span class="badge status-credit-note">Credit note</span>');
      expect(creditRow).to.include('2 Nov 2026');
      expect(creditRow).to.match(/<td data-label="Gross" class="num">-€[\d,.]+<\/td>/);
      expect(list.indexOf('2026-0003</a>')).to.be.below(list.indexOf('2026-0002</a>'));
      // Every status: the credit note is listed too; an issued or paid filter leaves it out with its void invoice.
      expect(flat((await owner.get('/app/invoices')).text)).to.include(`#credit-note">2026-0003</a>`);
      expect(flat((await owner.get('/app/invoices?status=paid')).text)).to.not.include('2026-0003');
    });

    it('an invoice in francs of an issuer who accounts for VAT in euros: the Issue form asks for the exchange rate, refuses at its field without it, and the invoice shows its VAT in euros too', async () => {
      server = await startTestServer();
      server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { currency: 'CHF' });
      const { clientId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const id = await createDraft(owner, clientId);
      const confirm = await owner.get(`/app/invoices/${id}/issue`);
      expect(confirm.status).to.equal(200);
      expect(flat(confirm.text)).to.match(/<label for="confirm-rate" ?>Exchange rate: EUR per CHF/);
      expect(confirm.text).to.include('name="exchangeRate"');
      const csrf = SettingsClient.csrf(confirm.text);
      const without = await owner.post(`/app/invoices/${id}/issue`, { _csrf: csrf, date: '2026-11-01' });
      expect(without.status).to.equal(400);
      expect(flat(without.text)).to.include(
        '<span class="field-error" id="confirm-rate-error">This invoice is in CHF but its issuer accounts for VAT in EUR: it states its VAT in EUR too',
      );
      const wrong = await owner.post(`/app/invoices/${id}/issue`, { _csrf: csrf, date: '2026-11-01', exchangeRate: 'abc' });
      expect(wrong.status).to.equal(400);
      expect(flat(wrong.text)).to.include('The exchange rate must be a positive decimal such as 1.0634 (got &quot;abc&quot;).');
      expect(wrong.text, 'what was typed is kept').to.include('value="abc"');
      expect(server.services.invoices.get(OPERATOR, id).status, 'refused: nothing written').to.equal('draft');
      // A decimal comma is read as the decimal point.
      const issued = await owner.post(`/app/invoices/${id}/issue`, { _csrf: csrf, date: '2026-11-01', exchangeRate: '1,0634' });
      expect(issued.status, issued.text.slice(0, 1000)).to.equal(303);
      const invoice = server.services.invoices.get(OPERATOR, id);
      // 10 h at 95: 950.00 CHF net, 180.50 CHF VAT; × 1.0634 = 191.9437 EUR.
      expect(invoice).to.deep.include({ status: 'sent', currency: 'CHF', taxTotal: 180.5 });
      expect(invoice.vatCurrency).to.deep.equal({ currency: 'EUR', exchangeRate: 1.0634, taxTotal: 191.94 });
      const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
      expect(detail).to.include('<dt>VAT in EUR</dt>');
      expect(detail).to.include('€191.94');
      expect(detail).to.include('(1 CHF = 1.0634 EUR)');
    });
  });

  describe('documents', () => {
    it('downloads the PDF (its text carries number, dates and totals) and each XML, which pass the official rules', async () => {
      server = await startTestServer();
      const { clientId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const id = await createDraft(owner, clientId);

      const draftPdf = await download(owner, `/app/invoices/${id}/document.pdf?format=pdf`);
      expect(draftPdf.status).to.equal(200);
      expect(draftPdf.headers.get('content-disposition')).to.equal(
        `attachment; filename="draft-${id}.pdf"; filename*=UTF-8''draft-${id}.pdf`,
      );
      writeFileSync(join(dir, 'draft.pdf'), draftPdf.bytes);
      expect(poppler('pdftotext', join(dir, 'draft.pdf'), '-')).to.include('DRAFT');
      const draftXml = await owner.get(`/app/invoices/${id}/document.xml?format=xrechnung-ubl`);
      expect(draftXml.status).to.equal(409);
      expect(flat(draftXml.text)).to.include('Invoice number and issue date (BT-2): given when the invoice is issued');
      expect(flat(draftXml.text)).to.include('issue the invoice first');

      expect((await act(owner, id, 'issue', '2026-11-01')).status).to.equal(303);
      const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
      for (const format of ['pdf', 'xrechnung-ubl', 'xrechnung-cii', 'peppol'])
        expect(detail).to.include(`href="/app/invoices/${id}/document.${format === 'pdf' ? 'pdf' : 'xml'}?format=${format}"`);
      expect(detail.match(/<span class="badge good">ready<\/span>/g)).to.have.length(4);

      const pdf = await download(owner, `/app/invoices/${id}/document.pdf?format=pdf`);
      expect(pdf.status).to.equal(200);
      expect(pdf.headers.get('content-type')).to.equal('application/pdf');
      expect(pdf.headers.get('content-disposition')).to.equal(`attachment; filename="2026-0001.pdf"; filename*=UTF-8''2026-0001.pdf`);
      expect(pdf.headers.get('cache-control')).to.equal('no-store');
      expect(Number(pdf.headers.get('content-length'))).to.equal(pdf.bytes.length);
      expect(pdf.bytes.subarray(0, 5).toString()).to.equal('%PDF-');
      const pdfFile = join(dir, '2026-0001.pdf');
      writeFileSync(pdfFile, pdf.bytes);
      const text = flat(poppler('pdftotext', '-layout', pdfFile, '-'));
      for (const expected of [
        'Number 2026-0001',
        'Date 1 Nov 2026',
        'Due 15 Nov 2026',
        'Service period 1 Oct 2026 – 31 Oct 2026',
        'Net total €950.00',
        'VAT 19% on €950.00 €180.50',
        'Total €1,130.50',
        'Ada Lovelace Design',
        'Acme GmbH',
      ])
        expect(text, expected).to.include(expected);

      const files: Record<string, string> = {};
      for (const format of ['xrechnung-ubl', 'xrechnung-cii', 'peppol']) {
        const xml = await download(owner, `/app/invoices/${id}/document.xml?format=${format}`);
        expect(xml.status, format).to.equal(200);
        expect(xml.headers.get('content-type')).to.equal('application/xml; charset=utf-8');
        expect(xml.headers.get('content-disposition')).to.equal(
          `attachment; filename="2026-0001-${format}.xml"; filename*=UTF-8''2026-0001-${format}.xml`,
        );
        expect(xml.bytes.toString()).to.include('2026-0001');
        files[format] = join(dir, `2026-0001-${format}.xml`);
        writeFileSync(files[format]!, xml.bytes);
      }
      const [xrechnung, plain] = await Promise.all([
        validate([files['xrechnung-ubl']!, files['xrechnung-cii']!], true),
        validate([files.peppol!, pdfFile], false),
      ]);
      for (const [file, report] of [...xrechnung.files, ...plain.files]) expect(fatal(report), file).to.deep.equal([]);
      expect(plain.files.get(pdfFile)?.pdf?.attachments).to.include('factur-x.xml');

      // An unknown format, or one that does not fit the address: 400 naming the values.
      const unknown = await owner.get(`/app/invoices/${id}/document.xml?format=zugferd`);
      expect(unknown.status).to.equal(400);
      expect(flat(unknown.text)).to.include(
        'Unknown document format &quot;zugferd&quot; for document.xml: document.xml takes format=xrechnung-ubl, format=xrechnung-cii, format=peppol.',
      );
      expect((await owner.get(`/app/invoices/${id}/document.pdf?format=peppol`)).status).to.equal(400);
      expect((await owner.get(`/app/invoices/${id}/document.pdf?creditNote=yes`)).status).to.equal(400);
      // A credit note of an invoice that has none: 409, named.
      const none = await owner.get(`/app/invoices/${id}/document.pdf?format=pdf&creditNote=1`);
      expect(none.status).to.equal(409);
      expect(flat(none.text)).to.include('Credit note: only an issued invoice that was voided has one');
    });

    it('shows each missing value by name and BT number with where to set it, and a fill makes the format ready', async () => {
      server = await startTestServer();
      const { clientId } = freelancer(server, {
        reference: null,
        electronicAddress: 'einkauf@acme.example',
        electronicAddressScheme: 'EM',
      });
      const owner = await signIn(server.ownerId);
      const id = await createDraft(owner, clientId);
      expect((await act(owner, id, 'issue')).status).to.equal(303);
      const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
      expect(detail).to.include('<span class="badge good">ready</span>'); // the PDF
      expect(detail).to.include(
        '<strong>Buyer reference (the client&#39;s reference; in German public procurement the Leitweg-ID)</strong> <span class="hint inline">(BT-10, <code>recipient.reference</code>)</span>: set it on the client in the <a href="/app/catalog">Catalog</a> (for new invoices), or fill it below for this invoice',
      );
      // Peppol: the email address is set, so no fill can change it; the page says where it belongs.
      expect(detail).to.include('Buyer electronic address as a Peppol participant');
      expect(detail).to.include('<label for="fill-0">Buyer reference');
      expect(detail).to.not.include('name="recipient.electronicAddress"');

      const refused = await owner.get(`/app/invoices/${id}/document.xml?format=xrechnung-cii`);
      expect(refused.status).to.equal(409);
      expect(flat(refused.text)).to.include('(BT-10, <code>recipient.reference</code>)');

      const csrf = SettingsClient.csrf(detail);
      const blank = await owner.post(`/app/invoices/${id}/fill`, { _csrf: csrf, 'recipient.reference': '  ' });
      expect(blank.status).to.equal(400);
      expect(flat(blank.text)).to.include('Type at least one value to fill; empty fields are skipped.');
      const filled = await owner.post(`/app/invoices/${id}/fill`, { _csrf: csrf, 'recipient.reference': 'PO-4711' });
      expect(filled.status).to.equal(303);
      const after = flat((await owner.get(`/app/invoices/${id}`)).text);
      expect(after).to.include('Filled recipient.reference.');
      expect(after).to.include('<dt>Reference</dt> <dd>PO-4711</dd>');
      expect(after.match(/<span class="badge good">ready<\/span>/g)).to.have.length(3);
      const xml = await download(owner, `/app/invoices/${id}/document.xml?format=xrechnung-cii`);
      expect(xml.status).to.equal(200);
      const file = join(dir, 'filled.xml');
      writeFileSync(file, xml.bytes);
      expect(fatal((await validate([file], true)).files.get(file))).to.deep.equal([]);
      // A filled value that went out in a document (the XML downloaded above) no longer changes (issue 56 item 3).
      const again = await owner.post(`/app/invoices/${id}/fill`, { _csrf: csrf, 'recipient.reference': 'PO-9' });
      expect(again.status).to.equal(409);
      expect(flat(again.text)).to.include(
        'This value went out in a document of this invoice (downloaded or sent by mail) and can no longer change.',
      );
    });

    it('answers 503 with Retry-After when every document thread is busy past the queue', async () => {
      server = await startTestServer({ env: { DOCUMENT_THREADS: '1', DOCUMENT_QUEUE_MS: '1' } });
      const { clientId } = freelancer(server);
      const owner = await signIn(server.ownerId);
      const id = await createDraft(owner, clientId);
      // The first starts the thread (tsx boots in it for a second or more); the others wait past 1 ms.
      const answers = await Promise.all(Array.from({ length: 4 }, () => download(owner, `/app/invoices/${id}/document.pdf?format=pdf`)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses[0]).to.equal(200);
      expect(statuses.filter((s) => s === 503)).to.have.length.greaterThan(0);
      const busy = answers.find((a) => a.status === 503)!;
      expect(Number(busy.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(busy.bytes.toString()).to.include('The server is making other documents.');
      expect(server.running.documents.threads()).to.equal(1);
    });
  });
});
