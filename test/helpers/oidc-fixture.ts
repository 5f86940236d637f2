import { expect } from 'chai';
import type { ClientMetadata } from 'oidc-provider';
import {
  CookieBrowser,
  freePort,
  startTestProvider,
  timetrackClient,
  type TestProvider,
  type TestProviderOptions,
} from './oidc-provider.js';
import { startTestServer, type TestServer } from './server.js';

/** A timetrack server signed in to through a test provider (both on 127.0.0.1). */
export interface OidcFixture {
  provider: TestProvider;
  server: TestServer;
  /** The server's sign-in page path and callback address. */
  callback: string;
  close(): Promise<void>;
}

export const PROVIDER_NAME = 'Company SSO';

/**
 * A provider with its users and the timetrack client, and a server configured for it (real clock:
 * the provider signs with it). `client` changes the client's registration, `env` the server's.
 */
export async function oidcFixture(
  options: { users?: TestProviderOptions['users']; client?: Partial<ClientMetadata>; env?: Record<string, string> } & Omit<
    TestProviderOptions,
    'clients' | 'users'
  > = {},
): Promise<OidcFixture> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const provider = await startTestProvider({ ...options, clients: [timetrackClient(base, options.client)], users: options.users ?? {} });
  const server = await startTestServer({ now: Date.now(), env: { ...oidcEnv(port, provider.issuer), ...options.env } });
  return {
    provider,
    server,
    callback: `${server.url}/settings/oidc/callback`,
    async close() {
      await server.close();
      await provider.close();
    },
  };
}

/** The settings of a server at 127.0.0.1:port signing in through the issuer. */
export const oidcEnv = (port: number, issuer: string): Record<string, string> => ({
  PORT: String(port),
  BASE_URL: `http://127.0.0.1:${port}`,
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: 'timetrack',
  OIDC_CLIENT_SECRET: 'timetrack-test-secret',
  OIDC_NAME: PROVIDER_NAME,
});

/** The way out and through the provider's forms: the address the provider sends the browser back to, and the state cookie it will carry. */
export async function throughProvider(
  fixture: OidcFixture,
  login: string,
  browser = new CookieBrowser(),
  next?: string,
): Promise<{ browser: CookieBrowser; callback: string; stateCookie: string }> {
  const start = await browser.request(`${fixture.server.url}/settings/oidc/start${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  expect(start.status, await start.text()).to.equal(303);
  const stateCookie = browser.cookie(fixture.server.url, 'tt_oidc') as string;
  expect(stateCookie, 'the state cookie').to.be.a('string');
  const callback = await browser.authorize(start.headers.get('location') as string, login, fixture.callback);
  return { browser, callback, stateCookie };
}

/** The way back: the callback's answer (status and page). */
export async function back(browser: CookieBrowser, callback: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await browser.request(callback);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Signs in through the provider; ends signed in (the page between the sites answered). */
export async function signedIn(fixture: OidcFixture, login: string, browser = new CookieBrowser()): Promise<CookieBrowser> {
  const out = await throughProvider(fixture, login, browser);
  const done = await back(out.browser, out.callback);
  expect(done.status, done.text).to.equal(200);
  expect(done.text).to.include('<meta http-equiv="refresh" content="0;url=/app/week" />');
  expect(out.browser.cookie(fixture.server.url, 'tt_session'), 'a session cookie').to.be.a('string');
  return out.browser;
}

/** A page of the app as a browser navigates to it: its status and where a redirect goes. */
export async function visit(fixture: OidcFixture, browser: CookieBrowser, path: string) {
  const response = await browser.request(`${fixture.server.url}${path}`, { headers: { 'sec-fetch-mode': 'navigate' } });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

/** The notice of a page, as text. */
export const noticeOf = (page: string): string =>
  (/<div class="notice[^"]*"[^>]*>([\s\S]*?)<\/div>/.exec(page)?.[1] ?? '')
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** Rows of a table of the server's database (what was, or was not, written). */
export const rows = (server: TestServer, sql: string): unknown[] => server.running.database.sqlite.prepare(sql).all();
