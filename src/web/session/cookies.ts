import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../../config.js';

const SESSION_COOKIE = 'tt_session';
const FORM_COOKIE = 'tt_form';
const OIDC_COOKIE = 'tt_oidc';

/** The request's cookies (the pages' own; the API never reads any). */
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

export const cookieName = (name: string, secure: boolean) => (secure ? `__Host-${name}` : name);

function setCookie(
  res: Response,
  config: Config,
  req: Request,
  name: string,
  value: string,
  maxAgeSec: number,
  sameSite: 'Strict' | 'Lax' = 'Strict',
): void {
  const secure = secureRequest(req, config);
  // Path=/ (as __Host- cookies must have): every page (settings, the app, invoices) shares the session.
  const attributes = ['Path=/', 'HttpOnly', `SameSite=${sameSite}`, `Max-Age=${maxAgeSec}`, ...(secure ? ['Secure'] : [])];
  res.append('Set-Cookie', `${cookieName(name, secure)}=${value}; ${attributes.join('; ')}`);
}

export const sessionSecretOf = (req: Request, config: Config) =>
  cookies(req).get(cookieName(SESSION_COOKIE, secureRequest(req, config))) ?? null;

export function setSessionCookie(res: Response, config: Config, req: Request, secret: string, maxAgeSec: number): void {
  setCookie(res, config, req, SESSION_COOKIE, secret, maxAgeSec);
  setCookie(res, config, req, FORM_COOKIE, '', 0);
}

export const clearSessionCookie = (res: Response, config: Config, req: Request) => setCookie(res, config, req, SESSION_COOKIE, '', 0);

/** The form cookie's value ('' when none): the CSRF token of the forms shown before sign-in. */
export const formCookieOf = (req: Request, config: Config) => cookies(req).get(cookieName(FORM_COOKIE, secureRequest(req, config))) ?? '';

/**
 * The CSRF token of the forms shown before sign-in (sign-in, password setup): a random value in a
 * SameSite=Strict cookie that the form repeats (double submit).
 */
export function formToken(req: Request, res: Response, config: Config): string {
  const existing = formCookieOf(req, config);
  if (/^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(res, config, req, FORM_COOKIE, token, 3600);
  return token;
}

/**
 * The sealed state of a sign-in at the identity provider, from the way out to the way back. Lax,
 * not Strict: the way back is a navigation the provider's page starts, which carries only Lax
 * cookies. It holds no secret of a session, only what the return is checked against.
 */
export const setProviderCookie = (res: Response, config: Config, req: Request, value: string, maxAgeSec: number) =>
  setCookie(res, config, req, OIDC_COOKIE, value, maxAgeSec, 'Lax');
export const providerCookieOf = (req: Request, config: Config): string | null =>
  cookies(req).get(cookieName(OIDC_COOKIE, secureRequest(req, config))) || null;
export const clearProviderCookie = (res: Response, config: Config, req: Request) => setCookie(res, config, req, OIDC_COOKIE, '', 0, 'Lax');
