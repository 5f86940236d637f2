import type { Clock } from '../../clock.js';
import type { DomainError } from '../../errors.js';
import { newTimeId } from '../../ids.js';
import { dayStart, parseCalendarDay, toIso } from '../../kernel/time.js';
import { type Actor, isOperator, type Principal } from '../../principal.js';
import type { Membership } from '../accounts/service.js';
import type { ApprovedSpan, EntryRowView } from '../entries/service.js';
import type { DomainWrite } from '../events/service.js';
import { approvalErrors as errors } from './errors.js';
import { dayAt, type PeriodKind, periodOfDay, type PeriodSpan } from './periods.js';
import { createApprovalTransfer } from './transfer.js';
import type { ApprovalsRepository, PeriodRow, SettingsRow } from './repository.js';
import {
  type ApprovalSettingsView,
  type AuditView,
  auditView,
  type PeriodTotals,
  type PeriodView,
  periodView,
  settingsView,
} from './views.js';

export type { ApprovalSettingsView, AuditView, PeriodTotals, PeriodView } from './views.js';
export type { PeriodKind, PeriodSpan } from './periods.js';
export { periodAt, periodOfDay } from './periods.js';
export { checkApprovalRecord, checkPeriodRecord } from './transfer.js';
export type { ApprovalRecord, ApprovalTransfer, PeriodRecord, PersonRecord } from './transfer.js';

/** What approvals read of entries (the entries module's, bound in src/services.ts). */
export interface ApprovalEntries {
  /** The member's running timer, if any. */
  running(workspaceId: string, userId: string): { startAt: number } | undefined;
  /** The starts of the workspace's running timers. */
  runningStarts(workspaceId: string): number[];
  /** A member's completed entries starting in [from, to), by start, as the reader may see them (money withheld alike). */
  rows(reader: Actor, userId: string, from: number, to: number): EntryRowView[];
  /** A member's completed entries starting in [from, to), summed (the command line's list). */
  sums(
    workspaceId: string,
    userId: string,
    from: number,
    to: number,
  ): { entries: number; durationSec: number; billableSec: number; amountCents: number | null };
}

/** The mail that tells a member of a decision on their period (the mail module's, within its budgets). */
export interface ApprovalMail {
  tell(input: {
    workspaceId: string;
    userId: string;
    /** Who decided (null: the operator). */
    byUserId: string | null;
    action: 'approved' | 'rejected' | 'reopened';
    kind: PeriodKind;
    startDay: string;
    endDay: string;
    note: string | null;
  }): void;
}

/** What approvals read of accounts. */
export interface ApprovalAccounts {
  membership(workspaceId: string, userId: string): Membership | undefined;
  /** The member's own zone, or null (then the workspace's default zone). */
  timeZoneOf(userId: string): string | null;
  userNames(ids: string[]): Array<{ id: string; name: string }>;
  requireWorkspace(id: string): void;
}

/** The refusal of an entry write, or null: `subject` names the entry in the message ("Entry ent_…", "A new entry starting …"). */
export type EntryLockCheck = (authorId: string, startAt: number, subject: string) => DomainError | null;

/** A period's state for its member: where it stands and the span it covers (no row yet: open). */
export interface PeriodState extends PeriodSpan {
  id: string | null;
  state: PeriodView['state'];
  note: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  /** Whether its member may submit it now (it is open or rejected, and has begun). */
  canSubmit: boolean;
  /** Whether its member may withdraw it (it waits). */
  canWithdraw: boolean;
}

const NOTE_MAX = 1000;
const APPROVALS: ReadonlyArray<ApprovalSettingsView['approval']> = ['off', 'weekly', 'monthly'];

interface Deps {
  repo: ApprovalsRepository;
  clock: Clock;
  write: DomainWrite;
  accounts: ApprovalAccounts;
  /** Bound once the entries module exists (it asks this module in turn). */
  entries: () => ApprovalEntries;
  mail?: ApprovalMail;
  /** The workspace's default zone: a member without a zone of their own, and the lock date. */
  defaultTimeZone: string;
}

