import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { createdAt, reference } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';

/**
 * One-time setup links (`timetrack user invite`): whoever opens one before it expires sets the
 * account's password and is signed in to its workspace. Only a SHA-256 hash of the link's secret
 * is stored; using a link, or inviting again, ends it.
 */
export const setupLinks = sqliteTable(
  'setup_links',
  {
    /** Hex SHA-256 of the secret in the link. */
    secretHash: text('secret_hash').primaryKey(),
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    workspaceId: reference('workspace_id', () => workspaces.id),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    createdAt: createdAt(),
    /**
     * The owner who made the link on the settings page; null when the operator made it (the
     * command line). An owner's link is checked again when it is used: the account must still
     * have no password and belong only to workspaces that owner owns.
     */
    createdBy: text('created_by'),
    /** The first start's link: its opener also names the account (name and email) beside the password. */
    asksProfile: integer('asks_profile', { mode: 'boolean' }).notNull().default(false),
    /** Mailed to the account's address and never shown to its maker: opening it proves the address. */
    mailed: integer('mailed', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [index('setup_links_user').on(t.userId)],
);

/**
 * Sessions of an account that belongs to no workspace (issue 44): a password sign-in of a person
 * removed from their last workspace, or made by `timetrack user create`. Such a session sees the
 * account's own open invitations and accepts one (a session in that workspace replaces it),
 * nothing else; it ends as sessions do (idle, age, sign-out, a password set, the account gone).
 */
export const lobbySessions = sqliteTable(
  'lobby_sessions',
  {
    /** Hex SHA-256 of the cookie's secret (the same cookie as a session's). */
    secretHash: text('secret_hash').primaryKey(),
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    /** The CSRF token of its forms. */
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    lastSeenAt: integer('last_seen_at').notNull(),
    /** Opened by a sign-in through the identity provider: its Join signs in there again, so the session is the provider's. */
    viaProvider: integer('via_provider', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [index('lobby_sessions_user').on(t.userId)],
);

/**
 * Settings page sessions: a cookie holds the secret, the row its SHA-256 hash. A session is one
 * person in one workspace; every request re-reads the membership, so a removed member or a
 * deleted account is signed out at once.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    /** Hex SHA-256 of the cookie's secret. */
    secretHash: text('secret_hash').primaryKey(),
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    workspaceId: reference('workspace_id', () => workspaces.id),
    /** The CSRF token every form of this session carries. */
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [index('sessions_user').on(t.userId)],
);

/**
 * "Forgot your password?": a one-time link mailed to the account's address, valid one hour.
 * Only the SHA-256 of its secret is stored; a newer request ends the older unused ones.
 */
export const passwordResets = sqliteTable(
  'password_resets',
  {
    /** Hex SHA-256 of the secret in the link. */
    secretHash: text('secret_hash').primaryKey(),
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** The address it was mailed to: a link whose account signs in with another address since does not work (issue 44, L1). */
    sentTo: text('sent_to'),
  },
  (t) => [index('password_resets_user').on(t.userId)],
);

/**
 * A member's change of their own sign-in email while mail is set up (decisions §8a): it takes
 * effect when the link mailed to the new address is opened. Only the SHA-256 of its secret is
 * stored; a newer change ends the older unused ones.
 */
export const emailChanges = sqliteTable(
  'email_changes',
  {
    /** Hex SHA-256 of the secret in the link. */
    secretHash: text('secret_hash').primaryKey(),
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    /** The address asked for (checked again when the link is opened). */
    email: text('email').notNull(),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('email_changes_user').on(t.userId)],
);

/**
 * Sign-in attempts and "Forgot your password?" requests, counted against their budgets
 * (src/modules/sessions/attempts.ts): one row per attempt under each key it counts against, so a
 * restart starts no budget afresh (issue 44). Rows older than the 15-minute window go with the
 * hourly purge.
 */
export const signInAttempts = sqliteTable(
  'sign_in_attempts',
  {
    /** `sign-in:pair:<email>|<address>`, `reset:account:<email>`, … */
    key: text('key').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('sign_in_attempts_key').on(t.key, t.at)],
);
