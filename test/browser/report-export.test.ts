import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR } from '../../src/principal.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';

/**
 * The Reports page's three downloads in headless Chromium (Debian's package, driven by
 * playwright-core): the member picks what and clicks CSV, Excel or PDF; each file arrives as a
 * download with its name and the report's content. Only 127.0.0.1. Skipped, saying why, where
 * Chromium is not installed.
 */
const PASSWORD = 'correct horse battery staple';

describe(`the Reports page's downloads in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(90_000);
  let browser: Browser | undefined;
  let server: TestServer;
  let dir: string;

  before(async function () {
    if (!available) {
      console.warn(`browser/report-export.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    browser = await sharedBrowser();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-downloads-'));
  });
  after(async () => {
    await closeContexts();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => server?.close());

  it('downloads the entries as CSV, the summary as Excel and the timesheet as PDF, each with what the page shows', async () => {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Harbour site', hourlyRate: 90, billable: true } }))
      .body.data;
    for (const [start, end, description] of [
      ['2026-11-23T09:00:00+01:00', '2026-11-23T10:30:00+01:00', 'Planning'],
      ['2026-11-24T14:00:00+01:00', '2026-11-24T15:00:00+01:00', '=HYPERLINK("http://example.invalid")'],
    ] as const) {
      const r = await server.request('POST', '/api/v1/entries', { json: { start, end, description, projectId: project.id } });
      expect(r.status).to.equal(200);
    }
    const context = await (browser as Browser).newContext({ acceptDownloads: true, timezoneId: 'Europe/Berlin' });
    const page: Page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill('owner@localhost');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.goto(`${server.url}/app/reports?from=2026-11-23&to=2026-11-29&groupBy=project`);

    const save = async (what: string, button: string) => {
      await page.getByLabel('What').selectOption(what);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button, exact: true }).click(),
      ]);
      const file = join(dir, download.suggestedFilename());
      await download.saveAs(file);
      expect(await download.failure()).to.equal(null);
      return { name: download.suggestedFilename(), file };
    };

    const csv = await save('detailed', 'CSV');
    expect(csv.name).to.equal('timetrack-entries-2026-11-23-to-2026-11-29.csv');
    const lines = readFileSync(csv.file, 'utf8').split('\r\n');
    expect(lines[0]).to.equal('\ufeffDate,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable,Rate,Amount');
    expect(lines[1]).to.equal('2026-11-23,2026-11-23 09:00:00,2026-11-23 10:30:00,1.50,Owner,,Harbour site,,,Planning,yes,90.00,135.00');
    expect(lines[2]).to.include(`,"'=HYPERLINK(""http://example.invalid"")",`);

    const xlsx = await save('summary', 'Excel');
    expect(xlsx.name).to.equal('timetrack-summary-2026-11-23-to-2026-11-29.xlsx');
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(xlsx.file);
    const sheet = book.getWorksheet('Summary') as ExcelJS.Worksheet;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).to.deep.equal(['Project', 'Hours', 'Billable hours', 'Entries', 'Amount']);
    expect((sheet.getRow(2).values as unknown[]).slice(1, 2)).to.deep.equal(['Harbour site']);
    expect(sheet.getRow(2).getCell(5).value).to.equal(225);

    const pdf = await save('weekly', 'PDF');
    expect(pdf.name).to.equal('timetrack-timesheet-2026-11-23-to-2026-11-29.pdf');
    const text = execFileSync('pdftotext', ['-layout', pdf.file, '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ');
    for (const part of ['Timesheet', 'Week of Mon 23 Nov 2026', 'Harbour site', '1:30', '1:00', 'Total time 2:30'])
      expect(text, part).to.include(part);
    // Not for one client: no lines for a client to sign (issue 58).
    expect(text).not.to.include('Approved by (client)');
    expect(problems).to.deep.equal([]);
    await context.close();
  });
});
