import { expect } from 'chai';
import { en } from '../../../src/i18n/messages/en.js';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * The working day's pages in German (issue 58 item 1; decisions §14): the week, the timer, the
 * timesheet and the Approvals page say German words, German days, durations and money to a member
 * who chose German, and no message key; durations gain seconds only when the member asked.
 */
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** Text shaped like one of our keys (`week.total`): a namespace of the messages, a dot, a name (as test/http/app/language.test.ts). */
const KEY = new RegExp(`(?<![\\w/.@-])(?:${Object.keys(en).join('|')})\\.[A-Za-z][\\w.]*`, 'g');
const keysShown = (page: string): string[] => [...page.replace(/<(script|style)[\s\S]*?<\/\1>/g, '').matchAll(KEY)].map((m) => m[0]);

describe('web app: the working day in German', function () {
  this.timeout(30_000);
  // One server for the file; each test has a fresh workspace (Wednesday 25 November 2026) and its owner signed in.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared, { now: Date.parse('2026-11-25T13:00:00Z') });
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    // The owner chose German in Profile (a form post carries no Accept-Language: the choice is what counts).
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { timeZone: 'Europe/Berlin', weekStart: 'monday', language: 'de' });
  });

  /** A project of 9.000 an hour with a task, and an hour and a half of it on Monday 23 November (Berlin). */
  async function monday() {
    const project = (await server.request('POST', '/api/v1/projects', { json: { name: 'Hafen', hourlyRate: 9000, billable: true } })).body
      .data;
    const task = (await server.request('POST', '/api/v1/tasks', { json: { name: 'Planung', projectId: project.id } })).body.data;
    const made = await server.request('POST', '/api/v1/entries', {
      json: {
        start: '2026-11-23T09:00:00+01:00',
        end: '2026-11-23T10:30:00+01:00',
        description: 'Kickoff',
        projectId: project.id,
        taskId: task.id,
        billable: true,
      },
    });
    expect(made.status).to.equal(200);
    return { project, task };
  }

  it('shows the week and the timer in German: headings, days, durations, fields and shortcuts, and no key', async () => {
    await monday();
    const page = await owner.get('/app/week?date=2026-11-23');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<html lang="de"');
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<title>Woche · timetrack</title>');
    expect(text).to.include('<h1>Woche vom 23.11. – 29.11.2026</h1>');
    expect(text).to.include('<span>Montag, 23. November</span>');
    expect(text).to.include('<label for="timer-description">Woran arbeiten Sie?</label>');
    expect(text).to.include('placeholder="z. B. Ortstermin @Projekt #Schlagwort"');
    expect(text).to.match(/Summe der Woche <strong>1:30<\/strong> <span class="hint">Zeiten in Europe\/Berlin<\/span>/);
    expect(text).to.include('<span class="day-total">1:30</span>');
    expect(text).to.include('<span class="vh">abrechenbar</span>');
    expect(text).to.include('<h2 id="shortcuts-h">Tastenkürzel</h2>');
    expect(text).to.include('<p class="hint">Keine Zeit erfasst.</p>');
    for (const english of ['Week of', 'Add time', 'No time tracked', 'What are you working on', 'Keyboard shortcuts'])
      expect(text, english).not.to.include(english);
    // Add time: the one duration rule said as a German writes numbers.
    const add = flat((await owner.get('/app/week?date=2026-11-23&add=2026-11-24')).text);
    expect(add).to.include('<h3 id="add-heading">Zeit nachtragen</h3>');
    expect(add).to.include(
      '<label for="add-duration">oder Dauer <span class="hint">2 oder 1,5 = Stunden, 90m = Minuten, 1:30 = 1 Std. 30 Min.</span></label>',
    );
  });

  it('says what the timer did in German, and a duration with seconds only to a member who asked for them', async () => {
    const { project } = await monday();
    const started = await owner.submit('/app/week', '/app/timer/start', {
      description: 'Angebot',
      projectId: project.id,
      week: '2026-11-23',
    });
    expect(started.status).to.equal(303);
    const running = flat((await owner.follow(started, '/app/week?date=2026-11-23')).text);
    expect(running).to.include('<summary>Weiteren Timer starten <kbd>n</kbd> <span class="hint inline">dieser stoppt</span></summary>');
    expect(running).to.include('Stoppen <kbd>s</kbd>');
    server.clock.set(server.clock.now() + 45 * 60_000);
    const stopped = await owner.submit('/app/week', '/app/timer/stop', { week: '2026-11-23' });
    expect(flat((await owner.follow(stopped, '/app/week?date=2026-11-23')).text)).to.include('„Angebot“ nach 0:45 gestoppt.');
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { durations: 'seconds' });
    const seconds = flat((await owner.get('/app/week?date=2026-11-23')).text);
    expect(seconds).to.include('<span class="day-total">1:30:00</span>');
  });

  it('shows the timesheet in German: its heading, day columns, hint and totals, and refuses a cell in German', async () => {
    await monday();
    const page = await owner.get('/app/timesheet?date=2026-11-23');
    expect(page.status).to.equal(200);
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<h1>Stundenzettel: 23.11. – 29.11.2026</h1>');
    expect(text).to.include('<th scope="col">Projekt / Aufgabe</th>');
    expect(text).to.match(/data-day="2026-11-23">Mo\., 23\.<\/th>/);
    expect(text).to.include('Tragen Sie die Stunden jedes Tages ein (2 oder 1,5 = Stunden');
    expect(text).to.include('<th scope="row">Gesamt</th>');
    expect(text).to.include('<option value="">Weiteres Projekt oder Aufgabe…</option>');
    expect(text).to.include('<button type="submit">Speichern</button>');
    expect(text).not.to.include('Timesheet');
    // A cell the new row cannot take (no row chosen): refused at the cell in German, nothing saved.
    const refused = await owner.submit('/app/timesheet?date=2026-11-23', '/app/timesheet', {
      week: '2026-11-23',
      day: '2026-11-25',
      newRow: '',
      'cell:new:2026-11-24': '2',
    });
    expect(refused.status).to.equal(400);
    const said = flat(refused.text);
    expect(said).to.include('Einige Zellen können nicht gespeichert werden: siehe unten. Nichts wurde gespeichert.');
    expect(said).to.include('Wählen Sie zuerst das Projekt oder die Aufgabe dieser Zeile.');
    // The one duration rule's refusals in German: what is no duration, and a day over 24 hours.
    const sheet = (await owner.get('/app/timesheet?date=2026-11-23')).text;
    const cell = (day: string) => (/name="(cell:[^"]+:DAY)"/.exec(sheet.replaceAll(day, 'DAY'))?.[1] ?? '').replace('DAY', day);
    const wrong = await owner.submit('/app/timesheet?date=2026-11-23', '/app/timesheet', {
      week: '2026-11-23',
      day: '2026-11-25',
      [cell('2026-11-24')]: 'viel',
      [`was:${cell('2026-11-24').slice(5)}`]: '',
      [cell('2026-11-25')]: '25',
      [`was:${cell('2026-11-25').slice(5)}`]: '',
    });
    expect(wrong.status).to.equal(400);
    const refusals = flat(wrong.text);
    expect(refusals).to.include('„viel“ ist keine Dauer. Geben Sie Stunden als 2 oder 1,5 ein, Minuten als 90m oder beides als 1:30.');
    expect(refusals).to.include(
      'Das ergibt 25:00 am Mittwoch, 25. November, mehr als die 24 Stunden eines Tages: Nichts wurde gespeichert.',
    );
  });

  it('refuses a time of day in German: one not understood, an end before its start, one the clocks skip', async () => {
    const add = (fields: Record<string, string>) =>
      owner.submit('/app/week?date=2026-11-23', '/app/entries', { description: 'Anruf', week: '', ...fields });
    const badTime = await add({ day: '2026-11-23', startTime: '25:99', duration: '1:00' });
    expect(badTime.status).to.equal(400);
    expect(flat(badTime.text)).to.include(
      'id="add-start-error">„25:99“ ist keine Anfangszeit. Schreiben Sie sie als 09:30, 930 oder 9:30.</span>',
    );
    const backwards = await add({ day: '2026-11-23', startTime: '22:00', endTime: '01:00' });
    expect(backwards.status).to.equal(400);
    expect(flat(backwards.text)).to.include(
      'id="add-end-error">Das Ende (01:00) liegt vor dem Anfang (22:00). Meinten Sie den nächsten Tag? Kreuzen Sie „Endet am nächsten Tag“ an.</span>',
    );
    // 02:30 on Sunday 29 March 2026 does not happen in Berlin: the clocks go from 02:00 to 03:00.
    const skipped = await add({ day: '2026-03-29', startTime: '02:30', duration: '1:00' });
    expect(skipped.status).to.equal(400);
    expect(flat(skipped.text)).to.include(
      'id="add-start-error">02:30 gibt es am 29.03.2026 in Europe/Berlin nicht (die Uhren wurden umgestellt). Wählen Sie eine andere Uhrzeit.</span>',
    );
    for (const english of ['is not a start time', 'is before the start', 'does not exist'])
      expect(flat(skipped.text + backwards.text + badTime.text)).not.to.include(english);
  });

  it('shows the Approvals page in German: the waiting week, its table with German money, and the decision forms, with no key', async () => {
    await monday();
    server.services.approvals.setSettings(OPERATOR, server.workspaceId, { approval: 'weekly' });
    const user = server.services.accounts.createUser(OPERATOR, { name: 'Jana', email: 'jana@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: user.id, hourlyRate: 80 });
    server.services.accounts.setPreferences(OPERATOR, user.id, { timeZone: 'Europe/Berlin', weekStart: 'monday' });
    const jana = {
      kind: 'member' as const,
      tokenId: null,
      workspaceId: server.workspaceId,
      userId: user.id,
      scopes: new Set<never>(),
      canViewOthersTime: false,
      canViewOthersMoney: false,
      isOwner: false,
      currency: 'EUR',
    };
    server.services.entries.create(jana, {
      start: '2026-11-16T08:00:00Z',
      end: '2026-11-16T10:30:00Z',
      description: 'Statik',
      billable: true,
    });
    server.services.approvals.submit(jana, { day: '2026-11-16' });
    const page = await owner.get('/app/approvals');
    expect(page.status).to.equal(200);
    expect(keysShown(page.text)).to.deep.equal([]);
    const text = flat(page.text);
    expect(text).to.include('<h1>Freigaben</h1>');
    expect(text).to.include('<h2>Wartend (1)</h2>');
    expect(text).to.include('Jana: Woche 16.11.2026 – 22.11.2026');
    expect(text).to.include('<th scope="col">Beschreibung</th>');
    expect(text).to.include('<td data-label="Tag">Mo., 16.11.</td>');
    expect(text).to.include('<td class="num" data-label="Stunden">2:30</td>');
    expect(text).to.include('200,00 €');
    expect(text).to.include('Gesamt (1 Eintrag; abrechenbar 2:30)');
    expect(text).to.include('<button type="submit">Freigeben</button>');
    expect(text).to.include('<label for="reject-');
    expect(text).to.include('Warum abgelehnt');
    // A rejection without a note: the approvals service's refusal in German; a change to the submitted week: its lock in German, with German days.
    const reject = /action="(\/app\/approvals\/[^"]+\/reject)"/.exec(page.text)?.[1] as string;
    const refused = await owner.post(reject, { _csrf: SettingsClient.csrf(page.text), note: '' });
    expect(refused.status).to.equal(400);
    expect(flat(refused.text)).to.include('Sagen Sie, warum Sie ablehnen, damit der Autor weiß, was zu ändern ist.');
    expect(keysShown(refused.text)).to.deep.equal([]);
    const held = (
      await server.request('POST', '/api/v1/entries', {
        json: { start: '2026-11-17T08:00:00Z', end: '2026-11-17T09:00:00Z', description: 'Vorher' },
      })
    ).body.data;
    server.services.approvals.submit({ ...jana, userId: server.ownerId, isOwner: true, canViewOthersTime: true }, { day: '2026-11-17' });
    const locked = await owner.submit('/app/week?date=2026-11-16', `/app/entries/${held.id}/delete`, { week: '2026-11-16' });
    expect(locked.status).to.equal(409);
    expect(flat(locked.text)).to.include(
      'Diese Zeit liegt in einer zur Freigabe eingereichten Woche vom 16.11.2026 bis 22.11.2026: Sie kann sich nicht ändern, solange sie wartet.',
    );
  });
});
