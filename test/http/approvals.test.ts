import { expect } from 'chai';
import { OPERATOR } from '../../src/principal.js';
import { type SeededMember, seed } from '../helpers/seed.js';
import { expectProblem, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Approval and lock over HTTP (decisions §13): every write path of the API answers 409 `conflict`
 * for time a submitted or approved period or the lock date holds, with a detail that says why and
 * who can change it; reads and the entry shape are unchanged. The rules' cases are
 * test/fast/services/approvals.test.ts's.
 */
describe('approval and lock over HTTP (decisions §13)', () => {
  let server: TestServer;
  before(async () => {
    // Monday 2 November 2026, 10:00:30 UTC.
    server = await startTestServer();
  });
  after(() => server.close());
  afterEach(() => server.services.approvals.setSettings(OPERATOR, server.workspaceId, { approval: 'off', lockedBefore: null }));

  const problems = () => server.config.problemsBase;
  const as = (member: SeededMember) => (method: string, path: string, json?: unknown) =>
    server.request(method, path, { token: member.token, ...(json === undefined ? {} : { json }) });

  it('a submitted week: edits, deletes, new entries and timers in it answer 409 conflict saying why and who can reopen; reads are as before', async () => {
    const world = seed(server, {
      members: { ada: { name: 'Ada' } },
      entries: {
        tuesday: { by: 'ada', start: '2026-10-27T09:00:00Z', end: '2026-10-27T10:00:00Z', description: 'Audit' },
        monday: { by: 'ada', start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' },
      },
    });
    const ada = as(world.members.ada);
    server.services.approvals.setSettings(OPERATOR, server.workspaceId, { approval: 'weekly' });
    server.services.approvals.submit(world.members.ada.actor, { day: '2026-10-27' });
    const id = world.entries.tuesday.id;
    const why = `is in Ada's week of 2026-10-26 to 2026-11-01, submitted for approval: its time cannot change while it waits. Ada can withdraw it, or an approver (an owner, or a member an owner marked as approver) can reopen it.`;

    const edit = await ada('PATCH', `/api/v1/entries/${id}`, { description: 'changed' });
    expectProblem(edit, 409, 'conflict', problems(), `/api/v1/entries/${id}`);
    expect(edit.body.detail).to.equal(`Entry ${id} ${why}`);
    expectProblem(await ada('DELETE', `/api/v1/entries/${id}`), 409, 'conflict', problems());
    const created = await ada('POST', '/api/v1/entries', { start: '2026-10-28T09:00:00Z', end: '2026-10-28T10:00:00Z' });
    expectProblem(created, 409, 'conflict', problems(), '/api/v1/entries');
    expect(created.body.detail).to.equal(`A new entry starting 2026-10-28T09:00:00.000Z ${why}`);
    expectProblem(await ada('POST', '/api/v1/entries/current', { start: '2026-11-01T22:00:00Z' }), 409, 'conflict', problems());
    // Moving the next week's entry into it is refused too; that entry itself still changes.
    const moved = await ada('PATCH', `/api/v1/entries/${world.entries.monday.id}`, { start: '2026-11-01T08:00:00Z' });
    expectProblem(moved, 409, 'conflict', problems());
    expect(moved.body.detail).to.match(/^The new start of entry ent_\w+ \(2026-11-01T08:00:00\.000Z\) is in Ada's week/);
    expect((await ada('PATCH', `/api/v1/entries/${world.entries.monday.id}`, { description: 'next' })).status).to.equal(200);

    // Nothing changed; the entry reads as before, in its 20 fields.
    const read = await ada('GET', `/api/v1/entries/${id}`);
    expect(read.status).to.equal(200);
    expect(read.body.data).to.include({ description: 'Audit', end: '2026-10-27T10:00:00.000Z', invoiceId: null });
    expect(Object.keys(read.body.data)).to.have.length(20);
  });

  it('an approved week answers the same 409, naming who approved it; reopened, it changes again', async () => {
    const world = seed(server, {
      members: { bea: { name: 'Bea' } },
      entries: { day: { by: 'bea', start: '2026-10-20T09:00:00Z', end: '2026-10-20T10:00:00Z' } },
    });
    const bea = as(world.members.bea);
    const { approvals } = server.services;
    approvals.setSettings(OPERATOR, server.workspaceId, { approval: 'weekly' });
    const week = approvals.submit(world.members.bea.actor, { day: '2026-10-20' });
    approvals.approve(world.owner.actor, week.id);
    const id = world.entries.day.id;
    const refused = await bea('DELETE', `/api/v1/entries/${id}`);
    expectProblem(refused, 409, 'conflict', problems(), `/api/v1/entries/${id}`);
    expect(refused.body.detail).to.equal(
      `Entry ${id} is in Bea's week of 2026-10-19 to 2026-10-25, approved by Owner: approved time cannot change. An approver (an owner, or a member an owner marked as approver) can reopen it.`,
    );
    approvals.reopen(world.owner.actor, week.id);
    expect((await bea('PATCH', `/api/v1/entries/${id}`, { description: 'fixed' })).status).to.equal(200);
    expect((await bea('DELETE', `/api/v1/entries/${id}`)).status).to.equal(204);
  });

  it('the lock date refuses entries starting before it for everyone, the owner included, over every write path', async () => {
    const world = seed(server, {
      members: { cleo: { name: 'Cleo' } },
      entries: {
        old: { by: 'owner', start: '2026-10-01T09:00:00Z', end: '2026-10-01T10:00:00Z' },
        hers: { by: 'cleo', start: '2026-10-05T09:00:00Z', end: '2026-10-05T10:00:00Z' },
        later: { by: 'owner', start: '2026-10-12T09:00:00Z', end: '2026-10-12T10:00:00Z' },
      },
    });
    server.services.approvals.setSettings(OPERATOR, server.workspaceId, { lockedBefore: '2026-10-10' });
    const owner = as(world.owner);
    const cleo = as(world.members.cleo);
    const id = world.entries.old.id;
    const edit = await owner('PATCH', `/api/v1/entries/${id}`, { description: 'x' });
    expectProblem(edit, 409, 'conflict', problems());
    expect(edit.body.detail).to.equal(
      `Entry ${id} falls before 2026-10-10 (UTC), the day before which this workspace's time is locked: it cannot be added, changed or deleted. An owner can move the lock date (the Workspace page, or timetrack workspace set W --locked-before).`,
    );
    expectProblem(await cleo('DELETE', `/api/v1/entries/${world.entries.hers.id}`), 409, 'conflict', problems());
    expectProblem(
      await owner('POST', '/api/v1/entries', { start: '2026-10-09T23:59:00Z', end: '2026-10-10T00:30:00Z' }),
      409,
      'conflict',
      problems(),
    );
    expectProblem(await cleo('POST', '/api/v1/entries/current', { start: '2026-10-09T12:00:00Z' }), 409, 'conflict', problems());
    expectProblem(
      await owner('PATCH', `/api/v1/entries/${world.entries.later.id}`, { start: '2026-10-09T09:00:00Z' }),
      409,
      'conflict',
      problems(),
    );
    expect((await owner('POST', '/api/v1/entries', { start: '2026-10-10T00:00:00Z', end: '2026-10-10T01:00:00Z' })).status).to.equal(200);
  });
});
