import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { isOperator, OPERATOR, type Operator, type Principal } from '../../principal.js';
import { sessionErrors as errors } from './errors.js';
import { checkPassword, type HashCost, hashPassword } from './password.js';
import type { SessionsRepository } from './repository.js';
import { type NewSession, secret, sha256 } from './secrets.js';
import type { SessionAccounts, SessionMail } from './ports.js';

/** What the first start's link asks its opener: their name and sign-in email, and the workspace's name (invitations say it). */
export interface FirstProfile {
  name: string;
  email: string;
  workspace?: string;
}

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
  breakGlassOnly = false,
  passwordCost,
}: {
  repo: SessionsRepository;
  accounts: SessionAccounts;
  clock: Clock;
  write: Write<never>;
  openSession: (userId: string, workspaceId: string) => NewSession;
  mail: SessionMail;
  /** OIDC_ONLY=true: a link sets a password only for a break-glass owner; anyone else's sends them to the provider (N5). */
  breakGlassOnly?: boolean;
  /** scrypt's cost for new passwords (the sessions service's). */
  passwordCost: HashCost;
}) {
  const { providerOnly, validLink, ownerMayNotSetUp } = linkChecksOf(repo, accounts, clock, breakGlassOnly);
  /** The first start's owner names themselves and, when asked, the workspace (inside the caller's write). */
  const nameFirst = (userId: string, workspaceId: string, { workspace, ...profile }: FirstProfile) => {
    accounts.setUser(OPERATOR, userId, profile);
    if (workspace !== undefined) accounts.setWorkspace(OPERATOR, workspaceId, { name: workspace });
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

    /**
     * The account a setup link is for (and the workspace it opens, whose language its page speaks), while it is valid; null for a used, expired or unknown
     * link. `viaProvider`: it sets no password, it sends its opener to the identity provider (N5).
     */
    setupLink(
      linkSecret: string,
    ): { name: string; email: string; workspaceId: string; workspaceName: string; asksProfile: boolean; viaProvider: boolean } | null {
      const valid = validLink(linkSecret);
      return (
        valid && {
          name: valid.member.name,
          workspaceId: valid.link.workspaceId,
          email: valid.member.email,
          workspaceName: valid.member.workspaceName,
          asksProfile: valid.link.asksProfile,
          viaProvider: providerOnly(valid.member.email),
        }
      );
    },

    /**
     * Under OIDC_ONLY, a setup link of anyone but a break-glass owner (N5): used up, it sets no
     * password and opens no session; a mailed one (or the operator's) proves the address, and a
     * first proof ends every password, session, API token and link of the account made before.
     * The person then signs in through the identity provider. The first start's link names the
     * account first (`profile`). False when the link is no longer valid; refused for a link that
     * sets a password.
     */
    setupThroughProvider(linkSecret: string, profile?: FirstProfile): boolean {
      const asked = validLink(linkSecret)?.link.asksProfile === true;
      if (asked) accounts.checkProfile(profile ?? { name: '', email: '' });
      return write(() => {
        const valid = validLink(linkSecret);
        if (!valid) return false;
        if (!providerOnly(valid.member.email)) throw errors.setsPassword();
        // The first start's link: its opener names the account (the provider binds by that email) and the workspace.
        if (valid.link.asksProfile && profile) nameFirst(valid.link.userId, valid.link.workspaceId, profile);
        repo.useLink(valid.link.secretHash, clock.now());
        if (valid.link.mailed || valid.link.createdBy === null) accounts.proveAddress(valid.link.userId, { endPassword: true });
        return true;
      });
    },

    /**
     * Sets the password through a setup link and opens a session: the link is used up, and every
     * other session of the account ends. Null when the link is no longer valid.
     */
    async completeSetup(linkSecret: string, password: string, profile?: FirstProfile): Promise<NewSession | null> {
      const before = validLink(linkSecret);
      if (before && providerOnly(before.member.email)) throw errors.passwordOff();
      const asked = before?.link.asksProfile === true;
      // The name and email a first-start link asks for are checked before the (slow) hash.
      if (asked) accounts.checkProfile(profile ?? { name: '', email: '' });
      checkPassword(password);
      const hash = await hashPassword(password, passwordCost);
      return write(() => {
        const valid = validLink(linkSecret);
        if (!valid) return null;
        if (providerOnly(valid.member.email)) throw errors.passwordOff();
        const { userId, workspaceId } = valid.link;
        // The operator made this link to let its opener name the account (the first start's owner) and the workspace.
        if (valid.link.asksProfile && profile) nameFirst(userId, workspaceId, profile);
        repo.useLink(valid.link.secretHash, clock.now());
        // Only the address's holder could open a mailed link; the operator answers for whom they
        // hand a printed one (the first start's too): either way the holder is vouched for (H1),
        // and a first proof ends what whoever set an earlier password may hold (N6). An owner's
        // link shown to them proves nothing.
        if (valid.link.mailed || valid.link.createdBy === null) accounts.proveAddress(userId);
        accounts.storePasswordHash(userId, hash);
        repo.deleteSessionsOf(userId);
        repo.deleteUnusedResetsOf(userId);
        return openSession(userId, workspaceId);
      });
    },
  };
}

/** The checks of setup links (part of the sessions service): who may make or use one, and for whom it sets no password. */
function linkChecksOf(repo: SessionsRepository, accounts: SessionAccounts, clock: Clock, breakGlassOnly: boolean) {
  /** Whether the link's account signs in through the identity provider only (OIDC_ONLY, and no break-glass owner): no password for it (N5). */
  const providerOnly = (email: string): boolean => breakGlassOnly && accounts.credentials(email)?.breakGlass !== true;
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

  return { providerOnly, validLink, ownerMayNotSetUp };
}
