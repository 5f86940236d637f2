/** OIDC_*: sign-in with the organisation's identity provider, parsed once (src/config.ts). */
export interface OidcSettings {
  /** OIDC_ISSUER as written (compared with the discovery document's `issuer`). */
  issuer: string;
  clientId: string;
  /** OIDC_CLIENT_SECRET, or the contents of OIDC_CLIENT_SECRET_FILE. */
  clientSecret: string;
  /** OIDC_NAME: "Sign in with <name>"; the issuer's host by default. */
  name: string;
  /** OIDC_ONLY: no password sign-in, except for break-glass accounts. */
  only: boolean;
  /** OIDC_SCOPES (always with openid). */
  scopes: string[];
  /** BASE_URL + SETTINGS_PATH + /oidc/callback: where the provider sends people back. */
  redirectUri: string;
  /** BASE_URL + SETTINGS_PATH + /sign-in: where the provider's sign-out returns to. */
  postLogoutRedirectUri: string;
  /** BASE_URL + SETTINGS_PATH + /oidc/backchannel-logout: where the provider posts logout tokens. */
  backchannelLogoutUri: string;
}

/** Paths under SETTINGS_PATH of the routes the provider reaches. */
export const OIDC_CALLBACK_PATH = '/oidc/callback';
export const OIDC_BACKCHANNEL_PATH = '/oidc/backchannel-logout';

/** Hosts over which the issuer may be plain http (a provider on the same machine, as in tests). */
export const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
