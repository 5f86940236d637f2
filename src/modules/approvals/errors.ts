import { DomainError, notFound } from '../../errors.js';
import { type Key, translator, type Vars, words } from '../../i18n/index.js';
import type { PeriodKind } from './periods.js';

const noun = (kind: PeriodKind) => (kind === 'weekly' ? 'week' : 'month');
/** "the week of 2026-10-26 to 2026-11-01" */
export const periodWords = (p: { kind: PeriodKind; startDay: string; endDay: string }) => `${noun(p.kind)} of ${p.startDay} to ${p.endDay}`;

const WHO_REOPENS = 'an approver (an owner, or a member an owner marked as approver) can reopen it';

type Period = { kind: PeriodKind; startDay: string; endDay: string };

/**
 * A refusal's words for people: by key, said in the page reader's language (`words`), and in
 * English as `people` for what has no reader (an import's report).
 */
const said = (key: Key, vars?: Vars) => ({ words: words(key, vars), people: translator('en')(key, vars) });
/** The same for a week or a month: its key by the period's kind, its first and last day. */
const saidOf = (week: Key, month: Key, p: Period) => said(p.kind === 'weekly' ? week : month, { from: p.startDay, to: p.endDay });

/** The refusals of the approvals module, worded once. */
export const approvalErrors = {
  /** An entry write before the workspace's lock date (decisions §13): for everyone, until an owner moves the date. */
  lockedBefore: (subject: string, day: string, zone: string) =>
    new DomainError(
      'conflict',
      `${subject} falls before ${day} (${zone}), the day before which this workspace's time is locked: it cannot be added, changed or deleted. An owner can move the lock date (the Workspace page, or timetrack workspace set W --locked-before).`,
      said('approvals.refused.locked', { day }),
    ),
  /** An entry write in a period submitted for approval. */
  submitted: (subject: string, period: { kind: PeriodKind; startDay: string; endDay: string }, authorName: string) =>
    new DomainError(
      'conflict',
      `${subject} is in ${authorName}'s ${periodWords(period)}, submitted for approval: its time cannot change while it waits. ${authorName} can withdraw it, or ${WHO_REOPENS}.`,
      saidOf('approvals.refused.submittedWeek', 'approvals.refused.submittedMonth', period),
    ),
  /** An entry write in an approved period. */
  approved: (subject: string, period: { kind: PeriodKind; startDay: string; endDay: string }, authorName: string, by: string | null) =>
    new DomainError(
      'conflict',
      `${subject} is in ${authorName}'s ${periodWords(period)}, approved${by ? ` by ${by}` : ''}: approved time cannot change. ${WHO_REOPENS[0]?.toUpperCase()}${WHO_REOPENS.slice(1)}.`,
      saidOf('approvals.refused.approvedWeek', 'approvals.refused.approvedMonth', period),
    ),
  approvalOff: () =>
    new DomainError('conflict', 'Approval is off in this workspace: there is nothing to submit or decide.', said('approvals.refused.off')),
  notStarted: (period: { kind: PeriodKind; startDay: string; endDay: string }) =>
    new DomainError('invalid', `day: the ${periodWords(period)} has not begun yet; submit it once it has.`, {
      field: 'day',
      ...saidOf('approvals.refused.notStartedWeek', 'approvals.refused.notStartedMonth', period),
    }),
  alreadyWaiting: (period: { kind: PeriodKind; startDay: string; endDay: string }, state: 'submitted' | 'approved') =>
    new DomainError(
      'conflict',
      `The ${periodWords(period)} is ${state} already.`,
      state === 'submitted'
        ? saidOf('approvals.refused.waitingWeek', 'approvals.refused.waitingMonth', period)
        : saidOf('approvals.refused.approvedAlreadyWeek', 'approvals.refused.approvedAlreadyMonth', period),
    ),
  timerRuns: (period: { kind: PeriodKind; startDay: string; endDay: string }) =>
    new DomainError(
      'conflict',
      `A timer started in the ${periodWords(period)} still runs: stop it, then submit.`,
      saidOf('approvals.refused.timerRunsWeek', 'approvals.refused.timerRunsMonth', period),
    ),
  periodNotFound: (id: string) => notFound(`Period ${id}`),
  notWaiting: (id: string, state: string) =>
    new DomainError(
      'conflict',
      `Period ${id} is ${state}: only a submitted period is approved or rejected.`,
      said('approvals.refused.notWaiting'),
    ),
  notLocked: (id: string, state: string) =>
    new DomainError(
      'conflict',
      `Period ${id} is ${state}: only a submitted or approved period is reopened.`,
      said('approvals.refused.notLocked'),
    ),
  ownTime: () =>
    new DomainError(
      'forbidden',
      'Your own time is approved by someone else: an approver cannot approve or reject their own period.',
      said('approvals.refused.ownTime'),
    ),
  notApprover: () =>
    new DomainError(
      'forbidden',
      "Only approvers decide on periods: owners, and members an owner marked as approver, who see colleagues' time.",
      said('approvals.refused.notApprover'),
    ),
  onlyApproversReopen: () =>
    new DomainError(
      'forbidden',
      'An approved period is reopened by an approver (an owner, or a member an owner marked as approver).',
      said('approvals.refused.onlyApproversReopen'),
    ),
  noteNeeded: () =>
    new DomainError('invalid', 'note: a rejection says why (up to 1000 characters), so its author knows what to change.', {
      field: 'note',
      ...said('approvals.refused.noteNeeded'),
    }),
  noteTooLong: () =>
    new DomainError('invalid', 'note: at most 1000 characters.', {
      field: 'note',
      ...said('approvals.refused.noteTooLong', { max: 1000 }),
    }),
  approverNeedsTime: (userId: string) =>
    new DomainError(
      'invalid',
      `Member ${userId} cannot be an approver: an approver must see colleagues' time (set canViewOthersTime first).`,
      {
        field: 'approver',
        ...said('approvals.refused.approverNeedsTime'),
      },
    ),
  timerBeforeLock: (day: string, since: string) =>
    new DomainError(
      'conflict',
      `lockedBefore: a running timer started ${since}, before ${day}: it must be stopped before its time is locked.`,
      {
        field: 'lockedBefore',
        ...said('approvals.refused.timerBeforeLock', { day }),
      },
    ),
  badApproval: (value: string) =>
    new DomainError('invalid', `approval must be weekly, monthly or off (got ${JSON.stringify(value)}).`, {
      field: 'approval',
      ...said('approvals.refused.badApproval'),
    }),
  ownersOnly: () =>
    new DomainError(
      'forbidden',
      "Only the workspace's owners change its approval settings and approvers.",
      said('approvals.refused.ownersOnly'),
    ),
  workspaceNotFound: (id: string) => notFound(`Workspace ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
};
