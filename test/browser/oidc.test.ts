import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { freePort, startTestProvider, timetrackClient, type TestProvider } from '../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';

/**
 * Sign-in through the identity provider in headless Chromium (Debian's package, driven by
 * playwright-core): the sign-in page's "Sign in with …", the provider's login and consent pages
 * (oidc-provider's own, on 127.0.0.1), and back on the member's week, signed in; then signing out
 * there too. No request leaves 127.0.0.1 (every other name fails to resolve). Skipped, saying why,
 * where Chromium is not installed.
 */
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))`;

describe(`sign-in through the identity provider in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let provider: TestProvider;
  let server: TestServer;

  before(async function () {
    if (!available) {
      console.warn(`browser/oidc.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    browser = await sharedBrowser();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // At localhost: another site than the server at 127.0.0.1, as a provider elsewhere is.
    provider = await startTestProvider({
      host: 'localhost',
      clients: [timetrackClient(base)],
      users: { 'ada-at-sso': { email: 'owner@localhost', email_verified: true, name: 'Ada Owner' } },
    });
    server = await startTestServer({
      now: Date.now(),
      env: {
        PORT: String(port),
        BASE_URL: base,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: 'timetrack',
        OIDC_CLIENT_SECRET: 'timetrack-test-secret',
        OIDC_NAME: 'Company SSO',
      },
    });
  });
  after(async () => {
    await closeContexts();
    await server?.close();
    await provider?.close();
  });

  it('a member signs in with the provider (its login and consent) and lands on their week; signing out signs out there too', async () => {
    const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const problems: string[] = [];
    const elsewhere: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') {
        elsewhere.push(url.host);
        return route.abort();
      }
      return route.continue();
    });
    page.on('console', (m) => {
      // Only this site's pages are held to the CSP rule: the provider's own pages are the provider's.
      if ((m.type() === 'error' || m.type() === 'warning') && page.url().startsWith(server.url)) problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.addInitScript(REPORT_CSP);

    await page.goto(`${server.url}/app/reports`);
    expect(new URL(page.url()).pathname).to.equal('/settings/sign-in');
    await Promise.all([page.waitForURL(`${provider.issuer}/**`), page.getByRole('link', { name: 'Sign in with Company SSO' }).click()]);
    // The provider's login (any password) and consent.
    await page.locator('input[name=login]').fill('ada-at-sso');
    await page.locator('input[name=password]').fill('whatever');
    await Promise.all([page.waitForURL(/\/interaction\//), page.getByRole('button', { name: 'Sign-in' }).click()]);
    await Promise.all([page.waitForURL(`${server.url}/app/**`), page.getByRole('button', { name: 'Continue' }).click()]);
    // Back where the person was going, signed in (the page between the sites hands over to this one).
    expect(new URL(page.url()).pathname).to.equal('/app/reports');
    await expect(page.locator('header .who')).to.exist;
    expect(await page.locator('header .who').innerText()).to.include('owner@localhost');
    await page.goto(`${server.url}/app/week`);
    expect(new URL(page.url()).pathname).to.equal('/app/week');
    expect(await page.locator('h1').first().innerText()).to.match(/week/i);

    // Signing out here goes on to the provider's sign-out, which comes back to the sign-in page.
    await Promise.all([page.waitForURL(`${provider.issuer}/**`), page.getByRole('button', { name: 'Sign out' }).click()]);
    await Promise.all([
      page.waitForURL(`${server.url}/settings/sign-in**`),
      page.getByRole('button', { name: 'Yes, sign me out' }).click(),
    ]);
    await page.goto(`${server.url}/app/week`);
    expect(new URL(page.url()).pathname).to.equal('/settings/sign-in');
    expect(problems).to.deep.equal([]);
    expect([...new Set(elsewhere)]).to.deep.equal(['fonts.googleapis.com']);
    await context.close();
  });
});
