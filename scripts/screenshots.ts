/*
 * A screenshot walk of every page (issue 58 item 1): `npx tsx scripts/screenshots.ts OUTDIR`
 * starts the server as the tests do (a fresh temporary SQLite file, a manual clock on Wednesday
 * 25 November 2026, a mail relay and everything else on 127.0.0.1 only), seeds a small workspace
 * (an owner and a member, clients, projects, tasks, tags, a week of entries, a submitted week, an
 * issued invoice with a payment, a draft with a manual line, an expense, a webhook, an import),
 * and writes a full-page screenshot of every page of /app and /settings, and of the signed-out
 * pages, in English and German at 1280 and 390 px: OUTDIR/<lang>-<width>-<page>.png.
 *
 * The pages come from the server's own routes: every GET route under /app and /settings is either
 * shot (PAGES) or named in NOT_PAGES with why. A route in neither (a new page) is reported and
 * the script exits with 1, so no page is forgotten silently. A tool, not a test: it is not in
 * `npm test`. Debian's Chromium (test/helpers/chromium.ts: CHROMIUM_PATH), driven by playwright-core.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { OPERATOR } from '../src/principal.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { freelancer } from '../test/helpers/invoices.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../test/helpers/server.js';
import { plainUrl, startRelay } from '../test/helpers/smtp.js';

const PASSWORD = 'correct horse battery staple';
const NOW = Date.parse('2026-11-25T14:12:07Z');
const WIDTHS = [1280, 390] as const;
const LANGUAGES = ['en', 'de'] as const;
const FIXTURES = fileURLToPath(new URL('../test/fixtures/import/', import.meta.url));

/** What the seed made that a page's address names. */
interface Seeded {
  draft: string;
  issued: string;
  expense: string;
  period: string;
  webhook: string | null;
}

/** A page to shoot: its file name's part and its address (or null: not seeded, said in the output). */
type Shot = { page: string; path: string | null };

/** Each GET page route of /app and /settings (as the server's routes name them) and the shots of it. */
const PAGES: Record<string, (s: Seeded) => Shot[]> = {
  '/app/week': () => [{ page: 'app-week', path: '/app/week' }],
  '/app/timesheet': () => [{ page: 'app-timesheet', path: '/app/timesheet' }],
  '/app/profile': () => [{ page: 'app-profile', path: '/app/profile' }],
  '/app/catalog': () => [{ page: 'app-catalog', path: '/app/catalog' }],
  '/app/reports': () => [{ page: 'app-reports', path: '/app/reports?from=2026-11-23&to=2026-11-29&groupBy=project' }],
  '/app/invoices': () => [{ page: 'app-invoices', path: '/app/invoices' }],
  '/app/invoices/new': () => [{ page: 'app-invoices-new', path: '/app/invoices/new' }],
  '/app/invoices/:id': (s) => [
    { page: 'app-invoice-draft', path: `/app/invoices/${s.draft}` },
    { page: 'app-invoice-issued', path: `/app/invoices/${s.issued}` },
  ],
  '/app/invoices/:id/issue': (s) => [{ page: 'app-invoice-issue', path: `/app/invoices/${s.draft}/issue` }],
  '/app/invoices/:id/pay': (s) => [{ page: 'app-invoice-pay', path: `/app/invoices/${s.issued}/pay` }],
  '/app/invoices/:id/void': (s) => [{ page: 'app-invoice-void', path: `/app/invoices/${s.issued}/void` }],
  '/app/approvals': () => [{ page: 'app-approvals', path: '/app/approvals' }],
  '/app/approvals/:id': (s) => [{ page: 'app-approval', path: `/app/approvals/${s.period}` }],
  '/app/expenses': () => [{ page: 'app-expenses', path: '/app/expenses' }],
  '/app/expenses/:id': (s) => [{ page: 'app-expense', path: `/app/expenses/${s.expense}` }],
  '/settings/tokens': () => [{ page: 'settings-tokens', path: '/settings/tokens' }],
  '/settings/webhooks': () => [{ page: 'settings-webhooks', path: '/settings/webhooks' }],
  '/settings/webhooks/:id': (s) => [{ page: 'settings-webhook', path: s.webhook && `/settings/webhooks/${s.webhook}` }],
  '/settings/members': () => [{ page: 'settings-members', path: '/settings/members' }],
  '/settings/workspace': () => [{ page: 'settings-workspace', path: '/settings/workspace' }],
  '/settings/import': () => [{ page: 'settings-import', path: '/settings/import' }],
  '/settings/mail': () => [{ page: 'settings-mail', path: '/settings/mail' }],
};

/** The signed-out pages, shot before signing in. */
const SIGNED_OUT: Record<string, Shot> = {
  '/settings/sign-in': { page: 'signed-out-sign-in', path: '/settings/sign-in' },
  '/settings/forgot': { page: 'signed-out-forgot', path: '/settings/forgot' },
};

