import { expect } from 'chai';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The pages before sign-in in the browser's language (issue 58 item 1; decisions §14): nobody is
 * signed in, so no Profile says a language; `Accept-Language` picks it. The sign-in page, its
 * refusals, "Forgot your password?" and a setup link's page in German and in English, with no key.
 */
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** Text shaped like one of our keys (`auth.signIn`), as test/http/app/language.test.ts looks for them. */
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);

const GERMAN = { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' };
const ENGLISH = { 'accept-language': 'en-US,en;q=0.9' };

describe('sign-in pages: in the browser language', function () {
  this.timeout(30_000);
  // One server for the file; each test has a fresh workspace.
  let shared: TestServer;
  let server: FreshWorkspace;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(() => {
    server = freshWorkspace(shared);
  });

  it('shows the sign-in page and its refusal in German to a browser that asks for German', async () => {
    const browser = new SettingsClient(server);
    const page = await browser.get('/settings/sign-in', GERMAN);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<html lang="de"');
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<title>Anmelden · timetrack</title>');
    expect(text).to.include('<label for="email">E-Mail</label');
    expect(text).to.include('<label for="password">Passwort</label');
    expect(text).to.include('<button type="submit">Anmelden</button>');
    expect(text).to.include(
      'Noch kein Passwort? Bitten Sie einen Inhaber Ihres Arbeitsbereichs um einen Einrichtungslink (Seite Mitglieder).',
    );
    for (const english of ['Sign in', 'Password', 'Forgot your password', 'No password yet']) expect(text, english).not.to.include(english);
    // A wrong password: refused in German, the email kept.
    const refused = await browser.post(
      '/settings/sign-in',
      { _csrf: SettingsClient.csrf(page.text), email: server.ownerEmail, password: 'not the password at all' },
      GERMAN,
    );
    expect(refused.status).to.equal(401);
    expect(flat(refused.text)).to.include('Diese E-Mail und dieses Passwort passen zu keinem Konto mit Passwort.');
    expect(refused.text).to.include(`value="${server.ownerEmail}"`);
    expect(keysShown(refused.text)).to.deep.equal([]);
    // Forgot your password? (no mail on this server): in German, with its link back.
    const forgot = flat((await browser.get('/settings/forgot', GERMAN)).text);
    expect(forgot).to.include('<title>Passwort vergessen? · timetrack</title>');
    expect(forgot).to.include('Auf diesem Server ist keine Mail eingerichtet, daher kann kein Link verschickt werden.');
  });

  it('shows the sign-in page in English to a browser that asks for English, and to one that names none of ours', async () => {
    const browser = new SettingsClient(server);
    for (const headers of [ENGLISH, { 'accept-language': 'fr-FR,fr;q=0.9' }]) {
      const page = await browser.get('/settings/sign-in', headers);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('<html lang="en"');
      expect(keysShown(page.text)).to.deep.equal([]);
      const text = flat(page.text);
      expect(text).to.include('<title>Sign in · timetrack</title>');
      expect(text).to.include('<label for="email">Email</label');
      expect(text).to.include('<button type="submit">Sign in</button>');
      expect(text).to.include('No password yet? Ask an owner of your workspace for a setup link (Members page).');
      expect(text).not.to.include('Anmelden');
    }
  });

  it("shows a setup link's page, its refusals and a used link in German", async () => {
    const browser = new SettingsClient(server);
    const link = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    const path = `/settings/setup/${link.secret}`;
    const page = await browser.get(path, GERMAN);
    expect(page.status).to.equal(200);
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<title>Passwort festlegen · timetrack</title>');
    expect(text).to.include(
      '<p>Für <strong>Owner</strong> (' + server.ownerEmail + ') im Arbeitsbereich <strong>My workspace</strong>.</p>',
    );
    expect(text).to.include('Neues Passwort <span class="hint">Mindestens 12 Zeichen.</span>');
    expect(text).to.include('<button type="submit">Passwort festlegen und anmelden</button>');
    // Too short, and two that differ: refused in German at the field.
    const short = await browser.post(path, { _csrf: SettingsClient.csrf(page.text), password: 'kurz', confirm: 'kurz' }, GERMAN);
    expect(short.status).to.equal(400);
    expect(flat(short.text)).to.include('id="password-error">Das Passwort muss mindestens 12 Zeichen lang sein.</span>');
    const differ = await browser.post(path, { _csrf: SettingsClient.csrf(page.text), password: PASSWORD, confirm: `${PASSWORD}!` }, GERMAN);
    expect(differ.status).to.equal(400);
    expect(flat(differ.text)).to.include('Die beiden Passwörter unterscheiden sich: Geben Sie zweimal dasselbe Passwort ein.');
    // Used: the link no longer works, said in German.
    const done = await browser.post(path, { _csrf: SettingsClient.csrf(page.text), password: PASSWORD, confirm: PASSWORD }, GERMAN);
    expect(done.status).to.equal(303);
    const gone = await new SettingsClient(server).get(path, GERMAN);
    expect(gone.status).to.equal(410);
    const said = flat(gone.text);
    expect(said).to.include('Dieser Link funktioniert nicht mehr');
    expect(said).to.include(
      '<p>Bitten Sie um einen neuen Link, oder <a href="/settings/sign-in">melden Sie sich an</a>, wenn Sie Ihr Passwort schon gesetzt haben.</p>',
    );
    expect(keysShown(gone.text)).to.deep.equal([]);
  });
});
