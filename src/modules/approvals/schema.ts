import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { createdAt, primaryId, reference, referenceKey, updatedAt } from '../../db/columns.js';
import { users, workspaces } from '../accounts/schema.js';

/**
 * A workspace's approval and lock (decisions §13): no row, or `approval` off and no lock date, is
 * a workspace where nothing is locked but invoiced entries.
 */
export const approvalSettings = sqliteTable('approval_settings', {
  workspaceId: referenceKey('workspace_id', () => workspaces.id),
  /** Members submit their time by week or by month; off: no periods lock, invoices take all time. */
  approval: text('approval', { enum: ['off', 'weekly', 'monthly'] })
    .notNull()
    .default('off'),
  /** The day before which every entry is locked (`YYYY-MM-DD`, read in `lockZone`), or null. */
  lockedBefore: text('locked_before'),
  /** The zone `lockedBefore` is read in: the workspace's default zone when it was set. */
  lockZone: text('lock_zone'),
  /** `lockedBefore`'s start in `lockZone`, as an instant (what the check compares). */
  lockedBeforeAt: integer('locked_before_at'),
  updatedAt: updatedAt(),
});

/** Members an owner marked as approvers (owners approve without a mark). */
export const approvers = sqliteTable(
  'approvers',
  {
    workspaceId: reference('workspace_id', () => workspaces.id),
    userId: reference('user_id', () => users.id),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('approvers_user').on(t.userId)],
);

/**
 * A member's period of time (a week, Monday to Sunday, or a calendar month, in their zone when it
 * was submitted): an entry of theirs belongs to it when its start falls in [fromAt, toAt).
 */
export const approvalPeriods = sqliteTable(
  'approval_periods',
  {
    id: primaryId(),
    workspaceId: reference('workspace_id', () => workspaces.id),
    userId: reference('user_id', () => users.id),
    kind: text('kind', { enum: ['weekly', 'monthly'] }).notNull(),
    /** Its first day (`YYYY-MM-DD`) in `timeZone`. */
    startDay: text('start_day').notNull(),
    timeZone: text('time_zone').notNull(),
    fromAt: integer('from_at').notNull(),
    toAt: integer('to_at').notNull(),
    /** submitted and approved lock its entries; rejected (with its note) and open do not. */
    state: text('state', { enum: ['open', 'submitted', 'approved', 'rejected'] }).notNull(),
    /** The approver's note of the last decision (a rejection's reason), or null. */
    note: text('note'),
    /** Who decided last (approved or rejected) and when; null while it waits or when the operator did. */
    decidedBy: text('decided_by'),
    decidedAt: integer('decided_at'),
    submittedAt: integer('submitted_at'),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('approval_periods_member_period').on(t.workspaceId, t.userId, t.kind, t.startDay),
    // The check of every entry write: a member's periods by their start.
    index('approval_periods_member_from').on(t.workspaceId, t.userId, t.fromAt),
    index('approval_periods_state').on(t.workspaceId, t.state),
  ],
);

/** Who submitted, approved, rejected or reopened which period, and when (kept; never changed). */
export const approvalAudit = sqliteTable(
  'approval_audit',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    workspaceId: reference('workspace_id', () => workspaces.id),
    periodId: reference('period_id', () => approvalPeriods.id),
    action: text('action', { enum: ['submitted', 'approved', 'rejected', 'reopened', 'withdrawn'] }).notNull(),
    /** The member who acted; null for the operator (the command line), or for someone of a restored file no member here is. */
    byUserId: text('by_user_id'),
    /** Who acted as a restored file named them, when no member here is them (else null: `byUserId` names them). */
    byName: text('by_name'),
    note: text('note'),
    at: integer('at').notNull(),
  },
  (t) => [index('approval_audit_period').on(t.periodId, t.id), index('approval_audit_workspace').on(t.workspaceId, t.id)],
);
