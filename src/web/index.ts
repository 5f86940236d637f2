import { performance } from 'node:perf_hooks';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { BudgetSpent, DomainError } from '../errors.js';
import { errorFields } from '../logger.js';
import { ThreadsBusy } from '../threads/queue.js';
import { appArea } from './app/index.js';
import { authArea } from './auth/index.js';
import { backchannelLogoutRoute, providerCheck } from './auth/oidc.js';
import type { WebDeps } from './deps.js';
import { durableAnswers } from './durable.js';
import { ASSETS } from './kit/assets.js';
import { html } from './kit/html.js';
import { send, shell } from './kit/respond.js';
import { statusOf, spoken } from './kit/refusal.js';
import { APP_PATH, signInHref } from './paths.js';
import { sessionSecretOf, clearSessionCookie } from './session/cookies.js';
import { csrfOk } from './session/csrf.js';
import { PAGES_CSP } from './session/csp.js';
import type { Signed } from './session/guard.js';
import { settingsArea } from './settings/index.js';
import { type Key, type Language, negotiate, type Reader, t, withReader } from '../i18n/index.js';
import type { SessionView } from '../modules/sessions/service.js';

/** The heading of a page that shows a refusal, by its kind (its key). */
const REFUSAL_TITLES: Record<DomainError['code'], Key> = {
  invalid: 'errors.didNotWork',
  not_found: 'errors.notFound',
  forbidden: 'errors.notAllowed',
  conflict: 'errors.didNotWork',
  money_visibility_required: 'errors.notAllowed',
  rate_limited: 'errors.tooMany',
};

/** Paths as logged: a mailed link's secret (setup, invitation, reset, email change, Stop) never reaches the log. */
const loggedPath = (path: string) => path.replace(/\/(setup|reset|confirm-email|stop)\/[^/?]+/, '/$1/…');

/** Body-parser refusals, for a person: what was wrong with the form as sent (by key). */
const PARSE_REFUSALS: Record<number, Key> = {
  413: 'errors.formTooLarge',
  415: 'errors.formEncoding',
  400: 'errors.formUnreadable',
};

/**
 * Every page a person opens in a browser, in one router: the settings and sign-in (under
 * SETTINGS_PATH), the web app (under /app), and `/`. One set of headers, one host check, one
 * body parser, one session and CSRF check, one asset server, one error page for all of them.
 * The areas (auth, settings, app) are mounted in it and never import one another.
 */
