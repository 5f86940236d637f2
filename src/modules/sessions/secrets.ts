export { secret, sha256 } from '../../kernel/secrets.js';

/** A new session: the cookie's secret (never stored) and the CSRF token of its forms. */
export interface NewSession {
  secret: string;
  csrfToken: string;
}
