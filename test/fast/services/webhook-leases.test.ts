import { expect } from 'chai';
import { createWrite, type Write, type WriteOptions } from '../../../src/db/write.js';
import { createDeliveryQueue } from '../../../src/modules/webhooks/queue.js';
import { createWebhooksRepository } from '../../../src/modules/webhooks/repository.js';
import { OPERATOR } from '../../../src/principal.js';
import { memoryServices, type ServiceWorld } from '../../helpers/services.js';

/**
 * The sender's writes (issue 60): a lease commits unsynced (a crash loses only leases the next
 * start releases anyway), the outcomes and the released leases commit synced as before.
 */
describe('webhooks: which of the sender’s commits wait for the disk', () => {
  let world: ServiceWorld;
  beforeEach(() => {
    world = memoryServices();
  });
  afterEach(() => world.database.close());

  it('claiming a lane leases unsynced; recording its outcomes is a synced write', async () => {
    await world.services.webhooks.create(OPERATOR, {
      workspaceId: world.workspaceId,
      userId: world.ownerId,
      url: 'https://93.184.216.34/hook',
      events: ['entry.created'],
    });
    world.services.entries.create(world.owner, { start: '2026-11-02T09:00:00Z', end: '2026-11-02T10:00:00Z', description: 'Work' });
    const real = createWrite<never>(world.database.db, null);
    const asked: Array<WriteOptions | undefined> = [];
    const write: Write<never> = (body, options) => {
      asked.push(options);
      return real(body, options);
    };
    const queue = createDeliveryQueue({
      statements: createWebhooksRepository(world.database.db).queue,
      write,
      clock: world.clock,
      ownerOf: () => undefined,
      onDisabled: () => undefined,
    });
    const lane = queue.claimLane(new Set());
    expect(lane?.ids).to.have.length(1);
    queue.record([], lane?.ids ?? []);
    expect(asked).to.deep.equal([{ unsynced: true }, undefined]);
  });
});