export function createWeb(deps: WebDeps): Router {
  const { logger, services, paths } = deps;
  const router = express.Router({ strict: false, caseSensitive: true });
  // The hash an unknown email is checked against, made now rather than at the first sign-in.
  void services.sessions.prepareSignIn();
  // With BASE_URL set, the pages answer at its host only: a page reached through another name
  // (DNS rebinding: a site whose name turns to this server's private address) is refused.
  const ownHost = deps.config.baseUrlSet ? new URL(deps.config.baseUrl).host : null;
  const uploadPath = `${paths.settings}/import`;

  router.use((req, res, next) => {
    const started = performance.now();
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', PAGES_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` on form posts.
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    if (ownHost !== null && req.host !== ownHost) {
      res.on('finish', () => logger.info('page request for another host refused', { host: req.host, status: res.statusCode }));
      withReader(readerOf(deps, req, null), () =>
        send(deps, res, 421, {
          title: t('errors.wrongAddress'),
          notice: { kind: 'error', body: t('errors.wrongAddressBody', { base: deps.config.baseUrl }) },
          body: html`<p>
            <a href="${deps.config.baseUrl}${paths.app}/week"
              >${t('errors.goTo', { address: `${deps.config.baseUrl}${paths.app}/week` })}</a
            >
          </p>`,
        }),
      );
      return;
    }
    res.on('finish', () =>
      logger.info('page request', {
        method: req.method,
        path: loggedPath(req.originalUrl.split('?')[0] ?? ''),
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      }),
    );
    next();
  });

  for (const asset of ASSETS) {
    router.get(`${paths.assets}/${asset.name}`, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('Content-Type', asset.type);
      res.end(asset.body);
    });
  }

  // A form of at most 64 KiB and 200 fields, UTF-8; anything else is refused (413, 400, 415) before it is read.
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 }));
  router.use(durableAnswers(services, logger));
  // The identity provider's back-channel logout: a server's post, outside the session and CSRF check (its token is signed).
  backchannelLogoutRoute(router, deps);
  // A session opened through the identity provider is confirmed there again every 15 minutes.
  router.use(providerCheck(deps));

  // Who is signed in: re-read on every request (membership, owner role and flags as they are now).
  router.use((req, res, next) => {
    const secret = sessionSecretOf(req, deps.config);
    const session = secret === null ? null : services.sessions.session(secret);
    // Or an account that belongs to no workspace yet: its invitations only (issue 44, ./auth/lobby.ts).
    const lobby = secret !== null && session === null ? services.sessions.lobby(secret) : null;
    if (secret !== null && session === null && lobby === null) clearSessionCookie(res, deps.config, req);
    const signed: Signed = { session, secret: session ? secret : null };
    res.locals.signed = signed;
    res.locals.lobby = lobby && secret !== null ? { view: lobby, secret } : null;
    // The reader's language and formats, for everything this request answers (src/i18n).
    const reader = readerOf(deps, req, session?.userId ?? lobby?.userId ?? null, session);
    res.locals.reader = reader;
    withReader(reader, () => {
      if (req.method === 'POST' && !formAccepted(req, deps, signed, uploadPath)) {
        send(deps, res, 403, {
          title: t('errors.formRefused'),
          notice: { kind: 'error', body: t('errors.formRefusedBody') },
          body: html`<p>
            <a href="${signed.session ? `${paths.app}/week` : `${paths.settings}/sign-in`}">${t('errors.backToTimetrack')}</a>
          </p>`,
        });
        return;
      }
      next();
    });
  });

  // `/`: a signed-in browser to its week, anyone else to the sign-in (the API middleware hands only browsers here).
  router.get('/', (_req, res) => res.redirect(303, (res.locals.signed as Signed).session ? `${paths.app}/week` : signInHref(paths, null)));

  for (const area of [authArea, settingsArea, appArea]) {
    const sub = express.Router({ strict: false, caseSensitive: true });
    area.routes(sub, deps);
    router.use(area.base(deps), sub);
  }

  router.use((req, res) => {
    const signed = res.locals.signed as Signed;
    send(deps, res, 404, {
      ...shell(deps, signed),
      area: req.path.startsWith(APP_PATH) ? 'app' : 'settings',
      title: t('errors.notFound'),
      body: html`<p>
        ${t('errors.noSuchPage')}
        <a href="${signed.session ? `${paths.app}/week` : `${paths.settings}/sign-in`}">${t('errors.goToTimetrack')}</a>
      </p>`,
    });
  });
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) =>
    // An error may surface outside the request's context (a callback of a stream): its reader again.
    withReader((res.locals.reader as Reader | undefined) ?? readerOf(deps, req, null), () => errorPage(deps, error, req, res)),
  );
  return router;
}

/**
 * A form post is accepted when it carries this session's token (or, before sign-in, the form
 * cookie's) and comes from this site. Only the Import page's upload and the Expenses page's two
 * forms (a receipt) are multipart: their pages read the token from the multipart body before they
 * keep anything; a multipart post anywhere else would skip the token, so it is refused.
 */
function formAccepted(req: Request, deps: WebDeps, signed: Signed, uploadPath: string): boolean {
  const multipart = typeof req.is('multipart/form-data') === 'string';
  if (!multipart) return csrfOk(req, deps.config, signed);
  // The Expenses page's forms carry a receipt (src/web/app/expenses.ts reads their token the same way).
  const upload = req.path === uploadPath || new RegExp(`^${deps.paths.app}/expenses(/[^/]+)?$`).test(req.path);
  return upload && signed.session !== null && csrfOk(req, deps.config, signed, signed.session.csrfToken);
}

