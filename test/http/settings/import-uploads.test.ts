import { type ClientRequest, request } from 'node:http';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { OPERATOR } from '../../../src/principal.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { PASSWORD, SettingsClient } from '../../helpers/settings-client.js';

/**
 * What the Import page keeps on disk (issue 33, M2): a member could fill the disk through uploads
 * (the whole body was written before the check of two runs at once, a refused upload's file was
 * never deleted, a checked one stayed an hour). Over real HTTP with a session: a run's place is
 * checked before the body is read, every refusal deletes its file, a member's and the server's
 * stored files are capped, and a run's file goes when the run ends.
 */
describe('settings page: the import uploads on disk', function () {
  this.timeout(60_000);
  let server: TestServer;
  let owner: SettingsClient;
  afterEach(() => server.close());

  const start = async (env: Record<string, string>) => {
    server = await startTestServer({ env });
    owner = new SettingsClient(server);
    await owner.setUp(server.ownerId, PASSWORD);
  };
  /** The files in the running server's uploads directory. */
  /** The files in this server's uploads directory (beside its database). */
  const uploads = () => {
    const data = dirname(server.config.databasePath);
    return readdirSync(data)
      .filter((d) => d.startsWith('timetrack-uploads-'))
      .flatMap((d) => readdirSync(join(data, d)));
  };
  const until = async (what: string, done: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 200; i++) {
      if (await done()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`waited in vain for ${what}`);
  };
  const cookie = (client: SettingsClient) => [...client.jar].map(([k, v]) => `${k}=${v}`).join('; ');

  async function upload(client: SettingsClient, file: Buffer, name = 'export.csv', extra: Record<string, string> = {}) {
    const csrf = SettingsClient.csrf((await client.get('/settings/import')).text);
    const form = new FormData();
    form.append('_csrf', csrf);
    form.append('timeZone', 'Europe/Berlin');
    for (const [k, v] of Object.entries(extra)) form.append(k, v);
    form.append('file', new Blob([file], { type: 'text/csv' }), name);
    const response = await fetch(`${server.url}/settings/import`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookie(client), origin: server.url },
      body: form,
    });
    return { status: response.status, text: await response.text(), location: response.headers.get('location') };
  }

  /** The run's page once it has finished (it refreshes itself while it runs). */
  async function finished(client: SettingsClient, location: string) {
    let page = await client.get(location);
    for (let i = 0; i < 200 && page.text.includes('http-equiv="refresh"'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      page = await client.get(location);
    }
    return page;
  }

  /** An upload whose body is left open after the start of its file: it holds its place until destroyed. */
  async function slowUpload(client: SettingsClient): Promise<ClientRequest> {
    const csrf = SettingsClient.csrf((await client.get('/settings/import')).text);
    const boundary = 'slowboundary7';
    const req = request(`${server.url}/settings/import`, {
      method: 'POST',
      headers: { cookie: cookie(client), origin: server.url, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    req.on('error', () => undefined);
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\nContent-Type: text/csv\r\n\r\n` +
        'email,start,end\n'.padEnd(64 * 1024, ' '),
    );
    return req;
  }

  /** A timetrack file of `rows` rows (about 100 bytes each). */
  const timetrack = (rows: number, email = 'owner@localhost', rate = '') =>
    Buffer.from(
      'email,start,end,description,client,project,task,tags,billable,hourlyRate\n' +
        Array.from(
          { length: rows },
          (_, i) =>
            `${email},${new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString()},${new Date(Date.UTC(2026, 0, 1) + i * 3_600_000 + 1_800_000).toISOString()},row ${i},,Site,,,true,${rate}`,
        ).join('\n') +
        '\n',
    );

  it('checks for a free run before reading the body: while two uploads are under way a third is refused 429 and nothing of it is written', async () => {
    await start({ IMPORT_UPLOAD_MAX_MB: '8' });
    const before = uploads().length;
    const slow = [await slowUpload(owner), await slowUpload(owner)];
    await until('the two uploads to be writing', () => uploads().length === before + 2);
    const third = await upload(owner, Buffer.alloc(4 * 1024 * 1024, 'a'));
    expect(third.status).to.equal(429);
    expect(third.text).to.include('Two imports are running on this server already: try again when one has finished.');
    expect(uploads().length).to.equal(before + 2);
    // Ten more, as the attacker sent them: nothing stays.
    for (let i = 0; i < 10; i++) expect((await upload(owner, Buffer.alloc(256 * 1024, 'b'))).status).to.equal(429);
    expect(uploads().length).to.equal(before + 2);
    // Uploads cut off: their files are deleted, their places freed.
    for (const req of slow) req.destroy();
    await until('the cut-off uploads to be deleted', () => uploads().length === before);
    // Forms the upload parser cannot read (no boundary) are refused, and hold no place afterwards.
    for (let i = 0; i < 3; i++) {
      const broken = await fetch(`${server.url}/settings/import`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(owner), origin: server.url, 'content-type': 'multipart/form-data' },
        body: 'not a form',
      });
      expect(broken.status).to.equal(400);
      expect(await broken.text()).to.include('The upload could not be read');
    }
    const fine = await upload(owner, timetrack(3));
    expect(fine.status, fine.text).to.equal(303);
  });

  it('deletes the file of a run when it ends: a refused check at once, an import when it is done', async () => {
    await start({});
    const before = uploads().length;
    const refused = await upload(owner, Buffer.from('Day,Who\n2026-03-02,Ada\n'));
    expect((await finished(owner, refused.location as string)).status).to.equal(400);
    expect(uploads().length).to.equal(before);
    const checked = await upload(owner, timetrack(5));
    const preview = await finished(owner, checked.location as string);
    expect(preview.text).to.include('is ready to import');
    // A finished check with rows to import keeps its file for Import.
    expect(uploads().length).to.equal(before + 1);
    const imported = await owner.post(`${checked.location as string}/import`, { _csrf: SettingsClient.csrf(preview.text) });
    expect(imported.status, imported.text).to.equal(303);
    const result = await finished(owner, imported.headers.get('location') as string);
    expect(result.text).to.include('Imported 5 entries');
    expect(uploads().length).to.equal(before);
    // The check is spent: importing it again asks for a new check.
    const again = await owner.post(`${checked.location as string}/import`, { _csrf: SettingsClient.csrf(preview.text) });
    expect(again.status).to.equal(409);
    expect(again.text).to.include('This check’s file is no longer kept');
  });

  it('caps what a member keeps (a newer check replaces their older one) and what the server keeps (a refusal names it, nothing stays)', async () => {
    await start({ IMPORT_UPLOAD_MAX_MB: '1', IMPORT_UPLOADS_MEMBER_MB: '1', IMPORT_UPLOADS_TOTAL_MB: '1' });
    const before = uploads().length;
    const big = timetrack(6000); // about 600 KB
    expect(big.length).to.be.within(512 * 1024, 1024 * 1024);
    const first = await upload(owner, big);
    const firstPage = await finished(owner, first.location as string);
    expect(firstPage.text).to.include('is ready to import');
    const second = await upload(owner, big);
    await finished(owner, second.location as string);
    // The member's share held one such file: the older check made room for the newer.
    expect(uploads().length).to.equal(before + 1);
    const stale = await owner.post(`${first.location as string}/import`, { _csrf: SettingsClient.csrf(firstPage.text) });
    expect(stale.status).to.equal(409);
    // Another member: the server's share has about 400 KB left, the file is larger.
    const { id } = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: id });
    const bea = new SettingsClient(server);
    await bea.setUp(id, PASSWORD);
    const refused = await upload(bea, timetrack(6000, 'bea@example.org'));
    expect(refused.status).to.equal(400);
    expect(refused.text).to.match(
      /The file is larger than the \d+ KB the server&#39;s uploads may still take: try again later, or ask the person who runs timetrack to import it on the server\./,
    );
    expect(uploads().length).to.equal(before + 1);
  });

  it('shows a member’s check that the file’s rates are not taken, and an upload’s name without control characters', async () => {
    await start({});
    const { id } = server.services.accounts.createUser(OPERATOR, { name: 'Bea', email: 'bea@example.org' });
    server.services.accounts.addMember(OPERATOR, { workspaceId: server.workspaceId, userId: id });
    const bea = new SettingsClient(server);
    await bea.setUp(id, PASSWORD);
    const checked = await upload(bea, timetrack(2, 'bea@example.org', '5000'), 'invoice\u202Efdp\u2066.csv');
    expect(checked.status, checked.text).to.equal(303);
    const page = await finished(bea, checked.location as string);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('The file&#39;s rates (2 rows) are not imported: rates are an owner&#39;s to set.');
    // (Control characters in a multipart header are refused by the form parser before the name is read.)
    expect(page.text).to.include('invoicefdp.csv');
    expect(page.text).to.not.match(/[\u202e\u2066]/);
  });
});