/** The rules every part of the service shares: whose zone, who approves, which period a principal may see, the audit. */
function contextOf({ repo, clock, write, accounts, entries, mail, defaultTimeZone }: Deps) {
  const zoneOf = (userId: string) => accounts.timeZoneOf(userId) ?? defaultTimeZone;
  const namesOf = (ids: Array<string | null>): Map<string, string> =>
    new Map(accounts.userNames([...new Set(ids.filter((id): id is string => id !== null))]).map((u) => [u.id, u.name]));
  const viewOf = (row: PeriodRow): PeriodView => periodView(row, namesOf([row.userId, row.decidedBy]));
  const approvalOf = (workspaceId: string): SettingsRow['approval'] => repo.settings(workspaceId)?.approval ?? 'off';

  /** An approver: an owner or a marked member, who sees colleagues' time (an approver reads the time they approve). */
  const mayApprove = (actor: Actor): boolean =>
    actor.canViewOthersTime && (actor.isOwner || repo.isApprover(actor.workspaceId, actor.userId));

  const ownerOrOperator = (principal: Principal, workspaceId: string): void => {
    if (!isOperator(principal) && (!principal.isOwner || principal.workspaceId !== workspaceId)) throw errors.ownersOnly();
  };

  /** A period the principal may see: their own, any for an approver, every one for the operator; 404 otherwise. */
  const periodFor = (principal: Principal, id: string): PeriodRow => {
    const row = isOperator(principal) ? repo.periodById(id) : repo.period(principal.workspaceId, id);
    if (!row || (!isOperator(principal) && row.userId !== principal.userId && !mayApprove(principal))) throw errors.periodNotFound(id);
    return row;
  };

  const noteOf = (note: string | null | undefined, required: boolean): string | null => {
    const text = (note ?? '').trim();
    if (text.length > NOTE_MAX) throw errors.noteTooLong();
    if (text === '') {
      if (required) throw errors.noteNeeded();
      return null;
    }
    return text;
  };

  const byOf = (principal: Principal): string | null => (isOperator(principal) ? null : principal.userId);

  const audit = (row: PeriodRow, action: AuditView['action'], by: string | null, note: string | null, at: number) =>
    repo.insertAudit({ workspaceId: row.workspaceId, periodId: row.id, action, byUserId: by, note, at });

  const spanOf = (row: PeriodRow) => ({ kind: row.kind, startDay: row.startDay, endDay: dayAt(row.toAt - 1, row.timeZone) });

  /** The state of the member's period covering `span` (open when it has no row). */
  const stateOf = (span: PeriodSpan, row: PeriodRow | undefined, now: number): PeriodState => {
    const state = row?.state ?? 'open';
    const names = namesOf([row?.decidedBy ?? null]);
    return {
      ...span,
      id: row?.id ?? null,
      state,
      note: row?.note ?? null,
      decidedBy: row?.decidedBy ? (names.get(row.decidedBy) ?? '') : null,
      decidedAt: row?.decidedAt ? toIso(row.decidedAt) : null,
      canSubmit: (state === 'open' || state === 'rejected') && span.fromAt <= now,
      canWithdraw: state === 'submitted',
    };
  };

  const totalsOf = (rows: EntryRowView[], money: boolean): PeriodTotals => {
    let cents = 0;
    for (const r of rows) if (r.amount !== null) cents += Math.round(r.amount * 100);
    return {
      entries: rows.length,
      durationSec: rows.reduce((sum, r) => sum + r.durationSec, 0),
      billableSec: rows.reduce((sum, r) => sum + (r.billable ? r.durationSec : 0), 0),
      amount: money ? cents / 100 : null,
    };
  };

  /** Approved, rejected or reopened by someone else: its member is told by mail (when mail is set up). */
  const tell = (row: PeriodRow, action: 'approved' | 'rejected' | 'reopened', by: string | null, note: string | null) => {
    if (!mail || by === row.userId) return;
    mail.tell({ workspaceId: row.workspaceId, userId: row.userId, byUserId: by, action, ...spanOf(row), note });
  };

  return {
    repo,
    clock,
    write,
    accounts,
    entries,
    defaultTimeZone,
    zoneOf,
    namesOf,
    viewOf,
    approvalOf,
    mayApprove,
    ownerOrOperator,
    periodFor,
    noteOf,
    byOf,
    audit,
    spanOf,
    stateOf,
    totalsOf,
    tell,
  };
}

