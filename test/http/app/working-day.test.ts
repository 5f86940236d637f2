import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The working day in the web app over real HTTP (issue 36): continue, suggestions while typing,
 * the running timer edited in place, adding time on a day, versions, Delete with Undo, the rows'
 * facts, the timesheet, preferences. The browser's side (keys, swaps) is in test/browser/app.test.ts.
 */
describe('web app: the working day', () => {
  // One server for the file; each test has a fresh workspace and owner in it, at the start instant.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    // Monday 2 November 2026, 10:00:30 UTC.
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  const post = async (action: string, form: Record<string, string | string[]>, from = '/app/week') =>
    owner.post(action, { _csrf: SettingsClient.csrf((await owner.get(from)).text), ...form });
  const api = (method: string, path: string, json?: unknown) => server.request(method, path, json === undefined ? {} : { json });
  const entry = async (id: string) => (await api('GET', `/api/v1/entries/${id}`)).body.data;

  /** Acme (client) with Audit (billable, 120/h) and its task Fieldwork; a tag; one past entry on them. */
  async function catalog() {
    const client = (await api('POST', '/api/v1/clients', { name: 'Acme' })).body.data;
    const audit = (await api('POST', '/api/v1/projects', { name: 'Audit', clientId: client.id, billable: true, hourlyRate: 120 })).body
      .data;
    const house = (await api('POST', '/api/v1/projects', { name: 'In-house' })).body.data;
    const task = (await api('POST', '/api/v1/tasks', { name: 'Fieldwork', projectId: audit.id })).body.data;
    const tag = (await api('POST', '/api/v1/tags', { name: 'onsite' })).body.data;
    const past = (
      await api('POST', '/api/v1/entries', {
        start: '2026-10-30T09:00:00Z',
        end: '2026-10-30T11:00:00Z',
        description: 'Audit kickoff',
        projectId: audit.id,
        taskId: task.id,
        tagIds: [tag.id],
      })
    ).body.data;
    return { client, audit, house, task, tag, past };
  }

  it('▶ continues a past entry as a timer (description, project, task, tags, billable); switching while one runs stops that one', async () => {
    const { audit, task, tag, past } = await catalog();
    await api('POST', '/api/v1/entries/current', { description: 'Something else' });
    const running = (await api('GET', '/api/v1/entries/current')).body.data;
    server.clock.advance(60_000);
    const page = flat((await owner.get('/app/week?date=2026-10-30')).text);
    expect(page).to.include(`formaction="/app/entries/${past.id}/continue"`);
    expect(page).to.include('aria-label="Continue Audit kickoff"');
    const continued = await post(`/app/entries/${past.id}/continue`, { week: '' });
    expect([continued.status, continued.headers.get('location')]).to.deep.equal([303, '/app/week']);
    const now = (await api('GET', '/api/v1/entries/current')).body.data;
    expect(now).to.include({ description: 'Audit kickoff', projectId: audit.id, taskId: task.id, billable: true, source: 'web' });
    expect(now.tagIds).to.deep.equal([tag.id]);
    expect(now.id).not.to.equal(past.id);
    expect(await entry(running.id)).to.include({ end: now.start });
    expect(flat((await owner.get('/app/week')).text)).to.include('Started “Audit kickoff” again.');
  });

  it('suggests the member’s own past entries of the last 90 days as they type, the most used first; choosing fills the rest', async () => {
    const { audit, task, tag } = await catalog();
    for (const day of ['2026-10-27', '2026-10-28']) {
      await api('POST', '/api/v1/entries', {
        start: `${day}T09:00:00Z`,
        end: `${day}T10:00:00Z`,
        description: 'Audit fieldwork',
        projectId: audit.id,
      });
    }
    // Older than 90 days, and a colleague's: never suggested.
    await api('POST', '/api/v1/entries', { start: '2026-07-01T09:00:00Z', end: '2026-07-01T10:00:00Z', description: 'Audit archive' });
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const beas = server.services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      name: 'b',
      scopes: ['entries:write'],
    });
    await server.request('POST', '/api/v1/entries', {
      token: beas.token,
      json: { start: '2026-10-29T09:00:00Z', end: '2026-10-29T10:00:00Z', description: 'Audit of Bea' },
    });
    server.services.entries.catchUpSearchIndex();
    const answer = await owner.get('/app/suggest?q=AUD');
    expect(answer.status).to.equal(200);
    const { data } = JSON.parse(answer.text) as { data: Array<Record<string, unknown>> };
    expect(data.map((s) => s.description)).to.deep.equal(['Audit fieldwork', 'Audit kickoff']);
    expect(data[0]).to.include({ projectId: audit.id, projectName: 'Audit', clientName: 'Acme', uses: 2, billable: true });
    expect(data[1]).to.include({ taskId: task.id, taskName: 'Fieldwork' });
    expect(data[1]?.tagIds).to.deep.equal([tag.id]);
    expect(JSON.parse((await owner.get('/app/suggest?q=zzz')).text)).to.deep.equal({ data: [] });
    // Signed out: no suggestions.
    expect((await new SettingsClient(server).get('/app/suggest?q=aud')).status).to.equal(303);
  });

  it('starts a timer with its tags, Billable and a start in the past; edits the running one in place (what, project, tags, billable, start)', async () => {
    const { audit, house, tag } = await catalog();
    const started = await post('/app/timer/start', {
      description: 'Site visit',
      projectId: audit.id,
      tagIds: [tag.id],
      tagsShown: 'true',
      billableFor: audit.id,
      startedAt: '-10m',
      week: '',
    });
    expect(started.status).to.equal(303);
    const running = (await api('GET', '/api/v1/entries/current')).body.data;
    expect(running).to.include({ description: 'Site visit', projectId: audit.id, billable: false, start: '2026-11-02T09:50:30.000Z' });
    expect(running.tagIds).to.deep.equal([tag.id]);
    const page = flat((await owner.get('/app/week')).text);
    expect(page).to.match(/id="timer-start"[^>]*value="09:50"/);
    expect(page).to.include(`<input type="hidden" name="version" value="${running.updatedAt}" />`);
    server.clock.advance(1_000);
    const saved = await post('/app/timer/save', {
      description: 'Site visit, day 1',
      projectId: house.id,
      tagsShown: 'true',
      billableFor: house.id,
      billable: 'true',
      startedAt: '09:12',
      version: running.updatedAt,
      week: '',
    });
    expect(saved.status).to.equal(303);
    const now = (await api('GET', '/api/v1/entries/current')).body.data;
    expect(now).to.include({
      id: running.id,
      description: 'Site visit, day 1',
      projectId: house.id,
      billable: true,
      start: '2026-11-02T09:12:00.000Z',
    });
    expect(now.tagIds).to.deep.equal([]);
    // A stale version (another tab saved meanwhile): refused, the newer values shown.
    const stale = await post('/app/timer/save', { description: 'Old tab', startedAt: '09:12', version: running.updatedAt, week: '' });
    expect(stale.status).to.equal(409);
    expect(flat(stale.text)).to.include('was changed elsewhere since you opened it: its newer values are shown.');
    expect(flat(stale.text)).to.match(/id="timer-description"[^>]*value="Site visit, day 1"/);
    expect((await api('GET', '/api/v1/entries/current')).body.data.description).to.equal('Site visit, day 1');
  });

  it('two tabs editing one entry: the second save is refused with the newer values, never a silent overwrite', async () => {
    const { past } = await catalog();
    const form = { day: '2026-10-30', start: '09:00', end: '11:00', week: '2026-10-26', version: past.updatedAt };
    server.clock.advance(1_000);
    expect((await post(`/app/entries/${past.id}`, { ...form, description: 'First tab' })).status).to.equal(303);
    const second = await post(`/app/entries/${past.id}`, { ...form, description: 'Second tab' });
    expect(second.status).to.equal(409);
    const shown = flat(second.text);
    expect(shown).to.include('This entry was changed elsewhere since you opened it: its newer values are shown.');
    expect(shown).to.match(new RegExp(`id="${past.id}-description"[^>]*value="First tab"`));
    expect((await entry(past.id)).description).to.equal('First tab');
  });

  it('Delete is undone within 10 seconds: the same entry comes back with its id, rate and tags; the events say deleted, then created again; later it is too late', async () => {
    const { tag, past } = await catalog();
    const before = await entry(past.id);
    const deleted = await post(`/app/entries/${past.id}/delete`, { week: '2026-10-26' });
    expect([deleted.status, deleted.headers.get('location')]).to.deep.equal([303, '/app/week?date=2026-10-26#day-2026-10-30']);
    expect((await api('GET', `/api/v1/entries/${past.id}`)).status).to.equal(404);
    const page = flat((await owner.get('/app/week?date=2026-10-26')).text);
    expect(page).to.include('Deleted “Audit kickoff”.');
    expect(page).to.include(`action="/app/entries/${past.id}/restore" data-inplace data-undo-ms="10000"`);
    server.clock.advance(9_000);
    const undone = await post(`/app/entries/${past.id}/restore`, { week: '2026-10-26' }, '/app/week?date=2026-10-26');
    expect([undone.status, undone.headers.get('location')]).to.deep.equal([303, `/app/week?date=2026-10-26#e-${past.id}`]);
    const back = await entry(past.id);
    const { updatedAt: _updated, tagIds: _tags, runaway: _runaway, ...same } = before;
    expect(back).to.include({ ...same, id: past.id, hourlyRate: 120, createdAt: before.createdAt });
    expect(back.tagIds).to.deep.equal([tag.id]);
    const events = server.services.events
      .feed(0)
      .filter((e) => e.entityId === past.id)
      .map((e) => e.operation);
    expect(events.slice(-2)).to.deep.equal(['delete', 'create']);
    // Too late: a second delete, then 11 seconds.
    expect((await post(`/app/entries/${past.id}/delete`, { week: '' })).status).to.equal(303);
    server.clock.advance(11_000);
    const late = await post(`/app/entries/${past.id}/restore`, { week: '' });
    expect(late.status).to.equal(400);
    expect(flat(late.text)).to.include(
      'Too late to undo: a deleted entry can be brought back for 10 seconds only. Add it again if you need it.',
    );
    expect((await api('GET', `/api/v1/entries/${past.id}`)).status).to.equal(404);
  });

  it('Undo of a deleted running timer while another runs: 409 with a sentence, nothing lost; after a Stop the Undo brings it back running (issue 44 L4)', async () => {
    const first = (await api('POST', '/api/v1/entries/current', { description: 'Call with Acme' })).body.data;
    server.clock.advance(60_000);
    const deleted = await post(`/app/entries/${first.id}/delete`, { week: '' });
    expect(deleted.status).to.equal(303);
    const second = (await api('POST', '/api/v1/entries/current', { description: 'Review' })).body.data;
    server.clock.advance(2_000);
    const refused = await post(`/app/entries/${first.id}/restore`, { week: '' });
    expect(refused.status).to.equal(409);
    expect(flat(refused.text)).to.include(
      'The deleted timer “Call with Acme” cannot run again while your timer “Review” runs: only one timer runs at a time. Stop that timer, then Undo again (within 10 seconds of the delete), or add the deleted time by hand.',
    );
    // Nothing lost: the other timer still runs, the deleted one can still be undone.
    expect((await api('GET', '/api/v1/entries/current')).body.data).to.include({ id: second.id, end: null });
    expect((await api('GET', `/api/v1/entries/${first.id}`)).status).to.equal(404);
    expect((await api('POST', '/api/v1/entries/current/stop', {})).status).to.equal(200);
    const undone = await post(`/app/entries/${first.id}/restore`, { week: '' });
    expect([undone.status, undone.headers.get('location')]).to.deep.equal([303, `/app/week#e-${first.id}`]);
    expect((await api('GET', '/api/v1/entries/current')).body.data).to.include({ id: first.id, description: 'Call with Acme', end: null });
    expect(await entry(second.id)).to.include({ description: 'Review' });
  });

  it('rows show client, project colour, task, tags and the Billable mark; the week’s total by project; a “+” on each day opens Add time there', async () => {
    await catalog();
    const raw = (await owner.get('/app/week?date=2026-10-30')).text;
    const page = flat(raw);
    expect(page).to.match(/<span class="client">Acme<\/span> · Audit \/ <span class="task">Fieldwork<\/span><\/span\s*>/);
    // The Billable mark shares a flex item with the piece before it: never alone on a line of its own under a long name.
    expect(raw).to.include(
      '<span class="marked"><span class="tags"><span class="tag">onsite</span></span><span class="money" title="Billable">',
    );
    expect(page).to.include('<span class="tags"><span class="tag">onsite</span></span>');
    expect(page).to.include(
      '<span class="money" title="Billable"><span aria-hidden="true">€</span><span class="vh">billable</span></span>',
    );
    expect(page).to.match(/<ul class="by-project" aria-label="The week by project"> <li>.*Audit <strong>2:00<\/strong><\/li>/);
    expect(page).to.include('href="/app/week?date=2026-10-26&amp;add=2026-10-29#add-form" data-add-day="2026-10-29"');
    expect(page).not.to.include('id="add-form"');
    const adding = flat((await owner.get('/app/week?date=2026-10-26&add=2026-10-29')).text);
    expect(adding).to.match(/<section class="day" id="day-2026-10-29"[^>]*>.*<form class="add" id="add-form"/);
    expect(adding).to.match(/id="add-day"[^>]*value="2026-10-29"/);
    // Projects grouped by their client in every picker.
    expect(adding).to.match(
      /<optgroup label="Acme"><option value="prj_[^"]+" data-billable="true"\s*>Audit<\/option><\/optgroup\s*>\s*<optgroup label="No client">/,
    );
  });

  it('writes times as the member prefers (24- or 12-hour), in the colours they chose; the app can be installed (a manifest and icons)', async () => {
    await catalog();
    const profile = await owner.get('/app/profile');
    const saved = await owner.post('/app/profile', {
      _csrf: SettingsClient.csrf(profile.text),
      name: 'Owner',
      email: server.ownerEmail,
      timeZone: 'UTC',
      weekStart: 'monday',
      timeFormat: '12h',
      theme: 'dark',
    });
    expect(saved.status).to.equal(303);
    const page = flat((await owner.get('/app/week?date=2026-10-30')).text);
    expect(page).to.include('<span class="when">9:00 AM–11:00 AM</span>');
    expect(page).to.include('<html lang="en" data-theme="dark">');
    const manifestPath = /<link rel="manifest" href="([^"]+)"/.exec(page)?.[1] as string;
    const manifest = await fetch(`${server.url}${manifestPath}`);
    expect(manifest.headers.get('content-type')).to.equal('application/manifest+json');
    const json = (await manifest.json()) as { start_url: string; display: string; icons: Array<{ src: string; sizes: string }> };
    expect(json).to.include({ start_url: '/app/week', display: 'standalone' });
    expect(json.icons.map((i) => i.sizes)).to.deep.equal(['192x192', '512x512']);
    const icon = await fetch(new URL(json.icons[0]?.src as string, `${server.url}${manifestPath}`));
    expect([icon.status, icon.headers.get('content-type')]).to.deep.equal([200, 'image/png']);
    // 12-hour times are read as typed.
    const added = await post('/app/entries', {
      description: 'Evening',
      day: '2026-11-02',
      startTime: '7:15 pm',
      duration: '45m',
      week: '',
    });
    expect(added.status).to.equal(303);
    const evening = (await api('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02')).body.data.find(
      (e: { description: string }) => e.description === 'Evening',
    );
    expect(evening).to.include({ start: '2026-11-02T19:15:00.000Z', end: '2026-11-02T20:00:00.000Z' });
  });

  /** The timesheet's rows as they read (label, then each day's field value, then the total). */
  const sheetRows = (page: string) =>
    [...flat(page).matchAll(/<tr>\s*<th scope="row">(?!Total<)(.*?)<\/th>(.*?)<\/tr>/g)].map((m) => [
      (m[1] as string)
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
      ...[...(m[2] as string).matchAll(/<td class="cell num[^"]*"[^>]*>(.*?)<\/td>/g)].map(
        (c) => /name="cell:[^"]*"[^>]*value="([^"]*)"/.exec(c[1] as string)?.[1] ?? (c[1] as string).replace(/<[^>]+>/g, '').trim(),
      ),
      /<td class="num">([^<]*)<\/td>\s*$/.exec(m[2] as string)?.[1] ?? '',
    ]);
  /** The timesheet's form as the page sends it, with some cells typed anew. */
  const sheetForm = (page: string, typed: Record<string, string>) => {
    const form: Record<string, string> = { _csrf: SettingsClient.csrf(page) };
    for (const m of flat(page).matchAll(/<input[^>]*name="((?:cell|was|week|day):[^"]*|week|day)"[^>]*value="([^"]*)"/g))
      form[m[1] as string] = m[2] as string;
    return { ...form, ...typed };
  };
  const cell = (projectId: string | null, taskId: string | null, day: string) => `cell:${projectId ?? 'none'}.${taskId ?? 'none'}:${day}`;

  it('the timesheet: rows of project and task in the order their labels read, numbers right-aligned, a week picker', async () => {
    const { audit, house, task } = await catalog();
    const zulu = (await api('POST', '/api/v1/clients', { name: 'Zulu' })).body.data;
    const bravo = (await api('POST', '/api/v1/projects', { name: 'Bravo', clientId: zulu.id })).body.data;
    for (const [day, projectId, taskId] of [
      ['27', bravo.id, null],
      ['27', house.id, null],
      ['28', audit.id, null],
      ['28', null, null],
      ['29', audit.id, task.id],
    ] as const)
      await api('POST', '/api/v1/entries', {
        start: `2026-10-${day}T13:00:00Z`,
        end: `2026-10-${day}T14:30:00Z`,
        ...(projectId ? { projectId } : {}),
        ...(taskId ? { taskId } : {}),
      });
    const page = (await owner.get('/app/timesheet?date=2026-10-28')).text;
    expect(flat(page)).to.include('<h1>Timesheet: 26 Oct – 1 Nov 2026</h1>');
    // Client · project / task, as Harvest's rows; sorted as they read (Zulu · Bravo after In-house), time without a project last.
    expect(sheetRows(page)).to.deep.equal([
      ['Acme · Audit', '', '', '1:30', '', '', '', '', '1:30'],
      ['Acme · Audit / Fieldwork', '', '', '', '1:30', '2:00', '', '', '3:30'],
      ['In-house', '', '1:30', '', '', '', '', '', '1:30'],
      ['Zulu · Bravo', '', '1:30', '', '', '', '', '', '1:30'],
      ['No project', '', '', '1:30', '', '', '', '', '1:30'],
    ]);
    expect(flat(page)).to.include(
      `<label class="vh" for="c-${audit.id}-${task.id}-2026-10-30">Acme · Audit / Fieldwork, Friday 30 October</label>`,
    );
    // Every figure is right-aligned (class num): the days' heads, the cells, the totals.
    expect(flat(page)).to.match(/<th scope="col" class="cell num[^"]*" data-day="2026-10-26">Mon 26<\/th>/);
    expect(flat(page)).to.include('<th scope="col" class="num">Total</th>');
    // A week picker, as on the week; a new row offers the projects and tasks without one.
    expect(flat(page)).to.include('<input id="sheet-date" type="date" name="date" value="2026-10-26" />');
    const offered = [...flat(page).matchAll(/<option value="([^"]+)" >([^<]+)<\/option>/g)].map((m) => m[2]);
    expect(offered).to.deep.equal([]);
    await api('POST', '/api/v1/tasks', { name: 'Design', projectId: bravo.id });
    const later = flat((await owner.get('/app/timesheet?date=2026-10-28')).text);
    const options = [...later.matchAll(/<select id="sheet-new" name="newRow">(.*?)<\/select>/g)].map((m) =>
      [...(m[1] as string).matchAll(/>([^<]+)<\/option>/g)].map((o) => (o[1] as string).trim()),
    );
    expect(options).to.deep.equal([['Another project or task…', 'Zulu · Bravo / Design']]);
  });

  it('the timesheet sets a cell’s time: more is one entry after the day’s last, less is taken from time typed there (the latest first), cleared is none', async () => {
    const { audit, house, task } = await catalog();
    const at = (path = '/app/timesheet?date=2026-10-26') => owner.get(path).then((r) => r.text);
    const save = async (typed: Record<string, string>) => owner.post('/app/timesheet', sheetForm(await at(), typed));
    const day = async (date: string) =>
      ((await api('GET', `/api/v1/entries?from=${date}&to=${date}`)).body.data as Array<Record<string, string>>)
        .map((e) => `${e.start?.slice(11, 16)}–${e.end?.slice(11, 16)} ${e.projectId === house.id ? 'In-house' : 'Audit'} ${e.description}`)
        .sort();
    // Friday 30 holds “Audit kickoff” (2:00, with a description): 3 adds an hour after it.
    expect((await save({ [cell(audit.id, task.id, '2026-10-30')]: '3' })).status).to.equal(303);
    expect(await day('2026-10-30')).to.deep.equal(['09:00–11:00 Audit Audit kickoff', '11:00–12:00 Audit ']);
    expect(flat(await at())).to.include('Saved 1 cell.');
    // 2:30 takes half an hour back from the hour typed here; “Audit kickoff” stays.
    expect((await save({ [cell(audit.id, task.id, '2026-10-30')]: '2:30' })).status).to.equal(303);
    expect(await day('2026-10-30')).to.deep.equal(['09:00–11:00 Audit Audit kickoff', '11:00–11:30 Audit ']);
    // Below its described time the cell cannot go: refused at the cell, the value kept, nothing changed.
    const below = await save({ [cell(audit.id, task.id, '2026-10-30')]: '' });
    expect(below.status).to.equal(400);
    expect(flat(below.text)).to.include(
      `<span class="field-error" id="c-${audit.id}-${task.id}-2026-10-30-error">This cell goes down to 2:00, not below: that time has a description or tags (from the week or a timer), which the timesheet leaves as it is. Change it on the week.</span>`,
    );
    expect(await day('2026-10-30')).to.deep.equal(['09:00–11:00 Audit Audit kickoff', '11:00–11:30 Audit ']);
    // A new row: In-house on Tuesday, 1 then 2 (a second entry), then 0:30: the latest goes, the first ends earlier.
    expect(
      (await owner.post('/app/timesheet', sheetForm(await at(), { newRow: `${house.id}.none`, 'cell:new:2026-10-27': '1' }))).status,
    ).to.equal(303);
    expect((await save({ [cell(house.id, null, '2026-10-27')]: '2' })).status).to.equal(303);
    expect(await day('2026-10-27')).to.deep.equal(['09:00–10:00 In-house ', '10:00–11:00 In-house ']);
    const down = await save({ [cell(house.id, null, '2026-10-27')]: '0:30' });
    expect(down.status).to.equal(303);
    expect(await day('2026-10-27')).to.deep.equal(['09:00–09:30 In-house ']);
    // Its Undo brings back both, as they were.
    const undo = /<form class="inline undo"[^>]*>(.*?)<\/form>/.exec(flat(await at()))?.[1] ?? '';
    const values = (name: string) => [...undo.matchAll(new RegExp(`name="${name}" value="([^"]+)"`, 'g'))].map((m) => m[1] as string);
    expect([values('shortened').length, values('removed').length]).to.deep.equal([1, 1]);
    const undone = await owner.post('/app/timesheet/undo', {
      _csrf: SettingsClient.csrf(await at()),
      week: '2026-10-26',
      shortened: values('shortened'),
      removed: values('removed'),
    });
    expect(undone.status).to.equal(303);
    expect(await day('2026-10-27')).to.deep.equal(['09:00–10:00 In-house ', '10:00–11:00 In-house ']);
    // Cleared: none left.
    expect((await save({ [cell(house.id, null, '2026-10-27')]: '' })).status).to.equal(303);
    expect(await day('2026-10-27')).to.deep.equal([]);
    expect(sheetRows(await at()).map((r) => r[0])).to.deep.equal(['Acme · Audit / Fieldwork']);
  });

  it('the timesheet leaves a running timer’s cell alone, refuses a cell changed meanwhile and a bad one, and saves nothing then', async () => {
    const { audit, house } = await catalog();
    await api('POST', '/api/v1/entries/current', { projectId: house.id, start: '2026-11-02T09:00:00Z' });
    const page = await owner.get('/app/timesheet');
    expect(sheetRows(page.text).find((r) => r[0] === 'In-house')).to.deep.equal([
      'In-house',
      '1:00timer runs',
      '',
      '',
      '',
      '',
      '',
      '',
      '1:00',
    ]);
    expect(flat(page.text)).not.to.include(`name="${cell(house.id, null, '2026-11-02')}"`);
    const form = sheetForm(page.text, {
      [cell(house.id, null, '2026-11-02')]: '0:10',
      newRow: `${audit.id}.none`,
      'cell:new:2026-11-03': 'lots',
    });
    const refused = await owner.post('/app/timesheet', form);
    expect(refused.status).to.equal(400);
    expect(flat(refused.text)).to.include('A timer runs in this cell: stop it on the week first.');
    expect(flat(refused.text)).to.include('“lots” is not a duration.');
    expect(flat(refused.text)).to.match(/name="cell:new:2026-11-03"[^>]*value="lots"/);
    // A cell changed in another tab since the page was read: refused, never overwritten.
    const before = await owner.get('/app/timesheet?date=2026-10-26');
    await owner.post('/app/timesheet', sheetForm(before.text, { [cell(audit.id, null, '2026-10-28')]: '1' }));
    const stale = await owner.post('/app/timesheet', sheetForm(before.text, { [cell(audit.id, null, '2026-10-28')]: '2' }));
    expect(stale.status).to.equal(400);
    expect(flat(stale.text)).to.include('This cell changed meanwhile (elsewhere): it holds 1:00 now. Type it again.');
    const week = (await api('GET', '/api/v1/entries?from=2026-10-26&to=2026-11-01')).body.data as Array<{ durationSec: number }>;
    expect(week.map((e) => e.durationSec).sort()).to.deep.equal([3600, 7200]);
  });

  it('one duration rule: a bare number is hours on the week as in the timesheet; a day over 24 h is refused, over 12 h asked again, nothing lost', async () => {
    const { audit } = await catalog();
    const durations = async (date: string) =>
      ((await api('GET', `/api/v1/entries?from=${date}&to=${date}`)).body.data as Array<{ durationSec: number }>)
        .map((e) => e.durationSec)
        .sort((a, b) => a - b);
    // The field says the rule; 2 is two hours there, as in a timesheet cell.
    const week = flat((await owner.get('/app/week?date=2026-10-27&add=2026-10-27')).text);
    expect(week).to.include(
      '<label for="add-duration">or duration <span class="hint">2 or 1.5 = hours, 90m = minutes, 1:30 = 1 h 30 min</span></label>',
    );
    expect(flat((await owner.get('/app/timesheet?date=2026-10-27')).text)).to.include(
      'Type each day’s hours (2 or 1.5 = hours, 90m = minutes, 1:30 = 1 h 30 min)',
    );
    const add = (form: Record<string, string>) =>
      post('/app/entries', { description: 'Survey', day: '2026-10-27', startTime: '08:00', projectId: audit.id, week: '', ...form });
    expect((await add({ duration: '2' })).status).to.equal(303);
    expect(await durations('2026-10-27')).to.deep.equal([7200]);
    // 30 would make 32 hours: refused at the field, with what to do; the form as typed.
    const over = await add({ duration: '30' });
    expect(over.status).to.equal(400);
    expect(flat(over.text)).to.include(
      '<span class="field-error" id="add-duration-error">That makes 32:00 on Tuesday 27 October, more than the 24 hours a day has: nothing was saved. Check the duration (2 is two hours; type 90m for minutes).</span>',
    );
    expect(flat(over.text)).to.match(/id="add-duration" name="duration" value="30"/);
    // 11 makes 13 hours: asked again, the form kept, and its “Yes” saves it.
    const long = await add({ duration: '11' });
    expect(long.status).to.equal(409);
    expect(flat(long.text)).to.include(
      'That makes 13:00 on Tuesday 27 October, more than 12 hours. If that is right, save it again with “Yes, save 13:00”',
    );
    expect(flat(long.text)).to.include('<button type="submit" name="longDay" value="true">Yes, save 13:00</button>');
    expect(flat(long.text)).to.match(/id="add-description"[^>]*value="Survey"/);
    expect(await durations('2026-10-27')).to.deep.equal([7200]);
    expect((await add({ duration: '11', longDay: 'true' })).status).to.equal(303);
    expect(await durations('2026-10-27')).to.deep.equal([7200, 39600]);
    // An edit that lengthens the day past 24 hours is refused too; past 12, asked.
    const [first] = (await api('GET', '/api/v1/entries?from=2026-10-30&to=2026-10-30')).body.data as Array<{
      id: string;
      updatedAt: string;
    }>;
    const edit = (end: string, extra: Record<string, string> = {}) =>
      post(`/app/entries/${first?.id}`, {
        description: 'Audit kickoff',
        day: '2026-10-30',
        start: '09:00',
        end,
        projectId: audit.id,
        version: first?.updatedAt ?? '',
        week: '2026-10-26',
        ...extra,
      });
    const asked = await edit('22:00');
    expect(asked.status).to.equal(409);
    expect(flat(asked.text)).to.include('That makes 13:00 on Friday 30 October, more than 12 hours.');
    expect((await edit('22:00', { longDay: 'true' })).status).to.equal(303);
    // The timesheet: 30 in a cell is thirty hours, refused; 13 is asked again and saved by “Yes, save”.
    const sheet = (await owner.get('/app/timesheet?date=2026-10-26')).text;
    const refused = await owner.post('/app/timesheet', sheetForm(sheet, { [cell(audit.id, null, '2026-10-28')]: '30' }));
    expect(refused.status).to.equal(400);
    expect(flat(refused.text)).to.include('That makes 30:00 on Wednesday 28 October, more than the 24 hours a day has');
    const question = await owner.post('/app/timesheet', sheetForm(sheet, { [cell(audit.id, null, '2026-10-28')]: '13' }));
    expect(question.status).to.equal(409);
    expect(flat(question.text)).to.include('<button type="submit" form="timesheet-form" name="longDay" value="true">Yes, save</button>');
    expect(flat(question.text)).to.match(new RegExp(`name="${cell(audit.id, null, '2026-10-28')}"[^>]*value="13"`));
    expect(await durations('2026-10-28')).to.deep.equal([]);
    const confirmed = await owner.post('/app/timesheet', sheetForm(sheet, { [cell(audit.id, null, '2026-10-28')]: '13', longDay: 'true' }));
    expect(confirmed.status).to.equal(303);
    expect(await durations('2026-10-28')).to.deep.equal([13 * 3600]);
  });

  it('quick entry: @Project / Task and #tag typed whole in a description set them (any case), with or without the script; other words stay text', async () => {
    const { audit, task, tag } = await catalog();
    const started = await post('/app/timer/start', { description: 'Review @audit / FIELDWORK #OnSite, then bob@acme #123', week: '' });
    expect(started.status).to.equal(303);
    const running = (await api('GET', '/api/v1/entries/current')).body.data;
    expect(running).to.include({ description: 'Review, then bob@acme #123', projectId: audit.id, taskId: task.id, billable: true });
    expect(running.tagIds).to.deep.equal([tag.id]);
    // The add form reads it too: a project without a task, the tag ticked besides.
    const added = await post('/app/entries', {
      description: '#onsite Site visit @Audit',
      day: '2026-11-02',
      startTime: '07:00',
      duration: '1:00',
      week: '',
    });
    expect(added.status).to.equal(303);
    const visit = (await api('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02')).body.data.find(
      (e: { description: string }) => e.description === 'Site visit',
    );
    expect(visit).to.include({ projectId: audit.id, taskId: null, billable: true });
    expect(visit.tagIds).to.deep.equal([tag.id]);
  });

  it('a task picker on the timer, Add time and the edit form, its tasks grouped by project; a task picked is saved', async () => {
    const { audit, task, past } = await catalog();
    const week = flat((await owner.get(`/app/week?date=2026-10-30&edit=${past.id}&add=2026-10-30`)).text);
    for (const id of ['timer-task', 'add-task', `${past.id}-task`])
      expect(week).to.match(new RegExp(`<label for="${id}">Task</label> <select id="${id}" name="taskId">`));
    expect(week).to.include(
      `<optgroup label="Audit" data-project="${audit.id}"><option value="${task.id}" data-project="${audit.id}" >Fieldwork</option>`,
    );
    expect(week).to.include(`<option value="${task.id}" data-project="${audit.id}" selected>Fieldwork</option>`);
    const added = await post('/app/entries', {
      description: 'Field day',
      day: '2026-11-02',
      startTime: '06:00',
      duration: '2',
      projectId: audit.id,
      taskId: task.id,
      week: '',
    });
    expect(added.status).to.equal(303);
    const field = (await api('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02')).body.data.find(
      (e: { description: string }) => e.description === 'Field day',
    );
    expect(field).to.include({ projectId: audit.id, taskId: task.id });
  });

  it('while a timer runs: “Start another timer” starts a new one (the running one keeps its words), and a backdated start that overlaps says so', async () => {
    const { audit, past } = await catalog();
    await api('POST', '/api/v1/entries/current', { description: 'Budget review' });
    const first = (await api('GET', '/api/v1/entries/current')).body.data;
    server.clock.advance(60_000);
    const page = flat((await owner.get('/app/week')).text);
    expect(page).to.match(/<details class="next-timer" >\s*<summary>Start another timer <kbd>n<\/kbd>/);
    expect(page).to.match(
      /<form class="timer next" method="post" action="\/app\/timer\/start" aria-label="Another timer" data-inplace\s*>/,
    );
    const next = await post('/app/timer/start', { next: 'true', description: 'Field notes @Audit', week: '' });
    expect(next.status).to.equal(303);
    const now = (await api('GET', '/api/v1/entries/current')).body.data;
    expect(now).to.include({ description: 'Field notes', projectId: audit.id });
    expect(await entry(first.id)).to.include({ description: 'Budget review', end: now.start });
    // Backdated into Friday's entry (09:00–11:00): the timer and the row both say so.
    await post('/app/timer/save', {
      description: 'Field notes',
      projectId: audit.id,
      billableFor: audit.id,
      billable: 'true',
      startedAt: '',
      week: '',
    });
    await api('PATCH', `/api/v1/entries/${now.id}`, { start: '2026-10-30T10:00:00Z' });
    await api('DELETE', `/api/v1/entries/${first.id}`);
    const friday = flat((await owner.get('/app/week?date=2026-10-30')).text);
    expect(friday).to.include(
      'Its start overlaps “Audit kickoff” (09:00–11:00): the same time counts twice unless you change one of them.',
    );
    expect(friday).to.match(new RegExp(`id="e-${past.id}">.*?<span class="overlap" title="Overlaps “Field notes” \\(10:00–now\\)"\\s*>`));
  });

  it('makes a tag from the chips (JSON for the page’s script), with the catalog’s rules', async () => {
    const page = await owner.get('/app/week');
    const made = await owner.post('/app/tags', { _csrf: SettingsClient.csrf(page.text), name: 'urgent' });
    expect(made.status).to.equal(201);
    expect(JSON.parse(made.text).data).to.include({ name: 'urgent' });
    const again = await owner.post('/app/tags', { _csrf: SettingsClient.csrf(page.text), name: 'Urgent' });
    expect(again.status).to.equal(409);
    expect(JSON.parse(again.text).error).to.match(/urgent/i);
  });
});
