/**
 * The pages' policy: their own style sheet and script only (no inline script or style), forms
 * posting to this site, the live stream and the page's own reads to this site, never framed.
 */
export const PAGES_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "manifest-src 'self'",
].join('; ');
