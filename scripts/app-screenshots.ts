/*
 * Screenshots of the web app: `npm run screenshots` starts the server as the tests do (temp
 * SQLite file, manual clock set to a Wednesday, 127.0.0.1 only) with a week of realistic entries
 * in Europe/Berlin, projects and a running timer, signs in in Debian's Chromium and writes each
 * page at desktop (1280×900) and phone (390×844) width, full page, to docs/app/<page>-desktop.png
 * and <page>-phone.png. The working day's pages (week, running timer, suggestions, quick entry,
 * another timer, timesheet) also in the dark scheme: <page>-dark-desktop.png and <page>-dark-phone.png.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { OPERATOR } from '../src/principal.js';
import { startTestServer } from '../test/helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../docs/app/', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const NOW = Date.parse('2026-11-25T14:12:07Z');

async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${OUT}${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${OUT}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  console.log(`docs/app/${name}-{desktop,phone}.png`);
}

/** The page in the light scheme and then the dark one (the system's, which the app follows by default). */
async function shootSchemes(page: Page, name: string, part?: string, below?: number): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = scheme === 'light' ? name : `${name}-dark`;
    if (part === undefined) {
      await shoot(page, file);
      continue;
    }
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      // The part and what hangs below it (a list of suggestions), not the whole page.
      const box = await page.locator(part).boundingBox();
      if (box === null) throw new Error(`${part} is not on the page`);
      await page.screenshot({
        path: `${OUT}${file}-${size}.png`,
        fullPage: true,
        clip: { x: 0, y: Math.max(0, box.y - 8), width: viewport.width, height: box.height + (below ?? 16) },
      });
    }
    await page.setViewportSize(DESKTOP);
    console.log(`docs/app/${file}-{desktop,phone}.png`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const server = await startTestServer({ now: NOW });
  const { services, workspaceId, ownerId } = server;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    services.accounts.setUser(OPERATOR, ownerId, { name: 'Maya Fischer', email: 'maya@northwind.example' });
    services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    const actor = {
      kind: 'member',
      tokenId: null,
      workspaceId,
      userId: ownerId,
      scopes: new Set(),
      canViewOthersTime: true,
      canViewOthersMoney: true,
      isOwner: true,
      currency: 'EUR',
    } as never;
    const client = services.catalog.clients.create(actor, { name: 'Hafenamt' });
    const site = services.catalog.projects.create(actor, { name: 'Harbour website', clientId: client.id, color: '#0b57d0' });
    const brand = services.catalog.projects.create(actor, { name: 'Brand refresh', color: '#1a7f37' });
    services.catalog.tasks.create(actor, { projectId: site.id, name: 'Map component', estimateSec: 8 * 3600 });
    services.catalog.tasks.create(actor, { projectId: site.id, name: 'Navigation' });
    services.catalog.tags.create(actor, { name: 'meeting' });
    services.catalog.tags.create(actor, { name: 'onsite' });
    const add = (day: string, from: string, to: string, description: string, projectId: string | null) =>
      services.entries.create(actor, {
        start: `2026-11-${day}T${from}:00+01:00`,
        end: `2026-11-${day}T${to}:00+01:00`,
        description,
        projectId,
        source: 'web',
      });
    add('23', '09:00', '10:30', 'Sprint planning', site.id);
    add('23', '10:45', '12:30', 'Navigation prototype', site.id);
    add('23', '13:30', '17:10', 'Logo explorations', brand.id);
    add('24', '08:30', '11:00', 'Accessibility review', site.id);
    add('24', '11:15', '12:00', 'Client call', null);
    add('24', '13:00', '16:45', 'Typography system', brand.id);
    add('25', '09:10', '12:20', 'Harbour map component', site.id);
    services.timers.start(actor, { description: 'Photo selection', projectId: brand.id, start: '2026-11-25T14:02:00+01:00' }, 'web');

    const page = await (await browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Berlin', locale: 'en-GB' })).newPage();
    // The page's clock is the server's (a running timer ticks from it, not from today's date).
    await page.clock.setFixedTime(NOW);
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill('maya@northwind.example');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.goto(`${server.url}/app/week`);
    await page.waitForSelector('#live-status:not(:empty)');
    await shootSchemes(page, 'week');
    // The running timer, edited in place: its project list open, filtered by what was typed.
    await page
      .locator('.timer.running input.picker-filter')
      .fill('har')
      .catch(() => undefined);
    await shootSchemes(page, 'timer-running', 'div.timer.running');
    // Another timer while one runs (n): its own form under the running one, quick entry typed in it.
    await page.goto(`${server.url}/app/week`);
    await page.locator('h1').click();
    await page.keyboard.press('n');
    await page.keyboard.type('Harbour map review @Har', { delay: 30 });
    await page.locator('#next-description-list li').first().waitFor();
    await shootSchemes(page, 'next-timer', 'details.next-timer', 150);
    await page.goto(`${server.url}/app/week`);
    // An entry opened for editing, with a refused end time (before its start, on the same day).
    await page.getByText('Accessibility review').click();
    const form = page.getByRole('form', { name: /^Edit entry 08:30/ });
    await form.getByLabel('End', { exact: true }).fill('08:00');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Did you mean the next day?').first().waitFor();
    await shoot(page, 'week-edit-refused');
    // Suggestions while typing a new timer's description: the member's own past entries.
    services.timers.stop(actor, {});
    await page.goto(`${server.url}/app/week`);
    await page.locator('#timer-description').pressSequentially('Na', { delay: 50 });
    await page.locator('#timer-description-list li').first().waitFor();
    await shootSchemes(page, 'suggestions', 'form.timer', 150);
    // Quick entry: @ offers the projects and their tasks (one chosen by keyboard sets the pickers), then # the tags.
    await page.goto(`${server.url}/app/week`);
    await page.locator('#timer-description').pressSequentially('Site walk @harb', { delay: 20 });
    await page.locator('#timer-description-list li').nth(1).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.keyboard.type('#', { delay: 20 });
    await page.locator('#timer-description-list li').first().waitFor();
    await shootSchemes(page, 'quick-entry', 'form.timer', 150);
    // The timesheet: projects by the week's days.
    await page.goto(`${server.url}/app/timesheet?date=2026-11-25`);
    await shootSchemes(page, 'timesheet');
    services.catalog.projects.update(actor, site.id, { budgetAmount: 4000, hourlyRate: 92.5 });
    for (const name of ['catalog', 'profile']) {
      await page.goto(`${server.url}/app/${name}`);
      await shoot(page, name);
    }
    // A client's invoicing details, opened: a German public body, addressed by its Leitweg-ID (0204).
    services.catalog.clients.update(actor, client.id, {
      legalName: 'Hafenamt der Freien und Hansestadt Hamburg',
      addressLines: ['Kaistraße 7', 'Haus B'],
      postalCode: '20457',
      city: 'Hamburg',
      country: 'DE',
      vatId: 'DE129273398',
      email: 'rechnungen@hafenamt.example',
      reference: '04011000-12345-03',
      electronicAddress: '04011000-12345-03',
      electronicAddressScheme: '0204',
    });
    // Its own rounding rule over the workspace's (issue 56 item 4): the workspace rounds up to 15 minutes, this client to the nearest 6.
    services.invoices.setSettings(OPERATOR, workspaceId, { rounding: 'up-15' });
    services.invoices.setClientRounding(OPERATOR, workspaceId, client.id, 'nearest-6');
    await page.goto(`${server.url}/app/catalog`);
    const clients = page.locator('section.catalog').first();
    await clients.locator('summary', { hasText: 'Hafenamt' }).first().click();
    await clients.locator('details.invoicing summary').first().click();
    await page.mouse.move(0, 0);
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      // The clients' section with the page's margin around it.
      const box = (await clients.boundingBox())!;
      const y = box.y + (await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)) - 16;
      const clip = { x: 0, y, width: viewport.width, height: box.height + 32 };
      await page.screenshot({ path: `${OUT}catalog-client-invoicing-${size}.png`, fullPage: true, clip });
    }
    await page.setViewportSize(DESKTOP);
    console.log('docs/app/catalog-client-invoicing-{desktop,phone}.png');
    // The week's report: by project, then client, its days as a chart and its entries.
    await page.goto(`${server.url}/app/reports?from=2026-11-23&to=2026-11-29&groupBy=project&subGroupBy=client`);
    await shoot(page, 'reports');
    // The same week filtered: one project, not billable, its filters open and named above the totals.
    await page.goto(`${server.url}/app/reports?from=2026-11-23&to=2026-11-29&groupBy=project&projectIds=${site.id}&billable=false`);
    await shoot(page, 'reports-filtered');
    // October by client, then project: thirteen projects of one client, the ten largest shown and the rest in one row.
    for (let i = 1; i <= 13; i++) {
      const harbour = services.catalog.projects.create(actor, { name: `Pier ${i} survey`, clientId: client.id });
      const day = String(i + 5).padStart(2, '0');
      services.entries.create(actor, {
        start: `2026-10-${day}T09:00:00+02:00`,
        end: `2026-10-${day}T${String(9 + Math.ceil(i / 2)).padStart(2, '0')}:${i % 2 === 0 ? '00' : '30'}:00+02:00`,
        description: `Survey of pier ${i}`,
        projectId: harbour.id,
        source: 'web',
      });
    }
    await page.goto(`${server.url}/app/reports?from=2026-10-01&to=2026-10-31&groupBy=client&subGroupBy=project`);
    await shoot(page, 'reports-largest');
    // The week rounded as invoices round it (issue 56 item 4): Hafenamt's entries to the nearest 6 minutes, the others up to 15.
    await page.goto(`${server.url}/app/reports?from=2026-11-23&to=2026-11-29&groupBy=project&rounded=1`);
    await shoot(page, 'reports-rounded');
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
