import { expect } from 'chai';
import { de } from '../../../src/i18n/messages/de.js';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The Webhooks and Import settings pages in the reader's language (decisions §14; issue 58
 * item 1): a member who chose German reads German words, German digits and days there, a German
 * refusal on the upload form, and no English sentence of these pages nor a message's key.
 */
type Tree = { [key: string]: string | Tree };
const leaves = (tree: Tree, prefix = ''): Array<[string, string]> =>
  Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [[`${prefix}${k}`, v] as [string, string]] : leaves(v, `${prefix}${k}.`),
  );
const german = new Map(leaves(de.integrations as unknown as Tree));
/**
 * The English sentences of these pages that German says otherwise: long enough to be found only
 * where they are said (short words such as "done" live inside others), their placeholders cut off.
 */
const ENGLISH = leaves(en.integrations as unknown as Tree)
  .filter(([key, text]) => german.get(key) !== text)
  .flatMap(([, text]) => text.split(/\{\{[^}]*\}\}/))
  .map((piece) => piece.trim())
  .filter((piece) => piece.length >= 14);
const flat = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const englishShown = (page: string) => ENGLISH.filter((sentence) => flat(page).includes(sentence));
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);

describe('settings pages: Webhooks and Import in German', function () {
  this.timeout(60_000);
  // One server for the file; each test has a fresh workspace and a German owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    // Private targets allowed: deliveries and pings go to a closed port on loopback (refused), nothing leaves the machine.
    shared = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', IMPORT_UPLOAD_MAX_MB: '1' } });
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de', timeZone: 'Europe/Berlin' });
  });

  it('checks itself: it knows the English sentences it looks for', () => {
    expect(ENGLISH).to.include('Create subscription');
    expect(ENGLISH).to.include('Choose a CSV file to import.');
    expect(ENGLISH.length).to.be.above(100);
  });

  it('the Webhooks page: its form, a new subscription’s secret and its card in German, no English, no key', async () => {
    const empty = await owner.get('/settings/webhooks');
    expect(empty.status).to.equal(200);
    const page = flat(empty.text);
    expect(page).to.include('<title>Webhooks · timetrack</title>');
    expect(page).to.include('<h2>Neues Abonnement</h2>');
    expect(page).to.include('<label for="webhook-url" >Empfänger-URL <span class="hint">Dieser Server erlaubt einfaches http');
    expect(page).to.include('<legend>Ereignisse</legend>');
    expect(page).to.include('<strong>Alle Ereignisse</strong> <span class="hint">Jedes unten aufgeführte Ereignis.</span>');
    expect(page).to.include('<code>entry.started</code> <span class="hint">Ein Timer startet.</span>');
    expect(page).to.include('<button type="submit">Abonnement anlegen</button>');
    expect(page).to.include('<p>Sie haben in diesem Arbeitsbereich noch keine Abonnements.</p>');
    expect(page).not.to.include('New subscription');
    expect(englishShown(empty.text)).to.deep.equal([]);
    expect(keysShown(empty.text)).to.deep.equal([]);

    const made = await owner.post('/settings/webhooks', {
      _csrf: SettingsClient.csrf(empty.text),
      url: 'http://127.0.0.1:9/hook',
      events: ['entry.created', 'entry.deleted'],
    });
    expect(made.status).to.equal(303);
    const listed = await owner.follow(made, '/settings/webhooks');
    const after = flat(listed.text);
    expect(after).to.include('<strong>Abonnement angelegt.</strong> Kopieren Sie jetzt sein Signaturgeheimnis');
    expect(after).to.include('aria-label="Das Signaturgeheimnis"');
    expect(after).to.include(
      '<p class="hint">Prüfen Sie damit <code>X-Service-Signature</code> (HMAC-SHA256 aus Zeitstempel, einem Punkt und dem unveränderten Inhalt).</p>',
    );
    expect(after).to.include('<span class="badge good">aktiv</span>');
    expect(after).to.include(
      '<dt>Fehlschläge in Folge</dt> <dd> 0 <span class="hint" >(bei 15 in Folge wird das Abonnement deaktiviert)</span >',
    );
    expect(after).to.include('>Zustellprotokoll und Aktionen<span class="vh"> für http://127.0.0.1:9/hook</span></a');
    expect(englishShown(listed.text)).to.deep.equal([]);
    expect(keysShown(listed.text)).to.deep.equal([]);
  });

  it('a subscription’s page: its facts, a delivery waiting for its next try and a failed test ping in German', async () => {
    const hook = await server.services.webhooks.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: server.ownerId,
      url: 'http://127.0.0.1:9/hook',
      events: ['entry.created'],
    });
    const path = `/settings/webhooks/${hook.id}`;
    const none = flat((await owner.get(path)).text);
    expect(none).to.include('<title>Webhook-Abonnement · timetrack</title>');
    expect(none).to.include('<p>Noch keine Zustellungen.</p>');
    expect(none).to.include('>Test-Ping senden</button>');
    expect(none).to.include('data-confirm="Dieses Abonnement und sein Zustellprotokoll löschen?"');
    // Created at the manual clock's instant, said as a German reads it in Berlin.
    expect(none).to.match(/<dt>Angelegt<\/dt> <dd>\d\d\.\d\d\.\d{4}, \d\d:\d\d MEZ<\/dd>/);

    const made = await server.request('POST', '/api/v1/entries', {
      token: server.ownerToken,
      json: { start: '2026-11-01T08:00:00Z', end: '2026-11-01T08:30:00Z' },
    });
    expect(made.status).to.equal(200);
    await server.services.sender.tick();
    const waiting = await owner.get(path);
    const log = flat(waiting.text);
    expect(log).to.include('<h2>Zustellprotokoll <span class="hint">neueste zuerst, 30 Tage aufbewahrt;');
    expect(log).to.include('<table class="rows deliveries" aria-label="Zustellungen">');
    expect(log).to.include('<th scope="col">Ereignis</th>');
    expect(log).to.include('<td data-label="Status"><span class="badge bad">fehlgeschlagen</span> nächster Versuch <time');
    expect(log).to.include('<td data-label="Versuche">1</td>');
    // Its instants as a German writes days (UTC until the page's script says them in the reader's zone).
    expect(log).to.match(
      /<td data-label="Angelegt"><time datetime="[^"]+" title="\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d UTC" data-local >\d\d\.\d\d\.\d{4} /,
    );
    expect(log).to.include('>Jetzt erneut versuchen<span class="vh">');
    expect(englishShown(waiting.text)).to.deep.equal([]);
    expect(keysShown(waiting.text)).to.deep.equal([]);

    const pinged = await owner.post(`${path}/ping`, { _csrf: SettingsClient.csrf(waiting.text) });
    expect(pinged.status).to.equal(303);
    const shown = await owner.follow(pinged, path);
    const said = flat(shown.text);
    expect(said).to.match(
      /Ping <code>[a-z0-9_]+<\/code> fehlgeschlagen\. Der Empfänger hat die Verbindung abgelehnt: Läuft er, auf diesem Port\?/,
    );
    expect(said).to.include('<span class="badge">Test-Ping</span>');
    // A second ping at once: refused for now, in German.
    const again = await owner.post(`${path}/ping`, { _csrf: SettingsClient.csrf(shown.text) });
    expect(again.status).to.equal(429);
    expect(flat(again.text)).to.include('Senden Sie einen Test-Ping nach dem anderen: Versuchen Sie es in 10 Sekunden erneut.');
    expect(said).to.include('<span class="hint">zählt nicht für die automatische Deaktivierung</span>');
    expect(englishShown(shown.text)).to.deep.equal([]);
    expect(keysShown(shown.text)).to.deep.equal([]);
  });

  it('refuses a new subscription in German: no event chosen, a target the rules do not allow; the form keeps what was typed', async () => {
    const none = await owner.submit('/settings/webhooks', '/settings/webhooks', { url: 'https://127.0.0.1:9/hook' });
    expect(none.status).to.equal(400);
    expect(flat(none.text)).to.include('Ereignisse: Wählen Sie mindestens eines aus entry.started, entry.stopped,');
    expect(none.text).to.include('value="https://127.0.0.1:9/hook"');
    expect(englishShown(none.text)).to.deep.equal([]);
    const bad = await owner.submit('/settings/webhooks', '/settings/webhooks', { url: 'ftp://127.0.0.1/hook', events: ['entry.created'] });
    expect(bad.status).to.equal(400);
    expect(flat(bad.text)).to.include('URL: Dieses Ziel ist nicht erlaubt: Sein Hostname lässt sich nicht auflösen.');
    expect(englishShown(bad.text)).to.deep.equal([]);
    expect(keysShown(bad.text)).to.deep.equal([]);
    expect(server.services.webhooks.list(OPERATOR, server.workspaceId)).to.deep.equal([]);
  });

  /** Uploads a file on the Import page's form, as a browser sends it. */
  async function upload(file: Buffer | null, csrf?: string) {
    const form = new FormData();
    form.append('_csrf', csrf ?? SettingsClient.csrf((await owner.get('/settings/import')).text));
    form.append('timeZone', 'Europe/Berlin');
    if (file) form.append('file', new Blob([file], { type: 'text/csv' }), 'maerz.csv');
    const response = await fetch(`${server.url}/settings/import`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; '), origin: server.url },
      body: form,
    });
    return { status: response.status, text: await response.text(), location: response.headers.get('location') };
  }

  /** A run's page once it has finished (it reloads itself while running). */
  async function finished(location: string) {
    let run = await owner.get(location);
    for (let i = 0; i < 100 && run.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      run = await owner.get(location);
    }
    return run;
  }

  it('the Import page: its form, a check’s summary and preview, the import’s result and the list in German', async () => {
    const start = await owner.get('/settings/import');
    const page = flat(start.text);
    expect(page).to.include('<title>Import · timetrack</title>');
    expect(page).to.include('<p>Übernehmen Sie Ihre Zeiten aus Toggl, Clockify, Harvest oder Kimai:');
    expect(page).to.include('>CSV-Export <span class="hint">Detaillierter Bericht aus Toggl, Clockify, Harvest oder Kimai');
    expect(page).to.include('höchstens 1 MB.</span>');
    expect(page).to.include('<option value="DMY" >Tag zuerst (31/12/2026)</option>');
    expect(page).to.include('<option value="auto" selected>Erkennen</option>');
    expect(page).to.include('<button type="submit">Datei prüfen</button>');
    expect(page).to.match(/<p>Noch keine Importe in [^<]+\.<\/p>/);
    expect(englishShown(start.text)).to.deep.equal([]);
    expect(keysShown(start.text)).to.deep.equal([]);

    const email = server.services.accounts.memberDirectory(server.workspaceId).find((m) => m.userId === server.ownerId)?.email ?? '';
    const file = [
      'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags',
      `Owner,${email},Acme,Website,Design,Sketches,Yes,2026-03-02,09:00:00,2026-03-02,10:30:00,01:30:00,design`,
      `Owner,${email},Acme,Website,Design,,No,2026-03-02,11:00:00,2026-03-02,12:00:00,01:00:00,`,
      '',
    ].join('\n');
    const started = await upload(Buffer.from(file), SettingsClient.csrf(start.text));
    expect(started.status).to.equal(303);
    const checked = await finished(started.location as string);
    expect(checked.status).to.equal(200);
    const check = flat(checked.text);
    expect(check).to.include('<title>maerz.csv prüfen · timetrack</title>');
    expect(check).to.include('maerz.csv ist bereit zum Import: Noch wurde nichts geschrieben.');
    expect(check).to.include('<dt>Zeilen</dt> <dd>2 Zeilen</dd> <dt>Zu importieren</dt> <dd>2 Einträge</dd>');
    expect(check).to.include('<dt>Duplikate</dt> <dd>0 Zeilen schon früher importiert, übersprungen</dd>');
    expect(check).to.include('<dt>Anzulegen</dt> <dd>1 Kunde, 1 Projekt, 1 Aufgabe, 1 Schlagwort</dd>');
    expect(check).to.include('<h2>Die ersten Zeilen, so wie sie gespeichert werden</h2>');
    expect(check).to.include('<th scope="col">Abrechenbar</th>');
    expect(check).to.include('<td data-label="Beginn">02.03.2026 09:00</td><td data-label="Ende">02.03.2026 10:30</td>');
    expect(check).to.include('<td data-label="Beschreibung">(keine)</td>');
    expect(check).to.include('<td data-label="Stundensatz">von Aufgabe, Projekt, Mitglied oder Arbeitsbereich</td>');
    expect(check).to.include('<button type="submit"> 2 Einträge importieren </button>');
    expect(englishShown(checked.text)).to.deep.equal([]);
    expect(keysShown(checked.text)).to.deep.equal([]);

    const action = /action="(\/settings\/import\/runs\/job_[0-9a-z]+\/import)"/.exec(checked.text)?.[1] as string;
    const imported = await owner.post(action, { _csrf: SettingsClient.csrf(checked.text) });
    expect(imported.status).to.equal(303);
    const done = await finished(imported.headers.get('location') as string);
    const result = flat(done.text);
    expect(result).to.include('2 Einträge aus maerz.csv importiert.');
    expect(result).to.include('<dt>Angelegt</dt> <dd>1 Kunde, 1 Projekt, 1 Aufgabe, 1 Schlagwort</dd>');
    expect(result).to.include('data-confirm="Aus maerz.csv importiert: 2 Einträge löschen?"');
    expect(result).to.include('>Import von maerz.csv rückgängig machen</button>');
    expect(englishShown(done.text)).to.deep.equal([]);
    expect(keysShown(done.text)).to.deep.equal([]);

    const list = await owner.get('/settings/import');
    const listed = flat(list.text);
    expect(listed).to.include('maerz.csv <span class="badge good">fertig</span>');
    expect(listed).to.include('<dd> 2 Zeilen: 2 Einträge importiert, 0 Duplikate übersprungen </dd>');
    expect(listed).to.match(/<dt>Begonnen<\/dt> <dd>\d\d\.\d\d\.\d{4}, \d\d:\d\d MEZ<\/dd>/);
    expect(englishShown(list.text)).to.deep.equal([]);
    expect(keysShown(list.text)).to.deep.equal([]);
  });

  it('refuses an upload form without a file, or a file too large, in German', async () => {
    const empty = await upload(null);
    expect(empty.status).to.equal(400);
    expect(flat(empty.text)).to.include('<div class="notice error" role="alert"> Wählen Sie eine CSV-Datei zum Importieren. </div>');
    expect(englishShown(empty.text)).to.deep.equal([]);
    const big = await upload(Buffer.alloc(1024 * 1024 + 10, 'a'));
    expect(big.status).to.equal(400);
    expect(flat(big.text)).to.include(
      'Die Datei ist größer als die 1 MB, die diese Seite annimmt: Exportieren Sie einen kürzeren Zeitraum',
    );
    expect(englishShown(big.text)).to.deep.equal([]);
    expect(keysShown(big.text)).to.deep.equal([]);
  });
});
