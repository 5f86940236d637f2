import { expect } from 'chai';
import { example } from '../examples/client.js';
import { typedClient } from './helpers/client.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** The typed client of docs/client.md, run as a user runs it, against the real server. */
describe('the typed client (examples/client.ts)', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ now: Date.UTC(2026, 10, 5, 12) });
  });
  afterEach(() => server.close());

  it('lists a week page by page, starts and stops a timer, and branches on a problem type', async () => {
    const api = typedClient(server);
    for (const day of ['02', '03', '04']) {
      const { data, error } = await api.POST('/api/v1/entries', {
        body: { start: `2026-11-${day}T08:00:00Z`, end: `2026-11-${day}T09:30:00Z`, description: `day ${day}` },
      });
      expect(error).to.equal(undefined);
      expect(data?.data.durationSec).to.equal(5400);
    }
    const lines: string[] = [];
    await example(server.url, server.ownerToken, (line) => {
      lines.push(line);
      // The server's clock is the test's: a minute passes between the start and the stop.
      if (line.startsWith('started')) server.clock.advance(60_000);
    });
    expect(lines[0]).to.equal('the week: 3 entries, 4.50 h');
    expect(lines[1]).to.match(/^started ent_[0-9a-z]+ at 2026-11-05T12:00:00\.000Z$/);
    expect(lines.slice(2)).to.deep.equal(['stopped after 60 s', '404 not-found: Entry ent_does_not_exist was not found.']);
  });

  it('a problem document arrives typed: status, slug and detail', async () => {
    const { data, error, response } = await typedClient(server, 'tt_AbCdEfGh_wrong').GET('/api/v1/me');
    expect(data).to.equal(undefined);
    expect(response.status).to.equal(401);
    expect(error?.type).to.equal(`${server.config.problemsBase}/invalid-token`);
  });
});
