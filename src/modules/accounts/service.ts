import { createRequire } from 'node:module';
import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { DomainError } from '../../errors.js';
import { newId } from '../../ids.js';
import { canonicalTimeZone } from '../../kernel/time.js';
import { requireCurrency, requireEmail, requireName, requirePositiveInt, requireRate } from '../../kernel/input.js';
import { isOperator, type Principal } from '../../principal.js';
import { accountErrors as errors, said } from './errors.js';
import type { Access, AccountsRepository, Membership, WorkspaceRow } from './repository.js';
import type { users, workspaces } from './schema.js';
import { memberView, userView, workspaceView, workspaceWithProfile } from './views.js';
import { type InvitationMailer, invitationsOf } from './invitations.js';

export type { Access, Membership } from './repository.js';
export { type Enrolled, INVITATION_HOURS, type InvitationMailer } from './invitations.js';
export type { MemberFlags } from './joining.js';
import { joinerOf, type MemberFlags } from './joining.js';

export type RunawayAction = 'flagged' | 'capped' | 'stopped';

export interface WorkspaceSettings {
  name?: string;
  /** ISO 4217. Rates and amounts already recorded are not converted: they are read in the new currency. */
  currency?: string;
  runawayLimitSec?: number;
  runawayAction?: RunawayAction;
  rateLimitPerMin?: number | null;
  hourlyRate?: number | null;
  /** Email domains whose people may join by signing in with the identity provider (replaces the list). */
  joinDomains?: string[];
}

export interface UserChanges {
  name?: string;
  email?: string;
}

/** What other modules do when a member leaves or an account goes: run inside the same write. */
type MemberRemoved = (workspaceId: string, userId: string) => void;
type AccountDeleted = (userId: string) => void;
/** What other modules end when an account's credentials end (its sessions, links, tokens): inside the same write. */
type CredentialsEnded = (userId: string) => void;

/** The workspace columns a settings change sets, each value checked. */
function workspacePatch(settings: WorkspaceSettings): Partial<typeof workspaces.$inferInsert> {
  const patch: Partial<typeof workspaces.$inferInsert> = {};
  if (settings.name !== undefined) patch.name = requireName(settings.name, 'name', 'name');
  if (settings.currency !== undefined) patch.currency = requireCurrency(settings.currency);
  if (settings.runawayLimitSec !== undefined)
    patch.runawayLimitSec = requirePositiveInt(settings.runawayLimitSec, 'runaway limit', 'runawayLimitSec');
  if (settings.runawayAction !== undefined) {
    if (!['flagged', 'capped', 'stopped'].includes(settings.runawayAction)) {
      throw new DomainError('invalid', 'runaway action must be one of flagged, capped, stopped.', {
        field: 'runawayAction',
        ...said('accounts.refused.runawayAction'),
      });
    }
    patch.runawayAction = settings.runawayAction;
  }
  if (settings.rateLimitPerMin !== undefined) {
    patch.rateLimitPerMin =
      settings.rateLimitPerMin === null ? null : requirePositiveInt(settings.rateLimitPerMin, 'rate limit', 'rateLimitPerMin');
  }
  if (settings.hourlyRate !== undefined) patch.hourlyRate = requireRate(settings.hourlyRate, 'hourly rate', 'hourlyRate');
  return patch;
}

/**
 * Addresses anyone can have (free and open mail services): a workspace that lets their people
 * join would let in the whole world. The maintained list of the `email-providers` package (about
 * 8,800 domains: outlook.de, yahoo.de, t-online.de, qq.com …; why this one: docs/design.md). Read
 * on first use: compiled into every start (a command's too), the list cost ~5 ms of each.
 */
let openMailDomains: ReadonlySet<string> | undefined;
const isOpenMailDomain = (domain: string): boolean =>
  (openMailDomains ??= new Set(createRequire(import.meta.url)('email-providers/all.json') as string[])).has(domain);

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** The email domains a workspace lets join: lower case, without `@`, each a real domain name, at most 20, no open mail service. */
export function requireJoinDomains(list: string[]): string[] {
  const domains = [...new Set(list.map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter((d) => d !== ''))];
  if (domains.length > 20)
    throw new DomainError('invalid', 'join domains: at most 20 domains.', {
      field: 'joinDomains',
      ...said('accounts.refused.joinDomainsMany'),
    });
  for (const domain of domains) {
    if (!DOMAIN.test(domain))
      throw new DomainError('invalid', `join domains: ${JSON.stringify(domain)} is not a domain name such as example.org.`, {
        field: 'joinDomains',
        ...said('accounts.refused.joinDomainBad', { domain: JSON.stringify(domain) }),
      });
    if (isOpenMailDomain(domain))
      throw new DomainError('invalid', `join domains: anyone can have an address at ${domain}; list your organisation's own domain.`, {
        field: 'joinDomains',
        ...said('accounts.refused.joinDomainOpen', { domain }),
      });
  }
  return domains.sort();
}

/**
 * A workspace's name and settings as a file of its export carries them (issue 56 item 6), checked
 * by the rules of the Workspace page: each value as stored, or a DomainError naming it.
 */
