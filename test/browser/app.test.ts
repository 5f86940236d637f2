import { expect } from 'chai';
import type { Browser, Page, Route } from 'playwright-core';
import { OPERATOR } from '../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, rawWrite, startTestServer, type TestServer } from '../helpers/server.js';
import { sharedBrowser, closeContexts, CHROMIUM_SKIP_REASON as SKIP_REASON, chromiumAvailable as available } from '../helpers/chromium.js';

/**
 * The web app (/app) in headless Chromium (Debian's package, driven by playwright-core): the
 * timer started and stopped in the page, writes made through the REST API appearing on the open
 * page within a second, a refused edit, 320 px, the keyboard, no console errors or CSP
 * violations. Only 127.0.0.1. Skipped, saying why, where Chromium is not installed.
 */
const PASSWORD = 'correct horse battery staple';
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI))`;

describe(`the web app in headless Chromium${available ? '' : ` (${SKIP_REASON})`}`, function () {
  this.timeout(60_000);
  let browser: Browser | undefined;
  // One server for the file; each test has a fresh workspace and owner in it.
  let shared: TestServer | undefined;
  let server: FreshWorkspace;

  before(async function () {
    if (!available) {
      console.warn(`browser/app.test.ts: ${SKIP_REASON}`);
      this.skip();
    }
    browser = await sharedBrowser();
    shared = await startTestServer({ now: Date.now() });
  });
  after(async () => {
    await closeContexts();
    await shared?.close();
  });
  beforeEach(async () => {
    // The real clock: the page ticks and the live feed polls as in production.
    server = freshWorkspace(shared as TestServer, { now: Date.now() });
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
  });

  async function signedIn(viewport = { width: 1280, height: 900 }): Promise<{ page: Page; problems: string[] }> {
    const context = await (browser as Browser).newContext({ viewport, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('dialog', (d) => void d.accept());
    await page.addInitScript(REPORT_CSP);
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill(server.ownerEmail);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.goto(`${server.url}/app/week`);
    return { page, problems };
  }

  it('the timer in the page is the API’s timer (source web); REST writes appear on the open page within a second', async () => {
    const { page, problems } = await signedIn();
    // The first visit tells the server the browser's zone.
    await page.waitForSelector('body[data-ask-zone=false]');
    expect(server.services.accounts.preferences(server.ownerId).timeZone).to.equal('Europe/Berlin');
    await page.getByLabel('What are you working on?').fill('Harbour map');
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.locator('.timer.running').waitFor();
    const current = await server.request('GET', '/api/v1/entries/current');
    expect(current.body.data).to.include({ description: 'Harbour map', source: 'web' });
    await page.waitForSelector('time[data-elapsed-from]:text-matches("^0:00:0[1-9]$")');
    // The s key stops it (not while typing).
    await page.locator('h1').click();
    server.clock.advance(2_000); // the server's clock is the tests' manual one
    await page.keyboard.press('s');
    await page.locator('form.timer:not(.running)').waitFor();
    expect((await server.request('GET', '/api/v1/entries/current')).body.data).to.equal(null);

    // Live: a timer started through the REST API shows on the open page, then its edit, then its deletion.
    await page.waitForSelector('#live-status:text("Live")');
    const started = Date.now();
    const rest = await server.request('POST', '/api/v1/entries/current', { json: { description: 'Started elsewhere' } });
    expect(rest.status).to.equal(200);
    await page.waitForSelector('.timer.running input[value="Started elsewhere"]', { timeout: 2_000 });
    expect(Date.now() - started).to.be.below(1_500);
    await server.request('PATCH', `/api/v1/entries/${rest.body.data.id}`, { json: { description: 'Renamed elsewhere' } });
    await page.waitForSelector('.timer.running input[value="Renamed elsewhere"]', { timeout: 2_000 });
    await server.request('DELETE', `/api/v1/entries/${rest.body.data.id}`);
    await page.waitForSelector('form.timer:not(.running) button:has-text("Start")', { timeout: 2_000 });
    expect(await page.locator('text=Renamed elsewhere').count()).to.equal(0);
    expect(problems).to.deep.equal([]);
  });

  it('every page of the app fits 320 px, labels every control, and loads without console errors or CSP violations', async () => {
    server.services.catalog.projects.create(
      {
        kind: 'member',
        tokenId: null,
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        scopes: new Set(),
        canViewOthersTime: true,
        canViewOthersMoney: true,
        isOwner: true,
        currency: 'EUR',
      } as never,
      { name: 'A project with a rather long name to wrap', color: '#1a7f37', hourlyRate: 90, budgetAmount: 1000 },
    );
    const { page, problems } = await signedIn({ width: 320, height: 720 });
    await page.waitForSelector('body[data-ask-zone=false]');
    for (const path of ['/app/week', '/app/catalog', '/app/profile']) {
      await page.goto(`${server.url}${path}`);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${path} at 320 px`).to.be.at.most(320);
      const unlabelled = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea')]
        .filter((el) => el.type !== 'hidden')
        .filter((el) => ![...el.labels].some((l) => l.textContent.trim() !== '') && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML)`);
      expect(unlabelled, path).to.deep.equal([]);
    }
    expect(problems).to.deep.equal([]);
  });

  it('a refused edit shows the API’s message at its field and changes nothing; 320 px without horizontal scroll', async () => {
    // A week ago at 10:00-11:00 UTC (noon in Berlin): an entry that never spans midnight, whatever the hour the test runs at.
    const day = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    const made = await server.request('POST', '/api/v1/entries', {
      json: { start: `${day}T10:00:00Z`, end: `${day}T11:00:00Z`, description: 'Plan' },
    });
    const { page, problems } = await signedIn({ width: 320, height: 720 });
    await page.goto(`${server.url}/app/week?date=${day}`);
    await page.waitForSelector('body[data-ask-zone=false]');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(320);
    await page.getByRole('link', { name: /^Plan/ }).click();
    const form = page.getByRole('form', { name: /^Edit entry/ });
    // The end before the start (the field's own limits keep a 501-character description out: the HTTP tests send one).
    await form.getByRole('combobox', { name: 'Description' }).fill('Plan, revised');
    await form.getByLabel('End', { exact: true }).fill('00:01');
    await form.getByLabel('Start', { exact: true }).fill('23:59');
    await form.getByRole('button', { name: 'Save' }).click();
    const end = page.getByRole('form', { name: /^Edit entry/ }).getByLabel('End', { exact: true });
    await page.waitForSelector('[aria-invalid=true]');
    expect(await end.getAttribute('aria-invalid')).to.equal('true');
    expect(await page.locator(`#${await end.getAttribute('aria-describedby')}`).textContent()).to.match(
      /^The end \(00:01\) is before the start \(23:59\)\. Did you mean the next day\?/,
    );
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('name') ?? null")).to.equal('end');
    expect(
      await page
        .getByRole('form', { name: /^Edit entry/ })
        .getByRole('combobox', { name: 'Description' })
        .inputValue(),
    ).to.equal('Plan, revised');
    expect((await server.request('GET', `/api/v1/entries/${made.body.data.id}`)).body.data.description).to.equal('Plan');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(320);
    // The refused form answered 400 (fetched in place), which Chromium reports as a failed load; nothing else went wrong.
    expect(problems).to.deep.equal(['error: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  });

  it('an entry added and a timer started on a billable project, Billable untouched, are billable with their amount (the project decides)', async () => {
    const project = await server.request('POST', '/api/v1/projects', { json: { name: 'Audit', billable: true, hourlyRate: 120 } });
    expect(project.status).to.equal(200);
    const { page, problems } = await signedIn();
    await page.waitForSelector('body[data-ask-zone=false]');
    // Add 2 hours by hand on the project; Billable is never touched.
    await page.getByRole('link', { name: /^Add time/ }).click();
    const add = page.getByRole('form', { name: 'Add time' });
    await add.getByRole('combobox', { name: 'Description' }).fill('Audit kickoff');
    await add.getByLabel('Start', { exact: true }).fill('09:00');
    await add.getByLabel('or duration').fill('2:00');
    await add.locator('select[name=projectId]').selectOption({ label: 'Audit' });
    // The checkbox shows the project's default at once.
    expect(await add.getByLabel('Billable').isChecked()).to.equal(true);
    await add.getByRole('button', { name: 'Add' }).click();
    await page.locator('.notice.toast').filter({ hasText: 'Added' }).waitFor();
    const listed = await server.request('GET', '/api/v1/entries?from=2000-01-01&to=2100-01-01');
    const added = listed.body.data.find((e: { description: string }) => e.description === 'Audit kickoff');
    expect(added).to.include({ billable: true, hourlyRate: 120, amount: 240, source: 'web' });
    // The timer the same.
    await page.getByLabel('What are you working on?').fill('Audit fieldwork');
    await page.getByRole('form', { name: 'Timer' }).locator('select[name=projectId]').selectOption({ label: 'Audit' });
    await page.getByRole('button', { name: /^Start/ }).click();
    await page.locator('.timer.running').waitFor();
    const running = (await server.request('GET', '/api/v1/entries/current')).body.data;
    expect(running).to.include({ description: 'Audit fieldwork', billable: true, hourlyRate: 120 });
    expect(problems).to.deep.equal([]);
  });

  it('lands where it should: sign-in from a report returns to it, `/` goes to the week, an invited member’s setup ends on the week', async () => {
    const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const asked = `${server.url}/app/reports?from=2026-11-02&to=2026-11-08&groupBy=client`;
    await page.goto(asked);
    expect(new URL(page.url()).pathname).to.equal('/settings/sign-in');
    await page.getByLabel('Email').fill(server.ownerEmail);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(page.url()).to.equal(asked);
    await page.goto(`${server.url}/`);
    expect(page.url()).to.equal(`${server.url}/app/week`);
    // An invited member (a new account made on the Members page) sets a password and lands on the week.
    const bea = server.services.accounts.enrollMember(OPERATOR, { workspaceId: server.workspaceId, name: 'Bea', email: 'bea@example.org' });
    if (bea.kind !== 'created') throw new Error('a new address makes a new account');
    const link = server.services.sessions.invite(OPERATOR, { workspaceId: server.workspaceId, userId: bea.userId });
    const other = await (browser as Browser).newContext({ viewport: { width: 390, height: 800 } });
    const bees = await other.newPage();
    await bees.goto(`${server.url}/settings/setup/${link.secret}`);
    await bees.getByLabel('New password').fill(PASSWORD);
    await bees.getByLabel('Repeat it').fill(PASSWORD);
    await Promise.all([bees.waitForNavigation(), bees.getByRole('button', { name: 'Set password and sign in' }).click()]);
    expect(new URL(bees.url()).pathname).to.equal('/app/week');
    // The welcome shows (after the page has learnt the browser's zone), then its `?welcome=1` leaves the address.
    await bees.waitForSelector('body[data-ask-zone=false]');
    expect(await bees.getByRole('status').filter({ hasText: 'Welcome!' }).count()).to.equal(1);
    await bees.waitForFunction(() => (globalThis as any).location.search === '');
    await other.close();
    await context.close();
  });

  it('the Catalog: adding and saving stay in place with a confirmation, new projects get distinct colours, Edit is visible', async () => {
    // A page longer than the window: the projects' form is far below its top.
    for (let i = 0; i < 25; i++)
      await server.request('POST', '/api/v1/clients', { json: { name: `Client ${String(i).padStart(2, '0')}` } });
    await server.request('POST', '/api/v1/projects', { json: { name: 'First', color: '#0b57d0' } });
    const { page, problems } = await signedIn();
    await page.goto(`${server.url}/app/catalog`);
    await page.evaluate('window.__kept = true');
    // Edit is there to see (not only a hidden word), and opens the row's form.
    const edit = page.locator('li.entry.item', { hasText: 'First' }).locator('.edit-action');
    expect(await edit.isVisible()).to.equal(true);
    expect(await edit.textContent()).to.equal('Edit the project First');
    // A new project, added far down the page: the page stays where it is, and says what it did.
    const form = page.getByRole('form', { name: 'New project' });
    await form.scrollIntoViewIfNeeded();
    // A project's and a task's own VAT take a row of their own below the fields (squeezed into one
    // grid cell they wrapped word by word, and in the task form pushed its fields to the bottom).
    for (const name of ['New project', 'New task']) {
      const grid = (await page.getByRole('form', { name }).locator('.grid').boundingBox())!;
      const tax = (await page.getByRole('form', { name }).locator('fieldset.own-tax').boundingBox())!;
      const first = (await page.getByRole('form', { name }).getByLabel('Name', { exact: true }).boundingBox())!;
      expect(tax.width, name).to.be.greaterThan(grid.width * 0.95);
      expect(first.y + first.height, name).to.be.at.most(tax.y);
    }
    expect(await form.locator('input[name=color]').inputValue()).to.equal('#1a7f37');
    await form.getByLabel('Name').fill('Second');
    const before = await page.evaluate<number>('window.scrollY');
    expect(before).to.be.greaterThan(200);
    await form.getByRole('button', { name: 'Add project' }).click();
    await page.locator('.notice.toast', { hasText: 'Added the project “Second”.' }).waitFor();
    expect(await page.evaluate<boolean>('window.__kept === true')).to.equal(true);
    expect(Math.abs((await page.evaluate<number>('window.scrollY')) - before)).to.be.below(80);
    const colours = ((await server.request('GET', '/api/v1/projects')).body.data as Array<{ name: string; color: string }>).map((p) => [
      p.name,
      p.color,
    ]);
    expect(colours).to.deep.include.members([
      ['First', '#0b57d0'],
      ['Second', '#1a7f37'],
    ]);
    // The next one is offered a third colour; a client saved says so, in place.
    expect(await page.getByRole('form', { name: 'New project' }).locator('input[name=color]').inputValue()).to.equal('#c2410c');
    const client = (await server.request('POST', '/api/v1/clients', { json: { name: 'Acme' } })).body.data as { id: string };
    await page.reload();
    await page.evaluate('window.__kept = true');
    await page.locator(`#client-${client.id} summary.row`).click();
    await page.getByRole('form', { name: 'Edit client Acme' }).getByLabel('Name', { exact: true }).fill('Acme Ltd');
    await page.getByRole('form', { name: 'Edit client Acme' }).getByRole('button', { name: 'Save' }).click();
    await page.locator('.notice.toast', { hasText: 'Saved the client “Acme Ltd”.' }).waitFor();
    expect(await page.evaluate<boolean>('window.__kept === true')).to.equal(true);
    expect(problems).to.deep.equal([]);
  });

  it('the Catalog’s confirmation sits beside the form it answers: on screen, over none of its fields, the focus kept in the form (issue 58)', async () => {
    // A page longer than the window, so a confirmation at the page's top would be out of sight or float over the form.
    for (let i = 0; i < 25; i++)
      await server.request('POST', '/api/v1/clients', { json: { name: `Client ${String(i).padStart(2, '0')}` } });
    const made = await server.request('POST', '/api/v1/projects', { json: { name: 'Audit', color: '#0b57d0' } });
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 800 },
    ]) {
      const { page, problems } = await signedIn(viewport);
      await page.goto(`${server.url}/app/catalog`);
      /** After a save: the confirmation in the window, its box apart from every field's, the focus inside the form. */
      const check = async (formName: string, said: string) => {
        const toast = page.locator('.notice.toast', { hasText: said });
        await toast.waitFor();
        const box = await toast.boundingBox();
        expect(box, said).to.not.equal(null);
        const { x, y, width, height } = box as { x: number; y: number; width: number; height: number };
        expect(y, `${said}: top in the window`).to.be.at.least(0);
        expect(y + height, `${said}: bottom in the window`).to.be.at.most(viewport.height);
        const form = page.getByRole('form', { name: formName });
        const fields = form.locator('input:not([type=hidden]), select, textarea, button');
        for (let i = 0; i < (await fields.count()); i++) {
          const field = await fields.nth(i).boundingBox();
          if (!field) continue;
          const apart = x + width <= field.x || field.x + field.width <= x || y + height <= field.y || field.y + field.height <= y;
          expect(apart, `${said}: over a field of ${formName} at ${viewport.width} px`).to.equal(true);
        }
        expect(
          await form.evaluate((f) => f.contains((globalThis as any).document.activeElement)),
          `${said}: focus in ${formName}`,
        ).to.equal(true);
      };
      // A project renamed: its form's top at the window's top, where a floating confirmation would cover its fields.
      const name = `Audit ${viewport.width}`;
      await page.locator(`#project-${made.body.data.id} summary.row`).click();
      const edit = page.locator(`#project-${made.body.data.id} form.edit`);
      await edit.evaluate((f) => f.scrollIntoView({ block: 'start' }));
      await edit.getByLabel('Name', { exact: true }).fill(name);
      await edit.getByRole('button', { name: 'Save' }).click();
      await check(`Edit project ${name}`, `Saved the project “${name}”.`);
      // A new one added: the confirmation with the form, the focus back in it for the next.
      const add = page.getByRole('form', { name: 'New project' });
      await add.evaluate((f) => f.scrollIntoView({ block: 'start' }));
      await add.getByLabel('Name').fill(`Second ${viewport.width}`);
      await add.getByRole('button', { name: 'Add project' }).click();
      await check('New project', `Added the project “Second ${viewport.width}”.`);
      expect(await page.evaluate(() => (globalThis as any).document.activeElement.name)).to.equal('name');
      expect(problems).to.deep.equal([]);
      await page.context().close();
    }
  });

  it('a form sent while the first page still tells the server the browser’s zone goes through: the page does not reload over it', async () => {
    // The race a loaded run once showed: Sign out clicked while the zone's answer was on its way,
    // whose reload cancelled the sign-out. Here the answer is held until the sign-out is sent.
    const context = await (browser as Browser).newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    let zoneAsked: (route: Route) => void = () => undefined;
    const zoneRoute = new Promise<Route>((resolve) => (zoneAsked = resolve));
    await context.route('**/app/preferences/zone', (route) => zoneAsked(route));
    await context.route('**/settings/sign-out', async (route) => {
      // The zone's answer reaches the page while the sign-out is under way.
      const answered = page.waitForResponse('**/app/preferences/zone');
      await (await zoneRoute).continue();
      await answered;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue().catch(() => undefined); // without the fix the reload has cancelled it
    });
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill(server.ownerEmail);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL('**/app/week**'), page.getByRole('button', { name: 'Sign in' }).click()]);
    // The password sign-in told the zone; a sign-in through the identity provider does not, so the week asks.
    rawWrite(server, 'UPDATE users SET time_zone = NULL WHERE id = ?', server.ownerId);
    await page.goto(`${server.url}/app/week`);
    await zoneRoute;
    await Promise.all([page.waitForURL('**/settings/sign-in**'), page.getByRole('button', { name: 'Sign out' }).click()]);
    expect(server.services.accounts.preferences(server.ownerId).timeZone).to.equal('Europe/Berlin');
    // Signed out: the week asks for a sign-in.
    await page.goto(`${server.url}/app/week`);
    expect(new URL(page.url()).pathname).to.equal('/settings/sign-in');
    await context.close();
  });

  it('a running entry’s row ticks like the timer, and the page title shows the timer', async () => {
    // Started 42 minutes and 55 seconds ago: within seconds the row's minutes move from 0:42 to 0:43, with the timer's.
    const started = await server.request('POST', '/api/v1/entries/current', {
      json: { description: 'Audit kickoff', start: new Date(Date.now() - 42 * 60_000 - 55_000).toISOString() },
    });
    expect(started.status).to.equal(200);
    const { page, problems } = await signedIn();
    await page.waitForSelector('body[data-ask-zone=false]');
    const row = page.locator('li.entry.live .duration time');
    const timer = page.locator('.timer time[data-elapsed-from]');
    expect(await row.textContent()).to.equal('0:42');
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('li.entry.live .duration time')?.textContent === '0:43',
      undefined,
      { timeout: 15_000 },
    );
    // The row is the timer without its seconds: both count from the entry's start.
    expect(((await timer.textContent()) ?? '').replace(/:\d\d$/, '')).to.equal(await row.textContent());
    expect(await page.title()).to.equal('0:43 · Audit kickoff · timetrack');
    expect(problems).to.deep.equal([]);
  });

  it('the reports page at 320 px: no horizontal scroll, the phone chart, every control labelled, by keyboard, no console errors or CSP violations', async () => {
    const hour = 3_600_000;
    for (const [from, to, description] of [
      [-50, -48, 'A long afternoon of harbour map work with a description that would not fit on a phone'],
      [-26, -25, 'Planning'],
      [-3, -2, 'Review'],
    ] as const) {
      const made = await server.request('POST', '/api/v1/entries', {
        json: { start: new Date(Date.now() + from * hour).toISOString(), end: new Date(Date.now() + to * hour).toISOString(), description },
      });
      expect(made.status).to.equal(200);
    }
    const { page, problems } = await signedIn({ width: 320, height: 720 });
    await page.waitForSelector('body[data-ask-zone=false]');
    await page.goto(`${server.url}/app/reports?subGroupBy=client&member=everyone`);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(320);
    // The narrow drawing on a phone, the wide one hidden.
    expect(await page.locator('svg.chart.narrow').isVisible()).to.equal(true);
    expect(await page.locator('svg.chart.wide').isVisible()).to.equal(false);
    // Every control has its label.
    for (const label of ['From', 'To (included)', 'Group by', 'Then by', 'Whose time'])
      expect(await page.getByLabel(label, { exact: true }).count(), label).to.equal(1);
    // By keyboard: a quick range, then the form.
    await page.getByRole('link', { name: 'Last month' }).focus();
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(new URL(page.url()).searchParams.get('subGroupBy')).to.equal('client');
    await page.getByLabel('Group by').selectOption('user');
    await page.getByRole('button', { name: 'Show' }).focus();
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(await page.locator('#summary-heading').textContent()).to.equal('By member, then client');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(320);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.locator('svg.chart.wide').isVisible()).to.equal(true);
    expect(problems).to.deep.equal([]);
  });
});
