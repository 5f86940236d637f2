/*
 * Screenshots of approval and lock (decisions §13): `npx tsx scripts/approval-screenshots.ts`
 * starts the server as the tests do (temp SQLite file, manual clock on Wednesday 25 November
 * 2026, 127.0.0.1 only) with a workspace that approves by week and locks time before 1 November,
 * signs in in Debian's Chromium and writes, at desktop (1280×900) and phone (390×844) width, full
 * page, to docs/app/: a member's submitted week (approval-week), their rejected week with the
 * approver's note (approval-week-rejected), the timesheet of the submitted week
 * (approval-timesheet), the Approvals page of an owner with a colleague's waiting week
 * (approvals), a period's page with its history (approval-period) and the Workspace page's
 * Approval and lock section (workspace-approval).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type Actor, OPERATOR } from '../src/principal.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../docs/app/', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const NOW = Date.parse('2026-11-25T13:12:07Z');

async function shoot(page: Page, name: string, part?: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    const path = `${OUT}${name}-${size}.png`;
    if (part === undefined) await page.screenshot({ path, fullPage: true });
    else await page.locator(part).screenshot({ path });
  }
  await page.setViewportSize(DESKTOP);
  console.log(`docs/app/${name}-{desktop,phone}.png`);
}

async function signedIn(browser: Browser, server: TestServer, email: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: DESKTOP, timezoneId: 'Europe/Berlin', locale: 'en-GB' })).newPage();
  await page.clock.setFixedTime(NOW);
  await page.goto(`${server.url}/settings/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
  return page;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const server = await startTestServer({ now: NOW });
  const { services, workspaceId, ownerId } = server;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    services.accounts.setUser(OPERATOR, ownerId, { name: 'Maya Fischer', email: 'maya@northwind.example' });
    services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    services.accounts.setWorkspace(OPERATOR, workspaceId, { name: 'Northwind Studio' });
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    const jonas = services.accounts.createUser(OPERATOR, { name: 'Jonas Weber', email: 'jonas@northwind.example' });
    services.accounts.addMember(OPERATOR, { workspaceId, userId: jonas.id, hourlyRate: 85 });
    services.accounts.setPreferences(OPERATOR, jonas.id, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    await services.sessions.setPassword(OPERATOR, jonas.id, PASSWORD);
    const lea = services.accounts.createUser(OPERATOR, { name: 'Lea Hoffmann', email: 'lea@northwind.example' });
    services.accounts.addMember(OPERATOR, { workspaceId, userId: lea.id, canViewOthersTime: true });
    const actorOf = (userId: string, isOwner: boolean): Actor => ({
      kind: 'member',
      tokenId: null,
      workspaceId,
      userId,
      scopes: new Set(),
      canViewOthersTime: isOwner,
      canViewOthersMoney: isOwner,
      isOwner,
      currency: 'EUR',
    });
    const maya = actorOf(ownerId, true);
    const member = actorOf(jonas.id, false);
    const client = services.catalog.clients.create(maya, { name: 'Hafenamt' });
    const site = services.catalog.projects.create(maya, {
      name: 'Harbour website',
      clientId: client.id,
      color: '#0b57d0',
      billable: true,
    });
    const brand = services.catalog.projects.create(maya, { name: 'Brand refresh', color: '#1a7f37', billable: true });
    const add = (day: string, from: string, to: string, description: string, projectId: string | null) =>
      services.entries.create(member, {
        start: `2026-11-${day}T${from}:00+01:00`,
        end: `2026-11-${day}T${to}:00+01:00`,
        description,
        projectId,
        source: 'web',
      });
    add('09', '09:00', '12:30', 'Sitemap and navigation', site.id);
    add('10', '13:00', '17:00', 'Logo explorations', brand.id);
    add('12', '09:15', '11:45', 'Client workshop', site.id);
    add('16', '09:00', '10:30', 'Sprint planning', site.id);
    add('16', '10:45', '13:15', 'Navigation prototype', site.id);
    add('17', '08:30', '12:00', 'Accessibility review', site.id);
    add('18', '13:00', '16:45', 'Typography system', brand.id);
    add('19', '09:10', '12:20', 'Harbour map component', site.id);
    add('20', '09:00', '11:00', 'Photo selection', brand.id);
    services.approvals.setSettings(OPERATOR, workspaceId, { approval: 'weekly', lockedBefore: '2026-11-01' });
    services.approvals.setApprover(OPERATOR, { workspaceId, userId: lea.id, approver: true });
    // The week of 9 November: submitted, rejected with a note. The week of 16 November: waiting.
    server.clock.set(Date.parse('2026-11-16T08:05:00Z'));
    const earlier = services.approvals.submit(member, { day: '2026-11-09' });
    server.clock.set(Date.parse('2026-11-16T15:40:00Z'));
    services.approvals.reject(maya, earlier.id, { note: 'Thursday’s workshop ran until 12:30, please correct it.' });
    server.clock.set(Date.parse('2026-11-23T08:02:00Z'));
    const week = services.approvals.submit(member, { day: '2026-11-16' });
    server.clock.set(NOW);

    const jonasPage = await signedIn(browser, server, 'jonas@northwind.example');
    await jonasPage.goto(`${server.url}/app/week?date=2026-11-16`);
    await shoot(jonasPage, 'approval-week');
    await jonasPage.goto(`${server.url}/app/week?date=2026-11-09`);
    await shoot(jonasPage, 'approval-week-rejected');
    await jonasPage.goto(`${server.url}/app/timesheet?date=2026-11-16`);
    await shoot(jonasPage, 'approval-timesheet');

    const mayaPage = await signedIn(browser, server, 'maya@northwind.example');
    await mayaPage.goto(`${server.url}/app/approvals`);
    await shoot(mayaPage, 'approvals');
    await mayaPage.goto(`${server.url}/app/approvals/${earlier.id}`);
    await shoot(mayaPage, 'approval-period');
    void week;
    await mayaPage.goto(`${server.url}/settings/workspace`);
    await shoot(mayaPage, 'workspace-approval', 'form[action$="/workspace/approval"]');
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
