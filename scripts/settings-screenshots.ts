/*
 * Screenshots of the settings web page: `npm run screenshots` starts the server as the tests do
 * (temp SQLite file, manual clock, 127.0.0.1 only) with realistic data — a second member, tokens
 * (one revoked), a webhook subscription whose deliveries went to a local receiver with mixed
 * outcomes — signs in as the owner in Debian's Chromium and writes each page at desktop
 * (1280×900) and phone (390×844) width, full page, to docs/settings/<page>-desktop.png and
 * <page>-phone.png. Each page is loaded once and shot at both widths (a token is minted once).
 */
import { issuerPatchOfText } from '../src/modules/invoices/service.js';
import { OPERATOR } from '../src/principal.js';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/sender.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { startReceiver } from '../test/helpers/webhooks.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../docs/settings/', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function settle(server: TestServer, advanceMs = 0): Promise<void> {
  server.clock.advance(advanceMs);
  await new Promise((r) => setImmediate(r));
  await server.services.sender.tick();
}

/** The workspace, a second member, tokens and a webhook subscription with a delivery log of mixed outcomes. */
async function seedData(server: TestServer, receiver: Receiver): Promise<{ hookId: string; beaId: string }> {
  const { services, workspaceId, ownerId } = server;
  services.accounts.setWorkspace(OPERATOR, workspaceId, { name: 'Northwind Studio', hourlyRate: 85 });
  services.accounts.setUser(OPERATOR, ownerId, { name: 'Maya Fischer', email: 'maya@northwind.example' });
  // Maya lives in Berlin: the pages give her times in her zone (CET), as her mail does.
  services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
  services.invoices.setBusinessProfile(
    OPERATOR,
    workspaceId,
    issuerPatchOfText(
      Object.entries({
        legalName: 'Northwind Studio GmbH',
        addressLines: 'Hafenstraße 12|2nd floor',
        postalCode: '20457',
        city: 'Hamburg',
        country: 'DE',
        email: 'billing@northwind.example',
        paymentTermsDays: '14',
        iban: 'DE02120300000000202051',
      }),
    ),
  );
  services.invoices.setSettings(OPERATOR, workspaceId, {
    numberPattern: 'NW-{yyyy}-{seq:3}',
    taxRate: 19,
    language: 'de',
    rounding: 'up-15',
  });
  const bea = services.accounts.createUser(OPERATOR, { name: 'Bea Kowalski', email: 'bea@northwind.example' });
  services.accounts.addMember(OPERATOR, {
    workspaceId,
    userId: bea.id,
    canViewOthersTime: true,
    canViewOthersMoney: false,
    hourlyRate: 72.5,
  });
  const token = (name: string, scopes: string[]) =>
    services.tokens.create(OPERATOR, { workspaceId, userId: ownerId, name, scopes, expiresAt: null, rateLimitPerMin: null });
  token('Calendar sync', ['entries:read', 'entries:write']);
  services.tokens.revoke(OPERATOR, token('Old laptop', ['entries:read']).id);

  const url = `http://127.0.0.1:${receiver.port}/hooks/timetrack`;
  const hook = await services.webhooks.create(OPERATOR, { workspaceId, userId: ownerId, url, events: ['entry.created', 'entry.deleted'] });
  await services.webhooks.create(OPERATOR, { workspaceId, userId: ownerId, url: `${url}/invoices`, events: ['invoice.created'] });
  const create = (i: number) =>
    server.request('POST', '/api/v1/entries', {
      json: { start: `2026-11-02T0${i}:00:00Z`, end: `2026-11-02T0${i}:45:00Z`, description: `Design review ${i}` },
    });
  const answer = (code: number) => receiver.respond((_r, res) => res.writeHead(code).end());
  // One abandoned after six attempts, then successes, a deleted entry, then one failing (a retry due).
  answer(500);
  await create(1);
  await settle(server);
  for (const delay of RETRY_DELAYS_MS) await settle(server, delay);
  answer(204);
  for (const i of [2, 3, 4]) await create(i);
  const gone = (await create(5)).body.data.id as string;
  await server.request('DELETE', `/api/v1/entries/${gone}`);
  await settle(server);
  await services.webhooks.ping(OPERATOR, hook.id);
  answer(503);
  await create(6);
  await settle(server);
  return { hookId: hook.id, beaId: bea.id };
}

/** A fresh browser context at desktop width. */
function newContext(browser: Awaited<ReturnType<typeof chromium.launch>>): Promise<BrowserContext> {
  return browser.newContext({ viewport: DESKTOP });
}

