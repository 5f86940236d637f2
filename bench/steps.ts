/*
 * The working day's step counts (issue 36's table), counted in Debian's Chromium as a person
 * acts: every click (c) and every key that is not part of a text (k: Enter, arrows, a shortcut,
 * Ctrl+A); the letters of a description or a time are the text, not steps (the Enter that starts a
 * timer is a step, also where Toggl's count of "1c + text" leaves it in the text). Each task is done for
 * real against the server (127.0.0.1, a temp SQLite file) and its outcome checked through the API,
 * so a count is never of a task that did not happen. `npx tsx bench/steps.ts` (also the last part
 * of `npm run bench`) prints the table for docs/benchmarks.md; exit 1 when a task exceeds its target.
 */
import { chromium, type Locator, type Page } from 'playwright-core';
import { OPERATOR } from '../src/principal.js';
import { startTestServer } from '../test/helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple';

interface Count {
  clicks: number;
  keys: number;
}

/** What a person does, counted. */
function counter(page: Page) {
  const count: Count = { clicks: 0, keys: 0 };
  return {
    count,
    click: async (target: Locator) => {
      count.clicks++;
      await target.click();
    },
    key: async (key: string) => {
      count.keys++;
      await page.keyboard.press(key);
    },
    /** Text typed into the focused field: not counted. */
    text: async (text: string) => page.keyboard.type(text, { delay: 30 }),
  };
}

const shown = ({ clicks, keys }: Count) => [clicks ? `${clicks}c` : '', keys ? `${keys}k` : ''].filter(Boolean).join(' + ') || '0';

