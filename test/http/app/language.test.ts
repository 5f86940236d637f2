import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The pages in the reader's language (decisions §14; issue 58 item 1): the member's choice in
 * Profile, else the browser's Accept-Language, else the workspace's, else English; and no page
 * shows a message's key instead of its words.
 */
const GERMAN = { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' };
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** Text shaped like one of our keys (`nav.week`, `profile.languageHint`): a namespace of the messages, a dot, a name. */
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
export const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);

describe('web app: the language of the pages', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });

  it('speaks German to a German browser, English to an English one, and the Profile choice over either', async () => {
    const german = await owner.get('/app/profile', GERMAN);
    expect(german.status).to.equal(200);
    expect(german.text).to.include('<html lang="de"');
    expect(flat(german.text)).to.include('aria-current="page">Profil</a>');
    expect(flat(german.text)).to.include('>Woche</a>');
    expect(flat(german.text)).to.include('<legend>Erster Tag der Woche</legend>');
    // Seen on the screenshot walk: the line under the heading was English on every page language.
    expect(flat(german.text)).to.include('Außerdem in den <a href="/settings/tokens">Einstellungen</a>: Ihre API-Tokens und Webhooks');
    expect(german.text).not.to.include('Also in');
    const english = await owner.get('/app/profile', { 'accept-language': 'en-US,en;q=0.9' });
    expect(english.text).to.include('<html lang="en"');
    expect(flat(english.text)).to.include('<legend>First day of the week</legend>');
    // The member chooses English: a German browser reads English from then on (stored).
    const saved = await owner.submit('/app/profile', '/app/profile', {
      name: 'Owner',
      email: server.ownerEmail,
      timeZone: 'Europe/Berlin',
      weekStart: 'monday',
      language: 'en',
    });
    expect(saved.status).to.equal(303);
    expect(server.services.accounts.preferences(server.ownerId).language).to.equal('en');
    const chosen = await owner.get('/app/profile', GERMAN);
    expect(chosen.text).to.include('<html lang="en"');
    expect(flat(chosen.text)).to.include('<option value="en" lang="en" selected>English</option>');
  });

  it("without a choice and a browser naming none of its languages, follows the workspace's language", async () => {
    const french = { 'accept-language': 'fr-FR,fr;q=0.9' };
    expect((await owner.get('/app/profile', french)).text).to.include('<html lang="en"');
    server.services.invoices.setSettings(OPERATOR, server.workspaceId, { language: 'de' });
    const page = await owner.get('/app/profile', french);
    expect(page.text).to.include('<html lang="de"');
    expect(flat(page.text)).to.include('<option value="de" lang="de" selected>Deutsch</option>');
  });

  it('keeps durations without seconds unless the member asks for them in Profile', async () => {
    const saved = await owner.submit('/app/profile', '/app/profile', {
      name: 'Owner',
      email: server.ownerEmail,
      timeZone: 'Europe/Berlin',
      weekStart: 'monday',
      language: 'de',
      durations: 'seconds',
    });
    expect(saved.status).to.equal(303);
    expect(server.services.accounts.preferences(server.ownerId).showSeconds).to.equal(true);
    const page = await owner.get('/app/profile');
    expect(page.text).to.include('value="seconds" checked');
  });

  /** A German reader's week in Berlin: an hour and a half of a 9,000-an-hour project (13.500,00 €), on Monday 23 November 2026. */
  async function germanWeek() {
    server = freshWorkspace(shared, { now: Date.parse('2026-11-25T13:00:00Z') });
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Hafen', hourlyRate: 9000, billable: true } })).body
      .data;
    const made = await server.request('POST', '/api/v1/entries', {
      json: {
        start: '2026-11-23T09:00:00+01:00',
        end: '2026-11-23T10:30:00+01:00',
        description: 'Planung',
        projectId: project.id,
        billable: true,
      },
    });
    expect(made.status).to.equal(200);
  }
  const download = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, {
      headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; '), ...GERMAN },
    });
    expect(response.status).to.equal(200);
    return Buffer.from(await response.arrayBuffer());
  };
  const RANGE = 'from=2026-11-23&to=2026-11-29';

  it('shows the Reports page in German: its words, money, durations and days as a German reads them, and no key', async () => {
    await germanWeek();
    const page = await owner.get(`/app/reports?${RANGE}&groupBy=project`, GERMAN);
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(keysShown(page.text)).to.deep.equal([]);
    expect(text).to.include('<span class="hint">Gesamt</span><strong>1:30</strong>');
    expect(text).to.include('<span class="hint">Betrag</span><strong>13.500,00 €</strong>');
    expect(text, text.slice(text.indexOf('summary-heading'), text.indexOf('summary-heading') + 200)).to.include(
      '<h2 id="summary-heading">Nach Projekt</h2>',
    );
    expect(text, text.slice(text.indexOf('c-date"'), text.indexOf('c-date"') + 150)).to.include(
      '<td data-label="Datum" class="c-date"> <time datetime="2026-11-23T08:00:00.000Z">Mo., 23.11.</time> </td>',
    );
    expect(text).to.include('<option value="semicolon" selected>Semikolon, Dezimalkomma (Excel)</option>');
  });

  it("writes a German reader's PDF and workbook in German: words, days, durations and money as the page shows them", async () => {
    await germanWeek();
    // The project's client, and the timesheet for that one client: it closes with lines to sign (an internal report has none).
    const client = (await server.request('POST', '/api/v1/clients', { json: { name: 'Hafenamt' } })).body.data;
    const project = (await server.request('GET', '/api/v1/projects')).body.data[0];
    expect((await server.request('PATCH', `/api/v1/projects/${project.id}`, { json: { clientId: client.id } })).status).to.equal(200);
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-de-'));
    try {
      const file = join(dir, 'stundenzettel.pdf');
      writeFileSync(file, await download(`/app/reports/export?format=pdf&kind=weekly&${RANGE}&groupBy=project&clientIds=${client.id}`));
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ');
      for (const part of [
        'Stundenzettel',
        'Zeitraum Mo., 23.11.2026 – So., 29.11.2026',
        'Woche vom Mo., 23.11.2026',
        'Eingereicht von',
        'Unterschrift',
      ])
        expect(text, part).to.include(part);
      expect(text).to.include('Gesamtzeit 1:30 (1,50 Stunden) · 1 Eintrag · Betrag 13.500,00 €');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await download(`/app/reports/export?format=xlsx&kind=detailed&${RANGE}`)) as unknown as ArrayBuffer);
    expect(book.worksheets.map((s) => s.name)).to.deep.equal(['Einträge', 'Über']);
    const sheet = book.worksheets[0] as ExcelJS.Worksheet;
    expect((sheet.getRow(1).values as unknown[]).slice(1, 5)).to.deep.equal(['Datum', 'Beginn', 'Ende', 'Stunden']);
    expect(sheet.getCell('A2').numFmt).to.equal('dd.mm.yyyy');
  });

  it("downloads a German reader's CSV with semicolons and a decimal comma, and commas when asked, as the API's", async () => {
    await germanWeek();
    const lines = (bytes: Buffer) => bytes.subarray(3).toString('utf8').split('\r\n').filter(Boolean);
    const semicolon = lines(await download(`/app/reports/export?format=csv&kind=detailed&${RANGE}`));
    expect(semicolon).to.deep.equal([
      'Datum;Beginn;Ende;Stunden;Mitglied;Kunde;Projekt;Aufgabe;Schlagwörter;Beschreibung;Abrechenbar;Satz;Betrag',
      '23.11.2026;23.11.2026 09:00:00;23.11.2026 10:30:00;1,50;Owner;;Hafen;;;Planung;ja;9000,00;13500,00',
    ]);
    const comma = lines(await download(`/app/reports/export?format=csv&kind=detailed&${RANGE}&csv=comma`));
    expect(comma[1]).to.equal('2026-11-23,2026-11-23 09:00:00,2026-11-23 10:30:00,1.50,Owner,,Hafen,,,Planung,ja,9000.00,13500.00');
    const summary = lines(await download(`/app/reports/export?format=csv&kind=summary&${RANGE}&groupBy=project`));
    expect(summary).to.deep.equal(['Projekt;Stunden;Abrechenbare Stunden;Einträge;Betrag', 'Hafen;1,50;1,50;1;13500,00']);
  });

  it('shows the Catalog in German: headings, fields, facts and confirmations, numbers as a German writes them, and no key', async () => {
    await germanWeek();
    const page = await owner.get('/app/catalog', GERMAN);
    expect(page.status).to.equal(200);
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<h1>Katalog</h1>');
    expect(text, text.slice(text.indexOf('project-heading'), text.indexOf('project-heading') + 120)).to.match(
      /<h2 id="project-heading"> Projekte <span class="hint" ?>1 aktiv<\/span ?> <\/h2>/,
    );
    expect(text).to.include('· Satz 9.000');
    expect(text).to.include('· 1:30 erfasst');
    expect(text).to.include('data-confirm="Projekt Hafen löschen?');
    expect(text).to.include('<button type="submit">Projekt hinzufügen</button>');
    expect(text).to.include('<summary>Rechnungsangaben');
    // The confirmation of a write, in German (a German owner's choice in Profile: the form post carries no Accept-Language).
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const added = await owner.submit('/app/catalog', '/app/catalog/tag', { name: 'vor Ort' });
    expect(added.status).to.equal(303);
    expect(flat((await owner.get('/app/catalog')).text)).to.include('Schlagwort „vor Ort“ hinzugefügt.');
  });

  it('shows the API tokens page in German, and a token minted there is said in German, with no key', async () => {
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const page = await owner.get('/settings/tokens');
    expect(page.status).to.equal(200);
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<h2>Einen Token erstellen</h2>');
    expect(text).to.include('<legend>Berechtigungen</legend>');
    expect(text).to.include('Zeit der Kolleginnen und Kollegen <strong>ja</strong>');
    const minted = await owner.submit('/settings/tokens', '/settings/tokens', { name: 'Skript', scopes: ['entries:read'] });
    expect(minted.status).to.equal(303);
    const after = flat((await owner.get('/settings/tokens')).text);
    expect(after).to.include('<strong>Token „Skript“ erstellt.</strong>');
    expect(after).to.include('<span class="badge good">aktiv</span>');
  });
});
