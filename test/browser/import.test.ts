import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR } from '../../src/principal.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, chromiumAvailable as available } from '../helpers/chromium.js';

/**
 * The Import page end to end in headless Chromium (Debian's package, playwright-core): a real
 * file uploaded, the preview naming a refused line, the file fixed and checked again, the import,
 * its entries read back through the API, and the undo. SCREENSHOTS_DIR=… keeps screenshots of the
 * preview and the result at 1280 and 390 px.
 */
const PASSWORD = 'correct horse battery staple';
const HEADER = 'User,Email,Client,Project,Task,Description,Billable,Start date,Start time,End date,End time,Duration,Tags,Amount (EUR)';
const GOOD = 'Owner,owner@localhost,Acme,Website,Design,Sketches,Yes,2026-03-02,09:00:00,2026-03-02,10:30:00,01:30:00,"design,review",';
const FIXABLE = (end: string) => `Owner,owner@localhost,Acme,Website,,Review,No,2026-03-02,11:00:00,2026-03-02,${end},00:45:00,,`;

describe(`the Import page in headless Chromium${available ? '' : ' (skipped: no Chromium)'}`, function () {
  this.timeout(90_000);
  let browser: Browser | undefined;
  let server: TestServer;
  let dir: string;

  before(async function () {
    if (!available) this.skip();
    browser = await sharedBrowser();
  });
  after(closeContexts);
  beforeEach(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-import-page-'));
  });
  afterEach(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signedInPage(width: number): Promise<{ page: Page; problems: string[] }> {
    const context = await (browser as Browser).newContext({ viewport: { width, height: 900 }, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => void d.accept());
    const { secret } = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId });
    await page.goto(`${server.url}/settings/setup/${secret}`);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Set password and sign in' }).click()]);
    return { page, problems };
  }

  /** Chooses the file in the (last) upload form and checks it; resolves when the run's page shows its outcome. */
  async function check(page: Page, path: string): Promise<void> {
    await page
      .getByLabel(/^CSV export/)
      .last()
      .setInputFiles(path);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Check the file' }).last().click()]);
    await page.waitForSelector('main .notice', { timeout: 30_000 });
  }
  const shoot = async (page: Page, name: string) => {
    const out = process.env.SCREENSHOTS_DIR;
    if (!out) return;
    mkdirSync(out, { recursive: true });
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
  };
  const entries = async () => {
    const response = await server.request('GET', '/api/v1/entries?from=2026-03-01&to=2026-03-31');
    expect(response.status).to.equal(200);
    return response.body.data as Array<{ description: string; source: string; importId: string; start: string; tagIds: string[] }>;
  };

  for (const width of [1280, 390]) {
    it(`uploads, previews a refused line, imports the fixed file, and undoes it (${width} px)`, async () => {
      const { page, problems } = await signedInPage(width);
      await page.goto(`${server.url}/settings/import`);
      expect(await page.getByLabel(/^Time zone of the file/).inputValue()).to.equal('Europe/Berlin');

      const broken = join(dir, 'march.csv');
      writeFileSync(broken, `${HEADER}\n${GOOD}\n${FIXABLE('10:15:00')}\n`);
      await check(page, broken);
      const refused = (await page.getByRole('list', { name: 'Refused rows' }).textContent())?.replace(/\s+/g, ' ').trim();
      expect(refused).to.equal('Line 3: End time: the end is at or before the start');
      expect((await page.locator('main .notice').first().textContent())?.replace(/\s+/g, ' ').trim()).to.equal(
        '1 row of march.csv cannot be imported as it is: fix it in the file and check it again, or import the others.',
      );
      expect(await page.getByRole('button', { name: 'Import the other 1 row, skip the refused' }).count()).to.equal(1);
      await shoot(page, `import-preview-refused-${width}`);
      expect(await entries()).to.deep.equal([]);

      writeFileSync(broken, `${HEADER}\n${GOOD}\n${FIXABLE('11:45:00')}\n`);
      await check(page, broken);
      expect((await page.locator('main .notice').first().textContent())?.trim()).to.equal(
        'march.csv is ready to import: nothing has been written yet.',
      );
      const firstRow = await page.locator('table.rows tbody tr').first().locator('td').allTextContents();
      expect(firstRow.map((t) => t.trim())).to.deep.equal([
        '2',
        'Owner',
        '2026-03-02 09:00',
        '2026-03-02 10:30',
        'Sketches',
        'Acme / Website',
        'Design',
        'design, review',
        'yes',
        'from its task, project, member or workspace',
      ]);
      await shoot(page, `import-preview-${width}`);

      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Import 2 entries' }).click()]);
      await page.waitForSelector('main .notice.ok', { timeout: 30_000 });
      expect((await page.locator('main .notice').first().textContent())?.trim()).to.equal('Imported 2 entries from march.csv.');
      await shoot(page, `import-result-${width}`);
      const imported = await entries();
      expect(imported.map((e) => [e.description, e.source, e.start])).to.deep.equal([
        ['Review', 'import', '2026-03-02T10:00:00.000Z'],
        ['Sketches', 'import', '2026-03-02T08:00:00.000Z'],
      ]);

      // The undo runs on a thread too; its page follows it and says what went.
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Undo the import of march.csv' }).click()]);
      await page.waitForSelector('main .notice.ok', { timeout: 30_000 });
      expect((await page.locator('main .notice').first().textContent())?.trim()).to.equal('The import was undone: 2 entries deleted.');
      await shoot(page, `import-undone-${width}`);
      await Promise.all([page.waitForNavigation(), page.getByRole('link', { name: 'Back to the imports' }).click()]);
      expect(await page.locator('ul[aria-label="Imports"] .badge').first().textContent()).to.equal('undone');
      expect((await page.locator('ul[aria-label="Imports"] dd').nth(1).textContent())?.replace(/\s+/g, ' ').trim()).to.equal(
        '2 rows: 2 entries imported, 0 duplicates skipped; undone since (its entries deleted)',
      );
      await shoot(page, `import-list-${width}`);
      expect(await entries()).to.deep.equal([]);
      expect(problems).to.deep.equal([]);
    });
  }
});
