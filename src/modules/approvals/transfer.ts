import { DomainError } from '../../errors.js';
import { type Key, type Vars, words } from '../../i18n/index.js';
import { newTimeId } from '../../ids.js';
import { canonicalTimeZone, dayStart, parseCalendarDay, parseInstant, toIso } from '../../kernel/time.js';
import { recordVersionRefusal } from '../../kernel/input.js';
import type { ApprovalsRepository, AuditRow, PeriodRow } from './repository.js';

/*
 * Approval and lock in a whole-workspace export and back (decisions 11a, §13): the settings with
 * the approvers, and each period with its audit, people by email. An import restores them into a
 * workspace where they are not (the settings where it has none, a period where its member has no
 * period of that kind and first day), people mapped to its members by email; someone no member is
 * keeps their name in the audit. The import's undo takes back what it restored.
 */

/** A person of a record: their email and name as the exporting workspace had them. */
export interface PersonRecord {
  email: string;
  name: string;
}

/** The settings record (`approval`). */
export interface ApprovalRecord {
  v: 1;
  approval: 'off' | 'weekly' | 'monthly';
  lockedBefore: string | null;
  lockZone: string | null;
  approvers: PersonRecord[];
}

/** A period record (`period`, its member in the row's email and member columns). */
export interface PeriodRecord {
  v: 1;
  kind: 'weekly' | 'monthly';
  startDay: string;
  timeZone: string;
  from: string;
  to: string;
  state: PeriodRow['state'];
  note: string | null;
  submittedAt: string | null;
  decidedAt: string | null;
  decidedBy: PersonRecord | null;
  audit: Array<{ action: AuditRow['action']; by: PersonRecord | null; note: string | null; at: string }>;
}

const STATES = ['open', 'submitted', 'approved', 'rejected'] as const;
const ACTIONS = ['submitted', 'approved', 'rejected', 'reopened', 'withdrawn'] as const;

/** A record refused: the message names what; its words for people by key (`integrations.imports.records.*`, the Import page). */
const fail = (message: string, key: Key, vars?: Vars): never => {
  throw new DomainError('invalid', message, { words: words(key, vars) });
};
const text = (value: unknown, what: string, max: number): string =>
  typeof value === 'string' && value.length <= max
    ? value
    : fail(`${what} must be a text of at most ${max} characters`, 'integrations.imports.records.text', { what, max });
const optionalText = (value: unknown, what: string, max: number): string | null => (value === null ? null : text(value, what, max));
const instant = (value: unknown, what: string): string => toIso(parseInstant(text(value, what, 40), what));
const optionalInstant = (value: unknown, what: string): string | null => (value === null ? null : instant(value, what));
const person = (value: unknown, what: string): PersonRecord => {
  if (typeof value !== 'object' || value === null)
    return fail(`${what} must name a person ({email, name})`, 'integrations.imports.records.person', { what });
  const { email, name } = value as Record<string, unknown>;
  return { email: text(email, `${what}.email`, 320), name: text(name, `${what}.name`, 200) };
};
const optionalPerson = (value: unknown, what: string): PersonRecord | null => (value === null ? null : person(value, what));
const oneOf = <T extends string>(value: unknown, values: readonly T[], what: string): T =>
  values.includes(value as T)
    ? (value as T)
    : fail(`${what} must be one of ${values.join(', ')}`, 'integrations.imports.records.oneOfThese', { what, values: values.join(', ') });

/** The settings record checked (version 1; the import refuses the row, naming what, otherwise). */
export function checkApprovalRecord(data: Record<string, unknown>): ApprovalRecord {
  if (data.v !== 1) throw recordVersionRefusal('approval', data.v);
  const lockedBefore = optionalText(data.lockedBefore, 'lockedBefore', 10);
  if (lockedBefore !== null) parseCalendarDay(lockedBefore, 'lockedBefore');
  const lockZone = data.lockZone === null ? null : canonicalTimeZone(text(data.lockZone, 'lockZone', 64), 'lockZone');
  if (!Array.isArray(data.approvers)) fail('approvers must be a list of people', 'integrations.imports.records.approvers');
  return {
    v: 1,
    approval: oneOf(data.approval, ['off', 'weekly', 'monthly'] as const, 'approval'),
    lockedBefore,
    lockZone: lockedBefore === null ? null : lockZone,
    approvers: (data.approvers as unknown[]).map((p, i) => person(p, `approvers[${i}]`)),
  };
}