type Context = ReturnType<typeof contextOf>;

/**
 * Approval and lock (decisions §13): a workspace's settings (approval by week or month, a lock
 * date), its members' periods (submitted, approved, rejected with a note, reopened) with their
 * audit, who approves (owners, and members an owner marked, who see colleagues' time), and the
 * check every entry write asks (src/modules/entries/core.ts, through the port wired in
 * src/services.ts): submitted and approved periods, and everything before the lock date, refuse
 * with 409 conflict.
 */
export function createApprovalsService(deps: Deps) {
  const ctx = contextOf(deps);
  return {
    ...entryLockOf(ctx),
    ...settingsOf(ctx),
    ...periodsOf(ctx),
    ...readsOf(ctx),
    /** The export and restore of the workspace's approval records (the imports module's). */
    transfer: createApprovalTransfer({ repo: ctx.repo, now: () => ctx.clock.now() }),
    /**
     * With approval on, the members' approved time overlapping [from, to), merged per member
     * (consecutive approved weeks are one span): what an invoice of the range may take. Null
     * while approval is off (invoices take all time then).
     */
    approvedSpans(workspaceId: string, from: number, to: number): ApprovedSpan[] | null {
      if (ctx.approvalOf(workspaceId) === 'off') return null;
      const rows = ctx.repo
        .approvedOverlapping(workspaceId, from, to)
        .sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.fromAt - b.fromAt));
      const spans: ApprovedSpan[] = [];
      for (const row of rows) {
        const last = spans[spans.length - 1];
        if (last && last.userId === row.userId && row.fromAt <= last.to) last.to = Math.max(last.to, row.toAt);
        else spans.push({ userId: row.userId, from: row.fromAt, to: row.toAt });
      }
      return spans;
    },
    /** A member left the workspace (in the accounts' write): their approver mark goes; their periods and audit stay. */
    memberRemoved(workspaceId: string, userId: string): void {
      ctx.repo.removeApprover(workspaceId, userId);
    },
    /** An account was deleted (in the accounts' write): its marks go. */
    accountDeleted(userId: string): void {
      ctx.repo.removeApproverEverywhere(userId);
    },
  };
}

/** The check every entry write asks (decisions §13). */
function entryLockOf(ctx: Context) {
  const { repo, defaultTimeZone, namesOf, spanOf } = ctx;
  return {
    /**
     * The check of an entry write (the entries' core asks it inside the write): null when the
     * workspace locks nothing (approval off, no lock date: the common case, one point read), else
     * the refusal of an entry of `authorId` starting at `startAt`, or null.
     */
    entryLock(workspaceId: string): EntryLockCheck | null {
      const settings = repo.settings(workspaceId);
      if (!settings || (settings.approval === 'off' && settings.lockedBeforeAt === null)) return null;
      const { lockedBeforeAt, lockedBefore, lockZone, approval } = settings;
      return (authorId, startAt, subject) => {
        if (lockedBeforeAt !== null && startAt < lockedBeforeAt)
          return errors.lockedBefore(subject, lockedBefore as string, lockZone ?? defaultTimeZone);
        if (approval === 'off') return null;
        const period = repo.lockingPeriod(workspaceId, authorId, startAt);
        if (!period) return null;
        const names = namesOf([authorId, period.decidedBy]);
        const author = names.get(authorId) ?? authorId;
        return period.state === 'submitted'
          ? errors.submitted(subject, spanOf(period), author)
          : errors.approved(subject, spanOf(period), author, period.decidedBy ? (names.get(period.decidedBy) ?? null) : null);
      };
    },
  };
}

