/* The sign-in through the identity provider (part of the oidc service): the way out (`begin`), the way back (`complete`), and who may come in (`admit`). */
import { createHash } from 'node:crypto';
import { DomainError } from '../../errors.js';
import { seal, unseal } from '../../kernel/seal.js';
import { secret, sha256 } from '../../kernel/secrets.js';
import type { NewSession } from '../sessions/service.js';
import { type OidcContext, RETRY_AFTER_OUTAGE_MS } from './context.js';
import type { Words } from '../../i18n/index.js';
import { OidcRefusal, oidcErrors as errors, said } from './errors.js';
import { type IdClaims, ProviderRefused, ProviderUnreachable } from './provider.js';

/** How long a sign-in may take at the provider (the sealed state cookie's life). */
export const OIDC_STATE_MS = 10 * 60_000;

/** The provider's answers to a silent check that mean its session has ended. */
const SESSION_GONE = ['login_required', 'interaction_required', 'consent_required', 'account_selection_required', 'access_denied'];

/** How a return from the provider ended. */
export type Completion =
  /**
   * `passwordEnded`: the account's password no longer works (nobody had proved its address: H1).
   * `joined`: the invitation its lobby's Join asked for was accepted with this sign-in (I1).
   */
  | { kind: 'signed-in'; session: NewSession; next: string | null; passwordEnded: boolean; joined: boolean }
  /** An account in no workspace: a lobby of its invitations (issue 44). */
  | { kind: 'lobby'; session: NewSession }
  /** A silent check found the provider's session alive: the session here goes on. */
  | { kind: 'checked'; next: string | null }
  /** A silent check found the provider's session ended: the session here ended too. */
  | { kind: 'ended' }
  /** The person is not let in (the words say why and whom to ask). */
  | { kind: 'refused'; message: string; words?: Words }
  /** The return did not pass a check (state, code, token): nothing was let in. */
  | { kind: 'failed'; message: string; words?: Words }
  | { kind: 'unavailable'; message: string; words?: Words };

/** A refusal's English message and its words for the sign-in page. */
const worded = (error: DomainError): { message: string; words?: Words } => ({
  message: error.message,
  ...(error.words === undefined ? {} : { words: error.words }),
});

/** What the state cookie holds between the way out to the provider and the way back (sealed: the browser can neither read nor change it). */
interface PendingSignIn {
  state: string;
  nonce: string;
  verifier: string;
  next: string | null;
  /** The session a silent check is for (its row's hash), or null for a sign-in. */
  check: string | null;
  /** The invitation a provider lobby's Join accepts once this sign-in succeeds as that account (I1); null otherwise. */
  join: { userId: string; invitationId: string } | null;
  at: number;
}

const challengeOf = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/**
 * Inside a write: the account a provider's user is, bound by `sub` now if it was found by email,
 * or made by domain; and whether binding it ended a password nobody had proved was its holder's.
 */
function accountOf(ctx: OidcContext, claims: IdClaims): { userId: string; passwordEnded: boolean } {
  const { repo, accounts, clock, issuer, name } = ctx;
  const bound = repo.identity(issuer, claims.sub);
  if (bound) {
    if (accounts.userOf(bound.userId) === undefined) throw errors.accountClosed();
    repo.touchIdentity(issuer, claims.sub, clock.now());
    return { userId: bound.userId, passwordEnded: false };
  }
  if (claims.email === null) throw errors.noEmail(name);
  if (!claims.emailVerified) throw errors.unverifiedEmail(name, claims.email);
  const holder = accounts.credentials(claims.email);
  let userId: string;
  let passwordEnded = false;
  if (holder) {
    if (repo.identityOfUser(holder.id, issuer)) throw errors.boundElsewhere(name, claims.email);
    userId = holder.id;
    // H1: when nobody had proved the address, whoever set the account up may hold its password,
    // sessions, tokens or links: they end here, before the provider's user is let in as it.
    passwordEnded = accounts.addressVouchedFor(userId);
  } else {
    const joined = accounts.joinByDomain({ name: claims.name ?? '', email: claims.email });
    if (joined === null) throw errors.unknownPerson(claims.email, claims.email.slice(claims.email.lastIndexOf('@') + 1).toLowerCase());
    userId = joined;
  }
  const now = clock.now();
  repo.insertIdentity({ issuer, subject: claims.sub, userId, createdAt: now, lastSignInAt: now });
  return { userId, passwordEnded };
}

