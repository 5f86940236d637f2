import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { OPERATOR } from '../../src/principal.js';
import { poppler, requireTools } from '../einvoice/tools.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, SettingsClient } from '../helpers/settings-client.js';

/*
 * Issue 45 items 1 and 2 (decisions 11a): an invoice's range is whole days of the member who makes
 * it, as their Reports read them, across midnight and a change of summer time (Europe/Berlin, 25
 * October 2026: 02:00 CEST → 02:00 CET, a day of 25 hours); the invoice keeps the zone and names
 * it. A draft needs no tax settings; issuing refuses, naming each missing setting and where it is
 * set. Over the real server (HTTP, the pages, the command line, the PDF through poppler).
 */

const BERLIN = 'Europe/Berlin';
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('invoices: whose days, and drafts without tax settings (issue 45 items 1, 2)', function () {
  this.timeout(60_000);
  // One server for the file; each test has a fresh workspace and owner in it (invoices, numbers
  // and settings are the workspace's).
  let shared: TestServer;
  let server: FreshWorkspace;
  let dir: string;
  before(async () => {
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-invoice-days-'));
    shared = await startTestServer();
  });
  after(async () => {
    await shared.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    server = freshWorkspace(shared);
  });

  async function cli(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => ({ ...server.running.database, close: () => {} }),
      createServices: () => server.services,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
    });
    let json: any;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr, json, error: stderr.startsWith('{') ? JSON.parse(stderr).error : undefined };
  }

  /** A client with a billable project at 120/h and one-hour entries starting at the given instants (UTC). */
  async function clientWith(name: string, starts: string[]) {
    const client = (await server.request('POST', '/api/v1/clients', { json: { name, country: 'DE' } })).body.data;
    const project = (
      await server.request('POST', '/api/v1/projects', {
        json: { name: `${name} work`, clientId: client.id, billable: true, hourlyRate: 120 },
      })
    ).body.data;
    const entries: Record<string, string> = {};
    for (const start of starts) {
      const end = new Date(Date.parse(start) + 3_600_000).toISOString();
      const made = await server.request('POST', '/api/v1/entries', { json: { projectId: project.id, start, end, billable: true } });
      expect(made.status, made.text).to.equal(200);
      entries[start] = made.body.data.id;
    }
    return { id: client.id as string, entries };
  }

  /** What the member's Reports say a client's range is worth, read in their zone. */
  async function reported(clientId: string, from: string, to: string, zone: string) {
    const res = await server.request(
      'GET',
      `/api/v1/reports/summary?from=${from}&to=${to}&timeZone=${encodeURIComponent(zone)}&clientIds=${clientId}`,
    );
    expect(res.status, res.text).to.equal(200);
    return res.body.data.totals as { amount: number; entryCount: number };
  }

  const invoiceOf = (entryId: string) =>
    server.services.entries.get(server.services.tokens.authenticate(server.ownerToken)!.actor, entryId).invoiceId;

  describe('1. the creating member’s days', () => {
    it('a Berlin member’s October invoice holds 1 October 00:30 Berlin and not 1 November 00:30 Berlin; its total is their report’s, across midnight and the change of summer time', async () => {
      server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: 19 });
      server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: BERLIN });
      const acme = await clientWith('Acme', [
        '2026-09-30T22:30:00Z', // 1 Oct 00:30 CEST: Berlin's October, UTC's September
        '2026-10-24T21:30:00Z', // 24 Oct 23:30 CEST
        '2026-10-24T22:30:00Z', // 25 Oct 00:30 CEST, the day of the change
        '2026-10-25T22:30:00Z', // 25 Oct 23:30 CET, its last hour (the day has 25)
        '2026-10-25T23:30:00Z', // 26 Oct 00:30 CET
        '2026-10-31T23:30:00Z', // 1 Nov 00:30 CET: the issue's entry, UTC's 31 October
      ]);
      const { id } = server.services.invoices.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        clientId: acme.id,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: 'entry',
      });
      const invoice = server.services.invoices.get(OPERATOR, id);
      expect(invoice).to.deep.include({ from: '2026-10-01', to: '2026-10-31', timeZone: BERLIN, netTotal: 600 });
      // Each line dated in the invoice's days: every one inside its period.
      expect(invoice.lines.map((l) => l.description)).to.deep.equal([
        '1 Oct 2026 Acme work',
        '24 Oct 2026 Acme work',
        '25 Oct 2026 Acme work',
        '25 Oct 2026 Acme work',
        '26 Oct 2026 Acme work',
      ]);
      expect(invoiceOf(acme.entries['2026-10-31T23:30:00Z'] as string)).to.equal(null);
      expect(invoiceOf(acme.entries['2026-09-30T22:30:00Z'] as string)).to.equal(id);
      const october = await reported(acme.id, '2026-10-01', '2026-10-31', BERLIN);
      expect([invoice.netTotal, invoice.lines.length]).to.deep.equal([october.amount, october.entryCount]);

      // The day of 25 hours alone: its first and last hour, nothing of the days beside it.
      const beta = await clientWith('Beta', [
        '2026-10-24T21:30:00Z',
        '2026-10-24T22:30:00Z',
        '2026-10-25T22:30:00Z',
        '2026-10-25T23:30:00Z',
      ]);
      const day = server.services.invoices.preview(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        clientId: beta.id,
        from: '2026-10-25',
        to: '2026-10-25',
      });
      const changeDay = await reported(beta.id, '2026-10-25', '2026-10-25', BERLIN);
      expect([day.netTotal, day.entryCount, day.timeZone]).to.deep.equal([changeDay.amount, changeDay.entryCount, BERLIN]);
      expect(day.netTotal).to.equal(240);

      // Nothing left to invoice of November's first minutes in UTC days either way: the refusal names the zone.
      const none = await cli(
        'invoice',
        'create',
        '--workspace',
        server.workspaceId,
        '--user',
        server.ownerId,
        '--client',
        acme.id,
        '--from',
        '2026-10-31',
        '--to',
        '2026-10-31',
        '--json',
      );
      expect(none.code).to.equal(1);
      expect(none.error.message).to.match(/starting from 2026-10-31 to 2026-10-31 \(days in Europe\/Berlin, both included\)/);
    });

    it('the command line: --user U reads U’s days, --time-zone Z overrides them; a zone that is none is refused', async () => {
      server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: 19 });
      server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: BERLIN });
      const starts = ['2026-09-30T22:30:00Z', '2026-10-31T23:30:00Z'];
      const [berlin, utc, york] = [
        await clientWith('Berlin Co', starts),
        await clientWith('UTC Co', starts),
        await clientWith('York Co', starts),
      ];
      const create = (clientId: string, ...more: string[]) =>
        cli(
          'invoice',
          'create',
          '--workspace',
          server.workspaceId,
          '--user',
          server.ownerId,
          '--client',
          clientId,
          '--from',
          '2026-10-01',
          '--to',
          '2026-10-31',
          ...more,
          '--json',
        );
      const shown = async (clientId: string, ...more: string[]) => {
        const made = await create(clientId, ...more);
        expect(made.code, made.stderr).to.equal(0);
        return (await cli('invoice', 'show', made.json.id, '--json')).json.invoice;
      };
      const own = await shown(berlin.id);
      expect([own.timeZone, own.netTotal, invoiceOf(berlin.entries['2026-09-30T22:30:00Z'] as string)]).to.deep.equal([
        BERLIN,
        120,
        own.id,
      ]);
      const inUtc = await shown(utc.id, '--time-zone', 'UTC');
      expect([inUtc.timeZone, inUtc.netTotal, invoiceOf(utc.entries['2026-10-31T23:30:00Z'] as string)]).to.deep.equal([
        'UTC',
        120,
        inUtc.id,
      ]);
      // New York: both entries are October evenings there (30 Sep 18:30 is not: it is September's).
      const inYork = await shown(york.id, '--time-zone', 'america/new_york');
      expect([inYork.timeZone, inYork.netTotal]).to.deep.equal(['America/New_York', 120]);
      expect(invoiceOf(york.entries['2026-10-31T23:30:00Z'] as string)).to.equal(inYork.id);
      const human = await cli('invoice', 'show', own.id);
      expect(human.stdout).to.include('period: 2026-10-01 to 2026-10-31 (days in Europe/Berlin)');

      const bad = await create(berlin.id, '--time-zone', 'Mars/Olympus');
      expect([bad.code, bad.error?.message]).to.deep.equal([
        1,
        'timeZone: "Mars/Olympus" is not an IANA time zone name such as Europe/Berlin.',
      ]);
    });

    it('the pages and the PDF say the days and name the zone; older invoices were UTC days', async () => {
      server.services.invoices.setSettings(OPERATOR, server.workspaceId, { taxRate: 19 });
      const owner = new SettingsClient(server);
      await owner.setUp(server.ownerId, PASSWORD);
      server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: BERLIN });
      const acme = await clientWith('Acme', ['2026-09-30T22:30:00Z', '2026-10-31T23:30:00Z']);
      const form = { clientId: acme.id, from: '2026-10-01', to: '2026-10-31', groupBy: 'project', note: '' };
      const page = flat((await owner.get('/app/invoices/new')).text);
      expect(page).to.include('(days in your time zone, Europe/Berlin, both included, as your Reports read them)');
      const preview = flat((await owner.submit('/app/invoices/new', '/app/invoices/new', { ...form, intent: 'preview' })).text);
      expect(preview).to.include('1 entry from 1 Oct 2026 to 31 Oct 2026 (days in Europe/Berlin), for Acme, in EUR.');
      const made = await owner.submit('/app/invoices/new', '/app/invoices/new', { ...form, intent: 'create' });
      expect(made.status).to.equal(303);
      const id = /inv_[\w-]+$/.exec(made.headers.get('location') ?? '')?.[0] as string;
      const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
      expect(detail).to.include(
        '<dt>Service period</dt> <dd>1 Oct 2026 – 31 Oct 2026 <span class="hint inline">(days in Europe/Berlin)</span></dd>',
      );

      const pdf = await fetch(`${server.url}/app/invoices/${id}/document.pdf?format=pdf`, {
        headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      expect(pdf.status).to.equal(200);
      const file = join(dir, `${id}.pdf`);
      writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
      expect(flat(poppler('pdftotext', '-layout', file, '-'))).to.include('Service period 1 Oct 2026 – 31 Oct 2026 (Europe/Berlin)');

      // An invoice stored before invoices kept their zone (no time_zone written) reads as UTC days.
      const db = new Database(server.config.databasePath);
      const columns = (db.prepare('select name from pragma_table_info(?)').all('invoices') as Array<{ name: string }>)
        .map((c) => c.name)
        .filter((name) => name !== 'id' && name !== 'time_zone');
      db.prepare(
        `insert into invoices (id, ${columns.join(', ')}) select 'inv_older', ${columns.join(', ')} from invoices where id = ?`,
      ).run(id);
      db.close();
      expect(server.services.invoices.get(OPERATOR, 'inv_older')).to.deep.include({ from: '2026-10-01', timeZone: 'UTC' });
      const older = flat((await owner.get('/app/invoices/inv_older')).text);
      expect(older).to.include('<dd>1 Oct 2026 – 31 Oct 2026 <span class="hint inline">(days in UTC)</span></dd>');
    });
  });

  describe('2. a draft needs no tax settings', () => {
    // Everything else an issued invoice's PDF needs is there (issuing checks it first: issue 56 item 1): what is missing is the tax.
    beforeEach(() =>
      server.services.invoices.setBusinessProfile(OPERATOR, server.workspaceId, {
        legalName: 'Ada Lovelace Design',
        country: 'DE',
        taxNumber: '30/123/45678',
      }),
    );
    it('the command line: invoice create without a tax rate exits 0; issuing refuses naming the setting and where to set it, then takes it once set', async () => {
      const acme = await clientWith('Acme', ['2026-10-05T09:00:00Z', '2026-10-06T09:00:00Z']);
      const made = await cli(
        'invoice',
        'create',
        '--workspace',
        server.workspaceId,
        '--user',
        server.ownerId,
        '--client',
        acme.id,
        '--from',
        '2026-10-01',
        '--to',
        '2026-10-31',
        '--json',
      );
      expect([made.code, made.stderr]).to.deep.equal([0, '']);
      const id = made.json.id as string;
      const draft = (await cli('invoice', 'show', id, '--json')).json.invoice;
      expect(draft.lines[0]).to.include({ taxCategory: 'S' }).and.not.have.property('taxRate');
      expect(draft).to.deep.include({ taxBreakdown: [], netTotal: 240, taxTotal: 0, grossTotal: 240 });
      expect((await cli('invoice', 'show', id)).stdout).to.include('S rate not set');

      const refused = await cli('invoice', 'status', id, '--to', 'sent', '--user', server.ownerId, '--json');
      expect(refused.code).to.equal(1);
      expect(refused.error).to.deep.equal({
        code: 'conflict',
        message: `This invoice cannot be issued yet: its tax is not set. taxRate: the workspace has no VAT rate for the standard rate (category S); set taxRate on the Workspace page (Settings › Workspace, Invoicing) or with timetrack workspace invoicing ${server.workspaceId} --set taxRate=19 (your rate); a small business that charges no VAT sets smallBusiness=true in the business profile and an exemptionReason instead. Then issue it again: the draft takes the settings when it is issued.`,
      });
      expect(server.services.invoices.get(OPERATOR, id)).to.deep.include({ status: 'draft', number: null });

      expect((await cli('workspace', 'invoicing', server.workspaceId, '--set', 'taxRate=19', '--json')).code).to.equal(0);
      const issued = await cli('invoice', 'status', id, '--to', 'sent', '--user', server.ownerId, '--json');
      expect([issued.code, issued.json]).to.deep.equal([0, { id, from: 'draft', to: 'sent', number: '2026-0001' }]);
      const taxed = server.services.invoices.get(OPERATOR, id);
      expect(taxed.lines[0]).to.include({ taxCategory: 'S', taxRate: 19 });
      expect(taxed).to.deep.include({ netTotal: 240, taxTotal: 45.6, grossTotal: 285.6, amountDue: 285.6 });
      expect(taxed.taxBreakdown).to.deep.equal([
        { category: 'S', rate: 19, basisAmount: 240, taxAmount: 45.6, exemptionReason: null, exemptionReasonCode: null },
      ]);

      // A small business without its reason: the draft is made, issuing asks for the reason.
      server.services.invoices.setBusinessProfile(OPERATOR, server.workspaceId, { smallBusiness: true });
      const small = await clientWith('Small', ['2026-10-07T09:00:00Z']);
      const smallDraft = await cli(
        'invoice',
        'create',
        '--workspace',
        server.workspaceId,
        '--user',
        server.ownerId,
        '--client',
        small.id,
        '--from',
        '2026-10-01',
        '--to',
        '2026-10-31',
        '--json',
      );
      expect(smallDraft.code, smallDraft.stderr).to.equal(0);
      const smallRefused = await cli('invoice', 'status', smallDraft.json.id, '--to', 'sent', '--user', server.ownerId, '--json');
      expect(smallRefused.code).to.equal(1);
      expect(smallRefused.error.message).to.match(
        /^This invoice cannot be issued yet: its tax is not set\. exemptionReason: an exempt invoice \(category E: smallBusiness is true in the business profile\) must say why .* set exemptionReason or exemptionReasonCode on the Workspace page \(Settings › Workspace, Invoicing\) or with timetrack workspace invoicing \S+ --set exemptionReason=…, or on the client \(the Catalog page's Invoicing details\)\./,
      );
      server.services.invoices.setSettings(OPERATOR, server.workspaceId, { exemptionReason: 'Kleinunternehmer gemäß § 19 UStG' });
      expect((await cli('invoice', 'status', smallDraft.json.id, '--to', 'sent', '--user', server.ownerId, '--json')).code).to.equal(0);
      expect(server.services.invoices.get(OPERATOR, smallDraft.json.id).taxBreakdown).to.deep.equal([
        {
          category: 'E',
          rate: 0,
          basisAmount: 120,
          taxAmount: 0,
          exemptionReason: 'Kleinunternehmer gemäß § 19 UStG',
          exemptionReasonCode: null,
        },
      ]);
    });

    it('the page: the draft shows the rate "not set" and where to set it; Issue is refused (409) naming it, above the form, and changes nothing', async () => {
      const owner = new SettingsClient(server);
      await owner.setUp(server.ownerId, PASSWORD);
      const acme = await clientWith('Acme', ['2026-10-05T09:00:00Z']);
      const made = await owner.submit('/app/invoices/new', '/app/invoices/new', {
        clientId: acme.id,
        from: '2026-10-01',
        to: '2026-10-31',
        groupBy: 'project',
        note: '',
        intent: 'create',
      });
      expect(made.status, made.text.slice(0, 500)).to.equal(303);
      const id = /inv_[\w-]+$/.exec(made.headers.get('location') ?? '')?.[0] as string;
      const detail = flat((await owner.get(`/app/invoices/${id}`)).text);
      expect(detail).to.include(
        'Tax not set: the VAT rate is not set (one line counts no VAT yet). Set it in the <a href="/settings/workspace">invoicing settings</a> (Settings › Workspace) before issuing: issuing refuses until it is set, then takes it.',
      );
      expect(detail).to.include('<td data-label="VAT" class="num"> S <span class="badge bad">not set</span> </td>');

      const confirm = await owner.get(`/app/invoices/${id}/issue`);
      const refused = await owner.post(`/app/invoices/${id}/issue`, { _csrf: SettingsClient.csrf(confirm.text), date: '2026-11-02' });
      expect(refused.status).to.equal(409);
      const text = flat(refused.text);
      expect(text).to.include(
        // The page's words (a person's, no command line), as every refusal a page shows.
        '<div class="notice error" role="alert">This invoice cannot be issued yet: its VAT is not set. Set the standard VAT rate under Settings › Workspace › Invoicing (a small business that charges no VAT says so in the business profile there and gives the exemption reason; a client taxed otherwise gets its own VAT category in the Catalog). Then issue it again.</div>',
      );
      expect(text).not.to.include('id="confirm-date-error"');
      expect(text).to.include('value="2026-11-02"');
      expect(server.services.invoices.get(OPERATOR, id)).to.deep.include({ status: 'draft', number: null });
    });
  });
});
