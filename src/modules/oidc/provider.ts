import type * as Client from 'openid-client';
import type { JSONWebKeySet } from 'jose';
import type { Clock } from '../../clock.js';
import { isLoopbackHost, type OidcSettings } from './settings.js';

/*
 * openid-client and jose (some 70 files) load with the first call to the provider: the services
 * are also built by every reader thread and command, which never speak to it (issue 46, item 10).
 * Every call starts with discovery or a logout token's check, which load them first.
 */
let client: typeof Client;
let jose: typeof import('jose');
async function loadLibraries(): Promise<void> {
  client ??= await import('openid-client');
  jose ??= await import('jose');
}

/** The provider could not be reached (down, a timeout, a 5xx answer): an outage, which passes. */
export class ProviderUnreachable extends Error {
  override name = 'ProviderUnreachable';
}

/** The provider's discovery document does not fit this server's settings (issuer, endpoints, methods): it never fixes itself. */
export class ProviderMisconfigured extends Error {
  override name = 'ProviderMisconfigured';
}

/**
 * A sign-in, refresh or logout token that failed a check, or an answer of the provider that
 * refuses (`invalid_grant`, `login_required`): `reason` names the check for the log (it never
 * holds a token); `error` is the provider's OAuth error code when it gave one.
 */
export class ProviderRefused extends Error {
  override name = 'ProviderRefused';
  constructor(
    readonly reason: string,
    readonly error: string | null = null,
  ) {
    super(reason);
  }
}

/** What a completed sign-in brought back: the ID token's claims (checked) and the refresh token, if any. */
export interface SignedInAtProvider {
  claims: IdClaims;
  refreshToken: string | null;
}

/** The ID token claims this server reads. */
export interface IdClaims {
  sub: string;
  email: string | null;
  /** `email_verified`, or Entra ID's `xms_edov` (the email's domain is verified by its owner). */
  emailVerified: boolean;
  name: string | null;
  /** The provider's session id (back-channel logout names it), when it sends one. */
  sid: string | null;
}

/** A logout token's subject: the provider's session id, its user, or both. */
export interface LogoutSubject {
  sub: string | null;
  sid: string | null;
  jti: string;
  /** When the token stops being valid (ms, the server's clock): a jti is remembered until then. */
  expiresAt: number;
}

/** What `timetrack oidc test` learns of the provider. */
export interface ProviderReport {
  endSession: boolean;
  backchannelLogout: boolean;
  refreshTokens: boolean;
  problems: string[];
  notes: string[];
}

/** openid-client's own limits, followed here with the server's clock: a key set is read again after 5 minutes, an unknown `kid` after 1. */
const JWKS_MAX_AGE_SEC = 300;
const JWKS_UNKNOWN_KID_AFTER_SEC = 60;
const DISCOVERY_TIMEOUT_SEC = 5;
const TOKEN_TIMEOUT_SEC = 10;
/** Tolerated difference between the provider's clock and this server's. */
const CLOCK_TOLERANCE_SEC = 30;
const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token older than this (by its `iat`) is refused: it is meant to arrive at once. */
const LOGOUT_TOKEN_MAX_AGE_SEC = 300;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
]);

/** The code of a failed fetch's cause (`ECONNREFUSED`, `CERT_HAS_EXPIRED` …), when there is one. */
function causeCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('OAUTH_')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/** The HTTP status of an answer an error carries (a non-conforming discovery or token answer). */
function statusOf(error: unknown): number | null {
  if (client !== undefined && error instanceof client.ResponseBodyError) return error.status;
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Response ? cause.status : null;
}

/** Whether a failed call to the provider is an outage (no answer, a timeout, a 5xx) rather than a refusal. */
export function isOutage(error: unknown): boolean {
  if (error instanceof ProviderUnreachable) return true;
  const code = (error as { code?: unknown }).code;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') return true;
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    const cause = causeCode(error);
    return cause === null || NETWORK_CODES.has(cause);
  }
  const status = statusOf(error);
  return status !== null && status >= 500;
}

