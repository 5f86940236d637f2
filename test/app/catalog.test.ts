import { expect } from 'chai';
import { OPERATOR } from '../../src/principal.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, SettingsClient } from '../settings/client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** The catalog in the web app: the API's rules and words (unique names, in-use refusals, money withheld). */
describe('web app: the catalog', () => {
  let server: TestServer;
  let owner: SettingsClient;
  beforeEach(async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  afterEach(() => server.close());

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
    expect([made.status, made.headers.get('location')]).to.deep.equal([303, '/app/catalog']);
    const [project] = await list('/api/v1/projects');
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
    expect((await post(`/app/catalog/tag/${tag.id}/delete`, {})).headers.get('location')).to.equal('/app/catalog?done=deleted');
    expect((await server.request('GET', `/api/v1/tags/${tag.id}`)).status).to.equal(404);
    const inUse = await post(`/app/catalog/client/${client.id}/delete`, {});
    const api = await server.request('DELETE', `/api/v1/clients/${client.id}`);
    expect(inUse.status).to.equal(api.status);
    expect(flat(inUse.text)).to.include(api.body.detail);
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
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: bea.id });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    const seen = flat((await member.get('/app/catalog')).text);
    expect(seen).to.include('Brand refresh');
    expect(seen).not.to.include('rate 80');
    expect(seen).not.to.match(/name="hourlyRate" value="80"/);
    expect(flat((await owner.get('/app/catalog')).text)).to.include('rate 80');
  });
});
