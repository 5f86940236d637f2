import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { apiTokens } from '../tokens/schema.js';
import { webhooks } from '../webhooks/schema.js';
import { members, users, workspaces } from './schema.js';
import { requireCurrency, requireEmail, requireName, requirePositiveInt, requireRate } from './validation.js';

export type RunawayAction = 'flagged' | 'capped' | 'stopped';

export interface WorkspaceSettings {
  runawayLimitSec?: number;
  runawayAction?: RunawayAction;
  rateLimitPerMin?: number | null;
  hourlyRate?: number | null;
}

export interface MemberFlags {
  canViewOthersTime?: boolean;
  canViewOthersMoney?: boolean;
  hourlyRate?: number | null;
}

/** The workspace columns a settings change sets, each value checked. */
function workspacePatch(settings: WorkspaceSettings): Partial<typeof workspaces.$inferInsert> {
  const patch: Partial<typeof workspaces.$inferInsert> = {};
  if (settings.runawayLimitSec !== undefined) patch.runawayLimitSec = requirePositiveInt(settings.runawayLimitSec, 'runaway limit');
  if (settings.runawayAction !== undefined) {
    if (!['flagged', 'capped', 'stopped'].includes(settings.runawayAction)) {
      throw new DomainError('invalid', 'runaway action must be one of flagged, capped, stopped.');
    }
    patch.runawayAction = settings.runawayAction;
  }
  if (settings.rateLimitPerMin !== undefined) {
    patch.rateLimitPerMin = settings.rateLimitPerMin === null ? null : requirePositiveInt(settings.rateLimitPerMin, 'rate limit');
  }
  if (settings.hourlyRate !== undefined) patch.hourlyRate = requireRate(settings.hourlyRate, 'hourly rate');
  return patch;
}

/**
 * Users, workspaces and members: the first-party administration behind the `timetrack` CLI.
 * Deleting an account or removing a member takes effect on the owner's tokens at once.
 */
export function createAccountsService({ db, clock, write }: { db: Db; clock: Clock; write: Write<never> }) {
  const liveUser = (id: string) =>
    db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, id), isNull(users.deletedAt)))
      .get();
  const workspaceExists = (id: string) => db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id)).get();

  return {
    createWorkspace(input: { name: string; currency?: string; hourlyRate?: number | null }): { id: string } {
      const now = clock.now();
      const id = newId('ws');
      db.insert(workspaces)
        .values({
          id,
          name: requireName(input.name, 'name'),
          currency: requireCurrency(input.currency ?? 'EUR'),
          hourlyRate: requireRate(input.hourlyRate ?? null, 'hourly rate'),
          createdAt: now,
          updatedAt: now,
        })
        .run();
      return { id };
    },

    setWorkspace(id: string, settings: WorkspaceSettings): { id: string } {
      const result = db
        .update(workspaces)
        .set({ ...workspacePatch(settings), updatedAt: clock.now() })
        .where(eq(workspaces.id, id))
        .run();
      if (result.changes === 0) throw notFound(`Workspace ${id}`);
      return { id };
    },

    createUser(input: { name: string; email: string }): { id: string } {
      const name = requireName(input.name, 'name');
      const email = requireEmail(input.email);
      return write(() => {
        const taken = db
          .select({ id: users.id })
          .from(users)
          .where(and(sql`lower(${users.email}) = lower(${email})`, isNull(users.deletedAt)))
          .get();
        if (taken) throw new DomainError('conflict', `A user with the email ${email} exists already (${taken.id}).`);
        const id = newId('usr');
        db.insert(users).values({ id, name, email, createdAt: clock.now() }).run();
        return { id };
      });
    },

    /** Deletes the account: its tokens, webhooks and memberships go with it. */
    deleteUser(id: string): { id: string } {
      return write(() => {
        const result = db
          .update(users)
          .set({ deletedAt: clock.now() })
          .where(and(eq(users.id, id), isNull(users.deletedAt)))
          .run();
        if (result.changes === 0) throw notFound(`User ${id}`);
        db.delete(apiTokens).where(eq(apiTokens.userId, id)).run();
        // Their webhooks go too (the delivery log with them): a deleted account sends nothing.
        db.delete(webhooks).where(eq(webhooks.userId, id)).run();
        db.delete(members).where(eq(members.userId, id)).run();
        return { id };
      });
    },

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
      const result = db
        .update(members)
        .set(patch)
        .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
        .run();
      if (result.changes === 0) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
      return { workspaceId: input.workspaceId, userId: input.userId };
    },

    /** Removes the member; their tokens for this workspace are revoked, so re-adding them does not revive those. */
    removeMember(input: { workspaceId: string; userId: string }): { workspaceId: string; userId: string } {
      return write(() => {
        const result = db
          .delete(members)
          .where(and(eq(members.workspaceId, input.workspaceId), eq(members.userId, input.userId)))
          .run();
        if (result.changes === 0) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
        db.update(apiTokens)
          .set({ revokedAt: clock.now() })
          .where(and(eq(apiTokens.workspaceId, input.workspaceId), eq(apiTokens.userId, input.userId), isNull(apiTokens.revokedAt)))
          .run();
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },

    isEmpty(): boolean {
      return db.select({ id: workspaces.id }).from(workspaces).limit(1).get() === undefined;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
