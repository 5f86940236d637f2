import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { invitations, members, users, workspaceJoinDomains, workspaces } from './schema.js';
import { onFirstUse, preparedOnFirstUse } from '../../db/prepared.js';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type MemberRow = typeof members.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;

const p = (name: string) => sql.placeholder(name);

/** A member as the other modules read it: the flags, the rates and the workspace settings they depend on. */
export interface Membership {
  workspaceId: string;
  userId: string;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  isOwner: boolean;
  /** The member's own rate, then the workspace's default: third and fourth in the rate resolution. */
  hourlyRate: number | null;
  workspaceHourlyRate: number | null;
  currency: string;
  /** The workspace's override of RATE_LIMIT_WORKSPACE_PER_MIN. */
  workspaceRateLimitPerMin: number | null;
  workspaceName: string;
  name: string;
  email: string;
}

/** What a member may see and the workspace's budget: all an API request needs of its token's member. */
export type Access = Pick<Membership, 'canViewOthersTime' | 'canViewOthersMoney' | 'isOwner' | 'currency' | 'workspaceRateLimitPerMin'>;

/** The columns of a member listing (`member list`, the Members page). */
const memberColumns = {
  workspaceId: members.workspaceId,
  userId: members.userId,
  name: users.name,
  email: users.email,
  canViewOthersTime: members.canViewOthersTime,
  canViewOthersMoney: members.canViewOthersMoney,
  hourlyRate: members.hourlyRate,
  isOwner: members.isOwner,
  hasPassword: sql<boolean>`${users.passwordHash} is not null`.mapWith(Boolean),
  createdAt: members.createdAt,
  updatedAt: members.updatedAt,
};

/**
 * Every SQL statement of the accounts module, over its own tables only: users, workspaces and
 * members. The membership lookup runs on every API request and every settings page: prepared.
 */
