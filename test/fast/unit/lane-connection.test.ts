import { expect } from 'chai';
import { laneConnection } from '../../../src/modules/webhooks/post.js';

/**
 * A webhook lane's kept connection (issue 60): reused only for the same target and the same
 * checked address; an address that changed between two attempts gets a new agent (post.ts closes the old).
 */
describe('webhooks: a lane’s kept connection', () => {
  const url = new URL('https://hooks.test:8443/hook');
  const at = (address: string) => ({ address, family: 4 as const });

  it('one agent for the same target and address, a new one for another address or target', () => {
    const connection = laneConnection();
    const first = connection.agentFor(url, at('203.0.113.7'));
    expect(connection.agentFor(url, at('203.0.113.7')).https).to.equal(first.https);
    const moved = connection.agentFor(url, at('203.0.113.8'));
    expect(moved.https).not.to.equal(first.https);
    expect(connection.agentFor(new URL('https://other.test:8443/hook'), at('203.0.113.8')).https).not.to.equal(moved.https);
    expect(first.https.options.keepAlive).to.equal(true);
    expect(first.https.maxSockets).to.equal(1);
    connection.close();
  });
});
