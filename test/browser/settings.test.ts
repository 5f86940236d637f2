import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { RETRY_DELAYS_MS } from '../../src/modules/webhooks/sender.js';
import { expectProblem, startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';
import { startReceiver, verify } from '../helpers/webhooks.js';

/**
 * The settings web page (/settings) in headless Chromium (Debian's package, driven by
 * playwright-core): sign-in and password setup, tokens, webhooks, members, keyboard use, small
 * screens, and the page's CSP. Everything stays on 127.0.0.1: the server and the webhook receiver.
 * Skipped, saying why, where Chromium is not installed.
 */
const PASSWORD = 'correct horse battery staple';
const OWNER = 'owner@localhost';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 320, height: 720 };
const entry = (i: number) => ({ start: `2026-11-01T0${i % 10}:00:00Z`, end: `2026-11-01T0${i % 10}:30:00Z`, description: `e${i}` });
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A browser tab with what went wrong in it: console errors and warnings, page errors, CSP violations; and the confirm dialogs it saw. */
interface Tab {
  page: Page;
  problems: string[];
  dialogs: string[];
  confirm: boolean;
}

/** Runs in the page (the compiler has no DOM types here): each control without a label, and the focused element after the first Tab. */
const UNLABELLED = `[...document.querySelectorAll('input, select, textarea')]
  .filter((el) => el.type !== 'hidden')
  .filter((el) => ![...el.labels].some((l) => l.textContent.trim() !== '') && !el.getAttribute('aria-label'))
  .map((el) => el.outerHTML)`;
