import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { type Actor, OPERATOR, type Principal } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

const outcome = async (fn: () => unknown): Promise<string> => {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

/**
 * Who may act, decided by the services for every principal: the operator (the command line),
 * an owner (their workspace only) and a member (their own things only). The pages and the
 * command line only pass the principal on.
 */
describe('services: who may act', () => {
  let world: ServiceWorld;
  let owner: Actor;
  let member: Actor;
  let otherOwner: Actor;
  beforeEach(() => {
    world = memoryServices();
    owner = world.owner;
    member = world.member({ name: 'Bea' });
    // An owner of another workspace.
    const { accounts, tokens } = world.services;
    const other = accounts.createWorkspace(OPERATOR, { name: 'Other' });
    const boss = accounts.createUser(OPERATOR, { name: 'Boss', email: 'boss@example.org' });
    accounts.addMember(OPERATOR, { workspaceId: other.id, userId: boss.id, isOwner: true });
    const token = tokens.create(OPERATOR, { workspaceId: other.id, userId: boss.id, name: 't', scopes: [] }).token;
    otherOwner = tokens.authenticate(token)?.actor as Actor;
  });
  afterEach(() => world.close());

  it('accounts: workspaces and members are the operator’s and their owners’', async () => {
    const { accounts } = world.services;
    const ws = world.workspaceId;
    const each = (fn: (p: Principal) => unknown) => Promise.all([OPERATOR, owner, member, otherOwner].map((p) => outcome(() => fn(p))));
    expect(await each((p) => accounts.createWorkspace(p, { name: 'New' }))).to.deep.equal(['ok', 'forbidden', 'forbidden', 'forbidden']);
    expect(await each((p) => accounts.setWorkspace(p, ws, { name: 'Renamed' }))).to.deep.equal(['ok', 'ok', 'forbidden', 'forbidden']);
    expect(await each((p) => accounts.listMembers(p, ws))).to.deep.equal(['ok', 'ok', 'forbidden', 'forbidden']);
    expect(await each((p) => accounts.setMember(p, { workspaceId: ws, userId: member.userId, hourlyRate: 10 }))).to.deep.equal([
      'ok',
      'ok',
      'forbidden',
      'forbidden',
    ]);
    expect(await each((p) => accounts.getWorkspace(p, ws))).to.deep.equal(['ok', 'ok', 'ok', 'not_found']);
    expect(await each((p) => accounts.listUsers(p))).to.deep.equal(['ok', 'forbidden', 'forbidden', 'forbidden']);
    // An account is its own to rename.
    expect(await outcome(() => accounts.setUser(member, member.userId, { name: 'Bea B.' }))).to.equal('ok');
    expect(await outcome(() => accounts.setUser(member, owner.userId, { name: 'Owned' }))).to.equal('not_found');
    expect(await outcome(() => accounts.removeMember(member, { workspaceId: ws, userId: owner.userId }))).to.equal('forbidden');
    expect(await outcome(() => accounts.removeMember(otherOwner, { workspaceId: ws, userId: member.userId }))).to.equal('forbidden');
    expect(await outcome(() => accounts.deleteUser(owner, member.userId))).to.equal('forbidden');
  });

  it('tokens: a member sees and revokes only their own', async () => {
    const { tokens } = world.services;
    expect(tokens.list(member).map((t) => t.userId)).to.deep.equal([member.userId]);
    expect(tokens.list(OPERATOR, world.workspaceId)).to.have.length(2);
    const ownersToken = tokens.list(owner)[0]?.id as string;
    expect(await outcome(() => tokens.revoke(member, ownersToken))).to.equal('not_found');
    expect(await outcome(() => tokens.revoke(otherOwner, ownersToken))).to.equal('not_found');
    expect(tokens.list(owner)[0]?.revokedAt).to.equal(null);
    // A member's token is theirs, whatever workspace or user they name.
    const minted = tokens.create(member, { workspaceId: 'ws_else', userId: owner.userId, name: 'mine', scopes: [] });
    expect(tokens.list(member).map((t) => t.id)).to.include(minted.id);
  });

  it('webhooks: a member manages only their own subscriptions', async () => {
    const { webhooks } = world.services;
    const target = (principal: Principal, userId?: string) =>
      webhooks.create(principal, { workspaceId: world.workspaceId, userId, url: 'https://93.184.216.34/hook', events: ['entry.created'] });
    const ownersHook = await target(OPERATOR, owner.userId);
    expect(webhooks.list(member)).to.deep.equal([]);
    for (const act of [
      () => webhooks.get(member, ownersHook.id),
      () => webhooks.enable(member, ownersHook.id),
      () => webhooks.delete(member, ownersHook.id),
      () => webhooks.deliveryPage(member, ownersHook.id, { limit: 10 }),
    ])
      expect(await outcome(act)).to.equal('not_found');
    expect(webhooks.list(owner).map((w) => w.id)).to.deep.equal([ownersHook.id]);
    expect(webhooks.list(OPERATOR, world.workspaceId)).to.have.length(1);
  });

  it('sync events: a member reads only their own workspace’s; setup links only by owners of it', async () => {
    const { events, sessions } = world.services;
    world.services.catalog.tags.create(owner, { name: 'one' });
    expect(events.tail(otherOwner, world.workspaceId)).to.deep.equal([]);
    expect(events.tail(OPERATOR, world.workspaceId)).to.have.length(1);
    const invite = (p: Principal) => outcome(() => sessions.invite(p, { workspaceId: world.workspaceId, userId: member.userId }));
    expect([await invite(member), await invite(otherOwner), await invite(owner), await invite(OPERATOR)]).to.deep.equal([
      'forbidden',
      'forbidden',
      'ok',
      'ok',
    ]);
  });
});
