import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import {
  OIDC_BACKCHANNEL_PATH,
  OIDC_CALLBACK_PATH,
  OIDC_STATE_MS,
  ProviderRefused,
  ProviderUnreachable,
} from '../../modules/oidc/service.js';
import { SESSION_MAX_MS } from '../../modules/sessions/service.js';
import type { WebDeps } from '../deps.js';
import { field } from '../kit/forms.js';
import { type Html, html } from '../kit/html.js';
import type { Notice } from '../kit/layout.js';
import { send } from '../kit/respond.js';
import { landing, safeNext } from '../paths.js';
import {
  clearProviderCookie,
  clearSessionCookie,
  providerCookieOf,
  sessionSecretOf,
  setProviderCookie,
  setSessionCookie,
} from '../session/cookies.js';
import { lobbyPath } from './lobby.js';
import { said } from '../kit/said.js';
import { t, type Words } from '../../i18n/index.js';

/** A failure of the way back as the sign-in page says it: its words in the reader's language, else its message. */
const spokenOf = (done: { message: string; words?: Words }): string =>
  done.words === undefined ? done.message : t(done.words.key, done.words.vars);

/** The sign-in page as the auth area draws it: a status, the email typed, a notice. */
export type SignInPage = (req: Request, res: Response, status: number, email: string, notice: Notice | null) => Promise<void>;

/** Why the sign-in page is shown after a way back from the provider (`?provider=…`). */
const RETURNS: Record<string, (name: string) => string> = {
  unavailable: (name) => t('auth.providerUnavailable', { provider: name }),
  ended: (name) => t('auth.providerEnded', { provider: name }),
};

/**
 * What the sign-in page shows of the identity provider: "Sign in with …" (when it answers), a
 * notice when it does not (password sign-in and open sessions go on), and whether the password
 * form shows (OIDC_ONLY=true hides it but for `?break-glass`, the break-glass owners' way in).
 */
export async function providerPart(deps: WebDeps, req: Request): Promise<{ body: Html; passwordForm: boolean; notice: Notice | null }> {
  const { oidc } = deps.services;
  if (!oidc.enabled) return { body: html``, passwordForm: true, notice: null };
  const base = deps.paths.settings;
  const breakGlass = req.query['break-glass'] !== undefined || field(req, 'breakGlass') === '1';
  const passwordForm = !oidc.only || breakGlass;
  const available = await oidc.available();
  const next = safeNext(deps.paths, req.method === 'GET' ? req.query.next : field(req, 'next'));
  const returned = typeof req.query.provider === 'string' ? RETURNS[req.query.provider] : undefined;
  const start = `${base}/oidc/start${next ? `?next=${encodeURIComponent(next)}` : ''}`;
  const body = available
    ? html`<p><a class="button" id="provider-sign-in" href="${start}">${t('auth.withProvider', { provider: oidc.name })}</a></p>
        ${passwordForm ? html`<p class="hint">${t('auth.orPassword')}</p>` : ''}`
    : html``;
  let notice: Notice | null = returned ? { kind: 'error', body: returned(oidc.name) } : null;
  if (!available)
    notice = {
      kind: 'error',
      body: html`${t('auth.providerDown', { provider: oidc.name })}
      ${
        oidc.only
          ? passwordForm
            ? t('auth.breakGlassBelow')
            : said('auth.breakGlassLink', {}, [`${base}/sign-in?break-glass`])
          : t('auth.passwordInstead')
      }`,
    };
  return { body, passwordForm, notice };
}

/** A page between this site and the provider: the browser goes on to `to` at once (and by the link without a refresh). */
function onwards(deps: WebDeps, res: Response, title: string, to: string, text: string): void {
  send(deps, res, 200, { title, refreshTo: to, body: html`<p><a href="${to}">${text}</a></p>` });
}

/**
 * Sign-in through the organisation's identity provider (OpenID Connect): the way out
 * (`/oidc/start`), the way back (`/oidc/callback`), and the silent checks of open sessions.
 * Every decision is the oidc service's; these routes translate.
 */
