import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { newId } from '../../ids.js';
import { requireEmail, requireName, requireRate } from '../../kernel/input.js';
import { secret, sha256 } from '../../kernel/secrets.js';
import { isOperator, type Principal } from '../../principal.js';
import type { Job } from '../../scheduler.js';
import { accountErrors as errors } from './errors.js';
import type { AccountsRepository, InvitationRow } from './repository.js';
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
  const { madeByOwner, accept } = acceptorOf(repo, clock, join);
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

    /** What an invitation's link shows before it is accepted (the workspace, whose language its page speaks, and the address it was sent to), or null. */
    invitation(linkSecret: string): { workspaceId: string; workspaceName: string; email: string; expiresAt: number } | null {
      const row = repo.invitationBySecret(sha256(linkSecret));
      if (!row || row.acceptedAt !== null || row.expiresAt <= clock.now()) return null;
      if (row.createdBy !== 'operator' && repo.membership(row.workspaceId, row.createdBy)?.isOwner !== true) return null;
      const workspace = repo.workspace(row.workspaceId);
      return workspace ? { workspaceId: row.workspaceId, workspaceName: workspace.name, email: row.email, expiresAt: row.expiresAt } : null;
    },

    /**
     * Accepts an invitation for the member signed in (any of their workspaces): only the account
     * it was made for joins, with the flags the owner chose; the link is then used up.
     */
    acceptInvitation(principal: Principal, linkSecret: string): { workspaceId: string } {
      if (isOperator(principal)) throw errors.invitationForAnother();
      return write(() => accept(repo.invitationBySecret(sha256(linkSecret)), principal.userId));
    },

    ...accountInvitationsOf(repo, clock, write, madeByOwner, accept),
  };
}

/** Who accepts an invitation, and how (inside a write): the account it was made for, while its maker is still an owner. */
function acceptorOf(repo: AccountsRepository, clock: Clock, join: ReturnType<typeof joinerOf>) {
  /** Its maker is still an owner of the workspace (issue 44, M4; their leaving or losing the role ends it too). */
  const madeByOwner = (row: InvitationRow): boolean =>
    row.createdBy === 'operator' || repo.membership(row.workspaceId, row.createdBy)?.isOwner === true;
  /** Inside a write: the account joins with the invitation's flags; the invitation is used up. */
  const accept = (row: InvitationRow | undefined, userId: string): { workspaceId: string } => {
    if (!row || row.acceptedAt !== null || row.expiresAt <= clock.now()) throw errors.invitationGone();
    if (row.userId !== userId) throw errors.invitationForAnother();
    if (!madeByOwner(row)) throw errors.invitationGone();
    join(
      row.workspaceId,
      row.userId,
      { canViewOthersTime: row.canViewOthersTime, canViewOthersMoney: row.canViewOthersMoney, isOwner: row.isOwner },
      row.hourlyRate,
    );
    repo.acceptInvitation(row.id, clock.now());
    repo.deleteOpenInvitations(row.workspaceId, row.userId);
    return { workspaceId: row.workspaceId };
  };
  return { madeByOwner, accept };
}

/**
 * The invitations of an account, from its own side (part of the accounts service): its lobby's
 * list and Join (only with a proved address: issue 54, N1), and the sign-in on a link's page.
 */
function accountInvitationsOf(
  repo: AccountsRepository,
  clock: Clock,
  write: Write<never>,
  madeByOwner: (row: InvitationRow) => boolean,
  accept: (row: InvitationRow | undefined, userId: string) => { workspaceId: string },
) {
  /** Whether the account's address was proved to be its holder's (a mailed link opened, the provider, the operator). */
  const provedHolder = (userId: string): boolean => (repo.user(userId)?.emailProvedAt ?? null) !== null;
  /** Whether the invitation was made for the address the account holds now (an address changed since is not the one invited). */
  const forAddressOf = (row: InvitationRow, userId: string): boolean =>
    row.email.toLowerCase() === (repo.user(userId)?.email ?? '').toLowerCase();
  /** An invitation an account may accept without its link (N1): its own, to its address, and the address proved; else undefined. */
  const acceptableById = (userId: string, invitationId: string): InvitationRow | undefined => {
    const row = repo.invitationById(invitationId);
    return row?.userId === userId && provedHolder(userId) && forAddressOf(row, userId) ? row : undefined;
  };

  return {
    /**
     * The open invitations of an account that belongs to no workspace yet, for its own session
     * (the sessions module checked who it is: issue 44). Only an account whose address was proved
     * sees any (issue 54, N1: its password may be someone else's), and only those made for the
     * address it holds now. Those whose maker is no owner any more are not listed (they cannot
     * be accepted).
     */
    invitationsOfAccount(userId: string): { id: string; workspaceName: string; email: string; isOwner: boolean; expiresAt: number }[] {
      if (!provedHolder(userId)) return [];
      return repo.openInvitationsOfUser(userId, clock.now()).flatMap((row) => {
        if (!madeByOwner(row) || !forAddressOf(row, userId)) return [];
        const workspace = repo.workspace(row.workspaceId);
        return workspace
          ? [{ id: row.id, workspaceName: workspace.name, email: row.email, isOwner: row.isOwner, expiresAt: row.expiresAt }]
          : [];
      });
    },

    /**
     * Accepts one of those by its id, inside the sessions module's write: without its link, only
     * an account whose address was proved, for an invitation to the address it holds (N1);
     * another account's reads as gone (no hint that it exists).
     */
    acceptInvitationOfAccount: (userId: string, invitationId: string): { workspaceId: string } =>
      write(() => accept(acceptableById(userId, invitationId), userId)),

    /** Throws what accepting it now would (the identity provider's lobby asks before its sign-in there; I1). */
    checkInvitationOfAccount(userId: string, invitationId: string): void {
      const row = acceptableById(userId, invitationId);
      if (!row || row.acceptedAt !== null || row.expiresAt <= clock.now() || !madeByOwner(row)) throw errors.invitationGone();
    },

    /** The account an open invitation's link is for, or null (the sessions module's sign-in on the link's page). */
    invitedAccount(linkSecret: string): string | null {
      const row = repo.invitationBySecret(sha256(linkSecret));
      return row && row.acceptedAt === null && row.expiresAt > clock.now() && madeByOwner(row) ? row.userId : null;
    },

    /** Accepts an invitation by its link for an account whose password the sessions module checked (inside its write): the link is the proof (N1). */
    acceptInvitationByLink: (userId: string, linkSecret: string): { workspaceId: string } =>
      write(() => accept(repo.invitationBySecret(sha256(linkSecret)), userId)),
  };
}
