import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR } from '../../src/principal.js';
import { closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available, sharedBrowser } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Approval and lock in headless Chromium (decisions §13), one path: a member submits her week,
 * the owner approves it on the Approvals page, her try to add time to it is refused in words,
 * the owner reopens it and she changes it in place. The rules and every refusal are the fast and
 * HTTP tiers' (test/fast/services/approvals.test.ts, test/http/app/approvals.test.ts).
 */
const PASSWORD = 'correct horse battery staple';
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))`;

describe(`approval and lock in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  let server: TestServer;

  before(async function () {
    if (!available) {
      console.warn(`browser/approvals.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    browser = await sharedBrowser();
    // Monday 2 November 2026, 10:00:30 UTC.
    server = await startTestServer();
  });
  after(async () => {
    await closeContexts();
    await server?.close();
  });

  async function signedIn(email: string): Promise<{ page: Page; problems: string[] }> {
    const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.addInitScript(REPORT_CSP);
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/app\/week/), page.getByRole('button', { name: 'Sign in' }).click()]);
    return { page, problems };
  }

  it('submit the week, approved by the owner, an edit refused in words, reopened, then changed in place', async () => {
    const { services, workspaceId, ownerId } = server;
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'UTC' });
    const ada = services.accounts.createUser(OPERATOR, { name: 'Ada', email: 'ada@example.org' });
    services.accounts.addMember(OPERATOR, { workspaceId, userId: ada.id });
    services.accounts.setPreferences(OPERATOR, ada.id, { timeZone: 'UTC' });
    await services.sessions.setPassword(OPERATOR, ada.id, PASSWORD);
    services.approvals.setSettings(OPERATOR, workspaceId, { approval: 'weekly' });
    const token = services.tokens.create(OPERATOR, { workspaceId, userId: ada.id, name: 'ada', scopes: ['entries:write'] });
    const made = await server.request('POST', '/api/v1/entries', {
      token: token.token,
      json: { start: '2026-10-27T09:00:00Z', end: '2026-10-27T10:30:00Z', description: 'Harbour survey' },
    });
    const entryId = made.body.data.id as string;

    // Ada has her timesheet open in another tab, then submits her week.
    const her = await signedIn('ada@example.org');
    const sheet = await her.page.context().newPage();
    await sheet.goto(`${server.url}/app/timesheet?date=2026-10-27&day=2026-10-28`);
    await her.page.goto(`${server.url}/app/week?date=2026-10-27`);
    await her.page.getByRole('button', { name: 'Submit week' }).click();
    await her.page.getByText('Submitted your week of 26 Oct 2026 – 1 Nov 2026 for approval').waitFor();
    const strip = her.page.getByRole('region', { name: 'Approval' });
    await expect(await strip.innerText()).to.match(/Your week of 26 Oct 2026 – 1 Nov 2026\s+Submitted/);
    expect(await her.page.locator(`a[data-edit="${entryId}"]`).count()).to.equal(0);

    // The owner approves it on the Approvals page.
    const owner = await signedIn('owner@localhost');
    await owner.page.getByRole('link', { name: 'Approvals' }).click();
    const period = owner.page.locator('section.period', { hasText: 'Ada: week of 26 Oct 2026 – 1 Nov 2026' });
    await period.getByText('Harbour survey').waitFor();
    // On a phone (320 px, in German's longer words) the period's card clips nothing: its rows wrap, the totals' words too.
    services.accounts.setPreferences(OPERATOR, ownerId, { language: 'de' });
    await owner.page.setViewportSize({ width: 320, height: 800 });
    await owner.page.reload();
    await owner.page.locator('section.period').getByText('Gesamt (1 Eintrag', { exact: false }).waitFor();
    const overflowing = await owner.page.evaluate<string[]>(`[...document.querySelectorAll('section.period .scroll')]
      .filter((el) => el.scrollWidth > el.clientWidth)
      .map((el) => el.scrollWidth + ' > ' + el.clientWidth)`);
    expect(overflowing).to.deep.equal([]);
    expect(await owner.page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(320);
    services.accounts.setPreferences(OPERATOR, ownerId, { language: 'en' });
    await owner.page.setViewportSize({ width: 1280, height: 900 });
    await owner.page.reload();
    await period.getByLabel('Note (optional)').fill('Thanks.');
    await period.getByRole('button', { name: 'Approve' }).click();
    await owner.page.getByText('Approved Ada’s week of 26 Oct 2026 – 1 Nov 2026.').waitFor();

    // Ada tries to add time to the approved week in the timesheet she opened before: refused, in words, nothing added;
    // the timesheet as it is now takes no time in that week.
    await sheet.getByLabel('No project, Wednesday 28 October').fill('2');
    await sheet.getByRole('button', { name: 'Save' }).click();
    await sheet
      .getByText('This time is in an approved week of 26 Oct 2026 to 1 Nov 2026: approved time cannot change.', { exact: false })
      .waitFor();
    expect(await sheet.locator('table.sheet tfoot').innerText()).to.match(/\s1:30\s*$/);
    expect(await sheet.locator('table.sheet input[name^="cell:"]').count()).to.equal(0);
    expect(await sheet.getByRole('button', { name: 'Save', exact: true }).count()).to.equal(0);

    // The owner reopens it from the period's page.
    await owner.page.getByRole('link', { name: 'week of 26 Oct 2026 – 1 Nov 2026' }).click();
    await owner.page.getByRole('form', { name: 'Reopen Ada’s week' }).getByLabel('Note (optional)').fill('Ada asked.');
    await owner.page.getByRole('button', { name: 'Reopen' }).click();
    await owner.page.getByText('Reopened Ada’s week of 26 Oct 2026 – 1 Nov 2026.').waitFor();
    expect(await owner.page.locator('ol.audit').innerText()).to.match(
      /Submitted by Ada[\s\S]*Approved by Owner: “Thanks.”[\s\S]*Reopened by Owner: “Ada asked.”/,
    );

    // Ada changes the entry in place.
    await her.page.goto(`${server.url}/app/week?date=2026-10-27`);
    await her.page.locator(`a[data-edit="${entryId}"]`).click();
    const form = her.page.getByRole('form', { name: /^Edit entry 09:00/ });
    await form.getByLabel('Description').fill('Harbour survey, both piers');
    await form.getByRole('button', { name: 'Save' }).click();
    await her.page.locator('#live-region').getByText('Saved.').waitFor();
    expect((await server.request('GET', `/api/v1/entries/${entryId}`)).body.data.description).to.equal('Harbour survey, both piers');
    // The refused post answers 409, which Chromium logs as a failed load; nothing else may be logged.
    expect([...her.problems, ...owner.problems].filter((p) => !/status of 409 \(Conflict\)/.test(p))).to.deep.equal([]);
  });
});