export function oidcRoutes(router: Router, deps: WebDeps, signInPage: SignInPage): void {
  const { services, paths, config } = deps;
  const { oidc } = services;
  if (!oidc.enabled) return;
  const base = paths.settings;

  // The way out: state, nonce and PKCE verifier sealed in a cookie, the browser sent to the provider.
  // `?check=1`: a silent check (prompt=none) of the provider's session behind the signed-in one.
  router.get('/oidc/start', async (req, res, next) => {
    try {
      const sessionSecret = sessionSecretOf(req, config);
      const check = req.query.check === '1' && sessionSecret !== null && oidc.isProviderSession(sessionSecret);
      const target = safeNext(paths, req.query.next);
      const out = await oidc.begin({ next: target, ...(check ? { checkSessionSecret: sessionSecret as string } : {}) });
      setProviderCookie(res, config, req, out.cookie, Math.floor(OIDC_STATE_MS / 1000));
      res.redirect(303, out.url);
    } catch (error) {
      if (!(error instanceof ProviderUnreachable)) return next(error);
      // A silent check the provider cannot answer now: the session goes on, the page is shown.
      if (req.query.check === '1') return void res.redirect(303, landing(paths, req.query.next));
      res.redirect(303, `${base}/sign-in?provider=unavailable`);
    }
  });

  // The way back. The provider's page starts this navigation, so the browser sends only the Lax
  // state cookie, not the Strict session cookie: a new session's cookie is set here, and the page
  // goes on to the week from this site (where the browser sends it again).
  router.get(OIDC_CALLBACK_PATH, async (req, res, next) => {
    try {
      const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const cookie = providerCookieOf(req, config);
      clearProviderCookie(res, config, req);
      const done = await oidc.complete({ query, cookie });
      switch (done.kind) {
        case 'signed-in':
          setSessionCookie(res, config, req, done.session.secret, Math.floor(SESSION_MAX_MS / 1000));
          if (done.joined) deps.flashes.put(done.session.secret, { kind: 'ok', body: t('auth.joined') });
          if (done.passwordEnded)
            deps.flashes.put(done.session.secret, {
              kind: 'ok',
              body: t('auth.passwordEnded', { provider: oidc.name }),
            });
          return onwards(deps, res, t('auth.signedIn'), landing(paths, done.next), t('auth.continueTo'));
        case 'lobby':
          // An account in no workspace: the page of its invitations (issue 44).
          setSessionCookie(res, config, req, done.session.secret, Math.floor(SESSION_MAX_MS / 1000));
          return onwards(deps, res, t('auth.signedIn'), lobbyPath(deps), t('auth.seeInvitations'));
        case 'checked':
          return onwards(deps, res, t('auth.signedIn'), landing(paths, done.next), t('auth.continue'));
        case 'ended':
          clearSessionCookie(res, config, req);
          return void res.redirect(303, `${base}/sign-in?provider=ended`);
        // The way back's failures in the reader's words (by key), as the module worded them in English.
        case 'refused':
          return signInPage(req, res, 403, '', { kind: 'error', body: spokenOf(done) });
        case 'failed':
          return signInPage(req, res, 400, '', { kind: 'error', body: spokenOf(done) });
        case 'unavailable':
          return signInPage(req, res, 503, '', { kind: 'error', body: spokenOf(done) });
      }
    } catch (error) {
      next(error);
    }
  });
}

/**
 * Back-channel logout: the provider posts a logout token (form-encoded `logout_token`), and the
 * sessions it names end at once. Mounted before the session and CSRF check (the provider's server
 * has neither a session nor a form token: the token's signature is its proof). 200 when it was
 * acted on, 400 with an OAuth error otherwise (the specification's answers); never cached.
 */
export function backchannelLogoutRoute(router: Router, deps: WebDeps): void {
  const { oidc } = deps.services;
  if (!oidc.enabled) return;
  router.post(`${deps.paths.settings}${OIDC_BACKCHANNEL_PATH}`, async (req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    const token = typeof req.body?.logout_token === 'string' ? (req.body.logout_token as string) : '';
    try {
      if (token === '') throw new ProviderRefused('no logout_token in the body');
      await oidc.backchannelLogout(token);
      res.status(200).end();
    } catch (error) {
      if (error instanceof ProviderUnreachable) {
        res.status(503).json({ error: 'temporarily_unavailable' });
        return;
      }
      if (!(error instanceof ProviderRefused)) return next(error);
      deps.logger.info('back-channel logout refused', { reason: error.reason });
      res.status(400).json({ error: 'invalid_request', error_description: 'The logout token was not accepted.' });
    }
  });
}

/** Whether a request is a page the browser navigates to (not the live stream, a script's read or an asset). */
const isNavigation = (req: Request) =>
  req.method === 'GET' &&
  (req.headers['sec-fetch-mode'] === 'navigate' ||
    (req.headers['sec-fetch-mode'] === undefined && (req.headers.accept ?? '').includes('text/html')));

/**
 * Before the session is read: a session opened through the provider is confirmed again when its
 * last confirmation is 15 minutes old (the oidc service refreshes, or asks for a silent check,
 * which a page navigation starts here). One the provider ended is signed out, the page saying so.
 */
export function providerCheck(deps: WebDeps): RequestHandler {
  const { oidc } = deps.services;
  const own = `${deps.paths.settings}/oidc/`;
  return async (req: Request, res: Response, next: NextFunction) => {
    const secret = oidc.enabled ? sessionSecretOf(req, deps.config) : null;
    if (secret === null || req.path.startsWith(own) || req.path.startsWith(deps.paths.assets)) return next();
    try {
      const state = await oidc.recheck(secret);
      if (state === 'ended' && isNavigation(req)) {
        clearSessionCookie(res, deps.config, req);
        return void res.redirect(303, `${deps.paths.settings}/sign-in?provider=ended`);
      }
      if (state === 'silent-check' && isNavigation(req))
        return void res.redirect(303, `${deps.paths.settings}/oidc/start?check=1&next=${encodeURIComponent(req.originalUrl)}`);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Signing out of a session opened through the provider goes on to the provider's sign-out, when it offers one. */
export function providerSignOut(deps: WebDeps, res: Response, url: string): void {
  onwards(deps, res, t('auth.signingOut'), url, t('auth.signOutAt', { provider: deps.services.oidc.name }));
}