/** A period record checked (version 1). */
export function checkPeriodRecord(data: Record<string, unknown>): PeriodRecord {
  if (data.v !== 1) throw recordVersionRefusal('period', data.v);
  const startDay = text(data.startDay, 'startDay', 10);
  parseCalendarDay(startDay, 'startDay');
  const from = instant(data.from, 'from');
  const to = instant(data.to, 'to');
  if (Date.parse(to) <= Date.parse(from)) fail('to must be after from', 'integrations.imports.records.toAfterFrom');
  if (!Array.isArray(data.audit) || data.audit.length > 10_000)
    fail('audit must be a list of what was done', 'integrations.imports.records.audit');
  return {
    v: 1,
    kind: oneOf(data.kind, ['weekly', 'monthly'] as const, 'kind'),
    startDay,
    timeZone: canonicalTimeZone(text(data.timeZone, 'timeZone', 64), 'timeZone'),
    from,
    to,
    state: oneOf(data.state, STATES, 'state'),
    note: optionalText(data.note, 'note', 1000),
    submittedAt: optionalInstant(data.submittedAt, 'submittedAt'),
    decidedAt: optionalInstant(data.decidedAt, 'decidedAt'),
    decidedBy: optionalPerson(data.decidedBy, 'decidedBy'),
    audit: (data.audit as unknown[]).map((raw, i) => {
      const a = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      return {
        action: oneOf(a.action, ACTIONS, `audit[${i}].action`),
        by: optionalPerson(a.by, `audit[${i}].by`),
        note: optionalText(a.note, `audit[${i}].note`, 1000),
        at: instant(a.at, `audit[${i}].at`),
      };
    }),
  };
}

/** The export and restore of a workspace's approval records (part of the approvals service). */
export function createApprovalTransfer({ repo, now }: { repo: ApprovalsRepository; now: () => number }) {
  return {
    /**
     * What a workspace's export carries of approval, people by id (the export names them by
     * email): the settings when there are any, every period with its audit. Null: nothing.
     */
    exportOf(workspaceId: string) {
      const settings = repo.settings(workspaceId);
      const periods = repo.periodsInState(workspaceId, null);
      if (!settings && periods.length === 0) return null;
      const audit = new Map<string, AuditRow[]>();
      for (const row of repo.auditOfWorkspace(workspaceId)) audit.set(row.periodId, [...(audit.get(row.periodId) ?? []), row]);
      return {
        settings: settings
          ? {
              approval: settings.approval,
              lockedBefore: settings.lockedBefore,
              lockZone: settings.lockedBefore ? settings.lockZone : null,
              approvers: repo.approvers(workspaceId),
            }
          : null,
        periods: periods.map((p) => ({ period: p, audit: audit.get(p.id) ?? [] })),
      };
    },

    /**
     * Inside an import's write: the settings and approver marks of a file where the workspace has
     * none (a workspace's own stay); whether they were restored. `memberOf` maps an email to a member.
     */
    restoreSettings(workspaceId: string, record: ApprovalRecord, memberOf: (email: string) => string | null): boolean {
      if (repo.settings(workspaceId)) return false;
      const at = record.lockedBefore === null ? null : dayStart(record.lockedBefore, 'lockedBefore', record.lockZone ?? 'UTC');
      repo.saveSettings({
        workspaceId,
        approval: record.approval,
        lockedBefore: record.lockedBefore,
        lockZone: record.lockedBefore === null ? null : (record.lockZone ?? 'UTC'),
        lockedBeforeAt: at,
        updatedAt: now(),
      });
      for (const p of record.approvers) {
        const userId = memberOf(p.email);
        if (userId !== null) repo.addApprover(workspaceId, userId, now());
      }
      return true;
    },

    /**
     * Inside an import's write: a period of a file with its audit, for the member `userId`, where
     * they have none of that kind and first day; its new id, or null (kept as it is). Who acted is
     * mapped by email to a member, else kept by name.
     */
    restorePeriod(workspaceId: string, userId: string, record: PeriodRecord, memberOf: (email: string) => string | null): string | null {
      if (repo.periodByStart(workspaceId, userId, record.kind, record.startDay)) return null;
      const id = newTimeId('apr', Date.parse(record.from));
      repo.insertPeriod({
        id,
        workspaceId,
        userId,
        kind: record.kind,
        startDay: record.startDay,
        timeZone: record.timeZone,
        fromAt: Date.parse(record.from),
        toAt: Date.parse(record.to),
        state: record.state,
        note: record.note,
        decidedBy: record.decidedBy === null ? null : memberOf(record.decidedBy.email),
        decidedAt: record.decidedAt === null ? null : Date.parse(record.decidedAt),
        submittedAt: record.submittedAt === null ? null : Date.parse(record.submittedAt),
        updatedAt: now(),
      });
      for (const a of record.audit) {
        const by = a.by === null ? null : memberOf(a.by.email);
        repo.insertAudit({
          workspaceId,
          periodId: id,
          action: a.action,
          byUserId: by,
          byName: a.by !== null && by === null ? a.by.name : null,
          note: a.note,
          at: Date.parse(a.at),
        });
      }
      return id;
    },

    /** Inside an import's undo: the periods it restored (with their audit) and, when it restored them, the settings. */
    deleteRestored(workspaceId: string, periodIds: string[], settings: boolean): void {
      for (const id of periodIds) repo.deletePeriod(workspaceId, id);
      if (settings) repo.deleteSettings(workspaceId);
    },
  };
}

export type ApprovalTransfer = ReturnType<typeof createApprovalTransfer>;
