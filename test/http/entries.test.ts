import { OPERATOR } from '../../src/principal.js';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { components } from '../../generated/openapi.js';
import type { Actor } from '../../src/principal.js';
import { expectTypedProblem, type ProblemSlug, typedClient } from '../helpers/client.js';
import { type SeededMember, seed } from '../helpers/seed.js';
import { addMemberWithToken, expectProblem, startTestServer, type TestServer } from '../helpers/server.js';

const ENTRY_FIELDS = [
  'id',
  'workspaceId',
  'authorId',
  'description',
  'projectId',
  'taskId',
  'billable',
  'start',
  'end',
  'durationSec',
  'hourlyRate',
  'currency',
  'source',
  'timeZone',
  'runaway',
  'tagIds',
  'invoiceId',
  'importId',
  'createdAt',
  'updatedAt',
];
const ROW_FIELDS = [...ENTRY_FIELDS, 'projectName', 'projectColor', 'clientName', 'taskName', 'amount'];
const T = (iso: string) => Date.parse(iso);

describe('entries', () => {
  let server: TestServer;
  let api: ReturnType<typeof typedClient>;
  let owner: Actor;
  const base = () => server.config.problemsBase;
  const actorOf = (token: string) => server.services.tokens.authenticate(token)!.actor;
  const countEvents = () => server.services.events.tail(OPERATOR, server.workspaceId, 0, 100000).length;

  before(async () => {
    server = await startTestServer({ now: T('2026-11-02T12:00:00Z') });
    owner = actorOf(server.ownerToken);
    api = typedClient(server);
  });
  after(() => server.close());

  describe('POST /entries', () => {
    it('creates a completed entry with all 20 fields, defaults, UTC output, and one entry.created event', async () => {
      const before = countEvents();
      const res = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-02T09:00:00+01:00', end: '2026-11-02T10:30:15.500+01:00', description: 'Write docs', originId: 'ext-1' },
      });
      expect(res.response.status).to.equal(200);
      const entry = res.data!.data;
      expect(Object.keys(entry).sort()).to.deep.equal([...ENTRY_FIELDS].sort());
      expect(entry).to.include({
        workspaceId: server.workspaceId,
        authorId: server.ownerId,
        description: 'Write docs',
        projectId: null,
        taskId: null,
        billable: false,
        start: '2026-11-02T08:00:00.000Z',
        end: '2026-11-02T09:30:15.500Z',
        durationSec: 5415,
        hourlyRate: null,
        currency: 'EUR',
        source: 'api',
        timeZone: null,
        runaway: null,
        invoiceId: null,
        importId: null,
      });
      expect(entry.tagIds).to.deep.equal([]);
      expect(entry.id).to.match(/^ent_[0-9a-z]{20}$/);
      for (const key of ['start', 'end', 'createdAt', 'updatedAt'] as const) expect(entry[key]).to.match(/Z$/);
      const events = server.services.events.tail(OPERATOR, server.workspaceId, 0, 100000).slice(before);
      expect(events).to.have.length(1);
      expect(events[0]).to.include({
        entity: 'entry',
        entityId: entry.id,
        operation: 'create',
        event: 'entry.created',
        originId: 'ext-1',
        actorUserId: server.ownerId,
      });
      expect((events[0]!.payload as Record<string, unknown>).originId).to.equal('ext-1');
    });

    it('takes the project billable default, a canonical time zone, tags and a source', async () => {
      const project = server.services.catalog.projects.create(owner, { name: 'Billable project', billable: true, hourlyRate: 80 });
      const tag = server.services.catalog.tags.create(owner, { name: 'urgent' });
      const res = await api.POST('/api/v1/entries', {
        body: {
          start: '2026-11-02T08:00:00Z',
          end: '2026-11-02T09:00:00Z',
          projectId: project.id,
          tagIds: [tag.id],
          timeZone: 'europe/berlin',
          source: 'desktop',
        },
      });
      expect(res.data!.data).to.include({
        billable: true,
        hourlyRate: 80,
        timeZone: 'Europe/Berlin',
        source: 'desktop',
        projectId: project.id,
      });
      expect(res.data!.data.tagIds).to.deep.equal([tag.id]);
      const explicit = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', projectId: project.id, billable: false },
      });
      expect(explicit.data!.data.billable).to.equal(false);
    });

    it('a task without a project implies the task’s project; a mismatched pair is 400', async () => {
      const a = server.services.catalog.projects.create(owner, { name: 'A' });
      const b = server.services.catalog.projects.create(owner, { name: 'B' });
      const task = server.services.catalog.tasks.create(owner, { projectId: a.id, name: 'Design' });
      const implied = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', taskId: task.id },
      });
      expect(implied.data!.data).to.include({ projectId: a.id, taskId: task.id });
      const mismatch = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', taskId: task.id, projectId: b.id },
      });
      const problem = expectTypedProblem(mismatch, 400, 'invalid-request', base(), '/api/v1/entries');
      expect(problem.detail).to.contain('taskId');
    });

    it('refuses unknown or foreign project, task and tag ids with 404, archived ones with 400, and writes nothing', async () => {
      const other = server.services.accounts.createWorkspace(OPERATOR, { name: 'Other' });
      const otherUser = server.services.accounts.createUser(OPERATOR, { name: 'O', email: 'o@example.org' });
      server.services.accounts.addMember(OPERATOR, { workspaceId: other.id, userId: otherUser.id });
      const otherActor = actorOf(
        server.services.tokens.create(OPERATOR, { workspaceId: other.id, userId: otherUser.id, name: 'o', scopes: ['catalog:write'] })
          .token,
      );
      const foreignProject = server.services.catalog.projects.create(otherActor, { name: 'Foreign' });
      const foreignTag = server.services.catalog.tags.create(otherActor, { name: 'foreign' });
      const archived = server.services.catalog.projects.create(owner, { name: 'Old' });
      server.services.catalog.projects.update(owner, archived.id, { archived: true });
      const eventsBefore = countEvents();
      const span = { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' };
      const cases: Array<[components['schemas']['EntryCreate'], number, ProblemSlug]> = [
        [{ ...span, projectId: 'prj_unknown' }, 404, 'not-found'],
        [{ ...span, projectId: foreignProject.id }, 404, 'not-found'],
        [{ ...span, taskId: 'tsk_unknown' }, 404, 'not-found'],
        [{ ...span, tagIds: [foreignTag.id] }, 404, 'not-found'],
        [{ ...span, projectId: archived.id }, 400, 'invalid-request'],
        [{ ...span, timeZone: 'Mars/Olympus' }, 400, 'invalid-request'],
        [{ start: span.end, end: span.start }, 400, 'invalid-request'],
        [{ start: span.start, end: span.start }, 400, 'invalid-request'],
      ];
      for (const [body, status, slug] of cases) {
        const res = await api.POST('/api/v1/entries', { body });
        expectTypedProblem(res, status, slug, base(), '/api/v1/entries');
      }
      expect(countEvents()).to.equal(eventsBefore);
    });

    describe('every limit at its edge', () => {
      const span = { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z' };
      const accepted = async (body: Partial<components['schemas']['EntryCreate']>) =>
        expect((await api.POST('/api/v1/entries', { body: { ...span, ...body } })).response.status).to.equal(200);
      const refused = async (json: object, field: string) => {
        const res = await server.request('POST', '/api/v1/entries', { json: { ...span, ...json } });
        expectProblem(res, 400, 'invalid-request', base());
        expect(res.body.detail).to.contain(field);
      };

      it('description 500 / 501 characters', async () => {
        await accepted({ description: 'x'.repeat(500) });
        await refused({ description: 'x'.repeat(501) }, 'body.description');
      });
      it('tagIds 20 / 21 items, each non-empty, no duplicates', async () => {
        const ids = Array.from({ length: 21 }, (_, i) => server.services.catalog.tags.create(owner, { name: `edge-${i}` }).id);
        await accepted({ tagIds: ids.slice(0, 20) });
        await refused({ tagIds: ids }, 'body.tagIds');
        await refused({ tagIds: [''] }, 'body.tagIds[0]');
        await refused({ tagIds: [ids[0], ids[0]] }, 'body.tagIds');
      });
      it('timeZone and originId 64 / 65 characters', async () => {
        await accepted({ originId: 'o'.repeat(64) });
        await refused({ originId: 'o'.repeat(65) }, 'body.originId');
        await refused({ timeZone: 'A'.repeat(65) }, 'body.timeZone');
        const sixtyFour = `Etc/${'x'.repeat(60)}`;
        const res = await api.POST('/api/v1/entries', { body: { ...span, timeZone: sixtyFour } });
        const problem = expectTypedProblem(res, 400, 'invalid-request', base());
        expect(problem.detail).to.contain('IANA'); // passes the length rule, fails the zone rule
      });
      it('date-times need Z or ±hh:mm, and must exist', async () => {
        await refused({ start: '2026-11-02T08:00:00' }, 'body.start');
        await refused({ start: '2026-11-02 08:00:00Z' }, 'body.start');
        await refused({ start: '2026-11-02T08:00:00+0100' }, 'body.start');
        await refused({ start: '2026-02-30T08:00:00Z', end: '2026-03-03T08:00:00Z' }, 'start');
        await accepted({ start: '2026-11-02T08:00:00-05:30', end: '2026-11-02T14:00:00-05:30' });
      });
      it('ids in bodies: at most 100 characters, as in queries and paths (400, not a 404 lookup)', async () => {
        const long = 'x'.repeat(101);
        await refused({ projectId: long }, 'body.projectId');
        await refused({ taskId: long }, 'body.taskId');
        await refused({ tagIds: [long] }, 'body.tagIds[0]');
        const bodies: Array<[string, string, object, string]> = [
          ['POST', '/api/v1/entries/current', { projectId: long }, 'body.projectId'],
          ['POST', '/api/v1/projects', { name: 'P', clientId: long }, 'body.clientId'],
          ['POST', '/api/v1/tasks', { name: 'T', projectId: long }, 'body.projectId'],
        ];
        for (const [method, path, json, field] of bodies) {
          const res = await server.request(method, path, { json });
          expectProblem(res, 400, 'invalid-request', base());
          expect(res.body.detail, path).to.contain(field);
        }
        // A workspaceId is checked against the token's before the body is validated.
        const foreign = await server.request('POST', '/api/v1/tags', { json: { name: 'G', workspaceId: long } });
        expectProblem(foreign, 400, 'workspace-not-addressable', base());
        // 100 characters pass the schema and reach the lookup: an unknown project is 404.
        const res = await api.POST('/api/v1/entries', { body: { ...span, projectId: 'x'.repeat(100) } });
        expectTypedProblem(res, 404, 'not-found', base());
      });
      it('a refused date-time names the field, the value as sent and the accepted form with an example', async () => {
        const detail = async (json: object) => {
          const res = await server.request('POST', '/api/v1/entries', { json: { ...span, ...json } });
          expectProblem(res, 400, 'invalid-request', base());
          return res.body.detail as string;
        };
        const form =
          'send a date-time YYYY-MM-DDThh:mm:ss (fractions allowed) with Z or an offset ±hh:mm (T and Z upper case, seconds required), e.g. "2026-11-02T09:00:00+01:00"';
        expect(await detail({ start: '2026-11-02T08:00:00' })).to.equal(`body.start: "2026-11-02T08:00:00" is not accepted: ${form}`);
        expect(await detail({ start: '2026-11-02t08:00:00z' })).to.equal(`body.start: "2026-11-02t08:00:00z" is not accepted: ${form}`);
        expect(await detail({ start: '2026-11-02T08:00Z' })).to.equal(`body.start: "2026-11-02T08:00Z" is not accepted: ${form}`);
        expect(await detail({ start: '2026-02-30T08:00:00Z', end: '2026-03-03T08:00:00Z' })).to.equal(
          'body.start: "2026-02-30T08:00:00Z" is not a date-time that exists (the calendar has no such day or time)',
        );
        // A calendar day in a filter is echoed as sent.
        const list = await server.request('GET', '/api/v1/entries?from=2026-11-31&to=2026-12-01');
        expectProblem(list, 400, 'invalid-request', base());
        expect(list.body.detail).to.equal('from: "2026-11-31" is not a calendar day (YYYY-MM-DD, a date that exists).');
      });
      it('types, enums, unknown fields and required fields', async () => {
        await refused({ billable: 'yes' }, 'body.billable');
        await refused({ source: 'fax' }, 'body.source');
        await refused({ colour: 'red' }, 'body.colour');
        await refused({ projectId: '' }, 'body.projectId');
        const res = await server.request('POST', '/api/v1/entries', { json: { description: 'no times' } });
        expect(res.body.detail).to.contain('body.start').and.contain('body.end');
      });
    });
  });

  describe('GET /entries/{id} and visibility', () => {
    // A colleague, and readers with each visibility; the workspace rate is 50.
    let world: ReturnType<typeof seedVisibility>;
    const seedVisibility = () =>
      seed(server, {
        members: { colleague: { name: 'Colleague' }, timeOnly: { canViewOthersTime: true }, ownOnly: {} },
        entries: {
          colleagues: { by: 'colleague', start: '2026-11-01T08:00:00Z', end: '2026-11-01T10:00:00Z', billable: true },
          owners: { by: 'owner', start: '2026-11-01T11:00:00Z', end: '2026-11-01T12:00:00Z', billable: true },
          timeOnlys: { by: 'timeOnly', start: '2026-11-01T13:00:00Z', end: '2026-11-01T14:00:00Z', billable: true },
          ownOnlys: { by: 'ownOnly', start: '2026-11-01T15:00:00Z', end: '2026-11-01T16:00:00Z' },
        },
      });
    let colleague: SeededMember;
    let colleagueEntryId: string;
    before(async () => {
      server.services.accounts.setWorkspace(OPERATOR, server.workspaceId, { hourlyRate: 50 });
      world = seedVisibility();
      colleague = world.members.colleague;
      colleagueEntryId = world.entries.colleagues.id;
    });

    it('the owner (both flags) sees a colleague’s entry with its rate', async () => {
      const res = await api.GET('/api/v1/entries/{id}', { params: { path: { id: colleagueEntryId } } });
      expect(res.data!.data).to.include({ authorId: colleague.userId, hourlyRate: 50, currency: 'EUR' });
    });

    it('without canViewOthersMoney a colleague’s rate is null, the currency stays, the own rate shows', async () => {
      const { timeOnly } = world.members;
      const timeOnlyApi = typedClient(server, timeOnly.token);
      const theirs = await timeOnlyApi.GET('/api/v1/entries/{id}', { params: { path: { id: colleagueEntryId } } });
      expect(theirs.data!.data).to.include({ hourlyRate: null, currency: 'EUR' });
      const mine = world.entries.timeOnlys;
      expect((await timeOnlyApi.GET('/api/v1/entries/{id}', { params: { path: { id: mine.id } } })).data!.data.hourlyRate).to.equal(50);

      const list = await timeOnlyApi.GET('/api/v1/entries', { params: { query: { from: '2026-11-01', to: '2026-11-01' } } });
      const rows = new Map(list.data!.data.map((r) => [r.id, r]));
      expect(rows.get(colleagueEntryId)).to.include({ hourlyRate: null, amount: null, currency: 'EUR' });
      expect(rows.get(mine.id)).to.include({ hourlyRate: 50, amount: 50 });
      for (const row of list.data!.data) expect(Object.keys(row).sort()).to.deep.equal([...ROW_FIELDS].sort());
    });

    it('without canViewOthersTime a colleague’s entry is 404 and lists hold only the own rows', async () => {
      const { ownOnly } = world.members;
      const ownOnlyApi = typedClient(server, ownOnly.token);
      expectTypedProblem(
        await ownOnlyApi.GET('/api/v1/entries/{id}', { params: { path: { id: colleagueEntryId } } }),
        404,
        'not-found',
        base(),
      );
      const list = await ownOnlyApi.GET('/api/v1/entries', { params: { query: { from: '2026-11-01', to: '2026-11-01' } } });
      expect(list.data!.data.map((r) => r.authorId)).to.deep.equal([ownOnly.userId]);
    });

    it('unknown ids and other workspaces’ entries are 404', async () => {
      expectTypedProblem(
        await api.GET('/api/v1/entries/{id}', { params: { path: { id: 'ent_nope' } } }),
        404,
        'not-found',
        base(),
        '/api/v1/entries/ent_nope',
      );
      const ws = server.services.accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' });
      const user = server.services.accounts.createUser(OPERATOR, { name: 'E', email: 'e@example.org' });
      server.services.accounts.addMember(OPERATOR, { workspaceId: ws.id, userId: user.id });
      const token = server.services.tokens.create(OPERATOR, {
        workspaceId: ws.id,
        userId: user.id,
        name: 'e',
        scopes: ['entries:read', 'entries:write'],
      });
      const theirs = server.services.entries.create(actorOf(token.token), {
        start: '2026-11-01T08:00:00Z',
        end: '2026-11-01T09:00:00Z',
      });
      const path = { id: theirs.id };
      expectTypedProblem(await api.GET('/api/v1/entries/{id}', { params: { path } }), 404, 'not-found', base());
      expectTypedProblem(
        await api.PATCH('/api/v1/entries/{id}', { params: { path }, body: { description: 'x' } }),
        404,
        'not-found',
        base(),
      );
      expectTypedProblem(await api.DELETE('/api/v1/entries/{id}', { params: { path } }), 404, 'not-found', base());
    });

    it('amount is 0 for unbillable time and null for billable time without a rate', async () => {
      const ws = server.services.accounts.createWorkspace(OPERATOR, { name: 'No rates' });
      const user = server.services.accounts.createUser(OPERATOR, { name: 'N', email: 'n@example.org' });
      server.services.accounts.addMember(OPERATOR, { workspaceId: ws.id, userId: user.id });
      const token = server.services.tokens.create(OPERATOR, {
        workspaceId: ws.id,
        userId: user.id,
        name: 'n',
        scopes: ['entries:read', 'entries:write'],
      }).token;
      const theirApi = typedClient(server, token);
      await theirApi.POST('/api/v1/entries', {
        body: { start: '2026-11-01T08:00:00Z', end: '2026-11-01T09:00:00Z', billable: true },
      });
      await theirApi.POST('/api/v1/entries', {
        body: { start: '2026-11-01T10:00:00Z', end: '2026-11-01T11:00:00Z', billable: false },
      });
      const list = await theirApi.GET('/api/v1/entries', { params: { query: { from: '2026-11-01', to: '2026-11-01' } } });
      expect(list.data!.data.map((r) => [r.billable, r.amount])).to.deep.equal([
        [false, 0],
        [true, null],
      ]);
    });
  });

  describe('tags', () => {
    it('an entry’s tags read back, filter and group as they were last written (the copy in its row follows entry_tags)', async () => {
      const world = seed(server, { tags: { alpha: {}, beta: {}, gamma: {} } });
      const { alpha, beta, gamma } = world.tags;
      const created = await api.POST('/api/v1/entries', {
        body: { start: '2026-10-20T09:00:00Z', end: '2026-10-20T10:00:00Z', tagIds: [gamma.id, alpha.id] },
      });
      const id = created.data!.data.id;
      const path = { id };
      expect(created.data!.data.tagIds).to.deep.equal([alpha.id, gamma.id].sort());
      const edited = await api.PATCH('/api/v1/entries/{id}', { params: { path }, body: { tagIds: [beta.id] } });
      expect(edited.data!.data.tagIds).to.deep.equal([beta.id]);
      expect((await api.GET('/api/v1/entries/{id}', { params: { path } })).data!.data.tagIds).to.deep.equal([beta.id]);
      const day = { from: '2026-10-20', to: '2026-10-20' };
      const byTag = (tag: string) =>
        api.GET('/api/v1/entries', { params: { query: { ...day, tagIds: [tag] } } }).then((r) => r.data!.data.map((e) => e.id));
      expect(await byTag(alpha.id)).to.deep.equal([]);
      expect(await byTag(beta.id)).to.deep.equal([id]);
      const report = await api.GET('/api/v1/reports/summary', { params: { query: { ...day, groupBy: 'tag' } } });
      expect(report.data!.data.groups.map((g) => g.key)).to.deep.equal([beta.id]);
      await api.PATCH('/api/v1/entries/{id}', { params: { path }, body: { tagIds: [] } });
      expect((await api.GET('/api/v1/entries/{id}', { params: { path } })).data!.data.tagIds).to.deep.equal([]);
      const untagged = await api.GET('/api/v1/reports/summary', { params: { query: { ...day, groupBy: 'tag' } } });
      expect(untagged.data!.data.groups.map((g) => g.key)).to.deep.equal([null]);
    });
  });

  describe('PATCH and DELETE', () => {
    it('edits fields, re-resolves the rate only when the work changes, and records entry.updated', async () => {
      const p1 = server.services.catalog.projects.create(owner, { name: 'Rate 100', hourlyRate: 100 });
      const p2 = server.services.catalog.projects.create(owner, { name: 'Rate 70', hourlyRate: 70 });
      const entry = server.services.entries.create(owner, {
        start: '2026-11-03T08:00:00Z',
        end: '2026-11-03T09:00:00Z',
        projectId: p1.id,
      });
      server.services.catalog.projects.update(owner, p1.id, { hourlyRate: 200 });
      const before = countEvents();
      const path = { id: entry.id };
      const edited = await api.PATCH('/api/v1/entries/{id}', { params: { path }, body: { description: 'changed', billable: true } });
      expect(edited.data!.data).to.include({ description: 'changed', billable: true, hourlyRate: 100 });
      const moved = await api.PATCH('/api/v1/entries/{id}', { params: { path }, body: { projectId: p2.id } });
      expect(moved.data!.data).to.include({ projectId: p2.id, hourlyRate: 70 });
      const cleared = await api.PATCH('/api/v1/entries/{id}', { params: { path }, body: { projectId: null, timeZone: 'UTC' } });
      expect(cleared.data!.data).to.include({ projectId: null, timeZone: 'UTC', hourlyRate: 50 });
      const events = server.services.events.tail(OPERATOR, server.workspaceId, 0, 100000).slice(before);
      expect(events.map((e) => e.event)).to.deep.equal(['entry.updated', 'entry.updated', 'entry.updated']);
    });

    it('refuses a colleague’s visible entry with 403, an invoiced entry with 409, and changes nothing', async () => {
      const colleague = addMemberWithToken(server.services, server.workspaceId);
      const theirs = server.services.entries.create(actorOf(colleague.token), {
        start: '2026-11-03T08:00:00Z',
        end: '2026-11-03T09:00:00Z',
      });
      const theirPath = { id: theirs.id };
      expectTypedProblem(
        await api.PATCH('/api/v1/entries/{id}', { params: { path: theirPath }, body: { description: 'x' } }),
        403,
        'forbidden',
        base(),
      );
      expectTypedProblem(await api.DELETE('/api/v1/entries/{id}', { params: { path: theirPath } }), 403, 'forbidden', base());

      const mine = server.services.entries.create(owner, { start: '2026-11-03T10:00:00Z', end: '2026-11-03T11:00:00Z' });
      // The server commits its writes at the end of the event loop's turn (its batch): then another connection sees them.
      await new Promise((resolve) => setImmediate(resolve));
      const db = new Database(server.config.databasePath);
      db.prepare('UPDATE entries SET invoice_id = ? WHERE id = ?').run('inv_test', mine.id);
      db.close();
      const before = countEvents();
      const myPath = { id: mine.id };
      expectTypedProblem(
        await api.PATCH('/api/v1/entries/{id}', { params: { path: myPath }, body: { description: 'x' } }),
        409,
        'conflict',
        base(),
      );
      expectTypedProblem(await api.DELETE('/api/v1/entries/{id}', { params: { path: myPath } }), 409, 'conflict', base());
      expect(countEvents()).to.equal(before);
      expect((await api.GET('/api/v1/entries/{id}', { params: { path: myPath } })).data!.data).to.include({
        invoiceId: 'inv_test',
        description: '',
      });
    });

    it('validates the patch: at least one field, end after start', async () => {
      const entry = server.services.entries.create(owner, { start: '2026-11-03T12:00:00Z', end: '2026-11-03T13:00:00Z' });
      expectProblem(await server.request('PATCH', `/api/v1/entries/${entry.id}`, { json: {} }), 400, 'invalid-request', base());
      const backwards = await api.PATCH('/api/v1/entries/{id}', {
        params: { path: { id: entry.id } },
        body: { end: '2026-11-03T11:00:00Z' },
      });
      const problem = expectTypedProblem(backwards, 400, 'invalid-request', base());
      expect(problem.detail).to.contain('end');
    });

    it('DELETE answers 204, records entry.deleted with id and authorId, and the entry is gone', async () => {
      const entry = server.services.entries.create(owner, { start: '2026-11-03T14:00:00Z', end: '2026-11-03T15:00:00Z' });
      const before = countEvents();
      const path = { id: entry.id };
      const res = await api.DELETE('/api/v1/entries/{id}', { params: { path } });
      expect(res.response.status).to.equal(204);
      expect(await res.response.text()).to.equal('');
      const [event] = server.services.events.tail(OPERATOR, server.workspaceId, 0, 100000).slice(before);
      expect(event).to.include({ event: 'entry.deleted', operation: 'delete', entityId: entry.id });
      expect(event!.payload).to.deep.equal({ id: entry.id, authorId: server.ownerId });
      expectTypedProblem(await api.GET('/api/v1/entries/{id}', { params: { path } }), 404, 'not-found', base());
    });
  });

  it('a write whose event cannot be recorded leaves neither the entry nor the event (one transaction)', async () => {
    const sqlite = server.running.database.sqlite;
    // A failure after the entry row is written: the event insert aborts for this originId.
    sqlite.exec(
      `CREATE TRIGGER test_fail_event BEFORE INSERT ON events WHEN NEW.origin_id = 'boom' BEGIN SELECT RAISE(ABORT, 'event store failed'); END`,
    );
    try {
      const count = () => (sqlite.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n;
      const entriesBefore = count();
      const eventsBefore = countEvents();
      const res = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-03T08:00:00Z', end: '2026-11-03T09:00:00Z', originId: 'boom' },
      });
      expectTypedProblem(res, 500, 'internal-error', base());
      expect(count()).to.equal(entriesBefore);
      expect(countEvents()).to.equal(eventsBefore);
      const fine = await api.POST('/api/v1/entries', {
        body: { start: '2026-11-03T08:00:00Z', end: '2026-11-03T09:00:00Z', originId: 'fine' },
      });
      expect(fine.response.status).to.equal(200);
      expect(count()).to.equal(entriesBefore + 1);
      expect(countEvents()).to.equal(eventsBefore + 1);
    } finally {
      sqlite.exec('DROP TRIGGER test_fail_event');
    }
  });
});