export function checkWorkspaceSettings(settings: Partial<ExportedWorkspaceSettings>): Partial<ExportedWorkspaceSettings> {
  const { joinDomains, ...rest } = settings;
  const patch = workspacePatch(rest);
  return {
    ...(patch.name === undefined ? {} : { name: patch.name }),
    ...(patch.runawayLimitSec === undefined ? {} : { runawayLimitSec: patch.runawayLimitSec }),
    ...(patch.runawayAction === undefined ? {} : { runawayAction: patch.runawayAction }),
    ...(patch.rateLimitPerMin === undefined ? {} : { rateLimitPerMin: patch.rateLimitPerMin }),
    ...(joinDomains === undefined ? {} : { joinDomains: requireJoinDomains(joinDomains) }),
  };
}

/** A person's own settings of the web app and the language of their mail, as they are kept. */
export interface Preferences {
  timeZone: string | null;
  weekStart: 'monday' | 'sunday' | null;
  timeFormat: '24h' | '12h' | null;
  theme: 'light' | 'dark' | null;
  /** The language of their pages and mail; null until chosen (pages follow the browser, mail is English). */
  language: 'en' | 'de' | null;
  /** Durations with seconds where people read them; null until chosen (without). */
  showSeconds: boolean | null;
}

export interface PreferenceInput {
  timeZone?: string;
  weekStart?: string;
  timeFormat?: string;
  /** `system` (or null) follows the browser's. */
  theme?: string | null;
  language?: string;
  /** How durations read: `minutes` (138:30) or `seconds` (138:30:00). */
  durations?: string;
}

/** A member's own profile as the Profile form gives it (checked before it is kept). */
export interface ProfileInput {
  name: string;
  email: string;
  timeZone: string;
  weekStart: string;
  timeFormat?: string;
  theme?: string;
  language?: string;
  durations?: string;
}

/** A person's zone, first day of the week, time format, colours and language of their mail, each given checked (the zone canonical). */
function preferencePatch(input: PreferenceInput) {
  const patch: {
    timeZone?: string;
    weekStart?: 'monday' | 'sunday';
    timeFormat?: '24h' | '12h';
    theme?: 'light' | 'dark' | null;
    language?: 'en' | 'de';
    showSeconds?: boolean;
  } = {};
  if (input.durations !== undefined) {
    if (input.durations !== 'minutes' && input.durations !== 'seconds')
      throw new DomainError('invalid', 'durations must be minutes or seconds.', {
        field: 'durations',
        ...said('accounts.refused.durations'),
      });
    patch.showSeconds = input.durations === 'seconds';
  }
  if (input.language !== undefined) {
    if (input.language !== 'en' && input.language !== 'de')
      throw new DomainError('invalid', 'language must be en (English) or de (Deutsch).', {
        field: 'language',
        ...said('accounts.refused.language'),
      });
    patch.language = input.language;
  }
  if (input.timeFormat !== undefined) {
    if (input.timeFormat !== '24h' && input.timeFormat !== '12h')
      throw new DomainError('invalid', 'time format must be 24h or 12h.', { field: 'timeFormat', ...said('accounts.refused.timeFormat') });
    patch.timeFormat = input.timeFormat;
  }
  if (input.theme !== undefined) {
    if (input.theme !== null && !['system', 'light', 'dark'].includes(input.theme))
      throw new DomainError('invalid', 'colours must be system, light or dark.', { field: 'theme', ...said('accounts.refused.theme') });
    patch.theme = input.theme === 'light' || input.theme === 'dark' ? input.theme : null;
  }
  if (input.timeZone !== undefined) patch.timeZone = canonicalTimeZone(input.timeZone, 'time zone');
  if (input.weekStart !== undefined) {
    if (input.weekStart !== 'monday' && input.weekStart !== 'sunday')
      throw new DomainError('invalid', 'first day of the week must be monday or sunday.', {
        field: 'weekStart',
        ...said('accounts.refused.weekStart'),
      });
    patch.weekStart = input.weekStart;
  }
  return patch;
}

/** The changes of `member set`: each flag given, the rate checked. */
function memberPatch(flags: MemberFlags, now: number) {
  const patch: { updatedAt: number } & MemberFlags = { updatedAt: now };
  if (flags.canViewOthersTime !== undefined) patch.canViewOthersTime = flags.canViewOthersTime;
  if (flags.canViewOthersMoney !== undefined) patch.canViewOthersMoney = flags.canViewOthersMoney;
  if (flags.hourlyRate !== undefined) patch.hourlyRate = requireRate(flags.hourlyRate, 'hourly rate', 'hourlyRate');
  if (flags.isOwner !== undefined) patch.isOwner = flags.isOwner;
  return patch;
}

/**
 * Users, workspaces and members. The operator (the command line) may do everything; an owner
 * manages their workspace's settings and members on the settings page, within the operator's
 * limits. Removing a member or deleting an account tells the other modules in the same write
 * (their tokens, sessions and webhooks end at once).
 */
