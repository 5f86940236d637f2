import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { webhookEnvelopeEventValues } from '../../generated/openapi.js';
import { bootstrapIfEmpty } from '../../src/bootstrap.js';
import { openExistingDatabase } from '../../src/cli/database.js';
import { runCli } from '../../src/cli/main.js';
import { ManualClock } from '../../src/clock.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { createServices } from '../../src/services.js';
import { BIN } from '../helpers/entry.js';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const T0 = Date.parse('2026-11-02T09:00:00.000Z');
const T1 = Date.parse('2026-11-03T10:30:00.000Z');

/** The admin commands of issue part 2: list/show/set for workspaces, users and members; refusals; help. */
describe('timetrack CLI: finding and changing workspaces, users and members', () => {
  let dir: string;
  let databasePath: string;
  let clock: ManualClock;
  let allowPrivateTargets: boolean;

  /** Runs the real CLI in-process, opening the database as `timetrack` does (an existing file only). */
  const cli = async (...argv: string[]): Promise<CliResult> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => openExistingDatabase(databasePath, (path) => openDatabase(path)),
      createServices: (database) => createServices(database, { clock, secretKey: randomBytes(32), webhooks: { allowPrivateTargets } }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr };
  };
  const ok = async (...argv: string[]) => {
    const result = await cli(...argv, '--json');
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout.trim().split('\n')).to.have.length(1);
    return JSON.parse(result.stdout);
  };
  /** A refusal: exit 1, nothing on stdout, `{error: {code, message}}` on stderr; returns the message. */
  const refused = async (argv: string[], code: string): Promise<string> => {
    const result = await cli(...argv, '--json');
    expect(result.code, result.stderr).to.equal(1);
    expect(result.stdout).to.equal('');
    const body = JSON.parse(result.stderr);
    expect(body).to.have.all.keys('error');
    expect(body.error).to.have.all.keys('code', 'message');
    expect(body.error.code).to.equal(code);
    return body.error.message as string;
  };
  const usage = async (argv: string[], message: RegExp) => {
    const result = await cli(...argv, '--json');
    expect(result.code, result.stderr).to.equal(2);
    expect(result.stdout).to.equal('');
    const body = JSON.parse(result.stderr);
    expect(body).to.have.all.keys('error');
    expect(body.error).to.have.all.keys('code', 'message');
    expect(body.error.code).to.equal('usage');
    expect(body.error.message).to.match(message);
  };
  /** What the server's first start leaves: a workspace, its owner "Owner" and a token. */
  const bootstrap = () => {
    const database = openDatabase(databasePath);
    try {
      const services = createServices(database, { clock, secretKey: randomBytes(32) });
      const result = bootstrapIfEmpty(services.write, services.accounts, services.tokens);
      if (!result) throw new Error('the database was not empty');
      return result;
    } finally {
      database.close();
    }
  };
  const withServices = <T>(body: (services: ReturnType<typeof createServices>) => T): T => {
    const database: DatabaseHandle = openDatabase(databasePath);
    try {
      return body(createServices(database, { clock, secretKey: randomBytes(32) }));
    } finally {
      database.close();
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-cli-admin-'));
    databasePath = join(dir, 'timetrack.db');
    // What the server's first start does: create and migrate the file (the CLI only opens it).
    openDatabase(databasePath).close();
    clock = new ManualClock(T0);
    allowPrivateTargets = false;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the bootstrap workspace and owner are found with list, renamed with set, and shown with show', async () => {
    const boot = bootstrap();
    expect(await ok('workspace', 'list')).to.deep.equal({
      workspaces: [
        {
          id: boot.workspaceId,
          name: 'My workspace',
          currency: 'EUR',
          hourlyRate: null,
          runawayLimitSec: 36000,
          runawayAction: 'flagged',
          rateLimitPerMin: null,
          createdAt: '2026-11-02T09:00:00.000Z',
          updatedAt: '2026-11-02T09:00:00.000Z',
        },
      ],
    });
    expect(await ok('user', 'list')).to.deep.equal({
      users: [{ id: boot.userId, name: 'Owner', email: 'owner@localhost', createdAt: '2026-11-02T09:00:00.000Z' }],
    });

    clock.set(T1);
    expect(
      await ok('workspace', 'set', boot.workspaceId, '--name', 'Acme', '--currency', 'USD', '--join-domains', 'Example.ORG, b.example'),
    ).to.deep.equal({ id: boot.workspaceId });
    expect(await ok('user', 'set', boot.userId, '--name', 'Ada Lovelace', '--email', 'ada@example.org')).to.deep.equal({
      id: boot.userId,
    });

    expect(await ok('workspace', 'show', boot.workspaceId)).to.deep.equal({
      workspace: {
        id: boot.workspaceId,
        name: 'Acme',
        currency: 'USD',
        hourlyRate: null,
        runawayLimitSec: 36000,
        runawayAction: 'flagged',
        rateLimitPerMin: null,
        createdAt: '2026-11-02T09:00:00.000Z',
        updatedAt: '2026-11-03T10:30:00.000Z',
        businessProfile: null,
        joinDomains: ['b.example', 'example.org'],
      },
    });
    expect(await ok('user', 'show', boot.userId)).to.deep.equal({
      user: {
        id: boot.userId,
        name: 'Ada Lovelace',
        email: 'ada@example.org',
        createdAt: '2026-11-02T09:00:00.000Z',
        memberships: [
          {
            workspaceId: boot.workspaceId,
            workspaceName: 'Acme',
            canViewOthersTime: true,
            canViewOthersMoney: true,
            hourlyRate: null,
            isOwner: true,
          },
        ],
      },
    });
    // The bootstrap token now carries the new currency (it is read with the token, not copied).
    expect(withServices((s) => s.tokens.authenticate(boot.token)?.actor.currency)).to.equal('USD');
    // Only the fields named change.
    await ok('workspace', 'set', boot.workspaceId, '--hourly-rate', '80');
    expect((await ok('workspace', 'show', boot.workspaceId)).workspace).to.include({ name: 'Acme', currency: 'USD', hourlyRate: 80 });
    await ok('user', 'set', boot.userId, '--name', 'Ada');
    expect((await ok('user', 'show', boot.userId)).user).to.include({ name: 'Ada', email: 'ada@example.org' });
  });

  it('member list and member show print the members with their visibility and rate', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const ada = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    const bob = await ok('user', 'create', '--name', 'Bob', '--email', 'bob@example.org');
    await ok('member', 'add', '--workspace', ws.id, '--user', ada.id, '--can-view-others-time', '--hourly-rate', '50');
    clock.set(T1);
    await ok('member', 'add', '--workspace', ws.id, '--user', bob.id);
    const empty = await ok('workspace', 'create', '--name', 'Empty');
    const adaView = {
      workspaceId: ws.id,
      userId: ada.id,
      name: 'Ada',
      email: 'ada@example.org',
      canViewOthersTime: true,
      canViewOthersMoney: false,
      hourlyRate: 50,
      isOwner: false,
      createdAt: '2026-11-02T09:00:00.000Z',
      updatedAt: '2026-11-02T09:00:00.000Z',
    };
    const bobView = {
      workspaceId: ws.id,
      userId: bob.id,
      name: 'Bob',
      email: 'bob@example.org',
      canViewOthersTime: false,
      canViewOthersMoney: false,
      hourlyRate: null,
      isOwner: false,
      createdAt: '2026-11-03T10:30:00.000Z',
      updatedAt: '2026-11-03T10:30:00.000Z',
    };
    expect(await ok('member', 'list', '--workspace', ws.id)).to.deep.equal({ members: [adaView, bobView] });
    expect(await ok('member', 'list', '--workspace', empty.id)).to.deep.equal({ members: [] });
    expect(await ok('member', 'show', '--workspace', ws.id, '--user', bob.id)).to.deep.equal({ member: bobView });
    expect((await ok('user', 'show', ada.id)).user.memberships).to.deep.equal([
      { workspaceId: ws.id, workspaceName: 'Acme', canViewOthersTime: true, canViewOthersMoney: false, hourlyRate: 50, isOwner: false },
    ]);

    // A deleted account is listed nowhere any more.
    await ok('user', 'delete', bob.id);
    expect(await ok('member', 'list', '--workspace', ws.id)).to.deep.equal({ members: [adaView] });
    expect((await ok('user', 'list')).users.map((u: { id: string }) => u.id)).to.deep.equal([ada.id]);
    expect((await ok('workspace', 'list')).workspaces.map((w: { id: string; name: string }) => [w.id, w.name])).to.deep.equal([
      [ws.id, 'Acme'],
      [empty.id, 'Empty'],
    ]);
  });

  it('an unknown workspace, user or member is not_found (exit 1), never an empty answer', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const ada = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    const gone = await ok('user', 'create', '--name', 'Gone', '--email', 'gone@example.org');
    await ok('user', 'delete', gone.id);
    expect(await refused(['token', 'list', '--workspace', 'ws_nope'], 'not_found')).to.equal('Workspace ws_nope was not found.');
    expect(await refused(['webhook', 'list', '--workspace', 'ws_nope'], 'not_found')).to.equal('Workspace ws_nope was not found.');
    expect(await refused(['sync', 'tail', '--workspace', 'ws_nope'], 'not_found')).to.equal('Workspace ws_nope was not found.');
    expect(await refused(['member', 'list', '--workspace', 'ws_nope'], 'not_found')).to.equal('Workspace ws_nope was not found.');
    expect(await refused(['workspace', 'show', 'ws_nope'], 'not_found')).to.equal('Workspace ws_nope was not found.');
    expect(await refused(['workspace', 'set', 'ws_nope', '--name', 'X'], 'not_found')).to.equal('Workspace ws_nope was not found.');
    expect(await refused(['user', 'show', 'usr_nope'], 'not_found')).to.equal('User usr_nope was not found.');
    expect(await refused(['user', 'show', gone.id], 'not_found')).to.equal(`User ${gone.id} was not found.`);
    expect(await refused(['user', 'set', 'usr_nope', '--name', 'X'], 'not_found')).to.equal('User usr_nope was not found.');
    expect(await refused(['user', 'set', gone.id, '--name', 'X'], 'not_found')).to.equal(`User ${gone.id} was not found.`);
    expect(await refused(['member', 'show', '--workspace', 'ws_nope', '--user', ada.id], 'not_found')).to.equal(
      'Workspace ws_nope was not found.',
    );
    expect(await refused(['member', 'show', '--workspace', ws.id, '--user', 'usr_nope'], 'not_found')).to.equal(
      'User usr_nope was not found.',
    );
    expect(await refused(['member', 'show', '--workspace', ws.id, '--user', ada.id], 'not_found')).to.equal(
      `Member ${ada.id} of workspace ${ws.id} was not found.`,
    );
    // A known workspace with nothing in it is still an empty answer.
    expect(await ok('token', 'list', '--workspace', ws.id)).to.deep.equal({ tokens: [] });
    expect(await ok('webhook', 'list', '--workspace', ws.id)).to.deep.equal({ webhooks: [] });
  });

  it('set commands check their values and name what is wrong', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const ada = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    const bob = await ok('user', 'create', '--name', 'Bob', '--email', 'bob@example.org');
    await usage(['workspace', 'set', ws.id], /^name at least one setting to change$/);
    await usage(['user', 'set', ada.id], /^name at least one setting to change$/);
    await usage(['user', 'set'], /^expected 1 argument, got 0$/);
    await usage(['workspace', 'show'], /^expected 1 argument, got 0$/);
    await usage(['workspace', 'list', 'extra'], /^unexpected argument "extra"$/);
    await usage(['member', 'show', '--workspace', ws.id], /^--user is required$/);
    expect(await refused(['workspace', 'set', ws.id, '--currency', 'usd'], 'invalid')).to.equal(
      'currency must be an ISO 4217 code such as EUR (got "usd").',
    );
    expect(await refused(['workspace', 'set', ws.id, '--name', '  '], 'invalid')).to.equal('name must not be empty.');
    expect(await refused(['user', 'set', ada.id, '--email', 'nope'], 'invalid')).to.match(/^email must look like/);
    expect(await refused(['user', 'set', ada.id, '--email', 'BOB@example.org'], 'conflict')).to.equal(
      `A user with the email BOB@example.org exists already (${bob.id}).`,
    );
    // A refused change changes nothing; an account may keep (or re-case) its own email.
    expect((await ok('workspace', 'show', ws.id)).workspace).to.include({ name: 'Acme', currency: 'EUR' });
    await ok('user', 'set', ada.id, '--email', 'ADA@example.org');
    expect((await ok('user', 'show', ada.id)).user.email).to.equal('ADA@example.org');
    // The email of a deleted account is free.
    await ok('user', 'delete', bob.id);
    await ok('user', 'set', ada.id, '--email', 'bob@example.org');
    expect((await ok('user', 'show', ada.id)).user.email).to.equal('bob@example.org');
  });

  it('never creates a database: a missing file is not_found naming the path, and nothing is written', async () => {
    const missing = join(dir, 'typo', 'timetrak.db');
    databasePath = missing;
    const message = await refused(['workspace', 'create', '--name', 'Acme'], 'not_found');
    expect(message).to.contain(`No database at ${missing} `).and.contain('DATABASE_PATH').and.contain('first start');
    expect(existsSync(join(dir, 'typo'))).to.equal(false);
    const plain = await cli('workspace', 'list');
    expect(plain.code).to.equal(1);
    expect(plain.stderr).to.equal(`timetrack: ${message}\n`);
    expect(existsSync(join(dir, 'typo'))).to.equal(false);

    mkdirSync(join(dir, 'folder'));
    databasePath = join(dir, 'folder');
    expect(await refused(['workspace', 'list'], 'invalid')).to.equal(`${databasePath} is not a database file: check DATABASE_PATH.`);
  });

  it('the `timetrack` bin refuses a missing DATABASE_PATH (exit 1, creates nothing) and reads WEBHOOK_ALLOW_PRIVATE_TARGETS', async function () {
    this.timeout(30_000);
    const missing = join(dir, 'nowhere', 'timetrack.db');
    const run = promisify(execFile);
    const failure = await run(process.execPath, [...BIN, 'workspace', 'list', '--json'], {
      env: { ...process.env, DATABASE_PATH: missing },
    }).then(
      () => expect.fail('the command succeeded'),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failure.code).to.equal(1);
    expect(failure.stdout).to.equal('');
    const error = JSON.parse(failure.stderr).error;
    expect(error.code).to.equal('not_found');
    expect(error.message).to.contain(`No database at ${missing} `);
    expect(existsSync(join(dir, 'nowhere'))).to.equal(false);

    // WEBHOOK_ALLOW_PRIVATE_TARGETS applies to the command line: without it a loopback target is
    // refused with the hint, with it the subscription is made (webhook create sends nothing).
    const boot = bootstrap();
    const argv = [...BIN, 'webhook', 'create', '--workspace', boot.workspaceId, '--user', boot.userId];
    const hook = [...argv, '--url', 'http://127.0.0.1:9/hook', '--events', 'all', '--json'];
    const env = { ...process.env, DATABASE_PATH: databasePath };
    const refusal = await run(process.execPath, hook, { env: { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } }).then(
      () => expect.fail('the command succeeded'),
      (e: { code: number; stderr: string }) => e,
    );
    expect(refusal.code).to.equal(1);
    expect(JSON.parse(refusal.stderr).error.message).to.contain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows plain http');
    const { stdout } = await run(process.execPath, hook, { env: { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    expect(JSON.parse(stdout)).to.have.all.keys('id', 'secret');
  });

  it('webhook create --help lists the events and --events all, without opening the database', async () => {
    databasePath = join(dir, 'absent.db');
    const help = await cli('webhook', 'create', '--help');
    expect(help.code).to.equal(0);
    expect(help.stderr).to.equal('');
    expect(help.stdout).to.match(/^Usage: timetrack webhook create --workspace W --user U --url URL --events a,b\|all \[--json\]\n/);
    expect(help.stdout).to.contain(`Events (comma-separated): ${webhookEnvelopeEventValues.join(', ')}; --events all`);
    expect(help.stdout).to.contain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
    expect(existsSync(databasePath)).to.equal(false);

    const group = await cli('member', '--help');
    expect(group.code).to.equal(0);
    expect(group.stdout).to.contain('timetrack member list --workspace W').and.contain('timetrack member show --workspace W --user U');
    await usage(['member', 'nope'], /^unknown command "member nope"; the member commands are member add, member list, member show,/);
    const top = await cli('--help');
    for (const line of ['workspace list', 'workspace show ID', 'user list', 'user show ID', 'user set ID [--name N] [--email E]']) {
      expect(top.stdout).to.contain(`timetrack ${line}`);
    }
    expect(top.stdout).to.contain('timetrack workspace set ID [--name N] [--currency C]');
  });

  it('docs/webhooks.md lists every event and --events all', () => {
    const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    for (const event of webhookEnvelopeEventValues) expect(doc).to.contain(`| \`${event}\` |`);
    expect(doc).to.contain('`all` for every one of them');
    expect(doc).to.contain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true npx timetrack webhook create');
  });

  it('webhook create: --events all subscribes to every event; a private target says which setting allows it', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const ada = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    await ok('member', 'add', '--workspace', ws.id, '--user', ada.id);
    const create = (url: string, events: string) =>
      ['webhook', 'create', '--workspace', ws.id, '--user', ada.id, '--url', url, '--events', events] as const;
    const hint =
      ' WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows plain http and private addresses (local development only); the command line reads it too, so set it where timetrack runs as well as for the server.';
    expect(await refused([...create('http://127.0.0.1:9/hook', 'all')], 'invalid')).to.equal(
      `url: Webhook URLs must use https (got http).${hint}`,
    );
    expect(await refused([...create('https://127.0.0.1/hook', 'all')], 'invalid')).to.equal(
      `url: 127.0.0.1 resolves to 127.0.0.1, a private or special-use address (127.0.0.0/8 (RFC 1122: loopback)).${hint}`,
    );
    // No setting gets past a URL that is not one: no hint there.
    expect(await refused([...create('not a url', 'all')], 'invalid')).to.equal('url: "not a url" is not an absolute URL.');

    // An IP literal needs no lookup; nothing is sent by `webhook create`.
    const hook = await ok(...create('https://[2606:4700:4700::1111]/hook', 'all'));
    const listed = (await ok('webhook', 'list', '--workspace', ws.id)).webhooks;
    expect(listed.map((w: { id: string; events: string[] }) => [w.id, w.events])).to.deep.equal([
      [hook.id, [...webhookEnvelopeEventValues]],
    ]);

    allowPrivateTargets = true;
    const local = await ok(...create('http://127.0.0.1:9/hook', 'entry.created'));
    expect(local).to.have.all.keys('id', 'secret');
    // With the setting on, another scheme is still refused, and the hint is not given.
    expect(await refused([...create('ftp://127.0.0.1/hook', 'all')], 'invalid')).to.equal(
      'url: Webhook URLs must use https or http (got ftp).',
    );
  });
});
