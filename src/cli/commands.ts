import type { RunawayAction } from '../modules/accounts/service.js';
import { optionalBoolean, optionalInstant, optionalInteger, optionalNumber, optionalString, required, UsageError } from './args.js';
import { type Command, command, flag, str } from './command.js';
import { invoiceCommands } from './invoice-commands.js';
import { webhookCommands } from './webhook-commands.js';

export { type Command, command, flag, str } from './command.js';

const runawayAction = (value: string | undefined): RunawayAction | undefined => {
  if (value === undefined) return undefined;
  if (value !== 'flagged' && value !== 'capped' && value !== 'stopped') {
    throw new UsageError(`--runaway-action must be flagged, capped or stopped (got ${JSON.stringify(value)})`);
  }
  return value;
};

const scopesOf = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** The command table: `<group> <action>` -> command. Output shapes are a public contract. */
export const commands: Record<string, Command> = {
  'workspace create': command(
    'workspace create --name N [--currency C] [--hourly-rate R]',
    'Create a workspace.',
    { name: str, currency: str, 'hourly-rate': str },
    0,
    (v, _p, s) =>
      s.accounts.createWorkspace({
        name: required(v, 'name'),
        ...(optionalString(v, 'currency') !== undefined ? { currency: optionalString(v, 'currency') as string } : {}),
        hourlyRate: optionalNumber(v, 'hourly-rate') ?? null,
      }),
  ),
  'workspace set': command(
    'workspace set ID [--runaway-limit-sec S] [--runaway-action flagged|capped|stopped] [--rate-limit-per-min N|none] [--hourly-rate R|none]',
    'Change workspace settings.',
    { 'runaway-limit-sec': str, 'runaway-action': str, 'rate-limit-per-min': str, 'hourly-rate': str },
    1,
    (v, p, s) => {
      const settings = {
        runawayLimitSec: optionalInteger(v, 'runaway-limit-sec') ?? undefined,
        runawayAction: runawayAction(optionalString(v, 'runaway-action')),
        rateLimitPerMin: optionalInteger(v, 'rate-limit-per-min', true),
        hourlyRate: optionalNumber(v, 'hourly-rate', true),
      };
      if (Object.values(settings).every((x) => x === undefined)) throw new UsageError('name at least one setting to change');
      return s.accounts.setWorkspace(p[0] as string, settings);
    },
  ),
  'user create': command('user create --name N --email E', 'Create a user account.', { name: str, email: str }, 0, (v, _p, s) =>
    s.accounts.createUser({ name: required(v, 'name'), email: required(v, 'email') }),
  ),
  'user delete': command('user delete ID', 'Delete an account with its tokens, memberships and webhooks.', {}, 1, (_v, p, s) =>
    s.accounts.deleteUser(p[0] as string),
  ),
  'member add': command(
    'member add --workspace W --user U [--can-view-others-time] [--can-view-others-money] [--hourly-rate R]',
    'Add a user to a workspace.',
    { workspace: str, user: str, 'can-view-others-time': flag, 'can-view-others-money': flag, 'hourly-rate': str },
    0,
    (v, _p, s) =>
      s.accounts.addMember({
        workspaceId: required(v, 'workspace'),
        userId: required(v, 'user'),
        canViewOthersTime: v['can-view-others-time'] === true,
        canViewOthersMoney: v['can-view-others-money'] === true,
        hourlyRate: optionalNumber(v, 'hourly-rate') ?? null,
      }),
  ),
  'member set': command(
    'member set --workspace W --user U [--can-view-others-time true|false] [--can-view-others-money true|false] [--hourly-rate R|none]',
    "Change a member's visibility or rate. Narrowing applies to existing tokens at once; widening only to new tokens.",
    { workspace: str, user: str, 'can-view-others-time': str, 'can-view-others-money': str, 'hourly-rate': str },
    0,
    (v, _p, s) => {
      const flags = {
        canViewOthersTime: optionalBoolean(v, 'can-view-others-time'),
        canViewOthersMoney: optionalBoolean(v, 'can-view-others-money'),
        hourlyRate: optionalNumber(v, 'hourly-rate', true),
      };
      if (Object.values(flags).every((x) => x === undefined)) throw new UsageError('name at least one setting to change');
      return s.accounts.setMember({ workspaceId: required(v, 'workspace'), userId: required(v, 'user'), ...flags });
    },
  ),
  'member remove': command(
    'member remove --workspace W --user U',
    'Remove a member; their tokens stop working at once.',
    { workspace: str, user: str },
    0,
    (v, _p, s) => s.accounts.removeMember({ workspaceId: required(v, 'workspace'), userId: required(v, 'user') }),
  ),
  'token create': command(
    'token create --workspace W --user U --name N --scopes a,b [--expires-at ISO] [--rate-limit-per-min N]',
    'Mint an API token. The token is printed once and cannot be shown again.',
    { workspace: str, user: str, name: str, scopes: str, 'expires-at': str, 'rate-limit-per-min': str },
    0,
    (v, _p, s) =>
      s.tokens.create({
        workspaceId: required(v, 'workspace'),
        userId: required(v, 'user'),
        name: required(v, 'name'),
        scopes: scopesOf(required(v, 'scopes')),
        expiresAt: optionalInstant(v, 'expires-at') ?? null,
        rateLimitPerMin: optionalInteger(v, 'rate-limit-per-min') ?? null,
      }),
    'Store the token now: it is shown only this once.',
  ),
  'token list': command(
    'token list --workspace W',
    "List a workspace's tokens (never their secrets).",
    { workspace: str },
    0,
    (v, _p, s) => ({
      tokens: s.tokens.list(required(v, 'workspace')),
    }),
  ),
  'sync tail': command(
    'sync tail --workspace W [--after SEQ] [--limit N]',
    "Print a workspace's sync events after SEQ, oldest first (at most N, default 1000).",
    { workspace: str, after: str, limit: str },
    0,
    (v, _p, s) => {
      const after = optionalInteger(v, 'after') ?? 0;
      const limit = optionalInteger(v, 'limit') ?? 1000;
      if (after < 0) throw new UsageError('--after must be 0 or more');
      if (limit < 1 || limit > 10000) throw new UsageError('--limit must be from 1 to 10000');
      return { events: s.events.tail(required(v, 'workspace'), after, limit) };
    },
  ),
  'token revoke': command('token revoke ID', 'Revoke a token; its next request answers 401.', {}, 1, (_v, p, s) =>
    s.tokens.revoke(p[0] as string),
  ),
  ...invoiceCommands,
  ...webhookCommands,
};
