import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { newId } from '../../ids.js';
import { requireEmail, requireName, requireRate } from '../../kernel/input.js';
import { secret, sha256 } from '../../kernel/secrets.js';
import { isOperator, type Principal } from '../../principal.js';
import type { Job } from '../../scheduler.js';
import { accountErrors as errors } from './errors.js';
import type { AccountsRepository } from './repository.js';
import { joinerOf, type MemberFlags } from './joining.js';

/** An invitation is valid this long (decisions §8a). */
export const INVITATION_HOURS = 72;

/**
 * What "Add member" did: a new account made a member (it needs a setup link), or an invitation
 * for an address an account holds already (its link, shown once). Both read alike to the owner.
 */
export type Enrolled =
  | { kind: 'created'; userId: string; name: string; email: string }
  /** `secret`: null when it was mailed (only the address's holder gets the link), else the link to hand over. */
  | { kind: 'invited'; invitationId: string; email: string; secret: string | null; expiresAt: number; mailed: boolean };

/**
 * An invitation's mail (the mail module's, wired in src/services.ts), run inside the write that
 * made it: whether it queued one (false when mail is off).
 */
export type InvitationMailer = (input: {
  workspaceId: string;
  email: string;
  /** The account that holds the address (the mail says nothing of it: decisions §8a). */
  userId: string;
  /** Who added the address: an owner, or null for the operator. */
  invitedBy: string | null;
  secret: string;
  expiresAt: number;
}) => boolean;

/**
 * Who may join a workspace (decisions §8a), part of the accounts service: an owner's "Add a
 * member" makes a new account only for an address no account holds; an address an account
 * holds gets a one-time invitation that only that account, signed in, can accept.
 */