/** The GET routes that are not pages to shoot, and why. */
const NOT_PAGES: Record<string, string> = {
  '/app/': 'redirects to the week',
  '/app/events': 'the live event stream',
  '/app/suggest': 'suggestions as JSON for the pickers',
  '/app/reports/export': 'a download',
  '/app/invoices/:id/document.pdf': 'a download',
  '/app/invoices/:id/document.xml': 'a download',
  '/app/expenses/:id/receipt': 'a download',
  '/settings/': 'redirects to Workspace or Profile',
  '/settings/workspace/export.csv': 'a download',
  '/settings/setup/:secret': 'a link from the first start or an invitation, with a secret',
  '/settings/reset/:secret': 'a link from a mail, with a secret',
  '/settings/confirm-email/:secret': 'a link from a mail, with a secret',
  '/settings/stop/:secret': 'a link from a mail, with a secret',
  '/settings/invitations': 'the lobby of an account in no workspace yet',
  '/settings/oidc/start': 'a redirect to the identity provider (off here)',
  '/settings/oidc/callback': 'the identity provider’s way back (off here)',
  '/settings/import/runs/:id': 'shot after an upload on the Import page (settings-import-preview)',
};

type Layer = {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  match(path: string): boolean;
};

/** Every GET route of the web app under /app and /settings, as `/app/invoices/:id`, read from the running server's router. */
function pageRoutes(server: TestServer): string[] {
  const app = server.running.server.listeners('request')[0] as unknown as { router: { stack: Layer[] } };
  const found: string[] = [];
  const walk = (stack: Layer[], base: string) => {
    for (const layer of stack) {
      if (layer.route) {
        if (layer.route.methods.get && base !== '') found.push(`${base}${layer.route.path}`);
      } else if (layer.handle?.stack) {
        const mounted = ['/app', '/settings'].find((b) => base === '' && layer.match(`${b}/x`) && !layer.match('/elsewhere/x'));
        walk(layer.handle.stack, mounted ?? base);
      }
    }
  };
  walk(app.router.stack, '');
  return [...new Set(found)].filter((r) => !r.includes('/assets/'));
}