export function createAccountsRepository(db: Db) {
  const statements = preparedOnFirstUse(db, {
    membership: () =>
      db
        .select({
          workspaceId: members.workspaceId,
          userId: members.userId,
          canViewOthersTime: members.canViewOthersTime,
          canViewOthersMoney: members.canViewOthersMoney,
          isOwner: members.isOwner,
          hourlyRate: members.hourlyRate,
          workspaceHourlyRate: workspaces.hourlyRate,
          currency: workspaces.currency,
          workspaceRateLimitPerMin: workspaces.rateLimitPerMin,
          workspaceName: workspaces.name,
          name: users.name,
          email: users.email,
        })
        .from(members)
        .innerJoin(users, and(eq(users.id, members.userId), isNull(users.deletedAt)))
        .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
        .where(and(eq(members.workspaceId, p('workspaceId')), eq(members.userId, p('userId'))))
        .prepare(),
    workspace: () =>
      db
        .select()
        .from(workspaces)
        .where(eq(workspaces.id, p('id')))
        .prepare(),
    liveUser: () =>
      db
        .select()
        .from(users)
        .where(and(eq(users.id, p('id')), isNull(users.deletedAt)))
        .prepare(),
  });
  // The API's authentication reads this on every request: two primary-key seeks, no user row
  // (deleting an account deletes its memberships and tokens in the same write). A plain statement
  // whose row is an array (Drizzle's mapping of it cost more than the read: issue 60).
  const access = onFirstUse(db, () =>
    db.$client
      .prepare(
        `SELECT m.can_view_others_time, m.can_view_others_money, m.is_owner, w.currency, w.rate_limit_per_min
       FROM members m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.workspace_id = ? AND m.user_id = ?`,
      )
      .raw(true),
  );
  const memberRows = () => listingOf(db);

  return {
    membership: (workspaceId: string, userId: string): Membership | undefined => statements.membership.get({ workspaceId, userId }),
    access: (workspaceId: string, userId: string): Access | undefined => {
      const r = access().get(workspaceId, userId) as [number, number, number, string, number | null] | undefined;
      if (r === undefined) return undefined;
      return {
        canViewOthersTime: r[0] === 1,
        canViewOthersMoney: r[1] === 1,
        isOwner: r[2] === 1,
        currency: r[3],
        workspaceRateLimitPerMin: r[4],
      };
    },

    // Workspaces
    workspace: (id: string): WorkspaceRow | undefined => statements.workspace.get({ id }),
    workspaces: (): WorkspaceRow[] => db.select().from(workspaces).orderBy(asc(workspaces.createdAt), asc(workspaces.id)).all(),
    anyWorkspace: (): boolean => db.select({ id: workspaces.id }).from(workspaces).limit(1).get() !== undefined,
    insertWorkspace: (values: typeof workspaces.$inferInsert): void => {
      db.insert(workspaces).values(values).run();
    },
    updateWorkspace: (id: string, values: Partial<typeof workspaces.$inferInsert>): boolean =>
      db.update(workspaces).set(values).where(eq(workspaces.id, id)).run().changes > 0,
    /** The email domains whose people may join the workspace through the identity provider. */
    joinDomains: (workspaceId: string): string[] =>
      db
        .select({ domain: workspaceJoinDomains.domain })
        .from(workspaceJoinDomains)
        .where(eq(workspaceJoinDomains.workspaceId, workspaceId))
        .orderBy(asc(workspaceJoinDomains.domain))
        .all()
        .map((row) => row.domain),
    replaceJoinDomains: (workspaceId: string, domains: string[]): void => {
      db.delete(workspaceJoinDomains).where(eq(workspaceJoinDomains.workspaceId, workspaceId)).run();
      if (domains.length > 0)
        db.insert(workspaceJoinDomains)
          .values(domains.map((domain) => ({ domain, workspaceId })))
          .run();
    },
    /** The workspaces that let people of this email domain join. */
    workspacesJoinableBy: (domain: string): string[] =>
      db
        .select({ workspaceId: workspaceJoinDomains.workspaceId })
        .from(workspaceJoinDomains)
        .where(eq(workspaceJoinDomains.domain, domain))
        .all()
        .map((row) => row.workspaceId),

    // Users (live: not deleted)
    user: (id: string): UserRow | undefined => statements.liveUser.get({ id }),
    users: (): UserRow[] => db.select().from(users).where(isNull(users.deletedAt)).orderBy(asc(users.createdAt), asc(users.id)).all(),
    /** A live account holding `email` (case-insensitively), other than `except`. */
    userByEmail: (email: string, except?: string): Pick<UserRow, 'id' | 'name' | 'passwordHash' | 'breakGlass'> | undefined =>
      db
        .select({ id: users.id, name: users.name, passwordHash: users.passwordHash, breakGlass: users.breakGlass })
        .from(users)
        .where(
          and(sql`lower(${users.email}) = lower(${email})`, isNull(users.deletedAt), except ? sql`${users.id} <> ${except}` : undefined),
        )
        .get(),
    insertUser: (values: typeof users.$inferInsert): void => {
      db.insert(users).values(values).run();
    },
    updateUser: (id: string, values: Partial<typeof users.$inferInsert>): boolean =>
      db
        .update(users)
        .set(values)
        .where(and(eq(users.id, id), isNull(users.deletedAt)))
        .run().changes > 0,
    userNames: (ids: string[]): Array<{ id: string; name: string }> =>
      ids.length === 0 ? [] : db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids)).all(),
    userContacts: (ids: string[]): Array<{ id: string; name: string; email: string }> =>
      ids.length === 0
        ? []
        : db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, ids)).all(),

    ...membersRepository(db, memberRows),
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;

