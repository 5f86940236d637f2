import type { Request, Response } from 'express';

/** What a page's script may send beyond the CORS-safelisted headers. */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, If-None-Match';
/** What a page's script may read beyond the safelisted response headers (Content-Type, Content-Length, …). */
export const CORS_EXPOSED_HEADERS =
  'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Request-Id, ETag, Deprecation, Sunset, Link';
/** How long a browser keeps a preflight's answer: 2 hours, Chromium's own ceiling (Firefox allows 24 h). */
export const CORS_MAX_AGE_SEC = 7200;

export interface Cors {
  /** The `Vary` entry CORS adds to every API answer (null with `*`: the answer never depends on `Origin`). */
  vary: 'Origin' | null;
  /**
   * Adds the CORS headers of an API request from an allowed origin. A preflight (OPTIONS with
   * `Access-Control-Request-Method`) from an allowed origin, for a path the contract has, is
   * answered here (204) and true returned: the request goes no further. Anything else (an actual
   * request, a preflight from another origin or for an unknown path) continues to the API, which
   * answers an OPTIONS with 404 `no-such-route`, without CORS headers for another origin.
   */
  handle(req: Request, res: Response, path: string): boolean;
}

/**
 * CORS for the configured origins (CORS_ORIGINS); null when none (then no answer carries CORS
 * headers). `methodsOf` names the methods the contract has for a path (none: unknown path).
 *
 * No `Access-Control-Allow-Credentials`, ever: the API's one credential is the bearer token a
 * script sends in `Authorization` itself; cookies and HTTP authentication are not used, so a page
 * can only use a token it already holds. That is also why `*` may be configured.
 */
export function createCors(origins: readonly string[], methodsOf: (path: string) => string[]): Cors | null {
  if (origins.length === 0) return null;
  const any = origins.length === 1 && origins[0] === '*';
  const allowed = new Set(origins);
  return {
    vary: any ? null : 'Origin',
    handle(req, res, path) {
      const origin = req.headers.origin;
      if (origin === undefined || !(any || allowed.has(origin))) return false;
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        const methods = methodsOf(path);
        if (methods.length > 0) {
          res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
          res.setHeader('Access-Control-Allow-Headers', CORS_ALLOWED_HEADERS);
          res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SEC));
          res.statusCode = 204;
          res.end();
          return true;
        }
      }
      res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
      return false;
    },
  };
}