export function createAccountsService({
  repo,
  clock,
  write,
  workspaceRateLimitPerMin = Number.POSITIVE_INFINITY,
  mailInvitation = () => false,
  invitationBudget = () => undefined,
}: {
  repo: AccountsRepository;
  clock: Clock;
  write: Write<never>;
  /** An invitation's mail (the mail module's); none without it. */
  mailInvitation?: InvitationMailer;
  /** Refuses (429) "Add member" while the owner's or the workspace's mail budget is spent, before anything is made (issue 44, M5). */
  invitationBudget?: (input: { workspaceId: string; invitedBy: string }) => void;
  /** RATE_LIMIT_WORKSPACE_PER_MIN: an owner may lower a workspace's budget, or raise it up to this; the operator beyond. */
  workspaceRateLimitPerMin?: number;
}) {
  const removedListeners: MemberRemoved[] = [];
  const deletedListeners: AccountDeleted[] = [];
  const credentialsListeners: CredentialsEnded[] = [];

  const found = <T>(row: T | undefined, error: () => DomainError): T => {
    if (row === undefined) throw error();
    return row;
  };
  const workspaceRow = (id: string): WorkspaceRow => found(repo.workspace(id), () => errors.workspaceNotFound(id));
  /** An owner of this workspace, or the operator; anyone else is refused. */
  const ownerOrOperator = (principal: Principal, workspaceId: string): void => {
    if (!isOperator(principal) && (!principal.isOwner || principal.workspaceId !== workspaceId)) throw errors.ownersOnly();
  };
  const operatorOnly = (principal: Principal, what: string): void => {
    if (!isOperator(principal)) throw errors.operatorOnly(what);
  };
  const createAccount = (input: { name: string; email: string }): { id: string } => {
    const name = requireName(input.name, 'name', 'name');
    const email = requireEmail(input.email);
    return write(() => {
      const taken = repo.userByEmail(email);
      if (taken) throw errors.emailTaken(email, taken.id);
      const id = newId('usr');
      repo.insertUser({ id, name, email, createdAt: clock.now() });
      return { id };
    });
  };

  return {
    /** Another module's reaction to a member leaving a workspace, run inside the same write. */
    onMemberRemoved: (listener: MemberRemoved) => void removedListeners.push(listener),
    /** Another module's reaction to an account being deleted, run inside the same write. */
    onAccountDeleted: (listener: AccountDeleted) => void deletedListeners.push(listener),
    /** Another module's reaction to an account's credentials ending (H1: its sessions, links, tokens), run inside the same write. */
    onCredentialsEnded: (listener: CredentialsEnded) => void credentialsListeners.push(listener),

    ...portsOf(repo, clock, workspaceRow, firstProofOf(repo, clock, credentialsListeners)),

    ...workspacesOf({ repo, clock, write, workspaceRow, ownerOrOperator, operatorOnly, workspaceRateLimitPerMin }),

    // Users
    createUser(principal: Principal, input: { name: string; email: string }): { id: string } {
      operatorOnly(principal, 'create an account');
      return createAccount(input);
    },

    /** A new account (no password): the operator's `user create`, an owner adding a member, an import creating one. */
    createAccount,

    /** Who may be matched to a file's users (an import, acting for a principal it has checked): every member, with name and email. */
    memberDirectory: (workspaceId: string): Array<{ userId: string; name: string; email: string }> =>
      repo.members(workspaceId).map((m) => ({ userId: m.userId, name: m.name, email: m.email })),

    /** Whether an account holds the email (an import's check; never shown to anyone). */
    emailHeld: (email: string): boolean => repo.userByEmail(email.trim().toLowerCase()) !== undefined,

    /**
     * A user of an imported file made a member (`--create-members`, inside the import's write):
     * the account found by email, or created (no password: `user invite` later), joined to the
     * workspace without flags. Its id.
     */
    joinImported(workspaceId: string, input: { name: string; email: string }): string {
      const email = requireEmail(input.email);
      const userId = repo.userByEmail(email)?.id ?? createAccount({ name: input.name || email, email }).id;
      const now = clock.now();
      repo.insertMember({
        workspaceId,
        userId,
        canViewOthersTime: false,
        canViewOthersMoney: false,
        hourlyRate: null,
        isOwner: false,
        createdAt: now,
        updatedAt: now,
      });
      return userId;
    },

    ...ratesTransfer(repo, clock, workspaceRateLimitPerMin),

    ...profilesOf(repo, write),

    ...providerAccountsOf({ repo, clock, write, createAccount, credentialsListeners }),

    /**
     * Marks an account as break-glass (the operator): with OIDC_ONLY=true it may still sign in
     * with its password, for when the identity provider is down. Only for an owner of a workspace.
     */
    setBreakGlass(principal: Principal, userId: string, on: boolean): { id: string; breakGlass: boolean } {
      operatorOnly(principal, 'mark a break-glass account');
      return write(() => {
        if (!repo.user(userId)) throw errors.userNotFound(userId);
        if (on && !repo.memberships(userId).some((m) => m.isOwner))
          throw new DomainError(
            'invalid',
            `User ${userId} owns no workspace: break-glass sign-in is for owners, who can set things right while the identity provider is down. Make them an owner first (member set --owner true).`,
          );
        repo.updateUser(userId, { breakGlass: on });
        return { id: userId, breakGlass: on };
      });
    },

    listUsers(principal: Principal) {
      operatorOnly(principal, 'list every account');
      return repo.users().map(userView);
    },

    /** The account and the workspaces it is a member of. */
    getUser(principal: Principal, id: string) {
      if (!isOperator(principal) && principal.userId !== id) throw errors.userNotFound(id);
      const row = found(repo.user(id), () => errors.userNotFound(id));
      return { ...userView(row), memberships: repo.memberships(id) };
    },

    /** Deletes the account: its tokens, webhooks, sessions and memberships go with it. */
    deleteUser(principal: Principal, id: string): { id: string } {
      operatorOnly(principal, 'delete an account');
      return write(() => {
        if (!repo.updateUser(id, { deletedAt: clock.now() })) throw errors.userNotFound(id);
        for (const listener of deletedListeners) listener(id);
        repo.deleteMembershipsOf(id);
        repo.deleteOpenInvitationsBy(null, id);
        return { id };
      });
    },

    ...membersOf({ repo, clock, write, ownerOrOperator, removedListeners }),

    ...invitationsOf({ repo, clock, write, ownerOrOperator, createAccount, mailInvitation, invitationBudget }),
  };
}

