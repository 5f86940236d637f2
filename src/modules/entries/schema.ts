import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, primaryId, reference, timestamps } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';
import { projects, tags, tasks } from '../catalog/schema.js';

export const entries = sqliteTable(
  'entries',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    authorId: reference('author_id', () => users.id),
    description: text('description').notNull().default(''),
    projectId: text('project_id').references(() => projects.id),
    taskId: text('task_id').references(() => tasks.id),
    billable: integer('billable', { mode: 'boolean' }).notNull(),
    /** Milliseconds since the epoch, UTC. */
    startAt: integer('start_at').notNull(),
    /** Null while the timer runs. */
    endAt: integer('end_at'),
    /** Whole seconds; null while running (computed at read time). */
    durationSec: integer('duration_sec'),
    /** The rate resolved when the entry was written (task, project, member, workspace). */
    hourlyRate: real('hourly_rate'),
    /**
     * The amount in whole cents (kernel/money.ts: rate × duration / 3600 on the rate's decimal,
     * rounded half away from zero) for completed entries: 0 when not billable, null while
     * running or without a rate.
     */
    amountCents: integer('amount_cents'),
    source: text('source', { enum: ['web', 'desktop', 'mobile', 'extension', 'api', 'import'] }).notNull(),
    timeZone: text('time_zone'),
    runawayDetectedAt: integer('runaway_detected_at'),
    runawayElapsedSec: integer('runaway_elapsed_sec'),
    runawayLimitSec: integer('runaway_limit_sec'),
    runawayAction: text('runaway_action', { enum: ['flagged', 'capped', 'stopped'] }),
    runawayResolvedAt: integer('runaway_resolved_at'),
    invoiceId: text('invoice_id'),
    importId: text('import_id'),
    /** The caller's own id for the record (not part of the entry shape; carried in webhooks). */
    originId: text('origin_id'),
    /**
     * The entry's tag ids as a sorted JSON array (null without tags): a copy of entry_tags kept by
     * triggers on it, so reports group and filter by tag from the covering index without a join.
     */
    tagList: text('tag_list'),
    ...timestamps(),
  },
  (t) => [
    // Keyset order of lists and reports: (start, id) within a workspace, and per author.
    index('entries_ws_start').on(t.workspaceId, t.startAt, t.id),
    index('entries_ws_author_start').on(t.workspaceId, t.authorId, t.startAt, t.id),
    // At most one running timer per member per workspace, enforced by the database.
    uniqueIndex('entries_running')
      .on(t.workspaceId, t.authorId)
      .where(sql`${t.endAt} IS NULL`),
    // The longest completed entry bounds how far back an overlap query must look.
    index('entries_ws_duration').on(t.workspaceId, t.durationSec),
    // Reports aggregate completed entries by start from this index alone (it covers every column
    // they read); the report queries name it, since SQLite otherwise prefers an index that
    // saves the GROUP BY sort and then reads the whole table.
    index('entries_report')
      .on(
        t.workspaceId,
        t.startAt,
        t.projectId,
        t.taskId,
        t.authorId,
        t.billable,
        t.durationSec,
        t.amountCents,
        t.id,
        t.endAt,
        t.tagList,
        t.description,
      )
      .where(sql`${t.endAt} IS NOT NULL`),
    // A project's entries by start: an invoice reads its client's projects' entries of a range.
    index('entries_project').on(t.projectId, t.startAt),
    index('entries_task').on(t.taskId),
    // An invoice's entries (voiding releases them); most entries have none, so the index is small.
    index('entries_invoice')
      .on(t.invoiceId)
      .where(sql`${t.invoiceId} IS NOT NULL`),
    // An import's entries (its undo, its cleanup after a failure).
    index('entries_import')
      .on(t.importId)
      .where(sql`${t.importId} IS NOT NULL`),
  ],
);

export const entryTags = sqliteTable(
  'entry_tags',
  {
    entryId: reference('entry_id', () => entries.id, { onDelete: 'cascade' }),
    tagId: reference('tag_id', () => tags.id),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.tagId] }), index('entry_tags_tag').on(t.tagId, t.entryId)],
);

/**
 * What the web app's Delete keeps for its Undo (10 seconds): the deleted entry's row and tag ids
 * as JSON, written in the delete's transaction and taken back by a restore; a job drops them
 * after a minute. No foreign keys: the entry is gone.
 */
export const entryTombstones = sqliteTable(
  'entry_tombstones',
  {
    entryId: text('entry_id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    authorId: text('author_id').notNull(),
    /** JSON `{row, tagIds}` of the entry as it was. */
    snapshot: text('snapshot').notNull(),
    deletedAt: integer('deleted_at').notNull(),
  },
  (t) => [index('entry_tombstones_deleted').on(t.deletedAt)],
);

/**
 * The Stop link of a runaway timer's reminder (mailed to its author): opening it asks to confirm,
 * and the confirmation stops that timer if it still runs. Only the SHA-256 of its secret is
 * stored; it works once, while the timer runs, for 7 days at most.
 */
export const timerStopLinks = sqliteTable(
  'timer_stop_links',
  {
    /** Hex SHA-256 of the secret in the link. */
    secretHash: text('secret_hash').primaryKey(),
    entryId: reference('entry_id', () => entries.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('timer_stop_links_entry').on(t.entryId)],
);

/**
 * What typing a description suggests (the web app's timer): each distinct description a member
 * wrote in a workspace with its project, task, billable and tags, how many of their entries have
 * it (`uses`) and the latest start among them. Kept by triggers on entries in the transaction of
 * every write of an entry (create, edit, delete, import, undo; drizzle/0031_entry_suggestions.sql),
 * so a suggestion reads a handful of rows instead of every matching entry. None is '' in the key
 * columns (a primary key's columns compare NULLs as distinct); an empty description is not kept.
 */
export const entrySuggestions = sqliteTable(
  'entry_suggestions',
  {
    workspaceId: text('workspace_id').notNull(),
    authorId: text('author_id').notNull(),
    description: text('description').notNull(),
    /** '' for none. */
    projectId: text('project_id').notNull(),
    /** '' for none. */
    taskId: text('task_id').notNull(),
    billable: integer('billable', { mode: 'boolean' }).notNull(),
    /** The sorted tag ids as JSON (entries.tag_list), '' for none. */
    tagList: text('tag_list').notNull(),
    uses: integer('uses').notNull(),
    lastStart: integer('last_start').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.authorId, t.description, t.projectId, t.taskId, t.billable, t.tagList] }),
    // A member's suggestions used since a moment (the last 90 days), with what picks and orders
    // them: a suggestion is chosen from the index alone, and only the few shown are read from the
    // table (issue 60: ~900 rows a member in 90 days, each looked up, were most of a suggestion).
    index('entry_suggestions_recent').on(t.workspaceId, t.authorId, t.lastStart, t.description, t.uses),
  ],
);
