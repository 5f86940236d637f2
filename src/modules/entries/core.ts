import type { Actor } from '../../principal.js';
import type { DomainError } from '../../errors.js';
import { entryErrors as errors } from './errors.js';
import type { Clock } from '../../clock.js';
import { newTimeId } from '../../ids.js';
import { amountCents } from '../../kernel/money.js';
import { canonicalTimeZone, secondsBetween, toIso } from '../../kernel/time.js';
import type { DomainEvent, EventActor } from '../events/service.js';
import type { AccountsService } from '../accounts/service.js';
import type { CatalogService, ProjectRow, TaskRow } from '../catalog/service.js';
import type { EntriesRepository } from './repository.js';
import { type EntryRow, type EntryView, entryView, type ViewContext } from './views.js';

/** How far ahead of the server clock a timer start may lie (client clocks drift). */
export const START_SKEW_MS = 60_000;
/** The longest entry: 366 days (keeps every sum of money far from integer overflow). */
export const MAX_ENTRY_MS = 366 * 86_400_000;

export type EntryEventName = 'entry.started' | 'entry.stopped' | 'entry.created' | 'entry.updated' | 'entry.deleted';

/** Records an event in the write in progress (src/db/write.ts hands it to the write's body). */
export type RecordEvent = (event: DomainEvent) => number;

export function checkSpan(start: number, end: number): void {
  if (end <= start) throw errors.endBeforeStart();
  if (end - start > MAX_ENTRY_MS) throw errors.tooLong();
}

/** The fields that change when an entry becomes (or stays) completed. */
export function completion(row: Pick<EntryRow, 'startAt' | 'billable' | 'hourlyRate'>, endAt: number) {
  const durationSec = secondsBetween(row.startAt, endAt);
  return { endAt, durationSec, amountCents: amountCents(row.billable, row.hourlyRate, durationSec) };
}

export const eventActor = (actor: Actor | null): EventActor => ({ userId: actor?.userId ?? null, tokenId: actor?.tokenId ?? null });

/** The event of an entry's deletion (the API's delete, an import's undo). */
export const deletedEvent = (
  row: Pick<EntryRow, 'id' | 'workspaceId' | 'authorId' | 'originId'>,
  actor: EventActor,
  webhooks = true,
): DomainEvent => ({
  workspaceId: row.workspaceId,
  entity: 'entry',
  entityId: row.id,
  operation: 'delete',
  event: 'entry.deleted',
  actor,
  originId: row.originId,
  payload: { id: row.id, authorId: row.authorId },
  webhooks,
});

/** A new entry of a write: a completed one (POST /entries) or a timer (end null). */
export interface NewEntry {
  start: number;
  end: number | null;
  description?: string;
  projectId?: string | null;
  taskId?: string | null;
  billable?: boolean;
  source?: EntryRow['source'];
  timeZone?: string;
  tagIds?: string[];
  originId?: string;
}

/**
 * The approvals' check of entry writes (decisions §13; the approvals module's, wired in
 * src/services.ts), asked inside each write: null when the workspace locks nothing (approval off,
 * no lock date), else the refusal (409 conflict) of an entry of `authorId` starting at `startAt`,
 * or null. `subject` names the entry in the refusal.
 */
export interface EntryLocks {
  entryLock(workspaceId: string): ((authorId: string, startAt: number, subject: string) => DomainError | null) | null;
}

/** No approval, no lock date: nothing but invoices locks an entry (tests of entries alone). */
export const NO_LOCKS: EntryLocks = { entryLock: () => null };

/** How a refusal names a new entry. */
export const newEntrySubject = (start: number): string => `A new entry starting ${toIso(start)}`;

/** What entries read of the catalog: the project, task and tags a write names (404 unless in the workspace). */
export type EntryCatalog = Pick<CatalogService, 'project' | 'task' | 'existingTags'>;
/** What entries read of accounts: the author's and the workspace's rates, the currency, the runaway settings. */
export type EntryAccounts = Pick<AccountsService, 'membership' | 'currency' | 'runawaySettings'>;

/**
 * The rules entries and timers share (stated with the entry operations in the contract): who may see and change an entry,
 * which project and task a write may use, which rate it snapshots, and how a write records its
 * event with the unredacted snapshot.
 */
