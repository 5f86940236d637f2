import { expect } from 'chai';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { plainUrl, startRelay, type TestRelay } from '../../helpers/smtp.js';

/**
 * The settings pages of the workspace, its members and its mail in the reader's language
 * (decisions §14; issue 58 item 1): an owner who chose German reads German words, days and
 * numbers there, a refused form says why in German, and no page shows a message's key.
 */
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** Text shaped like one of our keys (`settings.members.add`): a namespace of the messages, a dot, a name. */
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);
/** An instant as a German reader reads it: `02.11.2026, 10:00 MEZ`. */
const GERMAN_INSTANT = /\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} [A-Z]+/;

describe('settings pages in German: workspace, members, mail', function () {
  this.timeout(60_000);
  // One relay and one server for the file (the relay so the Mail page has mail to list); each test
  // has a fresh workspace and a signed-in owner who reads German.
  let relay: TestRelay;
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    relay = await startRelay();
    shared = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  });
  after(async () => {
    await shared.close();
    await relay.close();
  });
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
  });

  it('Members: German heads, flags, form and notice; a refused rate said in German at its field; no key, no English', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const page = await owner.get('/settings/members');
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<title>Mitglieder');
    expect(text).to.include('<th scope="col">Mitglied</th>');
    expect(text).to.include('<th scope="col" title="Sieht die Zeit der Kolleginnen und Kollegen">Zeit anderer</th>');
    expect(text).to.include('<th scope="col">Satz (EUR)</th>');
    expect(text).to.match(/Noch kein Passwort · seit \d{2}\.\d{2}\.\d{4}/);
    expect(text).to.include('placeholder="Standard"');
    expect(text).to.include(
      'Links gehen per Mail an die eingetragene Adresse; wie das lief, zeigt die Seite <a href="/settings/mail">Mail</a>.',
    );
    expect(text).to.include('<h2 id="add-heading">Ein Mitglied hinzufügen</h2>');
    expect(text).to.include('<legend>Zugriff</legend>');
    expect(text).to.include('>Mitglied hinzufügen</button>');
    expect(text).to.include(`data-confirm="Bea aus diesem Arbeitsbereich entfernen?`);
    for (const english of ['Add a member', 'Colleagues', 'No password yet', 'Setup link', 'Remove', 'Rate (EUR)', 'Access', '>Save<'])
      expect(text, english).not.to.include(english);
    expect(keysShown(page.text)).to.deep.equal([]);

    const refused = await owner.submit('/settings/members', `/settings/members/${bea.id}`, { hourlyRate: 'siebzig' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include(
      `<span class="field-error" id="${bea.id}-rate-error">Bea: der Stundensatz muss eine Zahl wie 85 oder 92,50 sein, oder leer für keinen.</span>`,
    );
    expect(refused.text).to.match(new RegExp(`id="${bea.id}-rate"[^>]*value="siebzig"`));

    const added = await owner.submit('/settings/members', '/settings/members', {
      name: 'Ada',
      email: `ada.${server.workspaceId}@example.org`,
    });
    const notice = flat((await owner.follow(added, '/settings/members')).text);
    expect(notice).to.include(
      `<strong>Wir haben ada.${server.workspaceId}@example.org einen Link gemailt</strong>, der in My workspace führt.`,
    );
    expect(notice).to.match(/Er funktioniert einmal, bis \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}/);
    // An account of another workspace is invited: the open invitation is listed in German.
    const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' });
    const cem = server.services.accounts.createUser(OPERATOR, { name: 'Cem', email: `cem.${server.workspaceId}@example.org` });
    server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: cem.id });
    await owner.submit('/settings/members', '/settings/members', { name: 'Cem', email: `cem.${server.workspaceId}@example.org` });
    const invited = flat((await owner.get('/settings/members')).text);
    expect(invited).to.include('<h2 id="invited-heading">Eingeladen</h2>');
    expect(invited).to.match(/Eingeladen am \d{2}\.\d{2}\.\d{4} · Link gültig bis \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} [A-Z]+/);
    expect(invited).to.include(`data-confirm="Die Einladung an cem.${server.workspaceId}@example.org zurückziehen?`);
  });

  it('Mail: the log in German, its instants as the reader reads them; no key, no English', async () => {
    await owner.submit('/settings/members', '/settings/members', { name: 'Ada', email: `ada.${server.workspaceId}@example.org` });
    await server.services.mail.idle();
    const page = await owner.get('/settings/mail');
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<title>Mail');
    expect(text).to.match(/Mail wird über smtp:\/\/127\.0\.0\.1:\d+ \(ohne TLS\) versendet\. Nichts wartet\./);
    expect(text).to.include('<th scope="col">Empfänger</th>');
    expect(text).to.include('<th scope="col">Antwort</th>');
    expect(text).to.include('<span class="badge good">gesendet</span>');
    const created = /<td data-label="Erstellt"><time datetime="[^"]+">([^<]+)<\/time><\/td>/.exec(text)?.[1] ?? '';
    expect(created).to.match(GERMAN_INSTANT);
    expect(text).to.include('30 Tage lang aufbewahrt');
    for (const english of [
      'Recipient',
      'Subject',
      'Attempts',
      'Last answer',
      '>sent<',
      'Mail goes out',
      'Nothing is waiting',
      'kept 30 days',
      'no TLS',
    ])
      expect(text, english).not.to.include(english);
    expect(keysShown(page.text)).to.deep.equal([]);
  });
  it('Mail: a message our own words gave up on or cancelled reads in German; a relay’s reply would stay as it came (issue 58)', async () => {
    relay.answer(() => 'drop');
    try {
      const email = `dan.${server.workspaceId}@example.org`;
      await owner.submit('/settings/members', '/settings/members', { name: 'Dan', email });
      await server.services.mail.idle();
      const dan = server.services.accounts.memberDirectory(server.workspaceId).find((m) => m.email === email);
      server.services.accounts.deleteUser(OPERATOR, dan?.userId as string);
    } finally {
      relay.answer(() => 'accept');
    }
    // The markup as written, without the blanks the page's formatting leaves before a tag's end.
    const text = flat((await owner.get('/settings/mail')).text).replace(/\s+>/g, '>');
    expect(text).to.include('<span class="badge">abgebrochen</span>');
    expect(text).to.include('<span class="hint">Abgebrochen: Das Konto wurde gelöscht, bevor sie versendet wurde.</span>');
    expect(text).not.to.include('the account was deleted');
  });

  it('Workspace: German legends, labels, choices and the next number’s day; a refused runaway limit said in German; no key, no English', async () => {
    const page = await owner.get('/settings/workspace');
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<title>Arbeitsbereich');
    expect(text).to.include('<h2>Einstellungen</h2>');
    expect(text).to.include('<legend>Timer und die API</legend>');
    expect(text).to.include('<option value="stopped" >den Timer beim Limit stoppen</option>');
    expect(text).to.include('Leer: der Standard des Servers, 3.000. Sie können ihn senken oder bis 3.000 anheben.');
    expect(text).to.include('<h2>Rechnungssteller</h2>');
    expect(text).to.include('<legend>Handelsregister</legend>');
    expect(text).to.include('<label for="profile-registerCourt">Registergericht <span class="hint">');
    expect(text).to.include('<code>{seq}</code> die laufende Nummer');
    expect(text).to.include('Nächste Nummer: <strong>2026-0001</strong> <span class="hint">(eine Rechnung vom 02.11.2026)</span>');
    expect(text).to.include('<option value="S" selected>S: Normalsatz (der Satz darunter)</option>');
    expect(text).to.include('<option value="AE" >AE: Steuerschuldnerschaft des Leistungsempfängers</option>');
    expect(text).to.include('<option value="up-15" >Aufrunden auf 15 Minuten</option>');
    expect(text).to.include('<option value="nearest-60" >Runden auf die nächsten 1 Stunde</option>');
    expect(text).to.include('<h2 id="approval-heading">Freigabe und Sperre</h2>');
    expect(text).to.include('<option value="weekly" >Wöchentlich</option>');
    expect(text).to.include('>Export herunterladen</button>');
    for (const english of [
      'Save settings',
      'Invoice issuer',
      'Company register',
      'Next number',
      'Up to 15 minutes',
      'Approval and lock',
      'Download the export',
      'Entries from',
    ])
      expect(text, english).not.to.include(english);
    expect(keysShown(page.text)).to.deep.equal([]);

    const refused = await owner.submit('/settings/workspace', '/settings/workspace', {
      name: 'Kept name',
      currency: 'EUR',
      runawayLimitHours: 'zehn',
      runawayAction: 'flagged',
    });
    expect(refused.status).to.equal(400);
    const said = flat(refused.text);
    expect(said).to.include(
      '<span class="field-error" id="ws-runawayLimitHours-error">Das Limit für Ausreißer muss eine Zahl wie 10 sein (Stunden, über 0).</span>',
    );
    expect(said).to.include('value="Kept name"');
    expect(said).not.to.include('runaway limit');
  });
});
