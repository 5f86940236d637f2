import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import type { Write } from '../../db/write.js';
import { DomainError, notFound } from '../../errors.js';
import { type Principal, isOperator } from '../../principal.js';
import { members, users, workspaces } from '../accounts/schema.js';
import { checkPassword, hashPassword } from './password.js';
import { sessions, setupLinks } from './schema.js';
import { type NewSession, secret, sha256 } from './secrets.js';

/** A setup link is valid this long unless the inviter says otherwise. */
export const SETUP_LINK_HOURS = 72;

/** One-time setup links: made by `timetrack user invite` (or an owner), used once to set a password (part of the sessions service). */
export function createSetupLinks({
  db,
  clock,
  write,
  liveMember,
  openSession,
}: {
  db: Db;
  clock: Clock;
  write: Write<never>;
  liveMember: (workspaceId: string, userId: string) => { userId: string; email: string; name: string } | undefined;
  openSession: (userId: string, workspaceId: string) => NewSession;
}) {
  /** The valid, unused link of a secret, with the account and workspace it is for. */
  const validLink = (linkSecret: string) =>
    db
      .select({
        userId: setupLinks.userId,
        workspaceId: setupLinks.workspaceId,
        expiresAt: setupLinks.expiresAt,
        createdBy: setupLinks.createdBy,
      })
      .from(setupLinks)
      .where(and(eq(setupLinks.secretHash, sha256(linkSecret)), isNull(setupLinks.usedAt)))
      .get();

  /**
   * Why an owner may not make (or use) a setup link for an account, or null when they may: a
   * link sets the account's password and signs its opener in as the account, in every workspace
   * it belongs to. So an owner's link is only for an account that has no password yet and whose
   * memberships are all in workspaces this owner owns; anything else is the operator's.
   */
  const ownerMayNotSetUp = (ownerId: string, userId: string, name: string): string | null => {
    const account = db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).get();
    if (account?.passwordHash != null)
      return `${name} has set a password already, so a setup link would replace it: ${name} signs in with it, or, if it is lost, the person who runs the server sets a new one (timetrack user password).`;
    const elsewhere = db
      .select({ workspaceId: members.workspaceId })
      .from(members)
      .where(
        and(
          eq(members.userId, userId),
          sql`not exists (select 1 from ${members} o where o.workspace_id = ${members.workspaceId} and o.user_id = ${ownerId} and o.is_owner = 1)`,
        ),
      )
      .limit(1)
      .get();
    if (elsewhere)
      return `${name} is also a member of a workspace you do not own, and a setup link would open that one too: the person who runs the server makes this link (timetrack user invite).`;
    return null;
  };

  return {
    /**
     * A one-time link's secret for the member to set their password with (ends the member's
     * earlier unused links). `validHours` defaults to 72.
     */
    invite(
      principal: Principal,
      input: { workspaceId: string; userId: string; validHours?: number },
    ): { secret: string; expiresAt: number } {
      const hours = input.validHours ?? SETUP_LINK_HOURS;
      if (!Number.isFinite(hours) || hours <= 0 || hours > 720)
        throw new DomainError('invalid', 'valid hours must be more than 0 and at most 720 (30 days).');
      const owner = isOperator(principal) ? null : principal;
      if (owner && (!owner.isOwner || owner.workspaceId !== input.workspaceId))
        throw new DomainError('forbidden', "Only the workspace's owners make setup links for its members.");
      return write(() => {
        const member = liveMember(input.workspaceId, input.userId);
        if (!member) throw notFound(`Member ${input.userId} of workspace ${input.workspaceId}`);
        const refusal = owner ? ownerMayNotSetUp(owner.userId, input.userId, member.name) : null;
        if (refusal) throw new DomainError('forbidden', refusal);
        const now = clock.now();
        db.delete(setupLinks)
          .where(and(eq(setupLinks.userId, input.userId), isNull(setupLinks.usedAt)))
          .run();
        const linkSecret = secret();
        const expiresAt = now + Math.round(hours * 3_600_000);
        db.insert(setupLinks)
          .values({
            secretHash: sha256(linkSecret),
            userId: input.userId,
            workspaceId: input.workspaceId,
            expiresAt,
            createdAt: now,
            createdBy: owner?.userId ?? null,
          })
          .run();
        return { secret: linkSecret, expiresAt };
      });
    },

    /** The account a setup link is for, while it is valid; null for a used, expired or unknown link. */
    setupLink(linkSecret: string): { name: string; email: string; workspaceName: string } | null {
      const link = validLink(linkSecret);
      if (!link || link.expiresAt <= clock.now()) return null;
      const member = liveMember(link.workspaceId, link.userId);
      if (member && link.createdBy !== null && ownerMayNotSetUp(link.createdBy, link.userId, member.name) !== null) return null;
      const workspace = db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, link.workspaceId)).get();
      return member && workspace ? { name: member.name, email: member.email, workspaceName: workspace.name } : null;
    },

    /**
     * Sets the password through a setup link and opens a session: the link is used up, and every
     * other session of the account ends. Null when the link is no longer valid.
     */
    async completeSetup(linkSecret: string, password: string): Promise<NewSession | null> {
      checkPassword(password);
      const hash = await hashPassword(password);
      return write(() => {
        const link = validLink(linkSecret);
        const member = link && link.expiresAt > clock.now() ? liveMember(link.workspaceId, link.userId) : undefined;
        if (!link || !member) return null;
        // An owner's link is checked again now: the account may have set a password or joined
        // another workspace since it was made.
        if (link.createdBy !== null && ownerMayNotSetUp(link.createdBy, link.userId, member.name) !== null) return null;
        const now = clock.now();
        db.update(setupLinks)
          .set({ usedAt: now })
          .where(eq(setupLinks.secretHash, sha256(linkSecret)))
          .run();
        db.update(users).set({ passwordHash: hash, passwordSetAt: now }).where(eq(users.id, link.userId)).run();
        db.delete(sessions).where(eq(sessions.userId, link.userId)).run();
        return openSession(link.userId, link.workspaceId);
      });
    },
  };
}