export function invitationsOf({
  repo,
  clock,
  write,
  ownerOrOperator,
  createAccount,
  mailInvitation,
  invitationBudget,
}: {
  repo: AccountsRepository;
  clock: Clock;
  write: Write<never>;
  ownerOrOperator: (principal: Principal, workspaceId: string) => void;
  createAccount: (input: { name: string; email: string }) => { id: string };
  mailInvitation: InvitationMailer;
  invitationBudget: (input: { workspaceId: string; invitedBy: string }) => void;
}) {
  const join = joinerOf(repo, clock);
  return {
    /**
     * An owner's "Add a member" (decisions §8a): a new email makes a new account (no password:
     * it needs a setup link) and a member of the workspace with these flags, in one write; an
     * email an account holds already is never attached: it gets a one-time invitation (valid 72
     * hours; an earlier open one to this workspace ends), and the account joins only when someone
     * signed in as it opens the link. Nothing returned says anything of that account.
     */
    enrollMember(principal: Principal, input: { workspaceId: string; name: string; email: string } & MemberFlags): Enrolled {
      ownerOrOperator(principal, input.workspaceId);
      const email = requireEmail(input.email);
      const hourlyRate = requireRate(input.hourlyRate ?? null, 'hourly rate', 'hourlyRate');
      const typedName = input.name.trim();
      // Either kind mails a link: an owner whose budget is spent makes neither account nor invitation.
      if (!isOperator(principal)) invitationBudget({ workspaceId: input.workspaceId, invitedBy: principal.userId });
      return write((): Enrolled => {
        const existing = repo.userByEmail(email);
        if (existing && repo.membership(input.workspaceId, existing.id)) {
          const stored = repo.user(existing.id);
          throw errors.alreadyMemberNamed(stored?.name ?? email, stored?.email ?? email);
        }
        if (!existing) {
          const name = requireName(typedName, 'name', 'name');
          const userId = createAccount({ name, email }).id;
          join(input.workspaceId, userId, input, hourlyRate);
          return { kind: 'created', userId, name, email };
        }
        const now = clock.now();
        const linkSecret = secret();
        const id = newId('ivt');
        repo.deleteOpenInvitations(input.workspaceId, existing.id);
        repo.insertInvitation({
          id,
          secretHash: sha256(linkSecret),
          workspaceId: input.workspaceId,
          userId: existing.id,
          email,
          canViewOthersTime: input.canViewOthersTime ?? false,
          canViewOthersMoney: input.canViewOthersMoney ?? false,
          hourlyRate,
          isOwner: input.isOwner ?? false,
          createdBy: isOperator(principal) ? 'operator' : principal.userId,
          createdAt: now,
          expiresAt: now + INVITATION_HOURS * 3_600_000,
        });
        const expiresAt = now + INVITATION_HOURS * 3_600_000;
        const mailed = mailInvitation({
          workspaceId: input.workspaceId,
          email,
          userId: existing.id,
          invitedBy: isOperator(principal) ? null : principal.userId,
          secret: linkSecret,
          expiresAt,
        });
        return { kind: 'invited', invitationId: id, email, secret: mailed ? null : linkSecret, expiresAt, mailed };
      });
    },

    /** The workspace's open invitations, as the owner typed them (owners and the operator). */
    invitations(principal: Principal, workspaceId: string) {
      ownerOrOperator(principal, workspaceId);
      return repo.openInvitations(workspaceId, clock.now()).map((row) => ({
        id: row.id,
        email: row.email,
        canViewOthersTime: row.canViewOthersTime,
        canViewOthersMoney: row.canViewOthersMoney,
        isOwner: row.isOwner,
        hourlyRate: row.hourlyRate,
        createdAt: row.createdAt,
        expiresAt: row.expiresAt,
      }));
    },

    /** Accepted invitations, and those expired a day ago, go (the hourly job). */
    purgeInvitations: (): number => write(() => repo.deleteSpentInvitations(clock.now())),

    /** The module's periodic job. */
    jobs: [{ name: 'spent invitations', every: 'hour', run: () => write(() => repo.deleteSpentInvitations(clock.now())) }] satisfies Job[],

    /** Withdraws an open invitation: its link stops working at once. */
    withdrawInvitation(principal: Principal, input: { workspaceId: string; id: string }): void {
      ownerOrOperator(principal, input.workspaceId);
      write(() => {
        if (!repo.deleteInvitation(input.workspaceId, input.id)) throw errors.invitationGone();
      });
    },

    /** What an invitation's link shows before it is accepted (the workspace and the address it was sent to), or null. */
    invitation(linkSecret: string): { workspaceName: string; email: string; expiresAt: number } | null {
      const row = repo.invitationBySecret(sha256(linkSecret));
      if (!row || row.acceptedAt !== null || row.expiresAt <= clock.now()) return null;
      if (row.createdBy !== 'operator' && repo.membership(row.workspaceId, row.createdBy)?.isOwner !== true) return null;
      const workspace = repo.workspace(row.workspaceId);
      return workspace ? { workspaceName: workspace.name, email: row.email, expiresAt: row.expiresAt } : null;
    },

    /**
     * Accepts an invitation for the member signed in (any of their workspaces): only the account
     * it was made for joins, with the flags the owner chose; the link is then used up.
     */
    acceptInvitation(principal: Principal, linkSecret: string): { workspaceId: string } {
      if (isOperator(principal)) throw errors.invitationForAnother();
      return write(() => {
        const row = repo.invitationBySecret(sha256(linkSecret));
        if (!row || row.acceptedAt !== null || row.expiresAt <= clock.now()) throw errors.invitationGone();
        if (row.userId !== principal.userId) throw errors.invitationForAnother();
        // Its maker must still be an owner of the workspace (issue 44, M4; their leaving or losing the role ends it too).
        if (row.createdBy !== 'operator' && repo.membership(row.workspaceId, row.createdBy)?.isOwner !== true)
          throw errors.invitationGone();
        join(
          row.workspaceId,
          row.userId,
          { canViewOthersTime: row.canViewOthersTime, canViewOthersMoney: row.canViewOthersMoney, isOwner: row.isOwner },
          row.hourlyRate,
        );
        repo.acceptInvitation(row.id, clock.now());
        repo.deleteOpenInvitations(row.workspaceId, row.userId);
        return { workspaceId: row.workspaceId };
      });
    },
  };
}