/**
 * One write: the account (bound, found by verified email, or made by domain), a session in its
 * first workspace, and the session's row here (the refresh token sealed to it). A refusal
 * (OidcRefusal) writes nothing.
 */
export function admit(
  ctx: OidcContext,
  claims: IdClaims,
  refreshToken: string | null,
  join: { userId: string; invitationId: string } | null = null,
): { userId: string; session: NewSession; passwordEnded: boolean; lobby: boolean; joined: boolean } {
  const { repo, sessions, accounts, clock, write, issuer } = ctx;
  return write(() => {
    const { userId, passwordEnded } = accountOf(ctx, claims);
    // A lobby's Join (I1): the invitation is accepted only now, the provider having let this very account in again.
    const joined = join !== null && join.userId === userId ? acceptJoin(ctx, userId, join.invitationId) : null;
    const opened = sessions.openFor(userId, joined ?? undefined);
    // A member nowhere: the page of its invitations (issue 44; an address proved, N1); joining one signs in here again.
    if (opened === null) {
      if (!accounts.emailProved(userId)) throw errors.addressUnproved(accounts.userOf(userId)?.email ?? '');
      return { userId, session: sessions.openProviderLobby(userId), passwordEnded, lobby: true, joined: false };
    }
    const now = clock.now();
    repo.insertSession({
      sessionHash: opened.secretHash,
      issuer,
      subject: claims.sub,
      sid: claims.sid,
      refreshToken: ctx.sealRefresh(opened.secretHash, refreshToken),
      checkedAt: now,
      createdAt: now,
    });
    return {
      userId,
      session: { secret: opened.secret, csrfToken: opened.csrfToken },
      passwordEnded,
      lobby: false,
      joined: joined !== null,
    };
  });
}

/** Inside admit's write: a lobby's invitation accepted; its workspace, or null when it no longer works (the sign-in goes on without it). */
function acceptJoin(ctx: OidcContext, userId: string, invitationId: string): string | null {
  try {
    return ctx.accounts.acceptInvitationOfAccount(userId, invitationId).workspaceId;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    ctx.logger.info('a lobby’s invitation was not accepted at the provider sign-in', { reason: error.message });
    return null;
  }
}

/** The way back from a silent check: the provider's session confirmed (same `sub`), or ended with the one here. */
function confirmCheck(ctx: OidcContext, hash: string, next: string | null, claims: IdClaims, refreshToken: string | null): Completion {
  const { repo, clock, write } = ctx;
  const row = repo.session(hash);
  if (row === undefined || row.subject !== claims.sub) {
    if (row !== undefined) ctx.endSession(hash, 'silent check: another user at the provider');
    return { kind: 'ended' };
  }
  write(() =>
    repo.markChecked(hash, {
      checkedAt: clock.now(),
      sid: claims.sid,
      ...(refreshToken !== null ? { refreshToken: ctx.sealRefresh(hash, refreshToken) } : {}),
    }),
  );
  return { kind: 'checked', next };
}

/** The provider answered with an error (no code): a silent check's session ended, or a sign-in refused there. */
function providerError(ctx: OidcContext, pending: PendingSignIn, error: string): Completion {
  const { clock, logger, name } = ctx;
  if (pending.check === null) {
    logger.info('identity provider sign-in refused', { reason: `provider answered ${error}` });
    return { kind: 'refused', ...worded(errors.notAllowed(name)) };
  }
  // The provider's session ended (login_required …): so does this one. Anything else is the provider's trouble, not the person's.
  if (SESSION_GONE.includes(error)) {
    ctx.endSession(pending.check, `silent check: ${error}`);
    return { kind: 'ended' };
  }
  ctx.retryAt.set(pending.check, clock.now() + RETRY_AFTER_OUTAGE_MS);
  return { kind: 'checked', next: pending.next };
}

/** The state cookie, opened and in time; null when it is missing, forged, or older than 10 minutes. */
function pendingOf(ctx: OidcContext, cookie: string | null): PendingSignIn | null {
  const { clock, logger } = ctx;
  const raw = cookie === null ? null : unseal(ctx.stateKey, 'oidc-state', cookie);
  const pending = raw === null ? null : (JSON.parse(raw) as PendingSignIn);
  if (pending === null || clock.now() - pending.at > OIDC_STATE_MS || clock.now() < pending.at - 60_000) {
    logger.info('identity provider sign-in refused', { reason: pending === null ? 'no state cookie' : 'state cookie expired' });
    return null;
  }
  return pending;
}

