import { DomainError } from '../../errors.js';
import { isOperator, type Principal } from '../../principal.js';
import { createProviderSessions } from './checks.js';
import { createOidcContext, type OidcDeps } from './context.js';
import { type IdClaims, ProviderMisconfigured, type ProviderReport, ProviderUnreachable } from './provider.js';
import { admit, begin, complete } from './sign-in.js';

export { OIDC_CHECK_MS } from './checks.js';
export type { OidcAccounts, OidcDeps, OidcSessions } from './context.js';
export { OidcRefusal } from './errors.js';
export { ProviderMisconfigured, ProviderRefused, ProviderUnreachable } from './provider.js';
export type { OidcSettings } from './settings.js';
export { OIDC_BACKCHANNEL_PATH, OIDC_CALLBACK_PATH } from './settings.js';
export { type Completion, OIDC_STATE_MS } from './sign-in.js';

/** What `timetrack oidc test` prints. */
export type OidcTestReport = {
  issuer: string;
  ok: boolean;
  problems: string[];
  notes: string[];
  redirectUri: string;
  postLogoutRedirectUri: string;
  backchannelLogoutUri: string;
} & Partial<Pick<ProviderReport, 'endSession' | 'backchannelLogout' | 'refreshTokens'>>;

/**
 * Sign-in through the organisation's identity provider (OpenID Connect): who may come in (the
 * account bound to the provider's `sub`, else the one holding its verified email, else a new
 * member of the workspaces that let the email's domain join), sessions that last no longer than
 * the provider's (a refresh or a silent check every 15 minutes, back-channel logout at once), and
 * the provider's sign-out. A session is a sessions-module session with a row here beside it.
 */
export function createOidcService(deps: OidcDeps) {
  const ctx = createOidcContext(deps);
  const { provider, settings } = deps;

  return {
    /** Whether sign-in through a provider is set up (OIDC_ISSUER). */
    enabled: settings !== null,
    /** OIDC_NAME: "Sign in with …". */
    name: ctx.name,
    /** OIDC_ONLY: the password form only for break-glass accounts. */
    only: settings?.only ?? false,

    /**
     * At the server's start: discovery. A provider that does not fit the settings stops the start
     * (ProviderMisconfigured, in a sentence); one that does not answer lets the server start with
     * sign-in through it unavailable until it does (looked at again when someone wants it).
     */
    async start(): Promise<{ available: boolean }> {
      if (provider === null) return { available: false };
      await ctx.discover();
      return { available: ctx.seen.ok };
    },

    /** Whether "Sign in with …" can be offered now (the provider looked at again when the last look is 30 s old). */
    available: () => ctx.available(),

    /** The way out to the provider (./sign-in.ts): its address and the sealed state cookie. */
    begin: (input: { next: string | null; checkSessionSecret?: string; join?: { userId: string; invitationId: string } }) =>
      begin(ctx, input),
    /** The way back from the provider (./sign-in.ts): every check, then who may come in. */
    complete: (input: { query: string; cookie: string | null }) => complete(ctx, input),
    /** Who a provider's user is here, and a session for them (the sql tour and the services' tests call it without a provider). */
    admit: (claims: IdClaims, refreshToken: string | null = null) => admit(ctx, claims, refreshToken),

    ...createProviderSessions(ctx),

    /** `timetrack oidc test` (the operator): the settings against the provider's discovery document and its token endpoint. */
    async test(principal: Principal): Promise<OidcTestReport> {
      if (!isOperator(principal)) throw new DomainError('forbidden', 'Only the person who runs the server can test the identity provider.');
      if (provider === null || settings === null)
        throw new DomainError(
          'invalid',
          'Sign-in through an identity provider is not set up: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (docs/operations.md).',
        );
      const addresses = {
        issuer: settings.issuer,
        redirectUri: settings.redirectUri,
        postLogoutRedirectUri: settings.postLogoutRedirectUri,
        backchannelLogoutUri: settings.backchannelLogoutUri,
      };
      try {
        const report = await provider.report();
        return { ...addresses, ok: report.problems.length === 0, ...report };
      } catch (error) {
        if (error instanceof ProviderMisconfigured || error instanceof ProviderUnreachable)
          return { ...addresses, ok: false, problems: [error.message], notes: [] };
        throw error;
      }
    },
  };
}

export type OidcService = ReturnType<typeof createOidcService>;
