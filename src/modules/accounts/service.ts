import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { isOperator, type Principal } from '../../principal.js';
import { sessions, setupLinks } from '../sessions/schema.js';
import { apiTokens } from '../tokens/schema.js';
import { webhooks } from '../webhooks/schema.js';
import { members, users, workspaces } from './schema.js';
import { requireCurrency, requireEmail, requireName, requirePositiveInt, requireRate } from './validation.js';
import { createMembersService } from './members.js';
import { createAccountsReader } from './views.js';

export type { MemberFlags } from './members.js';

export type RunawayAction = 'flagged' | 'capped' | 'stopped';

export interface WorkspaceSettings {
  name?: string;
  /** ISO 4217. Rates and amounts already recorded are not converted: they are read in the new currency. */
  currency?: string;
  runawayLimitSec?: number;
  runawayAction?: RunawayAction;
  rateLimitPerMin?: number | null;
  hourlyRate?: number | null;
}

export interface UserChanges {
  name?: string;
  email?: string;
}

/** The workspace columns a settings change sets, each value checked. */
function workspacePatch(settings: WorkspaceSettings): Partial<typeof workspaces.$inferInsert> {
  const patch: Partial<typeof workspaces.$inferInsert> = {};
  if (settings.name !== undefined) patch.name = requireName(settings.name, 'name');
  if (settings.currency !== undefined) patch.currency = requireCurrency(settings.currency);
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
export function createAccountsService({
  db,
  clock,
  write,
  workspaceRateLimitPerMin = Number.POSITIVE_INFINITY,
}: {
  db: Db;
  clock: Clock;
  write: Write<never>;
  /** RATE_LIMIT_WORKSPACE_PER_MIN: an owner may lower a workspace's budget, or raise it up to this; the operator beyond. */
  workspaceRateLimitPerMin?: number;
}) {
  /** A live account holding `email` (case-insensitively), other than `except`. */
  const emailTaken = (email: string, except?: string) =>
    db
      .select({ id: users.id })
      .from(users)
      .where(and(sql`lower(${users.email}) = lower(${email})`, isNull(users.deletedAt), except ? sql`${users.id} <> ${except}` : undefined))
      .get();
  const emailConflict = (email: string, holder: string) =>
    new DomainError('conflict', `A user with the email ${email} exists already (${holder}).`);

  return {
    ...createAccountsReader(db),
    ...createMembersService({ db, clock, write }),

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

    /** Changes a workspace's settings: an owner of it (within the operator's limits), or the operator. */
    setWorkspace(principal: Principal, id: string, settings: WorkspaceSettings): { id: string } {
      if (!isOperator(principal)) {
        if (!principal.isOwner || principal.workspaceId !== id)
          throw new DomainError('forbidden', "Only the workspace's owners change its settings.");
        if (settings.rateLimitPerMin != null && settings.rateLimitPerMin > workspaceRateLimitPerMin)
          throw new DomainError(
            'invalid',
            `requests per minute may be at most ${workspaceRateLimitPerMin}, the server's limit (RATE_LIMIT_WORKSPACE_PER_MIN); the person who runs the server can set more.`,
          );
      }
      const patch = workspacePatch(settings);
      return write(() => {
        const result = db
          .update(workspaces)
          .set({ ...patch, updatedAt: clock.now() })
          .where(eq(workspaces.id, id))
          .run();
        if (result.changes === 0) throw notFound(`Workspace ${id}`);
        return { id };
      });
    },

    createUser(input: { name: string; email: string }): { id: string } {
      const name = requireName(input.name, 'name');
      const email = requireEmail(input.email);
      return write(() => {
        const taken = emailTaken(email);
        if (taken) throw emailConflict(email, taken.id);
        const id = newId('usr');
        db.insert(users).values({ id, name, email, createdAt: clock.now() }).run();
        return { id };
      });
    },

    /** Renames an account or changes its email (unique among live accounts, case-insensitively). */
    setUser(id: string, changes: UserChanges): { id: string } {
      const patch: Partial<typeof users.$inferInsert> = {};
      if (changes.name !== undefined) patch.name = requireName(changes.name, 'name');
      if (changes.email !== undefined) patch.email = requireEmail(changes.email);
      if (Object.keys(patch).length === 0) throw new DomainError('invalid', 'name at least one of name, email.');
      const email = patch.email;
      return write(
        () => {
          if (email !== undefined) {
            const taken = emailTaken(email, id);
            if (taken) throw emailConflict(email, taken.id);
          }
          const result = db
            .update(users)
            .set(patch)
            .where(and(eq(users.id, id), isNull(users.deletedAt)))
            .run();
          if (result.changes === 0) throw notFound(`User ${id}`);
          return { id };
        },
        { conflict: () => `A user with the email ${email} exists already.` },
      );
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
        // Signed out of the settings page, and its unused setup links end.
        db.delete(sessions).where(eq(sessions.userId, id)).run();
        db.delete(setupLinks).where(eq(setupLinks.userId, id)).run();
        return { id };
      });
    },

    isEmpty(): boolean {
      return db.select({ id: workspaces.id }).from(workspaces).limit(1).get() === undefined;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
