import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { SessionView } from '../modules/sessions/service.js';
import type { Services } from '../services.js';
import { type PageOptions, page } from './layout.js';

export interface SettingsDeps {
  config: Config;
  logger: Logger;
  services: Services;
  /** Where the page is served (SETTINGS_PATH). */
  base: string;
}

/** What the session middleware found: the person signed in, or nobody. */
export interface Signed {
  session: SessionView | null;
  secret: string | null;
}

const SESSION_COOKIE = 'tt_session';
const FORM_COOKIE = 'tt_form';

/** The request's cookies (the settings page's own; the API never reads any). */
export function cookies(req: Request): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!jar.has(name)) jar.set(name, part.slice(eq + 1).trim());
  }
  return jar;
}

/** Over https (directly, or behind a trusted proxy, or when BASE_URL says so) cookies are Secure and use the __Host- prefix. */
export function secureRequest(req: Request, config: Config): boolean {
  return req.secure || config.baseUrl.startsWith('https:');
}

const cookieName = (name: string, secure: boolean) => (secure ? `__Host-${name}` : name);

function setCookie(res: Response, deps: SettingsDeps, req: Request, name: string, value: string, maxAgeSec: number): void {
  const secure = secureRequest(req, deps.config);
  // __Host- cookies must have Path=/; plain ones are kept to the settings path.
  const attributes = [
    `Path=${secure ? '/' : deps.base}`,
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSec}`,
    ...(secure ? ['Secure'] : []),
  ];
  res.append('Set-Cookie', `${cookieName(name, secure)}=${value}; ${attributes.join('; ')}`);
}

export const sessionSecretOf = (req: Request, config: Config) =>
  cookies(req).get(cookieName(SESSION_COOKIE, secureRequest(req, config))) ?? null;

export function setSessionCookie(res: Response, deps: SettingsDeps, req: Request, secret: string, maxAgeSec: number): void {
  setCookie(res, deps, req, SESSION_COOKIE, secret, maxAgeSec);
  setCookie(res, deps, req, FORM_COOKIE, '', 0);
}

export const clearSessionCookie = (res: Response, deps: SettingsDeps, req: Request) => setCookie(res, deps, req, SESSION_COOKIE, '', 0);

/**
 * The CSRF token of the forms shown before sign-in (sign-in, password setup): a random value in a
 * SameSite=Strict cookie that the form repeats (double submit).
 */
export function formToken(req: Request, res: Response, deps: SettingsDeps): string {
  const existing = cookies(req).get(cookieName(FORM_COOKIE, secureRequest(req, deps.config)));
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(res, deps, req, FORM_COOKIE, token, 3600);
  return token;
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
};

/**
 * A form post is ours when its Origin (sent by every current browser on a POST) is this site,
 * and its `_csrf` field matches the session's token, or, before sign-in, the form cookie.
 */
export function csrfOk(req: Request, deps: SettingsDeps, signed: Signed): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    // req.protocol and req.host follow X-Forwarded-Proto/-Host only from a trusted proxy.
    const own = `${req.protocol}://${req.host}`;
    if (origin !== own && origin !== new URL(deps.config.baseUrl).origin) return false;
  }
  const field = typeof req.body?._csrf === 'string' ? (req.body._csrf as string) : '';
  if (signed.session) return sameText(field, signed.session.csrfToken);
  const cookie = cookies(req).get(cookieName(FORM_COOKIE, secureRequest(req, deps.config))) ?? '';
  return sameText(field, cookie);
}

/** A form field as text ('' when absent or not text). */
export const field = (req: Request, name: string): string => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/** A form field that may repeat (checkboxes of one name), as a list. */
export const fields = (req: Request, name: string): string[] => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

export function send(res: Response, status: number, options: PageOptions): void {
  res.status(status).type('html').end(page(options));
}

/** After a form did its work: back to a page (303, so a reload does not post again). */
export function redirect(res: Response, to: string): void {
  res.redirect(303, to);
}

/** The person signed in, with their workspaces for the switcher. */
export function shell(deps: SettingsDeps, signed: Signed) {
  const session = signed.session as SessionView;
  return {
    base: deps.base,
    session,
    workspaces: deps.services.sessions.memberships(session.userId).map((w) => ({ workspaceId: w.workspaceId, name: w.name })),
  };
}
