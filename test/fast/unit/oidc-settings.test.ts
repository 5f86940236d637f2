import { expect } from 'chai';
import { parseConfig } from '../../../src/config.js';
import { configProblem } from '../../helpers/config.js';
import { requireJoinDomains } from '../../../src/modules/accounts/service.js';

const BASE = { BASE_URL: 'https://tt.example.org', OIDC_ISSUER: 'https://sso.example.org/realms/staff', OIDC_CLIENT_ID: 'timetrack' };

const problemOf = configProblem;

describe('OIDC settings (src/config.ts)', () => {
  it('derives the addresses the provider sends people back to from BASE_URL and SETTINGS_PATH, and the name from the issuer', () => {
    const config = parseConfig({ ...BASE, OIDC_CLIENT_SECRET: 's3cret', SETTINGS_PATH: '/admin' });
    expect(config.oidc).to.deep.equal({
      issuer: 'https://sso.example.org/realms/staff',
      clientId: 'timetrack',
      clientSecret: 's3cret',
      name: 'sso.example.org',
      only: false,
      scopes: ['openid', 'email', 'profile'],
      redirectUri: 'https://tt.example.org/admin/oidc/callback',
      postLogoutRedirectUri: 'https://tt.example.org/admin/sign-in',
      backchannelLogoutUri: 'https://tt.example.org/admin/oidc/backchannel-logout',
    });
    expect(parseConfig({}).oidc).to.equal(null);
  });

  it('reads the secret from OIDC_CLIENT_SECRET_FILE (trimmed), and says when it cannot', () => {
    const config = parseConfig({ ...BASE, OIDC_CLIENT_SECRET_FILE: '/run/secrets/oidc', OIDC_SCOPES: 'email offline_access' }, (path) => {
      expect(path).to.equal('/run/secrets/oidc');
      return 'from-file\n';
    });
    expect(config.oidc?.clientSecret).to.equal('from-file');
    expect(config.oidc?.scopes).to.deep.equal(['openid', 'email', 'offline_access']);
    const missing = problemOf({ ...BASE, OIDC_CLIENT_SECRET_FILE: '/nope' }, () => {
      throw Object.assign(new Error('no'), { code: 'ENOENT' });
    });
    expect(missing).to.equal('Invalid configuration: OIDC_CLIENT_SECRET_FILE /nope cannot be read (ENOENT)');
  });

  it('refuses what cannot work, each in a sentence', () => {
    expect(problemOf({ ...BASE })).to.include('OIDC_CLIENT_SECRET (or OIDC_CLIENT_SECRET_FILE) must be set with OIDC_ISSUER');
    expect(problemOf({ ...BASE, BASE_URL: '', OIDC_CLIENT_SECRET: 's' })).to.equal(
      'Invalid configuration: OIDC_ISSUER needs BASE_URL: the identity provider sends people back to BASE_URL/settings/oidc/callback, which must be registered with it',
    );
    expect(problemOf({ ...BASE, OIDC_ISSUER: 'http://sso.example.org', OIDC_CLIENT_SECRET: 's' })).to.include(
      'OIDC_ISSUER must be https (plain http only for a provider on this machine',
    );
    expect(problemOf({ ...BASE, OIDC_CLIENT_SECRET: 's', OIDC_CLIENT_SECRET_FILE: '/x' })).to.include(
      'OIDC_CLIENT_SECRET and OIDC_CLIENT_SECRET_FILE are both set: keep one',
    );
    expect(problemOf({ ...BASE, OIDC_CLIENT_SECRET: 's', SETTINGS_PATH: 'off' })).to.include(
      'OIDC_ISSUER needs the sign-in page, but SETTINGS_PATH is off',
    );
    expect(problemOf({ OIDC_ONLY: 'true', OIDC_CLIENT_ID: 'x' })).to.equal(
      'Invalid configuration: OIDC_CLIENT_ID, OIDC_ONLY are set but OIDC_ISSUER is not: set OIDC_ISSUER to sign in with an identity provider, or unset them',
    );
    // A provider on this machine may be plain http.
    expect(parseConfig({ ...BASE, OIDC_ISSUER: 'http://127.0.0.1:8081', OIDC_CLIENT_SECRET: 's' }).oidc?.issuer).to.equal(
      'http://127.0.0.1:8081',
    );
  });
});

describe('the email domains that may join a workspace', () => {
  it('are kept lower case, without @, sorted and once each', () => {
    expect(requireJoinDomains([' Example.ORG', '@sub.example.org', 'example.org', ''])).to.deep.equal(['example.org', 'sub.example.org']);
    expect(requireJoinDomains(['xn--bcher-kva.example'])).to.deep.equal(['xn--bcher-kva.example']);
  });

  it('refuse what is no domain, a mail service anyone can use, and more than 20', () => {
    for (const bad of ['localhost', 'exa mple.org', '*.example.org', 'example', '-a.example.org', 'a@b.org'])
      expect(() => requireJoinDomains([bad]), bad).to.throw(/is not a domain name such as example\.org/);
    expect(() => requireJoinDomains(['gmail.com'])).to.throw(
      "join domains: anyone can have an address at gmail.com; list your organisation's own domain.",
    );
    // Issue 44: the hand-written list missed common ones; the maintained list (email-providers) has them.
    for (const open of ['outlook.de', 'yahoo.de', 't-online.de', 'qq.com', 'hotmail.de', 'mail.ru', '163.com', 'GMX.at'])
      expect(() => requireJoinDomains([open]), open).to.throw(
        `join domains: anyone can have an address at ${open.toLowerCase()}; list your organisation's own domain.`,
      );
    expect(requireJoinDomains(['acme.de', 'northwind.example', 'example.org'])).to.deep.equal([
      'acme.de',
      'example.org',
      'northwind.example',
    ]);
    expect(() => requireJoinDomains(Array.from({ length: 21 }, (_, i) => `d${i}.example.org`))).to.throw(
      'join domains: at most 20 domains.',
    );
  });
});
