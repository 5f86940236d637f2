import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { freelancer } from '../../helpers/invoices.js';
import { type FreshWorkspace, freshWorkspace, startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

const flat = (text: string) => text.replace(/\s+/g, ' ');

/**
 * A draft's manual lines on its page over real HTTP (issue 57 item 1): an owner adds a line that
 * is not time (a book at 7 % beside time at 19 %) and removes it; a refusal shows at its field in
 * words for people with what was typed kept; a member who reads invoices gets no form.
 */
describe('web app: manual lines on a draft’s page (issue 57 item 1)', function () {
  this.timeout(60_000);
  // One server for the file; each test has a fresh workspace and signed-in owner in it.
  let shared: TestServer;
  let server: FreshWorkspace;
  let owner: SettingsClient;
  let id: string;
  before(async () => {
    shared = await startTestServer();
  });
  after(() => shared.close());
  beforeEach(async () => {
    server = freshWorkspace(shared);
    const made = freelancer(server);
    id = server.services.invoices.create(made.owner, {
      workspaceId: server.workspaceId,
      clientId: made.clientId,
      from: '2026-10-01',
      to: '2026-10-31',
    }).id;
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  });
  const invoice = () => server.services.invoices.get(OPERATOR, id);

  it('an owner adds a book at 7 % beside the time at 19 %: shown in its unit at its exact price, in the breakdown; then removes it', async () => {
    const page = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(page).to.include(`<form class="stack wide" method="post" action="/app/invoices/${id}/lines" aria-label="Add a line">`);
    expect(page).to.include('<option value="C62" selected>piece (C62)</option>');
    const added = await owner.submit(`/app/invoices/${id}`, `/app/invoices/${id}/lines`, {
      description: 'Fachbuch „Datenschutz“',
      quantity: '3',
      unit: 'C62',
      unitPrice: '33,335',
      taxCategory: 'S',
      taxRate: '7',
    });
    expect(added.status, added.text).to.equal(303);
    expect(invoice().lines.map((l) => [l.amount, l.taxRate, l.manual ?? null])).to.deep.equal([
      [950, 19, null],
      [100.01, 7, { quantity: 3, unit: 'C62', unitPrice: 33.335 }],
    ]);
    const shown = flat((await owner.get(`/app/invoices/${id}`)).text);
    expect(shown).to.include('Added line 2: Fachbuch „Datenschutz“.');
    expect(shown).to.match(/<td data-label="Quantity" class="num">3 pcs<\/td> <td data-label="Rate" class="num"> €33\.335 <\/td>/);
    expect(shown).to.match(
      /<td data-label="Category">S<\/td> <td data-label="Rate" class="num">7 %<\/td> <td data-label="Basis" class="num">€100\.01<\/td> <td data-label="VAT" class="num">€7\.00<\/td>/,
    );
    // Only the manual line has a Remove button.
    expect(shown.match(/action="\/app\/invoices\/[^"]+\/lines\/remove"/g)).to.have.length(1);
    expect(shown).to.include('<input type="hidden" name="line" value="2" />');

    const removed = await owner.submit(`/app/invoices/${id}`, `/app/invoices/${id}/lines/remove`, { line: '2' });
    expect(removed.status, removed.text).to.equal(303);
    expect(invoice().lines).to.have.length(1);
    expect(invoice().grossTotal).to.equal(1130.5);
  });

  it('a refused line is said at its field in words for people, what was typed kept, nothing written; an issued invoice has no form', async () => {
    const refused = await owner.submit(`/app/invoices/${id}`, `/app/invoices/${id}/lines`, {
      description: 'Lizenz',
      quantity: '1',
      unit: 'LS',
      unitPrice: '4,80 €',
      taxCategory: '',
      taxRate: '',
    });
    expect(refused.status).to.equal(400);
    const text = flat(refused.text);
    expect(text).to.match(
      /<input id="line-price" name="unitPrice" value="4,80 €" [^>]*aria-invalid="true" aria-describedby="line-price-error"/,
    );
    expect(text).to.include(
      '<span class="field-error" id="line-price-error">Give the net price per unit as a number, such as 250 or 0.30.</span>',
    );
    expect(text).to.match(/<input id="line-description" name="description" value="Lizenz"/);
    expect(text).to.include('<option value="LS" selected>lump sum (LS)</option>');
    expect(invoice().lines).to.have.length(1);

    server.services.invoices.issue(OPERATOR, id, { userId: server.ownerId });
    expect(flat((await owner.get(`/app/invoices/${id}`)).text)).to.not.include('Add a line');
    const late = await owner.submit(`/app/invoices/${id}`, `/app/invoices/${id}/lines`, {
      description: 'Lizenz',
      quantity: '1',
      unitPrice: '5',
    });
    expect(late.status).to.equal(409);
    expect(flat(late.text)).to.include(
      'Only a draft takes or loses lines: an issued invoice stays as it was issued (void it and make a new one).',
    );
  });

  it('a member who reads invoices but is no owner sees the lines without a form, and a post is refused', async () => {
    const bea = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: `bea.${Date.now()}@example.org` });
    server.services.accounts.addMember(OPERATOR, {
      workspaceId: server.workspaceId,
      userId: bea.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
    });
    const member = new SettingsClient(server);
    await member.setUp(bea.id, PASSWORD);
    const page = flat((await member.get(`/app/invoices/${id}`)).text);
    expect(page).to.include('Relaunch');
    expect(page).to.not.include('Add a line');
    const refused = await member.submit(`/app/invoices/${id}`, `/app/invoices/${id}/lines`, {
      description: 'X',
      quantity: '1',
      unitPrice: '1',
    });
    expect(refused.status).to.equal(403);
    expect(invoice().lines).to.have.length(1);
  });
});
