import { scopeValues } from '../generated/openapi.js';
import type { Write } from './db/write.js';
import { OPERATOR } from './principal.js';
import type { AccountsService } from './modules/accounts/service.js';
import type { TokensService } from './modules/tokens/service.js';

export interface BootstrapResult {
  workspaceId: string;
  userId: string;
  tokenId: string;
  token: string;
}

/**
 * First start on an empty database: a workspace, an owner who sees everyone's time and money,
 * and a token with every scope. Returns null when the database holds a workspace already.
 */
export function bootstrapIfEmpty(write: Write<never>, accounts: AccountsService, tokens: TokensService): BootstrapResult | null {
  return write(() => {
    if (!accounts.isEmpty()) return null;
    const workspace = accounts.createWorkspace(OPERATOR, { name: 'My workspace' });
    const user = accounts.createUser(OPERATOR, { name: 'Owner', email: 'owner@localhost' });
    accounts.addMember(OPERATOR, {
      workspaceId: workspace.id,
      userId: user.id,
      canViewOthersTime: true,
      canViewOthersMoney: true,
      isOwner: true,
    });
    const token = tokens.create(OPERATOR, { workspaceId: workspace.id, userId: user.id, name: 'bootstrap', scopes: scopeValues });
    return { workspaceId: workspace.id, userId: user.id, tokenId: token.id, token: token.token };
  });
}

/** The first start's message: the new ids and token, and a request that works as printed. */
export function bootstrapBanner(
  result: BootstrapResult,
  baseUrl: string,
  settings: { url: string; expiresAt: number } | null = null,
): string {
  const settingsLines = settings
    ? [
        `Settings page: open ${settings.url}`,
        `  before ${new Date(settings.expiresAt).toISOString()} to give the owner a name, an email (the sign-in) and a password.`,
        '  The link works once; `timetrack user invite` makes a new one.',
      ]
    : [];
  return [
    '',
    'timetrack: this database was empty, so it now holds a workspace, its owner and an API token.',
    `  workspace ${result.workspaceId}`,
    `  owner     ${result.userId}`,
    `  token     ${result.token}`,
    'The token has every scope and is shown only this once: store it now.',
    `Try: curl -H "Authorization: Bearer ${result.token}" ${baseUrl}/api/v1/me`,
    ...settingsLines,
    '',
  ].join('\n');
}
