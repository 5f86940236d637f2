import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Config } from '../../config.js';
import { formCookieOf } from './cookies.js';
import type { Signed } from './guard.js';

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
};

/**
 * A form post is ours when its Origin is this site (or it names none: the token alone decides
 * then) and its `_csrf` field matches the session's token, or, before sign-in, the form cookie.
 * `Origin: null` (a sandboxed frame, a `no-referrer` page elsewhere) is foreign to a session.
 */
export function csrfOk(req: Request, config: Config, signed: Signed, field: string = csrfFieldOf(req)): boolean {
  if (!originOk(req, config, signed.session !== null)) return false;
  if (signed.session) return sameText(field, signed.session.csrfToken);
  return sameText(field, formCookieOf(req, config));
}

/** The form's _csrf field ('' when absent). */
const csrfFieldOf = (req: Request): string => (typeof req.body?._csrf === 'string' ? (req.body._csrf as string) : '');

/**
 * Whether a POST comes from this site's pages. No Origin header: a client that is no browser
 * (every current browser sends one on a POST), the token decides. `null` names no origin: with a
 * session it is refused (this site's pages send their origin: `Referrer-Policy: same-origin`),
 * before sign-in the double-submit token decides.
 */
export function originOk(req: Request, config: Config, withSession: boolean): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (origin === 'null') return !withSession;
  // req.protocol and req.host follow X-Forwarded-Proto/-Host only from a trusted proxy.
  // With BASE_URL set, only its origin (the router answers no other host then).
  const own = `${req.protocol}://${req.host}`;
  return config.baseUrlSet ? origin === new URL(config.baseUrl).origin : origin === own;
}