/** The page as it is now, at both widths. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${OUT}${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${OUT}${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
  console.log(`docs/settings/${name}-{desktop,phone}.png`);
}

/** A part of the page, from the top of `from` to the bottom of `to` (with a margin), at both widths. */
async function shootPart(page: Page, name: string, from: string, to: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    const top = (await page.locator(from).boundingBox())!;
    const bottom = (await page.locator(to).boundingBox())!;
    const y = top.y + (await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)) - 16;
    const height = bottom.y + bottom.height - top.y + 32;
    await page.screenshot({ path: `${OUT}${name}-${size}.png`, fullPage: true, clip: { x: 0, y, width: viewport.width, height } });
  }
  await page.setViewportSize(DESKTOP);
  console.log(`docs/settings/${name}-{desktop,phone}.png`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const receiver = await startReceiver(null);
  const server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  try {
    const { hookId, beaId } = await seedData(server, receiver);
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
    const page = await (await newContext(browser)).newPage();
    const settings = `${server.url}/settings`;

    // The first start's link: the owner names themself beside the password.
    const first = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId, asksProfile: true });
    await page.goto(`${settings}/setup/${first.secret}`);
    await page.getByLabel(/^Your name/).fill('Maya Fischer');
    await page.getByLabel(/^Your email/).fill('maya@northwind');
    await page.getByLabel(/^Your workspace's name/).fill('Northwind');
    await shoot(page, 'setup-first-start');
    const { secret } = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: beaId });
    await page.goto(`${settings}/setup/${secret}`);
    await shoot(page, 'setup');
    await page.goto(`${settings}/sign-in`);
    await page.getByLabel('Email').fill('maya@northwind.example');
    await page.getByLabel('Email').blur();
    await shoot(page, 'sign-in');

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/app/week`), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.goto(`${settings}/tokens`);
    await page.getByRole('textbox', { name: /^Name/ }).fill('Invoicing script');
    for (const scope of ['entries:read', 'reports:read']) await page.getByRole('checkbox', { name: new RegExp(`^${scope} `) }).check();
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Mint token' }).click()]);
    await page.locator('#new-token').waitFor();
    await shoot(page, 'tokens');

    for (const [name, path] of [
      ['webhooks', '/webhooks'],
      ['webhook-detail', `/webhooks/${hookId}`],
      ['members', '/members'],
      ['workspace', '/workspace'],
    ] as const) {
      await page.goto(`${settings}${path}`);
      await shoot(page, name);
    }
    // The invoicing settings: a pattern of the studio's own, the next number as an example; then a pattern refused at its field.
    await page.goto(`${settings}/workspace`);
    const invoicing = '#invoicing-heading';
    const form = `form[action$="/workspace/invoicing"]`;
    await shootPart(page, 'workspace-invoicing', invoicing, form);
    await page.getByLabel(/^Number pattern/).fill('RE-{yyyy}');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Save invoicing' }).click()]);
    await shootPart(page, 'workspace-invoicing-refused', invoicing, form);
    // Adding a colleague: the account is made, and their setup link shown once.
    await page.goto(`${settings}/members`);
    await page.getByLabel(/^Name/).fill('Ada Lovelace');
    await page.getByLabel(/^Email/).fill('ada@northwind.example');
    await page.getByLabel(/^Hourly rate/).fill('80');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add member' }).click()]);
    await page.locator('#setup-link').waitFor();
    await shoot(page, 'members-added');
    // A refused form: the message at its field.
    await page.getByLabel(/^Email/).fill('ada-at-northwind');
    await page.getByLabel(/^Email/).evaluate((input) => input.removeAttribute('type'));
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add member' }).click()]);
    await shoot(page, 'members-refused');
    // An address an account holds already (Jo's, of another workspace): an invitation, listed as Invited.
    const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Harbour Co-op' });
    const jo = server.services.accounts.createUser(OPERATOR, { name: 'Jo Nakamura', email: 'jo@harbour.example' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: jo.id });
    await server.services.sessions.setPassword(OPERATOR, jo.id, PASSWORD);
    await page.goto(`${settings}/members`);
    await page.getByLabel(/^Email/).fill('jo@harbour.example');
    await page.getByRole('checkbox', { name: "Sees colleagues' time", exact: true }).check();
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add member' }).click()]);
    const invitation = await page.locator('#setup-link').textContent();
    await shoot(page, 'members-invited');
    // Jo opens the link signed in as Jo: the Join page.
    const joPage = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    await joPage.goto((invitation ?? '').trim());
    await joPage.getByLabel(/^Password of/).fill(PASSWORD);
    await Promise.all([joPage.waitForNavigation(), joPage.getByRole('button', { name: /^Sign in and join/ }).click()]);
    await shoot(joPage, 'join');
    // An account that belongs to no workspace (issue 44): Lena, removed from her last one, signs in to her invitations.
    const lena = server.services.accounts.createUser(OPERATOR, { name: 'Lena Vogel', email: 'lena@northwind.example' });
    await server.services.sessions.setPassword(OPERATOR, lena.id, PASSWORD);
    for (const workspaceId of [server.workspaceId, other.id])
      server.services.accounts.enrollMember(OPERATOR, {
        workspaceId,
        name: '',
        email: 'lena@northwind.example',
        isOwner: workspaceId === other.id,
      });
    const lenaPage = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    await lenaPage.goto(`${settings}/sign-in`);
    await lenaPage.getByLabel('Email').fill('lena@northwind.example');
    await lenaPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([lenaPage.waitForURL(`${settings}/invitations`), lenaPage.getByRole('button', { name: 'Sign in' }).click()]);
    await shoot(lenaPage, 'no-workspace');
  } finally {
    await browser.close();
    await server.close();
    await receiver.close();
  }
}

await main();
