import { expect } from 'chai';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The refusals a service words itself, on the pages of a German member (decisions §14; issue 58):
 * a malformed name, currency or email, the accounts service's refusals on the Workspace, Members
 * and Profile pages, each in German at its field with the API's status; and the page of an
 * invitation opened by a browser that names no language of ours (`Accept-Language` empty or
 * `*`), in the language of the workspace's documents.
 */
const flat = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);

describe('settings pages: a service’s refusals in German', function () {
  this.timeout(60_000);
  // One server for the file; each test has a fresh workspace and a German owner in it.
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
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de', timeZone: 'Europe/Berlin' });
  });

  const workspaceFields = {
    name: 'Hafenbüro',
    currency: 'EUR',
    hourlyRate: '',
    runawayLimitHours: '10',
    runawayAction: 'flagged',
    rateLimitPerMin: '',
  };

  it('the Workspace page: an empty name, a currency that is no code, an open mail domain, each in German at its field', async () => {
    const unnamed = await owner.submit('/settings/workspace', '/settings/workspace', { ...workspaceFields, name: ' ' });
    expect(unnamed.status).to.equal(400);
    expect(flat(unnamed.text)).to.include('<span class="field-error" id="ws-name-error">Der Name darf nicht leer sein.</span>');
    const currency = await owner.submit('/settings/workspace', '/settings/workspace', { ...workspaceFields, currency: 'euro' });
    expect(currency.status).to.equal(400);
    expect(flat(currency.text)).to.include(
      '<span class="field-error" id="ws-currency-error">Die Währung muss ein ISO-4217-Code wie EUR sein (eingegeben: "EURO").</span>',
    );
    const open = await owner.submit('/settings/workspace', '/settings/workspace', { ...workspaceFields, joinDomains: 'gmail.com' });
    expect(open.status).to.equal(400);
    expect(flat(open.text)).to.include('Eine Adresse bei gmail.com kann jeder haben; nennen Sie die eigene Domain Ihrer Organisation.');
    for (const page of [unnamed, currency, open]) {
      expect(flat(page.text)).not.to.include(' must ');
      expect(keysShown(page.text)).to.deep.equal([]);
    }
  });

  it('the Members page: a malformed email, an empty name, someone a member already; Profile: a wrong current password', async () => {
    const badEmail = await owner.submit('/settings/members', '/settings/members', { name: 'Ada', email: 'ada-at-example' });
    expect(badEmail.status).to.equal(400);
    expect(flat(badEmail.text)).to.include(
      '<span class="field-error" id="add-email-error">Die E-Mail-Adresse muss wie name@example.org aussehen (eingegeben: "ada-at-example").</span>',
    );
    const noName = await owner.submit('/settings/members', '/settings/members', { name: ' ', email: 'new@example.org' });
    expect(noName.status).to.equal(400);
    expect(flat(noName.text)).to.include('<span class="field-error" id="add-name-error">Der Name darf nicht leer sein.</span>');
    const twice = await owner.submit('/settings/members', '/settings/members', { name: 'Owner', email: server.ownerEmail });
    expect(twice.status).to.equal(409);
    expect(flat(twice.text)).to.include(
      `Owner (${server.ownerEmail}) ist bereits Mitglied dieses Arbeitsbereichs; ändern Sie stattdessen den Zugang in der Liste.`,
    );
    const wrong = await owner.submit('/app/profile', '/app/profile/password', {
      current: 'not it at all!',
      password: 'a new long password',
      repeat: 'a new long password',
    });
    expect(wrong.status).to.equal(400);
    expect(flat(wrong.text)).to.include('id="current-password-error">Das ist nicht Ihr aktuelles Passwort.</span>');
    for (const page of [badEmail, noName, twice, wrong]) expect(keysShown(page.text)).to.deep.equal([]);
  });

  it('an invitation opened by a browser naming no language of ours (empty, `*`) reads the workspace’s language', async () => {
    const { accounts, invoices } = server.services;
    const other = accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' }).id;
    const ada = accounts.createUser(OPERATOR, { name: 'Ada', email: `ada.${server.workspaceId}@example.org` }).id;
    accounts.addMember(OPERATOR, { workspaceId: other, userId: ada });
    const invited = accounts.enrollMember(OPERATOR, {
      workspaceId: server.workspaceId,
      name: 'Ada',
      email: `ada.${server.workspaceId}@example.org`,
    });
    if (invited.kind !== 'invited' || invited.secret === null) throw new Error('no invitation link');
    const path = `/settings/setup/${invited.secret}`;
    const browser = new SettingsClient(server);
    // No language of the documents set: English, as before.
    expect((await browser.get(path, { 'accept-language': '*' })).text).to.include('<html lang="en"');
    invoices.setSettings(OPERATOR, server.workspaceId, { language: 'de' });
    for (const header of ['', '*', 'fr-FR,fr;q=0.9,*;q=0.1']) {
      const page = await browser.get(path, { 'accept-language': header });
      expect(page.status, header).to.equal(200);
      expect(page.text, header).to.include('<html lang="de"');
      expect(flat(page.text), header).to.include('<title>My workspace beitreten · timetrack</title>');
      expect(keysShown(page.text)).to.deep.equal([]);
    }
    // A browser that names a language of ours keeps it.
    expect((await browser.get(path, { 'accept-language': 'en-GB,en;q=0.9' })).text).to.include('<html lang="en"');
    // A member's setup link likewise: its workspace's language.
    const bea = accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` }).id;
    accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea });
    const link = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: bea });
    const setup = await browser.get(`/settings/setup/${link.secret}`, { 'accept-language': '*' });
    expect(setup.status).to.equal(200);
    expect(flat(setup.text)).to.include('<title>Passwort festlegen · timetrack</title>');
  });

  it('a signed-in member without a choice whose browser names none of ours (`*`, empty, only others) reads the workspace’s language (decisions §14; issue 58 item 5)', async () => {
    const { accounts, invoices } = server.services;
    const bea = accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` }).id;
    accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea });
    const member = new SettingsClient(server);
    await member.setUp(bea, PASSWORD);
    // No language of the documents set: English.
    expect((await member.get('/app/profile', { 'accept-language': '*' })).text).to.include('<html lang="en"');
    invoices.setSettings(OPERATOR, server.workspaceId, { language: 'de' });
    for (const header of ['*', '', 'fr-FR,fr;q=0.9,*;q=0.1']) {
      const page = await member.get('/app/profile', { 'accept-language': header });
      expect(page.status, header).to.equal(200);
      expect(page.text, header).to.include('<html lang="de"');
      expect(keysShown(page.text)).to.deep.equal([]);
    }
    // Node's fetch sends `*` when told nothing.
    expect((await member.get('/app/profile')).text).to.include('<html lang="de"');
    // A browser that names a language of ours keeps it.
    expect((await member.get('/app/profile', { 'accept-language': 'en-GB,en;q=0.9,de;q=0.5' })).text).to.include('<html lang="en"');
  });
});
