import { toIso } from '../../kernel/time.js';
import type { UserRow, WorkspaceRow } from './repository.js';

/** A workspace's settings as `workspace list` and `workspace show` print them. */
export const workspaceView = (row: WorkspaceRow) => ({
  id: row.id,
  name: row.name,
  currency: row.currency,
  hourlyRate: row.hourlyRate,
  runawayLimitSec: row.runawayLimitSec,
  runawayAction: row.runawayAction,
  rateLimitPerMin: row.rateLimitPerMin,
  createdAt: toIso(row.createdAt),
  updatedAt: toIso(row.updatedAt),
});

export type WorkspaceView = ReturnType<typeof workspaceView>;

/** The settings and the business profile (the invoice issuer fields, null when none was set). */
export const workspaceWithProfile = (row: WorkspaceRow) => ({
  ...workspaceView(row),
  businessProfile: row.businessProfile === null ? null : (JSON.parse(row.businessProfile) as Record<string, unknown>),
});

export const userView = (row: Pick<UserRow, 'id' | 'name' | 'email' | 'createdAt'>) => ({
  id: row.id,
  name: row.name,
  email: row.email,
  createdAt: toIso(row.createdAt),
});

/** A member as `member list|show` print it (and the Members page shows it). */
export const memberView = <T extends { createdAt: number; updatedAt: number; hasPassword: boolean }>(row: T) => {
  const { hasPassword: _, ...rest } = row;
  return { ...rest, createdAt: toIso(row.createdAt), updatedAt: toIso(row.updatedAt) };
};
