import { toIso } from '../../kernel/time.js';
import { dayAt } from './periods.js';
import type { AuditRow, PeriodRow, SettingsRow } from './repository.js';

/** Someone named: their id and name (null `by`: the operator, on the command line). */
export interface Named {
  userId: string;
  name: string;
}

/** Who acted on a period: a member (their id), or someone a restored file named who is no member here (id null). */
export interface Actor {
  userId: string | null;
  name: string;
}

/** A workspace's approval settings, as the Workspace page and `workspace show` read them. */
export interface ApprovalSettingsView {
  approval: 'off' | 'weekly' | 'monthly';
  /** The day before which every entry is locked, or null. */
  lockedBefore: string | null;
  /** The zone `lockedBefore` is read in (null without a lock date). */
  lockZone: string | null;
  /** The instant `lockedBefore` begins in that zone: entries starting before it are locked (null without a lock date). */
  lockedBeforeAt: string | null;
  /** Members an owner marked as approvers (owners approve without a mark). */
  approvers: string[];
}

export const settingsView = (row: SettingsRow | undefined, approvers: string[]): ApprovalSettingsView => ({
  approval: row?.approval ?? 'off',
  lockedBefore: row?.lockedBefore ?? null,
  lockZone: row?.lockedBefore ? (row.lockZone ?? null) : null,
  lockedBeforeAt: row?.lockedBeforeAt == null ? null : toIso(row.lockedBeforeAt),
  approvers,
});

/** A member's period: whose, which days, its state and the last decision. */
export interface PeriodView {
  id: string;
  userId: string;
  userName: string;
  kind: 'weekly' | 'monthly';
  startDay: string;
  endDay: string;
  timeZone: string;
  from: string;
  to: string;
  state: 'open' | 'submitted' | 'approved' | 'rejected';
  note: string | null;
  submittedAt: string | null;
  decidedAt: string | null;
  decidedBy: Named | null;
}

export function periodView(row: PeriodRow, names: Map<string, string>): PeriodView {
  return {
    id: row.id,
    userId: row.userId,
    userName: names.get(row.userId) ?? '',
    kind: row.kind,
    startDay: row.startDay,
    // The last day: the day before the next period's start, in the period's zone.
    endDay: dayAt(row.toAt - 1, row.timeZone),
    timeZone: row.timeZone,
    from: toIso(row.fromAt),
    to: toIso(row.toAt),
    state: row.state,
    note: row.note,
    submittedAt: row.submittedAt === null ? null : toIso(row.submittedAt),
    decidedAt: row.decidedAt === null ? null : toIso(row.decidedAt),
    decidedBy: row.decidedBy === null ? null : { userId: row.decidedBy, name: names.get(row.decidedBy) ?? '' },
  };
}

/** One line of a period's audit. */
export interface AuditView {
  action: AuditRow['action'];
  /** Null: the operator (the command line). */
  by: Actor | null;
  note: string | null;
  at: string;
}

export const auditView = (row: AuditRow, names: Map<string, string>): AuditView => ({
  action: row.action,
  by:
    row.byUserId !== null
      ? { userId: row.byUserId, name: names.get(row.byUserId) ?? '' }
      : row.byName !== null
        ? { userId: null, name: row.byName }
        : null,
  note: row.note,
  at: toIso(row.at),
});

/** A period's time: what it holds, and its worth when the reader may see it (null otherwise). */
export interface PeriodTotals {
  entries: number;
  durationSec: number;
  billableSec: number;
  amount: number | null;
}
