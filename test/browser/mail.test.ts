import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { OPERATOR } from '../../src/principal.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';
import { linkIn, plainUrl, startRelay, type TestRelay } from '../helpers/smtp.js';

/**
 * Mail in headless Chromium (Debian's package, driven by playwright-core): an owner adds a
 * colleague on the Members page, the colleague's mail arrives at a real SMTP server on
 * 127.0.0.1, and the link in it, opened in another browser, sets their password. Skipped,
 * saying why, where Chromium is not installed.
 */
const PASSWORD = 'correct horse battery staple';
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))`;

describe(`mail in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(90_000);
  let browser: Browser | undefined;
  let contexts: BrowserContext[] = [];
  let relay: TestRelay;
  let server: TestServer;

  before(async function () {
    if (!available) {
      console.warn(`browser/mail.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    browser = await sharedBrowser();
  });
  after(closeContexts);
  beforeEach(async () => {
    relay = await startRelay();
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  });
  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
    await server?.close();
    await relay?.close();
  });

  async function open(): Promise<{ page: Page; problems: string[] }> {
    const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.addInitScript(REPORT_CSP);
    return { page, problems };
  }
  const press = async (page: Page, name: string) => {
    const [response] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name, exact: true }).click()]);
    return response?.status() ?? 0;
  };
  const setPassword = async (page: Page) => {
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill(PASSWORD);
    return press(page, 'Set password and sign in');
  };

  it('an owner invites a colleague, who receives the mail and sets a password from its link', async () => {
    const owner = await open();
    const { secret } = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    await owner.page.goto(`${server.url}/settings/setup/${secret}`);
    expect(await setPassword(owner.page)).to.equal(200);
    await owner.page.goto(`${server.url}/settings/members`);
    await owner.page.getByLabel('Name', { exact: false }).first().fill('Ada Lovelace');
    await owner.page.locator('#add-email').fill('ada@example.org');
    expect(await press(owner.page, 'Add member')).to.equal(200);
    const notice = (await owner.page.locator('main .notice').first().textContent())?.replace(/\s+/g, ' ') ?? '';
    expect(notice).to.include('We mailed ada@example.org a link that lets them into My workspace.');

    const [mail] = await relay.until(1);
    expect(mail!.to).to.deep.equal(['ada@example.org']);
    const ada = await open();
    // The link as the colleague's mail program shows it: from the HTML part.
    const href = /href="([^"]+\/settings\/setup\/[^"]+)"/.exec(mail!.parsed.html || '')?.[1];
    expect(href).to.equal(linkIn(mail!, 'setup'));
    await ada.page.goto(href as string);
    expect(await ada.page.locator('main p').first().textContent()).to.include('For Ada Lovelace (ada@example.org)');
    expect(await setPassword(ada.page)).to.equal(200);
    expect(new URL(ada.page.url()).pathname).to.equal('/app/week');
    expect(await ada.page.locator('body').textContent()).to.include('Ada Lovelace');
    expect(owner.problems).to.deep.equal([]);
    expect(ada.problems).to.deep.equal([]);
  });
});
