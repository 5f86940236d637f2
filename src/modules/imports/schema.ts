import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { primaryId, reference } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';

/** One run of `timetrack import` or the Import page: what it read, wrote and refused, and its state. */
export const imports = sqliteTable(
  'imports',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    format: text('format').notNull(),
    fileName: text('file_name').notNull(),
    /** The member who ran it (the page, or --user on the command line); null for the operator. */
    actorUserId: text('actor_user_id').references(() => users.id),
    state: text('state', { enum: ['running', 'done', 'failed', 'undone'] }).notNull(),
    /** Whether it enqueued webhook deliveries (--webhooks): its undo then enqueues entry.deleted. */
    webhooks: integer('webhooks', { mode: 'boolean' }).notNull(),
    rows: integer('rows').notNull().default(0),
    imported: integer('imported').notNull().default(0),
    duplicates: integer('duplicates').notNull().default(0),
    refused: integer('refused').notNull().default(0),
    /** What a failed import said (the reason it was stopped). */
    failure: text('failure'),
    /** The process that runs it, and when it last wrote: a `running` import whose process is gone is failed and cleaned up. */
    pid: integer('pid').notNull(),
    heartbeatAt: integer('heartbeat_at').notNull(),
    startedAt: integer('started_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('imports_workspace').on(t.workspaceId, t.startedAt), index('imports_running').on(t.state)],
);

/**
 * The rows an import wrote, by fingerprint: a row whose fingerprint is here for the workspace
 * was imported already (a re-import skips it). An undone import's fingerprints are deleted.
 */
export const importFingerprints = sqliteTable(
  'import_fingerprints',
  {
    workspaceId: text('workspace_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    importId: text('import_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.fingerprint] }), index('import_fingerprints_import').on(t.importId)],
);

/**
 * The catalog rows, accounts and invoices an import created, and the invoice numbers it restored
 * (its undo deletes the invoices, and the rest that nothing references any more; the numbers tell
 * it whether the workspace gave numbers after them).
 */
export const importCreated = sqliteTable(
  'import_created',
  {
    importId: text('import_id').notNull(),
    kind: text('kind', {
      enum: ['client', 'project', 'task', 'tag', 'user', 'invoice', 'number', 'period', 'approval', 'expense'],
    }).notNull(),
    id: text('id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.kind, t.id] })],
);
