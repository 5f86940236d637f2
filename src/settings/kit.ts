import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { ImportRunner } from '../threads/imports.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { type LinkBase, linkBase } from '../links.js';
import type { Logger } from '../logger.js';
import type { SessionView } from '../modules/sessions/service.js';
import type { Services } from '../services.js';
import { type Notice, type PageOptions, page } from './layout.js';

export interface SettingsDeps {
  config: Config;
  logger: Logger;
  services: Services;
  clock: Clock;
  /** Where the page is served (SETTINGS_PATH). */
  base: string;
  /** Notices carried over the redirect after a form (a secret shown once). */
  flashes: Flashes;
  /** The Import page's runs, on worker threads. */
  imports: ImportRunner;
  /** The address the server recorded when it started listening (null before that). */
  serverAddress: () => string | null;
}

const FLASH_MS = 5 * 60_000;
const MAX_FLASHES = 10_000;

/**
 * One-time notices carried from a form post to the page it redirects to (post/redirect/get, so
 * a reload never posts again): per session, in memory only (a secret shown once is never
 * written to disk), taken by the next page of that session or dropped after 5 minutes.
 */
export class Flashes {
  private notices = new Map<string, { notice: Notice; until: number }>();
  constructor(private readonly clock: Clock) {}

  put(sessionSecret: string, notice: Notice): void {
    const now = this.clock.now();
    for (const [key, kept] of this.notices) if (kept.until <= now) this.notices.delete(key);
    if (this.notices.size >= MAX_FLASHES) this.notices.delete(this.notices.keys().next().value as string);
    this.notices.set(sessionSecret, { notice, until: now + FLASH_MS });
  }

  take(sessionSecret: string | null): Notice | null {
    if (sessionSecret === null) return null;
    const kept = this.notices.get(sessionSecret);
    this.notices.delete(sessionSecret);
    return kept && kept.until > this.clock.now() ? kept.notice : null;
  }
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
  // Path=/ (as __Host- cookies must have): the settings page and the web app (/app) share the session.
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSec}`, ...(secure ? ['Secure'] : [])];
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
export function csrfOk(req: Request, deps: Pick<SettingsDeps, 'config'>, signed: Signed, field: string = csrfFieldOf(req)): boolean {
  if (!originOk(req, deps)) return false;
  if (signed.session) return sameText(field, signed.session.csrfToken);
  const cookie = cookies(req).get(cookieName(FORM_COOKIE, secureRequest(req, deps.config))) ?? '';
  return sameText(field, cookie);
}

/** The form's _csrf field ('' when absent). */
const csrfFieldOf = (req: Request): string => (typeof req.body?._csrf === 'string' ? (req.body._csrf as string) : '');

/** Whether a POST comes from this site's pages (or names no origin: the token alone decides then). */
export function originOk(req: Request, deps: Pick<SettingsDeps, 'config'>): boolean {
  // `null` (a privacy setting, a sandboxed frame) names no origin.
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return true;
  // req.protocol and req.host follow X-Forwarded-Proto/-Host only from a trusted proxy.
  // With BASE_URL set, only its origin (the router answers no other host then).
  const own = `${req.protocol}://${req.host}`;
  return deps.config.baseUrlSet ? origin === new URL(deps.config.baseUrl).origin : origin === own;
}

/** Where the page's links point (the one rule of src/links.ts: BASE_URL, else the address the server recorded at its start). */
export const siteLink = (deps: SettingsDeps): LinkBase => linkBase(deps.config, deps.serverAddress());

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

/** After a form did its work: back to a page (303, so a reload does not post again), with a notice for it. */
export function redirect(res: Response, to: string, flash?: { deps: SettingsDeps; signed: Signed; notice: Notice }): void {
  if (flash && flash.signed.secret !== null) flash.deps.flashes.put(flash.signed.secret, flash.notice);
  res.redirect(303, to);
}

/** The page's notice: one carried over the redirect, else the one the page has for `?done=`. */
export const noticeFor = (deps: SettingsDeps, signed: Signed, fallback: Notice | null = null): Notice | null =>
  deps.flashes.take(signed.secret) ?? fallback;

/** The person signed in, with their workspaces for the switcher. */
export function shell(deps: SettingsDeps, signed: Signed) {
  const session = signed.session as SessionView;
  return {
    base: deps.base,
    session,
    workspaces: deps.services.sessions.memberships(session.userId).map((w) => ({ workspaceId: w.workspaceId, name: w.name })),
  };
}
