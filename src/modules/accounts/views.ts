import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { toIso } from '../../kernel/time.js';
import { members, users, workspaces } from './schema.js';

type WorkspaceRow = typeof workspaces.$inferSelect;
type UserRow = typeof users.$inferSelect;

/** A workspace's settings as `workspace list` and `workspace show` print them. */
const workspaceView = (row: WorkspaceRow) => ({
  id: row.id,
  name: row.name,
  currency: row.currency,
  hourlyRate: row.hourlyRate,
  runawayLimitSec: row.runawayLimitSec,
  runawayAction: row.runawayAction,
  rateLimitPerMin: row.rateLimitPerMin,
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

const userView = (row: Pick<UserRow, 'id' | 'name' | 'email' | 'createdAt'>) => ({
  id: row.id,
  name: row.name,
  email: row.email,
  createdAt: toIso(row.createdAt),
});

const memberColumns = {
  workspaceId: members.workspaceId,
  userId: members.userId,
  name: users.name,
  email: users.email,
  canViewOthersTime: members.canViewOthersTime,
  canViewOthersMoney: members.canViewOthersMoney,
  hourlyRate: members.hourlyRate,
  isOwner: members.isOwner,
  createdAt: members.createdAt,
  updatedAt: members.updatedAt,
};

/**
 * The reads behind `workspace|user|member list|show`. Deleted accounts are not listed (their
 * memberships are gone with them); an unknown id is `not_found`, never an empty answer.
 */
export function createAccountsReader(db: Db) {
  // A new builder each time: drizzle's builders keep their where and order by.
  const memberRows = () =>
    db
      .select(memberColumns)
      .from(members)
      .innerJoin(users, and(eq(users.id, members.userId), isNull(users.deletedAt)));
  const memberView = <T extends { createdAt: number; updatedAt: number }>(row: T) => ({
    ...row,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  });

  const workspaceRow = (id: string): WorkspaceRow => {
    const row = db.select().from(workspaces).where(eq(workspaces.id, id)).get();
    if (!row) throw notFound(`Workspace ${id}`);
    return row;
  };
  const userRow = (id: string): UserRow => {
    const row = db
      .select()
      .from(users)
      .where(and(eq(users.id, id), isNull(users.deletedAt)))
      .get();
    if (!row) throw notFound(`User ${id}`);
    return row;
  };

  return {
    /** Throws `not_found` unless the workspace exists (for lists scoped to a workspace). */
    requireWorkspace(id: string): void {
      workspaceRow(id);
    },

    listWorkspaces() {
      return db.select().from(workspaces).orderBy(asc(workspaces.createdAt), asc(workspaces.id)).all().map(workspaceView);
    },

    /** The settings and the business profile (the invoice issuer fields, null when none was set). */
    getWorkspace(id: string) {
      const row = workspaceRow(id);
      const businessProfile = row.businessProfile === null ? null : (JSON.parse(row.businessProfile) as Record<string, unknown>);
      return { ...workspaceView(row), businessProfile };
    },

    listUsers() {
      return db.select().from(users).where(isNull(users.deletedAt)).orderBy(asc(users.createdAt), asc(users.id)).all().map(userView);
    },

    /** The account and the workspaces it is a member of. */
    getUser(id: string) {
      const row = userRow(id);
      const memberships = db
        .select({
          workspaceId: members.workspaceId,
          workspaceName: workspaces.name,
          canViewOthersTime: members.canViewOthersTime,
          canViewOthersMoney: members.canViewOthersMoney,
          hourlyRate: members.hourlyRate,
          isOwner: members.isOwner,
        })
        .from(members)
        .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
        .where(eq(members.userId, id))
        .orderBy(asc(members.createdAt), asc(members.workspaceId))
        .all();
      return { ...userView(row), memberships };
    },

    listMembers(workspaceId: string) {
      workspaceRow(workspaceId);
      return memberRows()
        .where(eq(members.workspaceId, workspaceId))
        .orderBy(asc(members.createdAt), asc(members.userId))
        .all()
        .map(memberView);
    },

    getMember(input: { workspaceId: string; userId: string }) {
      const row = memberRows()
        .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
        .get();
      if (!row) {
        // Name what is missing: the workspace, the account, or only the membership.
        workspaceRow(input.workspaceId);
        userRow(input.userId);
        throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
      }
      return memberView(row);
    },
  };
}
