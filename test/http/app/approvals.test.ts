import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';
import { plainUrl, type Received, startRelay, type TestRelay } from '../../helpers/smtp.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');
const text = (page: string) => flat(page.replace(/<[^>]+>/g, ' ')).replace(/&#39;|&#x27;/g, "'");

/**
 * Approval and lock in the web app over real HTTP (decisions §13): "Submit week" and the periods'
 * state on the week and the timesheet, every page write of the week refused in words for people
 * (409), the Approvals page of approvers (money only for who may see it), the Workspace page's
 * settings, and the submitter told by mail. One Chromium path: test/browser/approvals.test.ts.
 */
describe('web app: approval and lock (decisions §13)', function () {
  this.timeout(30_000);
  let relay: TestRelay;
  let server: TestServer;
  let owner: SettingsClient;
  before(async () => {
    relay = await startRelay();
    // Monday 2 November 2026, 10:00:30 UTC; mail set up.
    server = await startTestServer({ env: { SMTP_URL: plainUrl(relay), MAIL_FROM: 'Timetrack <time@example.org>' } });
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  after(async () => {
    await server.close();
    await relay.close();
  });
  afterEach(() => server.services.approvals.setSettings(OPERATOR, server.workspaceId, { approval: 'off', lockedBefore: null }));

  let n = 0;
  /** A member with a password, signed in on a client of their own. */
  const member = async (name: string, flags: { canViewOthersTime?: boolean; canViewOthersMoney?: boolean } = {}) => {
    n += 1;
    const email = `${name.toLowerCase()}.${n}@example.org`;
    const user = server.services.accounts.createUser(OPERATOR, { name, email });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: user.id, hourlyRate: 100, ...flags });
    const client = new SettingsClient(server);
    await client.setUp(user.id, PASSWORD);
    const actor = {
      kind: 'member' as const,
      tokenId: null,
      workspaceId: server.workspaceId,
      userId: user.id,
      scopes: new Set<never>(),
      canViewOthersTime: flags.canViewOthersTime ?? false,
      canViewOthersMoney: flags.canViewOthersMoney ?? false,
      isOwner: false,
      currency: 'EUR',
    };
    return { id: user.id, email, client, actor };
  };
  const weekly = () => server.services.approvals.setSettings(OPERATOR, server.workspaceId, { approval: 'weekly' });
  const add = (actor: Parameters<TestServer['services']['entries']['create']>[0], start: string, end: string, description = 'Audit') =>
    server.services.entries.create(actor, { start, end, description, billable: true });
  const post = async (client: SettingsClient, from: string, action: string, form: Record<string, string | string[]>) =>
    client.post(action, { _csrf: SettingsClient.csrf((await client.get(from)).text), ...form });
  const mailTo = async (address: string): Promise<Received> => {
    const end = Date.now() + 15_000;
    for (;;) {
      const found = relay.received.find((m) => m.to.includes(address));
      if (found) return found;
      if (Date.now() > end) throw new Error(`no mail to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('the week offers “Submit week”; submitted, its rows are read-only and every page write of it is refused in words for people (409)', async () => {
    weekly();
    const ada = await member('Ada');
    const tuesday = add(ada.actor, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const gone = add(ada.actor, '2026-10-28T09:00:00Z', '2026-10-28T10:00:00Z', 'Deleted');
    const week = '/app/week?date=2026-10-27';
    const before = flat((await ada.client.get(week)).text);
    expect(before).to.include('<button type="submit">Submit week</button>');
    expect(before).to.include(`href="/app/week?date=2026-10-26&amp;edit=${tuesday.id}#e-${tuesday.id}"`);
    /** The timesheet's fields for time and its Save button. */
    const fields = (html: string) => [(html.match(/name="cell:/g) ?? []).length, html.includes('<button type="submit">Save</button>')];
    expect(fields((await ada.client.get('/app/timesheet?date=2026-10-27')).text)).to.deep.equal([7, true]);
    // A delete before the submission, whose Undo comes after it.
    expect((await post(ada.client, week, `/app/entries/${gone.id}/delete`, { week: '2026-10-26' })).status).to.equal(303);

    const submitted = await post(ada.client, week, '/app/approvals/submit', { day: '2026-10-26', week: '2026-10-26' });
    const page = text((await ada.client.follow(submitted, '/app/week?date=2026-10-26')).text);
    expect(page).to.include(
      'Submitted your week of 26 Oct 2026 – 1 Nov 2026 for approval: its time is read-only until an approver decides.',
    );
    expect(page).to.include('Your week of 26 Oct 2026 – 1 Nov 2026 Submitted waiting for an approver; its time is read-only. Withdraw');
    expect(page).to.include('Submitted for approval: read-only until an approver decides, or you withdraw it.');
    expect(flat((await ada.client.get(week)).text)).not.to.include(`edit=${tuesday.id}`);

    const words =
      'This time is in a week of 26 Oct 2026 to 1 Nov 2026 submitted for approval: it cannot change while it waits. Its author can withdraw it on the week page, or an approver (an owner, or a member an owner marked as approver) can reopen it on the Approvals page.';
    const edit = await post(ada.client, week, `/app/entries/${tuesday.id}`, {
      description: 'changed',
      day: '2026-10-27',
      start: '09:00',
      end: '11:00',
      week: '2026-10-26',
    });
    expect(edit.status).to.equal(409);
    expect(text(edit.text)).to.include(words);
    expect(edit.text).not.to.include(`Entry ${tuesday.id}`);
    const deleted = await post(ada.client, week, `/app/entries/${tuesday.id}/delete`, { week: '2026-10-26' });
    expect([deleted.status, text(deleted.text).includes(words)]).to.deep.equal([409, true]);
    const undo = await post(ada.client, week, `/app/entries/${gone.id}/restore`, { week: '2026-10-26' });
    expect([undo.status, text(undo.text).includes(words)]).to.deep.equal([409, true]);
    const added = await post(ada.client, week, '/app/entries', {
      description: 'More',
      day: '2026-10-29',
      startTime: '09:00',
      duration: '1:00',
      week: '2026-10-26',
    });
    expect(added.status).to.equal(409);
    expect(text(added.text)).to.include(words);
    // The timesheet shows the state, and refuses time typed into the week.
    const sheetHtml = (await ada.client.get('/app/timesheet?date=2026-10-27')).text;
    const sheet = text(sheetHtml);
    expect(sheet).to.include('Your week of 26 Oct 2026 – 1 Nov 2026 Submitted');
    // Its cells show the hours and take none (no field, no Add the time).
    expect(fields(sheetHtml)).to.deep.equal([0, false]);
    const typed = await post(ada.client, '/app/timesheet?date=2026-10-27', '/app/timesheet', {
      week: '2026-10-26',
      day: '2026-10-27',
      'cell:none:2026-10-29': '2',
    });
    expect([typed.status, text(typed.text).includes(words)]).to.deep.equal([409, true]);
    // Nothing changed.
    expect(server.services.entries.get(ada.actor, tuesday.id)).to.include({ description: 'Audit', end: '2026-10-27T10:00:00.000Z' });
  });

  it('the timer, Continue and the timesheet’s Undo are refused in a submitted week; Withdraw opens it again', async () => {
    weekly();
    const bea = await member('Bea');
    const past = add(bea.actor, '2026-11-02T08:00:00Z', '2026-11-02T09:00:00Z', 'Morning');
    const typed = await post(bea.client, '/app/timesheet', '/app/timesheet', {
      week: '2026-11-02',
      day: '2026-11-02',
      'cell:none:2026-11-02': '0.5',
    });
    expect(typed.status).to.equal(303);
    const sheet = (await bea.client.get(typed.headers.get('location') as string)).text;
    const addedIds = [...sheet.matchAll(/name="added" value="([^"]+)"/g)].map((m) => m[1] as string);
    expect(addedIds).to.have.length(1);
    const submitted = server.services.approvals.submit(bea.actor, {});
    const words = /This time is in a week of 2 Nov 2026 to 8 Nov 2026 submitted for approval/;
    const timer = await post(bea.client, '/app/week', '/app/timer/start', { description: 'Now', week: '' });
    expect([timer.status, words.test(text(timer.text))]).to.deep.equal([409, true]);
    const again = await post(bea.client, '/app/week', `/app/entries/${past.id}/continue`, { week: '' });
    expect([again.status, words.test(text(again.text))]).to.deep.equal([409, true]);
    const undone = await post(bea.client, '/app/timesheet', '/app/timesheet/undo', {
      week: '2026-11-02',
      day: '2026-11-02',
      added: addedIds,
    });
    const after = text((await bea.client.follow(undone, '/app/timesheet?date=2026-11-02&day=2026-11-02')).text);
    expect(after).to.include('Nothing was undone: this time is in a week of 2 Nov 2026 to 8 Nov 2026 submitted for approval');
    const withdrawn = await post(bea.client, '/app/week', `/app/approvals/${submitted.id}/withdraw`, { week: '2026-11-02' });
    expect(text((await bea.client.follow(withdrawn, '/app/week?date=2026-11-02')).text)).to.include(
      'Withdrew your week of 2 Nov 2026 – 8 Nov 2026.',
    );
    expect((await post(bea.client, '/app/week', '/app/timer/start', { description: 'Now', week: '' })).status).to.equal(303);
    server.clock.advance(60_000);
    server.services.timers.stop(bea.actor);
  });

  it('the Approvals page shows approvers each waiting period with its entries and totals; approve, reject with a note, reopen; the submitter is told by mail', async () => {
    weekly();
    const cleo = await member('Cleo');
    add(cleo.actor, '2026-10-20T09:00:00Z', '2026-10-20T11:30:00Z', 'Site visit');
    const week = server.services.approvals.submit(cleo.actor, { day: '2026-10-20' });
    // A member without colleagues' time sees no tab, and the page answers 404.
    expect((await cleo.client.get('/app/week')).text).not.to.include('href="/app/approvals"');
    expect((await cleo.client.get('/app/approvals')).status).to.equal(404);

    const page = await owner.get('/app/approvals');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('href="/app/approvals"');
    const shown = text(page.text);
    expect(shown).to.include('Cleo: week of 19 Oct 2026 – 25 Oct 2026');
    expect(shown).to.include('Site visit 2:30 €250.00');
    expect(shown).to.include('Total (1 entry; billable 2:30) 2:30 €250.00');

    const silent = await post(owner, '/app/approvals', `/app/approvals/${week.id}/reject`, { note: '', back: 'list' });
    expect(silent.status).to.equal(400);
    expect(text(silent.text)).to.include('Say why you reject it, so its author knows what to change.');
    const rejected = await post(owner, '/app/approvals', `/app/approvals/${week.id}/reject`, { note: 'Tuesday is short.', back: 'list' });
    expect(text((await owner.follow(rejected, '/app/approvals')).text)).to.include('Rejected Cleo’s week of 19 Oct 2026 – 25 Oct 2026.');
    const mail = await mailTo(cleo.email);
    expect(mail.parsed.subject).to.equal('Your week was rejected');
    expect(mail.parsed.text).to.include('Your week of 19 Oct 2026 to 25 Oct 2026 in "My workspace" was rejected by Owner.');
    expect(mail.parsed.text).to.include('Note: Tuesday is short.');
    expect(text((await cleo.client.get('/app/week?date=2026-10-20')).text)).to.include(
      'Your week of 19 Oct 2026 – 25 Oct 2026 Rejected by Owner: “Tuesday is short.” Change what is asked, then submit it again. Submit again',
    );

    server.services.approvals.submit(cleo.actor, { day: '2026-10-20' });
    const approved = await post(owner, `/app/approvals/${week.id}`, `/app/approvals/${week.id}/approve`, { note: '', back: 'period' });
    const periodPage = text((await owner.follow(approved, `/app/approvals/${week.id}`)).text);
    expect(periodPage).to.include('Approved Cleo’s week of 19 Oct 2026 – 25 Oct 2026.');
    expect(periodPage).to.match(/Submitted by Cleo .* Rejected by Owner: “Tuesday is short.” .* Submitted by Cleo .* Approved by Owner/);
    expect(text((await owner.get('/app/approvals')).text)).to.include('Decided lately');
    const reopened = await post(owner, `/app/approvals/${week.id}`, `/app/approvals/${week.id}/reopen`, {
      note: 'Cleo asked',
      back: 'period',
    });
    expect(reopened.status).to.equal(303);
    expect(server.services.approvals.period(OPERATOR, week.id).period.state).to.equal('open');
  });

  it('an approver who may not see colleagues’ money gets the hours without any amount', async () => {
    weekly();
    const dan = await member('Dan', { canViewOthersTime: true });
    server.services.approvals.setApprover(OPERATOR, { workspaceId: server.workspaceId, userId: dan.id, approver: true });
    const eve = await member('Eve');
    add(eve.actor, '2026-10-13T09:00:00Z', '2026-10-13T10:00:00Z', 'Workshop');
    server.services.approvals.submit(eve.actor, { day: '2026-10-13' });
    const page = await dan.client.get('/app/approvals');
    expect(page.status).to.equal(200);
    const shown = text(page.text);
    expect(shown).to.include('Eve: week of 12 Oct 2026 – 18 Oct 2026');
    expect(shown).to.include('Workshop 1:00');
    expect(page.text).not.to.include('Amount');
    expect(page.text).not.to.include('EUR');
  });

  it('a new invoice’s preview and its draft say how much billable time of the range still waits for approval', async () => {
    const { services, workspaceId } = server;
    services.invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const hal = await member('Hal');
    const client = services.catalog.clients.create(hal.actor, { name: 'Harbour' });
    const project = services.catalog.projects.create(hal.actor, { name: 'Pier', clientId: client.id, billable: true });
    for (const day of ['2026-09-08', '2026-09-15'])
      services.entries.create(hal.actor, { projectId: project.id, start: `${day}T09:00:00Z`, end: `${day}T11:30:00Z` });
    weekly();
    services.approvals.approve(OPERATOR, services.approvals.submit(hal.actor, { day: '2026-09-08' }).id);
    const form = { clientId: client.id, from: '2026-09-01', to: '2026-09-30', groupBy: 'project', note: '' };
    const preview = text((await post(owner, '/app/invoices/new', '/app/invoices/new', { ...form, intent: 'preview' })).text);
    const words =
      '2:30 h of billable time in this range (1 entry) still waits for approval: it is not on this invoice, which takes approved time only.';
    expect(preview).to.include('1 entry from 1 Sept 2026 to 30 Sept 2026');
    expect(preview).to.include(words);
    const made = await post(owner, '/app/invoices/new', '/app/invoices/new', { ...form, intent: 'create' });
    expect(made.status).to.equal(303);
    expect(text((await owner.get(made.headers.get('location') as string)).text)).to.include(words);
  });

  it('the Workspace page sets approval, the lock date and approvers; a lock after a running timer’s start is refused at its field', async () => {
    const fay = await member('Fay', { canViewOthersTime: true });
    const gus = await member('Gus');
    const saved = await post(owner, '/settings/workspace', '/settings/workspace/approval', {
      approval: 'monthly',
      lockedBefore: '2026-10-01',
      approvers: [fay.id],
    });
    expect([saved.status, saved.headers.get('location')]).to.deep.equal([303, '/settings/workspace?done=saved#approval-heading']);
    expect(server.services.approvals.settings(OPERATOR, server.workspaceId)).to.deep.include({
      approval: 'monthly',
      lockedBefore: '2026-10-01',
      approvers: [fay.id],
    });
    const form = flat((await owner.get('/settings/workspace')).text);
    expect(form).to.include('<option value="monthly" selected>');
    expect(form).to.include('value="2026-10-01"');
    expect(form).to.match(new RegExp(`id="ap-${gus.id}"[^>]*disabled`));
    server.services.timers.start(gus.actor, { start: '2026-11-01T09:00:00Z' });
    const refused = await post(owner, '/settings/workspace', '/settings/workspace/approval', {
      approval: 'monthly',
      lockedBefore: '2026-11-02',
    });
    expect(refused.status).to.equal(409);
    expect(text(refused.text)).to.include('A timer started before 2 Nov 2026 still runs: it must be stopped before that time is locked.');
    expect(refused.text).to.include('aria-describedby="ap-lockedBefore-error"');
    server.services.timers.stop(gus.actor);
    // A member may not post it.
    expect((await post(fay.client, '/app/week', '/settings/workspace/approval', { approval: 'off' })).status).to.equal(403);
  });
});