/** The statements over members (part of the accounts repository). */
function membersRepository(db: Db, memberRows: () => ReturnType<typeof listingOf>) {
  return {
    member: (workspaceId: string, userId: string) =>
      memberRows()
        .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId)))
        .get(),
    members: (workspaceId: string) =>
      memberRows().where(eq(members.workspaceId, workspaceId)).orderBy(asc(members.createdAt), asc(members.userId)).all(),
    /** The workspaces an account is a member of, oldest membership first. */
    memberships: (userId: string) =>
      db
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
        .where(eq(members.userId, userId))
        .orderBy(asc(members.createdAt), asc(members.workspaceId))
        .all(),
    /** Whether the account is a member of a workspace that `ownerId` does not own. */
    memberBeyond: (userId: string, ownerId: string): boolean =>
      db
        .select({ workspaceId: members.workspaceId })
        .from(members)
        .where(
          and(
            eq(members.userId, userId),
            sql`not exists (select 1 from ${members} o where o.workspace_id = ${members.workspaceId} and o.user_id = ${ownerId} and o.is_owner = 1)`,
          ),
        )
        .limit(1)
        .get() !== undefined,
    insertMember: (values: typeof members.$inferInsert): boolean =>
      db.insert(members).values(values).onConflictDoNothing().run().changes > 0,
    updateMember: (workspaceId: string, userId: string, values: Partial<typeof members.$inferInsert>): boolean =>
      db
        .update(members)
        .set(values)
        .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId)))
        .run().changes > 0,
    deleteMember: (workspaceId: string, userId: string): boolean =>
      db
        .delete(members)
        .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId)))
        .run().changes > 0,
    deleteMembershipsOf: (userId: string): void => {
      db.delete(members).where(eq(members.userId, userId)).run();
    },
    hasOwner: (workspaceId: string): boolean =>
      db
        .select({ userId: members.userId })
        .from(members)
        .where(and(eq(members.workspaceId, workspaceId), eq(members.isOwner, true)))
        .limit(1)
        .get() !== undefined,

    // Invitations (decisions §8a)
    insertInvitation: (values: typeof invitations.$inferInsert): void => {
      db.insert(invitations).values(values).run();
    },
    /** The invitation of a link's secret (hash), whatever its state. */
    invitationBySecret: (secretHash: string): InvitationRow | undefined =>
      db.select().from(invitations).where(eq(invitations.secretHash, secretHash)).get(),
    /** A workspace's invitations still open (not accepted, not expired), newest first. */
    openInvitations: (workspaceId: string, now: number): InvitationRow[] =>
      db
        .select()
        .from(invitations)
        .where(and(eq(invitations.workspaceId, workspaceId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now)))
        .orderBy(sql`${invitations.createdAt} desc`, asc(invitations.id))
        .all(),
    /** An account's invitations still open (not accepted, not expired), newest first. */
    openInvitationsOfUser: (userId: string, now: number): InvitationRow[] =>
      db
        .select()
        .from(invitations)
        .where(and(eq(invitations.userId, userId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now)))
        .orderBy(sql`${invitations.createdAt} desc`, asc(invitations.id))
        .all(),
    /** An invitation by its id, whatever its state. */
    invitationById: (id: string): InvitationRow | undefined => db.select().from(invitations).where(eq(invitations.id, id)).get(),
    /** Ends the account's open invitations to the workspace (a newer one replaces them; joining ends them). */
    deleteOpenInvitations: (workspaceId: string, userId: string): void => {
      db.delete(invitations)
        .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.userId, userId), isNull(invitations.acceptedAt)))
        .run();
    },
    /** Ends the open invitations a member made in a workspace (they left it, or are no owner any more), or in every workspace (workspaceId null). */
    deleteOpenInvitationsBy: (workspaceId: string | null, createdBy: string): number =>
      db
        .delete(invitations)
        .where(
          and(
            workspaceId === null ? undefined : eq(invitations.workspaceId, workspaceId),
            eq(invitations.createdBy, createdBy),
            isNull(invitations.acceptedAt),
          ),
        )
        .run().changes,
    deleteInvitation: (workspaceId: string, id: string): boolean =>
      db
        .delete(invitations)
        .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.id, id), isNull(invitations.acceptedAt)))
        .run().changes > 0,
    acceptInvitation: (id: string, now: number): boolean =>
      db
        .update(invitations)
        .set({ acceptedAt: now })
        .where(and(eq(invitations.id, id), isNull(invitations.acceptedAt)))
        .run().changes > 0,
    /** Accepted invitations and ones expired a day ago go (a scheduled job). */
    deleteSpentInvitations: (now: number): number =>
      db
        .delete(invitations)
        .where(sql`${invitations.acceptedAt} is not null or ${invitations.expiresAt} <= ${now - 86_400_000}`)
        .run().changes,
  };
}

/** The member listing's query, joined with the live account (a new builder each call: drizzle's keep their clauses). */
function listingOf(db: Db) {
  return db
    .select(memberColumns)
    .from(members)
    .innerJoin(users, and(eq(users.id, members.userId), isNull(users.deletedAt)));
}
