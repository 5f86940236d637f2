import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/** A project's and a task's own VAT on the Catalog page (issue 57 item 2): owners set it; the API's project and task do not carry it. */
describe('web app: a VAT rate per project and task (issue 57 item 2)', () => {
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

  const post = (client: SettingsClient, action: string, form: Record<string, string>) => client.submit('/app/catalog', action, form);
  const list = async (path: string) => (await server.request('GET', path)).body.data;
  const taxes = () => server.services.invoices.workTaxes(OPERATOR, server.workspaceId);

  it('an owner gives a project 7 % and its task zero rating, sees them on the rows and in the forms, and gives them back', async () => {
    const page = flat((await owner.get('/app/catalog')).text);
    expect(page).to.include('<label for="new-project-taxCategory">VAT</label>');
    expect(page).to.include('<option value="" selected>The invoice&#39;s (the client&#39;s, else the workspace&#39;s)</option>');
    expect(page).to.include('<label for="new-task-taxCategory">VAT</label>');

    const made = await post(owner, '/app/catalog/project', { name: 'Buch', billable: 'true', taxCategory: 'S', taxRate: '7' });
    const [project] = await list('/api/v1/projects');
    expect(made.status, made.text).to.equal(303);
    expect(taxes().projects.get(project.id)).to.deep.equal({ category: 'S', rate: 7 });
    // The API's project does not carry it (the REST contract does not change for this issue).
    expect(Object.keys(project)).to.not.include('taxCategory');
    expect(
      (await post(owner, '/app/catalog/task', { name: 'Satz', projectId: project.id, taxCategory: 'Z', taxRate: '' })).status,
    ).to.equal(303);
    const [task] = await list('/api/v1/tasks');
    expect(taxes().tasks.get(task.id)).to.deep.equal({ category: 'Z', rate: 0 });

    const shown = flat((await owner.get('/app/catalog')).text);
    expect(shown).to.match(/No client\s*· billable\s*· 7 % VAT/);
    expect(shown).to.include('Buch · zero rated');
    expect(shown).to.include(`<option value="S" selected>Standard rate of its own</option>`);
    expect(shown).to.match(new RegExp(`id="${project.id}-taxRate" name="taxRate" type="text" value="7"`));
    expect(shown).to.include(`<option value="Z" selected>Zero rated</option>`);

    // Changed on the project (19 %), given back on the task (its project's): each a sync event of the catalog.
    expect((await post(owner, `/app/catalog/project/${project.id}`, { name: 'Buch', taxCategory: 'S', taxRate: '19' })).status).to.equal(
      303,
    );
    expect((await post(owner, `/app/catalog/task/${task.id}`, { name: 'Satz', taxCategory: '', taxRate: '' })).status).to.equal(303);
    expect(taxes().projects.get(project.id)).to.deep.equal({ category: 'S', rate: 19 });
    expect(taxes().tasks.has(task.id)).to.equal(false);
  });

  it('a refused VAT is said at its field in words for people, with what was typed kept, and nothing is written', async () => {
    const refused = await post(owner, '/app/catalog/project', { name: 'Buch', taxCategory: 'S', taxRate: '' });
    expect(refused.status).to.equal(400);
    const text = flat(refused.text);
    expect(text).to.match(/<input id="new-project-taxRate" name="taxRate" type="text" value="" [^>]*aria-invalid="true"/);
    expect(text).to.include(
      '<span class="field-error" id="new-project-taxRate-error">Give the VAT rate as a percentage such as 7 or 19 (without %).</span>',
    );
    expect(text).to.match(/<input id="new-project-name" name="name" value="Buch"/);
    expect(await list('/api/v1/projects')).to.deep.equal([]);

    const made = await post(owner, '/app/catalog/project', { name: 'Web' });
    const [project] = await list('/api/v1/projects');
    expect(made.status).to.equal(303);
    const reverse = await post(owner, `/app/catalog/project/${project.id}`, { name: 'Web renamed', taxCategory: 'AE', taxRate: '' });
    expect(reverse.status).to.equal(400);
    expect(flat(reverse.text)).to.include('Reverse charge, exports and exemptions are set on the client or the workspace.');
    expect((await list('/api/v1/projects'))[0].name).to.equal('Web');
    expect(taxes().projects.size).to.equal(0);
  });

  it('a member who is no owner gets no VAT fields, and a post carrying them anyway is not read', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${Date.now()}@example.org` });
    server.services.accounts.addMember(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    expect(flat((await member.get('/app/catalog')).text)).to.not.include('taxCategory');
    const made = await post(member, '/app/catalog/project', { name: 'Buch', taxCategory: 'S', taxRate: '7' });
    expect(made.status).to.equal(303);
    expect(taxes().projects.size).to.equal(0);
  });

  it('speaks German to a German owner: the VAT fieldset’s legend, choices, rate and hint', async () => {
    server.services.accounts.setPreferences(OPERATOR, server.ownerId, { language: 'de' });
    const page = flat((await owner.get('/app/catalog')).text);
    expect(page).to.include(
      '<legend>USt. auf seinen Rechnungen <span class="hint">z. B. 7 % für den Text eines Buchs, 19 % für Beratung</span></legend>',
    );
    expect(page).to.include('<label for="new-project-taxCategory">USt.</label>');
    expect(page).to.include('<option value="" selected>Die der Rechnung (des Kunden, sonst des Arbeitsbereichs)</option>');
    expect(page).to.include('<option value="" selected>Die des Projekts</option>');
    expect(page).to.include('<option value="S" >Eigener Steuersatz</option>');
    expect(page).to.include('<option value="Z" >Nullsatz (0 %)</option>');
    expect(page).to.include('Satz (%)');
    expect(page).to.include('Ein Kunde mit Reverse Charge, innergemeinschaftlicher Lieferung, Ausfuhr');
    for (const english of [
      'VAT on its invoices',
      'Standard rate of its own',
      'Zero rated',
      'For its own standard rate.',
      'keep their own',
    ]) {
      expect(page).to.not.include(english);
    }
  });
});