/** What the identity provider's sign-in does to accounts (the oidc module's, inside its write): joining by domain, vouching for an address. */
function providerAccountsOf({
  repo,
  clock,
  write,
  createAccount,
  credentialsListeners,
}: {
  repo: AccountsRepository;
  clock: Clock;
  write: Write<never>;
  createAccount: (input: { name: string; email: string }) => { id: string };
  credentialsListeners: CredentialsEnded[];
}) {
  return {
    /**
     * Someone no account here knows, signed in through the identity provider with a verified
     * email (inside the caller's write): a new account (no password) and a member, with no flags,
     * of every workspace that lets people of the email's domain join. Its id, or null when no
     * workspace does (nothing is written then).
     */
    joinByDomain(input: { name: string; email: string }): string | null {
      const email = requireEmail(input.email);
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      // An open mail domain a workspace listed before it was refused (the list grew): it lets nobody in.
      const workspaceIds = isOpenMailDomain(domain) ? [] : repo.workspacesJoinableBy(domain);
      if (workspaceIds.length === 0) return null;
      return write(() => {
        const { id } = createAccount({ name: input.name.trim().slice(0, 200) || email.slice(0, email.lastIndexOf('@')), email });
        // The provider verified the address: it is proved from the start.
        repo.updateUser(id, { emailProvedAt: clock.now() });
        const join = joinerOf(repo, clock);
        for (const workspaceId of workspaceIds) join(workspaceId, id, {}, null);
        return id;
      });
    },

    /**
     * The identity provider vouched for the account's address (its verified email, inside the
     * oidc write that binds the account to the provider's user). When nobody had proved the
     * address (an owner typed it, and whoever opened the link shown to them set the password),
     * someone else may hold its password, sessions, tokens or links: they all end first, so the
     * account is the provider's user's alone (docs/design.md, "Whose address"). Then the address
     * is proved. Returns whether the account had a password (it no longer works).
     */
    addressVouchedFor(userId: string): boolean {
      const row = repo.user(userId);
      if (!row) throw errors.userNotFound(userId);
      if (row.emailProvedAt !== null) return false;
      repo.updateUser(userId, { passwordHash: null, passwordSetAt: null, emailProvedAt: clock.now() });
      for (const listener of credentialsListeners) listener(userId);
      return row.passwordHash !== null;
    },
  };
}

/**
 * The first proof of an account's address (issue 54, N6; docs/design.md, "Whose address"),
 * inside the caller's write: the address is marked proved, and when nobody had proved it before
 * and the account had a password, whoever set that password may hold sessions, API tokens
 * (every workspace) and open setup, reset or email-change links of it: they all end. An account
 * that never had a password holds only what the operator made for it (their tokens stay).
 * Returns whether credentials ended.
 */
function firstProofOf(repo: AccountsRepository, clock: Clock, credentialsListeners: CredentialsEnded[]) {
  return (userId: string, options: { provedBefore?: boolean; endPassword?: boolean } = {}): boolean => {
    const row = repo.user(userId);
    if (!row) throw errors.userNotFound(userId);
    const provedBefore = options.provedBefore ?? row.emailProvedAt !== null;
    const held = !provedBefore && row.passwordHash !== null;
    const password = held && options.endPassword === true ? { passwordHash: null, passwordSetAt: null } : {};
    repo.updateUser(userId, { emailProvedAt: provedBefore ? (row.emailProvedAt ?? clock.now()) : clock.now(), ...password });
    if (held) for (const listener of credentialsListeners) listener(userId);
    return held;
  };
}

