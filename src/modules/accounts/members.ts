import { and, eq, isNull } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { DomainError, notFound } from '../../errors.js';
import { sessions } from '../sessions/schema.js';
import { apiTokens } from '../tokens/schema.js';
import { members, users, workspaces } from './schema.js';
import { requireRate } from './validation.js';

export interface MemberFlags {
  canViewOthersTime?: boolean;
  canViewOthersMoney?: boolean;
  hourlyRate?: number | null;
  /** Owners manage the workspace on the settings page; a workspace keeps at least one. */
  isOwner?: boolean;
}

/** Memberships: who belongs to a workspace, what they see, their rate (part of the accounts service). */
export function createMembersService({ db, clock, write }: { db: Db; clock: Clock; write: Write<never> }) {
  const liveUser = (id: string) =>
    db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, id), isNull(users.deletedAt)))
      .get();
  const isOwner = (workspaceId: string, userId: string) =>
    db
      .select({ isOwner: members.isOwner })
      .from(members)
      .where(and(eq(members.workspaceId, workspaceId), eq(members.userId, userId)))
      .get()?.isOwner === true;
  /** Inside a write: refuses (and so rolls back) a change that leaves the workspace without an owner. */
  const requireAnOwner = (workspaceId: string) => {
    const owner = db
      .select({ userId: members.userId })
      .from(members)
      .where(and(eq(members.workspaceId, workspaceId), eq(members.isOwner, true)))
      .limit(1)
      .get();
    if (!owner) throw new DomainError('conflict', `Workspace ${workspaceId} would have no owner left; make another member an owner first.`);
  };
  const workspaceExists = (id: string) => db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id)).get();

  return {
    addMember(input: { workspaceId: string; userId: string } & MemberFlags): { workspaceId: string; userId: string } {
      const hourlyRate = requireRate(input.hourlyRate ?? null, 'hourly rate');
      return write(() => {
        if (!workspaceExists(input.workspaceId)) throw notFound(`Workspace ${input.workspaceId}`);
        if (!liveUser(input.userId)) throw notFound(`User ${input.userId}`);
        const now = clock.now();
        const inserted = db
          .insert(members)
          .values({
            workspaceId: input.workspaceId,
            userId: input.userId,
            canViewOthersTime: input.canViewOthersTime ?? false,
            canViewOthersMoney: input.canViewOthersMoney ?? false,
            hourlyRate,
            isOwner: input.isOwner ?? false,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .run();
        if (inserted.changes === 0) {
          throw new DomainError('conflict', `User ${input.userId} is a member of workspace ${input.workspaceId} already.`);
        }
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },

    setMember(input: { workspaceId: string; userId: string } & MemberFlags): { workspaceId: string; userId: string } {
      const patch: Partial<typeof members.$inferInsert> = { updatedAt: clock.now() };
      if (input.canViewOthersTime !== undefined) patch.canViewOthersTime = input.canViewOthersTime;
      if (input.canViewOthersMoney !== undefined) patch.canViewOthersMoney = input.canViewOthersMoney;
      if (input.hourlyRate !== undefined) patch.hourlyRate = requireRate(input.hourlyRate, 'hourly rate');
      if (input.isOwner !== undefined) patch.isOwner = input.isOwner;
      return write(() => {
        const wasOwner = isOwner(input.workspaceId, input.userId);
        const result = db
          .update(members)
          .set(patch)
          .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
          .run();
        if (result.changes === 0) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
        if (wasOwner && input.isOwner === false) requireAnOwner(input.workspaceId);
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },

    /** Removes the member (not the last owner); their settings sessions end; their tokens for this workspace are revoked, so re-adding them does not revive those. */
    removeMember(input: { workspaceId: string; userId: string }): { workspaceId: string; userId: string } {
      return write(() => {
        const wasOwner = isOwner(input.workspaceId, input.userId);
        const result = db
          .delete(members)
          .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
          .run();
        if (result.changes === 0) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
        if (wasOwner) requireAnOwner(input.workspaceId);
        db.delete(sessions)
          .where(and(eq(sessions.workspaceId, input.workspaceId), eq(sessions.userId, input.userId)))
          .run();
        db.update(apiTokens)
          .set({ revokedAt: clock.now() })
          .where(and(eq(apiTokens.workspaceId, input.workspaceId), eq(apiTokens.userId, input.userId), isNull(apiTokens.revokedAt)))
          .run();
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },
  };
}
