import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** The Import page's upload over real HTTP: its size limit, its CSRF token, a form without a file. */
describe('settings page: the import upload', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer({ env: { IMPORT_UPLOAD_MAX_MB: '1' } });
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });

  /** The files in this server's uploads directory (beside its database), which other tests' uploads share. */
  const uploads = () => {
    const data = dirname(server.config.databasePath);
    return readdirSync(data)
      .filter((d) => d.startsWith('timetrack-uploads-'))
      .flatMap((d) => readdirSync(join(data, d)));
  };

  async function upload(csrf: string, file: Buffer | null, client: SettingsClient = owner, extra: Record<string, string> = {}) {
    const form = new FormData();
    form.append('_csrf', csrf);
    form.append('timeZone', 'Europe/Berlin');
    for (const [k, v] of Object.entries(extra)) form.append(k, v);
    if (file) form.append('file', new Blob([file], { type: 'text/csv' }), 'export.csv');
    const response = await fetch(`${server.url}/settings/import`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join('; '), origin: server.url },
      body: form,
    });
    return { status: response.status, text: await response.text(), location: response.headers.get('location') };
  }

  it('refuses a file over IMPORT_UPLOAD_MAX_MB, saying what to do, and keeps nothing of it', async () => {
    const before = uploads();
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const big = Buffer.alloc(1024 * 1024 + 10, 'a');
    const refused = await upload(csrf, big);
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include(
      'The file is larger than the 1 MB this page takes: export a shorter range, or ask the person who runs timetrack to import it on the server',
    );
    expect(
      uploads().filter((file) => !before.includes(file)),
      'a file kept',
    ).to.deep.equal([]);
  });

  it('stores no file for a form without the session’s token, and asks for a file when none came', async () => {
    const before = uploads();
    const forged = await upload('not-the-token', Buffer.from('email,start,end\n'));
    expect(forged.status).to.equal(403);
    expect(forged.text).to.include('The form was out of date or came from another site. Reload the page and choose the file again.');
    expect(
      uploads().filter((file) => !before.includes(file)),
      'a file kept',
    ).to.deep.equal([]);
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const empty = await upload(csrf, null);
    expect(empty.status).to.equal(400);
    expect(empty.text).to.include('Choose a CSV file to import.');
  });

  it('a member who is no owner may not create members: the service refuses a forged form', async () => {
    const { id } = server.services.accounts.createUser(OPERATOR, { name: 'Ada', email: 'ada@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: id });
    const member = new SettingsClient(server);
    await member.setUp(id, PASSWORD);
    const page = (await member.get('/settings/import')).text;
    expect(page).to.not.include('name="createMembers"');
    const started = await upload(
      SettingsClient.csrf(page),
      Buffer.from('email,start,end\nada@example.org,2026-03-02T09:00:00Z,2026-03-02T10:00:00Z\n'),
      member,
      {
        createMembers: 'yes',
      },
    );
    expect(started.status).to.equal(303);
    let run = await member.get(started.location as string);
    for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await member.get(started.location as string);
    }
    expect(run.status).to.equal(403);
    expect(run.text).to.include('Only an owner of the workspace may create members in an import.');
  });

  it('checks a file on a thread and shows a whole-file refusal on the run’s page', async () => {
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const started = await upload(csrf, Buffer.from('Day,Who\n2026-03-02,Ada\n'));
    expect(started.status).to.equal(303);
    expect(started.location).to.match(/^\/settings\/import\/runs\/job_[0-9a-z]{20}$/);
    let page = await owner.get(started.location as string);
    for (let i = 0; i < 100 && page.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      page = await owner.get(started.location as string);
    }
    expect(page.status).to.equal(400);
    expect(page.text).to.include('No import format matches the columns of this file (day, who).');
    // Another person's session does not see the run.
    const stranger = new SettingsClient(server);
    expect((await stranger.get(started.location as string)).status).to.equal(303);
  });

  it('the check page: an Amount column it cannot read is refused with what to do; a row priced by the file’s amount says so', async () => {
    const page = async (file: string) => {
      const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
      const started = await upload(csrf, Buffer.from(file));
      expect(started.status).to.equal(303);
      let run = await owner.get(started.location as string);
      for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        run = await owner.get(started.location as string);
      }
      return {
        status: run.status,
        text: run.text
          .replace(/\s+/g, ' ')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'"),
      };
    };
    const header = (amount: string) =>
      `User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,${amount}\n`;
    const row = 'Owner,owner@example.org,Acme,Website,Design,Sketches,Yes,2026-03-02,09:00:00,2026-03-02,13:00:00,04:00:00,,480.00\n';
    const email = server.services.accounts.memberDirectory(server.workspaceId).find((m) => m.userId === server.ownerId)?.email ?? '';
    const refused = await page(header('Amount ()') + row.replace('owner@example.org', email));
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include(
      'The column "Amount ()" holds the rows\' amounts, but timetrack cannot read its heading: after the name it expects a currency code in parentheses, such as "Amount (EUR)".',
    );
    const actor = server.services.tokens.authenticate(server.ownerToken)!.actor;
    const acme = server.services.catalog.clients.create(actor, { name: 'Acme' }).id;
    const website = server.services.catalog.projects.create(actor, { name: 'Website', clientId: acme, billable: true }).id;
    server.services.catalog.tasks.create(actor, { name: 'Design', projectId: website, hourlyRate: 130 });
    const checked = await page(header('Amount (EUR)') + row.replace('owner@example.org', email));
    expect(checked.status).to.equal(200);
    expect(checked.text).to.include('<td data-label="Rate">120 (from the file\'s amount)</td>');
    expect(server.services.entries.list(actor, { from: '2026-03-01', to: '2026-03-31' }).rows).to.deep.equal([]);
  });

  it('a German owner reads each refused row’s reason in German on the check page (issue 58)', async () => {
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const email = server.services.accounts.memberDirectory(server.workspaceId).find((m) => m.userId === server.ownerId)?.email ?? '';
    const file = [
      'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)',
      `Owner,${email},Acme,Website,,Late,Yes,2026-03-02,11:00:00,2026-03-02,10:00:00,01:00:00,,`,
      `Owner,${email},,,Design,Orphan,Yes,2026-03-02,09:00:00,2026-03-02,10:00:00,01:00:00,,`,
    ].join('\n');
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const started = await upload(csrf, Buffer.from(`${file}\n`));
    expect(started.status).to.equal(303);
    let run = await owner.get(started.location as string);
    for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await owner.get(started.location as string);
    }
    const text = run.text.replace(/\s+/g, ' ');
    expect(text).to.include('<strong>Zeile 2</strong>: End time: Das Ende liegt am oder vor dem Beginn');
    expect(text).to.include('<strong>Zeile 3</strong>: Task: Die Aufgabe „Design“ hat kein Projekt; eine Aufgabe gehört zu einem Projekt');
    expect(text).not.to.include('the end is at or before the start');
  });

  it('a German owner reads the rarer reasons in German too: a day the calendar lacks, a time the clocks skip (issue 58 item 1)', async () => {
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const email = server.services.accounts.memberDirectory(server.workspaceId).find((m) => m.userId === server.ownerId)?.email ?? '';
    const file = [
      'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)',
      `Owner,${email},Acme,Website,,Late,Yes,2026-02-30,09:00:00,2026-02-30,10:00:00,01:00:00,,`,
      `Owner,${email},Acme,Website,,Gap,Yes,2026-03-29,02:30,2026-03-29,04:00,01:00:00,,`,
    ].join('\n');
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const started = await upload(csrf, Buffer.from(`${file}\n`));
    expect(started.status).to.equal(303);
    let run = await owner.get(started.location as string);
    for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await owner.get(started.location as string);
    }
    const text = run.text.replace(/\s+/g, ' ');
    expect(text).to.include('<strong>Zeile 2</strong>: Start date: „2026-02-30“ ist kein Tag des Kalenders');
    expect(text).to.include(
      '<strong>Zeile 3</strong>: Start time: 02:30 gibt es an diesem Tag in Europe/Berlin nicht (die Uhren überspringen diese Zeit bei der Umstellung auf Sommerzeit)',
    );
    expect(text).not.to.include('is not a day of the calendar');
  });

  it('a German owner reads another module’s check of a timetrack file’s record in German: a record’s version, the workspace’s settings (issue 58 item 3)', async () => {
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const json = (value: unknown) => `"${JSON.stringify(value).replace(/"/g, '""')}"`;
    const record = (kind: string, data: unknown) =>
      Array.from({ length: 20 }, (_, i) => (i === 0 ? kind : i === 18 ? json(data) : '')).join(',');
    const file = [
      'record,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice',
      record('profile', { v: 2 }),
      record('workspace', { v: 1, hourlyRate: null, runawayAction: 'explode' }),
      record('profile', { v: 1, profile: { iban: 'DE89 3704 0044 0532 0130 01' } }),
    ].join('\n');
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const started = await upload(csrf, Buffer.from(`${file}\n`));
    expect(started.status).to.equal(303);
    let run = await owner.get(started.location as string);
    for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await owner.get(started.location as string);
    }
    const text = run.text.replace(/\s+/g, ' ');
    expect(text).to.include(
      '<strong>Zeile 2</strong>: data: ein Datensatz „profile“ der Version 2; diese Version von timetrack liest Version 1',
    );
    expect(text).to.include('<strong>Zeile 3</strong>: data: Ein Ausreißer-Timer wird markiert, beim Limit gestoppt oder gestoppt.');
    expect(text).to.include(
      '<strong>Zeile 4</strong>: data: Die Prüfziffern dieser IBAN stimmen nicht: Eine Ziffer ist vertippt oder zwei sind vertauscht. Kopieren Sie sie von einem Kontoauszug.',
    );
    expect(text).not.to.include('record of version');
  });

  /**
   * A German owner's workspace with one issued invoice imports its own export, `edit`ed: the
   * invoice's number and the checked upload's page text (whitespace folded).
   */
  async function germanReimport(edit: (csv: string) => string = (csv) => csv): Promise<{ number: string; text: string }> {
    const made = freelancer(server);
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const number = server.services.invoices.issue(made.owner, id).number as string;
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const exported = await owner.get('/settings/workspace/export.csv');
    expect(exported.status).to.equal(200);
    const file = edit(exported.text);
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const started = await upload(csrf, Buffer.from(file));
    expect(started.status).to.equal(303);
    let run = await owner.get(started.location as string);
    for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await owner.get(started.location as string);
    }
    return { number, text: run.text.replace(/\s+/g, ' ') };
  }

  it('a German owner reads why an export’s invoices are not restored here in German: the workspace has numbers of its own (issue 58 item 1)', async () => {
    const { number, text } = await germanReimport();
    expect(text).to.include(
      `Rechnung ${number}: Dieser Arbeitsbereich hat eigene Nummern vergeben (${number}), und nummerierte Rechnungen werden nur in einen Arbeitsbereich wiederhergestellt, der keine vergeben hat, damit seine Nummernfolge ohne Lücke und ohne doppelte Nummer an die der Datei anschließt. Importieren Sie die Datei in einen neuen Arbeitsbereich, oder importieren Sie die anderen Zeilen ohne ihre Rechnungen.`,
    );
    expect(text).not.to.include('has issued numbers of its own');
  });

  it('a German owner reads the rule a restored invoice breaks in German: its range (issue 58)', async () => {
    // The invoice's range out of order in its record (the data cell's JSON, its quotes doubled as CSV writes them).
    const { number, text } = await germanReimport((csv) => {
      const broken = csv.replace('""fromDay"":""2026-10-01""', '""fromDay"":""2026-11-30""');
      expect(broken).to.not.equal(csv);
      return broken;
    });
    expect(text).to.include(
      `Rechnung ${number} lässt sich nicht wiederherstellen: Ihr Zeitraum 2026-11-30 bis 2026-10-31 besteht nicht aus zwei Kalendertagen in der richtigen Reihenfolge. Eine wiederhergestellte Rechnung folgt den Regeln einer gestellten:`,
    );
    expect(text).not.to.include('is not two calendar days in order');
    // The page's notices too: the workspace keeps its own profile and settings (the English one stays the command line's).
    expect(text).to.include(
      'Der Arbeitsbereich behält sein Rechnungsstellerprofil und seine Rechnungseinstellungen: Die der Datei werden nicht darüber importiert.',
    );
    expect(text).not.to.include('are kept: the file');
  });

  it('a file of a workspace’s records only (its profile and invoicing settings, no entry) is checked and can be imported (issue 54 I3)', async () => {
    const follow = async (location: string) => {
      let run = await owner.get(location);
      for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        run = await owner.get(location);
      }
      return {
        status: run.status,
        text: run.text
          .replace(/\s+/g, ' ')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'"),
      };
    };
    const csv = (cells: string[]) => cells.map((c) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
    const record = (kind: string, data: unknown) => csv([kind, ...Array<string>(17).fill(''), JSON.stringify(data), '']);
    const file = [
      'record,id,email,member,start,end,timeZone,description,client,project,task,tags,billable,hourlyRate (EUR),archived,color,estimateSec,budgetAmount,data,invoice',
      record('profile', { v: 1, profile: { legalName: 'Studio Owner', city: 'Berlin', country: 'DE', iban: 'DE02120300000000202051' } }),
      record('invoicing', { v: 1, settings: { numberPattern: 'RE-{yyyy}-{seq:3}', taxCategory: 'S', taxRate: 19, language: 'de' } }),
    ].join('\r\n');
    // The file makes the workspace's documents German; the page is read in English here.
    owner.acceptLanguage = 'en';
    const csrf = SettingsClient.csrf((await owner.get('/settings/import')).text);
    const started = await upload(csrf, Buffer.from(`${file}\r\n`));
    expect(started.status).to.equal(303);
    const checked = await follow(started.location as string);
    expect(checked.status).to.equal(200);
    expect(checked.text).to.include('<dt>To restore</dt> <dd>the issuer profile, the invoicing settings</dd>');
    expect(checked.text).to.include('<button type="submit"> Import the issuer profile, the invoicing settings </button>');
    // Nothing is written by the check.
    expect(server.services.accounts.businessProfile(server.workspaceId)).to.equal(null);
    const action = /action="(\/settings\/import\/runs\/job_[0-9a-z]+\/import)"/.exec(checked.text)?.[1] as string;
    const imported = await owner.post(action, { _csrf: SettingsClient.csrf(checked.text) });
    expect(imported.status).to.equal(303);
    const done = await follow(imported.headers.get('location') as string);
    expect(done.status).to.equal(200);
    expect(done.text).to.include('Imported the issuer profile, the invoicing settings from export.csv.');
    expect(server.services.accounts.businessProfile(server.workspaceId)).to.deep.include({
      legalName: 'Studio Owner',
      iban: 'DE02120300000000202051',
    });
    expect(server.services.invoices.settings(OPERATOR, server.workspaceId)).to.deep.include({
      numberPattern: 'RE-{yyyy}-{seq:3}',
      taxRate: 19,
    });
  });
});