/**
 * The way out to the provider: its address, and the sealed state cookie's value (state, nonce,
 * PKCE verifier, where to return). `checkSessionSecret` names a session for a silent check
 * (`prompt=none`) of the provider's session. Throws ProviderUnreachable when it does not answer.
 */
export async function begin(
  ctx: OidcContext,
  input: { next: string | null; checkSessionSecret?: string; join?: { userId: string; invitationId: string } },
): Promise<{ url: string; cookie: string }> {
  const { clock, name } = ctx;
  const { provider } = ctx;
  if (provider === null) throw new ProviderUnreachable('sign-in through an identity provider is not set up');
  if (!(await ctx.available())) throw new ProviderUnreachable(`${name} cannot be reached`);
  const pending: PendingSignIn = {
    state: secret(),
    nonce: secret(),
    verifier: secret(),
    next: input.next,
    check: input.checkSessionSecret === undefined ? null : sha256(input.checkSessionSecret),
    join: input.join ?? null,
    at: clock.now(),
  };
  const url = provider.authorizationUrl({
    state: pending.state,
    nonce: pending.nonce,
    codeVerifierChallenge: challengeOf(pending.verifier),
    silent: pending.check !== null,
  });
  return { url, cookie: seal(ctx.stateKey, 'oidc-state', JSON.stringify(pending)) };
}

/**
 * The way back: the callback's query, checked against the state cookie (state, then the code
 * exchanged with the PKCE verifier, the ID token's nonce, issuer, audience, expiry and
 * signature); then who may come in. A silent check confirms or ends the session it was for.
 * The way back carries no session cookie (a navigation from the provider's site): for a
 * silent check, the sealed state (set by a request that held the session) names it.
 */
export async function complete(ctx: OidcContext, input: { query: string; cookie: string | null }): Promise<Completion> {
  const { repo, logger, name } = ctx;
  const { provider, settings } = ctx;
  if (provider === null || settings === null) return { kind: 'failed', ...said('oidc.refused.notSetUp') };
  const again = said('oidc.refused.again', { provider: name });
  const pending = pendingOf(ctx, input.cookie);
  if (pending === null) return { kind: 'failed', ...again };
  const params = new URLSearchParams(input.query);
  if (params.get('state') !== pending.state) {
    logger.info('identity provider sign-in refused', { reason: 'state does not match' });
    return { kind: 'failed', ...again };
  }
  if (pending.check !== null && repo.session(pending.check) === undefined) return { kind: 'ended' };
  if (params.has('error')) return providerError(ctx, pending, params.get('error') ?? '');
  let result;
  try {
    result = await provider.exchange(new URL(`${settings.redirectUri}?${params.toString()}`), {
      state: pending.state,
      nonce: pending.nonce,
      codeVerifier: pending.verifier,
    });
  } catch (error) {
    if (error instanceof ProviderUnreachable) {
      logger.warn('identity provider unreachable during sign-in', { reason: error.message });
      return { kind: 'unavailable', ...said('oidc.refused.unreachable', { provider: name }) };
    }
    if (!(error instanceof ProviderRefused)) throw error;
    logger.info('identity provider sign-in refused', { reason: error.reason });
    return { kind: 'failed', ...again };
  }
  if (pending.check !== null) return confirmCheck(ctx, pending.check, pending.next, result.claims, result.refreshToken);
  try {
    const { session, passwordEnded, lobby, joined } = admit(ctx, result.claims, result.refreshToken, pending.join ?? null);
    if (lobby) {
      logger.info('signed in through the identity provider to an account in no workspace: its invitations');
      return { kind: 'lobby', session };
    }
    logger.info('signed in through the identity provider', { refresh: result.refreshToken !== null, sid: result.claims.sid !== null });
    if (passwordEnded)
      logger.info(
        'the identity provider vouched for an address nobody had proved: the account’s password, sessions, tokens and links ended',
      );
    return { kind: 'signed-in', session, next: pending.next, passwordEnded, joined };
  } catch (error) {
    if (!(error instanceof OidcRefusal)) throw error;
    logger.info('identity provider sign-in refused', { reason: error.reason });
    return { kind: 'refused', ...worded(error) };
  }
}