/** A refusal's words for the log: the OAuth error and its description, or the check that failed (never a token). */
function reasonOf(error: unknown): ProviderRefused {
  if (error instanceof ProviderRefused) return error;
  if (client !== undefined && (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError))
    return new ProviderRefused(`${error.error}${error.error_description ? `: ${error.error_description}` : ''}`, error.error);
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const detail = (error as { cause?: { message?: unknown; claim?: unknown } }).cause;
  const more = detail && typeof detail === 'object' && typeof detail.message === 'string' ? ` (${detail.message})` : '';
  return new ProviderRefused(`${typeof code === 'string' ? `${code}: ` : ''}${message}${more}`);
}

/**
 * The provider as this server holds it: the discovered metadata, how the client authenticates,
 * the provider's key set with the time it was fetched, and one configuration per call.
 *
 * Time: openid-client reads the system's clock; this server reads its own (`Clock`, which tests
 * move). Each call gets a configuration whose clock skew is the difference, and the provider's key
 * set is kept here with the time it was fetched by that clock (handed to openid-client's cache and
 * read back), so a key's age, a token's expiry and a logout token's age all follow the one clock.
 */
function createProviderCore(settings: OidcSettings, clock: Clock) {
  const issuerUrl = new URL(settings.issuer);
  const insecure = issuerUrl.protocol === 'http:' && isLoopbackHost(issuerUrl.hostname);
  const held = {
    metadata: null as Client.ServerMetadata | null,
    /** Set by discovery, which every call waits for (the provider's methods decide basic or post). */
    auth: null as Client.ClientAuth | null,
    /** The provider's keys and when they were fetched (the server's clock, ms). */
    keys: null as { jwks: JSONWebKeySet; fetchedAt: number } | null,
    /** Fetches of the key set (the tests count them). */
    keyFetches: 0,
  };
  const epochSec = () => Math.floor(Date.now() / 1000);
  const keyAgeSec = () => (held.keys === null ? Number.POSITIVE_INFINITY : (clock.now() - held.keys.fetchedAt) / 1000);
  const metadata = (): Client.ServerMetadata => {
    if (held.metadata === null) throw new ProviderUnreachable(`${settings.name} has not answered yet`);
    return held.metadata;
  };

  /** A configuration for one call: the discovered metadata, the clock's skew, the key set as old as it is by the server's clock. */
  function configuration(): { config: Client.Configuration; suppliedUat: number | null } {
    const server = metadata(); // before discovery: ProviderUnreachable (the libraries load with discovery)
    const config = new client.Configuration(
      server,
      settings.clientId,
      {
        client_secret: settings.clientSecret,
        [client.clockSkew]: Math.round((clock.now() - Date.now()) / 1000),
        [client.clockTolerance]: CLOCK_TOLERANCE_SEC,
      },
      held.auth ?? client.ClientSecretBasic(settings.clientSecret),
    );
    if (insecure) client.allowInsecureRequests(config);
    // Without it openid-client trusts the token endpoint's TLS alone; the ID token's signature is checked too.
    client.enableNonRepudiationChecks(config);
    config.timeout = TOKEN_TIMEOUT_SEC;
    let suppliedUat: number | null = null;
    if (held.keys !== null && keyAgeSec() < JWKS_MAX_AGE_SEC) {
      suppliedUat = epochSec() - Math.floor(keyAgeSec());
      client.setJwksCache(config, { jwks: held.keys.jwks as never, uat: suppliedUat });
    }
    return { config, suppliedUat };
  }

  /** After a call: a key set openid-client fetched afresh becomes ours, fetched now. */
  function keepKeys(config: Client.Configuration, suppliedUat: number | null): void {
    const cache = client.getJwksCache(config);
    if (cache?.jwks && cache.uat !== suppliedUat) {
      held.keys = { jwks: cache.jwks as unknown as JSONWebKeySet, fetchedAt: clock.now() };
      held.keyFetches += 1;
    }
  }

  return {
    settings,
    clock,
    insecure,
    issuerUrl,
    held,
    metadata,
    configuration,

    /** Runs one call with a fresh configuration; an outage becomes ProviderUnreachable, anything else a ProviderRefused. */
    async call<T>(body: (config: Client.Configuration) => Promise<T>): Promise<T> {
      const { config, suppliedUat } = configuration();
      try {
        return await body(config);
      } catch (error) {
        if (isOutage(error))
          throw new ProviderUnreachable(`${settings.name} did not answer (${causeCode(error) ?? (error as Error).message})`);
        throw reasonOf(error);
      } finally {
        keepKeys(config, suppliedUat);
      }
    },

    /** The key set for a token's `kid`: the kept one, fetched again when it is 5 minutes old or lacks the kid and is a minute old. */
    async keysFor(kid: string | undefined): Promise<JSONWebKeySet> {
      const keys = held.keys;
      const known = keys?.jwks.keys.some((k) => kid === undefined || k.kid === kid) ?? false;
      if (keys !== null && keyAgeSec() < JWKS_MAX_AGE_SEC && (known || keyAgeSec() < JWKS_UNKNOWN_KID_AFTER_SEC)) return keys.jwks;
      const uri = metadata().jwks_uri as string;
      let response: Response;
      try {
        response = await fetch(uri, {
          headers: { accept: 'application/json' },
          redirect: 'manual',
          signal: AbortSignal.timeout(TOKEN_TIMEOUT_SEC * 1000),
        });
      } catch (error) {
        throw new ProviderUnreachable(`the key set at ${uri} could not be fetched (${causeCode(error) ?? (error as Error).message})`);
      }
      if (response.status >= 500) throw new ProviderUnreachable(`the key set at ${uri} answered ${response.status}`);
      const body = (await response.json().catch(() => null)) as JSONWebKeySet | null;
      if (!response.ok || body === null || !Array.isArray(body.keys))
        throw new ProviderRefused(`the key set at ${uri} answered ${response.status} without keys`);
      held.keys = { jwks: body, fetchedAt: clock.now() };
      held.keyFetches += 1;
      return body;
    },
  };
}

