/*
 * Screenshots of the Invoices pages: `npx tsx scripts/invoice-screenshots.ts` starts the server
 * as the tests do (temp SQLite file, manual clock on 5 November 2026, 127.0.0.1 only) with a
 * freelancer's October (test/helpers/invoices.ts) and two more clients, signs in in Debian's
 * Chromium and writes, at desktop (1280×900) and phone (390×844) width, full page, to docs/app/:
 * the list with a credit note (invoices-list), a new invoice with its preview
 * (invoices-new-preview), an issued invoice with its documents, its Send form showing the whole
 * mail and one send recorded (invoices-issued; mail goes to a test relay on 127.0.0.1), one
 * whose e-invoices lack values (invoices-missing), and the Issue form of a draft in Swiss francs
 * asking for the exchange rate and refusing a rate that is not a positive decimal
 * (invoices-issue-rate, invoices-issue-rate-refused); and page 1 of the issued invoice's PDF
 * (pdftoppm) as invoice-pdf.png.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { renderDocument } from '../src/modules/invoices/documents/index.js';
import { OPERATOR } from '../src/principal.js';
import { freelancer } from '../test/helpers/invoices.js';
import { startTestServer } from '../test/helpers/server.js';
import { plainUrl, startRelay } from '../test/helpers/smtp.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../docs/app/', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const NOW = Date.parse('2026-11-05T10:12:07Z');

async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${OUT}${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${OUT}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  console.log(`docs/app/${name}-{desktop,phone}.png`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const relay = await startRelay();
  const server = await startTestServer({ now: NOW, env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
  const { services, workspaceId, ownerId } = server;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const scratch = mkdtempSync(join(tmpdir(), 'timetrack-invoice-shots-'));
  try {
    services.accounts.setUser(OPERATOR, ownerId, { name: 'Ada Lovelace', email: 'ada@example.org' });
    services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    const { owner, clientId, projectId } = freelancer(server);
    const { catalog, entries, invoices } = services;
    const task = catalog.tasks.create(owner, { projectId, name: 'Design system', hourlyRate: 110 });
    const entry = (project: string, day: string, from: string, to: string, description: string, taskId?: string) =>
      entries.create(owner, {
        projectId: project,
        ...(taskId ? { taskId } : {}),
        start: `2026-10-${day}T${from}:00Z`,
        end: `2026-10-${day}T${to}:00Z`,
        description,
        billable: true,
      });
    for (const day of ['12', '13', '14']) entry(projectId, day, '08:00', '12:30', 'Components', task.id);
    // A client whose e-invoice values are not set yet (no buyer reference, an email address).
    const harbour = catalog.clients.create(owner, {
      name: 'Hafenamt',
      legalName: 'Hafenamt Kiel',
      addressLines: ['Am Kai 3'],
      postalCode: '24103',
      city: 'Kiel',
      country: 'DE',
      electronicAddress: 'rechnung@hafenamt.example',
      electronicAddressScheme: 'EM',
    } as never).id;
    const map = catalog.projects.create(owner, { name: 'Harbour map', clientId: harbour, billable: true, hourlyRate: 85 }).id;
    for (const day of ['19', '20', '21', '22']) entry(map, day, '09:00', '15:00', 'Map component');
    // A client still to invoice, for the preview.
    const lighthouse = catalog.clients.create(owner, { name: 'Lighthouse Coffee', city: 'Hamburg', country: 'DE' } as never).id;
    const shop = catalog.projects.create(owner, { name: 'Shop relaunch', clientId: lighthouse, billable: true, hourlyRate: 90 }).id;
    const photos = catalog.projects.create(owner, { name: 'Product photos', clientId: lighthouse, billable: true, hourlyRate: 70 }).id;
    for (const day of ['06', '07', '26', '27']) entry(shop, day, '13:00', '17:15', 'Checkout flow');
    for (const day of ['28', '29']) entry(photos, day, '09:00', '12:00', 'Shoot and edit');

    // September's, paid.
    const old = catalog.projects.create(owner, { name: 'Audit', clientId, billable: true, hourlyRate: 95 }).id;
    entries.create(owner, {
      projectId: old,
      start: '2026-09-10T09:00:00Z',
      end: '2026-09-10T15:00:00Z',
      description: 'Audit',
      billable: true,
    });
    const paid = invoices.create(owner, { workspaceId, clientId, from: '2026-09-01', to: '2026-09-30' }).id;
    invoices.issue(owner, paid, { date: '2026-10-01' });
    invoices.markPaid(owner, paid, { date: '2026-10-09' });

    const month = { workspaceId, from: '2026-10-01', to: '2026-10-31', groupBy: 'task' as const };
    const acme = invoices.create(owner, { ...month, clientId, note: 'Relaunch, phase 2' }).id;
    invoices.issue(owner, acme, { date: '2026-11-02' });
    const kiel = invoices.create(owner, { ...month, clientId: harbour }).id;
    invoices.issue(owner, kiel, { date: '2026-11-03' });
    // Lighthouse's September, issued and voided into its credit note (a row of the list).
    const beans = catalog.projects.create(owner, { name: 'Beans', clientId: lighthouse, billable: true, hourlyRate: 80 }).id;
    entries.create(owner, {
      projectId: beans,
      start: '2026-09-15T09:00:00Z',
      end: '2026-09-15T12:00:00Z',
      description: 'Labels',
      billable: true,
    });
    const voided = invoices.create(owner, { workspaceId, clientId: lighthouse, from: '2026-09-01', to: '2026-09-30' }).id;
    invoices.issue(owner, voided, { date: '2026-11-04' });
    invoices.void(owner, voided, { date: '2026-11-04' });
    // Acme's October, mailed once already: its send is recorded on its page.
    await invoices.send(owner, acme, { to: 'billing@acme.example', xml: 'xrechnung-ubl', message: null });
    await server.running.scheduler.tick();
    await relay.until(1);
    await services.mail.idle();
    // A Swiss client invoiced in francs (the workspace's currency when the draft was made): the
    // issuer accounts for VAT in euros, so issuing asks for the exchange rate.
    const zurich = catalog.clients.create(owner, {
      name: 'Zürich Design',
      legalName: 'Zürich Design GmbH',
      addressLines: ['Bahnhofstrasse 1'],
      postalCode: '8001',
      city: 'Zürich',
      country: 'CH',
    } as never).id;
    const poster = catalog.projects.create(owner, { name: 'Poster series', clientId: zurich, billable: true, hourlyRate: 120 }).id;
    for (const day of ['15', '16']) entry(poster, day, '09:00', '13:20', 'Poster layouts');
    services.accounts.setWorkspace(OPERATOR, workspaceId, { currency: 'CHF' });
    const francs = invoices.create(owner, { ...month, clientId: zurich }).id;
    services.accounts.setWorkspace(OPERATOR, workspaceId, { currency: 'EUR' });
    // Lighthouse rounds each entry up to 15 minutes (issue 56 item 4): the preview says so, with the time tracked and invoiced.
    invoices.setClientRounding(owner, workspaceId, lighthouse, 'up-15');
    entry(shop, '30', '16:00', '16:07', 'Hotfix: coupon field');
    const page = await (await browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Berlin' })).newPage();
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill('ada@example.org');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.goto(`${server.url}/app/invoices`);
    await shoot(page, 'invoices-list');
    await page.goto(`${server.url}/app/invoices/new`);
    await page.getByLabel('Client').selectOption({ label: 'Lighthouse Coffee' });
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Preview' }).click()]);
    await shoot(page, 'invoices-new-preview');
    await page.goto(`${server.url}/app/invoices/${acme}`);
    await shoot(page, 'invoices-issued');
    await page.goto(`${server.url}/app/invoices/${kiel}`);
    await shoot(page, 'invoices-missing');
    await page.goto(`${server.url}/app/invoices/${francs}/issue`);
    await shoot(page, 'invoices-issue-rate');
    await page.getByLabel(/^Exchange rate/).fill('0');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Issue' }).click()]);
    await shoot(page, 'invoices-issue-rate-refused');

    const pdf = join(scratch, 'invoice.pdf');
    writeFileSync(pdf, await renderDocument(invoices.get(OPERATOR, acme), 'pdf'));
    execFileSync('pdftoppm', ['-r', '80', '-f', '1', '-l', '1', '-singlefile', '-png', pdf, join(OUT, 'invoice-pdf')]);
    console.log('docs/app/invoice-pdf.png');
  } finally {
    await browser.close();
    await server.close();
    await relay.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
