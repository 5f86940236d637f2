import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { systemClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { type Actor, OPERATOR } from '../../../src/principal.js';
import { createServices } from '../../../src/services.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/** The Workspace page's export (issue 37 item 4): owners download the timetrack file, streamed from its thread. */
describe('settings page: the workspace export', function () {
  this.timeout(60_000);
  let server: TestServer;
  let owner: SettingsClient;
  let dir: string;
  before(async () => {
    server = await startTestServer();
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
    dir = mkdtempSync(join(tmpdir(), 'timetrack-page-export-'));
    const { services, workspaceId } = server;
    const actor = services.tokens.authenticate(server.ownerToken)?.actor as Actor;
    const project = services.catalog.projects.create(actor, { name: 'Site, "new"', billable: true, hourlyRate: 95.5 });
    services.catalog.tags.create(actor, { name: 'unused' });
    // Enough entries for several pages of the export (1,000 a page).
    services.write(() => {
      for (let i = 0; i < 2500; i++) {
        const start = Date.UTC(2026, 0, 1) + i * 3_600_000;
        services.entries.create(actor, {
          start: new Date(start).toISOString(),
          end: new Date(start + 1_800_000).toISOString(),
          description: `=entry ${i}`,
          projectId: project.id,
        });
      }
    });
    void workspaceId;
    await new Promise((resolve) => setImmediate(resolve));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('downloads the same file as timetrack export, as an attachment, streamed', async () => {
    const page = await owner.get('/settings/workspace');
    expect(page.text).to.include('action="/settings/workspace/export.csv"');
    expect(page.text).to.include('Download the export');
    // The text lists what the file holds (issue 56 item 6), not only the catalog and the entries.
    const hint = page.text.replace(/\s+/g, ' ');
    for (const part of [
      'its name and settings',
      'its members with their roles, what they see and their rates',
      'the invoice issuer and the invoicing settings',
      'every client with its invoicing details, every project, task and tag',
      'every invoice and credit note with its numbers and sends',
      'every completed entry with its member, rate, zone and invoice',
    ])
      expect(hint).to.include(part);
    const response = await fetch(`${server.url}/settings/workspace/export.csv`, {
      headers: { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).to.match(/^attachment; filename="timetrack-ws_[0-9a-z]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers.get('transfer-encoding')).to.equal('chunked');
    const body = Buffer.from(await response.arrayBuffer());
    const file = join(dir, 'cli.csv');
    let stderr = '';
    const code = await runCli(['export', '--workspace', server.workspaceId, '--out', file], {
      openDatabase: () => openDatabase(server.config.databasePath),
      createServices: (database) => createServices(database, { clock: systemClock, secretKey: randomBytes(32) }),
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
    });
    expect(code, stderr).to.equal(0);
    expect(body.equals(readFileSync(file))).to.equal(true);
    const lines = body.toString('utf8').split('\r\n');
    expect(lines[0]?.startsWith('\uFEFFrecord,id,email,member,start,end')).to.equal(true);
    expect(lines.filter((l) => l.startsWith('entry,'))).to.have.length(2500);
    expect(lines).to.include('tag,,,,,,,,,,,unused,,,,,,,,');
    expect(lines.find((l) => l.startsWith('entry,'))).to.include(",'=entry 0,");
  });

  it('a range limits the entries; a backwards one is refused on the page; a member gets no export', async () => {
    const cookie = { cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    const january = await fetch(`${server.url}/settings/workspace/export.csv?from=2026-01-01&to=2026-01-31`, { headers: cookie });
    const text = await january.text();
    expect(text.split('\r\n').filter((l) => l.startsWith('entry,'))).to.have.length(31 * 24);
    // A download given up midway ends its thread: the next export is not held up by it.
    const controller = new AbortController();
    const given = await fetch(`${server.url}/settings/workspace/export.csv`, { headers: cookie, signal: controller.signal });
    await given.body?.getReader().read();
    controller.abort();
    let next = 429;
    for (let i = 0; i < 50 && next === 429; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const again = await fetch(`${server.url}/settings/workspace/export.csv?from=2026-01-01&to=2026-01-01`, { headers: cookie });
      next = again.status;
      await again.arrayBuffer();
    }
    expect(next).to.equal(200);
    const backwards = await owner.get('/settings/workspace/export.csv?from=2026-02-01&to=2026-01-01');
    expect(backwards.status).to.equal(400);
    expect(backwards.text).to.include('from must be before to');
    const { id } = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: id });
    const bea = new SettingsClient(server);
    await bea.setUp(id, PASSWORD);
    const refused = await bea.get('/settings/workspace/export.csv');
    expect(refused.status).to.be.oneOf([403, 404]);
    expect(refused.headers.get('content-type')).to.match(/^text\/html/);
    expect(refused.text).to.not.include('record,id,email');
  });
});
