import type { RunawayAction } from '../modules/accounts/service.js';
import { OPERATOR } from '../principal.js';
import { optionalBoolean, optionalInteger, optionalNumber, optionalString, required, UsageError, memberOf } from './args.js';
import type { Services } from '../services.js';
import { type Command, command, flag, str } from './command.js';
import { orDash, table, yesNo } from './table.js';

type MemberView = ReturnType<Services['accounts']['listMembers']>[number];

/** `member list` on a terminal: who, what they may see, their rate. */
const memberTable = (members: MemberView[]) =>
  table(
    members,
    [
      { header: 'USER', value: (m) => m.userId },
      { header: 'NAME', value: (m) => m.name },
      { header: 'EMAIL', value: (m) => orDash(m.email) },
      { header: 'OWNER', value: (m) => yesNo(m.isOwner) },
      { header: 'SEES TIME', value: (m) => yesNo(m.canViewOthersTime) },
      { header: 'SEES MONEY', value: (m) => yesNo(m.canViewOthersMoney) },
      { header: 'RATE', value: (m) => orDash(m.hourlyRate), align: 'right' },
    ],
    'No members.',
  );

const runawayAction = (value: string | undefined): RunawayAction | undefined => {
  if (value === undefined) return undefined;
  if (value !== 'flagged' && value !== 'capped' && value !== 'stopped') {
    throw new UsageError(`--runaway-action must be flagged, capped or stopped (got ${JSON.stringify(value)})`);
  }
  return value;
};

/** `--join-domains a.org,b.org` (or `none`): the list, or undefined when not given. */
const joinDomains = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : value.trim().toLowerCase() === 'none' ? [] : value.split(/[\s,]+/).filter((d) => d !== '');

/** Refuses a `set` command that names nothing to change. */
function someSetting<T extends Record<string, unknown>>(settings: T): T {
  if (Object.values(settings).every((x) => x === undefined)) throw new UsageError('name at least one setting to change');
  return settings;
}

