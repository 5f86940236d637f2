import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * Issue 44 (informational): the open-mail list was hand-written and missed common services
 * (outlook.de, yahoo.de, t-online.de, qq.com …); it is now the `email-providers` package's. A
 * workspace cannot list such a domain, and one listed before the list grew lets nobody in.
 */
describe('accounts: open mail domains let nobody join a workspace', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.close());

  it('an owner cannot list t-online.de; a workspace that listed it before admits nobody by it, while its own domain still admits', () => {
    const { accounts } = world.services;
    expect(() => accounts.setWorkspace(OPERATOR, world.workspaceId, { joinDomains: ['acme.de', 't-online.de'] })).to.throw(
      "join domains: anyone can have an address at t-online.de; list your organisation's own domain.",
    );
    accounts.setWorkspace(OPERATOR, world.workspaceId, { joinDomains: ['acme.de'] });
    // As an older version let it be saved.
    world.services.write(() =>
      world.database.sqlite
        .prepare('insert into workspace_join_domains (domain, workspace_id) values (?, ?)')
        .run('t-online.de', world.workspaceId),
    );
    expect(accounts.joinByDomain({ name: 'Anyone', email: 'anyone@t-online.de' })).to.equal(null);
    const joined = accounts.joinByDomain({ name: 'Ada', email: 'ada@acme.de' });
    expect(joined).to.be.a('string');
    expect(accounts.membership(world.workspaceId, joined as string)).to.include({ isOwner: false, canViewOthersMoney: false });
  });
});
