import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startReceiver, verify } from '../../helpers/webhooks.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** The web app (/app) over real HTTP: the week in the member's zone, the timer and entries written as the API writes them, refusals at their fields. */
describe('web app: the week and the timer', () => {
  let server: TestServer;
  let owner: SettingsClient;
  afterEach(() => server.close());

  const week = async (date?: string) => {
    const page = await owner.get(`/app/week${date ? `?date=${date}` : ''}`);
    expect(page.status, page.text.slice(0, 300)).to.equal(200);
    return page;
  };
  const post = async (action: string, form: Record<string, string>, from = '/app/week') =>
    owner.post(action, { _csrf: SettingsClient.csrf((await owner.get(from)).text), ...form });
  const flat = (text: string) => text.replace(/\s+/g, ' ');

  it('starts and stops a timer as the API does (source web), and the stop is delivered as a signed entry.stopped webhook', async () => {
    server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const receiver = await startReceiver(null);
    try {
      const hook = await server.services.webhooks.create(OPERATOR, {
        workspaceId: server.workspaceId,
        userId: server.ownerId,
        url: `http://127.0.0.1:${receiver.port}/hook`,
        events: ['entry.started', 'entry.stopped'],
      });
      const started = await post('/app/timer/start', { description: 'Harbour map', billable: 'true', week: '' });
      expect([started.status, started.headers.get('location')]).to.deep.equal([303, '/app/week']);
      const current = await server.request('GET', '/api/v1/entries/current');
      expect(current.body.data).to.include({ description: 'Harbour map', source: 'web', billable: true, end: null });
      const running = flat((await week()).text);
      expect(running).to.include(`<time data-elapsed-from="${current.body.data.start}"`);
      expect(running).to.include('action="/app/timer/stop"');
      server.clock.advance(90_000);
      const stopped = await post('/app/timer/stop', { week: '' });
      expect(stopped.status).to.equal(303);
      // The stop is said (issue 58 item 6): the week after it shows “Stopped”, not the start's notice.
      expect(flat((await week()).text)).to.include('Stopped “Harbour map” after 0:01.');
      expect((await server.request('GET', `/api/v1/entries/${current.body.data.id}`)).body.data).to.include({
        durationSec: 90,
        source: 'web',
      });
      await server.services.sender.tick();
      const events = receiver.requests.map((r) => r.headers['x-service-event']);
      expect(events).to.deep.equal(['entry.started', 'entry.stopped']);
      const stop = receiver.requests[1]!;
      expect(verify(hook.secret, stop, server.clock.now() / 1000)).to.equal(true);
      expect(stop.json.data.entry).to.include({ id: current.body.data.id, source: 'web' });
    } finally {
      await receiver.close();
    }
  });

  it("shows the member's own week in their zone: a 25-hour day is one day, and its totals match the summary report", async () => {
    server = await startTestServer({ now: Date.parse('2026-10-28T12:00:00Z') });
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const create = (start: string, end: string, description: string) =>
      server.request('POST', '/api/v1/entries', { json: { start, end, description } });
    // Sunday 25 October 2026: clocks go back at 03:00 (CEST) to 02:00 (CET).
    expect((await create('2026-10-25T01:30:00+02:00', '2026-10-25T02:30:00+01:00', 'Across the change')).status).to.equal(200);
    expect((await create('2026-10-25T23:30:00+01:00', '2026-10-26T00:30:00+01:00', 'Late Sunday')).status).to.equal(200);
    expect((await create('2026-10-19T00:10:00+02:00', '2026-10-19T01:00:00+02:00', 'Early Monday')).status).to.equal(200);
    expect((await create('2026-10-18T23:00:00+02:00', '2026-10-18T23:50:00+02:00', 'The Sunday before')).status).to.equal(200);
    const page = flat((await week('2026-10-21')).text);
    expect(page).to.include('<h1>Week of 19 Oct – 25 Oct 2026</h1>');
    const dayTotal = (day: string) =>
      new RegExp(`<span>${day}</span>(?:(?!</h2>).)*<span class="day-total">([0-9:]+)</span>`).exec(page)?.[1];
    expect(dayTotal('Monday 19 October')).to.equal('0:50');
    expect(dayTotal('Sunday 25 October')).to.equal('3:00');
    expect(page).to.include('<span class="when">01:30–02:30</span>');
    expect(page).not.to.include('The Sunday before');
    expect(page).to.include('Week total <strong>3:50</strong> <span class="hint">times in Europe/Berlin</span>');
    const summary = await server.request(
      'GET',
      '/api/v1/reports/summary?from=2026-10-19&to=2026-10-25&timeZone=Europe/Berlin&groupBy=project',
    );
    expect(summary.status).to.equal(200);
    expect(summary.body.data.totals.durationSec).to.equal(3 * 3600 + 50 * 60);
    // A week starting on Sunday, by the member's choice.
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { weekStart: 'sunday' });
    expect(flat((await week('2026-10-21')).text)).to.include('<h1>Week of 18 Oct – 24 Oct 2026</h1>');
  });

  it('refuses bad input at its field with the API’s own message, keeps what was typed, and changes nothing', async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const made = await server.request('POST', '/api/v1/entries', {
      json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: 'Plan' },
    });
    const id = made.body.data.id as string;
    const long = 'x'.repeat(501);
    const edit = (fields: Record<string, string>) =>
      post(`/app/entries/${id}`, { description: 'Plan', day: '2026-11-02', start: '08:00', end: '09:00', week: '', ...fields });
    const tooLong = await edit({ description: long });
    expect(tooLong.status).to.equal(400);
    const shown = flat(tooLong.text);
    expect(shown).to.match(
      new RegExp(`id="${id}-description"[^>]*value="${long}"[^>]*aria-invalid="true" aria-describedby="${id}-description-error"`),
    );
    expect(shown).to.include(
      `<span class="field-error" id="${id}-description-error">description: must NOT have more than 500 characters</span>`,
    );
    // An end before the start: a question in a person's words, at the end; with "ends the next day" it is the next day.
    const backwards = await edit({ start: '22:00', end: '01:00' });
    expect(backwards.status).to.equal(400);
    expect(flat(backwards.text)).to.include(
      `<span class="field-error" id="${id}-end-error">The end (01:00) is before the start (22:00). Did you mean the next day? Tick “Ends the next day”.</span>`,
    );
    expect(flat(backwards.text)).to.match(new RegExp(`id="${id}-start"[^>]*value="22:00"`));
    const noEnd = await post('/app/entries', {
      description: 'Call',
      day: '2026-11-02',
      startTime: '10:00',
      endTime: '',
      duration: '',
      week: '',
    });
    expect(noEnd.status).to.equal(400);
    expect(flat(noEnd.text)).to.include(
      '<span class="field-error" id="add-end-error">Give an end time or a duration, such as 17:00 or 1:30.</span>',
    );
    const badDuration = await post('/app/entries', {
      description: 'Call',
      day: '2026-11-02',
      startTime: '10:00',
      duration: 'ages',
      week: '',
    });
    expect(flat(badDuration.text)).to.include(
      'id="add-duration-error">“ages” is not a duration. Type hours as 2 or 1.5, minutes as 90m, or both as 1:30.</span>',
    );
    // The refused add form stays open at its day, with what was typed.
    expect(flat(badDuration.text)).to.match(/id="add-description"[^>]*value="Call"/);
    const badTime = await post('/app/entries', { description: 'Call', day: '2026-11-02', startTime: '25:99', duration: '1:00', week: '' });
    expect(flat(badTime.text)).to.include('id="add-start-error">“25:99” is not a start time. Type it as 09:30, 930 or 9:30 am.</span>');
    expect((await server.request('GET', `/api/v1/entries/${id}`)).body.data).to.include({
      description: 'Plan',
      start: '2026-11-02T08:00:00.000Z',
    });
    expect((await server.request('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02')).body.data).to.have.length(1);
    // Added by duration, in the member's zone (the server's, UTC, until they choose one); back at the new row.
    for (const [duration, minutes] of [
      ['1:30', 90],
      ['1.5', 90],
      ['2', 120],
      ['90m', 90],
      ['1h30', 90],
      ['45m', 45],
      ['2h', 120],
    ] as const) {
      const added = await post('/app/entries', {
        description: `Call ${duration}`,
        day: '2026-11-03',
        startTime: '10:00',
        duration,
        week: '2026-11-02',
      });
      expect(added.status, duration).to.equal(303);
      expect(added.headers.get('location')).to.match(/^\/app\/week\?date=2026-11-02#e-ent_/);
      const made = (await server.request('GET', '/api/v1/entries?from=2026-11-03&to=2026-11-03')).body.data.find(
        (e: { description: string }) => e.description === `Call ${duration}`,
      );
      expect(made, duration).to.include({ start: '2026-11-03T10:00:00.000Z', durationSec: minutes * 60, source: 'web' });
    }
    // Past midnight, when the member says so.
    const late = await post('/app/entries', {
      description: 'Night shift',
      day: '2026-11-04',
      startTime: '22:30',
      endTime: '01:15',
      nextDay: 'true',
      week: '',
    });
    expect(late.status).to.equal(303);
    const night = (await server.request('GET', '/api/v1/entries?from=2026-11-04&to=2026-11-05')).body.data.find(
      (e: { description: string }) => e.description === 'Night shift',
    );
    expect(night).to.include({ start: '2026-11-04T22:30:00.000Z', end: '2026-11-05T01:15:00.000Z' });
    // The week links each entry's description to its form; only the one being edited carries it.
    const listed2 = flat((await week('2026-11-02')).text);
    expect(listed2).to.include(
      `<a class="what" href="/app/week?date=2026-11-02&amp;edit=${id}#e-${id}" data-edit="${id}">Plan<span class="vh"> (edit)</span></a>`,
    );
    expect(listed2).not.to.include(`action="/app/entries/${id}"`);
    const editing = flat((await owner.get(`/app/week?date=2026-11-02&edit=${id}`)).text);
    expect(editing).to.include(`action="/app/entries/${id}"`);
    expect(editing).to.include(`action="/app/entries/${id}/delete"`);
    expect((await post(`/app/entries/${id}/delete`, { week: '' })).status).to.equal(303);
    expect((await server.request('GET', `/api/v1/entries/${id}`)).status).to.equal(404);
  });

  it('leaves Billable to the project unless the form showed that project’s state (no script): adding, the timer, and an edit that changes the project', async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const audit = (await server.request('POST', '/api/v1/projects', { json: { name: 'Audit', billable: true, hourlyRate: 120 } })).body
      .data;
    const house = (await server.request('POST', '/api/v1/projects', { json: { name: 'In-house', billable: false } })).body.data;
    // The week renders every form's box for "no project"; its options carry each project's default for the script.
    const page = flat((await week('2026-11-02')).text);
    expect(page).to.include('<input type="hidden" name="billableFor" value="" />');
    expect(page).to.include(`<option value="${audit.id}" data-billable="true" >Audit</option>`);
    const entries = async () => (await server.request('GET', '/api/v1/entries?from=2026-11-02&to=2026-11-02')).body.data;
    const add = (description: string, extra: Record<string, string>) =>
      post('/app/entries', { description, day: '2026-11-02', startTime: '09:00', duration: '2:00', week: '2026-11-02', ...extra });
    // Project chosen, box untouched (it showed "no project"): the project's default, with its money.
    expect((await add('Untouched', { projectId: audit.id, billableFor: '' })).status).to.equal(303);
    // The box showed Audit's state and the member unticked it: not billable.
    expect((await add('Unticked', { projectId: audit.id, billableFor: audit.id })).status).to.equal(303);
    const byName = (list: Array<{ description: string }>, d: string) => list.find((e) => e.description === d);
    const list = await entries();
    expect(byName(list, 'Untouched')).to.include({ billable: true, hourlyRate: 120, amount: 240 });
    expect(byName(list, 'Unticked')).to.include({ billable: false, amount: 0 });
    // The timer: the same rule.
    expect((await post('/app/timer/start', { description: 'Running', projectId: audit.id, billableFor: '', week: '' })).status).to.equal(
      303,
    );
    expect((await server.request('GET', '/api/v1/entries/current')).body.data).to.include({ billable: true });
    // An edit moving an entry to a non-billable project without touching the box (it still shows Audit's): that project's default.
    const untouched = byName(list, 'Untouched') as unknown as { id: string; start: string; end: string };
    const edited = await post(`/app/entries/${untouched.id}`, {
      description: 'Untouched',
      day: '2026-11-02',
      start: '09:00',
      end: '11:00',
      projectId: house.id,
      billableFor: audit.id,
      billable: 'true',
      week: '2026-11-02',
    });
    expect(edited.status).to.equal(303);
    expect((await server.request('GET', `/api/v1/entries/${untouched.id}`)).body.data).to.include({ billable: false, projectId: house.id });
  });

  it("carries tags; shows a colleague's or the team's week read-only to those who may see colleagues' time, and only one's own to others", async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const tag = await server.request('POST', '/api/v1/tags', { json: { name: 'meeting' } });
    expect(
      (await post('/app/timer/start', { description: 'Stand-up', tagIds: tag.body.data.id, tagsShown: 'true', week: '' })).status,
    ).to.equal(303);
    expect((await server.request('GET', '/api/v1/entries/current')).body.data.tagIds).to.deep.equal([tag.body.data.id]);
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const beaToken = server.services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      name: 'b',
      scopes: ['entries:write'],
    }).token;
    await server.request('POST', '/api/v1/entries', {
      token: beaToken,
      json: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', description: 'Bea writes' },
    });
    const project = await server.request('POST', '/api/v1/projects', { json: { name: 'Harbour', color: '#c2185b' } });
    await server.request('POST', '/api/v1/entries', {
      json: { start: '2026-11-02T07:00:00Z', end: '2026-11-02T07:30:00Z', description: 'Owner plans', projectId: project.body.data.id },
    });
    // The project's colour beside its name (an SVG fill: the CSP allows no style attribute).
    expect(flat((await owner.get('/app/week?date=2026-11-02')).text)).to.include(
      '<circle cx="5" cy="5" r="5" fill="#c2185b" /></svg>Harbour',
    );
    // The owner (sees colleagues' time): Bea's week, read-only, then the team's.
    const hers = flat((await owner.get(`/app/week?date=2026-11-02&member=${bea.id}`)).text);
    expect(hers).to.include(`<option value="${bea.id}" selected>Bea</option>`);
    expect(hers).to.include('Bea writes');
    expect(hers).not.to.include('Owner plans');
    expect(hers).to.include('<strong>Bea</strong>, read-only.');
    expect(hers).not.to.include('action="/app/entries/');
    const team = flat((await owner.get('/app/week?date=2026-11-02&member=team')).text);
    expect(team).to.include('Bea writes');
    expect(team).to.include('Owner plans');
    // Whose time it is sits inside its row, under what it was (issue 58 item 6), not between rows.
    expect(team).to.match(/<div class="row">[^]*?<span class="what">Bea writes<span class="member">Bea<\/span><\/span>[^]*?<\/div>/);
    // Bea (no colleagues' time): no switch, and asking for the owner's week shows her own.
    const beaClient = new SettingsClient(server);
    await beaClient.setUp(bea.id, PASSWORD);
    const own = flat((await beaClient.get(`/app/week?date=2026-11-02&member=${server.ownerId}`)).text);
    expect(own).not.to.include('Whose week');
    expect(own).to.include('Bea writes');
    expect(own).not.to.include('Owner plans');
  });

  it('asks who is there: signed out, the app goes to the sign-in; a post without the session’s token is refused', async () => {
    server = await startTestServer();
    const stranger = new SettingsClient(server);
    const page = await stranger.get('/app/week');
    expect([page.status, page.headers.get('location')]).to.deep.equal([303, '/settings/sign-in']);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    const forged = await owner.post('/app/timer/start', { _csrf: 'x'.repeat(43), description: 'Forged' });
    expect(forged.status).to.equal(403);
    expect((await server.request('GET', '/api/v1/entries/current')).body.data).to.equal(null);
  });
});
