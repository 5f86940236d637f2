import { expect } from 'chai';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The invoices, settings and sign-in pages in the reader's language (decisions §14; issue 58
 * item 1): a member who chose German reads German words and German formats there, and no page
 * shows a message's key instead of its words.
 */
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** Text shaped like one of our keys (`invoices.list.number`): a namespace of the messages, a dot, a name. */
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);

describe('web app: the invoices, settings and sign-in pages in German', function () {
  this.timeout(60_000);
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
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
  });

  it('the invoices list: German words, German money and days, no key', async () => {
    const made = freelancer(server);
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const page = await owner.get('/app/invoices');
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<h1>Rechnungen</h1>');
    expect(text).to.include('>Neue Rechnung</a>');
    expect(text).to.include('<th scope="col">Kunde</th>');
    expect(text).to.include('<th scope="col" class="num">Offen</th>');
    expect(text).to.include(`<td data-label="Nummer" class="c-number"><a href="/app/invoices/${id}">Entwurf</a></td>`);
    expect(text).to.include('<td data-label="Zeitraum" class="c-time">01.10.2026 – 31.10.2026</td>');
    expect(text).to.include('<td data-label="Offen" class="num">1.130,50 €</td>');
    expect(text).to.include('<option value="" selected>Jeder Status</option>');
    expect(keysShown(page.text)).to.deep.equal([]);
    // Filtered to nothing: the empty state speaks German too.
    const none = flat((await owner.get('/app/invoices?status=paid')).text);
    expect(none).to.include('Keine Rechnung passt zu diesen Filtern. <a href="/app/invoices">Alle Rechnungen zeigen</a>.');
  });

  it('the stylesheet keys no rule on a column’s English label, so the German list’s invoice numbers are as bold as the English', async () => {
    const page = await owner.get('/app/invoices');
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)?.[1] as string;
    const css = await owner.get(href);
    expect(css.status).to.equal(200);
    expect(css.text).to.include('table.invoices td.c-number a {');
    expect(css.text.match(/\[data-label=[^\]]*\]/g) ?? []).to.deep.equal([]);
  });

  it('a draft’s page: its title, its actions and their dates, and a confirmation’s title in German, no key', async () => {
    const made = freelancer(server);
    const id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    const page = await owner.get(`/app/invoices/${id}`);
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    expect(text).to.include('<title>Rechnungsentwurf');
    expect(text).to.include('<label for="action-issue-date">Rechnungsdatum</label>');
    expect(text).to.include('>Rechnung stellen…</button>');
    expect(text).to.include('>Stornieren…</button>');
    expect(keysShown(page.text)).to.deep.equal([]);
    const confirm = await owner.get(`/app/invoices/${id}/issue`);
    expect(confirm.status).to.equal(200);
    expect(flat(confirm.text)).to.include('<title>Rechnung stellen: Rechnungsentwurf');
    expect(keysShown(confirm.text)).to.deep.equal([]);
  });
});
