import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { isOperator, OPERATOR, type Operator, type Principal } from '../../principal.js';
import { sessionErrors as errors } from './errors.js';
import { checkPassword, hashPassword } from './password.js';
import type { SessionsRepository } from './repository.js';
import { type NewSession, secret, sha256 } from './secrets.js';
import type { SessionAccounts, SessionMail } from './ports.js';

/** A setup link whose secret is handed to its maker (the operator's; an owner's while mail is off). */
export interface ShownLink {
  secret: string;
  expiresAt: number;
  mailed: false;
}
/** An owner's setup link mailed to the member's address: its secret is never shown to the owner. */
export interface MailedLink {
  secret: null;
  expiresAt: number;
  mailed: true;
}

/** A setup link is valid this long unless the inviter says otherwise. */
export const SETUP_LINK_HOURS = 72;

/** One-time setup links: made by `timetrack user invite` (or an owner), used once to set a password (part of the sessions service). */
export function createSetupLinks({
  repo,
  accounts,
  clock,
  write,
  openSession,
  mail,
}: {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  openSession: (userId: string, workspaceId: string) => NewSession;
  mail: SessionMail;
}) {
  /** The valid (unused, unexpired) link of a secret, with its live member. */
  const validLink = (linkSecret: string) => {
    const link = repo.unusedLink(sha256(linkSecret));
    if (!link || link.expiresAt <= clock.now()) return null;
    const member = accounts.membership(link.workspaceId, link.userId);
    if (!member) return null;
    // An owner's link is checked again now: the account may have set a password, joined another
    // workspace, or had its address confirmed since it was made.
    if (link.createdBy !== null && ownerMayNotSetUp(link.createdBy, link.userId, member.name, !link.mailed) !== null) return null;
    return { link, member };
  };

  /**
   * Why an owner may not make (or use) a setup link for an account, or null when they may: a
   * link sets the account's password and signs its opener in as the account, in every workspace
   * it belongs to. So an owner's link is only for an account that has no password yet and whose
   * memberships are all in workspaces this owner owns; anything else is the operator's. A link
   * shown to the owner (mail is off) is only for an account whose address nobody proved: once
   * the person proved it (a mailed link, the identity provider), the owner could sign in as them.
   */
  const ownerMayNotSetUp = (ownerId: string, userId: string, name: string, shown: boolean) => {
    if (accounts.hasPassword(userId)) return errors.hasPassword(name);
    if (accounts.memberBeyond(userId, ownerId)) return errors.memberElsewhere(name);
    if (shown && accounts.emailProved(userId)) return errors.addressProved(name);
    return null;
  };

  return {
    /**
     * A one-time link's secret for the member to set their password with (ends the member's
     * earlier unused links). `validHours` defaults to 72. An owner makes one for their own
     * workspace's members only, under the rules above; the operator for anyone. An owner's link
     * is mailed to the member's address when mail is set up (`mailed`, in the same write) and its
     * secret is then not returned: only the address's holder can open it, which proves the
     * address (H1). Without mail it is returned for the owner to hand over. The operator's is
     * only printed.
     */
    invite<P extends Principal>(
      principal: P,
      input: {
        workspaceId: string;
        userId: string;
        validHours?: number;
        /** The first start's link (the operator's only): its opener also names the account. */
        asksProfile?: boolean;
      },
    ): P extends Operator ? ShownLink : ShownLink | MailedLink {
      const hours = input.validHours ?? SETUP_LINK_HOURS;
      if (!Number.isFinite(hours) || hours <= 0 || hours > 720) throw errors.validHours();
      const who: Principal = principal;
      const owner = isOperator(who) ? null : who;
      if (owner && (!owner.isOwner || owner.workspaceId !== input.workspaceId)) throw errors.ownersOnly();
      return write(() => {
        const member = accounts.membership(input.workspaceId, input.userId);
        if (!member) throw errors.memberNotFound(input.workspaceId, input.userId);
        const refusal = owner ? ownerMayNotSetUp(owner.userId, input.userId, member.name, false) : null;
        if (refusal) throw refusal;
        const now = clock.now();
        repo.deleteUnusedLinksOf(input.userId);
        const linkSecret = secret();
        const expiresAt = now + Math.round(hours * 3_600_000);
        const mailed =
          owner !== null &&
          mail.enabled() &&
          mail.setupLink({ workspaceId: input.workspaceId, userId: input.userId, invitedBy: owner.userId, secret: linkSecret, expiresAt });
        // A link shown to the owner: only while nobody proved the address (the write, mail included, is undone).
        if (owner !== null && !mailed && accounts.emailProved(input.userId)) throw errors.addressProved(member.name);
        repo.insertLink({
          secretHash: sha256(linkSecret),
          userId: input.userId,
          workspaceId: input.workspaceId,
          expiresAt,
          createdAt: now,
          createdBy: owner?.userId ?? null,
          asksProfile: owner === null && input.asksProfile === true,
          mailed,
        });
        const made: ShownLink | MailedLink = mailed
          ? { secret: null, expiresAt, mailed: true }
          : { secret: linkSecret, expiresAt, mailed: false };
        return made as P extends Operator ? ShownLink : ShownLink | MailedLink;
      });
    },

    /** The account a setup link is for, while it is valid; null for a used, expired or unknown link. */
    setupLink(linkSecret: string): { name: string; email: string; workspaceName: string; asksProfile: boolean } | null {
      const valid = validLink(linkSecret);
      return (
        valid && {
          name: valid.member.name,
          email: valid.member.email,
          workspaceName: valid.member.workspaceName,
          asksProfile: valid.link.asksProfile,
        }
      );
    },

    /**
     * Sets the password through a setup link and opens a session: the link is used up, and every
     * other session of the account ends. Null when the link is no longer valid.
     */
    async completeSetup(linkSecret: string, password: string, profile?: { name: string; email: string }): Promise<NewSession | null> {
      const asked = validLink(linkSecret)?.link.asksProfile === true;
      // The name and email a first-start link asks for are checked before the (slow) hash.
      if (asked) accounts.checkProfile(profile ?? { name: '', email: '' });
      checkPassword(password);
      const hash = await hashPassword(password);
      return write(() => {
        const valid = validLink(linkSecret);
        if (!valid) return null;
        const { userId, workspaceId } = valid.link;
        // The operator made this link to let its opener name the account (the first start's owner).
        if (valid.link.asksProfile && profile) accounts.setUser(OPERATOR, userId, profile);
        repo.useLink(valid.link.secretHash, clock.now());
        // Only the address's holder could open a mailed link; the operator answers for whom they
        // hand a printed one (the first start's too): either way the holder is vouched for (H1).
        // An owner's link shown to them proves nothing.
        if (valid.link.mailed || valid.link.createdBy === null) accounts.markEmailProved(userId);
        accounts.storePasswordHash(userId, hash);
        repo.deleteSessionsOf(userId);
        repo.deleteUnusedResetsOf(userId);
        return openSession(userId, workspaceId);
      });
    },
  };
}
