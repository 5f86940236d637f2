import { performance } from 'node:perf_hooks';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { problemTypes } from '../../generated/problems.js';
import { DomainError } from '../errors.js';
import { slugOfDomainError } from '../http/problems.js';
import { errorFields, type Logger } from '../logger.js';
import type { Services } from '../services.js';
import { FAVICON, SCRIPT, STYLE } from './assets.js';
import { html } from './html.js';
import { clearSessionCookie, csrfOk, Flashes, originOk, send, sessionSecretOf, type SettingsDeps, shell, type Signed } from './kit.js';
import { authPages } from './pages/auth.js';
import { importPages } from './pages/imports.js';
import { memberPages } from './pages/members.js';
import { tokenPages } from './pages/tokens.js';
import { webhookPages } from './pages/webhooks.js';
import { workspacePages } from './pages/workspace.js';

/**
 * The settings page's policy: its own style sheet and script only, forms posting to itself,
 * never framed, no referrer to other sites (a setup link's secret is in its path).
 */
export const SETTINGS_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The heading of a page that shows a refusal, by its kind. */
const REFUSAL_TITLES: Record<DomainError['code'], string> = {
  invalid: 'That did not work',
  not_found: 'Not found',
  forbidden: 'Not allowed',
  conflict: 'That did not work',
  money_visibility_required: 'Not allowed',
  rate_limited: 'Too many at once',
};

/** Paths as logged: a setup link's secret never reaches the log. */
const loggedPath = (path: string) => path.replace(/\/setup\/[^/?]+/, '/setup/…');

/**
 * The settings web page, served under SETTINGS_PATH by the API's process: server-rendered HTML
 * over the same domain services as the CLI. It signs in with email and password (sessions in a
 * cookie) and never reads an Authorization header; the API never reads its cookie.
 */
export function createSettingsRouter(options: Omit<SettingsDeps, 'flashes'>): Router {
  const deps: SettingsDeps = { ...options, flashes: new Flashes(options.clock) };
  const { logger, services } = deps;
  const router = express.Router({ strict: false, caseSensitive: true });
  // The hash an unknown email is checked against, made now rather than at the first sign-in.
  void services.sessions.prepareSignIn();

  // With BASE_URL set, the pages answer at its host only: a page reached through another name
  // (DNS rebinding: a site whose name turns to this server's private address) is refused.
  const ownHost = deps.config.baseUrlSet ? new URL(deps.config.baseUrl).host : null;

  router.use((req, res, next) => {
    const started = performance.now();
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', SETTINGS_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` on form posts.
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    if (ownHost !== null && req.host !== ownHost) {
      res.on('finish', () => logger.info('settings request for another host refused', { host: req.host, status: res.statusCode }));
      send(res, 421, {
        base: deps.base,
        title: 'Wrong address',
        notice: { kind: 'error', body: `The settings page answers at ${deps.config.baseUrl}${deps.base} only (BASE_URL).` },
        body: html`<p><a href="${deps.config.baseUrl}${deps.base}/">Go to ${deps.config.baseUrl}${deps.base}</a></p>`,
      });
      return;
    }
    res.on('finish', () =>
      logger.info('settings request', {
        method: req.method,
        path: loggedPath(req.originalUrl.split('?')[0] ?? ''),
        status: res.statusCode,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      }),
    );
    next();
  });

  for (const asset of [STYLE, SCRIPT, FAVICON]) {
    router.get(`/assets/${asset.name}`, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.type(asset.name.split('.').pop() as string).end(asset.body);
    });
  }

  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 }));
  router.use(durableAnswers(services, logger));

  // Who is signed in: re-read on every request (membership, owner role and flags as they are now).
  router.use((req, res, next) => {
    const secret = sessionSecretOf(req, deps.config);
    const session = secret === null ? null : services.sessions.session(secret);
    if (secret !== null && session === null) clearSessionCookie(res, deps, req);
    res.locals.signed = { session, secret: session ? secret : null } satisfies Signed;
    // An upload (multipart) is read by its page, which checks its token before it stores the file.
    const upload = req.method === 'POST' && typeof req.is('multipart/form-data') === 'string';
    if (req.method === 'POST' && (upload ? !originOk(req, deps) : !csrfOk(req, deps, res.locals.signed as Signed))) {
      send(res, 403, {
        base: deps.base,
        title: 'This form could not be accepted',
        notice: { kind: 'error', body: 'The form was out of date or came from another site. Go back, reload the page and try again.' },
        body: html`<p><a href="${deps.base}/">Back to the settings</a></p>`,
      });
      return;
    }
    next();
  });

  authPages(router, deps);
  tokenPages(router, deps);
  webhookPages(router, deps);
  memberPages(router, deps);
  workspacePages(router, deps);
  importPages(router, deps);

  router.use((_req, res) => {
    send(res, 404, {
      base: deps.base,
      title: 'Not found',
      body: html`<p>There is no such settings page. <a href="${deps.base}/">Back to the settings</a></p>`,
    });
  });
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof DomainError) {
      // The same status as the API gives the same refusal (404, 403, 409, 400, 429).
      const signed = res.locals.signed as Signed | undefined;
      send(res, problemTypes[slugOfDomainError[error.code]].status, {
        base: deps.base,
        ...(signed?.session ? shell(deps, signed) : {}),
        title: REFUSAL_TITLES[error.code],
        notice: { kind: 'error', body: error.message },
        body: html`<p><a href="${deps.base}/">Back to the settings</a></p>`,
      });
      return;
    }
    const status = (error as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      send(res, status, {
        base: deps.base,
        title: 'That did not work',
        notice: { kind: 'error', body: 'The form could not be read.' },
        body: html``,
      });
      return;
    }
    logger.error('settings page failed', {
      method: req.method,
      path: loggedPath(req.originalUrl.split('?')[0] ?? ''),
      ...errorFields(error),
    });
    send(res, 500, { base: deps.base, title: 'Something went wrong', body: html`<p>The error was logged. Try again in a moment.</p>` });
  });
  return router;
}

/**
 * A form's answer (the settings page's, the web app's) leaves once what it wrote is on disk (group commit, src/db/durability.ts): the
 * page's `end` is held until the barrier covering the commits made while the form ran; if that
 * sync fails the answer becomes a plain 500 instead (nothing written is acknowledged).
 */
export function durableAnswers(services: Services, logger: Logger): RequestHandler {
  const { durability } = services;
  return (req, res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    const before = durability.writes();
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (durability.writes() === before) return end(...args);
      durability.durable(durability.commits()).then(
        () => end(...args),
        (error: unknown) => {
          logger.error('a settings form could not be made durable; answered 500', { path: req.path, ...errorFields(error) });
          for (const name of ['Location', 'Set-Cookie', 'Content-Length', 'Content-Type']) res.removeHeader(name);
          res.statusCode = 500;
          res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          end('The server could not complete this request.');
        },
      );
      return res;
    }) as typeof res.end;
    next();
  };
}