const FOCUSED = `(() => { const el = document.activeElement; const s = getComputedStyle(el);
  return { tag: el.tagName, text: el.textContent.trim(), outline: s.outlineStyle, left: el.getBoundingClientRect().left }; })()`;
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))`;
/** The dt/dd pairs of a definition list, with white space collapsed (no named functions inside: tsx would wrap them in __name). */
const facts = (dl: Locator) =>
  dl.evaluate((el) =>
    Object.fromEntries(
      [...el.querySelectorAll('dt')].map((dt) =>
        [dt, dt.nextElementSibling].map((n) => (n?.textContent ?? '').replace(/\s+/g, ' ').trim()),
      ),
    ),
  ) as Promise<Record<string, string>>;
const text = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

describe(`the settings page in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];

  before(async function () {
    if (!available) {
      console.warn(`browser/settings.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    browser = await sharedBrowser();
  });
  after(closeContexts);
  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
  });

  /** A fresh context (no cookies) and its page, watched for problems; confirm dialogs are accepted unless `tab.confirm` is false. */
  async function open(viewport = DESKTOP): Promise<Tab> {
    const context = await (browser as Browser).newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const tab: Tab = { page, problems: [], dialogs: [], confirm: true };
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') tab.problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => tab.problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => {
      tab.dialogs.push(d.message());
      void (tab.confirm ? d.accept() : d.dismiss());
    });
    await page.addInitScript(REPORT_CSP);
    return tab;
  }

  /** Clicks and waits for the page it leads to (after any 303); its status. */
  async function follow(page: Page, target: Locator): Promise<number> {
    const [response] = await Promise.all([page.waitForNavigation(), target.click()]);
    return response?.status() ?? 0;
  }
  const press = (page: Page, name: string) => follow(page, page.getByRole('button', { name, exact: true }));
  const notice = (page: Page) => text(page.locator('main .notice').first());

  async function signIn(page: Page, server: TestServer, email: string, password: string): Promise<number> {
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    return press(page, 'Sign in');
  }

  /** Opens a new setup link of the member (as `timetrack user invite` makes) and sets the password. */
  async function setUp(page: Page, server: TestServer, userId: string) {
    const { secret } = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId });
    await page.goto(`${server.url}/settings/setup/${secret}`);
    const intro = await text(page.locator('main p').first());
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill(PASSWORD);
    const status = await press(page, 'Set password and sign in');
    // A setup link lands on the week (with a welcome); these tests go on from the settings.
    expect(new URL(page.url()).pathname).to.equal('/app/week');
    await page.goto(`${server.url}/settings/tokens`);
    return { status, intro, secret };
  }
  const tabs = (page: Page) => page.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents();

  /** Mints a token on the tokens page; its plaintext as shown once. */
  async function mint(page: Page, name: string, scopes: string[]): Promise<string> {
    await page.getByRole('textbox', { name: /^Name/ }).fill(name);
    for (const scope of scopes) await page.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).check();
    expect(await press(page, 'Mint token')).to.equal(200);
    return text(page.locator('#new-token'));
  }

  async function ownerTab(server: TestServer): Promise<Tab> {
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
    const tab = await open();
    expect(await signIn(tab.page, server, OWNER, PASSWORD)).to.equal(200);
    // Signing in lands on the week; these tests go on from the settings.
    expect(tab.page.url()).to.equal(`${server.url}/app/week`);
    await tab.page.goto(`${server.url}/settings/tokens`);
    return tab;
  }

  const settle = async (server: TestServer) => {
    await new Promise((r) => setImmediate(r));
    await server.services.sender.tick();
  };
  /** Runs every retry of what is due now: each delivery ends in success or abandoned. */
  async function driveRetries(server: TestServer): Promise<void> {
    await settle(server);
    for (const delay of RETRY_DELAYS_MS) {
      server.clock.advance(delay);
      await settle(server);
    }
  }
  const start = () => startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const answer = (receiver: Receiver, code: number) => receiver.respond((_r, res) => res.writeHead(code).end());

  describe('flows', () => {
    let server: TestServer;
    let receiver: Receiver;
    beforeEach(async () => {
      server = await start();
      receiver = await startReceiver(null);
    });
    afterEach(async () => {
      await server.close();
      await receiver.close();
    });

    it('a setup link signs in; a token minted on the page works, is shown once, and answers 401 once revoked', async () => {
      const tab = await open();
      const { page } = tab;
      const { status, intro, secret } = await setUp(page, server, server.ownerId);
      expect(intro).to.equal('For Owner (owner@localhost) in the workspace My workspace.');
      expect(status).to.equal(200);
      expect(page.url()).to.equal(`${server.url}/settings/tokens`);
      expect(await text(page.locator('h1'))).to.equal('API tokens');
      expect(await text(page.locator('header.top'))).to.include('Owner (owner@localhost), owner');

      const token = await mint(page, 'CI script', ['entries:read']);
      expect(token).to.match(/^tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
      expect(await notice(page)).to.match(/^Token "CI script" minted\. Copy it now: it is shown only this once/);
      const me = await server.request('GET', '/api/v1/me', { token });
      expect(me.status).to.equal(200);
      expect(me.body.data).to.deep.include({ userId: server.ownerId, scopes: ['entries:read'] });

      await page.goto(`${server.url}/settings/tokens`);
      expect(await page.locator('#new-token').count()).to.equal(0);
      expect(await page.content()).not.to.include(token);
      const card = page.getByRole('list', { name: 'Your tokens' }).getByRole('listitem').filter({ hasText: 'CI script' });
      expect(await text(card.locator('.card-title'))).to.equal('CI script active');
      expect(await facts(card.locator('dl'))).to.deep.include({
        Prefix: `${token.slice(0, 11)}_…`,
        Scopes: 'entries:read',
        Expires: 'never',
        'Last used': '2 Nov 2026, 10:00 UTC',
      });

      // Cancelling the confirm dialog revokes nothing; accepting it does.
      tab.confirm = false;
      await card.getByRole('button', { name: 'Revoke CI script' }).click();
      expect(tab.dialogs).to.deep.equal(['Revoke CI script? Clients using it get 401 at once.']);
      expect(page.url()).to.equal(`${server.url}/settings/tokens`);
      expect((await server.request('GET', '/api/v1/me', { token })).status).to.equal(200);
      tab.confirm = true;
      expect(await follow(page, card.getByRole('button', { name: 'Revoke CI script' }))).to.equal(200);
      expect(tab.dialogs).to.have.length(2);
      expect(await notice(page)).to.equal('The token was revoked; it answers 401 from now on.');
      expect(await text(card.locator('.card-title'))).to.equal('CI script revoked 2 Nov 2026, 10:00 UTC');
      expect(await facts(card.locator('dl'))).to.deep.include({ Prefix: `${token.slice(0, 11)}_…`, Scopes: 'entries:read' });
      expect(await card.getByRole('button').count()).to.equal(0);
      expectProblem(await server.request('GET', '/api/v1/me', { token }), 401, 'invalid-token', server.config.problemsBase, '/api/v1/me');
      // The link was used up.
      expect((await page.goto(`${server.url}/settings/setup/${secret}`))?.status()).to.equal(410);
      expect(tab.problems.filter((p) => !p.includes('status of 410'))).to.deep.equal([]);
    });

    it('signs out, refuses a wrong password on the sign-in page, and signs in again', async () => {
      const { page } = await ownerTab(server);
      expect(await press(page, 'Sign out')).to.equal(200);
      expect(page.url()).to.equal(`${server.url}/settings/sign-in`);
      await page.goto(`${server.url}/settings/tokens`);
      expect(page.url()).to.equal(`${server.url}/settings/sign-in?next=%2Fsettings%2Ftokens`);
      expect(await signIn(page, server, OWNER, 'not the password')).to.equal(401);
      expect(page.url()).to.equal(`${server.url}/settings/sign-in`);
      expect(await text(page.getByRole('alert'))).to.equal('That email and password do not match an account with a password.');
      expect(await page.getByLabel('Email').inputValue()).to.equal(OWNER);
      expect(await page.getByLabel('Password', { exact: true }).inputValue()).to.equal('');
      expect(await signIn(page, server, OWNER, PASSWORD)).to.equal(200);
      expect(page.url()).to.equal(`${server.url}/app/week`);
      await page.goto(`${server.url}/settings/tokens`);
      expect(await tabs(page)).to.deep.equal([
        'Workspace',
        'Members',
        'API tokens',
        'Webhooks',
        'Import',
        'Mail',
        'Track time',
        'API reference',
      ]);
    });

    it('webhooks: secret shown once; 15 abandoned deliveries disable; re-enable, paged log, redeliver, test ping, delete', async () => {
      answer(receiver, 500);
      const { page, problems } = await ownerTab(server);
      await page.goto(`${server.url}/settings/webhooks`);
      await page.getByLabel('Receiver URL').fill(`http://127.0.0.1:${receiver.port}/hook`);
      await page.getByRole('checkbox', { name: /^entry\.created / }).check();
      expect(await press(page, 'Create subscription')).to.equal(200);
      const secret = await text(page.locator('#new-secret'));
      expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
      await page.goto(`${server.url}/settings/webhooks`);
      expect(await page.locator('#new-secret').count()).to.equal(0);
      expect(await page.content()).not.to.include(secret);
      const href = (await page.getByRole('link', { name: /^Delivery log and actions/ }).getAttribute('href')) as string;
      const hookId = href.split('/').pop() as string;

      for (let i = 0; i < 15; i++) expect((await server.request('POST', '/api/v1/entries', { json: entry(i) })).status).to.equal(200);
      await driveRetries(server);
      expect(receiver.requests).to.have.length(15 * 6);
      await page.goto(`${server.url}${href}`);
      const hookFacts = () => facts(page.locator('main > dl.facts'));
      const disabledFacts = await hookFacts();
      expect(disabledFacts).to.deep.include({ Status: 'disabled 2 Nov 2026, 17:13 UTC' });
      expect(disabledFacts['Consecutive failures']).to.match(
        /^15 Deliveries that failed after all their attempts, in a row; at 15 the subscription is disabled/,
      );
      // The log's rows (a table here, cards on phones), each cell by its label.
      const cards = page.getByRole('table', { name: 'Deliveries' }).locator('tbody > tr');
      const card = (i: number) =>
        cards
          .nth(i)
          .evaluate((tr) =>
            Object.fromEntries(
              [...tr.querySelectorAll('td[data-label]')].map((td) => [
                td.getAttribute('data-label'),
                (td.textContent ?? '').replace(/\s+/g, ' ').trim(),
              ]),
            ),
          );
      expect(await cards.count()).to.equal(15);
      expect(await card(0)).to.deep.include({ Status: 'given up after 6 attempts', Attempts: '6', Response: '500' });
      expect(await page.getByRole('button', { name: /^Redeliver / }).count()).to.equal(0); // not while disabled
      expect(await page.getByRole('link', { name: 'Older deliveries' }).count()).to.equal(0);

      expect(await press(page, 'Re-enable')).to.equal(200);
      expect(await notice(page)).to.equal('The subscription is enabled again and its failure count is cleared.');
      const enabledFacts = await hookFacts();
      expect(enabledFacts).to.deep.include({ Status: 'enabled' });
      expect(enabledFacts['Consecutive failures']).to.match(/^0 /);
      expect(await page.getByRole('button', { name: 'Re-enable' }).count()).to.equal(0);
      expect(await page.getByRole('button', { name: /^Redeliver / }).count()).to.equal(15);

      // 11 more, delivered: 26 in the log, 25 a page.
      answer(receiver, 200);
      for (let i = 15; i < 26; i++) await server.request('POST', '/api/v1/entries', { json: entry(i) });
      await settle(server);
      await page.reload();
      expect(await cards.count()).to.equal(25);
      expect(await card(0)).to.deep.include({ Status: 'delivered', Attempts: '1', Response: '200' });
      expect(await card(11)).to.deep.include({ Status: 'given up after 6 attempts' });
      expect(await follow(page, page.getByRole('link', { name: 'Older deliveries' }))).to.equal(200);
      expect(await cards.count()).to.equal(1);
      expect(await page.getByRole('link', { name: 'Newest' }).count()).to.equal(1);
      const oldest = server.services.webhooks.deliveries(OPERATOR, hookId).at(-1)?.id as string;
      expect(await card(0)).to.deep.include({ Event: `entry.created ${oldest}`, Status: 'given up after 6 attempts' });

      expect(await press(page, `Redeliver ${oldest}`)).to.equal(200);
      expect(await notice(page)).to.equal('The delivery is queued: its new attempt is made within a few seconds. Reload to see it.');
      await settle(server);
      await follow(page, page.getByRole('link', { name: 'Older deliveries' }));
      expect(await card(0)).to.deep.include({ Event: `entry.created ${oldest}`, Status: 'delivered', Attempts: '7', Response: '200' });
      expect(receiver.requests.at(-1)?.headers['x-service-delivery']).to.equal(oldest);

      expect(await press(page, 'Send test ping')).to.equal(200);
      expect(await notice(page)).to.match(/^Ping [0-9a-f]{24} delivered: The receiver answered 200\.$/);
      const ping = receiver.requests.at(-1);
      expect(ping?.method).to.equal('POST');
      expect(ping?.headers['x-service-event']).to.equal('ping');
      expect(ping?.json.data).to.deep.equal({ kind: 'ping', webhookId: hookId });
      expect(verify(secret, ping!, server.clock.now() / 1000)).to.equal(true);
      expect(server.services.webhooks.deliveries(OPERATOR, hookId)).to.have.length(26); // a ping is no delivery…
      await page.goto(`${server.url}${href}`);
      expect(await card(0)).to.deep.include({ Event: `ping test ping ${ping?.headers['x-service-delivery']}`, Attempts: '1' }); // …but is in the log

      expect(await press(page, 'Delete subscription')).to.equal(200);
      expect(await notice(page)).to.equal('The subscription and its delivery log were deleted.');
      expect(await text(page.locator('main > p').first())).to.equal('You have no subscriptions in this workspace yet.');
      expect(problems).to.deep.equal([]);
    });

    it("an owner narrows a member's money visibility: the member's token narrows at once; members is owners-only", async () => {
      server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { hourlyRate: 70 });
      const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
      const flags = { canViewOthersTime: true, canViewOthersMoney: true };
      server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, ...flags });
      const member = await open();
      expect(await setUp(member.page, server, bea.id)).to.deep.include({
        status: 200,
        intro: 'For Bea (bea@example.org) in the workspace My workspace.',
      });
      const visibility = () => text(member.page.locator('#token-visibility'));
      expect(await visibility()).to.match(
        /^It will carry your visibility in this workspace: colleagues' time yes, colleagues' money yes\./,
      );
      const token = await mint(member.page, 'Reports', ['entries:read', 'reports:read']);
      expect((await server.request('GET', '/api/v1/me', { token })).body.data.visibility).to.deep.equal(flags);
      await server.request('POST', '/api/v1/entries', { json: entry(1) });
      const ownersEntry = async () =>
        (await server.request('GET', '/api/v1/entries?from=2026-11-01&to=2026-11-01', { token })).body.data[0];
      expect(await ownersEntry()).to.include({ authorId: server.ownerId, hourlyRate: 70 });

      // Not an owner: no Members tab, and the page says so.
      expect(await tabs(member.page)).to.deep.equal(['API tokens', 'Webhooks', 'Import', 'Track time', 'API reference']);
      expect((await member.page.goto(`${server.url}/settings/members`))?.status()).to.equal(403);
      expect(await text(member.page.locator('h1'))).to.equal('Not allowed');
      expect(await text(member.page.getByRole('alert'))).to.equal("Only the workspace's owners can do this. Ask one of them.");

      const { page } = await ownerTab(server);
      await page.goto(`${server.url}/settings/members`);
      const beaCard = () => page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: 'bea@example.org' });
      const money = () => beaCard().getByRole('checkbox', { name: "Bea: Sees colleagues' money (rates, amounts, invoices)" });
      expect(await money().isChecked()).to.equal(true);
      await money().uncheck();
      expect(await follow(page, beaCard().getByRole('button', { name: 'Save Bea' }))).to.equal(200);
      expect(await notice(page)).to.equal('Saved Bea. It applies from the next request on.');
      expect(await money().isChecked()).to.equal(false);
      expect(await beaCard().getByRole('checkbox', { name: "Bea: Sees colleagues' time" }).isChecked()).to.equal(true);

      expect((await server.request('GET', '/api/v1/me', { token })).body.data.visibility).to.deep.equal({
        canViewOthersTime: true,
        canViewOthersMoney: false,
      });
      expect(await ownersEntry()).to.include({ authorId: server.ownerId, hourlyRate: null, currency: 'EUR' });
      await member.page.goto(`${server.url}/settings/tokens`);
      expect(await visibility()).to.match(/colleagues' time yes, colleagues' money no\./);
    });

    // Under Referrer-Policy no-referrer Chromium sent `Origin: null` on form posts (refused): the
    // page's policy is same-origin, and `null` leaves the decision to the CSRF token.
    it('the team from the browser: the first owner names themself; adds a colleague (their link works); removes them after a confirmation', async () => {
      // The first start's link, as the banner prints it.
      const url = /Settings page: open (\S+)/.exec(server.banner)?.[1] as string;
      const first = await open();
      await first.page.goto(url);
      await first.page.getByLabel(/^Your name/).fill('Maya Fischer');
      await first.page.getByLabel(/^Your email/).fill('maya@northwind.example');
      await first.page.getByLabel(/^Your workspace's name/).fill('Northwind');
      await first.page.getByLabel('New password').fill(PASSWORD);
      await first.page.getByLabel('Repeat it').fill(PASSWORD);
      expect(await press(first.page, 'Set password and sign in')).to.equal(200);
      expect(await text(first.page.locator('header .who'))).to.include('Maya Fischer (maya@northwind.example), owner');
      expect(await text(first.page.locator('header .who'))).to.include('Northwind');
      const page = first.page;
      await page.goto(`${server.url}/settings/members`);
      // A refused form: the message at its field, tied to it; nothing lost.
      await page.getByLabel(/^Name/).fill('Ada Lovelace');
      await page.getByLabel(/^Email/).fill('ada@northwind.example');
      await page.getByLabel(/^Hourly rate/).fill('eighty');
      expect(await press(page, 'Add member')).to.equal(400);
      const rate = page.getByLabel(/^Hourly rate/);
      expect(await rate.getAttribute('aria-invalid')).to.equal('true');
      expect(await text(page.locator(`#${await rate.getAttribute('aria-describedby')}`))).to.equal(
        'The hourly rate must be a number such as 85 or 92.50, or empty for none.',
      );
      expect(await page.getByLabel(/^Email/).inputValue()).to.equal('ada@northwind.example');
      await rate.fill('80');
      await page.getByRole('checkbox', { name: "Sees colleagues' time", exact: true }).check();
      expect(await press(page, 'Add member')).to.equal(200);
      expect(await notice(page)).to.match(/^Send this link to ada@northwind\.example: it lets them into Northwind\. It works once, until/);
      const link = await text(page.locator('#setup-link'));
      expect(link.startsWith(`${server.url}/settings/setup/`)).to.equal(true);
      const ada = await open(PHONE);
      await ada.page.goto(link);
      expect(await text(ada.page.locator('main p').first())).to.equal(
        'For Ada Lovelace (ada@northwind.example) in the workspace Northwind.',
      );
      await ada.page.getByLabel('New password').fill(PASSWORD);
      await ada.page.getByLabel('Repeat it').fill(PASSWORD);
      expect(await press(ada.page, 'Set password and sign in')).to.equal(200);
      // Removing asks first; dismissed, nothing happens; accepted, Ada's session ends at once.
      await page.reload();
      first.confirm = false;
      await page.getByRole('button', { name: 'Remove Ada Lovelace' }).click();
      expect(first.dialogs).to.deep.equal(['Remove Ada Lovelace from this workspace? Their tokens and sessions here stop at once.']);
      first.confirm = true;
      expect(await press(page, 'Remove Ada Lovelace')).to.equal(200);
      expect(await notice(page)).to.equal('Removed Ada Lovelace: their tokens and sessions in this workspace stopped working.');
      expect(await page.getByRole('row').filter({ hasText: 'ada@northwind.example' }).count()).to.equal(0);
      await ada.page.reload();
      expect(new URL(ada.page.url()).pathname).to.equal('/settings/sign-in');
      // The refused form answered 400, which Chromium reports as a failed load; nothing else went wrong.
      expect([...first.problems, ...ada.problems]).to.deep.equal([
        'error: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
    });

    it('a form post as the browser sends it signs in', async () => {
      await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
      const { page } = await open(DESKTOP);
      expect(await signIn(page, server, OWNER, PASSWORD)).to.equal(200);
      expect(page.url()).to.equal(`${server.url}/app/week`);
      // The browser's zone came with the form: the week needs no reload to learn it.
      expect(await page.getAttribute('body', 'data-ask-zone')).to.equal('false');
    });

    // Post/redirect/get: the token is shown by the page the form redirects to, once.
    it('reloading the page right after minting mints nothing and shows no token', async () => {
      const { page } = await ownerTab(server);
      await mint(page, 'Once', []);
      await page.reload();
      expect(await page.locator('#new-token').count()).to.equal(0);
      expect(
        server.services.tokens
          .list(OPERATOR, server.workspaceId)
          .filter((t) => t.userId === server.ownerId)
          .map((t) => t.name)
          .sort(),
      ).to.deep.equal(['Once', 'bootstrap']);
    });
  });

  describe('every page: small screens, labels, keyboard, no console errors or CSP violations', () => {
    let server: TestServer;
    let receiver: Receiver;
    let hookId = '';
    before(async function () {
      if (!available) this.skip();
      server = await start();
      receiver = await startReceiver(null);
      await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
      const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea Longname-Example', email: 'bea.longname@example.org' });
      server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, canViewOthersTime: true });
      const url = `http://127.0.0.1:${receiver.port}/hooks/timetrack/a-rather-long-path-for-a-receiver`;
      hookId = (
        await server.services.webhooks.create(OPERATOR, {
          workspaceId: server.workspaceId,
          userId: server.ownerId,
          url,
          events: ['entry.created'],
        })
      ).id;
      // One abandoned delivery (with its Redeliver button), one success.
      answer(receiver, 500);
      await server.request('POST', '/api/v1/entries', { json: entry(1) });
      await driveRetries(server);
      answer(receiver, 204);
      await server.request('POST', '/api/v1/entries', { json: entry(2) });
      await settle(server);
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    /** Signs the owner in unless the tab is signed in already, then opens the page. */
    const goSignedIn = async (page: Page, path: string) => {
      await page.goto(`${server.url}/settings/sign-in`);
      if (page.url().endsWith('/sign-in')) expect(await signIn(page, server, OWNER, PASSWORD)).to.equal(200);
      expect((await page.goto(`${server.url}/settings${path}`))?.status(), path).to.equal(200);
    };
    const setupPath = () =>
      `/setup/${server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId }).secret}`;
    const PAGES: Array<{ name: string; visit: (page: Page) => Promise<unknown> }> = [
      { name: 'sign-in', visit: (page) => page.goto(`${server.url}/settings/sign-in`) },
      { name: 'setup', visit: (page) => page.goto(`${server.url}/settings${setupPath()}`) },
      {
        name: 'tokens, a token just minted',
        visit: (page) => goSignedIn(page, '/tokens').then(() => mint(page, 'Phone', ['entries:read'])),
      },
      { name: 'webhooks', visit: (page) => goSignedIn(page, '/webhooks') },
      {
        name: 'webhook detail',
        visit: async (page) => {
          await goSignedIn(page, `/webhooks/${hookId}`);
          expect(await page.getByRole('button', { name: /^Redeliver [0-9a-f]{24}$/ }).count(), 'its longest button').to.equal(1);
        },
      },
      { name: 'members', visit: (page) => goSignedIn(page, '/members') },
      { name: 'workspace', visit: (page) => goSignedIn(page, '/workspace') },
    ];

    for (const { name, visit } of PAGES) {
      it(`${name}: fits 320 px, labels every control, tabs to "Skip to content" first with a visible outline`, async () => {
        const { page } = await open(PHONE);
        await visit(page);
        const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        expect(scrollWidth, 'horizontal scroll at 320 px').to.be.at.most(PHONE.width + 1);
        expect(await page.evaluate(UNLABELLED), 'controls without a label').to.deep.equal([]);
        await page.keyboard.press('Tab');
        const focused = (await page.evaluate(FOCUSED)) as { tag: string; text: string; outline: string; left: number };
        expect(focused).to.deep.include({ tag: 'A', text: 'Skip to content' });
        expect(focused.outline, 'outline of the focused link').not.to.equal('none');
        expect(focused.left, 'the focused skip link is on screen').to.be.at.least(0);
        // Following it moves the keyboard into the main content.
        await page.keyboard.press('Enter');
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.getElementById("main").contains(document.activeElement)')).to.equal(true);
      });
    }

    it('every page loads with no console error, page error or CSP violation, and the copy button works', async () => {
      const tab = await open();
      await tab.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
      for (const { visit } of PAGES) await visit(tab.page);
      const { page } = tab;
      await page.goto(`${server.url}/settings/tokens`);
      const token = await mint(page, 'Clipboard test', []);
      const copy = page.getByRole('button', { name: 'Copy', exact: true });
      expect(await copy.isVisible(), 'the script reveals the copy button').to.equal(true);
      await copy.click();
      await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
      expect(await text(page.locator('#new-token-status'))).to.equal('Copied to the clipboard.');
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(token);
      await page.goto(`${server.url}/settings/webhooks/${hookId}`);
      expect(await press(page, 'Send test ping')).to.equal(200);
      expect(tab.problems).to.deep.equal([]);
    });
  });
});
