import type { components } from '../generated/openapi.js';

export type Scope = components['schemas']['Scope'];

/**
 * A member acting in one workspace: through an API token (the REST API) or through a signed-in
 * session (the settings page). Every service call is made for a principal, and the service
 * decides what it may do.
 */
export interface Actor {
  kind: 'member';
  /** The API token it acts through; null for a signed-in session. */
  tokenId: string | null;
  workspaceId: string;
  userId: string;
  /** A token's scopes; a session holds every scope. */
  scopes: ReadonlySet<Scope>;
  /** Effective flags: for a token, the member's current flags AND the flags at minting. */
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  /** An owner manages the workspace: its members and settings (re-read on every request). */
  isOwner: boolean;
  /** The currency of the workspace, read with the token or the session (entry and report views carry it). */
  currency: string;
}

/** The person running the command line on the server's machine: may do everything. */
export interface Operator {
  kind: 'operator';
}

export const OPERATOR: Operator = Object.freeze({ kind: 'operator' });

/** Who asks: a member (token or session) or the operator. */
export type Principal = Actor | Operator;

export const isOperator = (principal: Principal): principal is Operator => principal.kind === 'operator';