/** The small workspace every page shows: a freelancer's October and a week of November, a colleague, the invoices and the rest. */
async function seed(server: TestServer, relay: Awaited<ReturnType<typeof startRelay>>): Promise<Seeded> {
  const { services, workspaceId, ownerId } = server;
  services.accounts.setUser(OPERATOR, ownerId, { name: 'Ada Lovelace', email: 'ada@example.org' });
  services.accounts.setPreferences(OPERATOR, ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
  await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
  const { owner, clientId, projectId } = freelancer(server);
  const { catalog, entries, invoices } = services;
  const design = catalog.tasks.create(owner, { projectId, name: 'Design system', hourlyRate: 110 });
  catalog.tasks.create(owner, { projectId, name: 'Navigation' });
  const harbour = catalog.clients.create(owner, { name: 'Hafenamt Kiel', city: 'Kiel', country: 'DE' } as never).id;
  const map = catalog.projects.create(owner, {
    name: 'Harbour map',
    clientId: harbour,
    billable: true,
    hourlyRate: 85,
    color: '#0b57d0',
  }).id;
  const internal = catalog.projects.create(owner, { name: 'Internal', color: '#1a7f37' }).id;
  const meeting = catalog.tags.create(owner, { name: 'meeting' }).id;
  catalog.tags.create(owner, { name: 'onsite' });

  // A colleague who sees colleagues' time, with a week of her own, submitted for approval.
  const bea = addMemberWithToken(services, workspaceId, { name: 'Bea Schulz', canViewOthersTime: true });
  services.accounts.setPreferences(OPERATOR, bea.userId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
  const beaActor = services.tokens.authenticate(bea.token)!.actor;

  // The week of 23 November: the owner's days, and Bea's.
  const add = (actor: typeof owner, day: string, from: string, to: string, description: string, project: string | null, extra = {}) =>
    entries.create(actor, {
      start: `2026-11-${day}T${from}:00+01:00`,
      end: `2026-11-${day}T${to}:00+01:00`,
      description,
      projectId: project,
      billable: project !== internal && project !== null,
      ...extra,
    });
  add(owner, '23', '09:00', '10:30', 'Sprint planning', projectId, { tagIds: [meeting] });
  add(owner, '23', '10:45', '12:30', 'Navigation prototype', projectId, { taskId: design.id });
  add(owner, '23', '13:30', '17:10', 'Map tiles', map);
  add(owner, '24', '08:30', '11:00', 'Accessibility review', projectId, { taskId: design.id });
  add(owner, '24', '11:15', '12:00', 'Bookkeeping', internal);
  add(owner, '24', '13:00', '16:45', 'Harbour map component', map);
  add(owner, '25', '09:10', '12:20', 'Design tokens', projectId, { taskId: design.id });

  // October invoiced to Acme (the freelancer's days), issued, mailed and paid in part.
  const issued = invoices.create(owner, { workspaceId, clientId, from: '2026-10-01', to: '2026-10-31', groupBy: 'task' }).id;
  invoices.issue(owner, issued, { date: '2026-11-02' });
  invoices.pay(owner, issued, { amount: '500', date: '2026-11-10', note: 'Transfer 4711', userId: ownerId } as never);
  await invoices.send(owner, issued, { to: 'billing@acme.example', xml: 'xrechnung-ubl', message: null });
  await server.running.scheduler.tick();
  await relay.until(1);
  await services.mail.idle();
  // November's harbour map so far, a draft with a manual line (travel).
  const draft = invoices.create(owner, { workspaceId, clientId: harbour, from: '2026-11-01', to: '2026-11-24' }).id;
  invoices.addLine(owner, draft, {
    description: 'Train to Kiel and back',
    quantity: '1',
    unit: 'LS',
    unitPrice: '89.90',
    taxCategory: '',
    taxRate: '',
  });

  // Approval on (after the invoices, which take approved time only then): Bea's week of 16 November, submitted.
  services.approvals.setSettings(OPERATOR, workspaceId, { approval: 'weekly' });
  for (const day of ['16', '17', '18']) add(beaActor, day, '09:00', '13:00', 'Map research', map);
  const period = services.approvals.submit(beaActor, { day: '2026-11-17' }).id;
  const expense = services.expenses.add(owner, {
    day: '2026-11-24',
    description: 'Train to Kiel',
    amount: '89.90',
    projectId: map,
    billable: true,
  } as never).id;
  let webhook: string | null = null;
  try {
    webhook = (
      await services.webhooks.create(OPERATOR, {
        workspaceId,
        userId: ownerId,
        // Loopback (this server allows private targets): nothing leaves 127.0.0.1, and nothing is delivered while the pages are shot.
        url: 'http://127.0.0.1:9/timetrack',
        events: ['entry.created', 'entry.deleted'],
      })
    ).id;
  } catch (error) {
    console.warn(`no webhook seeded: ${(error as Error).message}`);
  }
  return { draft, issued, expense, period, webhook };
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) {
    console.error('Usage: npx tsx scripts/screenshots.ts OUTDIR   (writes OUTDIR/<lang>-<width>-<page>.png)');
    process.exit(2);
  }
  const dir = resolve(out);
  mkdirSync(dir, { recursive: true });
  const relay = await startRelay();
  const server = await startTestServer({
    now: NOW,
    env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'],
  });
  let unlisted: string[];
  try {
    const seeded = await seed(server, relay);
    const routes = pageRoutes(server);
    unlisted = routes.filter((r) => !(r in PAGES) && !(r in SIGNED_OUT) && !(r in NOT_PAGES));
    const written: string[] = [];
    for (const language of LANGUAGES) {
      server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language });
      const context = await browser.newContext({
        locale: language === 'de' ? 'de-DE' : 'en-GB',
        timezoneId: 'Europe/Berlin',
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      await page.clock.setFixedTime(NOW);
      const shoot = async (name: string) => {
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: width === 1280 ? 900 : 844 });
          const file = `${dir}/${language}-${width}-${name}.png`;
          await page.screenshot({ path: file, fullPage: true });
          written.push(file);
        }
        await page.setViewportSize({ width: 1280, height: 900 });
      };
      const visit = async (shot: Shot) => {
        if (shot.path === null) return console.warn(`${language}: ${shot.page}: nothing seeded to show`);
        const answer = await page.goto(`${server.url}${shot.path}`);
        if (!answer || answer.status() >= 400) console.warn(`${language}: ${shot.page}: ${shot.path} answered ${answer?.status()}`);
        await shoot(shot.page);
      };
      // Signed out: the sign-in and the forgotten password, in the browser's language.
      for (const shot of Object.values(SIGNED_OUT)) await visit(shot);
      await page.goto(`${server.url}/settings/sign-in`);
      await page.locator('#email').fill('ada@example.org');
      await page.locator('#password').fill(PASSWORD);
      await Promise.all([page.waitForURL(/\/app\//), page.locator('form button[type=submit]').last().click()]);
      for (const route of routes) for (const shot of PAGES[route]?.(seeded) ?? []) await visit(shot);
      // An upload's preview on the Import page (/settings/import/runs/:id).
      await page.goto(`${server.url}/settings/import`);
      const upload = page.locator('input[type=file]').first();
      if ((await upload.count()) > 0) {
        await upload.setInputFiles(`${FIXTURES}toggl.csv`);
        await Promise.all([
          page.waitForURL(/\/import\/runs\//),
          page.locator('form:has(input[type=file]) button[type=submit]').first().click(),
        ]);
        // The run's page reloads itself each second while it checks the file: its preview once done.
        for (let i = 0; i < 30 && (await page.locator('progress').count()) > 0; i++) {
          await page.waitForTimeout(1000);
          await page.reload();
        }
        await shoot('settings-import-preview');
      }
      await context.close();
    }
    console.log(`${written.length} screenshots in ${dir}`);
  } finally {
    await browser.close();
    await server.close();
    await relay.close();
  }
  if (unlisted.length > 0) {
    console.error(
      `GET routes neither shot nor named as not a page (add each to PAGES or NOT_PAGES in scripts/screenshots.ts):\n  ${unlisted.join('\n  ')}`,
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
