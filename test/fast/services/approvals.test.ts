import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { mailWorld } from '../../helpers/mail-world.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/** What a call refused with: its code and message (the test fails when it did not refuse). */
function refusal(call: () => unknown): DomainError {
  try {
    call();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Approval and lock (decisions §13): the approvals service's rules over an in-memory database. */
describe('approvals service: approval and lock (decisions §13)', () => {
  let world: ServiceWorld;
  let ada: Actor;
  let bob: Actor;
  beforeEach(() => {
    world = memoryServices();
    ada = world.member({ name: 'Ada' });
    bob = world.member({ name: 'Bob', canViewOthersTime: true });
  });
  afterEach(() => world.close());

  const entry = (who: Actor, start: string, end: string) => world.services.entries.create(who, { start, end, description: 'work' });
  const on = (approval: 'weekly' | 'monthly' = 'weekly') =>
    world.services.approvals.setSettings(world.owner, world.workspaceId, { approval });

  it('is off by default: nothing locks, and there is nothing to submit', () => {
    const { approvals, entries } = world.services;
    expect(approvals.settings(ada, world.workspaceId)).to.deep.equal({
      approval: 'off',
      lockedBefore: null,
      lockZone: null,
      lockedBeforeAt: null,
      approvers: [],
    });
    const e = entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    expect(entries.update(ada, e.id, { description: 'changed' }).description).to.equal('changed');
    const off = refusal(() => approvals.submit(ada, { day: '2026-10-27' }));
    expect([off.code, off.message]).to.deep.equal(['conflict', 'Approval is off in this workspace: there is nothing to submit or decide.']);
    expect(approvals.periodsOf(ada, '2026-10-26', '2026-11-01')).to.deep.equal([]);
    expect(approvals.approves(world.owner)).to.equal(false);
    entries.delete(ada, e.id);
  });

  it('turned off, a workspace behaves as before: its submitted and approved weeks lock nothing and wait for nobody; turned on again, they hold', () => {
    const { approvals, entries } = world.services;
    on();
    const first = entry(ada, '2026-10-20T09:00:00Z', '2026-10-20T10:00:00Z');
    const second = entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const approved = approvals.submit(ada, { day: '2026-10-20' });
    approvals.approve(world.owner, approved.id);
    approvals.submit(ada, { day: '2026-10-27' });
    expect(refusal(() => entries.update(ada, first.id, { description: 'x' })).code).to.equal('conflict');
    approvals.setSettings(world.owner, world.workspaceId, { approval: 'off' });
    // Edits, deletes and new entries in both weeks, as in a workspace that never turned it on.
    expect(entries.update(ada, first.id, { description: 'changed' }).description).to.equal('changed');
    entries.delete(ada, second.id);
    expect(entry(ada, '2026-10-28T09:00:00Z', '2026-10-28T10:00:00Z').id).to.be.a('string');
    expect(approvals.periodsOf(ada, '2026-10-19', '2026-11-01')).to.deep.equal([]);
    expect(approvals.waiting(world.owner)).to.deep.equal([]);
    expect(refusal(() => approvals.approve(world.owner, approved.id)).message).to.equal(
      'Approval is off in this workspace: there is nothing to submit or decide.',
    );
    // The periods and their audit are kept: on again, the approved week holds again.
    on();
    expect(refusal(() => entries.update(ada, first.id, { description: 'again' })).message).to.match(/approved by Owner/);
    expect(approvals.period(world.owner, approved.id).audit.map((a) => a.action)).to.deep.equal(['submitted', 'approved']);
  });

  it('a submitted week locks its entries against edits, deletes, new entries and timers, saying why and who can reopen', () => {
    const { approvals, entries, timers } = world.services;
    on();
    const inside = entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const after = entry(ada, '2026-11-02T08:00:00Z', '2026-11-02T09:00:00Z');
    const mine = entry(world.owner, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const week = approvals.submit(ada, { day: '2026-10-29' });
    expect(week).to.include({ kind: 'weekly', startDay: '2026-10-26', endDay: '2026-11-01', timeZone: 'UTC', state: 'submitted' });
    expect([week.from, week.to]).to.deep.equal(['2026-10-26T00:00:00.000Z', '2026-11-02T00:00:00.000Z']);
    const edit = refusal(() => entries.update(ada, inside.id, { description: 'x' }));
    expect(edit.code).to.equal('conflict');
    expect(edit.message).to.equal(
      `Entry ${inside.id} is in Ada's week of 2026-10-26 to 2026-11-01, submitted for approval: its time cannot change while it waits. Ada can withdraw it, or an approver (an owner, or a member an owner marked as approver) can reopen it.`,
    );
    expect(edit.people).to.equal(
      'This time is in a week of 26 Oct 2026 to 1 Nov 2026 submitted for approval: it cannot change while it waits. Its author can withdraw it on the week page, or an approver (an owner, or a member an owner marked as approver) can reopen it on the Approvals page.',
    );
    expect(refusal(() => entries.delete(ada, inside.id)).code).to.equal('conflict');
    const created = refusal(() => entry(ada, '2026-10-28T09:00:00Z', '2026-10-28T10:00:00Z'));
    expect(created.message).to.match(
      /^A new entry starting 2026-10-28T09:00:00\.000Z is in Ada's week of 2026-10-26 to 2026-11-01, submitted/,
    );
    expect(refusal(() => timers.start(ada, { start: '2026-11-01T23:00:00Z' })).code).to.equal('conflict');
    // Moving an entry of another week into it is an edit there.
    expect(refusal(() => entries.update(ada, after.id, { start: '2026-11-01T08:00:00Z' })).code).to.equal('conflict');
    expect(
      refusal(() =>
        entries.saveSheet(ada, { add: [{ start: '2026-10-30T09:00:00Z', end: '2026-10-30T10:00:00Z' }], shorten: [], remove: [] }),
      ).code,
    ).to.equal('conflict');
    // Her other weeks, and everyone else's time, change as before.
    expect(entries.update(ada, after.id, { description: 'next week' }).description).to.equal('next week');
    expect(entries.update(world.owner, mine.id, { description: 'owner' }).description).to.equal('owner');
    expect(
      approvals.periodsOf(ada, '2026-10-26', '2026-11-08').map((p) => [p.startDay, p.state, p.canSubmit, p.canWithdraw]),
    ).to.deep.equal([
      ['2026-10-26', 'submitted', false, true],
      ['2026-11-02', 'open', true, false],
    ]);
  });

  it('the Undo of a delete and the timesheet’s Undo are refused once the week is submitted', () => {
    const { approvals, entries } = world.services;
    on();
    const gone = entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const saved = entries.saveSheet(ada, {
      add: [{ start: '2026-10-28T09:00:00Z', end: '2026-10-28T10:00:00Z' }],
      shorten: [],
      remove: [],
    });
    entries.delete(ada, gone.id, { undoable: true });
    approvals.submit(ada, { day: '2026-10-27' });
    expect(refusal(() => entries.restore(ada, gone.id)).code).to.equal('conflict');
    expect(refusal(() => entries.undoSheet(ada, saved)).code).to.equal('conflict');
  });

  it('an approver approves a colleague’s week, never their own; approved time stays locked until an approver reopens it; the audit says who and when', () => {
    const { approvals, entries, clock } = { ...world.services, clock: world.clock };
    on();
    const e = entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const week = approvals.submit(ada, { day: '2026-10-27' });
    // Bob sees colleagues' time but is no approver: the period is hidden from him.
    expect(refusal(() => approvals.approve(bob, week.id)).code).to.equal('not_found');
    expect(refusal(() => approvals.approve(ada, week.id)).code).to.equal('forbidden');
    clock.advance(60_000);
    const approved = approvals.approve(world.owner, week.id, { note: 'Fine.' });
    expect(approved).to.include({ state: 'approved', note: 'Fine.' });
    expect(approved.decidedBy).to.deep.equal({ userId: world.ownerId, name: 'Owner' });
    const locked = refusal(() => entries.delete(ada, e.id));
    expect(locked.message).to.equal(
      `Entry ${e.id} is in Ada's week of 2026-10-26 to 2026-11-01, approved by Owner: approved time cannot change. An approver (an owner, or a member an owner marked as approver) can reopen it.`,
    );
    // Its member may withdraw a waiting period, not an approved one.
    expect(refusal(() => approvals.reopen(ada, week.id)).code).to.equal('forbidden');
    expect(refusal(() => approvals.approve(world.owner, week.id)).code).to.equal('conflict');
    clock.advance(60_000);
    expect(approvals.reopen(world.owner, week.id, { note: 'Ada asked.' }).state).to.equal('open');
    expect(entries.update(ada, e.id, { description: 'fixed' }).description).to.equal('fixed');
    const { audit } = approvals.period(ada, week.id);
    expect(audit.map((a) => [a.action, a.by?.name ?? null, a.note, a.at])).to.deep.equal([
      ['submitted', 'Ada', null, '2026-11-02T10:00:30.000Z'],
      ['approved', 'Owner', 'Fine.', '2026-11-02T10:01:30.000Z'],
      ['reopened', 'Owner', 'Ada asked.', '2026-11-02T10:02:30.000Z'],
    ]);
    expect(refusal(() => approvals.period(bob, week.id)).code).to.equal('not_found');
  });

  it('a rejection needs a note, unlocks the week, and the week can be submitted again; its member may withdraw a waiting week', () => {
    const { approvals, entries } = world.services;
    on();
    const e = entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:00:00Z');
    const week = approvals.submit(ada, { day: '2026-10-27' });
    const silent = refusal(() => approvals.reject(world.owner, week.id, { note: '  ' }));
    expect([silent.code, silent.field]).to.deep.equal(['invalid', 'note']);
    expect(approvals.reject(world.owner, week.id, { note: 'Tuesday is missing.' })).to.include({
      state: 'rejected',
      note: 'Tuesday is missing.',
    });
    entries.update(ada, e.id, { end: '2026-10-27T12:00:00Z' });
    expect(approvals.periodsOf(ada, '2026-10-27', '2026-10-27')[0]).to.include({
      state: 'rejected',
      note: 'Tuesday is missing.',
      canSubmit: true,
    });
    expect(approvals.submit(ada, { day: '2026-10-27' })).to.include({ id: week.id, state: 'submitted', note: null });
    expect(refusal(() => approvals.submit(ada, { day: '2026-10-28' })).message).to.equal(
      'The week of 2026-10-26 to 2026-11-01 is submitted already.',
    );
    expect(approvals.reopen(ada, week.id).state).to.equal('open');
    expect(approvals.period(ada, week.id).audit.map((a) => a.action)).to.deep.equal(['submitted', 'rejected', 'submitted', 'withdrawn']);
  });

  it('a period is submitted once it has begun, and not while a timer started in it runs', () => {
    const { approvals, timers } = world.services;
    on();
    expect(refusal(() => approvals.submit(ada, { day: '2026-11-09' })).field).to.equal('day');
    timers.start(ada, { start: '2026-11-02T08:00:00Z' });
    const running = refusal(() => approvals.submit(ada, {}));
    expect([running.code, running.message]).to.deep.equal([
      'conflict',
      'A timer started in the week of 2026-11-02 to 2026-11-08 still runs: stop it, then submit.',
    ]);
    timers.stop(ada, {});
    expect(approvals.submit(ada, {}).startDay).to.equal('2026-11-02');
  });

  it('owners mark approvers, who must see colleagues’ time; a marked approver decides; the mark goes when they leave', () => {
    const { approvals, accounts } = world.services;
    on();
    const needs = refusal(() => approvals.setApprover(world.owner, { workspaceId: world.workspaceId, userId: ada.userId, approver: true }));
    expect([needs.code, needs.field]).to.deep.equal(['invalid', 'approver']);
    expect(refusal(() => approvals.setApprover(bob, { workspaceId: world.workspaceId, userId: bob.userId, approver: true })).code).to.equal(
      'forbidden',
    );
    expect(
      approvals.setApprover(world.owner, { workspaceId: world.workspaceId, userId: bob.userId, approver: true }).approvers,
    ).to.deep.equal([bob.userId]);
    expect(approvals.approves(bob)).to.equal(true);
    expect(approvals.approves(ada)).to.equal(false);
    entry(ada, '2026-10-27T09:00:00Z', '2026-10-27T10:30:00Z');
    const week = approvals.submit(ada, { day: '2026-10-27' });
    const [waiting] = approvals.waiting(bob);
    expect(waiting?.period.id).to.equal(week.id);
    // Bob sees Ada's time, not its worth.
    expect(waiting?.totals).to.deep.equal({ entries: 1, durationSec: 5400, billableSec: 0, amount: null });
    expect(approvals.approve(bob, week.id).decidedBy?.name).to.equal('Bob');
    accounts.removeMember(OPERATOR, { workspaceId: world.workspaceId, userId: bob.userId });
    expect(approvals.settings(OPERATOR, world.workspaceId).approvers).to.deep.equal([]);
  });

  it('the lock date refuses every write of entries starting before it, for everyone, until an owner moves it', () => {
    const { approvals, entries, timers } = world.services;
    const early = entry(world.owner, '2026-10-20T09:00:00Z', '2026-10-20T10:00:00Z');
    expect(refusal(() => approvals.setSettings(ada, world.workspaceId, { lockedBefore: '2026-10-26' })).code).to.equal('forbidden');
    expect(approvals.setSettings(world.owner, world.workspaceId, { lockedBefore: '2026-10-26' })).to.deep.equal({
      approval: 'off',
      lockedBefore: '2026-10-26',
      lockZone: 'UTC',
      lockedBeforeAt: '2026-10-26T00:00:00.000Z',
      approvers: [],
    });
    const edit = refusal(() => entries.update(world.owner, early.id, { description: 'x' }));
    expect([edit.code, edit.message]).to.deep.equal([
      'conflict',
      `Entry ${early.id} falls before 2026-10-26 (UTC), the day before which this workspace's time is locked: it cannot be added, changed or deleted. An owner can move the lock date (the Workspace page, or timetrack workspace set W --locked-before).`,
    ]);
    expect(refusal(() => entry(ada, '2026-10-25T23:59:59Z', '2026-10-26T01:00:00Z')).code).to.equal('conflict');
    expect(entry(ada, '2026-10-26T00:00:00Z', '2026-10-26T01:00:00Z').start).to.equal('2026-10-26T00:00:00.000Z');
    expect(refusal(() => timers.start(ada, { start: '2026-10-25T23:00:00Z' })).code).to.equal('conflict');
    // A lock date after a running timer's start is refused: that timer could never stop.
    timers.start(ada, { start: '2026-11-02T09:00:00Z' });
    const running = refusal(() => approvals.setSettings(world.owner, world.workspaceId, { lockedBefore: '2026-11-03' }));
    expect([running.code, running.field]).to.deep.equal(['conflict', 'lockedBefore']);
    approvals.setSettings(world.owner, world.workspaceId, { lockedBefore: null });
    entries.delete(world.owner, early.id);
  });
});

/** Periods in the submitting member's zone, the lock date in the workspace's (decisions §13): midnight and the October DST change. */
describe('approvals service: zones, midnight and DST', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    // The workspace's default zone (the server's) is Berlin: the lock date is read there.
    world = memoryServices({ defaultTimeZone: 'Europe/Berlin' });
  });
  afterEach(() => world.close());

  const member = (name: string, timeZone: string): Actor => {
    const actor = world.member({ name });
    world.services.accounts.setPreferences(OPERATOR, actor.userId, { timeZone });
    return actor;
  };
  const add = (who: Actor, start: string) =>
    world.services.entries.create(who, { start, end: new Date(Date.parse(start) + 60_000).toISOString() });
  const refusedAt = (who: Actor, start: string): boolean => {
    try {
      add(who, start);
      return false;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'conflict') return true;
      throw error;
    }
  };

  it('a week is the member’s Monday to Sunday in their zone: the 25-hour Sunday of 25 October 2026 belongs to it, midnight after it does not', () => {
    const { approvals } = world.services;
    approvals.setSettings(OPERATOR, world.workspaceId, { approval: 'weekly' });
    const ada = member('Ada', 'Europe/Berlin');
    const week = approvals.submit(ada, { day: '2026-10-25' });
    expect(week).to.include({ startDay: '2026-10-19', endDay: '2026-10-25', timeZone: 'Europe/Berlin' });
    // Monday 00:00 CEST (+02:00) to the next Monday 00:00 CET (+01:00): 7 days and an hour.
    expect([week.from, week.to]).to.deep.equal(['2026-10-18T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    expect(refusedAt(ada, '2026-10-18T21:59:00Z')).to.equal(false); // Sunday 23:59 CEST, the week before
    expect(refusedAt(ada, '2026-10-18T22:00:00Z')).to.equal(true); // Monday 00:00 CEST
    expect(refusedAt(ada, '2026-10-25T00:30:00Z')).to.equal(true); // 02:30 CEST, before the clocks go back
    expect(refusedAt(ada, '2026-10-25T01:30:00Z')).to.equal(true); // 02:30 CET, the repeated hour
    expect(refusedAt(ada, '2026-10-25T22:59:00Z')).to.equal(true); // Sunday 23:59 CET
    expect(refusedAt(ada, '2026-10-25T23:00:00Z')).to.equal(false); // Monday 00:00 CET: the next week

    // The same instants in New York are another week: Bob's submitted week ends at his midnight.
    const bob = member('Bob', 'America/New_York');
    const his = approvals.submit(bob, { day: '2026-10-25' });
    expect([his.startDay, his.from, his.to]).to.deep.equal(['2026-10-19', '2026-10-19T04:00:00.000Z', '2026-10-26T04:00:00.000Z']);
    expect(refusedAt(bob, '2026-10-19T03:59:00Z')).to.equal(false); // Sunday 23:59 EDT
    expect(refusedAt(bob, '2026-10-26T03:59:00Z')).to.equal(true); // Sunday 23:59 EDT
    expect(refusedAt(bob, '2026-10-26T04:00:00Z')).to.equal(false);
  });

  it('a month is the member’s calendar month in their zone, DST change included', () => {
    const { approvals } = world.services;
    approvals.setSettings(OPERATOR, world.workspaceId, { approval: 'monthly' });
    const ada = member('Ada', 'Europe/Berlin');
    const month = approvals.submit(ada, { day: '2026-10-15' });
    expect([month.startDay, month.endDay, month.from, month.to]).to.deep.equal([
      '2026-10-01',
      '2026-10-31',
      '2026-09-30T22:00:00.000Z',
      '2026-10-31T23:00:00.000Z',
    ]);
    expect(refusedAt(ada, '2026-09-30T21:59:00Z')).to.equal(false);
    expect(refusedAt(ada, '2026-09-30T22:00:00Z')).to.equal(true);
    expect(refusedAt(ada, '2026-10-31T22:59:00Z')).to.equal(true);
    expect(refusedAt(ada, '2026-10-31T23:00:00Z')).to.equal(false);
    expect(approvals.periodsOf(ada, '2026-10-26', '2026-11-01').map((p) => [p.startDay, p.state])).to.deep.equal([
      ['2026-10-01', 'submitted'],
      ['2026-11-01', 'open'],
    ]);
  });

  it('the lock date is a day in the workspace’s zone, whatever the member’s: its midnight after the October change, and after the March one', () => {
    const { approvals } = world.services;
    const tokyo = member('Kei', 'Asia/Tokyo');
    expect(approvals.setSettings(OPERATOR, world.workspaceId, { lockedBefore: '2026-10-26' })).to.include({
      lockedBefore: '2026-10-26',
      lockZone: 'Europe/Berlin',
    });
    expect(refusedAt(tokyo, '2026-10-25T22:59:59Z')).to.equal(true); // 23:59:59 CET on the 25th in Berlin
    expect(refusedAt(tokyo, '2026-10-25T23:00:00Z')).to.equal(false); // Berlin's midnight (08:00 on the 26th in Tokyo)
    approvals.setSettings(OPERATOR, world.workspaceId, { lockedBefore: '2026-03-30' });
    expect(refusedAt(tokyo, '2026-03-29T21:59:00Z')).to.equal(true); // 23:59 CEST: the clocks went forward that night
    expect(refusedAt(tokyo, '2026-03-29T22:00:00Z')).to.equal(false);
  });
});

/** The submitter is told of a decision by mail, within the mail budgets (src/modules/mail/budget.ts): past them the decision stands, unmailed. */
describe('approvals service: mail', () => {
  it('tells the member of an approval, a rejection and a reopening by someone else; past the workspace’s budget decisions are still made', () => {
    const world = mailWorld({ SMTP_URL: 'smtp://127.0.0.1:9' });
    try {
      const { services, workspaceId, ownerId } = world;
      const owner = services.tokens.authenticate(
        services.tokens.create(OPERATOR, { workspaceId, userId: ownerId, name: 'o', scopes: [] }).token,
      )?.actor as Actor;
      services.approvals.setSettings(OPERATOR, workspaceId, { approval: 'weekly' });
      const members = Array.from({ length: 52 }, (_, i) => {
        const { id } = services.accounts.createUser(OPERATOR, { name: `M${i}`, email: `m${i}@example.org` });
        services.accounts.addMember(OPERATOR, { workspaceId, userId: id });
        return services.tokens.authenticate(services.tokens.create(OPERATOR, { workspaceId, userId: id, name: 't', scopes: [] }).token)
          ?.actor as Actor;
      });
      const mailed = () => services.mail.log(OPERATOR, { workspaceId, limit: 200 }).messages.filter((m) => m.kind === 'approval-decision');
      const [first, ...rest] = members as [Actor, ...Actor[]];
      const week = services.approvals.submit(first, { day: '2026-10-27' });
      services.approvals.reject(owner, week.id, { note: 'Missing Friday.' });
      expect(mailed().map((m) => [m.recipient, m.subject])).to.deep.equal([['m0@example.org', 'Your week was rejected']]);
      // Its own withdrawal tells nobody.
      services.approvals.submit(first, { day: '2026-10-27' });
      services.approvals.reopen(first, week.id);
      expect(mailed()).to.have.length(1);
      // The workspace's budget is 50 messages in 10 minutes: the 51st decision is made, and not mailed.
      for (const m of rest) services.approvals.approve(owner, services.approvals.submit(m, { day: '2026-10-27' }).id);
      expect(services.approvals.list(OPERATOR, workspaceId, { states: ['approved'] })).to.have.length(51);
      expect(mailed()).to.have.length(50);
    } finally {
      world.close();
    }
  });
});

/** With approval on, invoices take only approved time (decisions §13), and a draft says how much of its range still waits. */
describe('approvals service: invoices take approved time', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  it('a draft takes only approved billable time, says what of its range still waits, and is refused, saying so, when nothing is approved', () => {
    const { services, workspaceId, ownerId, owner } = world;
    const { approvals, invoices, catalog, entries } = services;
    invoices.setSettings(OPERATOR, workspaceId, { taxRate: 19 });
    const acme = catalog.clients.create(owner, { name: 'Acme' });
    const audit = catalog.projects.create(owner, { name: 'Audit', clientId: acme.id, billable: true, hourlyRate: 100 });
    const ada = world.member({ name: 'Ada' });
    const bob = world.member({ name: 'Bob' });
    const work = (who: Actor, start: string, hours: number) =>
      entries.create(who, {
        projectId: audit.id,
        start,
        end: new Date(Date.parse(start) + hours * 3_600_000).toISOString(),
      }).id;
    const adaWeek1 = work(ada, '2026-10-13T09:00:00Z', 2);
    const adaWeek2 = work(ada, '2026-10-20T09:00:00Z', 3);
    const adaWeek3 = work(ada, '2026-10-27T09:00:00Z', 1);
    const bobs = work(bob, '2026-10-14T09:00:00Z', 4);
    const range = { workspaceId, userId: ownerId, clientId: acme.id, from: '2026-10-01', to: '2026-10-31' };
    // Approval off: everything, as before.
    expect(invoices.preview(OPERATOR, range)).to.include({ entryCount: 4, netTotal: 1000, waiting: null });

    approvals.setSettings(OPERATOR, workspaceId, { approval: 'weekly' });
    const refused = refusal(() => invoices.create(OPERATOR, range));
    expect([refused.code, refused.field]).to.deep.equal(['invalid', 'from']);
    expect(refused.people).to.equal(
      'This client has no approved billable time from 2026-10-01 to 2026-10-31 (days in UTC, both included): 10:00 h (4 entries) of it still waits for approval, and invoices take only approved time. An approver approves those periods on the Approvals page first.',
    );
    // Ada's two first weeks approved (one span), her third submitted only; Bob's not submitted.
    for (const day of ['2026-10-13', '2026-10-20']) approvals.approve(world.owner, approvals.submit(ada, { day }).id);
    approvals.submit(ada, { day: '2026-10-27' });
    const preview = invoices.preview(OPERATOR, range);
    expect(preview).to.include({ entryCount: 2, netTotal: 500 });
    expect(preview.waiting).to.deep.equal({ entries: 2, seconds: 5 * 3600 });
    const { id } = invoices.create(OPERATOR, range);
    expect([adaWeek1, adaWeek2, adaWeek3, bobs].map((e) => entries.get(owner, e).invoiceId)).to.deep.equal([id, id, null, null]);
    expect(invoices.stillWaiting(OPERATOR, id)).to.deep.equal({ entries: 2, seconds: 5 * 3600 });
    // Bob's week approved since: the draft says less waits; turned off, nothing is said.
    approvals.approve(world.owner, approvals.submit(bob, { day: '2026-10-14' }).id);
    expect(invoices.stillWaiting(OPERATOR, id)).to.deep.equal({ entries: 1, seconds: 3600 });
    approvals.setSettings(OPERATOR, workspaceId, { approval: 'off' });
    expect(invoices.stillWaiting(OPERATOR, id)).to.equal(null);
  });
});
