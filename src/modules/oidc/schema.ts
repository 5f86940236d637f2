import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, reference } from '../../db/columns.js';
import { users } from '../accounts/schema.js';
import { sessions } from '../sessions/schema.js';

/**
 * Who an account is at the identity provider: its issuer and `sub`, bound at the first sign-in
 * through the provider (matched by the provider's verified email). Later sign-ins find the account
 * by `sub`, so an email changed at the provider (or here) does not lose it. One binding per
 * account and issuer.
 */
export const oidcIdentities = sqliteTable(
  'oidc_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    lastSignInAt: integer('last_sign_in_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), uniqueIndex('oidc_identities_user').on(t.userId, t.issuer)],
);

/**
 * A session opened by a sign-in through the provider: what ends it with the provider's session.
 * `sid` is the provider's session id (back-channel logout names it); the refresh token, when the
 * provider gave one, is sealed with a subkey of the server key bound to the session (AES-256-GCM)
 * and is the only token kept. Goes with its session (cascade).
 */
export const oidcSessions = sqliteTable(
  'oidc_sessions',
  {
    /** The session's row (hex SHA-256 of its cookie's secret). */
    sessionHash: text('session_hash')
      .primaryKey()
      .references(() => sessions.secretHash, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    sid: text('sid'),
    refreshToken: text('refresh_token'),
    /** When the provider last confirmed the session (sign-in, a refresh or a silent check). */
    checkedAt: integer('checked_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('oidc_sessions_sid').on(t.issuer, t.sid), index('oidc_sessions_subject').on(t.issuer, t.subject)],
);
