import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, primaryId, reference, timestamps } from '../../db/columns.js';

// Timestamps are integer milliseconds since the epoch (UTC) throughout the database.

export const users = sqliteTable(
  'users',
  {
    id: primaryId(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    createdAt: createdAt(),
    /** An account deleted with `user delete`: its tokens, memberships and webhooks are gone. */
    deletedAt: integer('deleted_at'),
    /** The settings page's password: `scrypt$N$r$p$salt$hash` (src/modules/sessions/password.ts); null until set. */
    passwordHash: text('password_hash'),
    passwordSetAt: integer('password_set_at'),
    /** The web app's zone for days and weeks (IANA name); null until the person's browser tells it (first sign-in). */
    timeZone: text('time_zone'),
    /** The first day of the person's week in the web app. */
    weekStart: text('week_start', { enum: ['monday', 'sunday'] }),
    /**
     * With OIDC_ONLY=true, only accounts marked so (by the operator: `timetrack user break-glass`)
     * may still sign in with a password: the owners' way in while the identity provider is down.
     */
    breakGlass: integer('break_glass', { mode: 'boolean' }).notNull().default(false),
    /** How the web app writes times of day: 24-hour (`14:05`) or 12-hour (`2:05 PM`); null: 24-hour. */
    timeFormat: text('time_format', { enum: ['24h', '12h'] }),
    /** The web app's colours: the system's (null), or always light or dark. */
    theme: text('theme', { enum: ['light', 'dark'] }),
    /**
     * The language of the pages and of the mail sent to the person (en, de); null until they
     * choose one (pages then follow the browser, mail is English).
     */
    language: text('language', { enum: ['en', 'de'] }),
    /** Durations with seconds where people read them (`138:30:00`); null or false: hours and minutes (`138:30`). */
    showSeconds: integer('show_seconds', { mode: 'boolean' }),
    /**
     * When the sign-in email was last proved to belong to whoever holds the account: a link mailed
     * to it was opened (a mailed setup link, a reset, an email change's confirmation), the
     * identity provider vouched for it (a verified email), or the operator gave the credentials
     * (a printed setup link, `user password`). Null while nobody did: an owner typed it and the
     * link was shown to them, or it changed without a confirmation (docs/design.md, "Whose address").
     */
    emailProvedAt: integer('email_proved_at'),
  },
  (t) => [
    uniqueIndex('users_email_live')
      .on(sql`lower(${t.email})`)
      .where(sql`${t.deletedAt} IS NULL`),
  ],
);

export const workspaces = sqliteTable('workspaces', {
  id: primaryId(),
  name: text('name').notNull(),
  /** ISO 4217 code. */
  currency: text('currency').notNull().default('EUR'),
  /** The default hourly rate, last in the resolution order task, project, member, workspace. */
  hourlyRate: real('hourly_rate'),
  runawayLimitSec: integer('runaway_limit_sec').notNull().default(36000),
  runawayAction: text('runaway_action', { enum: ['flagged', 'capped', 'stopped'] })
    .notNull()
    .default('flagged'),
  /** Per-workspace override of RATE_LIMIT_WORKSPACE_PER_MIN. */
  rateLimitPerMin: integer('rate_limit_per_min'),
  /** JSON: the business profile (the invoice issuer fields); null when none was set. */
  businessProfile: text('business_profile'),
  ...timestamps(),
});

export const members = sqliteTable(
  'members',
  {
    workspaceId: reference('workspace_id', () => workspaces.id),
    userId: reference('user_id', () => users.id),
    canViewOthersTime: integer('can_view_others_time', { mode: 'boolean' }).notNull().default(false),
    canViewOthersMoney: integer('can_view_others_money', { mode: 'boolean' }).notNull().default(false),
    hourlyRate: real('hourly_rate'),
    /** An owner manages the workspace on the settings page: members, their flags and rates, its settings. */
    isOwner: integer('is_owner', { mode: 'boolean' }).notNull().default(false),
    ...timestamps(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('members_user').on(t.userId)],
);

/**
 * Invitations (decisions §8a): an owner's "Add member" for an email an account already holds
 * never attaches that account; it makes a one-time link, and the account joins only when someone
 * signed in as it opens the link. Only the SHA-256 of the link's secret is stored. Pending until
 * accepted, withdrawn, replaced by a newer one or expired (72 hours).
 */
export const invitations = sqliteTable(
  'invitations',
  {
    /** `ivt_…`: how the owner's page names it (the secret never leaves the link). */
    id: primaryId(),
    /** Hex SHA-256 of the secret in the link. */
    secretHash: text('secret_hash').notNull(),
    workspaceId: reference('workspace_id', () => workspaces.id, { onDelete: 'cascade' }),
    /** The account that holds the email (never shown to the owner). */
    userId: reference('user_id', () => users.id, { onDelete: 'cascade' }),
    /** The email as the owner typed it (what the owner's page shows). */
    email: text('email').notNull(),
    /** What the member gets on joining, chosen by the owner. */
    canViewOthersTime: integer('can_view_others_time', { mode: 'boolean' }).notNull(),
    canViewOthersMoney: integer('can_view_others_money', { mode: 'boolean' }).notNull(),
    hourlyRate: real('hourly_rate'),
    isOwner: integer('is_owner', { mode: 'boolean' }).notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    /** When the account joined through it; withdrawn or replaced ones are deleted. */
    acceptedAt: integer('accepted_at'),
  },
  (t) => [
    uniqueIndex('invitations_secret').on(t.secretHash),
    index('invitations_workspace').on(t.workspaceId, t.userId),
    // An account's own invitations (a session of an account in no workspace lists them: issue 44).
    index('invitations_user').on(t.userId),
  ],
);

/**
 * The email domains whose people may join a workspace by signing in with the identity provider
 * (OIDC) when no account here knows them: an owner lists them on the Workspace page. A person
 * joins every workspace that lists the domain of their verified email, with no flags.
 */
export const workspaceJoinDomains = sqliteTable(
  'workspace_join_domains',
  {
    /** Lower-case, without a leading `@` (`example.org`). */
    domain: text('domain').notNull(),
    workspaceId: reference('workspace_id', () => workspaces.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.domain, t.workspaceId] }), index('workspace_join_domains_workspace').on(t.workspaceId, t.domain)],
);
