import type { Clock } from '../../clock.js';
import type { AccountsRepository } from './repository.js';

export interface MemberFlags {
  canViewOthersTime?: boolean;
  canViewOthersMoney?: boolean;
  hourlyRate?: number | null;
  /** Owners manage the workspace on the settings page; a workspace keeps at least one. */
  isOwner?: boolean;
}

/** Inside a write: the account joins the workspace with these flags (a checked rate); false when it is a member already. */
export function joinerOf(repo: AccountsRepository, clock: Clock) {
  return (workspaceId: string, userId: string, flags: MemberFlags, hourlyRate: number | null): boolean => {
    const now = clock.now();
    return repo.insertMember({
      workspaceId,
      userId,
      canViewOthersTime: flags.canViewOthersTime ?? false,
      canViewOthersMoney: flags.canViewOthersMoney ?? false,
      hourlyRate,
      isOwner: flags.isOwner ?? false,
      createdAt: now,
      updatedAt: now,
    });
  };
}
