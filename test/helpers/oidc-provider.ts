import { createServer, type IncomingMessage, request as httpRequestRaw, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT, decodeJwt } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

/**
 * A real OpenID Provider for the tests: the certified `oidc-provider` package (8.x, the last
 * major that runs on Node 20) on 127.0.0.1 and an ephemeral port, with the test's own clients,
 * users and signing keys. Its development interactions (a login form that takes any password,
 * then a consent form) stand in for the provider's pages.
 *
 * What a misbehaving or changing provider does is the test's to decide: it can rewrite the token
 * endpoint's ID token (re-signed with the provider's own key: another audience, an expired one),
 * publish another key set than the one it signs with, or restart with new keys on the same port.
 */

export interface TestUser {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProviderOptions {
  clients: ClientMetadata[];
  users?: Record<string, TestUser>;
  /** Signing keys, private JWKs with a kid (the first signs); one new RS256 key by default. */
  keys?: JWK[];
  /** Issue refresh tokens to clients allowed the grant (default true). */
  refreshTokens?: boolean;
  /**
   * The host of its issuer (it listens on 127.0.0.1): `localhost` makes it another site than a
   * server at 127.0.0.1, as a provider elsewhere is (a browser then sends only Lax cookies on the way back).
   */
  host?: 'localhost' | '127.0.0.1';
  /** The port to listen on (default: any free one). */
  port?: number;
}

export interface TestProvider {
  issuer: string;
  port: number;
  users: Map<string, TestUser>;
  /** Users the provider no longer lets in (a person who left): refreshes and checks of theirs fail. */
  disabled: Set<string>;
  keys: JWK[];
  /** GET /jwks answered so far. */
  jwksFetches: number;
  /** Rewrites the claims of the ID token the token endpoint answers (re-signed with the first key). */
  rewriteIdToken: ((claims: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Publishes these keys at /jwks instead of the provider's own. */
  publishedKeys: JWK[] | null;
  /** Back-channel logout posts the provider sent, with their answers' status. */
  logoutsSent: Array<{ status: number }>;
  provider: Provider;
  /** A new signing key, private, with a kid. */
  newKey(): Promise<JWK>;
  /** Stops answering (connections refused) until `restart`. */
  stop(): Promise<void>;
  /** Starts again on the same port, with these keys (default: the same). */
  restart(keys?: JWK[]): Promise<void>;
  /** A logout token signed by the provider's first key, for a client (as the provider would post it). */
  logoutToken(clientId: string, claims: Record<string, unknown>, key?: JWK): Promise<string>;
  close(): Promise<void>;
}

export async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `k${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}

const publicOf = (jwk: JWK): JWK => ({ kty: jwk.kty, n: jwk.n, e: jwk.e, kid: jwk.kid, alg: jwk.alg, use: jwk.use }) as JWK;

const PLAIN_PAGE = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

export async function startTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const server: Server = createServer();
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  server.on('request', (req, res) => {
    if (handler === null) {
      res.statusCode = 503;
      res.end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const state: TestProvider = {
    issuer,
    port,
    users: new Map(Object.entries(options.users ?? {})),
    disabled: new Set(),
    keys: options.keys ?? [await newSigningKey()],
    jwksFetches: 0,
    rewriteIdToken: null,
    publishedKeys: null,
    logoutsSent: [],
    provider: null as unknown as Provider,
    newKey: newSigningKey,
    async stop() {
      handler = null;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async restart(keys) {
      if (keys) state.keys = keys;
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      build();
    },
    async logoutToken(clientId, claims, key) {
      const signing = key ?? (state.keys[0] as JWK);
      return new SignJWT({
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
        jti: Math.random().toString(36).slice(2),
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid: signing.kid as string, typ: 'logout+jwt' })
        .setIssuer(issuer)
        .setAudience(clientId)
        .setIssuedAt()
        .setExpirationTime('2m')
        .sign(await importJWK(signing, 'RS256'));
    },
    close: async () => {
      if (server.listening) await state.stop();
    },
  };

  function build(): void {
    const provider = new Provider(issuer, {
      clients: options.clients,
      jwks: { keys: state.keys },
      cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
      ttl: { Interaction: 3600, Session: 86_400, Grant: 86_400, AccessToken: 3600, RefreshToken: 86_400, IdToken: 3600 },
      findAccount: (_ctx, sub) => {
        const user = state.users.get(sub);
        if (user === undefined || state.disabled.has(sub)) return undefined;
        return { accountId: sub, claims: () => ({ sub, ...user }) };
      },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      features: {
        devInteractions: { enabled: true },
        backchannelLogout: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: (ctx, form) => {
            ctx.body = PLAIN_PAGE(
              'Sign out',
              `${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>`,
            );
          },
          postLogoutSuccessSource: (ctx) => {
            ctx.body = PLAIN_PAGE('Signed out', '');
          },
        },
      },
      pkce: { methods: ['S256'], required: () => true },
      issueRefreshToken: (_ctx, client) => (options.refreshTokens ?? true) && client.grantTypeAllowed('refresh_token'),
      renderError: (ctx, out) => {
        ctx.type = 'html';
        ctx.body = PLAIN_PAGE('Error', `<pre>${String(out.error)}: ${String(out.error_description ?? '')}</pre>`);
      },
    });
    // Silence the provider's development warnings about its own pages.
    provider.on('server_error', () => undefined);
    provider.use(async (ctx, next) => {
      if (ctx.path === '/jwks') {
        state.jwksFetches += 1;
        if (state.publishedKeys !== null) {
          ctx.type = 'application/jwk-set+json';
          ctx.body = { keys: state.publishedKeys.map(publicOf) };
          return;
        }
      }
      await next();
      if (ctx.path === '/token' && state.rewriteIdToken !== null && ctx.status === 200) {
        const body = ctx.body as Record<string, unknown>;
        if (typeof body.id_token === 'string') {
          const claims = state.rewriteIdToken(decodeJwt(body.id_token) as Record<string, unknown>);
          const key = state.keys[0] as JWK;
          body.id_token = await new SignJWT(claims)
            .setProtectedHeader({ alg: 'RS256', kid: key.kid as string })
            .sign(await importJWK(key, 'RS256'));
        }
      }
    });
    provider.on('backchannel.success', () => state.logoutsSent.push({ status: 200 }));
    provider.on('backchannel.error', () => state.logoutsSent.push({ status: 0 }));
    state.provider = provider;
    const callback = provider.callback();
    handler = (req, res) => void callback(req, res);
  }
  build();
  return state;
}

/** The test client's registration, for a timetrack server at `base` (BASE_URL). */
export function timetrackClient(base: string, overrides: Partial<ClientMetadata> = {}): ClientMetadata {
  return {
    client_id: 'timetrack',
    client_secret: 'timetrack-test-secret',
    redirect_uris: [`${base}/settings/oidc/callback`],
    post_logout_redirect_uris: [`${base}/settings/sign-in`],
    backchannel_logout_uri: `${base}/settings/oidc/backchannel-logout`,
    backchannel_logout_session_required: true,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...overrides,
  };
}

/** A port free on 127.0.0.1 now (the server's BASE_URL must be known before the provider registers it). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * One request by node:http (fetch would replace a navigation's `Sec-Fetch-Mode: navigate` with
 * `cors`), as a Response; redirects are not followed.
 */
function httpRequest(url: string, method: string, headers: Record<string, string>, body: string | null): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequestRaw(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(name, item);
        const status = res.statusCode ?? 0;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: out }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/**
 * A browser without a browser, for the HTTP tests: cookies by host (every path), redirects
 * followed by hand, forms posted. Enough to walk the provider's login and consent forms.
 */
export class CookieBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  cookie(url: string, name: string): string | undefined {
    return this.jars.get(new URL(url).host)?.get(name);
  }

  setCookie(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    if (!this.jars.has(host)) this.jars.set(host, new Map());
    (this.jars.get(host) as Map<string, string>).set(name, value);
  }

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const host = new URL(url).host;
    const jar = this.jars.get(host) ?? new Map<string, string>();
    this.jars.set(host, jar);
    const headers: Record<string, string> = { accept: 'text/html', ...init.headers };
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await httpRequest(
      url,
      init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      init.form ? new URLSearchParams(init.form).toString() : null,
    );
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair as string).indexOf('=');
      const name = (pair as string).slice(0, eq).trim();
      const value = (pair as string).slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  /** Follows redirects from `url` until one leaves for `stopAt` (returned, not followed) or a page answers. */
  async follow(url: string, stopAt: string): Promise<{ url: string; response: Response | null }> {
    let current = url;
    for (let hops = 0; hops < 20; hops += 1) {
      if (current.startsWith(stopAt)) return { url: current, response: null };
      const response = await this.request(current);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        current = new URL(location, current).toString();
        continue;
      }
      return { url: current, response };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /**
   * At the provider, from the authorization address: signs in as `login` (any password), gives
   * consent, and returns the address the provider sends the browser back to (not followed).
   */
  async authorize(authorizationUrl: string, login: string, stopAt: string): Promise<string> {
    let at = await this.follow(authorizationUrl, stopAt);
    for (let step = 0; step < 4 && at.response !== null; step += 1) {
      const page = await at.response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1];
      if (!action || !prompt) throw new Error(`the provider showed no form at ${at.url}: ${page.slice(0, 400)}`);
      const posted = await this.request(new URL(action, at.url).toString(), {
        form: prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt },
      });
      const location = posted.headers.get('location');
      if (!location) throw new Error(`the provider's ${prompt} form answered ${posted.status}`);
      at = await this.follow(new URL(location, at.url).toString(), stopAt);
    }
    if (at.response !== null) throw new Error(`the provider did not send the browser back: ${at.url} ${at.response.status}`);
    return at.url;
  }
}