/** `workspace …`, `user …` and `member …`: the accounts (`workspace profile` is with the invoices). */
export const accountCommands: Record<string, Command> = {
  'workspace create': command(
    'workspace create --name N [--currency C] [--hourly-rate R]',
    'Create a workspace.',
    { name: str, currency: str, 'hourly-rate': str },
    0,
    (v, _p, s) =>
      s.accounts.createWorkspace(OPERATOR, {
        name: required(v, 'name'),
        ...(optionalString(v, 'currency') !== undefined ? { currency: optionalString(v, 'currency') as string } : {}),
        hourlyRate: optionalNumber(v, 'hourly-rate') ?? null,
      }),
  ),
  'workspace list': command('workspace list', 'List the workspaces and their settings.', {}, 0, (_v, _p, s) => ({
    workspaces: s.accounts.listWorkspaces(OPERATOR),
  })),
  'workspace show': command('workspace show ID', "Print a workspace's settings and business profile.", {}, 1, (_v, p, s) => ({
    workspace: s.accounts.getWorkspace(OPERATOR, p[0] as string),
  })),
  'workspace set': command(
    'workspace set ID [--name N] [--currency C] [--runaway-limit-sec S] [--runaway-action flagged|capped|stopped] [--rate-limit-per-min N|none] [--hourly-rate R|none] [--join-domains a.org,b.org|none] [--approval weekly|monthly|off] [--locked-before DATE|none]',
    'Change workspace settings.',
    {
      name: str,
      currency: str,
      'runaway-limit-sec': str,
      'runaway-action': str,
      'rate-limit-per-min': str,
      'hourly-rate': str,
      'join-domains': str,
      approval: str,
      'locked-before': str,
    },
    1,
    (v, p, s) => {
      const id = p[0] as string;
      const settings = {
        name: optionalString(v, 'name'),
        currency: optionalString(v, 'currency'),
        runawayLimitSec: optionalInteger(v, 'runaway-limit-sec') ?? undefined,
        runawayAction: runawayAction(optionalString(v, 'runaway-action')),
        rateLimitPerMin: optionalInteger(v, 'rate-limit-per-min', true),
        hourlyRate: optionalNumber(v, 'hourly-rate', true),
        joinDomains: joinDomains(optionalString(v, 'join-domains')),
      };
      // Approval and lock (decisions §13) are the approvals module's: set after the rest.
      const lock = optionalString(v, 'locked-before');
      const approval = {
        approval: optionalString(v, 'approval'),
        lockedBefore: lock === undefined ? undefined : lock.trim().toLowerCase() === 'none' ? null : lock,
      };
      someSetting({ ...settings, ...approval });
      if (Object.values(settings).some((x) => x !== undefined)) s.accounts.setWorkspace(OPERATOR, id, settings);
      if (approval.approval !== undefined || approval.lockedBefore !== undefined)
        s.approvals.setSettings(OPERATOR, id, {
          ...(approval.approval === undefined ? {} : { approval: approval.approval }),
          ...(approval.lockedBefore === undefined ? {} : { lockedBefore: approval.lockedBefore }),
        });
      return { id };
    },
    undefined,
    "--join-domains lists the email domains whose people join the workspace (no flags) by signing in through the identity provider when no account here knows them (none: nobody). --currency is an ISO 4217 code such as EUR. Rates and amounts already recorded are not converted: they are read in the new currency (invoices keep the currency they were issued in). --approval weekly or monthly has members submit their time for approval (a week is Monday to Sunday, a month a calendar month, in the member's zone); submitted and approved time cannot change, and invoices take only approved time; off (the default) changes nothing. --locked-before DATE locks every entry starting before that day (read in the server's zone, TZ) for everyone; none removes the lock.",
  ),
  'user create': command('user create --name N --email E', 'Create a user account.', { name: str, email: str }, 0, (v, _p, s) =>
    s.accounts.createUser(OPERATOR, { name: required(v, 'name'), email: required(v, 'email') }),
  ),
  'user list': command('user list', 'List the user accounts (deleted ones are not listed).', {}, 0, (_v, _p, s) => ({
    users: s.accounts.listUsers(OPERATOR),
  })),
  'user show': command('user show ID', 'Print a user account and the workspaces it is a member of.', {}, 1, (_v, p, s) => ({
    user: s.accounts.getUser(OPERATOR, p[0] as string),
  })),
  'user set': command('user set ID [--name N] [--email E]', "Change a user's name or email.", { name: str, email: str }, 1, (v, p, s) =>
    s.accounts.setUser(OPERATOR, p[0] as string, someSetting({ name: optionalString(v, 'name'), email: optionalString(v, 'email') })),
  ),
  'user delete': command('user delete ID', 'Delete an account with its tokens, memberships and webhooks.', {}, 1, (_v, p, s) =>
    s.accounts.deleteUser(OPERATOR, p[0] as string),
  ),
  'user invite': command(
    'user invite --workspace W --user U [--valid-hours H]',
    'Print a one-time link to the settings page where the member sets their password (valid 72 hours by default).',
    { workspace: str, user: str, 'valid-hours': str },
    0,
    (v, _p, s, c) => {
      if (c.settingsUrl === null)
        throw new UsageError('the settings page is off (SETTINGS_PATH=off): set a password with `user password` instead');
      const hours = optionalNumber(v, 'valid-hours');
      const link = s.sessions.invite(OPERATOR, {
        ...memberOf(v),
        ...(hours === undefined || hours === null ? {} : { validHours: hours }),
      });
      if (c.linkWarning !== null) c.warn(c.linkWarning);
      return { url: `${c.settingsUrl}/setup/${link.secret}`, expiresAt: new Date(link.expiresAt).toISOString() };
    },
    'Send the link to the member only: whoever opens it first sets the password. Inviting again ends the earlier link.',
    'The link starts with BASE_URL when set, else with the address the server recorded at its last start (beside the database, in DATABASE_PATH.server-address), then SETTINGS_PATH.',
  ),
  'user password': command(
    'user password ID',
    "Set an account's password for the settings page, read from standard input (at least 12 characters); its sessions end.",
    {},
    1,
    async (_v, p, s, c) => s.sessions.setPassword(OPERATOR, p[0] as string, (await c.readStdin()).replace(/\r?\n$/, '')),
    undefined,
    'Example: printf %s "$PASSWORD" | timetrack user password usr_… (the password never appears in the process list or shell history).',
  ),
  'user break-glass': command(
    'user break-glass ID true|false',
    'With OIDC_ONLY=true, let this owner still sign in with a password (for when the identity provider is down), or stop letting them.',
    {},
    2,
    (_v, p, s) => {
      const on = p[1] === 'true' ? true : p[1] === 'false' ? false : null;
      if (on === null) throw new UsageError(`the second argument must be true or false (got ${JSON.stringify(p[1])})`);
      return s.accounts.setBreakGlass(OPERATOR, p[0] as string, on);
    },
    'A break-glass owner signs in at SETTINGS_PATH/sign-in?break-glass with the password set by `user password`. Keep few.',
  ),
  'member add': command(
    'member add --workspace W --user U [--can-view-others-time] [--can-view-others-money] [--hourly-rate R] [--owner]',
    'Add a user to a workspace (--owner: they manage it on the settings page).',
    { workspace: str, user: str, 'can-view-others-time': flag, 'can-view-others-money': flag, 'hourly-rate': str, owner: flag },
    0,
    (v, _p, s) =>
      s.accounts.addMember(OPERATOR, {
        ...memberOf(v),
        canViewOthersTime: v['can-view-others-time'] === true,
        canViewOthersMoney: v['can-view-others-money'] === true,
        hourlyRate: optionalNumber(v, 'hourly-rate') ?? null,
        isOwner: v.owner === true,
      }),
  ),
  'member list': {
    ...command(
      'member list --workspace W',
      "List a workspace's members with their visibility and rate.",
      { workspace: str },
      0,
      (v, _p, s) => ({ members: s.accounts.listMembers(OPERATOR, required(v, 'workspace')) }),
    ),
    human: (result) => memberTable(result.members as MemberView[]),
  },
  'member show': command(
    'member show --workspace W --user U',
    "Print a member's visibility and rate.",
    { workspace: str, user: str },
    0,
    (v, _p, s) => ({ member: s.accounts.getMember(OPERATOR, memberOf(v)) }),
  ),
  'member set': command(
    'member set --workspace W --user U [--can-view-others-time true|false] [--can-view-others-money true|false] [--hourly-rate R|none] [--owner true|false]',
    "Change a member's visibility, rate or owner role. Narrowing applies to existing tokens at once; widening only to new tokens.",
    { workspace: str, user: str, 'can-view-others-time': str, 'can-view-others-money': str, 'hourly-rate': str, owner: str },
    0,
    (v, _p, s) => {
      const flags = someSetting({
        canViewOthersTime: optionalBoolean(v, 'can-view-others-time'),
        canViewOthersMoney: optionalBoolean(v, 'can-view-others-money'),
        hourlyRate: optionalNumber(v, 'hourly-rate', true),
        isOwner: optionalBoolean(v, 'owner'),
      });
      return s.accounts.setMember(OPERATOR, { ...memberOf(v), ...flags });
    },
  ),
  'member remove': command(
    'member remove --workspace W --user U',
    'Remove a member; their tokens stop working at once.',
    { workspace: str, user: str },
    0,
    (v, _p, s) => s.accounts.removeMember(OPERATOR, memberOf(v)),
  ),
};