/** A workspace's approval settings and approvers: owners set them, members read them. */
function settingsOf(ctx: Context) {
  const { repo, clock, write, accounts, entries, defaultTimeZone, approvalOf, mayApprove, ownerOrOperator } = ctx;
  return {
    /** A workspace's approval settings: its members read them (the week page asks), the operator too. */
    settings(principal: Principal, workspaceId: string): ApprovalSettingsView {
      if (!isOperator(principal) && principal.workspaceId !== workspaceId) throw errors.workspaceNotFound(workspaceId);
      accounts.requireWorkspace(workspaceId);
      return settingsView(repo.settings(workspaceId), repo.approvers(workspaceId));
    },

    /**
     * Owners (and the operator) turn approval on (weekly, monthly) or off, and set or clear the
     * lock date (a day in the workspace's default zone). A lock date after the start of a timer
     * that still runs is refused: that timer could never stop.
     */
    setSettings(
      principal: Principal,
      workspaceId: string,
      input: { approval?: string; lockedBefore?: string | null },
    ): ApprovalSettingsView {
      ownerOrOperator(principal, workspaceId);
      accounts.requireWorkspace(workspaceId);
      if (input.approval !== undefined && !APPROVALS.includes(input.approval as ApprovalSettingsView['approval']))
        throw errors.badApproval(input.approval);
      const lock =
        input.lockedBefore === undefined || input.lockedBefore === null
          ? input.lockedBefore
          : (() => {
              const day = input.lockedBefore.trim();
              parseCalendarDay(day, 'lockedBefore');
              return { day, zone: defaultTimeZone, at: dayStart(day, 'lockedBefore', defaultTimeZone) };
            })();
      write(() => {
        const current = repo.settings(workspaceId);
        if (lock) {
          const early = entries()
            .runningStarts(workspaceId)
            .filter((start) => start < lock.at)
            .sort((a, b) => a - b)[0];
          if (early !== undefined) throw errors.timerBeforeLock(lock.day, toIso(early));
        }
        const kept =
          lock === undefined
            ? {
                lockedBefore: current?.lockedBefore ?? null,
                lockZone: current?.lockZone ?? null,
                lockedBeforeAt: current?.lockedBeforeAt ?? null,
              }
            : lock === null
              ? { lockedBefore: null, lockZone: null, lockedBeforeAt: null }
              : { lockedBefore: lock.day, lockZone: lock.zone, lockedBeforeAt: lock.at };
        repo.saveSettings({
          workspaceId,
          approval: (input.approval as SettingsRow['approval'] | undefined) ?? current?.approval ?? 'off',
          ...kept,
          updatedAt: clock.now(),
        });
      });
      return settingsView(repo.settings(workspaceId), repo.approvers(workspaceId));
    },

    /** Owners (and the operator) mark a member as approver, or take the mark away; an approver must see colleagues' time. */
    setApprover(principal: Principal, input: { workspaceId: string; userId: string; approver: boolean }): ApprovalSettingsView {
      ownerOrOperator(principal, input.workspaceId);
      accounts.requireWorkspace(input.workspaceId);
      write(() => {
        const member = accounts.membership(input.workspaceId, input.userId);
        if (!member) throw errors.memberNotFound(input.workspaceId, input.userId);
        if (input.approver && !member.canViewOthersTime) throw errors.approverNeedsTime(input.userId);
        if (input.approver) repo.addApprover(input.workspaceId, input.userId, clock.now());
        else repo.removeApprover(input.workspaceId, input.userId);
      });
      return settingsView(repo.settings(input.workspaceId), repo.approvers(input.workspaceId));
    },

    /** Whether the member approves colleagues' periods here (the Approvals tab): approval on, and an approver. */
    approves(actor: Actor): boolean {
      return approvalOf(actor.workspaceId) !== 'off' && mayApprove(actor);
    },
  };
}