/** A person's own account: name, sign-in email (a member's changes only with their password), zone and first day. */
function profilesOf(repo: AccountsRepository, write: Write<never>) {
  /** Sets a person's zone and first day of the week: the account itself, or the operator. */
  function setPreferences(principal: Principal, userId: string, input: PreferenceInput): void {
    if (!isOperator(principal) && principal.userId !== userId) throw errors.userNotFound(userId);
    const patch = preferencePatch(input);
    write(() => {
      if (!repo.updateUser(userId, patch)) throw errors.userNotFound(userId);
    });
  }
  /**
   * Renames an account or changes its email (unique among live accounts): the operator, or the
   * account itself; a member's own email changes only with their current password (the sessions
   * service checks it, then `storeEmail`), so here it must stay as it is.
   */
  function setUser(principal: Principal, id: string, changes: UserChanges): { id: string } {
    if (!isOperator(principal) && principal.userId !== id) throw errors.userNotFound(id);
    if (!isOperator(principal) && changes.email !== undefined) {
      const stored = repo.user(id)?.email ?? '';
      if (requireEmail(changes.email).toLowerCase() !== stored.toLowerCase()) throw errors.emailNeedsPassword();
    }
    const patch: UserChanges = {};
    if (changes.name !== undefined) patch.name = requireName(changes.name, 'name', 'name');
    if (changes.email !== undefined) patch.email = requireEmail(changes.email);
    if (Object.keys(patch).length === 0)
      throw new DomainError('invalid', 'name at least one of name, email.', said('accounts.refused.nothingToChange'));
    const email = patch.email;
    return write(
      () => {
        let changes: Partial<typeof users.$inferInsert> = patch;
        if (email !== undefined) {
          const taken = repo.userByEmail(email, id);
          if (taken) throw isOperator(principal) ? errors.emailTaken(email, taken.id) : errors.emailNotUsable();
          // A new address typed here is proved by nobody (docs/design.md, "Whose address").
          if (email.toLowerCase() !== (repo.user(id)?.email ?? '').toLowerCase()) changes = { ...patch, emailProvedAt: null };
        }
        if (!repo.updateUser(id, changes)) throw errors.userNotFound(id);
        return { id };
      },
      {
        conflict: () => (isOperator(principal) ? errors.emailTaken(email ?? '') : errors.emailNotUsable()).message,
        conflictField: 'email',
      },
    );
  }

  return {
    /**
     * The web app's Profile form in one write: name, email, zone and first day together, so a
     * refused email (taken) leaves the zone as it was too. The account itself, or the operator.
     */
    setProfile(principal: Principal, userId: string, input: ProfileInput): void {
      write(() => {
        setPreferences(principal, userId, {
          timeZone: input.timeZone,
          weekStart: input.weekStart,
          ...(input.timeFormat === undefined ? {} : { timeFormat: input.timeFormat }),
          ...(input.theme === undefined ? {} : { theme: input.theme }),
          ...(input.language === undefined ? {} : { language: input.language }),
          ...(input.durations === undefined ? {} : { durations: input.durations }),
        });
        setUser(principal, userId, { name: input.name, email: input.email });
      });
    },
    setPreferences,
    setUser,
  };
}

/**
 * What the other modules read and write of accounts, without a principal (they act for one
 * already): a member's flags and rates, passwords, names, the business profile.
 */
