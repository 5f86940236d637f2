import { OPERATOR } from '../../src/principal.js';
import { expect } from 'chai';
import { type components, type operations, scopeValues } from '../../generated/openapi.js';
import { expectTypedProblem, type Problem, type ProblemSlug, typedClient } from '../helpers/client.js';
import { seed } from '../helpers/seed.js';
import { addMemberWithToken, expectProblem, startTestServer, type TestResponse, type TestServer } from '../helpers/server.js';

type Kind = 'clients' | 'projects' | 'tasks' | 'tags';
type Body = Record<string, unknown>;
type Schemas = components['schemas'];

/** Per kind (and for entries): the record, the create body and the patch body of the contract. */
interface KindSchemas {
  clients: { record: Schemas['Client']; create: Schemas['ClientCreate']; patch: Schemas['ClientPatch'] };
  projects: { record: Schemas['Project']; create: Schemas['ProjectCreate']; patch: Schemas['ProjectPatch'] };
  tasks: { record: Schemas['Task']; create: Schemas['TaskCreate']; patch: Schemas['TaskPatch'] };
  tags: { record: Schemas['Tag']; create: Schemas['TagCreate']; patch: Schemas['TagPatch'] };
  entries: { record: Schemas['Entry']; create: Schemas['EntryCreate']; patch: Schemas['EntryPatch'] };
}
type AnyKind = keyof KindSchemas;
type RecordOf<K extends AnyKind> = KindSchemas[K]['record'];
type CreateOf<K extends AnyKind> = KindSchemas[K]['create'];
type PatchOf<K extends AnyKind> = KindSchemas[K]['patch'];
interface ListQueries {
  clients: NonNullable<operations['listClients']['parameters']['query']>;
  projects: NonNullable<operations['listProjects']['parameters']['query']>;
  tasks: NonNullable<operations['listTasks']['parameters']['query']>;
  tags: NonNullable<operations['listTags']['parameters']['query']>;
}
/** An answer of the typed client: `data` on success, the problem as `error` otherwise. */
interface Answer<T> {
  data?: T;
  error?: Problem;
  response: Response;
}
interface Route<K extends AnyKind> {
  create(body: CreateOf<K>): Promise<Answer<{ data: RecordOf<K> }>>;
  get(id: string): Promise<Answer<{ data: RecordOf<K> }>>;
  patch(id: string, body: PatchOf<K>): Promise<Answer<{ data: RecordOf<K> }>>;
  remove(id: string): Promise<Answer<unknown>>;
}
/** A catalog list. (openapi-fetch's answer type leaves out `nextCursor: null`; `list` checks it at run time.) */
type ListRoute<K extends Kind> = (query: ListQueries[K]) => Promise<Answer<{ data: RecordOf<K>[] }>>;

/** The catalog lists of the typed client, per kind, with the caller's token. */
function lists(server: TestServer, token: string): { [K in Kind]: ListRoute<K> } {
  const api = typedClient(server, token);
  return {
    clients: (query) => api.GET('/api/v1/clients', { params: { query } }),
    projects: (query) => api.GET('/api/v1/projects', { params: { query } }),
    tasks: (query) => api.GET('/api/v1/tasks', { params: { query } }),
    tags: (query) => api.GET('/api/v1/tags', { params: { query } }),
  };
}

/** The catalog routes (and the entry routes) of the typed client, per kind, with the caller's token. */
function routes(server: TestServer, token: string): { [K in AnyKind]: Route<K> } {
  const api = typedClient(server, token);
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    clients: {
      create: (body) => api.POST('/api/v1/clients', { body }),
      get: (id) => api.GET('/api/v1/clients/{id}', path(id)),
      patch: (id, body) => api.PATCH('/api/v1/clients/{id}', { ...path(id), body }),
      remove: (id) => api.DELETE('/api/v1/clients/{id}', path(id)),
    },
    projects: {
      create: (body) => api.POST('/api/v1/projects', { body }),
      get: (id) => api.GET('/api/v1/projects/{id}', path(id)),
      patch: (id, body) => api.PATCH('/api/v1/projects/{id}', { ...path(id), body }),
      remove: (id) => api.DELETE('/api/v1/projects/{id}', path(id)),
    },
    tasks: {
      create: (body) => api.POST('/api/v1/tasks', { body }),
      get: (id) => api.GET('/api/v1/tasks/{id}', path(id)),
      patch: (id, body) => api.PATCH('/api/v1/tasks/{id}', { ...path(id), body }),
      remove: (id) => api.DELETE('/api/v1/tasks/{id}', path(id)),
    },
    tags: {
      create: (body) => api.POST('/api/v1/tags', { body }),
      get: (id) => api.GET('/api/v1/tags/{id}', path(id)),
      patch: (id, body) => api.PATCH('/api/v1/tags/{id}', { ...path(id), body }),
      remove: (id) => api.DELETE('/api/v1/tags/{id}', path(id)),
    },
    entries: {
      create: (body) => api.POST('/api/v1/entries', { body }),
      get: (id) => api.GET('/api/v1/entries/{id}', path(id)),
      patch: (id, body) => api.PATCH('/api/v1/entries/{id}', { ...path(id), body }),
      remove: (id) => api.DELETE('/api/v1/entries/{id}', path(id)),
    },
  };
}

const API = '/api/v1';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const pathOf = (kind: Kind | 'entries', id?: string) => `${API}/${kind}${id === undefined ? '' : `/${id}`}`;
/** A completed day before the test clock's "now" (2026-11-02T10:00:30Z), for explicit entries. */
const at = (time: string) => `2026-11-01T${time}:00Z`;

const NO_PARTY = {
  legalName: null,
  addressLines: null,
  postalCode: null,
  city: null,
  country: null,
  taxId: null,
  email: null,
  reference: null,
  vatId: null,
  electronicAddress: null,
  electronicAddressScheme: null,
  taxCategory: null,
  exemptionReason: null,
  exemptionReasonCode: null,
};
const NO_PROGRESS = { trackedSec: 0, billableSec: 0, amount: 0, estimateRatio: null, budgetRatio: null };

/**
 * Small HTTP helpers bound to one server, over the typed client. Each asserts the exact status and
 * envelope and returns the `data` (or the problem), so the tests read as the requests they make.
 * `refused` sends what the typed client cannot (bodies and queries the contract forbids).
 */
