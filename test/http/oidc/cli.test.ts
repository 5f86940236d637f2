import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../../src/cli/main.js';
import { systemClock } from '../../../src/clock.js';
import { parseConfig } from '../../../src/config.js';
import { openDatabase } from '../../../src/db/database.js';
import { createServices } from '../../../src/services.js';
import { freePort, startTestProvider, type TestProvider, timetrackClient } from '../../helpers/oidc-provider.js';
import { oidcEnv } from '../../helpers/oidc-fixture.js';

/** `timetrack oidc test`: the settings against a real provider, each problem in a sentence, exit 1 when there is one. */
describe('timetrack oidc test', function () {
  this.timeout(30_000);
  let provider: TestProvider;
  let port: number;
  let dir: string;

  before(async () => {
    port = await freePort();
    provider = await startTestProvider({ clients: [timetrackClient(`http://127.0.0.1:${port}`)] });
    dir = mkdtempSync(join(tmpdir(), 'timetrack-oidc-cli-'));
    openDatabase(join(dir, 'timetrack.db')).close();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await provider.close();
  });

  const oidcTest = async (env: Record<string, string>, json = true) => {
    const config = parseConfig({ DATABASE_PATH: join(dir, 'timetrack.db'), ...env });
    let stdout = '';
    let stderr = '';
    const code = await runCli(['oidc', 'test', ...(json ? ['--json'] : [])], {
      openDatabase: () => openDatabase(config.databasePath),
      createServices: (database) => createServices(database, { clock: systemClock, secretKey: randomBytes(32), oidc: config.oidc }),
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    return { code, stdout, stderr };
  };

  it('prints what to register with the provider, and OK', async () => {
    const ok = await oidcTest(oidcEnv(port, provider.issuer));
    expect(ok.code, ok.stderr).to.equal(0);
    const base = `http://127.0.0.1:${port}/settings`;
    expect(JSON.parse(ok.stdout)).to.deep.equal({
      issuer: provider.issuer,
      redirectUri: `${base}/oidc/callback`,
      postLogoutRedirectUri: `${base}/sign-in`,
      backchannelLogoutUri: `${base}/oidc/backchannel-logout`,
      ok: true,
      endSession: true,
      backchannelLogout: true,
      refreshTokens: true,
      problems: [],
      notes: [],
    });
    const text = await oidcTest(oidcEnv(port, provider.issuer), false);
    expect(text.stdout).to.equal(
      `OK: ${provider.issuer} fits this server's settings.\nRegister these with the provider:\n  redirect URI:             ${base}/oidc/callback\n  post-logout redirect URI: ${base}/sign-in\n  back-channel logout URI:  ${base}/oidc/backchannel-logout\n`,
    );
  });

  it('says the client secret is wrong, and exits 1', async () => {
    const wrong = await oidcTest({ ...oidcEnv(port, provider.issuer), OIDC_CLIENT_SECRET: 'not-the-secret' });
    expect(wrong.code).to.equal(1);
    const message =
      'Company SSO refused the client id and secret (invalid_client): check OIDC_CLIENT_ID and OIDC_CLIENT_SECRET against the client registered there.';
    expect(JSON.parse(wrong.stdout).problems).to.deep.equal([message]);
    expect(JSON.parse(wrong.stderr)).to.deep.equal({ error: { code: 'refused', message } });
  });

  it('says a scope the provider does not offer, an issuer it does not answer for, and a provider that is down', async () => {
    const scope = await oidcTest({ ...oidcEnv(port, provider.issuer), OIDC_SCOPES: 'openid email groups' });
    expect(scope.code).to.equal(1);
    expect(JSON.parse(scope.stdout).problems[0]).to.match(/^Company SSO does not offer the scope groups \(OIDC_SCOPES\); it offers /);
    const issuer = await oidcTest(oidcEnv(port, `${provider.issuer}/realms/nothing`));
    expect(JSON.parse(issuer.stdout).problems[0]).to.match(
      /realms\/nothing\/\.well-known\/openid-configuration answered 404, not a discovery document/,
    );
    const down = await oidcTest(oidcEnv(port, `http://127.0.0.1:${await freePort()}`));
    expect(down.code).to.equal(1);
    expect(JSON.parse(down.stdout).problems[0]).to.match(/\/\.well-known\/openid-configuration did not answer \(ECONNREFUSED\)\.$/);
  });

  it('refuses when no provider is set up', async () => {
    const none = await oidcTest({});
    expect(none.code).to.equal(1);
    expect(JSON.parse(none.stderr).error.message).to.equal(
      'Sign-in through an identity provider is not set up: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (docs/operations.md).',
    );
  });
});