/** A member's periods: their states, the submission, the decisions and the reopening. */
function periodsOf(ctx: Context) {
  const { repo, clock, write, entries, zoneOf, viewOf, approvalOf, mayApprove, periodFor, noteOf, byOf, audit, stateOf, tell } = ctx;
  function decide(principal: Principal, id: string, state: 'approved' | 'rejected', note: string | null): PeriodView {
    return write(() => {
      const row = periodFor(principal, id);
      if (!isOperator(principal)) {
        if (row.userId === principal.userId) throw errors.ownTime();
        if (!mayApprove(principal)) throw errors.notApprover();
      }
      if (approvalOf(row.workspaceId) === 'off') throw errors.approvalOff();
      if (row.state !== 'submitted') throw errors.notWaiting(id, row.state);
      const now = clock.now();
      const by = byOf(principal);
      const updated = repo.updatePeriod(row.id, { state, note, decidedBy: by, decidedAt: now, updatedAt: now });
      audit(row, state, by, note, now);
      tell(row, state, by, note);
      return viewOf(updated);
    });
  }

  return {
    /**
     * The member's own periods touching the days [fromDay, toDay] (a week page, a timesheet), in
     * their zone, each with its state; empty while approval is off.
     */
    periodsOf(actor: Actor, fromDay: string, toDay: string): PeriodState[] {
      const kind = approvalOf(actor.workspaceId);
      if (kind === 'off') return [];
      const zone = zoneOf(actor.userId);
      const now = clock.now();
      const states: PeriodState[] = [];
      let span = periodOfDay(kind, fromDay, zone, 'from');
      const last = dayStart(toDay, 'to', zone);
      for (;;) {
        states.push(stateOf(span, repo.periodByStart(actor.workspaceId, actor.userId, kind, span.startDay), now));
        if (span.toAt > last) break;
        span = periodOfDay(kind, dayAt(span.toAt, zone), zone);
      }
      return states;
    },

    /**
     * Submits the member's own period that holds `day` (today by default, in their zone): it
     * locks their entries starting in it until an approver decides (or they withdraw it). A
     * period not begun yet, one submitted or approved already, or one in which their timer still
     * runs, is refused.
     */
    submit(actor: Actor, input: { day?: string } = {}): PeriodView {
      const kind = approvalOf(actor.workspaceId);
      if (kind === 'off') throw errors.approvalOff();
      const zone = zoneOf(actor.userId);
      const now = clock.now();
      const span = periodOfDay(kind, input.day ?? dayAt(now, zone), zone);
      if (span.fromAt > now) throw errors.notStarted(span);
      return write(() => {
        const existing = repo.periodByStart(actor.workspaceId, actor.userId, kind, span.startDay);
        if (existing && (existing.state === 'submitted' || existing.state === 'approved'))
          throw errors.alreadyWaiting(span, existing.state);
        const running = entries().running(actor.workspaceId, actor.userId);
        if (running && running.startAt >= span.fromAt && running.startAt < span.toAt) throw errors.timerRuns(span);
        const values = {
          timeZone: zone,
          fromAt: span.fromAt,
          toAt: span.toAt,
          state: 'submitted' as const,
          note: null,
          decidedBy: null,
          decidedAt: null,
          submittedAt: now,
          updatedAt: now,
        };
        let row: PeriodRow;
        if (existing) row = repo.updatePeriod(existing.id, values);
        else {
          const id = newTimeId('apr', now);
          repo.insertPeriod({ id, workspaceId: actor.workspaceId, userId: actor.userId, kind, startDay: span.startDay, ...values });
          row = repo.periodById(id) as PeriodRow;
        }
        audit(row, 'submitted', actor.userId, null, now);
        return viewOf(row);
      });
    },

    /** An approver approves a submitted period of a colleague (the operator any): its entries stay locked; invoices may take them. */
    approve(principal: Principal, id: string, input: { note?: string | null } = {}): PeriodView {
      return decide(principal, id, 'approved', noteOf(input.note, false));
    },

    /** An approver rejects a submitted period of a colleague, saying why: its entries can change again, and it can be submitted again. */
    reject(principal: Principal, id: string, input: { note?: string | null }): PeriodView {
      return decide(principal, id, 'rejected', noteOf(input.note, true));
    },

    /**
     * Reopens a submitted or approved period: approvers (and the operator) any, its member their
     * own while it waits (a withdrawal). Its entries can change again; it can be submitted again.
     */
    reopen(principal: Principal, id: string, input: { note?: string | null } = {}): PeriodView {
      const note = noteOf(input.note, false);
      return write(() => {
        const row = periodFor(principal, id);
        if (row.state !== 'submitted' && row.state !== 'approved') throw errors.notLocked(id, row.state);
        const own = !isOperator(principal) && row.userId === principal.userId;
        const approver = isOperator(principal) || mayApprove(principal);
        if (!approver && !(own && row.state === 'submitted')) throw errors.onlyApproversReopen();
        const now = clock.now();
        const by = byOf(principal);
        const updated = repo.updatePeriod(row.id, {
          state: 'open',
          note,
          decidedBy: null,
          decidedAt: null,
          submittedAt: null,
          updatedAt: now,
        });
        audit(row, own && row.state === 'submitted' ? 'withdrawn' : 'reopened', by, note, now);
        tell(row, 'reopened', by, note);
        return viewOf(updated);
      });
    },
  };
}