function portsOf(
  repo: AccountsRepository,
  clock: Clock,
  workspaceRow: (id: string) => WorkspaceRow,
  firstProof: ReturnType<typeof firstProofOf>,
) {
  return {
    /** The member as other modules need it (flags, rates, the workspace's currency and budget), or undefined. */
    membership: (workspaceId: string, userId: string): Membership | undefined => repo.membership(workspaceId, userId),
    /** The flags, owner role, currency and budget of a member (the API's authentication, on every request). */
    access: (workspaceId: string, userId: string): Access | undefined => repo.access(workspaceId, userId),
    /** Throws `not_found` unless the workspace exists. */
    requireWorkspace(id: string): void {
      workspaceRow(id);
    },
    isEmpty: (): boolean => !repo.anyWorkspace(),
    userNames: (ids: string[]) => repo.userNames(ids),
    /** Names and emails of accounts by id, members or not (the authors of a workspace's export). */
    userContacts: (ids: string[]) => repo.userContacts(ids),
    /** A person's own zone and first day of the week (the web app's days and weeks); null when not chosen yet. */
    preferences: (userId: string): Preferences => {
      const row = repo.user(userId);
      return {
        timeZone: row?.timeZone ?? null,
        weekStart: row?.weekStart ?? null,
        timeFormat: row?.timeFormat ?? null,
        theme: row?.theme ?? null,
        language: row?.language ?? null,
        showSeconds: row?.showSeconds ?? null,
      };
    },
    /** A workspace's name (what mail says it is about), or null when there is none. */
    workspaceName: (workspaceId: string): string | null => repo.workspace(workspaceId)?.name ?? null,

    /**
     * Throws the refusal a name and email would get (empty name, malformed email), and a
     * workspace's name when given (the first start's), before any slow work.
     */
    checkProfile(input: { name: string; email: string; workspace?: string }): void {
      requireName(input.name, 'name', 'name');
      requireEmail(input.email);
      if (input.workspace !== undefined) requireName(input.workspace, "workspace's name", 'workspace');
    },

    /**
     * A member's new sign-in email, after the sessions module checked their current password
     * (inside its write): unique among live accounts; a taken one is refused without saying so.
     * `proved`: its confirmation link, mailed to it, was opened; else nobody proved it.
     */
    storeEmail(userId: string, email: string, proved: boolean): boolean {
      const checked = requireEmail(email);
      if (repo.userByEmail(checked, userId)) throw errors.emailNotUsable();
      const provedBefore = (repo.user(userId)?.emailProvedAt ?? null) !== null;
      if (!repo.updateUser(userId, { email: checked, emailProvedAt: null })) throw errors.userNotFound(userId);
      // Its confirmation link was opened: proved; the first proof of the account ends what others may hold (N6).
      return proved && firstProof(userId, { provedBefore });
    },
    /** Whether the account's password was set after `at` (a reset link mailed before then no longer works). */
    passwordSetAfter: (userId: string, at: number): boolean => (repo.user(userId)?.passwordSetAt ?? Number.NEGATIVE_INFINITY) > at,
    /** Whether the account's sign-in email was proved to be its holder's (docs/design.md, "Whose address"). */
    emailProved: (userId: string): boolean => (repo.user(userId)?.emailProvedAt ?? null) !== null,
    /**
     * A link mailed to the account's address was opened, or the operator handed out its
     * credentials (inside the caller's write): the address is proved; the first proof ends what
     * whoever set its password may hold (sessions, API tokens, links: N6). `endPassword`: that
     * password ends too (a setup link that sends its opener to the identity provider). Returns
     * whether credentials ended.
     */
    proveAddress: (userId: string, options: { endPassword?: boolean } = {}): boolean => firstProof(userId, options),
    /** Refuses (without saying why beyond "not usable") an address another live account holds. */
    checkEmailFree(userId: string, email: string): void {
      if (repo.userByEmail(requireEmail(email), userId)) throw errors.emailNotUsable();
    },
    /** An account's own name and sign-in email. */
    userOf: (userId: string): { name: string; email: string } | undefined => {
      const row = repo.user(userId);
      return row && { name: row.name, email: row.email };
    },

    /** The accounts' password data (the sessions module checks and sets passwords). */
    credentials: (email: string) => repo.userByEmail(email.trim()),
    hasPassword: (userId: string): boolean => (repo.user(userId)?.passwordHash ?? null) !== null,
    /** The account's stored password hash, or null (the sessions module checks a current password). */
    passwordHashOf: (userId: string): string | null => repo.user(userId)?.passwordHash ?? null,
    storePasswordHash: (userId: string, hash: string): boolean =>
      repo.updateUser(userId, { passwordHash: hash, passwordSetAt: clock.now() }),
    /** Whether the account belongs to a workspace `ownerId` does not own. */
    memberBeyond: (userId: string, ownerId: string): boolean => repo.memberBeyond(userId, ownerId),
    memberships: (userId: string) => repo.memberships(userId),
    /** The workspace's currency (views of entries written by no member carry it). */
    currency: (workspaceId: string): string => repo.workspace(workspaceId)?.currency ?? 'EUR',
    /** Every workspace's runaway limit and action (the runaway check runs over all of them). */
    runawaySettings: () => repo.workspaces().map((w) => ({ workspaceId: w.id, limitSec: w.runawayLimitSec, action: w.runawayAction })),
    /** The workspace's business profile (the invoice issuer), parsed, or null. */
    businessProfile: (workspaceId: string): Record<string, unknown> | null =>
      workspaceWithProfile(workspaceRow(workspaceId)).businessProfile,
    storeBusinessProfile: (workspaceId: string, profile: Record<string, unknown> | null): void => {
      if (
        !repo.updateWorkspace(workspaceId, { businessProfile: profile === null ? null : JSON.stringify(profile), updatedAt: clock.now() })
      )
        throw errors.workspaceNotFound(workspaceId);
    },
  };
}

/** Workspaces: created by the operator, changed by their owners (within the operator's limits) and the operator. */
function workspacesOf({
  repo,
  clock,
  write,
  workspaceRow,
  ownerOrOperator,
  operatorOnly,
  workspaceRateLimitPerMin,
}: {
  repo: AccountsRepository;
  clock: Clock;
  write: Write<never>;
  workspaceRow: (id: string) => WorkspaceRow;
  ownerOrOperator: (principal: Principal, workspaceId: string) => void;
  operatorOnly: (principal: Principal, what: string) => void;
  workspaceRateLimitPerMin: number;
}) {
  return {
    createWorkspace(principal: Principal, input: { name: string; currency?: string; hourlyRate?: number | null }): { id: string } {
      operatorOnly(principal, 'create a workspace');
      const now = clock.now();
      const id = newId('ws');
      const values = {
        id,
        name: requireName(input.name, 'name', 'name'),
        currency: requireCurrency(input.currency ?? 'EUR'),
        hourlyRate: requireRate(input.hourlyRate ?? null, 'hourly rate', 'hourlyRate'),
        createdAt: now,
        updatedAt: now,
      };
      write(() => repo.insertWorkspace(values));
      return { id };
    },

    /** Changes a workspace's settings: an owner of it (within the operator's limits), or the operator. */
    setWorkspace(principal: Principal, id: string, settings: WorkspaceSettings): { id: string } {
      ownerOrOperator(principal, id);
      if (!isOperator(principal) && settings.rateLimitPerMin != null && settings.rateLimitPerMin > workspaceRateLimitPerMin)
        throw new DomainError(
          'invalid',
          `requests per minute may be at most ${workspaceRateLimitPerMin}, the server's limit (RATE_LIMIT_WORKSPACE_PER_MIN); the person who runs the server can set more.`,
          {
            field: 'rateLimitPerMin',
            ...said('accounts.refused.rateLimitMax', { max: workspaceRateLimitPerMin }),
          },
        );
      const patch = workspacePatch(settings);
      const domains = settings.joinDomains === undefined ? undefined : requireJoinDomains(settings.joinDomains);
      return write(() => {
        if (!repo.updateWorkspace(id, { ...patch, updatedAt: clock.now() })) throw errors.workspaceNotFound(id);
        if (domains !== undefined) repo.replaceJoinDomains(id, domains);
        return { id };
      });
    },

    listWorkspaces(principal: Principal) {
      operatorOnly(principal, 'list every workspace');
      return repo.workspaces().map(workspaceView);
    },

    /** A workspace's settings and business profile to change them: for its owners, and the operator. */
    workspaceToEdit(principal: Principal, id: string) {
      ownerOrOperator(principal, id);
      return { ...workspaceWithProfile(workspaceRow(id)), joinDomains: repo.joinDomains(id) };
    },

    /** A workspace's settings and business profile: for its members, and the operator. */
    getWorkspace(principal: Principal, id: string) {
      if (!isOperator(principal) && principal.workspaceId !== id) throw errors.workspaceNotFound(id);
      return { ...workspaceWithProfile(workspaceRow(id)), joinDomains: repo.joinDomains(id) };
    },
  };
}

