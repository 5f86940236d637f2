import { expect } from 'chai';
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
});
