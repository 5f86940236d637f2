import { expect } from 'chai';
import { addMemberWithToken, expectProblem, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 44, M2 and L5: a client's invoicing party and VAT treatment decide whom the owner's next
 * invoice is addressed to and how it is taxed. Only an owner, or a member who may see colleagues'
 * money, sets them (403 `forbidden` naming each field, nothing changed); and their text holds no
 * control or bidirectional character (400, as names are refused).
 */
describe('clients: who sets the invoicing party and VAT treatment, and with what text (M2, L5)', () => {
  let server: TestServer;
  let clientId: string;
  const stored = () =>
    server.running.database.sqlite
      .prepare(
        'select email, tax_category as taxCategory, legal_name as legalName, name, updated_at as updatedAt from clients where id = ?',
      )
      .get(clientId);

  before(async () => {
    server = await startTestServer();
    const created = await server.request('POST', '/api/v1/clients', {
      json: { name: 'Acme GmbH', email: 'billing@acme.example', legalName: 'Acme GmbH' },
    });
    expect(created.status).to.equal(200);
    clientId = created.body.data.id;
  });
  after(() => server.close());

  it('refuses party and tax fields from a member who may not see money, naming each field, and changes nothing', async () => {
    const { token } = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true });
    const before = stored();
    const res = await server.request('PATCH', `/api/v1/clients/${clientId}`, {
      token,
      json: { email: 'member@evil.example', taxCategory: 'O', name: 'Acme renamed' },
    });
    expectProblem(res, 403, 'forbidden', server.config.problemsBase, `/api/v1/clients/${clientId}`);
    expect(res.body.detail).to.equal(
      "email, taxCategory: a client's invoicing details (who its invoices are addressed to, and their VAT) are changed by owners and by members who see colleagues' money only; nothing was changed. Leave them out, or ask an owner.",
    );
    expect(stored()).to.deep.equal(before);
    // Clearing one is a change too; a new client with one is refused alike.
    const cleared = await server.request('PATCH', `/api/v1/clients/${clientId}`, { token, json: { legalName: null } });
    expectProblem(cleared, 403, 'forbidden', server.config.problemsBase);
    expect(cleared.body.detail).to.match(/^legalName: a client's invoicing details/);
    const made = await server.request('POST', '/api/v1/clients', { token, json: { name: 'Beta', addressLines: ['Street 1'] } });
    expectProblem(made, 403, 'forbidden', server.config.problemsBase);
    expect((await server.request('GET', '/api/v1/clients', { token })).body.data.map((c: { name: string }) => c.name)).to.deep.equal([
      'Acme GmbH',
    ]);
    // The name and the archive flag stay the catalog's.
    const renamed = await server.request('PATCH', `/api/v1/clients/${clientId}`, { token, json: { name: 'Acme Group' } });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.data).to.include({ name: 'Acme Group', email: 'billing@acme.example', taxCategory: null });
  });

  it('lets a member who sees colleagues’ money, and an owner, set them', async () => {
    const { token } = addMemberWithToken(server.services, server.workspaceId, { canViewOthersTime: true, canViewOthersMoney: true });
    const res = await server.request('PATCH', `/api/v1/clients/${clientId}`, { token, json: { email: 'ap@acme.example' } });
    expect(res.status).to.equal(200);
    expect(res.body.data.email).to.equal('ap@acme.example');
    const owner = await server.request('PATCH', `/api/v1/clients/${clientId}`, {
      json: { taxCategory: 'S', email: 'billing@acme.example' },
    });
    expect(owner.status).to.equal(200);
    expect(owner.body.data).to.include({ taxCategory: 'S', email: 'billing@acme.example' });
  });

  it('refuses control and bidirectional characters in party fields as names are refused (L5), changing nothing', async () => {
    const before = stored();
    for (const [json, field, found] of [
      [{ legalName: 'Acme\u202Efdp.exe' }, 'legalName', 'U+202E'],
      [{ addressLines: ['Main Street 1', 'Floor\u00072'] }, 'addressLines', 'U+0007'],
      [{ city: 'Ber\u2066lin' }, 'city', 'U+2066'],
      [{ exemptionReason: 'Steuerfrei\r\nBcc: x@y' }, 'exemptionReason', 'U+000D'],
    ] as const) {
      const res = await server.request('PATCH', `/api/v1/clients/${clientId}`, { json });
      expectProblem(res, 400, 'invalid-request', server.config.problemsBase);
      expect(res.body.detail, field).to.include(`must not hold control characters or bidirectional controls (found ${found})`);
    }
    const made = await server.request('POST', '/api/v1/clients', { json: { name: 'Gamma', legalName: 'Gamma\u200F AG' } });
    expectProblem(made, 400, 'invalid-request', server.config.problemsBase);
    expect(stored()).to.deep.equal(before);
  });
});