/** Memberships: who belongs to a workspace, what they see, their rate, the owner role. */
function membersOf({
  repo,
  clock,
  write,
  ownerOrOperator,
  removedListeners,
}: {
  repo: AccountsRepository;
  clock: Clock;
  write: Write<never>;
  ownerOrOperator: (principal: Principal, workspaceId: string) => void;
  removedListeners: MemberRemoved[];
}) {
  /** Inside a write: refuses (and so rolls back) a change that leaves the workspace without an owner. */
  const requireAnOwner = (workspaceId: string) => {
    if (!repo.hasOwner(workspaceId)) throw errors.lastOwner(workspaceId);
  };
  const isOwner = (workspaceId: string, userId: string) => repo.membership(workspaceId, userId)?.isOwner === true;
  const join = joinerOf(repo, clock);

  return {
    addMember(principal: Principal, input: { workspaceId: string; userId: string } & MemberFlags): { workspaceId: string; userId: string } {
      ownerOrOperator(principal, input.workspaceId);
      const hourlyRate = requireRate(input.hourlyRate ?? null, 'hourly rate', 'hourlyRate');
      return write(() => {
        if (!repo.workspace(input.workspaceId)) throw errors.workspaceNotFound(input.workspaceId);
        if (!repo.user(input.userId)) throw errors.userNotFound(input.userId);
        if (!join(input.workspaceId, input.userId, input, hourlyRate)) throw errors.alreadyMember(input.workspaceId, input.userId);
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },

    setMember(principal: Principal, input: { workspaceId: string; userId: string } & MemberFlags): { workspaceId: string; userId: string } {
      ownerOrOperator(principal, input.workspaceId);
      const patch = memberPatch(input, clock.now());
      return write(() => {
        const wasOwner = isOwner(input.workspaceId, input.userId);
        if (!repo.updateMember(input.workspaceId, input.userId, patch)) throw errors.memberNotFound(input.workspaceId, input.userId);
        if (wasOwner && input.isOwner === false) {
          requireAnOwner(input.workspaceId);
          // An invitation outlives no owner role: theirs end with it (issue 44, M4).
          repo.deleteOpenInvitationsBy(input.workspaceId, input.userId);
        }
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },

    /**
     * Removes the member (never the last owner); in the same write their settings sessions end and
     * their tokens for this workspace are revoked (re-adding them does not revive those).
     */
    removeMember(principal: Principal, input: { workspaceId: string; userId: string }): { workspaceId: string; userId: string } {
      ownerOrOperator(principal, input.workspaceId);
      return write(() => {
        const wasOwner = isOwner(input.workspaceId, input.userId);
        if (!repo.deleteMember(input.workspaceId, input.userId)) throw errors.memberNotFound(input.workspaceId, input.userId);
        if (wasOwner) requireAnOwner(input.workspaceId);
        // Their open invitations to it end too (issue 44, M4): none outlives the owner who sent it.
        repo.deleteOpenInvitationsBy(input.workspaceId, input.userId);
        for (const listener of removedListeners) listener(input.workspaceId, input.userId);
        return { workspaceId: input.workspaceId, userId: input.userId };
      });
    },

    /** A workspace's members (owners and the operator). */
    listMembers(principal: Principal, workspaceId: string) {
      ownerOrOperator(principal, workspaceId);
      if (!repo.workspace(workspaceId)) throw errors.workspaceNotFound(workspaceId);
      return repo.members(workspaceId).map(memberView);
    },

    /** The Members page's list: each member with whether their account has a password (a setup link is only for one without). */
    roster(principal: Principal, workspaceId: string) {
      ownerOrOperator(principal, workspaceId);
      if (!repo.workspace(workspaceId)) throw errors.workspaceNotFound(workspaceId);
      return repo.members(workspaceId).map((row) => ({ ...memberView(row), hasPassword: row.hasPassword }));
    },

    /** One member (owners and the operator); a missing workspace, account or membership is named. */
    getMember(principal: Principal, input: { workspaceId: string; userId: string }) {
      ownerOrOperator(principal, input.workspaceId);
      const row = repo.member(input.workspaceId, input.userId);
      if (!row) {
        if (!repo.workspace(input.workspaceId)) throw errors.workspaceNotFound(input.workspaceId);
        if (!repo.user(input.userId)) throw errors.userNotFound(input.userId);
        throw errors.memberNotFound(input.workspaceId, input.userId);
      }
      return memberView(row);
    },
  };
}

/** A workspace's own settings as its export carries them (issue 56 item 6): every column of its row an import may set. */
export interface ExportedWorkspaceSettings {
  name: string;
  runawayLimitSec: number;
  runawayAction: RunawayAction;
  rateLimitPerMin: number | null;
  joinDomains: string[];
}

/**
 * The workspace's own row, its members and their rates in a workspace's export, and their restore
 * by an import (decisions 11a; issue 56 item 6: the name, the runaway and request settings, the
 * join domains and the members' flags too).
 */
function ratesTransfer(repo: AccountsRepository, clock: Clock, workspaceRateLimitPerMin: number) {
  return {
    /** A workspace's rate, its settings and its members' rates and flags (a workspace's export), each member by email and name. */
    exportRates: (workspaceId: string) => {
      const row = repo.workspace(workspaceId);
      return {
        workspace: row?.hourlyRate ?? null,
        settings: row
          ? ({
              name: row.name,
              runawayLimitSec: row.runawayLimitSec,
              runawayAction: row.runawayAction,
              rateLimitPerMin: row.rateLimitPerMin,
              joinDomains: repo.joinDomains(workspaceId),
            } satisfies ExportedWorkspaceSettings)
          : null,
        members: repo
          .members(workspaceId)
          .map((m) => ({
            userId: m.userId,
            name: m.name,
            email: m.email,
            hourlyRate: m.hourlyRate,
            isOwner: m.isOwner,
            canViewOthersTime: m.canViewOthersTime,
            canViewOthersMoney: m.canViewOthersMoney,
          }))
          .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0)),
      };
    },

    /** A workspace's own settings, as an import compares a file's with them. */
    workspaceSettings: (workspaceId: string): ExportedWorkspaceSettings | null => {
      const row = repo.workspace(workspaceId);
      if (!row) return null;
      const { name, runawayLimitSec, runawayAction, rateLimitPerMin } = row;
      return { name, runawayLimitSec, runawayAction, rateLimitPerMin, joinDomains: repo.joinDomains(workspaceId) };
    },

    /**
     * Inside an import's write: a workspace's name and settings from its export, into a workspace
     * that holds nothing yet (the import decides that). Each value is checked as the Workspace page
     * checks it; a request budget above the server's limit is kept out of an owner's import (the
     * operator's takes it), as on the page. The names of the settings set.
     */
    restoreWorkspace(workspaceId: string, settings: Partial<ExportedWorkspaceSettings>, operator: boolean): string[] {
      const { joinDomains, ...rest } = settings;
      if (!operator && rest.rateLimitPerMin != null && rest.rateLimitPerMin > workspaceRateLimitPerMin) delete rest.rateLimitPerMin;
      const patch = workspacePatch(rest);
      const domains = joinDomains === undefined ? undefined : requireJoinDomains(joinDomains);
      repo.updateWorkspace(workspaceId, { ...patch, updatedAt: clock.now() });
      if (domains !== undefined) repo.replaceJoinDomains(workspaceId, domains);
      return [...Object.keys(patch), ...(domains === undefined ? [] : ['joinDomains'])];
    },

    /** Inside an import's write: the flags a file gives a member the same import made (its own members keep theirs). Whether set. */
    restoreMemberFlags(
      workspaceId: string,
      userId: string,
      flags: { isOwner: boolean; canViewOthersTime: boolean; canViewOthersMoney: boolean },
    ): boolean {
      const member = repo.member(workspaceId, userId);
      if (!member) return false;
      return repo.updateMember(workspaceId, userId, { ...flags, updatedAt: clock.now() });
    },

    /**
     * Inside an import's write: a rate of a file (the workspace's, or a member's) where the
     * workspace or the member has none; rates set here are left as they are. Whether it was set.
     */
    restoreRate(workspaceId: string, userId: string | null, rate: number): boolean {
      const hourlyRate = requireRate(rate, 'hourly rate', 'hourlyRate');
      const updatedAt = clock.now();
      if (userId === null) {
        if (repo.workspace(workspaceId)?.hourlyRate != null) return false;
        return repo.updateWorkspace(workspaceId, { hourlyRate, updatedAt });
      }
      const member = repo.member(workspaceId, userId);
      if (!member || member.hourlyRate !== null) return false;
      return repo.updateMember(workspaceId, userId, { hourlyRate, updatedAt });
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