function client(server: TestServer) {
  const expectData = <T>(res: Answer<{ data: T }>): T => {
    expect(res.response.status, JSON.stringify(res.error)).to.equal(200);
    expect(res.data).to.have.all.keys('data');
    return res.data!.data;
  };
  const as = (token: string) => routes(server, token);
  const problem = (res: Answer<unknown>, status: number, slug: ProblemSlug, instance: string) =>
    expectTypedProblem(res, status, slug, server.config.problemsBase, instance);
  const self = {
    async create<K extends AnyKind>(kind: K, body: CreateOf<K>, token = server.ownerToken): Promise<RecordOf<K>> {
      return expectData(await as(token)[kind].create(body));
    },
    async get<K extends AnyKind>(kind: K, id: string, token = server.ownerToken): Promise<RecordOf<K>> {
      return expectData(await as(token)[kind].get(id));
    },
    async patch<K extends AnyKind>(kind: K, id: string, body: PatchOf<K>, token = server.ownerToken): Promise<RecordOf<K>> {
      return expectData(await as(token)[kind].patch(id, body));
    },
    async remove(kind: AnyKind, id: string, token = server.ownerToken) {
      const res = await as(token)[kind].remove(id);
      expect(res.response.status, JSON.stringify(res.error)).to.equal(204);
      expect(await res.response.text()).to.equal('');
    },
    /** The whole list: `nextCursor` is always present and null. */
    async list<K extends Kind>(kind: K, query: ListQueries[K] = {}, token = server.ownerToken): Promise<RecordOf<K>[]> {
      const res = await lists(server, token)[kind](query);
      expect(res.response.status, JSON.stringify(res.error)).to.equal(200);
      expect(res.data).to.have.all.keys('data', 'nextCursor');
      expect((res.data as { nextCursor?: unknown }).nextCursor).to.equal(null);
      return res.data!.data;
    },
    async names<K extends Kind>(kind: K, query: ListQueries[K] = {}) {
      return (await self.list(kind, query)).map((row) => row.name);
    },
    /** `names` for a query string the typed client does not write (a comma-separated list). */
    async rawNames(kind: Kind, query: string) {
      const res = await server.request('GET', `${pathOf(kind)}${query}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.have.all.keys('data', 'nextCursor');
      expect(res.body.nextCursor).to.equal(null);
      return (res.body.data as Array<{ name: string }>).map((row) => row.name);
    },
    /** Typed requests that are refused: the exact problem document, `instance` being the path. */
    refusedGet: async (kind: AnyKind, id: string, status: number, slug: ProblemSlug, token = server.ownerToken) =>
      problem(await as(token)[kind].get(id), status, slug, pathOf(kind, id)),
    refusedList: async (kind: Kind, status: number, slug: ProblemSlug, token = server.ownerToken) =>
      problem(await lists(server, token)[kind]({}), status, slug, pathOf(kind)),
    async refusedCreate<K extends AnyKind>(kind: K, body: CreateOf<K>, status: number, slug: ProblemSlug, token = server.ownerToken) {
      return problem(await as(token)[kind].create(body), status, slug, pathOf(kind));
    },
    async refusedPatch<K extends AnyKind>(
      kind: K,
      id: string,
      body: PatchOf<K>,
      status: number,
      slug: ProblemSlug,
      token = server.ownerToken,
    ) {
      return problem(await as(token)[kind].patch(id, body), status, slug, pathOf(kind, id));
    },
    refusedRemove: async (kind: AnyKind, id: string, status: number, slug: ProblemSlug, token = server.ownerToken) =>
      problem(await as(token)[kind].remove(id), status, slug, pathOf(kind, id)),
    /** A refused request the typed client cannot send: the exact problem document, `instance` being the path without the query. */
    async refused(method: string, path: string, status: number, slug: string, options: { json?: unknown; token?: string } = {}) {
      const res: TestResponse = await server.request(method, path, { token: server.ownerToken, ...options });
      expectProblem(res, status, slug, server.config.problemsBase, path.split('?')[0]);
      return res.body as { detail: string };
    },
    /** A completed entry of the owner, on the fixed day. */
    async entry(from: string, to: string, fields: Partial<CreateOf<'entries'>> = {}) {
      return self.create('entries', { start: at(from), end: at(to), ...fields });
    },
    /** Starts the owner's timer. */
    async startTimer(body: Schemas['TimerStart']) {
      return expectData(await typedClient(server).POST('/api/v1/entries/current', { body }));
    },
    async stopTimer(body: Schemas['TimerStop'] = {}) {
      return expectData(await typedClient(server).POST('/api/v1/entries/current/stop', { body }));
    },
    async progress(projectId: string) {
      return (await self.get('projects', projectId)).progress;
    },
  };
  return self;
}

/** A second workspace with its own owner (who sees everything) and an all-scopes token. */
function otherWorkspace(server: TestServer) {
  const { accounts, tokens } = server.services;
  const workspace = accounts.createWorkspace(OPERATOR, { name: 'Elsewhere' });
  const user = accounts.createUser(OPERATOR, { name: 'Other owner', email: `other-${workspace.id}@example.org` });
  accounts.addMember(OPERATOR, { workspaceId: workspace.id, userId: user.id, canViewOthersTime: true, canViewOthersMoney: true });
  const { token } = tokens.create(OPERATOR, { workspaceId: workspace.id, userId: user.id, name: 'other', scopes: scopeValues });
  return { workspaceId: workspace.id, token };
}

/** Asserts a freshly written record: an id with the kind's prefix, and exactly the expected fields. */
function expectRecord(data: any, idPrefix: string, expected: Body) {
  expect(data.id).to.match(new RegExp(`^${idPrefix}_[0-9a-z]{20}$`));
  expect(data).to.deep.equal({ id: data.id, ...expected });
}

describe('catalog', () => {
  describe('CRUD round trips', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    const stamps = () => ({ createdAt: iso(server.clock.now()), updatedAt: iso(server.clock.now()) });
    before(async () => {
      server = await startTestServer();
      api = client(server);
    });
    after(() => server.close());

    it('clients: create, get, partial edit, archive, unarchive, delete', async () => {
      const created = await api.create('clients', { name: '  Acme Corp  ' });
      const createdStamps = stamps();
      expectRecord(created, 'cli', { workspaceId: server.workspaceId, name: 'Acme Corp', archived: false, ...NO_PARTY, ...createdStamps });
      expect(await api.get('clients', created.id)).to.deep.equal(created);

      server.clock.advance(1000);
      const renamed = await api.patch('clients', created.id, { name: 'Acme Inc', city: 'Springfield' });
      expect(renamed).to.deep.equal({ ...created, name: 'Acme Inc', city: 'Springfield', updatedAt: stamps().updatedAt });
      expect(await api.get('clients', created.id)).to.deep.equal(renamed);

      const archived = await api.patch('clients', created.id, { archived: true });
      expect(archived).to.deep.equal({ ...renamed, archived: true });
      expect((await api.patch('clients', created.id, { archived: false })).archived).to.equal(false);

      await api.remove('clients', created.id);
      await api.refusedGet('clients', created.id, 404, 'not-found');
    });

    it('clients: party fields are set, cleared with null, and blank strings are stored as null', async () => {
      const party = {
        legalName: 'Initech GmbH',
        addressLines: ['Hauptstraße 1', '2. OG'],
        postalCode: '10115',
        city: 'Berlin',
        country: 'DE',
        taxId: '12/345/67890',
        email: 'billing@initech.example',
        reference: 'PO-4711',
        vatId: 'DE136695976',
        electronicAddress: 'billing@initech.example',
        electronicAddressScheme: 'EM',
      };
      const created = await api.create('clients', { name: 'Initech', ...party });
      expectRecord(created, 'cli', {
        workspaceId: server.workspaceId,
        name: 'Initech',
        archived: false,
        ...party,
        taxCategory: null,
        exemptionReason: null,
        exemptionReasonCode: null,
        ...stamps(),
      });

      // null clears; other party fields stay as they were.
      const cleared = await api.patch('clients', created.id, { city: null, addressLines: null, vatId: null });
      expect(cleared).to.deep.equal({ ...created, city: null, addressLines: null, vatId: null });

      // Blank strings and an empty address are stored as null, on edit and on create.
      const blanked = await api.patch('clients', created.id, { legalName: '   ', reference: '', addressLines: [] });
      expect(blanked).to.deep.equal({ ...cleared, legalName: null, reference: null });
      const blankOnCreate = await api.create('clients', { name: 'Blank Co', legalName: '', postalCode: '  ', addressLines: [] });
      expect(blankOnCreate).to.deep.equal({ ...blankOnCreate, ...NO_PARTY });
      expect(await api.get('clients', blankOnCreate.id)).to.deep.equal(blankOnCreate);
    });

    it('clients: the VAT override (taxCategory, exemptionReason, exemptionReasonCode) is set, read, cleared; bad codes are refused', async () => {
      const created = await api.create('clients', {
        name: 'Reverse Co',
        taxCategory: 'AE',
        exemptionReason: ' Reverse charge ',
        exemptionReasonCode: 'VATEX-EU-AE',
      });
      expect(created).to.deep.include({ taxCategory: 'AE', exemptionReason: 'Reverse charge', exemptionReasonCode: 'VATEX-EU-AE' });
      expect(await api.get('clients', created.id)).to.deep.equal(created);
      const cleared = await api.patch('clients', created.id, { exemptionReason: '  ', exemptionReasonCode: null });
      expect(cleared).to.deep.include({ taxCategory: 'AE', exemptionReason: null, exemptionReasonCode: null });
      expect(await api.patch('clients', created.id, { taxCategory: null })).to.deep.include({ taxCategory: null });
      const plain = await api.create('clients', { name: 'Plain Co' });
      expect(plain).to.deep.include({ taxCategory: null, exemptionReason: null, exemptionReasonCode: null });

      // The contract refuses an unknown category and a code that is no VATEX code; nothing is changed.
      for (const json of [
        { taxCategory: 'X' },
        { taxCategory: 's' },
        { exemptionReasonCode: 'AE' },
        { exemptionReasonCode: 'vatex-eu-ae' },
      ]) {
        const { detail } = await api.refused('PATCH', pathOf('clients', created.id), 400, 'invalid-request', { json });
        expect(detail, JSON.stringify(json)).to.match(/taxCategory|exemptionReasonCode/);
      }
      expect((await api.get('clients', created.id)).taxCategory).to.equal(null);
    });

    it('clients: the service refuses a bad VAT override itself (callers without the contract: the web app, imports)', () => {
      const owner = server.services.tokens.authenticate(server.ownerToken)!.actor;
      const { clients } = server.services.catalog;
      expect(() => clients.create(owner, { name: 'Bad Co', taxCategory: 'X' as never })).to.throw(
        /taxCategory must be one of S, AE, K, G, E, Z, O/,
      );
      expect(() => clients.create(owner, { name: 'Bad Co', exemptionReasonCode: 'exempt' })).to.throw(/VATEX code such as VATEX-EU-AE/);
      expect(clients.list(owner, {}).map((c) => c.name)).not.to.include('Bad Co');
    });

    it('clients: an address of only blank lines is stored as null; blank lines are dropped', async () => {
      const created = await api.create('clients', { name: 'Blank lines', addressLines: ['  ', ''] });
      expect(created.addressLines).to.equal(null);
      const mixed = await api.create('clients', { name: 'Mixed lines', addressLines: [' Main St 1 ', '', 'Floor 2'] });
      expect(mixed.addressLines).to.deep.equal(['Main St 1', 'Floor 2']);
    });

    it('projects: defaults, exact fields, partial edit, moving between clients, archive, delete', async () => {
      const globex = await api.create('clients', { name: 'Globex' });
      const plain = await api.create('projects', { name: 'Internal' });
      expectRecord(plain, 'prj', {
        workspaceId: server.workspaceId,
        clientId: null,
        name: 'Internal',
        color: '#9e9e9e',
        billable: false,
        hourlyRate: null,
        estimateSec: null,
        budgetAmount: null,
        archived: false,
        progress: NO_PROGRESS,
        ...stamps(),
      });

      const full = await api.create('projects', {
        name: ' Website ',
        clientId: globex.id,
        color: '#A1B2C3',
        billable: true,
        hourlyRate: 90.5,
        estimateSec: 7200,
        budgetAmount: 5000,
      });
      expectRecord(full, 'prj', {
        workspaceId: server.workspaceId,
        clientId: globex.id,
        name: 'Website',
        color: '#a1b2c3',
        billable: true,
        hourlyRate: 90.5,
        estimateSec: 7200,
        budgetAmount: 5000,
        archived: false,
        progress: { trackedSec: 0, billableSec: 0, amount: 0, estimateRatio: 0, budgetRatio: 0 },
        ...stamps(),
      });
      expect(await api.get('projects', full.id)).to.deep.equal(full);

      server.clock.advance(1000);
      const edited = await api.patch('projects', full.id, { hourlyRate: null, color: '#000000', budgetAmount: null });
      expect(edited).to.deep.equal({
        ...full,
        hourlyRate: null,
        color: '#000000',
        budgetAmount: null,
        progress: { ...full.progress, budgetRatio: null },
        updatedAt: stamps().updatedAt,
      });
      const moved = await api.patch('projects', full.id, { clientId: null });
      expect(moved).to.deep.equal({ ...edited, clientId: null });
      expect((await api.patch('projects', full.id, { clientId: globex.id })).clientId).to.equal(globex.id);

      expect((await api.patch('projects', full.id, { archived: true })).archived).to.equal(true);
      expect((await api.get('projects', full.id)).archived).to.equal(true);
      expect((await api.patch('projects', full.id, { archived: false })).archived).to.equal(false);

      await api.remove('projects', plain.id);
      await api.refusedGet('projects', plain.id, 404, 'not-found');
    });

    it('tasks: create, get, partial edit, archive, delete', async () => {
      const project = await api.create('projects', { name: 'Tasks home' });
      const task = await api.create('tasks', { projectId: project.id, name: '  Design ', estimateSec: 3600, hourlyRate: 110 });
      expectRecord(task, 'tsk', {
        workspaceId: server.workspaceId,
        projectId: project.id,
        name: 'Design',
        estimateSec: 3600,
        hourlyRate: 110,
        archived: false,
        ...stamps(),
      });
      expect(await api.get('tasks', task.id)).to.deep.equal(task);

      server.clock.advance(1000);
      const edited = await api.patch('tasks', task.id, { name: 'Visual design', estimateSec: null });
      expect(edited).to.deep.equal({ ...task, name: 'Visual design', estimateSec: null, updatedAt: stamps().updatedAt });
      expect((await api.patch('tasks', task.id, { archived: true })).archived).to.equal(true);
      expect((await api.patch('tasks', task.id, { archived: false, hourlyRate: null })).hourlyRate).to.equal(null);

      await api.remove('tasks', task.id);
      await api.refusedGet('tasks', task.id, 404, 'not-found');
      expect((await api.get('projects', project.id)).id).to.equal(project.id);
    });

    it('tags: create, get, rename, delete', async () => {
      const tag = await api.create('tags', { name: ' urgent ' });
      expectRecord(tag, 'tag', { workspaceId: server.workspaceId, name: 'urgent', ...stamps() });
      expect(await api.get('tags', tag.id)).to.deep.equal(tag);

      server.clock.advance(1000);
      const renamed = await api.patch('tags', tag.id, { name: 'Urgent!' });
      expect(renamed).to.deep.equal({ ...tag, name: 'Urgent!', updatedAt: stamps().updatedAt });

      await api.remove('tags', tag.id);
      await api.refusedGet('tags', tag.id, 404, 'not-found');
    });

    it('a project without entries is deleted together with its tasks', async () => {
      const project = await api.create('projects', { name: 'Short-lived' });
      const tasks = [
        await api.create('tasks', { projectId: project.id, name: 'One' }),
        await api.create('tasks', { projectId: project.id, name: 'Two' }),
      ];
      await api.remove('projects', project.id);
      await api.refusedGet('projects', project.id, 404, 'not-found');
      for (const task of tasks) await api.refusedGet('tasks', task.id, 404, 'not-found');
      expect(await api.list('tasks', { projectIds: [project.id] })).to.deep.equal([]);
    });

    it('every catalog sync event carries the API view of what it wrote (as the owner sees it)', async () => {
      const seq = server.services.events.tail(OPERATOR, server.workspaceId, 0, 100_000).at(-1)?.seq ?? 0;
      const client = await api.create('clients', { name: 'Synced client' });
      const project = await api.create('projects', { name: 'Synced', clientId: client.id, hourlyRate: 80, estimateSec: 3600 });
      const task = await api.create('tasks', { projectId: project.id, name: 'Synced task', hourlyRate: 90 });
      const tag = await api.create('tags', { name: 'synced' });
      const renamed = (await routes(server, server.ownerToken).projects.patch(project.id, { name: 'Synced, renamed' })).data!.data;
      const events = server.services.events.tail(OPERATOR, server.workspaceId, seq, 100);
      expect(events.map((e) => [e.entity, e.operation, e.event])).to.deep.equal([
        ['client', 'create', null],
        ['project', 'create', null],
        ['task', 'create', null],
        ['tag', 'create', null],
        ['project', 'update', null],
      ]);
      expect(events.map((e) => e.payload)).to.deep.equal([client, project, task, tag, renamed]);
    });
  });

  describe('lists', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    let world: ReturnType<typeof seedLists>;
    const seedLists = (target: TestServer) =>
      seed(target, {
        clients: { charlie: { archived: true }, beta: {}, Alpha: {}, Bravo: {} },
        projects: { zeta: { client: 'Alpha' }, Eta: { client: 'Alpha', archived: true }, delta: { client: 'beta' }, Gamma: {} },
        tasks: { 'b-task': { project: 'zeta' }, 'A-task': { project: 'zeta', archived: true }, 'c-task': { project: 'delta' } },
        tags: { green: {}, Blue: {}, red: {} },
      });
    before(async () => {
      server = await startTestServer();
      api = client(server);
      world = seedLists(server);
    });
    after(() => server.close());

    it('clients: all of them, archived included, sorted by name case-insensitively; archived=true|false filters', async () => {
      const rows = await api.list('clients');
      expect(rows.map((row) => row.name)).to.deep.equal(['Alpha', 'beta', 'Bravo', 'charlie']);
      expect(rows[0]).to.deep.equal(await api.get('clients', world.clients.Alpha.id));
      expect(await api.names('clients', { archived: true })).to.deep.equal(['charlie']);
      expect(await api.names('clients', { archived: false })).to.deep.equal(['Alpha', 'beta', 'Bravo']);
    });

    it('projects: sorted, archived included; archived and clientIds filters (repeated or comma-separated)', async () => {
      const rows = await api.list('projects');
      expect(rows.map((row) => row.name)).to.deep.equal(['delta', 'Eta', 'Gamma', 'zeta']);
      expect(rows[0]).to.deep.equal(await api.get('projects', world.projects.delta.id));
      expect(await api.names('projects', { archived: true })).to.deep.equal(['Eta']);
      expect(await api.names('projects', { archived: false })).to.deep.equal(['delta', 'Gamma', 'zeta']);
      expect(await api.names('projects', { clientIds: [world.clients.Alpha.id] })).to.deep.equal(['Eta', 'zeta']);
      expect(await api.rawNames('projects', `?clientIds=${world.clients.Alpha.id},${world.clients.beta.id}`)).to.deep.equal([
        'delta',
        'Eta',
        'zeta',
      ]);
      expect(await api.names('projects', { clientIds: [world.clients.Alpha.id, world.clients.beta.id], archived: false })).to.deep.equal([
        'delta',
        'zeta',
      ]);
      expect(await api.names('projects', { clientIds: [world.clients.charlie.id] })).to.deep.equal([]);
    });

    it('tasks: sorted, archived included; archived and projectIds filters', async () => {
      const rows = await api.list('tasks');
      expect(rows.map((row) => row.name)).to.deep.equal(['A-task', 'b-task', 'c-task']);
      expect(rows[1]).to.deep.equal(await api.get('tasks', world.tasks['b-task'].id));
      expect(await api.names('tasks', { archived: true })).to.deep.equal(['A-task']);
      expect(await api.names('tasks', { archived: false })).to.deep.equal(['b-task', 'c-task']);
      expect(await api.names('tasks', { projectIds: [world.projects.zeta.id] })).to.deep.equal(['A-task', 'b-task']);
      expect(await api.rawNames('tasks', `?projectIds=${world.projects.delta.id},${world.projects.Gamma.id}`)).to.deep.equal(['c-task']);
    });

    it('tags: sorted case-insensitively', async () => {
      const rows = await api.list('tags');
      expect(rows.map((row) => row.name)).to.deep.equal(['Blue', 'green', 'red']);
      expect(rows[0]).to.deep.equal(await api.get('tags', world.tags.Blue.id));
    });
  });

  describe('unique names within the parent', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    before(async () => {
      server = await startTestServer();
      api = client(server);
    });
    after(() => server.close());

    /** 409 `conflict` whose detail names the clashing name. */
    async function expectClash(refusal: Promise<Problem>, name: string) {
      const { detail } = await refusal;
      expect(detail.toLowerCase(), detail).to.contain(name.toLowerCase());
    }

    it('clients: per workspace, trimmed and case-insensitive; renames too', async () => {
      const acme = await api.create('clients', { name: 'Acme' });
      await expectClash(api.refusedCreate('clients', { name: ' acme ' }, 409, 'conflict'), 'acme');
      await expectClash(api.refusedCreate('clients', { name: 'ACME' }, 409, 'conflict'), 'acme');
      const other = await api.create('clients', { name: 'Acme Two' });
      await expectClash(api.refusedPatch('clients', other.id, { name: 'aCmE ' }, 409, 'conflict'), 'acme');
      // A row may change the case of its own name.
      expect((await api.patch('clients', acme.id, { name: 'ACME' })).name).to.equal('ACME');
      expect(await api.names('clients')).to.deep.equal(['ACME', 'Acme Two']);
    });

    it('projects: per client, or per workspace among projects without a client', async () => {
      const a = await api.create('clients', { name: 'Client A' });
      const b = await api.create('clients', { name: 'Client B' });
      const underA = await api.create('projects', { name: 'Website', clientId: a.id });
      await api.create('projects', { name: 'website', clientId: b.id });
      const clientless = await api.create('projects', { name: 'WEBSITE' });
      await expectClash(api.refusedCreate('projects', { name: ' Website ', clientId: a.id }, 409, 'conflict'), 'website');
      await expectClash(api.refusedCreate('projects', { name: 'website ' }, 409, 'conflict'), 'website');

      const other = await api.create('projects', { name: 'Shop', clientId: a.id });
      await expectClash(api.refusedPatch('projects', other.id, { name: 'WEBSITE' }, 409, 'conflict'), 'website');
      // Renaming and moving at once into a parent where the name is free works.
      const movedAway = await api.patch('projects', other.id, { name: 'Webshop', clientId: b.id });
      expect([movedAway.name, movedAway.clientId]).to.deep.equal(['Webshop', b.id]);
      expect((await api.patch('projects', underA.id, { name: 'WebSite' })).name).to.equal('WebSite');
      expect((await api.get('projects', clientless.id)).name).to.equal('WEBSITE');
    });

    it('projects: moving a project to a client where its name is taken is 409 naming the project', async () => {
      const a = await api.create('clients', { name: 'Mover A' });
      const b = await api.create('clients', { name: 'Mover B' });
      await api.create('projects', { name: 'Portal', clientId: a.id });
      const other = await api.create('projects', { name: 'portal', clientId: b.id });
      await expectClash(api.refusedPatch('projects', other.id, { clientId: a.id }, 409, 'conflict'), 'portal');
    });

    it('tasks: per project', async () => {
      const p1 = await api.create('projects', { name: 'Tasks one' });
      const p2 = await api.create('projects', { name: 'Tasks two' });
      await api.create('tasks', { projectId: p1.id, name: 'Design' });
      await api.create('tasks', { projectId: p2.id, name: 'design' });
      await expectClash(api.refusedCreate('tasks', { projectId: p1.id, name: ' DESIGN ' }, 409, 'conflict'), 'design');
      const build = await api.create('tasks', { projectId: p1.id, name: 'Build' });
      await expectClash(api.refusedPatch('tasks', build.id, { name: 'design' }, 409, 'conflict'), 'design');
    });

    it('tags: per workspace', async () => {
      await api.create('tags', { name: 'Urgent' });
      await expectClash(api.refusedCreate('tags', { name: ' urgent ' }, 409, 'conflict'), 'urgent');
      const later = await api.create('tags', { name: 'Later' });
      await expectClash(api.refusedPatch('tags', later.id, { name: 'URGENT' }, 409, 'conflict'), 'urgent');
    });
  });

  describe('deleting referenced rows', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    before(async () => {
      server = await startTestServer();
      api = client(server);
    });
    after(() => server.close());

    it('is 409 conflict while a project or an entry refers to the row, and works once the reference is gone', async () => {
      const customer = await api.create('clients', { name: 'Referenced' });
      const project = await api.create('projects', { name: 'Referenced', clientId: customer.id });
      const task = await api.create('tasks', { projectId: project.id, name: 'Referenced' });
      const tag = await api.create('tags', { name: 'Referenced' });
      const entry = await api.entry('09:00', '10:00', { projectId: project.id, taskId: task.id, tagIds: [tag.id] });

      const rows: Array<[Kind, string]> = [
        ['clients', customer.id],
        ['projects', project.id],
        ['tasks', task.id],
        ['tags', tag.id],
      ];
      for (const [kind, id] of rows) {
        await api.refusedRemove(kind, id, 409, 'conflict');
        expect((await api.get(kind, id)).id).to.equal(id);
      }

      await api.remove('entries', entry.id);
      await api.remove('tags', tag.id);
      await api.remove('tasks', task.id);
      await api.refusedRemove('clients', customer.id, 409, 'conflict');
      await api.remove('projects', project.id);
      await api.remove('clients', customer.id);
      for (const [kind, id] of rows) await api.refusedGet(kind, id, 404, 'not-found');
    });

    it("the 409 says nothing of colleagues' entries to a member who may not see them", async () => {
      const world = seed(server, {
        members: { colleague: {}, member: { scopes: ['catalog:write', 'catalog:read'] } },
        projects: { shared: {} },
        tasks: { shared: { project: 'shared' } },
        tags: { shared: {} },
        entries: { theirs: { by: 'colleague', project: 'shared', task: 'shared', tags: ['shared'], start: at('08:00'), end: at('09:00') } },
      });
      const cases: Array<[Kind, string, string]> = [
        ['projects', world.projects.shared.id, `Project ${world.projects.shared.id} still has entries; archive it instead.`],
        ['tasks', world.tasks.shared.id, `Task ${world.tasks.shared.id} still has entries; archive it instead.`],
        ['tags', world.tags.shared.id, `Tag ${world.tags.shared.id} is still used by entries.`],
      ];
      for (const [kind, id, detail] of cases) {
        const res = await routes(server, world.members.member.token)[kind].remove(id);
        const problem = expectTypedProblem(res, 409, 'conflict', server.config.problemsBase, pathOf(kind, id));
        // No entry id, no author, no count: only that the row is in use.
        expect(problem.detail).to.equal(detail);
        expect(problem.detail).not.to.contain(world.entries.theirs.id);
      }
    });
  });

  describe('not found and parents', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    let other: ReturnType<typeof otherWorkspace>;
    const foreign: Partial<Record<Kind, string>> = {};
    const kinds: Kind[] = ['clients', 'projects', 'tasks', 'tags'];
    before(async () => {
      server = await startTestServer();
      api = client(server);
      other = otherWorkspace(server);
      foreign.clients = (await api.create('clients', { name: 'Theirs' }, other.token)).id;
      foreign.projects = (await api.create('projects', { name: 'Theirs', clientId: foreign.clients }, other.token)).id;
      foreign.tasks = (await api.create('tasks', { name: 'Theirs', projectId: foreign.projects }, other.token)).id;
      foreign.tags = (await api.create('tags', { name: 'Theirs' }, other.token)).id;
    });
    after(() => server.close());

    it('unknown ids answer 404 not-found to GET, PATCH and DELETE', async () => {
      for (const kind of kinds) {
        const id = 'nope_00000000000000000000';
        await api.refusedGet(kind, id, 404, 'not-found');
        await api.refusedPatch(kind, id, { name: 'Renamed' }, 404, 'not-found');
        await api.refusedRemove(kind, id, 404, 'not-found');
      }
    });

    it('ids of another workspace answer 404 not-found, and the rows stay untouched there', async () => {
      for (const kind of kinds) {
        const id = foreign[kind]!;
        await api.refusedGet(kind, id, 404, 'not-found');
        await api.refusedPatch(kind, id, { name: 'Hijacked' }, 404, 'not-found');
        await api.refusedRemove(kind, id, 404, 'not-found');
        expect((await api.get(kind, foreign[kind]!, other.token)).name).to.equal('Theirs');
        expect((await api.list(kind)).map((row) => row.id)).not.to.include(foreign[kind]);
      }
    });

    it('a parent of another workspace is 404: clientId of a project, projectId of a task', async () => {
      await api.refusedCreate('projects', { name: 'Mine', clientId: foreign.clients }, 404, 'not-found');
      await api.refusedCreate('tasks', { name: 'Mine', projectId: foreign.projects! }, 404, 'not-found');
      const mine = await api.create('projects', { name: 'Mine' });
      await api.refusedPatch('projects', mine.id, { clientId: foreign.clients }, 404, 'not-found');
      expect((await api.get('projects', mine.id)).clientId).to.equal(null);
    });

    it('an archived parent is 400 invalid-request: a project under an archived client, a task under an archived project', async () => {
      const customer = await api.create('clients', { name: 'Dormant' });
      await api.patch('clients', customer.id, { archived: true });
      const projectDetail = (await api.refusedCreate('projects', { name: 'New', clientId: customer.id }, 400, 'invalid-request')).detail;
      expect(projectDetail).to.contain('clientId').and.contain('archived');
      const loose = await api.create('projects', { name: 'Loose' });
      await api.refusedPatch('projects', loose.id, { clientId: customer.id }, 400, 'invalid-request');

      await api.patch('projects', loose.id, { archived: true });
      const taskDetail = (await api.refusedCreate('tasks', { name: 'New', projectId: loose.id }, 400, 'invalid-request')).detail;
      expect(taskDetail).to.contain('projectId').and.contain('archived');

      // Unarchived, both take children again.
      await api.patch('clients', customer.id, { archived: false });
      await api.patch('projects', loose.id, { archived: false });
      expect((await api.create('projects', { name: 'New', clientId: customer.id })).clientId).to.equal(customer.id);
      expect((await api.create('tasks', { name: 'New', projectId: loose.id })).projectId).to.equal(loose.id);
    });
  });

  describe('scopes', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    let rows: Record<Kind, string>;
    const bodies = (projectId: string): { [K in Kind]: CreateOf<K> } => ({
      clients: { name: 'Scoped' },
      projects: { name: 'Scoped' },
      tasks: { name: 'Scoped', projectId },
      tags: { name: 'Scoped' },
    });
    before(async () => {
      server = await startTestServer();
      api = client(server);
      const named = { name: 'Existing' };
      const world = seed(server, {
        clients: { existing: named },
        projects: { existing: named },
        tasks: { existing: { ...named, project: 'existing' } },
        tags: { existing: named },
      });
      rows = {
        clients: world.clients.existing.id,
        projects: world.projects.existing.id,
        tasks: world.tasks.existing.id,
        tags: world.tags.existing.id,
      };
    });
    after(() => server.close());

    it('catalog:read alone cannot POST, PATCH or DELETE', async () => {
      const { token } = addMemberWithToken(server.services, server.workspaceId, { scopes: ['catalog:read'], canViewOthersMoney: true });
      for (const [kind, json] of Object.entries(bodies(rows.projects)) as Array<[Kind, CreateOf<Kind>]>) {
        await api.list(kind, {}, token);
        await api.refusedCreate(kind, json, 403, 'insufficient-scope', token);
        await api.refusedPatch(kind, rows[kind], { name: 'Renamed' }, 403, 'insufficient-scope', token);
        await api.refusedRemove(kind, rows[kind], 403, 'insufficient-scope', token);
        expect((await api.get(kind, rows[kind])).name).to.equal('Existing');
      }
    });

    it('catalog:write alone cannot GET (write does not imply read)', async () => {
      const { token } = addMemberWithToken(server.services, server.workspaceId, { scopes: ['catalog:write'], canViewOthersMoney: true });
      for (const [kind, json] of Object.entries(bodies(rows.projects)) as Array<[Kind, CreateOf<Kind>]>) {
        await api.refusedList(kind, 403, 'insufficient-scope', token);
        await api.refusedGet(kind, rows[kind], 403, 'insufficient-scope', token);
        expect((await api.create(kind, { ...json, name: 'Written' }, token)).name).to.equal('Written');
      }
    });
  });

  describe('project progress', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    before(async () => {
      server = await startTestServer();
      api = client(server);
    });
    after(() => server.close());

    it('sums every entry of the project, counts a running timer with its elapsed seconds, and follows edits and deletes', async () => {
      const project = await api.create('projects', {
        name: 'Measured',
        billable: true,
        hourlyRate: 100,
        estimateSec: 36000,
        budgetAmount: 1000,
      });
      const elsewhere = await api.create('projects', { name: 'Elsewhere', hourlyRate: 100 });
      const hour = await api.entry('09:00', '10:00', { projectId: project.id });
      const half = await api.entry('10:00', '10:30', { projectId: project.id });
      const unbilled = await api.entry('11:00', '12:00', { projectId: project.id, billable: false });
      expect([hour.billable, hour.hourlyRate, unbilled.billable]).to.deep.equal([true, 100, false]);
      const expected = { trackedSec: 9000, billableSec: 5400, amount: 150, estimateRatio: 0.25, budgetRatio: 0.15 };
      expect(await api.progress(project.id)).to.deep.equal(expected);

      // A running timer counts with the whole seconds elapsed so far, in the list too.
      const timer = await api.startTimer({ projectId: project.id, start: iso(server.clock.now()) });
      expect(timer.end).to.equal(null);
      expect(await api.progress(project.id)).to.deep.equal(expected);
      server.clock.advance(10 * MINUTE + 999);
      const running = { trackedSec: 9600, billableSec: 6000, amount: 166.67, estimateRatio: 0.2667, budgetRatio: 0.1667 };
      expect(await api.progress(project.id)).to.deep.equal(running);
      const listed = (await api.list('projects')).find((row) => row.id === project.id);
      expect(listed!.progress).to.deep.equal(running);

      // Stopping it turns the elapsed time into a stored entry: the totals are unchanged.
      const stopped = await api.stopTimer({ end: iso(server.clock.now() - 999) });
      expect([stopped.id, stopped.durationSec]).to.deep.equal([timer.id, 600]);
      expect(await api.progress(project.id)).to.deep.equal(running);
      server.clock.advance(HOUR);
      expect(await api.progress(project.id)).to.deep.equal(running);

      // Edits of entries: a longer duration, a billable flip, a move to another project.
      await api.patch('entries', half.id, { end: at('11:00') });
      expect(await api.progress(project.id)).to.deep.equal({
        trackedSec: 11400,
        billableSec: 7800,
        amount: 216.67,
        estimateRatio: 0.3167,
        budgetRatio: 0.2167,
      });
      await api.patch('entries', unbilled.id, { billable: true });
      expect(await api.progress(project.id)).to.deep.equal({
        trackedSec: 11400,
        billableSec: 11400,
        amount: 316.67,
        estimateRatio: 0.3167,
        budgetRatio: 0.3167,
      });
      await api.patch('entries', hour.id, { projectId: elsewhere.id });
      expect(await api.progress(project.id)).to.deep.equal({
        trackedSec: 7800,
        billableSec: 7800,
        amount: 216.67,
        estimateRatio: 0.2167,
        budgetRatio: 0.2167,
      });
      expect(await api.progress(elsewhere.id)).to.deep.equal({
        trackedSec: 3600,
        billableSec: 3600,
        amount: 100,
        estimateRatio: null,
        budgetRatio: null,
      });

      // Deletes subtract.
      await api.remove('entries', unbilled.id);
      expect(await api.progress(project.id)).to.deep.equal({
        trackedSec: 4200,
        billableSec: 4200,
        amount: 116.67,
        estimateRatio: 0.1167,
        budgetRatio: 0.1167,
      });
      await api.remove('entries', half.id);
      await api.remove('entries', stopped.id);
      expect(await api.progress(project.id)).to.deep.equal({ ...NO_PROGRESS, estimateRatio: 0, budgetRatio: 0 });
    });

    it("counts the entries of every member, not only the caller's", async () => {
      const project = await api.create('projects', { name: 'Shared', billable: true, hourlyRate: 60 });
      const colleague = addMemberWithToken(server.services, server.workspaceId);
      await api.create('entries', { start: at('09:00'), end: at('09:30'), projectId: project.id }, colleague.token);
      await api.entry('10:00', '10:15', { projectId: project.id });
      expect(await api.progress(project.id)).to.deep.equal({
        trackedSec: 2700,
        billableSec: 2700,
        amount: 45,
        estimateRatio: null,
        budgetRatio: null,
      });
    });
  });

  describe('money withholding', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    before(async () => {
      server = await startTestServer();
      api = client(server);
    });
    after(() => server.close());

    it("a token that may see colleagues' time but not their money gets null progress, rates and budgets", async () => {
      const project = await api.create('projects', {
        name: 'Priced',
        billable: true,
        hourlyRate: 100,
        budgetAmount: 1000,
        estimateSec: 3600,
      });
      const task = await api.create('tasks', { projectId: project.id, name: 'Priced task', hourlyRate: 120 });
      await api.entry('09:00', '10:00', { projectId: project.id });
      const { token } = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true, canViewOthersMoney: false });

      const withheld = { ...(await api.get('projects', project.id)), progress: null, hourlyRate: null, budgetAmount: null };
      expect(await api.get('projects', project.id, token)).to.deep.equal(withheld);
      expect(await api.list('projects', {}, token)).to.deep.equal([withheld]);
      expect(await api.get('tasks', task.id, token)).to.deep.equal({ ...task, hourlyRate: null });
      expect(await api.list('tasks', {}, token)).to.deep.equal([{ ...task, hourlyRate: null }]);

      // The owner sees all of it.
      const owned = await api.get('projects', project.id);
      expect([owned.hourlyRate, owned.budgetAmount]).to.deep.equal([100, 1000]);
      expect(owned.progress).to.deep.equal({ trackedSec: 3600, billableSec: 3600, amount: 100, estimateRatio: 1, budgetRatio: 0.1 });
      expect((await api.list('tasks'))[0]!.hourlyRate).to.equal(120);
    });
  });

  describe('hourly rates of entries', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    before(async () => {
      server = await startTestServer();
      api = client(server);
    });
    after(() => server.close());

    it('a project rate change applies to new entries and leaves existing ones alone', async () => {
      const project = await api.create('projects', { name: 'Repriced', billable: true, hourlyRate: 100 });
      const first = await api.entry('09:00', '10:00', { projectId: project.id });
      expect(first.hourlyRate).to.equal(100);
      await api.patch('projects', project.id, { hourlyRate: 120 });
      expect((await api.entry('10:00', '11:00', { projectId: project.id })).hourlyRate).to.equal(120);
      expect(await api.get('entries', first.id)).to.deep.equal(first);
      expect((await api.progress(project.id))!.amount).to.equal(220);
    });

    it('is resolved as the first set of task, project, member and workspace rates', async () => {
      const { accounts } = server.services;
      accounts.setWorkspace(OPERATOR, server.workspaceId, { hourlyRate: 50 });
      accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId, hourlyRate: 70 });
      const rated = await api.create('projects', { name: 'Rated', hourlyRate: 100 });
      const unrated = await api.create('projects', { name: 'Unrated' });
      const ratedTask = await api.create('tasks', { projectId: rated.id, name: 'Rated task', hourlyRate: 130 });
      const unratedTask = await api.create('tasks', { projectId: rated.id, name: 'Unrated task' });
      const rateOf = async (fields: Partial<CreateOf<'entries'>>) => (await api.entry('13:00', '14:00', fields)).hourlyRate;

      expect(await rateOf({ projectId: rated.id, taskId: ratedTask.id })).to.equal(130);
      expect(await rateOf({ taskId: ratedTask.id })).to.equal(130);
      expect(await rateOf({ projectId: rated.id, taskId: unratedTask.id })).to.equal(100);
      expect(await rateOf({ projectId: rated.id })).to.equal(100);
      expect(await rateOf({ projectId: unrated.id })).to.equal(70);
      expect(await rateOf({})).to.equal(70);

      accounts.setMember(OPERATOR, { workspaceId: server.workspaceId, userId: server.ownerId, hourlyRate: null });
      expect(await rateOf({ projectId: unrated.id })).to.equal(50);
      expect(await rateOf({ projectId: rated.id })).to.equal(100);

      accounts.setWorkspace(OPERATOR, server.workspaceId, { hourlyRate: null });
      expect(await rateOf({ projectId: unrated.id })).to.equal(null);
    });
  });

  describe('validation', () => {
    let server: TestServer;
    let api: ReturnType<typeof client>;
    let rows: Record<Kind, string>;
    before(async () => {
      server = await startTestServer();
      api = client(server);
      const named = { name: 'Valid' };
      const world = seed(server, {
        clients: { valid: named },
        projects: { valid: named },
        tasks: { valid: { ...named, project: 'valid' } },
        tags: { valid: named },
      });
      rows = { clients: world.clients.valid.id, projects: world.projects.valid.id, tasks: world.tasks.valid.id, tags: world.tags.valid.id };
    });
    after(() => server.close());

    it('a name of exactly 200 characters is accepted', async () => {
      expect((await api.create('tags', { name: 'x'.repeat(200) })).name).to.have.length(200);
    });

    it('answers 400 invalid-request naming the field', async () => {
      const kinds: Kind[] = ['clients', 'projects', 'tasks', 'tags'];
      const before = await Promise.all(kinds.map((kind) => api.list(kind)));
      const cases: Array<[method: string, kind: Kind, body: Body, field: string]> = [
        ['POST', 'clients', { name: '' }, 'body.name'],
        ['POST', 'clients', { name: '   ' }, 'body.name'],
        ['POST', 'clients', { name: 'x'.repeat(201) }, 'body.name'],
        ['POST', 'clients', {}, 'body.name'],
        ['POST', 'clients', { name: 'Mailer', email: 'not-an-email' }, 'body.email'],
        ['POST', 'clients', { name: 'Lander', country: 'Germany' }, 'body.country'],
        ['POST', 'projects', { name: 'Red', color: 'red' }, 'body.color'],
        ['POST', 'projects', { name: 'Cheap', hourlyRate: -1 }, 'body.hourlyRate'],
        ['POST', 'projects', { name: 'Broke', budgetAmount: -1 }, 'body.budgetAmount'],
        ['POST', 'projects', { name: 'Odd', owner: 'me' }, 'body.owner'],
        ['POST', 'tasks', { projectId: rows.projects, name: '\t ' }, 'body.name'],
        ['POST', 'tasks', { projectId: rows.projects, name: 'Cheap', hourlyRate: -0.01 }, 'body.hourlyRate'],
        ['POST', 'tasks', { name: 'Orphan' }, 'body.projectId'],
        ['POST', 'tags', { name: 'Tagged', color: '#ffffff' }, 'body.color'],
        ['PATCH', 'clients', { name: ' ' }, 'body.name'],
        ['PATCH', 'clients', { nickname: 'Acme' }, 'body.nickname'],
        ['PATCH', 'projects', { color: '#12345' }, 'body.color'],
        ['PATCH', 'projects', { hourlyRate: -5 }, 'body.hourlyRate'],
        ['PATCH', 'tasks', { name: 'y'.repeat(201) }, 'body.name'],
        ['PATCH', 'tasks', { archived: 'yes' }, 'body.archived'],
        ['PATCH', 'tags', { name: '' }, 'body.name'],
      ];
      for (const [method, kind, json, field] of cases) {
        const path = method === 'POST' ? pathOf(kind) : pathOf(kind, rows[kind]);
        const { detail } = await api.refused(method, path, 400, 'invalid-request', { json });
        expect(detail, `${method} ${kind} ${JSON.stringify(json).slice(0, 60)}`).to.contain(field);
      }
      // Nothing was written by the refused requests.
      expect(await Promise.all(kinds.map((kind) => api.list(kind)))).to.deep.equal(before);
    });

    it('an empty PATCH body {} is 400 for every kind', async () => {
      for (const kind of ['clients', 'projects', 'tasks', 'tags'] as Kind[]) {
        const { detail } = await api.refused('PATCH', pathOf(kind, rows[kind]), 400, 'invalid-request', { json: {} });
        expect(detail).to.match(/^body/);
      }
    });

    it('a bad archived filter is 400 naming query.archived', async () => {
      const { detail } = await api.refused('GET', `${pathOf('projects')}?archived=maybe`, 400, 'invalid-request');
      expect(detail).to.contain('query.archived');
    });
  });
});
