import { scopeValues } from '../../../generated/openapi.js';
import type { Actor, Scope } from '../../principal.js';
import type { Membership } from '../accounts/service.js';

/** A signed-in member holds every scope: what they may do is decided by their role and flags. */
const ALL_SCOPES: ReadonlySet<Scope> = new Set(scopeValues);

/** Who a valid session is: the account, its membership now (re-read on every request) and the workspace. */
export interface SessionView {
  /** The member as a principal of the services (every scope; the flags and owner role as they are now). */
  actor: Actor;
  userId: string;
  name: string;
  email: string;
  workspaceId: string;
  workspaceName: string;
  canViewOthersTime: boolean;
  canViewOthersMoney: boolean;
  isOwner: boolean;
  csrfToken: string;
}

/** The session of a member as it is now (the membership re-read on every request). */
export function sessionView(member: Membership, csrfToken: string): SessionView {
  const actor: Actor = {
    kind: 'member',
    tokenId: null,
    workspaceId: member.workspaceId,
    userId: member.userId,
    scopes: ALL_SCOPES,
    canViewOthersTime: member.canViewOthersTime,
    canViewOthersMoney: member.canViewOthersMoney,
    isOwner: member.isOwner,
    currency: member.currency,
  };
  return {
    actor,
    userId: member.userId,
    name: member.name,
    email: member.email,
    workspaceId: member.workspaceId,
    workspaceName: member.workspaceName,
    canViewOthersTime: member.canViewOthersTime,
    canViewOthersMoney: member.canViewOthersMoney,
    isOwner: member.isOwner,
    csrfToken,
  };
}
