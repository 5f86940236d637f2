import { DomainError, notFound } from '../../errors.js';
import type { PeriodKind } from './periods.js';

/** A day as a person reads it: `26 Oct 2026`. */
export const spokenDay = (day: string): string =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    Date.parse(`${day}T00:00:00Z`),
  );

const noun = (kind: PeriodKind) => (kind === 'weekly' ? 'week' : 'month');
/** "the week of 2026-10-26 to 2026-11-01" */
export const periodWords = (p: { kind: PeriodKind; startDay: string; endDay: string }) => `${noun(p.kind)} of ${p.startDay} to ${p.endDay}`;
export const spokenPeriod = (p: { kind: PeriodKind; startDay: string; endDay: string }) =>
  `${noun(p.kind)} of ${spokenDay(p.startDay)} to ${spokenDay(p.endDay)}`;

const WHO_REOPENS = 'an approver (an owner, or a member an owner marked as approver) can reopen it';

/** The refusals of the approvals module, worded once. */
export const approvalErrors = {
  /** An entry write before the workspace's lock date (decisions §13): for everyone, until an owner moves the date. */
  lockedBefore: (subject: string, day: string, zone: string) =>
    new DomainError(
      'conflict',
      `${subject} falls before ${day} (${zone}), the day before which this workspace's time is locked: it cannot be added, changed or deleted. An owner can move the lock date (the Workspace page, or timetrack workspace set W --locked-before).`,
      {
        people: `This time is locked: nothing before ${spokenDay(day)} can be added, changed or deleted. An owner can move the lock date on the Workspace page.`,
      },
    ),
  /** An entry write in a period submitted for approval. */
  submitted: (subject: string, period: { kind: PeriodKind; startDay: string; endDay: string }, authorName: string) =>
    new DomainError(
      'conflict',
      `${subject} is in ${authorName}'s ${periodWords(period)}, submitted for approval: its time cannot change while it waits. ${authorName} can withdraw it, or ${WHO_REOPENS}.`,
      {
        people: `This time is in a ${spokenPeriod(period)} submitted for approval: it cannot change while it waits. Its author can withdraw it on the week page, or ${WHO_REOPENS} on the Approvals page.`,
      },
    ),
  /** An entry write in an approved period. */
  approved: (subject: string, period: { kind: PeriodKind; startDay: string; endDay: string }, authorName: string, by: string | null) =>
    new DomainError(
      'conflict',
      `${subject} is in ${authorName}'s ${periodWords(period)}, approved${by ? ` by ${by}` : ''}: approved time cannot change. ${WHO_REOPENS[0]?.toUpperCase()}${WHO_REOPENS.slice(1)}.`,
      {
        people: `This time is in an approved ${spokenPeriod(period)}: approved time cannot change. ${WHO_REOPENS[0]?.toUpperCase()}${WHO_REOPENS.slice(1)} on the Approvals page.`,
      },
    ),
  approvalOff: () =>
    new DomainError('conflict', 'Approval is off in this workspace: there is nothing to submit or decide.', {
      people: 'Approval is off in this workspace: there is nothing to submit. An owner turns it on on the Workspace page.',
    }),
  notStarted: (period: { kind: PeriodKind; startDay: string; endDay: string }) =>
    new DomainError('invalid', `day: the ${periodWords(period)} has not begun yet; submit it once it has.`, {
      field: 'day',
      people: `The ${spokenPeriod(period)} has not begun yet: submit it once it has.`,
    }),
  alreadyWaiting: (period: { kind: PeriodKind; startDay: string; endDay: string }, state: 'submitted' | 'approved') =>
    new DomainError('conflict', `The ${periodWords(period)} is ${state} already.`, {
      people: `The ${spokenPeriod(period)} is ${state === 'submitted' ? 'submitted and waiting for an approver' : 'approved'} already.`,
    }),
  timerRuns: (period: { kind: PeriodKind; startDay: string; endDay: string }) =>
    new DomainError('conflict', `A timer started in the ${periodWords(period)} still runs: stop it, then submit.`, {
      people: `Your timer started in this ${period.kind === 'weekly' ? 'week' : 'month'} still runs: stop it, then submit.`,
    }),
  periodNotFound: (id: string) => notFound(`Period ${id}`),
  notWaiting: (id: string, state: string) =>
    new DomainError('conflict', `Period ${id} is ${state}: only a submitted period is approved or rejected.`, {
      people: `This period is ${state}: only a submitted period can be approved or rejected.`,
    }),
  notLocked: (id: string, state: string) =>
    new DomainError('conflict', `Period ${id} is ${state}: only a submitted or approved period is reopened.`, {
      people: `This period is ${state}: only a submitted or approved period can be reopened.`,
    }),
  ownTime: () =>
    new DomainError('forbidden', 'Your own time is approved by someone else: an approver cannot approve or reject their own period.', {
      people: 'Your own time is approved by someone else: ask another approver.',
    }),
  notApprover: () =>
    new DomainError(
      'forbidden',
      "Only approvers decide on periods: owners, and members an owner marked as approver, who see colleagues' time.",
      { people: "Only approvers decide on periods: owners, and members an owner marked as approver, who see colleagues' time." },
    ),
  onlyApproversReopen: () =>
    new DomainError('forbidden', 'An approved period is reopened by an approver (an owner, or a member an owner marked as approver).', {
      people: 'An approved period is reopened by an approver: ask an owner, or a member marked as approver.',
    }),
  noteNeeded: () =>
    new DomainError('invalid', 'note: a rejection says why (up to 1000 characters), so its author knows what to change.', {
      field: 'note',
      people: 'Say why you reject it, so its author knows what to change.',
    }),
  noteTooLong: () =>
    new DomainError('invalid', 'note: at most 1000 characters.', { field: 'note', people: 'A note has at most 1,000 characters.' }),
  approverNeedsTime: (userId: string) =>
    new DomainError(
      'invalid',
      `Member ${userId} cannot be an approver: an approver must see colleagues' time (set canViewOthersTime first).`,
      {
        field: 'approver',
        people: "An approver must see colleagues' time: tick “sees colleagues' time” for them first.",
      },
    ),
  timerBeforeLock: (day: string, since: string) =>
    new DomainError(
      'conflict',
      `lockedBefore: a running timer started ${since}, before ${day}: it must be stopped before its time is locked.`,
      {
        field: 'lockedBefore',
        people: `A timer started before ${spokenDay(day)} still runs: it must be stopped before that time is locked.`,
      },
    ),
  badApproval: (value: string) =>
    new DomainError('invalid', `approval must be weekly, monthly or off (got ${JSON.stringify(value)}).`, {
      field: 'approval',
      people: 'Approval is weekly, monthly or off.',
    }),
  ownersOnly: () =>
    new DomainError('forbidden', "Only the workspace's owners change its approval settings and approvers.", {
      people: "Only the workspace's owners change its approval settings and approvers.",
    }),
  workspaceNotFound: (id: string) => notFound(`Workspace ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
};