type ProviderCore = ReturnType<typeof createProviderCore>;

/** The ID token claims this server reads, from a token's (or UserInfo's) claims. */
function claimsOf(raw: Client.IDToken | undefined): IdClaims {
  if (raw === undefined) throw new ProviderRefused('the token answer held no ID token');
  const text = (name: string) =>
    typeof raw[name] === 'string' && (raw[name] as string).trim() !== '' ? (raw[name] as string).trim() : null;
  return {
    sub: raw.sub,
    email: text('email'),
    emailVerified: raw.email_verified === true || raw.email_verified === 'true' || raw.xms_edov === true,
    name: text('name') ?? ([text('given_name'), text('family_name')].filter((s) => s !== null).join(' ') || text('preferred_username')),
    sid: text('sid'),
  };
}

/** Fetches and checks the discovery document; a misfit throws ProviderMisconfigured, an outage ProviderUnreachable. */
async function discover(core: ProviderCore): Promise<Client.ServerMetadata> {
  const { settings } = core;
  await loadLibraries();
  let found: Client.Configuration;
  try {
    found = await client.discovery(core.issuerUrl, settings.clientId, settings.clientSecret, undefined, {
      timeout: DISCOVERY_TIMEOUT_SEC,
      ...(core.insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw discoveryError(error, settings);
  }
  const server = found.serverMetadata();
  const problems = metadataProblems(server, settings, core.insecure);
  if (problems.length > 0) throw new ProviderMisconfigured(problems.join(' '));
  const methods = server.token_endpoint_auth_methods_supported;
  core.held.auth =
    methods === undefined || methods.includes('client_secret_basic')
      ? client.ClientSecretBasic(settings.clientSecret)
      : client.ClientSecretPost(settings.clientSecret);
  core.held.metadata = server;
  return server;
}

/** The callback's code for tokens, every check made (state, PKCE, nonce; the ID token's issuer, audience, expiry and signature). */
function exchange(
  core: ProviderCore,
  callback: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<SignedInAtProvider> {
  return core.call(async (config) => {
    const tokens = await client.authorizationCodeGrant(config, callback, {
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: true,
    });
    const claims = claimsOf(tokens.claims());
    // A provider that follows the specification strictly puts the email in UserInfo only (the
    // code flow issues an access token): asked there, for the same sub, when the ID token lacks it.
    if ((claims.email === null || !claims.emailVerified) && core.metadata().userinfo_endpoint !== undefined) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      const extra = claimsOf({ ...info, iss: '', aud: '', iat: 0, exp: 0 } as Client.IDToken);
      if (claims.email === null) Object.assign(claims, { email: extra.email, emailVerified: extra.emailVerified });
      else if (extra.email !== null && extra.email.toLowerCase() === claims.email.toLowerCase()) claims.emailVerified = extra.emailVerified;
      claims.name ??= extra.name;
    }
    return { claims, refreshToken: tokens.refresh_token ?? null };
  });
}

/**
 * A back-channel logout token checked as the specification says (OpenID Connect Back-Channel
 * Logout 1.0, 2.6): signed by the provider's keys with an algorithm it announces, this issuer,
 * this client as audience, issued within the last minutes and not expired, the logout event,
 * a `sub` or `sid`, a `jti`, and no `nonce`.
 */
async function verifyLogoutToken(core: ProviderCore, token: string): Promise<LogoutSubject> {
  const metadata = core.metadata();
  await loadLibraries();
  let header: { kid?: string; alg?: string; typ?: string };
  try {
    header = jose.decodeProtectedHeader(token);
  } catch {
    throw new ProviderRefused('the logout token is not a JWT');
  }
  if (header.typ !== undefined && header.typ.toLowerCase() !== 'logout+jwt' && header.typ.toUpperCase() !== 'JWT')
    throw new ProviderRefused(`the logout token's typ is ${header.typ}`);
  const algorithms = (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter((a) => !a.startsWith('HS') && a !== 'none');
  const jwks = await core.keysFor(header.kid);
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jose.jwtVerify(token, jose.createLocalJWKSet(jwks), {
      issuer: metadata.issuer,
      audience: core.settings.clientId,
      algorithms,
      currentDate: new Date(core.clock.now()),
      clockTolerance: CLOCK_TOLERANCE_SEC,
      maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SEC,
      requiredClaims: ['iat', 'jti', 'events'],
    }));
  } catch (error) {
    throw new ProviderRefused(
      `the logout token failed a check: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}`.trim(),
    );
  }
  const events = payload.events as Record<string, unknown> | undefined;
  if (typeof events !== 'object' || events === null || typeof events[LOGOUT_EVENT] !== 'object')
    throw new ProviderRefused('the logout token carries no back-channel logout event');
  if (payload.nonce !== undefined) throw new ProviderRefused('the logout token carries a nonce (an ID token is not a logout token)');
  const sub = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : null;
  const sid = typeof payload.sid === 'string' && payload.sid !== '' ? payload.sid : null;
  if (sub === null && sid === null) throw new ProviderRefused('the logout token names neither sub nor sid');
  const iat = payload.iat as number;
  const exp = typeof payload.exp === 'number' ? payload.exp : iat + LOGOUT_TOKEN_MAX_AGE_SEC;
  return { sub, sid, jti: String(payload.jti), expiresAt: (exp + CLOCK_TOLERANCE_SEC) * 1000 };
}

/** `timetrack oidc test`: the discovery document against this server's settings, and the client's id and secret at the token endpoint. */
async function report(core: ProviderCore): Promise<ProviderReport> {
  const { settings } = core;
  const server = await discover(core);
  const notes: string[] = [];
  const problems: string[] = [];
  const scopes = server.scopes_supported;
  const missing = scopes === undefined ? [] : settings.scopes.filter((s) => !scopes.includes(s));
  if (missing.length > 0)
    problems.push(
      `${settings.name} does not offer the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (OIDC_SCOPES); it offers ${scopes?.join(' ')}.`,
    );
  const claims = server.claims_supported;
  if (claims !== undefined && !claims.includes('email'))
    problems.push(
      `${settings.name} does not list the email claim: timetrack matches people by their verified email; release the email claim to this client.`,
    );
  if (claims !== undefined && !claims.includes('email_verified') && !claims.includes('xms_edov'))
    notes.push(
      `${settings.name} does not list email_verified among its claims: a first sign-in is refused unless it says the email is verified.`,
    );
  problems.push(...(await credentialProblems(core)));
  if (server.end_session_endpoint === undefined)
    notes.push(`${settings.name} offers no end_session_endpoint: signing out here does not sign out there.`);
  if (server.backchannel_logout_supported !== true)
    notes.push(
      `${settings.name} does not announce back-channel logout: a sign-out there reaches this server only at the next check (at most 15 minutes).`,
    );
  return {
    endSession: server.end_session_endpoint !== undefined,
    backchannelLogout: server.backchannel_logout_supported === true,
    refreshTokens: (server.grant_types_supported ?? ['authorization_code', 'refresh_token']).includes('refresh_token'),
    problems,
    notes,
  };
}

/**
 * The client's id and secret, tried at the token endpoint with a code that cannot be valid: a
 * provider that accepts them answers invalid_grant; one that does not, invalid_client.
 */
async function credentialProblems(core: ProviderCore): Promise<string[]> {
  const { settings } = core;
  const { config } = core.configuration();
  try {
    await client.genericGrantRequest(config, 'authorization_code', {
      code: `timetrack-oidc-test-${Date.now()}`,
      redirect_uri: settings.redirectUri,
      code_verifier: client.randomPKCECodeVerifier(),
    });
    return [`${settings.name} accepted a made-up authorization code: it is not checking codes.`];
  } catch (error) {
    if (isOutage(error)) throw new ProviderUnreachable(`${settings.name}'s token endpoint did not answer`);
    const code = error instanceof client.ResponseBodyError ? error.error : null;
    // A 401 may come as a body (invalid_client) or as a WWW-Authenticate challenge.
    const status = error instanceof client.ResponseBodyError || error instanceof client.WWWAuthenticateChallengeError ? error.status : null;
    if (code === 'invalid_client' || status === 401)
      return [
        `${settings.name} refused the client id and secret (invalid_client): check OIDC_CLIENT_ID and OIDC_CLIENT_SECRET against the client registered there.`,
      ];
    if (code === 'unauthorized_client')
      return [`${settings.name} does not let this client use the authorization code flow (unauthorized_client): enable it for the client.`];
    if (code !== 'invalid_grant' && code !== 'invalid_request')
      return [`${settings.name}'s token endpoint answered ${code ?? (error as Error).message} to a test of the client's credentials.`];
    return [];
  }
}

/**
 * The one client of the identity provider, through openid-client (a certified relying-party
 * library: authorization code flow with PKCE, state and nonce; the ID token's issuer, audience,
 * expiry and signature by the provider's published keys). Discovery once, then every call.
 */
export function createProviderClient(settings: OidcSettings, clock: Clock) {
  const core = createProviderCore(settings, clock);
  return {
    settings,
    discover: () => discover(core),
    /** Whether discovery has succeeded. */
    discovered: (): boolean => core.held.metadata !== null,
    /** Fetches of the provider's key set so far. */
    keyFetches: (): number => core.held.keyFetches,
    /** A quick look at the discovery document (is the provider up?). */
    async probe(timeoutMs: number): Promise<boolean> {
      const url = new URL(`${settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
      try {
        const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
        await response.body?.cancel();
        return response.status < 500;
      } catch {
        return false;
      }
    },

    /** The address that sends the browser to the provider: code flow, PKCE (S256), state and nonce; `prompt=none` for a silent check. */
    authorizationUrl(input: { state: string; nonce: string; codeVerifierChallenge: string; silent: boolean }): string {
      // The configuration first: before discovery it throws ProviderUnreachable (and the libraries are not loaded yet).
      const { config } = core.configuration();
      return client
        .buildAuthorizationUrl(config, {
          redirect_uri: settings.redirectUri,
          scope: settings.scopes.join(' '),
          response_type: 'code',
          state: input.state,
          nonce: input.nonce,
          code_challenge: input.codeVerifierChallenge,
          code_challenge_method: 'S256',
          ...(input.silent ? { prompt: 'none' } : {}),
        })
        .toString();
    },

    exchange: (callback: URL, checks: { state: string; nonce: string; codeVerifier: string }) => exchange(core, callback, checks),

    /** A refresh: the provider still holds the session. A new ID token, when one comes, must name the same `sub`. */
    refresh(refreshToken: string, subject: string): Promise<{ refreshToken: string | null }> {
      return core.call(async (config) => {
        const tokens = await client.refreshTokenGrant(config, refreshToken);
        const claims = tokens.claims();
        if (claims !== undefined && claims.sub !== subject) throw new ProviderRefused('the refreshed ID token names another sub');
        return { refreshToken: tokens.refresh_token ?? null };
      });
    },

    /** The provider's sign-out address (RP-initiated logout) when it offers one, returning to the sign-in page. */
    endSessionUrl(): string | null {
      if (core.held.metadata?.end_session_endpoint === undefined) return null;
      const { config } = core.configuration();
      return client
        .buildEndSessionUrl(config, {
          client_id: settings.clientId,
          post_logout_redirect_uri: settings.postLogoutRedirectUri,
        })
        .toString();
    },

    verifyLogoutToken: (token: string) => verifyLogoutToken(core, token),
    report: () => report(core),
  };
}

export type ProviderClient = ReturnType<typeof createProviderClient>;

/** A failed discovery in a sentence: an outage (start anyway) or a misfit (stop). */
function discoveryError(error: unknown, settings: OidcSettings): ProviderUnreachable | ProviderMisconfigured {
  const where = `${settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const code = causeCode(error);
  if (code === 'ENOTFOUND')
    return new ProviderMisconfigured(
      `OIDC_ISSUER's host ${new URL(settings.issuer).hostname} does not resolve to an address: check OIDC_ISSUER.`,
    );
  if (code !== null && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code))
    return new ProviderMisconfigured(
      `${where} presented a certificate this server does not trust (${code}): use a trusted certificate, or give Node the provider's CA with NODE_EXTRA_CA_CERTS.`,
    );
  if (isOutage(error)) return new ProviderUnreachable(`${where} did not answer (${code ?? statusOf(error) ?? (error as Error).message}).`);
  const errorCode = (error as { code?: unknown }).code;
  if (errorCode === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') {
    const found = ((error as { cause?: { body?: { issuer?: unknown } } }).cause?.body?.issuer as string | undefined) ?? '(none)';
    return new ProviderMisconfigured(
      `the provider at ${where} calls itself ${found}, not ${settings.issuer}: set OIDC_ISSUER to exactly ${found}.`,
    );
  }
  const status = statusOf(error);
  if (status !== null)
    return new ProviderMisconfigured(
      `${where} answered ${status}, not a discovery document: OIDC_ISSUER must be the issuer (for Keycloak https://HOST/realms/REALM, for Authentik https://HOST/application/o/SLUG/).`,
    );
  return new ProviderMisconfigured(`${where} is not a usable discovery document (${(error as Error).message}).`);
}

/** What this server needs of the provider and does not find in its discovery document. */
function metadataProblems(server: Client.ServerMetadata, settings: OidcSettings, insecure: boolean): string[] {
  const problems: string[] = [];
  for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    const value = server[name];
    if (typeof value !== 'string') problems.push(`Its discovery document names no ${name}.`);
    else if (!value.startsWith('https:') && !(insecure && value.startsWith('http:'))) problems.push(`Its ${name} ${value} is not https.`);
  }
  if (server.response_types_supported !== undefined && !server.response_types_supported.includes('code'))
    problems.push('It does not offer the authorization code flow (response type code).');
  if (server.code_challenge_methods_supported !== undefined && !server.code_challenge_methods_supported.includes('S256'))
    problems.push('It does not offer PKCE with S256.');
  const methods = server.token_endpoint_auth_methods_supported;
  if (methods !== undefined && !methods.includes('client_secret_basic') && !methods.includes('client_secret_post'))
    problems.push(
      `It authenticates clients by ${methods.join(', ')} only; timetrack sends a client secret (client_secret_basic or client_secret_post).`,
    );
  const algs = server.id_token_signing_alg_values_supported;
  if (algs !== undefined && !algs.some((a) => !a.startsWith('HS') && a !== 'none'))
    problems.push(
      `It signs ID tokens with ${algs.join(', ')} only; timetrack checks signatures with the provider's published keys (RS256, ES256 …).`,
    );
  return problems.map((p) => `${settings.name} (${settings.issuer}): ${p}`);
}
