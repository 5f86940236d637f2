import type { components } from '../generated/openapi.js';

export type Scope = components['schemas']['Scope'];

/** Who is calling: the identity of an authenticated API token, passed to every service call. */
export interface Actor {
  tokenId: string;
  workspaceId: string;
  userId: string;
  scopes: ReadonlySet<Scope>;
  /** Effective flags: the member's current flags AND the flags at minting. */
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  /** The currency of the token's workspace, read with the token (entry and report views carry it). */
  currency: string;
}
