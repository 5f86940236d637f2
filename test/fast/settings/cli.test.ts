import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { bootstrapIfEmpty, type BootstrapResult } from '../../../src/bootstrap.js';
import { openExistingDatabase } from '../../../src/cli/database.js';
import { runCli } from '../../../src/cli/main.js';
import { ManualClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { createServices } from '../../../src/services.js';

/** The command line's part of the settings page: setup links, passwords from standard input, the owner role. */
describe('timetrack CLI: settings page access', () => {
  let dir: string;
  let databasePath: string;
  let boot: BootstrapResult;
  const clock = new ManualClock(Date.parse('2026-11-02T09:00:00.000Z'));
  const secretKey = randomBytes(32);

  const cli = async (argv: string[], options: { stdin?: string; settingsUrl?: string | null } = {}) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli([...argv, '--json'], {
      openDatabase: () => openExistingDatabase(databasePath, (path) => openDatabase(path)),
      createServices: (database) => createServices(database, { clock, secretKey }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      settingsUrl: options.settingsUrl === undefined ? 'https://time.example.org/settings' : options.settingsUrl,
      readStdin: () => Promise.resolve(options.stdin ?? ''),
    });
    return { code, out: stdout === '' ? null : JSON.parse(stdout), err: stderr === '' ? null : JSON.parse(stderr) };
  };
  const withServices = <T>(body: (services: ReturnType<typeof createServices>) => T | Promise<T>) => {
    const database = openDatabase(databasePath);
    return Promise.resolve(body(createServices(database, { clock, secretKey }))).finally(() => database.close());
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-cli-settings-'));
    databasePath = join(dir, 'timetrack.db');
    boot = await withServices((s) => bootstrapIfEmpty(s.write, s.accounts, s.tokens) as BootstrapResult);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('user invite prints a one-time link into BASE_URL + SETTINGS_PATH, valid 72 hours unless told', async () => {
    const invited = await cli(['user', 'invite', '--workspace', boot.workspaceId, '--user', boot.userId]);
    expect(invited.code).to.equal(0);
    expect(invited.out).to.have.all.keys('url', 'expiresAt');
    expect(invited.out.url).to.match(/^https:\/\/time\.example\.org\/settings\/setup\/[A-Za-z0-9_-]{43}$/);
    expect(invited.out.expiresAt).to.equal('2026-11-05T09:00:00.000Z');
    const short = await cli(['user', 'invite', '--workspace', boot.workspaceId, '--user', boot.userId, '--valid-hours', '2']);
    expect(short.out.expiresAt).to.equal('2026-11-02T11:00:00.000Z');
    // The newer link ended the first one.
    const first = invited.out.url.split('/').pop();
    const second = short.out.url.split('/').pop();
    await withServices((s) => {
      expect(s.sessions.setupLink(first)).to.equal(null);
      expect(s.sessions.setupLink(second)).to.deep.equal({
        name: 'Owner',
        email: 'owner@localhost',
        workspaceId: boot.workspaceId,
        workspaceName: 'My workspace',
        asksProfile: false,
        viaProvider: false,
      });
    });
    const off = await cli(['user', 'invite', '--workspace', boot.workspaceId, '--user', boot.userId], { settingsUrl: null });
    expect(off.code).to.equal(2);
    expect(off.err.error.message).to.include('SETTINGS_PATH=off');
    const stranger = await cli(['user', 'invite', '--workspace', boot.workspaceId, '--user', 'usr_nobody']);
    expect(stranger.code).to.equal(1);
    expect(stranger.err.error).to.deep.equal({
      code: 'not_found',
      message: `Member usr_nobody of workspace ${boot.workspaceId} was not found.`,
    });
  });

  it('user password reads the password from standard input (one trailing newline dropped) and checks its length', async () => {
    const set = await cli(['user', 'password', boot.userId], { stdin: 'correct horse battery\n' });
    expect(set).to.deep.equal({ code: 0, out: { id: boot.userId }, err: null });
    await withServices(async (s) => {
      const signIn = (password: string) => s.sessions.signIn({ email: 'owner@localhost', password, address: '127.0.0.1' });
      const signedIn = await signIn('correct horse battery');
      expect(signedIn.kind).to.equal('signed-in');
      expect(signedIn.kind === 'signed-in' && signedIn.session).to.have.all.keys('secret', 'csrfToken');
      expect(await signIn('correct horse battery\n')).to.deep.equal({ kind: 'refused' });
    });
    const short = await cli(['user', 'password', boot.userId], { stdin: 'short\n' });
    expect(short.code).to.equal(1);
    expect(short.err.error).to.deep.equal({ code: 'invalid', message: 'password must be at least 12 characters long.' });
  });

  it('member add --owner and member set --owner grant and take the role; the last owner keeps it', async () => {
    const user = await cli(['user', 'create', '--name', 'Bea', '--email', 'bea@example.org']);
    expect((await cli(['member', 'add', '--workspace', boot.workspaceId, '--user', user.out.id, '--owner'])).code).to.equal(0);
    const shown = await cli(['member', 'show', '--workspace', boot.workspaceId, '--user', user.out.id]);
    expect(shown.out.member.isOwner).to.equal(true);
    expect((await cli(['member', 'set', '--workspace', boot.workspaceId, '--user', boot.userId, '--owner', 'false'])).code).to.equal(0);
    const last = await cli(['member', 'set', '--workspace', boot.workspaceId, '--user', user.out.id, '--owner', 'false']);
    expect(last.code).to.equal(1);
    expect(last.err.error).to.deep.equal({
      code: 'conflict',
      message: `Workspace ${boot.workspaceId} would have no owner left; make another member an owner first.`,
    });
    const removed = await cli(['member', 'remove', '--workspace', boot.workspaceId, '--user', user.out.id]);
    expect(removed.code).to.equal(1);
    expect(removed.err.error.code).to.equal('conflict');
    const members = await cli(['member', 'list', '--workspace', boot.workspaceId]);
    const roles = members.out.members.map((m: { name: string; isOwner: boolean }) => [m.name, m.isOwner]).sort();
    expect(roles).to.deep.equal([
      ['Bea', true],
      ['Owner', false],
    ]);
  });
});
