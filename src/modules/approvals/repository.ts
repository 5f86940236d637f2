import { and, asc, desc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { approvalAudit, approvalPeriods, approvalSettings, approvers } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type SettingsRow = typeof approvalSettings.$inferSelect;
export type PeriodRow = typeof approvalPeriods.$inferSelect;
export type AuditRow = typeof approvalAudit.$inferSelect;
export type PeriodState = PeriodRow['state'];

const p = (name: string) => sql.placeholder(name);

/** The two statements of every entry write, each prepared at its first use. */
function approvalStatements(db: Db) {
  return preparedOnFirstUse(db, {
    settings: () =>
      db
        .select()
        .from(approvalSettings)
        .where(eq(approvalSettings.workspaceId, p('workspaceId')))
        .prepare(),
    // The period of a member that locks an instant: submitted or approved, starting at or before it, ending after it.
    lockingPeriod: () =>
      db
        .select()
        .from(approvalPeriods)
        .where(
          and(
            eq(approvalPeriods.workspaceId, p('workspaceId')),
            eq(approvalPeriods.userId, p('userId')),
            lte(approvalPeriods.fromAt, p('at')),
            gt(approvalPeriods.toAt, p('at')),
            inArray(approvalPeriods.state, ['submitted', 'approved']),
          ),
        )
        .orderBy(desc(approvalPeriods.fromAt))
        .limit(1)
        .prepare(),
  });
}

/** Every SQL statement of the approvals module, over its own tables. The two of every entry write are prepared. */
export function createApprovalsRepository(db: Db) {
  const statements = approvalStatements(db);
  return {
    settings: (workspaceId: string): SettingsRow | undefined => statements.settings.get({ workspaceId }),
    saveSettings: (values: typeof approvalSettings.$inferInsert): void => {
      db.insert(approvalSettings).values(values).onConflictDoUpdate({ target: approvalSettings.workspaceId, set: values }).run();
    },
    lockingPeriod: (workspaceId: string, userId: string, at: number): PeriodRow | undefined =>
      statements.lockingPeriod.get({ workspaceId, userId, at }),

    approvers: (workspaceId: string): string[] =>
      db
        .select({ userId: approvers.userId })
        .from(approvers)
        .where(eq(approvers.workspaceId, workspaceId))
        .orderBy(approvers.userId)
        .all()
        .map((r) => r.userId),
    isApprover: (workspaceId: string, userId: string): boolean =>
      db
        .select({ userId: approvers.userId })
        .from(approvers)
        .where(and(eq(approvers.workspaceId, workspaceId), eq(approvers.userId, userId)))
        .get() !== undefined,
    addApprover: (workspaceId: string, userId: string, now: number): void => {
      db.insert(approvers).values({ workspaceId, userId, createdAt: now }).onConflictDoNothing().run();
    },
    removeApprover: (workspaceId: string, userId: string): void => {
      db.delete(approvers)
        .where(and(eq(approvers.workspaceId, workspaceId), eq(approvers.userId, userId)))
        .run();
    },
    /** An account's marks in every workspace (it was deleted). */
    removeApproverEverywhere: (userId: string): void => {
      db.delete(approvers).where(eq(approvers.userId, userId)).run();
    },

    period: (workspaceId: string, id: string): PeriodRow | undefined =>
      db
        .select()
        .from(approvalPeriods)
        .where(and(eq(approvalPeriods.id, id), eq(approvalPeriods.workspaceId, workspaceId)))
        .get(),
    /** A period by id alone (the operator, who acts in every workspace). */
    periodById: (id: string): PeriodRow | undefined => db.select().from(approvalPeriods).where(eq(approvalPeriods.id, id)).get(),
    periodByStart: (workspaceId: string, userId: string, kind: PeriodRow['kind'], startDay: string): PeriodRow | undefined =>
      db
        .select()
        .from(approvalPeriods)
        .where(
          and(
            eq(approvalPeriods.workspaceId, workspaceId),
            eq(approvalPeriods.userId, userId),
            eq(approvalPeriods.kind, kind),
            eq(approvalPeriods.startDay, startDay),
          ),
        )
        .get(),
    /** A workspace's periods in these states (every state when none is given), oldest first. */
    periodsInState: (workspaceId: string, states: PeriodState[] | null): PeriodRow[] =>
      db
        .select()
        .from(approvalPeriods)
        .where(and(eq(approvalPeriods.workspaceId, workspaceId), states === null ? undefined : inArray(approvalPeriods.state, states)))
        .orderBy(asc(approvalPeriods.fromAt), asc(approvalPeriods.userId))
        .all(),
    /** Approved periods of the members, overlapping [from, to) (what an invoice of the range may take). */
    approvedOverlapping: (workspaceId: string, from: number, to: number): Array<{ userId: string; fromAt: number; toAt: number }> =>
      db
        .select({ userId: approvalPeriods.userId, fromAt: approvalPeriods.fromAt, toAt: approvalPeriods.toAt })
        .from(approvalPeriods)
        .where(
          and(
            eq(approvalPeriods.workspaceId, workspaceId),
            eq(approvalPeriods.state, 'approved'),
            sql`${approvalPeriods.fromAt} < ${to}`,
            gt(approvalPeriods.toAt, from),
          ),
        )
        .all(),
    insertPeriod: (values: typeof approvalPeriods.$inferInsert): void => {
      db.insert(approvalPeriods).values(values).run();
    },
    updatePeriod: (id: string, values: Partial<typeof approvalPeriods.$inferInsert>): PeriodRow =>
      db.update(approvalPeriods).set(values).where(eq(approvalPeriods.id, id)).returning().get() as PeriodRow,

    deletePeriod: (workspaceId: string, id: string): void => {
      db.delete(approvalAudit).where(eq(approvalAudit.periodId, id)).run();
      db.delete(approvalPeriods)
        .where(and(eq(approvalPeriods.id, id), eq(approvalPeriods.workspaceId, workspaceId)))
        .run();
    },
    /** A workspace's settings and approver marks (an import that restored them is undone). */
    deleteSettings: (workspaceId: string): void => {
      db.delete(approvers).where(eq(approvers.workspaceId, workspaceId)).run();
      db.delete(approvalSettings).where(eq(approvalSettings.workspaceId, workspaceId)).run();
    },
    insertAudit: (values: typeof approvalAudit.$inferInsert): void => {
      db.insert(approvalAudit).values(values).run();
    },
    audit: (periodId: string): AuditRow[] =>
      db.select().from(approvalAudit).where(eq(approvalAudit.periodId, periodId)).orderBy(asc(approvalAudit.id)).all(),
    /** A workspace's whole audit, in the order it was written (its export). */
    auditOfWorkspace: (workspaceId: string): AuditRow[] =>
      db.select().from(approvalAudit).where(eq(approvalAudit.workspaceId, workspaceId)).orderBy(asc(approvalAudit.id)).all(),
  };
}

export type ApprovalsRepository = ReturnType<typeof createApprovalsRepository>;
