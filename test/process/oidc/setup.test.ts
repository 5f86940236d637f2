import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { systemClock } from '../../../src/clock.js';
import { openDatabase } from '../../../src/db/database.js';
import { createServices } from '../../../src/services.js';
import { OPERATOR } from '../../../src/principal.js';
import { CookieBrowser, freePort, startTestProvider, timetrackClient } from '../../helpers/oidc-provider.js';
import { startTestServer } from '../../helpers/server.js';
import { SettingsClient } from '../../helpers/settings-client.js';
import { noticeOf, type OidcFixture, oidcEnv, oidcFixture, PROVIDER_NAME, signedIn, visit } from '../../helpers/oidc-fixture.js';
import { MAIN } from '../../helpers/entry.js';

const PASSWORD = 'correct horse battery staple';

/** OIDC_ONLY=true: the provider is the way in; a break-glass owner keeps a password for when it is down. */
describe('sign-in through the identity provider only (OIDC_ONLY)', function () {
  this.timeout(60_000);
  let fixture: OidcFixture;
  let colleague: string;

  before(async () => {
    fixture = await oidcFixture({ env: { OIDC_ONLY: 'true' }, users: { ada: { email: 'owner@localhost', email_verified: true } } });
    const { services, workspaceId, ownerId } = fixture.server;
    await services.sessions.setPassword(OPERATOR, ownerId, PASSWORD);
    colleague = services.accounts.createUser(OPERATOR, { name: 'Colleague', email: 'colleague@example.org' }).id;
    services.accounts.addMember(OPERATOR, { workspaceId, userId: colleague });
    await services.sessions.setPassword(OPERATOR, colleague, PASSWORD);
  });
  after(() => fixture.close());

  const cli = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    // The command line on its own connection to the server's database, as `timetrack` runs beside a server.
    const code = await runCli([...argv, '--json'], {
      openDatabase: () => openDatabase(fixture.server.config.databasePath),
      createServices: (database) => createServices(database, { clock: systemClock, secretKey: randomBytes(32) }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr };
  };

  it('shows no password form, refuses passwords, and still lets the provider’s people in', async () => {
    const page = await visit(fixture, new CookieBrowser(), '/settings/sign-in');
    expect(page.text).to.include(`Sign in with ${PROVIDER_NAME}</a>`);
    expect(page.text).to.not.include('name="password"');
    // A password posted anyway (the form's cookie from the break-glass page) is refused like a wrong one.
    const someone = new SettingsClient(fixture.server);
    const form = await someone.get('/settings/sign-in?break-glass');
    const posted = await someone.post('/settings/sign-in', {
      _csrf: SettingsClient.csrf(form.text),
      email: 'owner@localhost',
      password: PASSWORD,
      breakGlass: '1',
    });
    expect(posted.status).to.equal(401);
    expect(noticeOf(posted.text)).to.equal('That email and password do not match an account with a password.');
    const browser = await signedIn(fixture, 'ada');
    expect((await visit(fixture, browser, '/app/week')).status).to.equal(200);
  });

  it('lets a break-glass owner (marked on the command line) sign in with a password at ?break-glass; only owners can be marked', async () => {
    const marked = await cli('user', 'break-glass', fixture.server.ownerId, 'true');
    expect(marked.code, marked.stderr).to.equal(0);
    expect(JSON.parse(marked.stdout)).to.deep.equal({ id: fixture.server.ownerId, breakGlass: true });
    const refused = await cli('user', 'break-glass', colleague, 'true');
    expect(refused.code).to.equal(1);
    expect(JSON.parse(refused.stderr).error.message).to.match(/owns no workspace: break-glass sign-in is for owners/);

    const owner = new SettingsClient(fixture.server);
    const form = await owner.get('/settings/sign-in?break-glass');
    expect(form.text).to.include('name="password"');
    const posted = await owner.post('/settings/sign-in', {
      _csrf: SettingsClient.csrf(form.text),
      email: 'owner@localhost',
      password: PASSWORD,
      breakGlass: '1',
    });
    expect(posted.status, posted.text).to.equal(303);
    expect((await owner.get('/app/week')).status).to.equal(200);
    // The colleague, not marked, is refused with the right password too.
    const other = new SettingsClient(fixture.server);
    const otherForm = await other.get('/settings/sign-in?break-glass');
    expect(
      (
        await other.post('/settings/sign-in', {
          _csrf: SettingsClient.csrf(otherForm.text),
          email: 'colleague@example.org',
          password: PASSWORD,
        })
      ).status,
    ).to.equal(401);
    // Unmarked again, the owner's password no longer works.
    expect((await cli('user', 'break-glass', fixture.server.ownerId, 'false')).code).to.equal(0);
    const again = new SettingsClient(fixture.server);
    const againForm = await again.get('/settings/sign-in?break-glass');
    expect(
      (await again.post('/settings/sign-in', { _csrf: SettingsClient.csrf(againForm.text), email: 'owner@localhost', password: PASSWORD }))
        .status,
    ).to.equal(401);
  });

  it('points break-glass owners to their way in while the provider is down', async () => {
    await fixture.provider.stop();
    try {
      fixture.server.clock.advance(31_000);
      const page = await visit(fixture, new CookieBrowser(), '/settings/sign-in');
      expect(noticeOf(page.text)).to.equal(
        `${PROVIDER_NAME} cannot be reached right now, so signing in with it does not work; if you are signed in already, you stay signed in. Owners with break-glass access: sign in with a password.`,
      );
      expect(page.text).to.include('<a href="/settings/sign-in?break-glass">sign in with a password</a>');
    } finally {
      await fixture.provider.restart();
      fixture.server.clock.advance(31_000);
    }
  });
});

/** The start: a provider that does not fit the settings stops it in a sentence; one that is down does not. */
describe('sign-in through the identity provider: the server’s start', function () {
  this.timeout(60_000);

  it('stops when the issuer is not what the provider calls itself, saying what to set (timetrack serve exits 2)', async () => {
    const port = await freePort();
    const provider = await startTestProvider({ clients: [timetrackClient(`http://127.0.0.1:${port}`)] });
    const dir = mkdtempSync(join(tmpdir(), 'timetrack-oidc-'));
    try {
      const wrong = provider.issuer.replace('127.0.0.1', 'localhost');
      const run = await promisify(execFile)(process.execPath, [...MAIN, 'serve'], {
        env: { ...process.env, ...oidcEnv(port, wrong), HOST: '127.0.0.1', DATABASE_PATH: join(dir, 'timetrack.db'), LOG_LEVEL: 'silent' },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(run.code).to.equal(2);
      expect(run.stderr.trim()).to.equal(
        `timetrack: Invalid configuration: OIDC_ISSUER: the provider at ${wrong}/.well-known/openid-configuration calls itself ${provider.issuer}, not ${wrong}: set OIDC_ISSUER to exactly ${provider.issuer}.`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await provider.close();
    }
  });

  it('stops when the issuer answers no discovery document', async () => {
    const port = await freePort();
    const provider = await startTestProvider({ clients: [timetrackClient(`http://127.0.0.1:${port}`)] });
    try {
      const issuer = `${provider.issuer}/realms/staff`;
      let failure: Error | null = null;
      await startTestServer({ now: Date.now(), env: oidcEnv(port, issuer) }).then(
        (server) => server.close(),
        (error: Error) => (failure = error),
      );
      expect((failure as Error | null)?.message).to.equal(
        `Invalid configuration: OIDC_ISSUER: ${issuer}/.well-known/openid-configuration answered 404, not a discovery document: OIDC_ISSUER must be the issuer (for Keycloak https://HOST/realms/REALM, for Authentik https://HOST/application/o/SLUG/).`,
      );
    } finally {
      await provider.close();
    }
  });

  it('starts while the provider is down, saying so in its log and on the sign-in page, and offers it once it answers', async () => {
    const port = await freePort();
    const providerPort = await freePort();
    const server = await startTestServer({ now: Date.now(), env: { ...oidcEnv(port, `http://127.0.0.1:${providerPort}`) } });
    let provider: Awaited<ReturnType<typeof startTestProvider>> | null = null;
    try {
      const warned = server.logLines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn');
      expect(warned.map((l) => l.msg)).to.include(
        'starting without the identity provider: it does not answer; sign-in through it waits until it does',
      );
      const page = await new SettingsClient(server).get('/settings/sign-in');
      expect(noticeOf(page.text)).to.match(new RegExp(`^${PROVIDER_NAME} cannot be reached right now`));
      expect(page.text).to.include('name="password"');
      provider = await startTestProvider({
        port: providerPort,
        clients: [timetrackClient(server.url)],
        users: { ada: { email: 'owner@localhost', email_verified: true } },
      });
      // Looked at again when the last look is 30 s old: it answers now.
      server.clock.advance(31_000);
      const fixture = { provider, server, callback: `${server.url}/settings/oidc/callback`, close: async () => undefined };
      const browser = await signedIn(fixture, 'ada');
      expect((await visit(fixture, browser, '/app/week')).status).to.equal(200);
    } finally {
      await server.close();
      await provider?.close();
    }
  });
});
