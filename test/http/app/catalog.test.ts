import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { expectProblem, type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** The catalog in the web app: the API's rules and words (unique names, in-use refusals, money withheld). */
describe('web app: the catalog', () => {
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });

  const post = (action: string, form: Record<string, string>) => owner.submit('/app/catalog', action, form);
  const list = async (path: string) => (await server.request('GET', path)).body.data;

  it('adds, changes, archives and deletes clients, projects, tasks and tags as the API does', async () => {
    expect((await post('/app/catalog/client', { name: 'Hafenamt' })).status).to.equal(303);
    const [client] = await list('/api/v1/clients');
    expect(client).to.include({ name: 'Hafenamt', archived: false });
    const made = await post('/app/catalog/project', {
      name: 'Harbour website',
      clientId: client.id,
      color: '#1a7f37',
      billable: 'true',
      hourlyRate: '92,50',
      budgetAmount: '10000',
      estimateHours: '120',
    });
    const [project] = await list('/api/v1/projects');
    // Back at the new project's row (without the script the browser scrolls there, not to the top), with a confirmation.
    expect([made.status, made.headers.get('location')]).to.deep.equal([303, `/app/catalog#project-${project.id}`]);
    expect(flat((await owner.get('/app/catalog')).text)).to.include(
      '<div class="notice ok toast" role="status">Added the project “Harbour website”.</div>',
    );
    expect(project).to.include({
      name: 'Harbour website',
      clientId: client.id,
      color: '#1a7f37',
      billable: true,
      hourlyRate: 92.5,
      budgetAmount: 10000,
      estimateSec: 432000,
    });
    expect((await post('/app/catalog/task', { name: 'Map component', projectId: project.id, estimateHours: '8' })).status).to.equal(303);
    expect((await post('/app/catalog/tag', { name: 'meeting' })).status).to.equal(303);
    const [tag] = await list('/api/v1/tags');
    // Renamed, archived.
    expect((await post(`/app/catalog/tag/${tag.id}`, { name: 'meetings' })).status).to.equal(303);
    expect(
      (
        await post(`/app/catalog/project/${project.id}`, {
          name: 'Harbour website',
          clientId: client.id,
          color: '#1a7f37',
          billable: 'true',
          hourlyRate: '92.5',
          archived: 'true',
        })
      ).status,
    ).to.equal(303);
    expect((await list(`/api/v1/tags/${tag.id}`)).name).to.equal('meetings');
    expect((await list(`/api/v1/projects/${project.id}`)).archived).to.equal(true);
    const page = flat((await owner.get('/app/catalog')).text);
    expect(page).to.match(/Projects <span class="hint" ?>0 active, 1 archived<\/span ?>/);
    // The project's colour is drawn (an SVG fill: the CSP allows no style attribute).
    expect(page).to.include('<rect width="10" height="10" rx="2" fill="#1a7f37"');
    // Deleted: a tag nobody uses goes; a client its project still names is refused with the API's words.
    expect((await post(`/app/catalog/tag/${tag.id}/delete`, {})).headers.get('location')).to.equal('/app/catalog#tag-heading');
    expect(flat((await owner.get('/app/catalog')).text)).to.include('Deleted the tag “meetings”.');
    expect((await server.request('GET', `/api/v1/tags/${tag.id}`)).status).to.equal(404);
    const inUse = await post(`/app/catalog/client/${client.id}/delete`, {});
    const api = await server.request('DELETE', `/api/v1/clients/${client.id}`);
    // The API's words name the client's id; the page's the person's (issue 46).
    expect(inUse.status).to.equal(api.status);
    expect(api.body.detail).to.equal(`Client ${client.id} still has projects; archive it instead.`);
    expect(flat(inUse.text)).to.include('This client still has projects, so it cannot be deleted: archive it instead');
  });

  it('refuses a taken name and a bad rate at their fields, keeping what was typed; rates stay hidden without money visibility', async () => {
    await post('/app/catalog/project', { name: 'Brand refresh', color: '#0b57d0', hourlyRate: '80' });
    const taken = await post('/app/catalog/project', { name: 'brand refresh', color: '#0b57d0', hourlyRate: '' });
    expect(taken.status).to.equal(409);
    expect(flat(taken.text)).to.match(
      /id="new-project-name" name="name" value="brand refresh"[^>]*aria-invalid="true" aria-describedby="new-project-name-error"/,
    );
    const badRate = await post('/app/catalog/project', { name: 'Other', color: '#0b57d0', hourlyRate: 'lots' });
    expect(badRate.status).to.equal(400);
    expect(flat(badRate.text)).to.match(/<span class="field-error" id="new-project-rate-error">hourlyRate: [^<]+<\/span>/);
    expect(await list('/api/v1/projects')).to.have.length(1);
    // A member without money visibility sees the project, not its rate.
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    const seen = flat((await member.get('/app/catalog')).text);
    expect(seen).to.include('Brand refresh');
    expect(seen).not.to.include('rate 80');
    expect(seen).not.to.match(/name="hourlyRate" value="80"/);
    expect(flat((await owner.get('/app/catalog')).text)).to.include('rate 80');
  });

  it('M5: a member without money visibility saves a project and a task without erasing their rate and budget; the API refuses them a money change', async () => {
    await post('/app/catalog/project', { name: 'Audit', color: '#0b57d0', hourlyRate: '120', budgetAmount: '5000', billable: 'true' });
    const [project] = await list('/api/v1/projects');
    await post('/app/catalog/task', { name: 'Fieldwork', projectId: project.id, hourlyRate: '150' });
    const [task] = await list('/api/v1/tasks');
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${server.workspaceId}@example.org` });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id, canViewOthersTime: true });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    // Her forms carry no money fields at all.
    const page = await member.get('/app/catalog');
    expect(page.text).not.to.match(/name="hourlyRate"|name="budgetAmount"/);
    // She renames the project and the task and saves: the rates and the budget stay.
    const csrf = SettingsClient.csrf(page.text);
    const renamed = await member.post(`/app/catalog/project/${project.id}`, {
      _csrf: csrf,
      name: 'Audit 2026',
      color: '#0b57d0',
      billable: 'true',
    });
    expect(renamed.status).to.equal(303);
    const renamedTask = await member.post(`/app/catalog/task/${task.id}`, { _csrf: csrf, name: 'Field work' });
    expect(renamedTask.status).to.equal(303);
    const stored = (await server.request('GET', `/api/v1/projects/${project.id}`)).body.data;
    expect(stored).to.include({ name: 'Audit 2026', hourlyRate: 120, budgetAmount: 5000 });
    expect((await server.request('GET', `/api/v1/tasks/${task.id}`)).body.data).to.include({ name: 'Field work', hourlyRate: 150 });
    // A form posted with the money fields anyway (not the page's): the page does not read them; nothing of the money changes.
    const forged = await member.post(`/app/catalog/project/${project.id}`, {
      _csrf: csrf,
      name: 'Audit 2026',
      color: '#0b57d0',
      hourlyRate: '',
    });
    expect(forged.status).to.equal(303);
    expect((await server.request('GET', `/api/v1/projects/${project.id}`)).body.data).to.include({ hourlyRate: 120, budgetAmount: 5000 });
    // The API: a token without money visibility may not set, change or clear a rate or a budget (403 forbidden, the field named).
    const token = server.services.tokens.create(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      name: 'b',
      scopes: ['catalog:read', 'catalog:write'],
    }).token;
    for (const [method, path, json] of [
      ['PATCH', `/api/v1/projects/${project.id}`, { hourlyRate: null }],
      ['PATCH', `/api/v1/projects/${project.id}`, { budgetAmount: 1 }],
      ['POST', '/api/v1/projects', { name: 'Rated', hourlyRate: 5000 }],
      ['PATCH', `/api/v1/tasks/${task.id}`, { hourlyRate: 5000 }],
      ['POST', '/api/v1/tasks', { name: 'Rated', projectId: project.id, hourlyRate: 5000 }],
    ] as const) {
      const refused = await server.request(method, path, { token, json });
      expectProblem(refused, 403, 'forbidden', server.config.problemsBase);
      expect(refused.body.detail).to.match(
        /^(hourlyRate|budgetAmount): setting a rate or a budget needs the visibility of colleagues' money/,
      );
    }
    // Without money fields the same token may edit.
    expect((await server.request('PATCH', `/api/v1/projects/${project.id}`, { token, json: { name: 'Audit FY26' } })).status).to.equal(200);
    expect((await server.request('GET', `/api/v1/projects/${project.id}`)).body.data).to.include({ hourlyRate: 120, budgetAmount: 5000 });
  });
});
