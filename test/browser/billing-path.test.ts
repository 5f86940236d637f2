import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { OPERATOR } from '../../src/principal.js';
import { poppler, requireTools } from '../einvoice/tools.js';
import { freelancer } from '../helpers/invoices.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';

/**
 * Billing as a German freelancer does it, in headless Chromium (issue 57's path): an expense with
 * its receipt (a real PNG through the file input) on /app/expenses, time on two projects at 19 %
 * and 7 %, a draft for the client from the invoices page that carries the expense and a line at
 * each rate, issued, a partial payment recorded on its page, the amount due falling, and every
 * document the page offers downloaded (status, type, first bytes; the due amount BT-115 and the
 * paid amount BT-113 in each XML, the Factur-X PDF's own included). Only 127.0.0.1.
 *
 * The invoice page's body (the new-invoice form, lines, payments, documents) is being put into
 * German while this is written: there the test finds fields by their ids and the documents by
 * their format's name, not by English words, and reads sums from the invoices list (German).
 */
const PASSWORD = 'correct horse battery staple';

describe(`billing's path in German in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(180_000);
  let browser: Browser | undefined;
  let server: TestServer;
  let dir: string;

  before(async function () {
    if (!available) {
      console.warn(`browser/billing-path.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    requireTools();
    dir = mkdtempSync(join(tmpdir(), 'timetrack-billing-path-'));
    browser = await sharedBrowser();
    server = await startTestServer();
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
  });
  after(async () => {
    await closeContexts();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Full-page screenshots at 1280 and 390 px into SCREENSHOTS_DIR, when it is set (to look at the path's pages). */
  async function shoot(page: Page, name: string) {
    const out = process.env.SCREENSHOTS_DIR;
    if (!out) return;
    mkdirSync(out, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.screenshot({ path: join(out, `de-${width}-${name}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** The invoice's row in the invoices list (German): its amount due as the list prints it. */
  async function dueInList(page: Page, number: string): Promise<string> {
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Rechnungen' }).click();
    const row = page.locator('table.invoices tbody tr', { has: page.locator('td[data-label="Nummer"]', { hasText: number }) });
    return (await row.locator('td[data-label="Offen"]').innerText()).replace(/\s+/g, ' ');
  }

  it('adds an expense with a receipt, invoices it with time at 19 % and 7 %, records a partial payment and downloads every format', async () => {
    const { services, workspaceId } = server;
    services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday', language: 'de' });
    // Acme, and Relaunch: 10 hours of October at 95 (EUR 950.00 net).
    const { projectId: consulting, clientId } = freelancer(server);
    // Time on a second project: a book's text, 2 × 3 hours at 80 (EUR 480.00 net), through the REST API as a timer app records it.
    const book = (
      await server.request('POST', '/api/v1/projects', { json: { name: 'Lektorat', clientId, billable: true, hourlyRate: 80 } })
    ).body.data.id as string;
    for (const day of ['12', '13'])
      expect(
        (
          await server.request('POST', '/api/v1/entries', {
            json: {
              projectId: book,
              start: `2026-10-${day}T08:00:00Z`,
              end: `2026-10-${day}T11:00:00Z`,
              description: `Lektorat ${day}`,
              billable: true,
            },
          })
        ).status,
      ).to.equal(200);
    // Each project's own rate, as `timetrack workspace invoicing W --project P --set taxCategory=S --set taxRate=…` sets it.
    services.invoices.setWorkTax(OPERATOR, workspaceId, { kind: 'project', id: consulting }, { taxCategory: 'S', taxRate: '19' });
    services.invoices.setWorkTax(OPERATOR, workspaceId, { kind: 'project', id: book }, { taxCategory: 'S', taxRate: '7' });
    // Invoices in German (`workspace invoicing W --set language=de`).
    services.invoices.setSettings(OPERATOR, workspaceId, { language: 'de' });

    const context = await (browser as Browser).newContext({
      acceptDownloads: true,
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url)) foreign.push(r.url());
    });
    // The sign-in form by its fields (its words are not this test's).
    await page.goto(`${server.url}/settings/sign-in`);
    await page.locator('#email').fill('owner@localhost');
    await page.locator('#password').fill(PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/app/week`), page.locator('form button[type=submit]').last().click()]);
    expect(await page.locator('html').getAttribute('lang')).to.equal('de');

    // A receipt: a real PNG (a picture of the page's corner), as a phone's photo of a ticket would be.
    const receipt = await page.screenshot({ clip: { x: 0, y: 0, width: 120, height: 80 } });
    expect([...receipt.subarray(0, 8)]).to.deep.equal([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    // The expense: a train ticket for the consulting, net 89,90 at the invoice's rate, with its receipt.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Auslagen' }).click();
    const add = page.locator('section', { has: page.getByRole('heading', { name: 'Auslage erfassen' }) });
    await add.getByLabel('Tag').fill('2026-10-20');
    await add.getByLabel('Beschreibung').fill('Bahnfahrt Berlin–Leipzig');
    await add.getByLabel('Nettobetrag').fill('89,90');
    await add.getByLabel('Projekt').selectOption({ label: 'Relaunch · Acme' });
    await add.getByLabel('Beleg').setInputFiles({ name: 'fahrkarte.png', mimeType: 'image/png', buffer: receipt });
    await add.getByRole('button', { name: 'Auslage hinzufügen' }).click();
    await page.getByText('Auslage erfasst: Bahnfahrt Berlin–Leipzig, 89,90 €.').waitFor();
    // October's list: the expense, open (its author may still edit it), with its receipt, which downloads as it was sent.
    await page.getByLabel('Monat').fill('2026-10');
    await page.getByRole('button', { name: 'Anzeigen' }).click();
    const expenseRow = page.locator('tr', { hasText: 'Bahnfahrt Berlin–Leipzig' });
    // Its status, and a link to change it while it is on no invoice.
    expect(await expenseRow.locator('td[data-label="Status"]').innerText()).to.equal('Offen · Bearbeiten');
    const [receiptDownload] = await Promise.all([
      page.waitForEvent('download'),
      expenseRow.getByRole('link', { name: 'fahrkarte.png' }).click(),
    ]);
    expect(readFileSync((await receiptDownload.path()) as string).equals(receipt)).to.equal(true);
    await shoot(page, 'expenses');

    // The draft for Acme from the invoices page: October, last month, is the form's default.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Rechnungen' }).click();
    await page.getByRole('link', { name: 'Neue Rechnung' }).first().click();
    await page.locator('#invoice-client').selectOption({ label: 'Acme' });
    expect(await page.locator('#invoice-from').inputValue()).to.equal('2026-10-01');
    expect(await page.locator('#invoice-to').inputValue()).to.equal('2026-10-31');
    await Promise.all([page.waitForURL(/\/app\/invoices\/inv_[\w-]+$/), page.locator('button[name=intent][value=create]').click()]);
    // Its lines: both projects' time, each at its rate, and the expense at the invoice's 19 %.
    const lines = await page
      .locator('table.lines tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll('td')].slice(0, 4).map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())),
      );
    expect(lines.map(([description, , , vat]) => [description, vat])).to.deep.equal([
      ['Lektorat', 'S 7 %'],
      ['Relaunch', 'S 19 %'],
      ['20.10.2026 Bahnfahrt Berlin–Leipzig', 'S 19 %'],
    ]);
    const breakdown = await page.locator('table.breakdown tbody tr td[data-label="Satz"]').allInnerTexts();
    expect(breakdown.map((r) => r.trim())).to.have.members(['19 %', '7 %']);
    await shoot(page, 'invoice-draft');

    // Issued from its page (German actions).
    await page.getByRole('button', { name: 'Rechnung stellen…' }).click();
    await Promise.all([
      page.waitForURL(/\/app\/invoices\/inv_[\w-]+$/),
      page.getByRole('button', { name: 'Rechnung stellen', exact: true }).click(),
    ]);
    const invoiceUrl = page.url();
    const id = invoiceUrl.split('/').at(-1) as string;
    const issued = services.invoices.get(OPERATOR, id);
    expect([issued.number, issued.status, issued.netTotal, issued.taxTotal, issued.grossTotal]).to.deep.equal([
      '2026-0001',
      'sent',
      1519.9,
      231.18,
      1751.08,
    ]);
    expect(await dueInList(page, '2026-0001')).to.equal('1.751,08 €');
    // The expense is on the invoice now.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Auslagen' }).click();
    await page.getByLabel('Monat').fill('2026-10');
    await page.getByRole('button', { name: 'Anzeigen' }).click();
    expect(await expenseRow.locator('td[data-label="Status"]').innerText()).to.equal('Auf einer Rechnung');

    // A partial payment on the invoice's page: 500 of 1,751.08 (prefilled with all that is due).
    await page.goto(invoiceUrl);
    // What is still due, as the Payments section prints it (English today, German once the page's body is translated).
    const stillDue = page.locator('section.payments dl.totals dd strong');
    expect(await stillDue.innerText()).to.match(/^(EUR\s1,751\.08|1\.751,08\s€)$/);
    const payment = page.locator('form[action$="/payments"]');
    expect(await payment.locator('input[name=amount]').inputValue()).to.match(/^1[.,]?751[.,]08$/);
    await payment.locator('input[name=amount]').fill('500');
    await payment.locator('input[name=date]').fill('2026-11-02');
    await Promise.all([page.waitForURL(invoiceUrl), payment.locator('button[type=submit]').click()]);
    expect(await page.locator('table.payments tbody tr').count()).to.equal(1);
    expect(await stillDue.innerText()).to.match(/^(EUR\s1,251\.08|1\.251,08\s€)$/);
    expect(services.invoices.get(OPERATOR, id)).to.include({ status: 'sent', amountDue: 1251.08 });
    await shoot(page, 'invoice-paid-in-part');
    expect(await dueInList(page, '2026-0001')).to.equal('1.251,08 €');
    await shoot(page, 'invoices');

    // Every document the page offers, each by its format's name: status, type, first bytes.
    await page.goto(invoiceUrl);
    const offered = await page
      .locator('li.document a[download]')
      .evaluateAll((links) => links.map((a) => (a.querySelector('.vh')?.textContent ?? '').trim()));
    expect(offered).to.deep.equal([
      'PDF (Factur-X / ZUGFeRD EN 16931)',
      'XRechnung 3.0, UBL',
      'XRechnung 3.0, CII',
      'Peppol BIS Billing 3.0',
    ]);
    const files: Record<string, { file: string; name: string; status: number; type: string }> = {};
    for (const format of offered) {
      const link = page.locator('li.document', { has: page.locator('.doc-name', { hasText: format }) }).locator('a[download]');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const file = join(dir, download.suggestedFilename());
      await download.saveAs(file);
      // A download's answer is not a page's response: the same link fetched again with the page's session says its status and type.
      const again = await page.request.get(new URL((await link.getAttribute('href')) as string, page.url()).href);
      expect((await again.body()).equals(readFileSync(file)), format).to.equal(true);
      files[format] = { file, name: download.suggestedFilename(), status: again.status(), type: again.headers()['content-type'] ?? '' };
    }
    const head = (format: string, n: number) => readFileSync(files[format]!.file).subarray(0, n).toString('latin1');
    const pdf = files['PDF (Factur-X / ZUGFeRD EN 16931)']!;
    expect([pdf.name, pdf.status, pdf.type, head('PDF (Factur-X / ZUGFeRD EN 16931)', 5)]).to.deep.equal([
      '2026-0001.pdf',
      200,
      'application/pdf',
      '%PDF-',
    ]);
    for (const [format, suffix] of [
      ['XRechnung 3.0, UBL', 'xrechnung-ubl'],
      ['XRechnung 3.0, CII', 'xrechnung-cii'],
      ['Peppol BIS Billing 3.0', 'peppol'],
    ] as const) {
      const xml = files[format]!;
      expect([xml.name, xml.status, xml.type.split(';')[0], head(format, 5)], format).to.deep.equal([
        `2026-0001-${suffix}.xml`,
        200,
        'application/xml',
        '<?xml',
      ]);
    }
    // The amounts on the documents: paid 500.00 (BT-113), 1,251.08 due (BT-115); the Factur-X PDF's XML too.
    poppler('pdfdetach', '-saveall', '-o', dir, pdf.file);
    const xmlOf = (file: string) => readFileSync(file, 'utf8');
    const ubl = (file: string) => {
      const text = xmlOf(file);
      return [
        /<cbc:PrepaidAmount currencyID="EUR">([^<]+)</.exec(text)?.[1],
        /<cbc:PayableAmount currencyID="EUR">([^<]+)</.exec(text)?.[1],
      ];
    };
    const cii = (file: string) => {
      const text = xmlOf(file);
      return [/<ram:TotalPrepaidAmount>([^<]+)</.exec(text)?.[1], /<ram:DuePayableAmount>([^<]+)</.exec(text)?.[1]];
    };
    expect(ubl(files['XRechnung 3.0, UBL']!.file)).to.deep.equal(['500.00', '1251.08']);
    expect(ubl(files['Peppol BIS Billing 3.0']!.file)).to.deep.equal(['500.00', '1251.08']);
    expect(cii(files['XRechnung 3.0, CII']!.file)).to.deep.equal(['500.00', '1251.08']);
    expect(cii(join(dir, 'factur-x.xml'))).to.deep.equal(['500.00', '1251.08']);
    // The PDF, in German: the expense, a VAT row per rate, what was paid and what is due.
    const text = poppler('pdftotext', '-layout', pdf.file, '-').replace(/\s+/g, ' ');
    for (const part of [
      'Rechnung',
      '20.10.2026 Bahnfahrt Berlin–Leipzig 1 Stk. 89,90 €',
      'USt. 7 % auf 480,00 € 33,60 €',
      'USt. 19 % auf 1.039,90 € 197,58 €',
      'Gesamtbetrag 1.751,08 € Bezahlt 500,00 € Zu zahlen 1.251,08 €',
    ])
      expect(text, part).to.include(part);

    expect(problems).to.deep.equal([]);
    expect(foreign).to.deep.equal([]);
    await context.close();
  });
});
