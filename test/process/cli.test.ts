import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { runCli } from '../../src/cli/main.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { createServices } from '../../src/services.js';
import { BIN } from '../helpers/entry.js';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

describe('timetrack CLI', () => {
  let dir: string;
  let databasePath: string;
  const secretKey = randomBytes(32);
  const cliWith = async (allowPrivateTargets: boolean, ...argv: string[]): Promise<CliResult> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      openDatabase: () => openDatabase(databasePath),
      createServices: (database) => createServices(database, { clock: systemClock, secretKey, webhooks: { allowPrivateTargets } }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    let json: unknown;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr, json };
  };
  const cli = (...argv: string[]) => cliWith(false, ...argv);
  /** Runs a command that must succeed with --json and prints exactly one JSON object. */
  const ok = async (...argv: string[]) => {
    const result = await cli(...argv, '--json');
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout.trim().split('\n')).to.have.length(1);
    expect(result.json).to.be.an('object');
    return result.json;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-cli-'));
    databasePath = join(dir, 'timetrack.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('workspace, user, member and token commands print the documented JSON', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme', '--currency', 'USD', '--hourly-rate', '90');
    expect(ws).to.have.all.keys('id');
    expect(ws.id).to.match(/^ws_[0-9a-z]{20}$/);
    expect(
      await ok(
        'workspace',
        'set',
        ws.id,
        '--runaway-limit-sec',
        '7200',
        '--runaway-action',
        'capped',
        '--rate-limit-per-min',
        '100',
        '--hourly-rate',
        'none',
      ),
    ).to.deep.equal({ id: ws.id });

    const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    expect(user).to.have.all.keys('id');
    expect(
      await ok('member', 'add', '--workspace', ws.id, '--user', user.id, '--can-view-others-time', '--hourly-rate', '50'),
    ).to.deep.equal({ workspaceId: ws.id, userId: user.id });
    expect(await ok('member', 'set', '--workspace', ws.id, '--user', user.id, '--can-view-others-money', 'true')).to.deep.equal({
      workspaceId: ws.id,
      userId: user.id,
    });

    const token = await ok(
      'token',
      'create',
      '--workspace',
      ws.id,
      '--user',
      user.id,
      '--name',
      'ci',
      '--scopes',
      'entries:read,reports:read',
      '--expires-at',
      '2099-01-01T00:00:00Z',
      '--rate-limit-per-min',
      '30',
    );
    expect(token).to.have.all.keys('id', 'token', 'prefix');
    expect(token.token).to.match(/^tt_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    expect(token.prefix).to.equal(token.token.slice(3, 11));

    const empty = await ok('token', 'create', '--workspace', ws.id, '--user', user.id, '--name', 'none', '--scopes', '');
    const list = await ok('token', 'list', '--workspace', ws.id);
    expect(list).to.have.all.keys('tokens');
    expect(list.tokens).to.have.length(2);
    expect(list.tokens[0]).to.include({
      id: token.id,
      name: 'ci',
      prefix: token.prefix,
      expiresAt: '2099-01-01T00:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(list.tokens[0].scopes).to.deep.equal(['entries:read', 'reports:read']);
    expect(list.tokens[1].scopes).to.deep.equal([]);
    expect(JSON.stringify(list)).not.to.contain(token.token.slice(12));

    expect(await ok('token', 'revoke', empty.id)).to.deep.equal({ id: empty.id });
    const revoked = (await ok('token', 'list', '--workspace', ws.id)).tokens.find((t: { id: string }) => t.id === empty.id);
    expect(revoked.revokedAt).to.match(/Z$/);

    expect(await ok('member', 'remove', '--workspace', ws.id, '--user', user.id)).to.deep.equal({ workspaceId: ws.id, userId: user.id });
    expect(await ok('user', 'delete', user.id)).to.deep.equal({ id: user.id });
  });

  it('without --json prints readable lines and, for a token, the one-time warning', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    await ok('member', 'add', '--workspace', ws.id, '--user', user.id);
    const result = await cli('token', 'create', '--workspace', ws.id, '--user', user.id, '--name', 'x', '--scopes', 'entries:read');
    expect(result.code).to.equal(0);
    expect(result.stdout)
      .to.match(/^id: tok_/m)
      .and.match(/^token: tt_/m)
      .and.contain('shown only this once');
  });

  describe('errors go to stderr with a non-zero exit', () => {
    const usage = async (argv: string[], message: RegExp) => {
      const result = await cli(...argv, '--json');
      expect(result.code, result.stderr).to.equal(2);
      expect(result.stdout).to.equal('');
      const error = JSON.parse(result.stderr).error;
      expect(error.code).to.equal('usage');
      expect(error.message).to.match(message);
      const plain = await cli(...argv);
      expect(plain.code).to.equal(2);
      expect(plain.stderr).to.match(/^timetrack: /);
    };

    it('usage mistakes exit 2 and name the problem', async () => {
      await usage(['frobnicate', 'now'], /unknown command "frobnicate now"/);
      await usage(['workspace', 'create'], /--name is required/);
      await usage(['workspace', 'create', '--name', 'A', '--colour', 'red'], /colour/);
      await usage(['workspace', 'create', '--name', 'A', '--hourly-rate', 'lots'], /--hourly-rate must be a number/);
      await usage(['workspace', 'set', 'ws_x'], /at least one setting/);
      await usage(['workspace', 'set', 'ws_x', '--runaway-action', 'explode'], /flagged, capped or stopped/);
      await usage(['user', 'delete'], /expected 1 argument/);
      await usage(['member', 'set', '--workspace', 'w', '--user', 'u', '--can-view-others-time', 'yes'], /true or false/);
      await usage(['token', 'create', '--workspace', 'w', '--user', 'u', '--name', 'n'], /--scopes is required/);
      await usage(
        ['token', 'create', '--workspace', 'w', '--user', 'u', '--name', 'n', '--scopes', 'a', '--expires-at', 'tomorrow'],
        /ISO-8601/,
      );
    });

    it('refusals exit 1 with the domain code', async () => {
      const refused = async (argv: string[], code: string, message: RegExp) => {
        const result = await cli(...argv, '--json');
        expect(result.code, result.stderr).to.equal(1);
        expect(result.stdout).to.equal('');
        const error = JSON.parse(result.stderr).error;
        expect(error.code).to.equal(code);
        expect(error.message).to.match(message);
      };
      const ws = await ok('workspace', 'create', '--name', 'Acme');
      const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
      await refused(['workspace', 'create', '--name', ' '], 'invalid', /name must not be empty/);
      await refused(['workspace', 'create', '--name', 'A', '--currency', 'euro'], 'invalid', /ISO 4217/);
      await refused(['workspace', 'set', 'ws_missing', '--hourly-rate', '1'], 'not_found', /ws_missing/);
      await refused(['user', 'create', '--name', 'Ada', '--email', 'ADA@example.org'], 'conflict', /exists already/);
      await refused(['user', 'create', '--name', 'Bob', '--email', 'bob'], 'invalid', /email/);
      await refused(['member', 'add', '--workspace', ws.id, '--user', 'usr_missing'], 'not_found', /usr_missing/);
      await ok('member', 'add', '--workspace', ws.id, '--user', user.id);
      await refused(['member', 'add', '--workspace', ws.id, '--user', user.id], 'conflict', /member/);
      await refused(
        ['token', 'create', '--workspace', ws.id, '--user', user.id, '--name', 'n', '--scopes', 'entries:read,everything'],
        'invalid',
        /Unknown scope everything/,
      );
      await refused(
        [
          'token',
          'create',
          '--workspace',
          ws.id,
          '--user',
          user.id,
          '--name',
          'n',
          '--scopes',
          'entries:read',
          '--expires-at',
          '2001-01-01T00:00:00Z',
        ],
        'invalid',
        /future/,
      );
      await refused(
        ['token', 'create', '--workspace', ws.id, '--user', 'usr_nobody', '--name', 'n', '--scopes', ''],
        'not_found',
        /usr_nobody/,
      );
      await refused(['token', 'revoke', 'tok_missing'], 'not_found', /tok_missing/);
      await refused(['member', 'remove', '--workspace', ws.id, '--user', 'usr_nobody'], 'not_found', /usr_nobody/);
      await refused(['user', 'delete', 'usr_nobody'], 'not_found', /usr_nobody/);
    });

    it('a deleted account frees its email and cannot be deleted twice', async () => {
      const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
      await ok('user', 'delete', user.id);
      const again = await cli('user', 'delete', user.id, '--json');
      expect(again.code).to.equal(1);
      expect((await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org')).id).not.to.equal(user.id);
    });
  });

  it('sync tail prints the workspace’s sync events after a sequence number', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    await ok('member', 'add', '--workspace', ws.id, '--user', user.id);
    expect(await ok('sync', 'tail', '--workspace', ws.id)).to.deep.equal({ events: [] });
    const database = openDatabase(databasePath);
    try {
      const services = createServices(database, { clock: systemClock, secretKey: randomBytes(32) });
      const actor = {
        kind: 'member',
        isOwner: false,
        tokenId: 'tok_cli',
        workspaceId: ws.id,
        userId: user.id,
        scopes: new Set([]),
        canViewOthersTime: false,
        canViewOthersMoney: false,
        currency: 'EUR',
      } as const;
      services.catalog.tags.create(actor, { name: 'one' });
      services.entries.create(actor, { start: '2026-11-02T08:00:00Z', end: '2026-11-02T09:00:00Z', originId: 'o-1' });
    } finally {
      database.close();
    }
    const all = (await ok('sync', 'tail', '--workspace', ws.id)).events;
    expect(all.map((e: { entity: string; operation: string; event: string | null }) => [e.entity, e.operation, e.event])).to.deep.equal([
      ['tag', 'create', null],
      ['entry', 'create', 'entry.created'],
    ]);
    expect(all[1]).to.include({ originId: 'o-1', actorUserId: user.id });
    const after = await ok('sync', 'tail', '--workspace', ws.id, '--after', String(all[0].seq));
    expect(after.events.map((e: { seq: number }) => e.seq)).to.deep.equal([all[1].seq]);
    const usage = await cli('sync', 'tail', '--workspace', ws.id, '--after', '-1', '--json');
    expect(usage.code).to.equal(2);
  });

  it('webhook create/list/deliveries/enable/delete print the documented JSON; the secret is shown once', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    await ok('member', 'add', '--workspace', ws.id, '--user', user.id);
    const refused = await cli(
      'webhook',
      'create',
      '--workspace',
      ws.id,
      '--user',
      user.id,
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'entry.created',
      '--json',
    );
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr).error.message).to.contain('https');
    const literal = await cli(
      'webhook',
      'create',
      '--workspace',
      ws.id,
      '--user',
      user.id,
      '--url',
      'https://127.0.0.1/hook',
      '--events',
      'entry.created',
      '--json',
    );
    expect(JSON.parse(literal.stderr).error.message).to.contain('private or special-use');
    const badEvents = await cli(
      'webhook',
      'create',
      '--workspace',
      ws.id,
      '--user',
      user.id,
      '--url',
      'https://[2606:4700:4700::1111]/hook',
      '--events',
      'entry.nope',
      '--json',
    );
    expect(JSON.parse(badEvents.stderr).error.message).to.contain('unknown entry.nope');

    // An IP literal needs no lookup: a public address the test never sends anything to.
    const hook = await ok(
      'webhook',
      'create',
      '--workspace',
      ws.id,
      '--user',
      user.id,
      '--url',
      'https://[2606:4700:4700::1111]/hook',
      '--events',
      'entry.created,entry.deleted',
    );
    expect(hook).to.have.all.keys('id', 'secret');
    expect(hook.secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    const listed = await ok('webhook', 'list', '--workspace', ws.id);
    expect(listed.webhooks).to.have.length(1);
    expect(listed.webhooks[0]).to.include({
      id: hook.id,
      userId: user.id,
      url: 'https://[2606:4700:4700::1111]/hook',
      enabled: true,
      consecutiveFailures: 0,
      disabledAt: null,
    });
    expect(listed.webhooks[0].events).to.deep.equal(['entry.created', 'entry.deleted']);
    expect(JSON.stringify(listed)).not.to.contain(hook.secret.slice(6));
    const stored = openDatabase(databasePath);
    try {
      const row = stored.sqlite.prepare('SELECT secret_ciphertext FROM webhooks').get() as { secret_ciphertext: string };
      expect(row.secret_ciphertext).not.to.contain(hook.secret.slice(6));
    } finally {
      stored.close();
    }
    expect(await ok('webhook', 'deliveries', hook.id)).to.deep.equal({ deliveries: [] });
    expect(await ok('webhook', 'enable', hook.id)).to.deep.equal({ id: hook.id });
    expect(await ok('webhook', 'delete', hook.id)).to.deep.equal({ id: hook.id });
    expect((await cli('webhook', 'delete', hook.id, '--json')).code).to.equal(1);
  });

  it('webhook ping exits 1 when the ping fails, and names WEBHOOK_ALLOW_PRIVATE_TARGETS when the target is refused for it', async () => {
    const ws = await ok('workspace', 'create', '--name', 'Acme');
    const user = await ok('user', 'create', '--name', 'Ada', '--email', 'ada@example.org');
    await ok('member', 'add', '--workspace', ws.id, '--user', user.id);
    // Made where private targets are allowed (local development): a closed port on loopback.
    const made = await cliWith(
      true,
      'webhook',
      'create',
      '--workspace',
      ws.id,
      '--user',
      user.id,
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'all',
      '--json',
    );
    expect(made.code, made.stderr).to.equal(0);
    const refusedHere = await cli('webhook', 'ping', made.json.id, '--json');
    expect(refusedHere.code).to.equal(1);
    expect(refusedHere.json).to.include({ id: made.json.id, status: 'failure', error: 'scheme_not_allowed' });
    expect(JSON.parse(refusedHere.stderr).error.message).to.match(
      /^the ping failed\. This target is not allowed, or its host name does not resolve\. WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows plain http/,
    );
    const unanswered = await cliWith(true, 'webhook', 'ping', made.json.id);
    expect(unanswered.code).to.equal(1);
    expect(unanswered.stderr).to.equal('timetrack: the ping failed. The receiver refused the connection: is it running, on that port?\n');
    expect(unanswered.stdout).to.include('status: failure');
  });

  it('runs as the `timetrack` bin, against DATABASE_PATH', async function () {
    this.timeout(30_000);
    const run = promisify(execFile);
    const env = { ...process.env, DATABASE_PATH: databasePath };
    // The command line opens only a database that exists (the server creates it).
    openDatabase(databasePath).close();
    const { stdout } = await run(process.execPath, [...BIN, 'workspace', 'create', '--name', 'Bin', '--json'], { env });
    expect(JSON.parse(stdout)).to.have.all.keys('id');
    const failure = await run(process.execPath, [...BIN, 'user', 'delete', 'usr_nobody', '--json'], { env }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failure).to.include({ code: 1, stdout: '' });
    expect(JSON.parse((failure as { stderr: string }).stderr).error.code).to.equal('not_found');
    const bad = await run(process.execPath, [...BIN, 'workspace', 'create', '--json'], { env: { ...env, PORT: 'x' } }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((bad as { code: number }).code).to.equal(2);
    expect((bad as { stderr: string }).stderr).to.contain('PORT');
  });
});
