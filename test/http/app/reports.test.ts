import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { addMemberWithToken, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** The web app's Reports page over real HTTP: the API's figures in the member's zone, visibility as the API's, refusals at their fields. */
describe('web app: reports', () => {
  let server: TestServer;
  afterEach(() => server.close());

  const flat = (text: string) => text.replace(/\s+/g, ' ');
  const clock = (seconds: number) => `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}`;
  const signIn = async (userId: string) => {
    const client = new SettingsClient(server);
    await client.setUp(userId, PASSWORD);
    return client;
  };
  const entry = (token: string | undefined, start: string, end: string, description: string, extra: Record<string, unknown> = {}) =>
    server.request('POST', '/api/v1/entries', { ...(token ? { token } : {}), json: { start, end, description, ...extra } }).then((r) => {
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.data;
    });

  /** A team in Europe/Berlin: the owner's billable project time with tags, and a colleague's (who sees colleagues' time, not money). */
  async function team() {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    const colleague = addMemberWithToken(server.services, server.workspaceId, {
      name: 'Bea Colleague',
      canViewOthersTime: true,
      canViewOthersMoney: false,
    });
    const loner = addMemberWithToken(server.services, server.workspaceId, { name: 'Cas Own' });
    for (const id of [server.ownerId, colleague.userId, loner.userId])
      server.services.accounts.setPreferences(OPERATOR, id, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const site = (await server.request('POST', '/api/v1/projects', { json: { name: 'Harbour site', hourlyRate: 90, billable: true } })).body
      .data;
    const brand = (await server.request('POST', '/api/v1/projects', { json: { name: 'Brand', hourlyRate: 60, billable: true } })).body.data;
    const design = (await server.request('POST', '/api/v1/tags', { json: { name: 'design' } })).body.data;
    await entry(undefined, '2026-11-23T09:00:00+01:00', '2026-11-23T10:30:00+01:00', 'Planning', {
      projectId: site.id,
      billable: true,
      tagIds: [design.id],
    });
    // After midnight in Berlin, still the 23rd in UTC: the member's zone files it under the 24th.
    await entry(undefined, '2026-11-24T00:30:00+01:00', '2026-11-24T01:15:00+01:00', 'Late fix', { projectId: brand.id, billable: true });
    await entry(undefined, '2026-11-24T13:00:00+01:00', '2026-11-24T14:00:00+01:00', 'No project', {});
    await entry(colleague.token, '2026-11-24T09:00:00+01:00', '2026-11-24T12:00:00+01:00', 'Colleague work', {
      projectId: site.id,
      billable: true,
    });
    await entry(loner.token, '2026-11-25T09:00:00+01:00', '2026-11-25T09:20:00+01:00', 'Own only', { projectId: brand.id });
    return { colleague, loner, site, brand };
  }

  it("shows the API's summary totals for the same range, zone and grouping, the days as a chart and the entries, for the member and for everyone", async () => {
    const { colleague } = await team();
    const owner = await signIn(server.ownerId);
    const page = await owner.get('/app/reports?from=2026-11-23&to=2026-11-29&groupBy=project&subGroupBy=tag');
    expect(page.status, page.text.slice(0, 500)).to.equal(200);
    const text = flat(page.text);
    const api = await server.request(
      'GET',
      `/api/v1/reports/summary?from=2026-11-23&to=2026-11-29&timeZone=Europe/Berlin&groupBy=project&subGroupBy=tag&userIds=${server.ownerId}`,
    );
    expect(api.status).to.equal(200);
    const totals = api.body.data.totals;
    expect(totals).to.include({ durationSec: 3 * 3600 + 15 * 60, billableSec: 2 * 3600 + 15 * 60, amount: 180, entryCount: 3 });
    expect(text).to.include(`<span class="hint">Total</span><strong>${clock(totals.durationSec)}</strong>`);
    expect(text).to.include(`<span class="hint">Billable</span><strong>${clock(totals.billableSec)}</strong>`);
    expect(text).to.include('<span class="hint">Amount</span><strong>€180.00</strong>');
    expect(text).to.include('<span class="hint">Entries</span><strong>3</strong>');
    // Two levels: each group, then its sub-groups, with the API's figures.
    for (const group of api.body.data.groups) {
      expect(text).to.include(`<th scope="row" data-label="Project">${group.name ?? '(no project)'}</th>`);
      expect(text).to.include(`<td data-label="Time" class="num">${clock(group.durationSec)}</td>`);
    }
    expect(text).to.include('<tr class="sub"> <th scope="row" data-label="Tag">design</th>');
    expect(text).to.include('<tr class="sub"> <th scope="row" data-label="Tag">(no tag)</th>');
    // The chart: seven days in Berlin; the after-midnight work is on Tuesday the 24th.
    // Drawn twice (wide, and narrow for phones), seven columns each.
    expect(text.match(/<g class="bar">/g)?.length).to.equal(14);
    expect(text).to.include('<title>Mon 23 Nov: 1:30</title>');
    expect(text).to.include('<title>Tue 24 Nov: 1:45</title>');
    expect(text).to.include('<title>Sun 29 Nov: 0:00</title>');
    expect(page.text).not.to.match(/style=/);
    // The entries, times in Berlin, with their amounts; not the colleague's.
    expect(text).to.include('<td data-label="Time" class="c-time">00:30–01:15</td>');
    expect(text).to.include('<td data-label="Amount" class="num c-amount">€135.00</td>');
    expect(text).not.to.include('Colleague work');
    // The amount's card is marked, so a phone gives it the whole row (a five-digit amount fits: issue 58 item 6).
    expect(text).to.match(/<li class="amount"><span class="hint">Amount<\/span><strong>€[\d,.]+<\/strong><\/li>/);

    // Everyone: the API's figures without userIds, each entry with its member.
    const all = flat((await owner.get('/app/reports?from=2026-11-23&to=2026-11-29&groupBy=user&member=everyone')).text);
    const apiAll = await server.request('GET', '/api/v1/reports/summary?from=2026-11-23&to=2026-11-29&timeZone=Europe/Berlin&groupBy=user');
    expect(apiAll.body.data.totals.durationSec).to.equal(6 * 3600 + 35 * 60);
    expect(all).to.include(`<strong>${clock(apiAll.body.data.totals.durationSec)}</strong>`);
    expect(all).to.include(`<strong>€${apiAll.body.data.totals.amount.toFixed(2)}</strong>`);
    expect(all).to.include('<th scope="row" data-label="Member">Bea Colleague</th>');
    expect(all).to.include('<td data-label="Member" class="c-member">Bea Colleague</td>');
    expect(all).to.include('Colleague work');
    // The owner may choose a colleague.
    expect(all).to.include(`<option value="${colleague.userId}" >Bea Colleague</option>`);
  });

  it("shows a member who may see colleagues' time but not its worth the team's hours without money (the API keeps its 403); their own with its amounts", async () => {
    const { colleague } = await team();
    const member = await signIn(colleague.userId);
    const own = await member.get('/app/reports?from=2026-11-23&to=2026-11-29');
    expect(own.status).to.equal(200);
    const ownText = flat(own.text);
    expect(ownText).to.include('id="report-member"');
    expect(ownText).to.include('<strong>3:00</strong>');
    expect(ownText).to.include('<strong>€270.00</strong>');
    expect(ownText).not.to.include('Planning');
    for (const [target, hours] of [
      ['everyone', '6:35'],
      [server.ownerId, '3:15'],
    ] as const) {
      const team = await member.get(`/app/reports?from=2026-11-23&to=2026-11-29&groupBy=user&member=${target}`);
      expect(team.status, flat(team.text).slice(0, 400)).to.equal(200);
      const text = flat(team.text);
      expect(text).to.include(`<span class="hint">Total</span><strong>${hours}</strong>`);
      expect(text).to.include('Hours only: you may see your colleagues&#39; time, not what it is worth');
      expect(text).to.include('Planning');
      // No amount anywhere: not the totals', the groups', the entries', nor the member's own.
      expect(text).not.to.match(/€|EUR|Amount/);
    }
    // The summary's bytes carry no money either: every amount the service read is withheld.
    const csv = await fetch(`${server.url}/app/reports/export?format=csv&kind=detailed&from=2026-11-23&to=2026-11-29&member=everyone`, {
      headers: { cookie: [...member.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(csv.status).to.equal(200);
    const lines = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).to.equal('Date,Start,End,Hours,Member,Client,Project,Task,Tags,Description,Billable');
    expect(lines).to.have.length(6);
    // The API says what the specification says: 403 money-visibility-required.
    const api = await server.request('GET', '/api/v1/reports/summary?from=2026-11-23&to=2026-11-29', { token: colleague.token });
    expect(api.status).to.equal(403);
    expect(api.body.type).to.match(/money-visibility-required$/);
    // And the service decides it: withheld only when asked to withhold, for whom it applies.
    const actor = server.services.tokens.authenticate(colleague.token)!.actor;
    const withheld = server.services.reports.summaryWindow(
      actor,
      { from: '2026-11-23', to: '2026-11-29', timeZone: 'Europe/Berlin' },
      { offset: 0, limit: 10, subGroups: 0 },
      { unseenMoney: 'withhold' },
    );
    expect(withheld.moneyWithheld).to.equal(true);
    expect(withheld.totals.amount).to.equal(0);
    expect(() => server.services.reports.summary(actor, { from: '2026-11-23', to: '2026-11-29' })).to.throw('may not see what it is worth');
  });

  it('filters by client, project, task, tag, billable and text: the page, its links and its downloads alike', async () => {
    const { site, brand } = await team();
    const acme = (await server.request('POST', '/api/v1/clients', { json: { name: 'Acme' } })).body.data;
    await server.request('PATCH', `/api/v1/projects/${site.id}`, { json: { clientId: acme.id } });
    const survey = (await server.request('POST', '/api/v1/tasks', { json: { name: 'Survey', projectId: site.id } })).body.data;
    await entry(undefined, '2026-11-26T09:00:00+01:00', '2026-11-26T11:00:00+01:00', 'Pier survey', {
      projectId: site.id,
      taskId: survey.id,
      billable: false,
    });
    server.services.entries.catchUpSearchIndex();
    const owner = await signIn(server.ownerId);
    const base = '/app/reports?from=2026-11-23&to=2026-11-29&member=everyone';
    const total = async (query: string) => {
      const page = await owner.get(`${base}&${query}`);
      expect(page.status, flat(page.text).slice(0, 300)).to.equal(200);
      return /<span class="hint">Total<\/span><strong>([^<]+)<\/strong>/.exec(flat(page.text))?.[1];
    };
    const design = (await server.request('GET', '/api/v1/tags')).body.data[0];
    expect(await total(`clientIds=${acme.id}`)).to.equal('6:30');
    expect(await total(`projectIds=${brand.id}`)).to.equal('1:05');
    expect(await total(`taskIds=${survey.id}`)).to.equal('2:00');
    expect(await total(`tagIds=${design.id}`)).to.equal('1:30');
    expect(await total('billable=false')).to.equal('3:00');
    expect(await total('search=pier')).to.equal('2:00');
    expect(await total(`clientIds=${acme.id}&billable=true`)).to.equal('4:30');
    // The form shows them set, says what the report holds, and carries them into its links and downloads.
    const page = flat((await owner.get(`${base}&projectIds=${site.id}&search=pier`)).text);
    expect(page).to.include('<details class="filters" open>');
    expect(page).to.include(`<option value="${site.id}" selected>Harbour site</option>`);
    expect(page).to.include('Only entries of: Project Harbour site · Text “pier”.');
    expect(page).to.include(
      `href="/app/reports?from=2026-11-16&amp;to=2026-11-22&amp;groupBy=project&amp;member=everyone&amp;projectIds=${site.id}&amp;search=pier"`,
    );
    expect(page).to.include(`<input type="hidden" name="projectIds" value="${site.id}" />`);
    expect(page).to.include('<input type="hidden" name="search" value="pier" />');
    // The entries table shows the task with its project, as the downloads do (issue 58 item 3).
    expect(page).to.include(
      '<td data-label="Project" class="c-project">Harbour site / Survey <span class="hint inline">· Acme</span></td>',
    );
    const csv = await fetch(
      `${server.url}/app/reports/export?format=csv&kind=detailed&from=2026-11-23&to=2026-11-29&member=everyone&projectIds=${site.id}&search=pier`,
      { headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') } },
    );
    const rows = (await csv.text())
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows.slice(1).map((r) => r.split(',')[9])).to.deep.equal(['Pier survey']);
    // A filter naming what the workspace does not have: at its field, 400, nothing read.
    const bad = await owner.get(`${base}&tagIds=tag_nothere&billable=maybe`);
    expect(bad.status).to.equal(400);
    const badText = flat(bad.text);
    expect(badText).to.include('<span class="field-error" id="report-tag-error">There is no such tag in this workspace');
    expect(badText).to.include('<span class="field-error" id="report-billable-error">Choose billable, not billable, or either.</span>');
  });

  it("has no member choice for a member without colleagues' time: only their own, whatever the address asks", async () => {
    const { loner } = await team();
    const member = await signIn(loner.userId);
    for (const address of ['/app/reports?from=2026-11-23&to=2026-11-29', `/app/reports?from=2026-11-23&to=2026-11-29&member=everyone`]) {
      const page = await member.get(address);
      expect(page.status).to.equal(200);
      const text = flat(page.text);
      expect(text).not.to.include('report-member');
      expect(text).to.include('<span class="hint">Total</span><strong>0:20</strong>');
      expect(text).to.include('Own only');
      expect(text).not.to.include('Planning');
      expect(text).not.to.include('Colleague work');
      // Their own worth (the project's billable rate), and no one else's.
      expect(text).to.include('<span class="hint">Amount</span><strong>€20.00</strong>');
      // The total, its project and its entry.
      expect(text.match(/€/g)?.length).to.equal(3);
    }
  });

  it('files a 25-hour day as one day in Europe/Berlin, as the API does', async () => {
    server = await startTestServer({ now: Date.parse('2026-10-28T12:00:00Z') });
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const owner = await signIn(server.ownerId);
    // Sunday 25 October 2026: clocks go back at 03:00 (CEST) to 02:00 (CET).
    await entry(undefined, '2026-10-25T01:30:00+02:00', '2026-10-25T02:30:00+01:00', 'Across the change');
    await entry(undefined, '2026-10-25T23:30:00+01:00', '2026-10-26T00:30:00+01:00', 'Late Sunday');
    await entry(undefined, '2026-10-18T23:00:00+02:00', '2026-10-18T23:50:00+02:00', 'The Sunday before');
    // The default range: this week (Monday 26 October to Sunday 1 November) in Berlin.
    expect(flat((await owner.get('/app/reports')).text)).to.include('value="2026-10-26"');
    const page = await owner.get('/app/reports?from=2026-10-19&to=2026-10-25&groupBy=project');
    expect(page.status).to.equal(200);
    const text = flat(page.text);
    const api = await server.request(
      'GET',
      `/api/v1/reports/summary?from=2026-10-19&to=2026-10-25&timeZone=Europe/Berlin&groupBy=day&userIds=${server.ownerId}`,
    );
    expect(api.body.data.totals.durationSec).to.equal(3 * 3600);
    expect(api.body.data.groups.map((g: { key: string; durationSec: number }) => [g.key, g.durationSec])).to.deep.equal([
      ['2026-10-25', 3 * 3600],
    ]);
    expect(text).to.include('<span class="hint">Total</span><strong>3:00</strong>');
    expect(text).to.include('<title>Sun 25 Oct: 3:00</title>');
    expect(text).to.include('<title>Mon 19 Oct: 0:00</title>');
    expect(text).to.include('<td data-label="Time" class="c-time">01:30–02:30</td>');
    expect(text).not.to.include('The Sunday before');
    expect(text).to.include('Days and times in Europe/Berlin.');
  });

  it('pages a summary of more than 100 groups, and under each group shows its 10 largest sub-groups with the rest summed in one row', async () => {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    const owner = await signIn(server.ownerId);
    // 103 projects P000…P102, each with one entry of i + 1 minutes on Monday 2 November.
    for (let i = 0; i < 103; i++) {
      const project = (await server.request('POST', '/api/v1/projects', { json: { name: `P${String(i).padStart(3, '0')}` } })).body.data;
      const start = Date.parse('2026-11-02T06:00:00Z') + i * 3 * 60_000;
      await entry(undefined, new Date(start).toISOString(), new Date(start + (i + 1) * 60_000).toISOString(), `Work ${i}`, {
        projectId: project.id,
      });
    }
    const byProject = await owner.get('/app/reports?from=2026-11-02&to=2026-11-08&groupBy=project');
    expect(byProject.status).to.equal(200);
    const first = flat(byProject.text);
    expect(first.match(/<tr class="group">/g)?.length).to.equal(100);
    expect(first).to.include('<th scope="row" data-label="Project">P099</th>');
    expect(first).not.to.include('<th scope="row" data-label="Project">P100</th>');
    expect(first).to.include('<p>Projects 1–100 of 103, by name.</p>');
    // The totals are the whole report's, not the page's.
    expect(first).to.include(`<span class="hint">Total</span><strong>${clock(((103 * 104) / 2) * 60)}</strong>`);
    const next = /href="(\/app\/reports\?[^"]*groups=2[^"]*)#summary-heading" ?>Next 3</.exec(first)?.[1];
    expect(next, 'a link to the next 3 groups').to.be.a('string');
    const second = flat((await owner.get((next as string).replace(/&amp;/g, '&'))).text);
    expect(second.match(/<tr class="group">/g)?.length).to.equal(3);
    expect(second).to.include('<th scope="row" data-label="Project">P102</th>');
    expect(second).to.include('<p>Projects 101–103 of 103, by name.</p>');
    expect(second).to.match(/#summary-heading" ?>Previous 100</);
    const past = flat((await owner.get('/app/reports?from=2026-11-02&to=2026-11-08&groupBy=project&groups=7')).text);
    expect(past).to.include('This report has 103 projects; there are none this far.');
    const badPage = await owner.get('/app/reports?from=2026-11-02&to=2026-11-08&groupBy=project&groups=two');
    expect(badPage.status).to.equal(400);
    expect(flat(badPage.text)).to.include('groups: &quot;two&quot; is not a page number such as 2. Open the report again from the form.');

    // By member, then project: the 10 largest projects (P093…P102), in name order, then the other 93 summed.
    const sub = flat((await owner.get('/app/reports?from=2026-11-02&to=2026-11-08&groupBy=user&subGroupBy=project')).text);
    const shown = [...sub.matchAll(/<tr class="sub"> <th scope="row" data-label="Project">(P\d+)<\/th>/g)].map((m) => m[1]);
    expect(shown).to.deep.equal(Array.from({ length: 10 }, (_, i) => `P${String(93 + i).padStart(3, '0')}`));
    expect(sub).to.include('Under each member, its 10 largest by time; the rest in one row.');
    const restSeconds = ((93 * 94) / 2) * 60;
    expect(sub).to.match(
      new RegExp(
        `<tr class="sub others"> <th scope="row" data-label="Project"> 93 more projects </th> <td data-label="Time" class="num">${clock(restSeconds)}</td>`,
      ),
    );
  });

  it('refuses bad input at its field (400), keeping what was typed, and pages the entries with the service’s cursor', async () => {
    server = await startTestServer({ now: Date.parse('2026-11-25T13:00:00Z') });
    const owner = await signIn(server.ownerId);
    const backwards = await owner.get('/app/reports?from=2026-11-10&to=2026-11-03&groupBy=client');
    expect(backwards.status).to.equal(400);
    const b = flat(backwards.text);
    // The page says it in a person's words (the API keeps `from: must not be after to.`).
    expect(b).to.include(
      '<span class="field-error" id="report-from-error">The start is after the end: choose a start on or before the end.</span>',
    );
    expect(b).to.include('value="2026-11-10" required aria-invalid="true" aria-describedby="report-from-error"');
    expect(b).to.include('value="2026-11-03" required');
    expect(b).to.include('<option value="client" selected>Client</option>');
    expect(b).not.to.include('Total');
    const unknown = await owner.get('/app/reports?from=2026-11-02&to=2026-11-08&groupBy=planet');
    expect(unknown.status).to.equal(400);
    expect(flat(unknown.text)).to.include(
      '<span class="field-error" id="report-group-error">groupBy: &quot;planet&quot; is not one of project, client, task, tag or member.</span>',
    );
    const same = await owner.get('/app/reports?from=2026-11-02&to=2026-11-08&groupBy=tag&subGroupBy=tag');
    expect(same.status).to.equal(400);
    expect(flat(same.text)).to.include('<span class="field-error" id="report-subgroup-error">subGroupBy: must differ from groupBy.</span>');
    const notADay = await owner.get('/app/reports?from=yesterday&to=2026-11-08');
    expect(notADay.status).to.equal(400);
    expect(flat(notADay.text)).to.include('id="report-from-error">from: &quot;yesterday&quot; is not a day such as 2026-11-23.</span>');
    const tooLong = await owner.get('/app/reports?from=2025-01-01&to=2026-11-08');
    expect(tooLong.status).to.equal(400);
    expect(flat(tooLong.text)).to.include('id="report-to-error">to: at most 366 days after from; split longer ranges.</span>');

    // 105 entries: the first 100, then More with the service's cursor, then the last 5.
    for (let i = 0; i < 105; i++) {
      const start = Date.parse('2026-11-02T08:00:00Z') + i * 600_000;
      await entry(undefined, new Date(start).toISOString(), new Date(start + 300_000).toISOString(), `Step ${i}`);
    }
    const first = await owner.get('/app/reports?from=2026-11-02&to=2026-11-08');
    const firstText = flat(first.text);
    expect(firstText.match(/<td data-label="Duration"/g)?.length).to.equal(100);
    expect(firstText).to.include('<span class="hint">Entries</span><strong>105</strong>');
    // The chart of a week is by day; a month-and-more range is by week.
    const more = /href="(\/app\/reports\?[^"]*cursor=[^"]+)#entries"/.exec(first.text)?.[1];
    expect(more).to.be.a('string');
    const second = flat((await owner.get((more as string).replace(/&amp;/g, '&'))).text);
    expect(second.match(/<td data-label="Duration"/g)?.length).to.equal(5);
    expect(second).to.include('Step 104');
    expect(second).not.to.include('Step 99<');
    expect(second).to.include('Entries (continued)');
    const year = flat((await owner.get('/app/reports?from=2026-01-01&to=2026-12-31')).text);
    expect(year).to.include('<h2 id="chart-heading">Hours by week</h2>');
    expect(year.match(/<g class="bar">/g)?.length).to.equal(2 * 53);
  });
});