/** Every failure as a page: a refusal with the API's status and its message, a form that could not be read, else a logged 500. */
function errorPage(deps: WebDeps, error: unknown, req: Request, res: Response): void {
  const signed = (res.locals.signed as Signed | undefined) ?? { session: null, secret: null };
  const area = req.originalUrl.startsWith(APP_PATH) ? 'app' : 'settings';
  const back = html`<p>
    <a href="${signed.session ? `${deps.paths.app}/week` : `${deps.paths.settings}/sign-in`}">${t('errors.goToTimetrack')}</a>
  </p>`;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof DomainError) {
    // A spent budget says when to try again (issue 44, M5).
    if (error instanceof BudgetSpent) res.setHeader('Retry-After', String(error.retryAfterSec));
    // The same status as the API gives the same refusal (404, 403, 409, 400, 429).
    send(deps, res, statusOf(error), {
      ...shell(deps, signed),
      area,
      title: t(REFUSAL_TITLES[error.code]),
      notice: { kind: 'error', body: spoken(error) },
      body: back,
    });
    return;
  }
  if (error instanceof ThreadsBusy) {
    // Every reader (or document) thread busy (heavy reports or documents elsewhere): as the API answers, 503 with when to retry.
    res.setHeader('Retry-After', String(error.retryAfterSec));
    send(deps, res, 503, {
      ...shell(deps, signed),
      area,
      title: t('errors.busy'),
      notice: {
        kind: 'error',
        body: t(error.kind === 'document' ? 'errors.busyDocuments' : 'errors.busyReports', { count: error.retryAfterSec }),
      },
      body: back,
    });
    return;
  }
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    deps.logger.info('a form could not be read', { method: req.method, path: loggedPath(req.originalUrl.split('?')[0] ?? ''), status });
    send(deps, res, status, {
      title: t('errors.didNotWork'),
      notice: { kind: 'error', body: t(PARSE_REFUSALS[status] ?? 'errors.formUnreadable') },
      body: back,
    });
    return;
  }
  deps.logger.error('page failed', { method: req.method, path: loggedPath(req.originalUrl.split('?')[0] ?? ''), ...errorFields(error) });
  send(deps, res, 500, {
    title: t('errors.wentWrong'),
    body: html`<p>${t('errors.logged')}</p>
      ${back}`,
  });
}

/**
 * The language of the workspace a setup link or an invitation opens (`SETTINGS_PATH/setup/:secret`
 * and the forms under it), for its opener who is not signed in: the workspace's documents'
 * language, as its members get, or null (no such link, or no language set).
 */
function linkLanguage(deps: WebDeps, req: Request): Language | null {
  const prefix = `${deps.paths.settings}/setup/`;
  if (!req.path.startsWith(prefix)) return null;
  const secret = req.path.slice(prefix.length).split('/')[0] ?? '';
  if (secret === '') return null;
  const { sessions, accounts, invoices } = deps.services;
  const workspaceId = sessions.setupLink(secret)?.workspaceId ?? accounts.invitation(secret)?.workspaceId;
  return workspaceId === undefined ? null : invoices.linkLanguage(workspaceId);
}

/**
 * Whom the pages speak to, and how (decisions §14): the member's language where they chose one
 * (Profile), else the first of ours their browser's `Accept-Language` asks for, else the
 * workspace's (its documents' language; before sign-in, a setup link's or an invitation's
 * workspace's), also for a browser asking for any (`*`), else English; their clock and durations as chosen.
 */
function readerOf(deps: WebDeps, req: Request, userId: string | null, session?: SessionView | null): Reader {
  const prefs = userId === null ? null : deps.services.accounts.preferences(userId);
  const header = req.headers['accept-language'];
  // A browser that names none of ours, or any (`*`, as Node's fetch sends), reads its workspace's.
  const workspace = () =>
    session ? deps.services.invoices.workspaceLanguage(session.actor, session.workspaceId) : linkLanguage(deps, req);
  const language = prefs?.language ?? negotiate(header, { any: null }) ?? workspace() ?? negotiate(header) ?? 'en';
  return { language, timeFormat: prefs?.timeFormat ?? '24h', seconds: prefs?.showSeconds ?? false };
}
