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
      startedAt: '-10',
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

  it('rows show client, project colour, tags and the Billable mark; the week’s total by project; a “+” on each day opens Add time there', async () => {
    await catalog();
    const page = flat((await owner.get('/app/week?date=2026-10-30')).text);
    expect(page).to.match(/<span class="client">Acme<\/span> · Audit<\/span\s*>/);
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
    const added = await post('/app/entries', { description: 'Evening', day: '2026-11-02', startTime: '7:15 pm', duration: '45', week: '' });
    expect(added.status).to.equal(303);
    const evening = (await api('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02')).body.data.find(
      (e: { description: string }) => e.description === 'Evening',
    );
    expect(evening).to.include({ start: '2026-11-02T19:15:00.000Z', end: '2026-11-02T20:00:00.000Z' });
  });

  it('the timesheet: projects × days with totals; a duration typed into a cell follows that day’s last entry, or starts at 09:00; a bad cell adds nothing', async () => {
    const { audit, house } = await catalog();
    const sheet = flat((await owner.get('/app/timesheet?date=2026-10-26')).text);
    expect(sheet).to.include('<h1>Timesheet: 26 Oct – 1 Nov 2026</h1>');
    expect(sheet).to.match(/<th scope="row">(?:(?!<\/th>).)*Acme<\/span> · Audit\s*<\/th>/);
    expect(sheet).to.include('<label class="vh" for="c-' + audit.id + '-2026-10-30">Add to Audit on 2026-10-30</label>');
    const csrf = SettingsClient.csrf(sheet);
    // A bad cell: shown there, nothing added.
    const bad = await owner.post('/app/timesheet', {
      _csrf: csrf,
      week: '2026-10-26',
      [`cell:${audit.id}:2026-10-30`]: '1:30',
      [`cell:${audit.id}:2026-10-27`]: 'lots',
    });
    expect(bad.status).to.equal(400);
    expect(flat(bad.text)).to.include(`id="c-${audit.id}-2026-10-27-error">“lots” is not a duration.`);
    expect(flat(bad.text)).to.match(new RegExp(`name="cell:${audit.id}:2026-10-30"[^>]*value="1:30"`));
    expect((await api('GET', '/api/v1/entries?from=2026-10-26&to=2026-11-01')).body.data).to.have.length(1);
    const added = await owner.post('/app/timesheet', {
      _csrf: csrf,
      week: '2026-10-26',
      [`cell:${audit.id}:2026-10-30`]: '1:30',
      [`cell:${audit.id}:2026-10-27`]: '2',
      newProject: house.id,
      'cell:new:2026-10-30': '0.5',
    });
    expect(added.status).to.equal(303);
    const week = (await api('GET', '/api/v1/entries?from=2026-10-26&to=2026-11-01')).body.data as Array<Record<string, unknown>>;
    const spans = week
      .map((e) => [e.projectId === audit.id ? 'Audit' : 'In-house', e.start, e.end])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(spans).to.deep.equal([
      ['Audit', '2026-10-27T09:00:00.000Z', '2026-10-27T11:00:00.000Z'],
      ['Audit', '2026-10-30T09:00:00.000Z', '2026-10-30T11:00:00.000Z'],
      ['Audit', '2026-10-30T11:00:00.000Z', '2026-10-30T12:30:00.000Z'],
      ['In-house', '2026-10-30T12:30:00.000Z', '2026-10-30T13:00:00.000Z'],
    ]);
    const after = flat((await owner.get('/app/timesheet?date=2026-10-26')).text);
    expect(after).to.include('Added 3 entries.');
    expect(after).to.match(/<th scope="row">Total<\/th>.*<td class="num"><strong>6:00<\/strong><\/td>/);
  });

  it('the timesheet reads a bare number as hours (2 = 2 h, 0.5 = 30 min, 90m stays minutes), and its Undo takes back what a post added', async () => {
    const { audit, house } = await catalog();
    const csrf = SettingsClient.csrf((await owner.get('/app/timesheet?date=2026-10-26')).text);
    const added = await owner.post('/app/timesheet', {
      _csrf: csrf,
      week: '2026-10-26',
      [`cell:${audit.id}:2026-10-26`]: '2',
      [`cell:${audit.id}:2026-10-27`]: '0.5',
      [`cell:${audit.id}:2026-10-28`]: '90m',
      newProject: house.id,
      'cell:new:2026-10-29': '1,25',
    });
    expect(added.status).to.equal(303);
    const inWeek = async () =>
      (
        (await api('GET', '/api/v1/entries?from=2026-10-26&to=2026-11-01')).body.data as Array<{
          description: string;
          durationSec: number;
          start: string;
        }>
      )
        .filter((e) => e.description === '')
        .map((e) => [e.start.slice(0, 10), e.durationSec])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(await inWeek()).to.deep.equal([
      ['2026-10-26', 7200],
      ['2026-10-27', 1800],
      ['2026-10-28', 5400],
      ['2026-10-29', 4500],
    ]);
    // The notice after the post carries its Undo (a form: the entries as added, by id and version).
    const sheet = flat((await owner.get(added.headers.get('location') as string)).text);
    expect(sheet).to.include('Added 4 entries.');
    const undo = /<form class="inline undo" method="post" action="\/app\/timesheet\/undo"[^>]*>(.*?)<\/form>/.exec(sheet);
    expect(undo, 'the Undo form').to.not.equal(null);
    const addedValues = [...(undo?.[1] ?? '').matchAll(/name="added" value="([^"]+)"/g)].map((m) => m[1] as string);
    expect(addedValues).to.have.length(4);
    const undone = await owner.post('/app/timesheet/undo', { _csrf: csrf, week: '2026-10-26', day: '2026-10-26', added: addedValues });
    expect([undone.status, undone.headers.get('location')]).to.deep.equal([303, '/app/timesheet?date=2026-10-26&day=2026-10-26']);
    expect(await inWeek()).to.deep.equal([]);
    expect(flat((await owner.get('/app/timesheet?date=2026-10-26')).text)).to.include('Undone: the 4 entries just added went again.');
    // An Undo of time changed since takes nothing back.
    const again = await owner.post('/app/timesheet', { _csrf: csrf, week: '2026-10-26', [`cell:${audit.id}:2026-10-26`]: '1' });
    const form = flat((await owner.get(again.headers.get('location') as string)).text);
    const value = (/name="added" value="([^"]+)"/.exec(form) as RegExpExecArray)[1] as string;
    server.clock.advance(1000);
    await api('PATCH', `/api/v1/entries/${value.split(' ')[0]}`, { description: 'Kept' });
    await owner.post('/app/timesheet/undo', { _csrf: csrf, week: '2026-10-26', added: [value] });
    expect((await entry(value.split(' ')[0] as string)).description).to.equal('Kept');
    expect(flat((await owner.get('/app/timesheet?date=2026-10-26')).text)).to.include('Nothing was undone');
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
