import { optionalInstant, optionalInteger, required, UsageError, memberOf } from './args.js';
import { OPERATOR } from '../principal.js';
import { accountCommands } from './account-commands.js';
import { approvalCommands } from './approval-commands.js';
import type { TokenView } from '../modules/tokens/views.js';
import { type Command, command, str } from './command.js';
import { orDash, table } from './table.js';
import { expenseCommands } from './expense-commands.js';
import { importCommands } from './import-commands.js';
import { invoiceCommands } from './invoice-commands.js';
import { mailCommands } from './mail-commands.js';
import { oidcCommands } from './oidc-commands.js';
import { reportCommands } from './report-commands.js';
import { webhookCommands } from './webhook-commands.js';

export { type Command, command, flag, ReportedFailure, str } from './command.js';

const scopesOf = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `token list` on a terminal: never a secret; when each was last used, and whether it still works. */
const tokenTable = (tokens: TokenView[]) =>
  table(
    tokens,
    [
      { header: 'ID', value: (t) => t.id },
      { header: 'NAME', value: (t) => t.name },
      { header: 'PREFIX', value: (t) => t.prefix },
      { header: 'USER', value: (t) => t.userId },
      { header: 'EXPIRES', value: (t) => orDash(t.expiresAt) },
      { header: 'LAST USED', value: (t) => orDash(t.lastUsedAt) },
      { header: 'REVOKED', value: (t) => orDash(t.revokedAt) },
      { header: 'SCOPES', value: (t) => t.scopes.join(',') },
    ],
    'No tokens.',
  );

/** The command table: `<group> <action>` -> command. Output shapes are a public contract. */
export const commands: Record<string, Command> = {
  ...accountCommands,
  ...expenseCommands,
  'token create': command(
    'token create --workspace W --user U --name N --scopes a,b [--expires-at ISO] [--rate-limit-per-min N]',
    'Mint an API token. The token is printed once and cannot be shown again.',
    { workspace: str, user: str, name: str, scopes: str, 'expires-at': str, 'rate-limit-per-min': str },
    0,
    (v, _p, s) =>
      s.tokens.create(OPERATOR, {
        ...memberOf(v),
        name: required(v, 'name'),
        scopes: scopesOf(required(v, 'scopes')),
        expiresAt: optionalInstant(v, 'expires-at') ?? null,
        rateLimitPerMin: optionalInteger(v, 'rate-limit-per-min') ?? null,
      }),
    'Store the token now: it is shown only this once.',
  ),
  'token list': {
    ...command('token list --workspace W', "List a workspace's tokens (never their secrets).", { workspace: str }, 0, (v, _p, s) => ({
      tokens: s.tokens.list(OPERATOR, required(v, 'workspace')),
    })),
    human: (result) => tokenTable(result.tokens as TokenView[]),
  },
  'sync tail': command(
    'sync tail --workspace W [--after SEQ] [--limit N]',
    "Print a workspace's sync events after SEQ, oldest first (at most N, default 1000).",
    { workspace: str, after: str, limit: str },
    0,
    (v, _p, s) => {
      const workspaceId = required(v, 'workspace');
      const after = optionalInteger(v, 'after') ?? 0;
      const limit = optionalInteger(v, 'limit') ?? 1000;
      if (after < 0) throw new UsageError('--after must be 0 or more');
      if (limit < 1 || limit > 10000) throw new UsageError('--limit must be from 1 to 10000');
      s.accounts.requireWorkspace(workspaceId);
      return { events: s.events.tail(OPERATOR, workspaceId, after, limit) };
    },
  ),
  'token revoke': command('token revoke ID', 'Revoke a token; its next request answers 401.', {}, 1, (_v, p, s) =>
    s.tokens.revoke(OPERATOR, p[0] as string),
  ),
  ...importCommands,
  ...invoiceCommands,
  ...approvalCommands,
  ...reportCommands,
  ...webhookCommands,
  ...mailCommands,
  ...oidcCommands,
};