async function main(): Promise<void> {
  const server = await startTestServer({ now: Date.now() });
  // The server's clock follows the real one, as on a deployment (a timer switched a second later starts a second later).
  const ticking = setInterval(() => server.clock.set(Date.now()), 50);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  const rows: Array<{ task: string; steps: string; actions: number; target: number; how: string; toggl: string }> = [];
  try {
    await server.services.sessions.setPassword(OPERATOR, server.ownerId, PASSWORD);
    const api = async (method: string, path: string, json?: unknown) =>
      (await server.request(method, path, json === undefined ? {} : { json })).body;
    const ago = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
    const client = (await api('POST', '/api/v1/clients', { name: 'Acme' })).data;
    const audit = (await api('POST', '/api/v1/projects', { name: 'Audit', clientId: client.id, billable: true, hourlyRate: 120 })).data;
    const tag = (await api('POST', '/api/v1/tags', { name: 'onsite' })).data;
    const fieldwork = (await api('POST', '/api/v1/tasks', { name: 'Fieldwork', projectId: audit.id })).data;
    await api('POST', '/api/v1/entries', {
      start: ago(5),
      end: ago(4),
      description: 'Audit kickoff',
      projectId: audit.id,
      tagIds: [tag.id],
      billable: true,
    });
    await api('POST', '/api/v1/entries', { start: ago(3.5), end: ago(3), description: 'Budget review', projectId: audit.id });
    server.services.entries.catchUpSearchIndex();

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/settings/sign-in`);
    await page.getByLabel('Email').fill('owner@localhost');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(`${server.url}/app/week`), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.waitForSelector('body[data-ask-zone=false]');
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const siteVisits = async () => (await api('GET', `/api/v1/entries?from=${yesterday}&to=${yesterday}&search=Site`)).data;
    const running = async () => (await api('GET', '/api/v1/entries/current')).data;
    const toast = (text: string) => page.locator('.notice.toast').filter({ hasText: text }).last().waitFor();
    /** Waits (up to 15 s) for the server to show what the page did. */
    const until = async (what: string, ok: () => Promise<boolean>) => {
      for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (await ok()) return;
      await page.screenshot({ path: '/tmp/steps-fail.png', fullPage: true });
      throw new Error(`${what}: not seen within 15 s`);
    };

    // 1. Start a timer: description (a few letters of a past one), its project, tag and billable.
    {
      const c = counter(page);
      await c.key('n');
      await c.text('Audit k');
      const suggestion = page.locator('#timer-description-list li').first();
      await suggestion.waitFor();
      const before = { ...c.count };
      await c.click(suggestion);
      await c.key('Enter');
      await page.locator('div.timer.running').waitFor();
      const timer = await running();
      if (timer?.description !== 'Audit kickoff' || timer.projectId !== audit.id || timer.tagIds[0] !== tag.id || timer.billable !== true)
        throw new Error(`the timer started as ${JSON.stringify(timer)}`);
      const after = c.count.clicks - before.clicks + c.count.keys - before.keys;
      rows.push({
        task: 'Start a timer: description, known project, a tag, billable',
        toggl: '1c + N + ~10k',
        steps: `${shown(c.count)} + typing`,
        actions: after,
        target: 2,
        how: '`n`, type “Audit k”, click the suggestion, Enter',
      });
    }

    // 2. Switch task: the timer runs; another piece of work starts with one action.
    {
      const c = counter(page);
      await c.click(page.getByRole('button', { name: 'Continue Budget review' }));
      await until('switching to Budget review', async () => (await running())?.description === 'Budget review');
      rows.push({
        task: 'Switch task',
        toggl: '1c',
        steps: shown(c.count),
        actions: c.count.clicks + c.count.keys,
        target: 1,
        how: '▶ on its row (the running timer stops)',
      });
    }

    // 3. Continue a past entry (after stopping the timer).
    {
      await page.locator('div.timer.running').waitFor();
      await page.keyboard.press('s');
      await until('stopping', async () => (await running()) === null);
      await page.locator('form.timer:not(.next)').waitFor();
      const c = counter(page);
      await c.click(page.getByRole('button', { name: 'Continue Audit kickoff' }).first());
      await until('continuing Audit kickoff', async () => (await running())?.description === 'Audit kickoff');
      await page.locator('div.timer.running').waitFor();
      rows.push({
        task: 'Continue a past entry',
        toggl: '1c or `C`',
        steps: shown(c.count),
        actions: c.count.clicks + c.count.keys,
        target: 1,
        how: '▶ on its row, or `c` for the newest',
      });
      await page.keyboard.press('s');
      await until('stopping', async () => (await running()) === null);
      // A person sees the timer stopped before going on.
      await page.locator('form.timer:not(.next)').waitFor();
    }

    // 4. Start a new piece of work (no past entry like it) with its project, tag and billable, as Toggl's quick entry:
    //    the names typed in the description (`@Audit #onsite`); billable is the project's default.
    {
      const c = counter(page);
      await c.key('n');
      await c.text('Site survey @Audit #onsite');
      await c.key('Enter');
      await until('starting Site survey', async () => (await running())?.description === 'Site survey');
      const timer = await running();
      if (timer.projectId !== audit.id || timer.tagIds[0] !== tag.id || timer.billable !== true)
        throw new Error(`the timer started as ${JSON.stringify(timer)}`);
      await page.locator('div.timer.running').waitFor();
      rows.push({
        task: 'Start a timer: description, project, tag, billable (quick entry, nothing like it before)',
        toggl: '1c + text (its Enter in the text): 2 counted alike',
        steps: `${shown(c.count)} + typing`,
        actions: c.count.clicks + c.count.keys,
        target: 2,
        how: '`n`, type “Site survey @Audit #onsite”, Enter (Billable: the project’s)',
      });
    }

    // 5. Switch to a new task while the timer runs: another timer, its project and task and tag typed.
    {
      const c = counter(page);
      await c.key('n');
      await c.text('Write-up @Audit / Fieldwork #onsite');
      await c.key('Enter');
      await until('switching to Write-up', async () => (await running())?.description === 'Write-up');
      const timer = await running();
      if (timer.projectId !== audit.id || timer.taskId !== fieldwork.id || timer.tagIds[0] !== tag.id || timer.billable !== true)
        throw new Error(`the timer started as ${JSON.stringify(timer)}`);
      rows.push({
        task: 'Switch to a new task (quick entry)',
        toggl: '1c + text (its Enter in the text): 2 counted alike',
        steps: `${shown(c.count)} + typing`,
        actions: c.count.clicks + c.count.keys,
        target: 2,
        how: '`n` (Start another timer; the running one stops), type “Write-up @Audit / Fieldwork #onsite”, Enter',
      });
      await page.locator('div.timer.running time[data-title="Write-up"]').waitFor();
      await page.locator('h1').click();
      await page.keyboard.press('s');
      await until('stopping', async () => (await running()) === null);
      await page.locator('form.timer:not(.next)').waitFor();
    }

    // 6. Add 90 minutes yesterday from 09:00, on a project.
    {
      if ((await page.locator(`#day-${yesterday}`).count()) === 0) await page.getByRole('link', { name: /Previous/ }).click();
      const c = counter(page);
      await c.click(page.locator(`#day-${yesterday} a.add-here`));
      const form = page.getByRole('form', { name: 'Add time' });
      await form.waitFor();
      const focused = await page.evaluate<string>('document.activeElement ? document.activeElement.id : ""');
      if (focused !== 'add-description') await c.click(form.getByRole('combobox', { name: 'Description' }));
      await c.text('Site visit');
      // N: the project, chosen by its filter (click it, type, pick with the keyboard).
      const n = counter(page);
      await n.click(form.locator('input.picker-filter'));
      await n.text('Aud');
      await c.click(form.getByLabel('or duration'));
      await c.text('1:30');
      await c.key('Enter');
      await toast('Site visit');
      const added = (await siteVisits()).find((e: { description: string }) => e.description === 'Site visit');
      if (!added || added.durationSec !== 5400 || added.projectId !== audit.id || !added.start.endsWith('T09:00:00.000Z'))
        throw new Error(`added ${JSON.stringify(added)}`);
      const steps = { clicks: c.count.clicks, keys: c.count.keys };
      rows.push({
        task: 'Add 90 min yesterday from 09:00',
        toggl: '`M`, ~6c + 10k + N',
        steps: `${shown(steps)} + N (${shown(n.count)} + typing)`,
        actions: steps.clicks + steps.keys,
        target: 3,
        how: '“+” on the day (09:00 is the default start), the description, the project filter, “1:30” in duration, Enter',
      });
      await page.goto(`${server.url}/app/week?date=${yesterday}`);
    }

    // 7. Correct an end time, in place.
    {
      const row = page.locator('li.entry', { hasText: 'Site visit' });
      const c = counter(page);
      await c.click(row.getByRole('link', { name: /Site visit/ }));
      const edit = page.getByRole('form', { name: /^Edit entry 09:00/ });
      const end = edit.getByLabel('End', { exact: true });
      await c.click(end);
      await c.key('Control+A');
      await c.text('10:45');
      await c.key('Enter');
      await toast('Saved.');
      const kept = await page.evaluate<string>('location.pathname');
      const entry = (await siteVisits())[0];
      if (entry.durationSec !== 6300 || !kept.endsWith('/week')) throw new Error(`the end became ${entry.end}`);
      rows.push({
        task: 'Correct an end time',
        toggl: '~2c + 6k',
        steps: `${shown(c.count)}, in place`,
        actions: c.count.clicks + c.count.keys,
        target: 6,
        how: 'open the row, the End field, Ctrl+A, the time, Enter',
      });
    }

    // 8. Delete an entry, with its Undo.
    {
      const c = counter(page);
      await c.click(page.locator('li.entry', { hasText: 'Site visit' }).getByRole('button', { name: 'Delete Site visit' }));
      await toast('Deleted');
      if ((await siteVisits()).length !== 0) throw new Error('the entry is still there');
      await page.getByRole('button', { name: 'Undo' }).waitFor();
      rows.push({
        task: 'Delete an entry',
        toggl: '2c',
        steps: `${shown(c.count)} + Undo for 10 s`,
        actions: c.count.clicks + c.count.keys,
        target: 1,
        how: '✕ on its row; the toast offers Undo',
      });
    }
  } finally {
    clearInterval(ticking);
    await browser.close();
    await server.close();
  }
  console.log('\nthe working day in steps (Chromium; c = click, k = key beyond the text):\n');
  console.log('| Task | timetrack | actions | Toggl | target | how |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.task} | ${r.steps} | ${r.actions} | ${r.toggl} | ≤ ${r.target}${r.task.startsWith('Add') ? ' + N' : ''} | ${r.how} |`,
    );
  const over = rows.filter((r) => r.actions > r.target);
  if (over.length > 0) {
    console.error(`\nover the target: ${over.map((r) => r.task).join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