/** What approvers (and the operator) read: the periods waiting, a workspace's periods, one period with its audit. */
function readsOf(ctx: Context) {
  const { repo, accounts, entries, namesOf, viewOf, approvalOf, mayApprove, periodFor, totalsOf } = ctx;
  return {
    /**
     * The periods waiting for this approver (colleagues' submitted periods), oldest first, each
     * with its entries and totals as the approver may see them (money only with canViewOthersMoney).
     */
    waiting(actor: Actor): Array<{ period: PeriodView; rows: EntryRowView[]; totals: PeriodTotals }> {
      if (approvalOf(actor.workspaceId) === 'off' || !mayApprove(actor)) return [];
      return repo
        .periodsInState(actor.workspaceId, ['submitted'])
        .filter((row) => row.userId !== actor.userId)
        .map((row) => {
          const rows = entries().rows(actor, row.userId, row.fromAt, row.toAt);
          return { period: viewOf(row), rows, totals: totalsOf(rows, actor.canViewOthersMoney) };
        });
    },

    /**
     * A workspace's periods (the command line's `approval list`, the Approvals page's decided
     * ones), oldest first, in the states given (all by default), with their time summed; money
     * only for who may see it.
     */
    list(principal: Principal, workspaceId: string, filter: { states?: PeriodView['state'][] } = {}) {
      if (!isOperator(principal) && (principal.workspaceId !== workspaceId || !mayApprove(principal))) throw errors.notApprover();
      accounts.requireWorkspace(workspaceId);
      const rows = repo.periodsInState(workspaceId, filter.states && filter.states.length > 0 ? filter.states : null);
      const money = isOperator(principal) || principal.canViewOthersMoney;
      return rows.map((row) => {
        const sums = entries().sums(workspaceId, row.userId, row.fromAt, row.toAt);
        const totals: PeriodTotals = {
          entries: sums.entries,
          durationSec: sums.durationSec,
          billableSec: sums.billableSec,
          amount: money || (!isOperator(principal) && row.userId === principal.userId) ? (sums.amountCents ?? 0) / 100 : null,
        };
        return { ...viewOf(row), totals };
      });
    },

    /** One period with its audit (and, for a member, its entries and totals as they may see them): its member, approvers, the operator. */
    period(principal: Principal, id: string) {
      const row = periodFor(principal, id);
      const trail = repo.audit(row.id);
      const names = namesOf(trail.map((a) => a.byUserId));
      const rows = isOperator(principal) ? [] : entries().rows(principal, row.userId, row.fromAt, row.toAt);
      const money = isOperator(principal) || row.userId === principal.userId || principal.canViewOthersMoney;
      return {
        period: viewOf(row),
        audit: trail.map((a) => auditView(a, names)),
        rows,
        totals: totalsOf(rows, money),
        /** What the reader may do with it now. */
        may: {
          decide: row.state === 'submitted' && (isOperator(principal) || (row.userId !== principal.userId && mayApprove(principal))),
          reopen:
            (row.state === 'submitted' || row.state === 'approved') &&
            (isOperator(principal) || mayApprove(principal) || (row.userId === principal.userId && row.state === 'submitted')),
        },
      };
    },
  };
}

export type ApprovalsService = ReturnType<typeof createApprovalsService>;
