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

/** The heading of a page that shows a refusal, by its kind. */
const REFUSAL_TITLES: Record<DomainError['code'], string> = {
  invalid: 'That did not work',
  not_found: 'Not found',
  forbidden: 'Not allowed',
  conflict: 'That did not work',
  money_visibility_required: 'Not allowed',
  rate_limited: 'Too many at once',
};

/** Paths as logged: a mailed link's secret (setup, invitation, reset, email change, Stop) never reaches the log. */
const loggedPath = (path: string) => path.replace(/\/(setup|reset|confirm-email|stop)\/[^/?]+/, '/$1/…');

/** Body-parser refusals, for a person: what was wrong with the form as sent. */
const PARSE_REFUSALS: Record<number, string> = {
  413: 'The form was larger than this page accepts. Shorten what you typed and send it again.',
  415: 'The form came in an encoding this page does not read (it reads UTF-8). Reload the page and send it again.',
  400: 'The form could not be read. Reload the page and send it again.',
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
      send(deps, res, 421, {
        title: 'Wrong address',
        notice: { kind: 'error', body: `These pages answer at ${deps.config.baseUrl} only: open them there.` },
        body: html`<p><a href="${deps.config.baseUrl}${paths.app}/week">Go to ${deps.config.baseUrl}${paths.app}/week</a></p>`,
      });
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
    if (req.method === 'POST' && !formAccepted(req, deps, signed, uploadPath)) {
      send(deps, res, 403, {
        title: 'This form could not be accepted',
        notice: { kind: 'error', body: 'The form was out of date or came from another site. Go back, reload the page and try again.' },
        body: html`<p><a href="${signed.session ? `${paths.app}/week` : `${paths.settings}/sign-in`}">Back to timetrack</a></p>`,
      });
      return;
    }
    next();
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
      title: 'Not found',
      body: html`<p>
        There is no such page. <a href="${signed.session ? `${paths.app}/week` : `${paths.settings}/sign-in`}">Go to timetrack</a>
      </p>`,
    });
  });
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => errorPage(deps, error, req, res));
  return router;
}

/**
 * A form post is accepted when it carries this session's token (or, before sign-in, the form
 * cookie's) and comes from this site. Only the Import page's upload is multipart: its page
 * reads the token from the multipart body before it stores anything; a multipart post anywhere
 * else would skip the token, so it is refused.
 */
function formAccepted(req: Request, deps: WebDeps, signed: Signed, uploadPath: string): boolean {
  const multipart = typeof req.is('multipart/form-data') === 'string';
  if (!multipart) return csrfOk(req, deps.config, signed);
  return req.path === uploadPath && signed.session !== null && csrfOk(req, deps.config, signed, signed.session.csrfToken);
}

/** Every failure as a page: a refusal with the API's status and its message, a form that could not be read, else a logged 500. */
function errorPage(deps: WebDeps, error: unknown, req: Request, res: Response): void {
  const signed = (res.locals.signed as Signed | undefined) ?? { session: null, secret: null };
  const area = req.originalUrl.startsWith(APP_PATH) ? 'app' : 'settings';
  const back = html`<p><a href="${signed.session ? `${deps.paths.app}/week` : `${deps.paths.settings}/sign-in`}">Go to timetrack</a></p>`;
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
      title: REFUSAL_TITLES[error.code],
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
      title: 'Busy for a moment',
      notice: {
        kind: 'error',
        body: `The server is busy with other ${error.kind === 'document' ? 'documents' : 'reports'}. Reload the page in ${error.retryAfterSec} seconds.`,
      },
      body: back,
    });
    return;
  }
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    deps.logger.info('a form could not be read', { method: req.method, path: loggedPath(req.originalUrl.split('?')[0] ?? ''), status });
    send(deps, res, status, {
      title: 'That did not work',
      notice: { kind: 'error', body: PARSE_REFUSALS[status] ?? (PARSE_REFUSALS[400] as string) },
      body: back,
    });
    return;
  }
  deps.logger.error('page failed', { method: req.method, path: loggedPath(req.originalUrl.split('?')[0] ?? ''), ...errorFields(error) });
  send(deps, res, 500, {
    title: 'Something went wrong',
    body: html`<p>The error was logged. Try again in a moment.</p>
      ${back}`,
  });
}