export function createEntryCore({
  repo,
  catalog,
  accounts,
  clock,
  locks = NO_LOCKS,
}: {
  repo: EntriesRepository;
  catalog: EntryCatalog;
  accounts: EntryAccounts;
  clock: Clock;
  locks?: EntryLocks;
}) {
  /**
   * Inside a write: refuses (409) an entry of `authorId` starting at each of `starts` that a
   * submitted or approved period, or the workspace's lock date, holds (decisions §13). Every
   * write of an entry passes here: edits, deletes, timers, undos, imports and their undo.
   */
  function checkLocks(workspaceId: string, authorId: string, starts: number[], subject: string): void {
    const check = locks.entryLock(workspaceId);
    if (!check) return;
    for (const start of starts) {
      const refusal = check(authorId, start, subject);
      if (refusal) throw refusal;
    }
  }

  /** The entry as the actor may see it: 404 when hidden (another workspace, or a colleague's without canViewOthersTime). */
  function visible(actor: Actor, id: string): EntryRow {
    const row = repo.byId(actor.workspaceId, id);
    if (!row || (row.authorId !== actor.userId && !actor.canViewOthersTime)) throw errors.notFound(id);
    return row;
  }

  /** An entry the actor may change: their own (else 403 when visible), not invoiced, submitted, approved or locked (else 409). */
  function editable(actor: Actor, id: string): EntryRow {
    const row = visible(actor, id);
    if (row.authorId !== actor.userId) throw errors.notAuthor(id);
    if (row.invoiceId !== null) throw errors.invoiced(id, row.invoiceId);
    checkLocks(row.workspaceId, row.authorId, [row.startAt], `Entry ${id}`);
    return row;
  }

  const resolveWork = (workspaceId: string, projectId: string | null | undefined, taskId: string | null | undefined, kept: Kept) =>
    workOf(catalog, workspaceId, projectId, taskId, kept);

  function checkTags(workspaceId: string, ids: string[] | undefined): void {
    if (!ids || ids.length === 0) return;
    const found = catalog.existingTags(workspaceId, ids);
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw errors.tagNotFound(missing);
  }

  /** First non-null of task, project, member, workspace; snapshotted on the entry. */
  function resolveRate(workspaceId: string, authorId: string, project: ProjectRow | null, task: TaskRow | null): number | null {
    if (task?.hourlyRate != null) return task.hourlyRate;
    if (project?.hourlyRate != null) return project.hourlyRate;
    const member = accounts.membership(workspaceId, authorId);
    return member?.hourlyRate ?? member?.workspaceHourlyRate ?? null;
  }

  /** Records the event of a write with the unredacted snapshot, and returns the actor's view (the snapshot for the server itself). */
  function emit(
    record: RecordEvent,
    actor: Actor | null,
    event: EntryEventName,
    row: EntryRow,
    originId: string | null = row.originId,
  ): EntryView {
    const ctx: ViewContext = { now: clock.now(), currency: actor?.currency ?? accounts.currency(row.workspaceId), actor: null };
    const snapshot = entryView(row, repo.tagIds(row.id), ctx);
    record({
      workspaceId: row.workspaceId,
      entity: 'entry',
      entityId: row.id,
      operation: event === 'entry.created' || event === 'entry.started' ? 'create' : 'update',
      event,
      actor: eventActor(actor),
      originId,
      payload: { ...snapshot, originId },
    });
    return actor === null ? snapshot : entryView(row, snapshot.tagIds, { ...ctx, actor });
  }

  /** Inserts an entry (inside the caller's write) and records its event. */
  function insert(record: RecordEvent, actor: Actor, input: NewEntry, event: EntryEventName): EntryView {
    checkLocks(actor.workspaceId, actor.userId, [input.start], newEntrySubject(input.start));
    const { project, task } = resolveWork(actor.workspaceId, input.projectId, input.taskId, { projectId: null, taskId: null });
    checkTags(actor.workspaceId, input.tagIds);
    const billable = input.billable ?? project?.billable ?? false;
    const hourlyRate = resolveRate(actor.workspaceId, actor.userId, project, task);
    const now = clock.now();
    const done =
      input.end === null
        ? { endAt: null, durationSec: null, amountCents: null }
        : completion({ startAt: input.start, billable, hourlyRate }, input.end);
    const row = repo.insert({
      id: newTimeId('ent'),
      workspaceId: actor.workspaceId,
      authorId: actor.userId,
      description: input.description ?? '',
      projectId: project?.id ?? null,
      taskId: task?.id ?? null,
      billable: billable ? 1 : 0,
      startAt: input.start,
      ...done,
      hourlyRate,
      source: input.source ?? 'api',
      timeZone: input.timeZone === undefined ? null : canonicalTimeZone(input.timeZone),
      originId: input.originId ?? null,
      createdAt: now,
      updatedAt: now,
    });
    if (input.tagIds) repo.replaceTags(row.id, input.tagIds);
    return emit(record, actor, event, row);
  }

  /** Stops a running entry at `endAt` (inside the caller's write): entry.stopped. */
  function stop(record: RecordEvent, actor: Actor | null, row: EntryRow, endAt: number): EntryView {
    if (endAt <= row.startAt) throw errors.endBeforeEntryStart(row.startAt);
    checkSpan(row.startAt, endAt);
    checkLocks(row.workspaceId, row.authorId, [row.startAt], `Entry ${row.id}`);
    const now = clock.now();
    // Stopping a flagged runaway timer resolves it, when its author does.
    const resolvedAt =
      row.runawayAction === 'flagged' && row.runawayResolvedAt === null && actor?.userId === row.authorId ? now : row.runawayResolvedAt;
    const updated = repo.update(row.id, { ...completion(row, endAt), runawayResolvedAt: resolvedAt, updatedAt: now });
    return emit(record, actor, 'entry.stopped', updated);
  }

  return { visible, editable, checkLocks, lockCheck: locks.entryLock, resolveWork, checkTags, resolveRate, emit, insert, stop };
}

export type EntryCore = ReturnType<typeof createEntryCore>;

/** The project and task an entry has already: archived ones stay usable for it. */
type Kept = { projectId: string | null; taskId: string | null };
/**
 * Project and task of a write: 404 when unknown or foreign, 400 when mismatched, and 400 when
 * archived unless it is the one the entry has already (`kept`).
 */
export function workOf(
  catalog: EntryCatalog,
  workspaceId: string,
  projectId: string | null | undefined,
  taskId: string | null | undefined,
  kept: Kept,
): { project: ProjectRow | null; task: TaskRow | null } {
  let task: TaskRow | null = null;
  if (taskId) {
    task = catalog.task(workspaceId, taskId);
    if (task.archived && task.id !== kept.taskId) throw errors.taskArchived(taskId);
    if (projectId && projectId !== task.projectId) {
      throw errors.taskElsewhere(taskId, task.projectId, projectId);
    }
  }
  const wantedProject = projectId || task?.projectId || null;
  let project: ProjectRow | null = null;
  if (wantedProject) {
    project = catalog.project(workspaceId, wantedProject);
    if (project.archived && project.id !== kept.projectId) {
      throw errors.projectArchived(wantedProject);
    }
  }
  return { project, task };
}
