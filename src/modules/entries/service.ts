import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { components } from '../../../generated/openapi.js';
import type { Actor } from '../../actor.js';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { DomainError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { members, workspaces } from '../accounts/schema.js';
import { projects, tags, tasks } from '../catalog/schema.js';
import type { EventActor, EventLog } from '../events/service.js';
import type { EntryFilters, EntryLister, Page } from './list.js';
import { amountOf, secondsBetween } from './money.js';
import { entries, entryTags } from './schema.js';
import { canonicalTimeZone, parseInstant, parseRangeBound } from './time.js';
import { type EntryRow, type EntryView, entryView, type ViewContext } from './views.js';

type Schemas = components['schemas'];
type ProjectRow = typeof projects.$inferSelect;
type TaskRow = typeof tasks.$inferSelect;

export const DEFAULT_PAGE_SIZE = 50;
/** How far ahead of the server clock a timer start may lie (client clocks drift). */
const START_SKEW_MS = 60_000;
/** The longest entry: 366 days (keeps every sum of money far from integer overflow). */
export const MAX_ENTRY_MS = 366 * 86_400_000;

function checkSpan(start: number, end: number): void {
  if (end <= start) throw new DomainError('invalid', 'end: must be after start.');
  if (end - start > MAX_ENTRY_MS) throw new DomainError('invalid', 'end: an entry spans at most 366 days.');
}

export type EntryEventName = 'entry.started' | 'entry.stopped' | 'entry.created' | 'entry.updated' | 'entry.deleted';

export interface ListEntriesQuery extends EntryFilters {
  from: string;
  to: string;
  cursor?: string;
  limit?: number;
}

/**
 * Time entries and timers. Every write runs in one immediate transaction that also records its
 * domain event (the entry snapshot, the spec's event name, the actor, the originId), so a write
 * and its event commit together or not at all.
 */
export function createEntriesService({ db, clock, events, lister }: { db: Db; clock: Clock; events: EventLog; lister: EntryLister }) {
  const currencyOf = db
    .select({ currency: workspaces.currency })
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare();
  const byId = db
    .select()
    .from(entries)
    .where(and(eq(entries.id, sql.placeholder('id')), eq(entries.workspaceId, sql.placeholder('workspaceId'))))
    .prepare();
  const tagsOf = db
    .select({ tagId: entryTags.tagId })
    .from(entryTags)
    .where(eq(entryTags.entryId, sql.placeholder('id')))
    .orderBy(entryTags.tagId)
    .prepare();
  const runningOf = db
    .select()
    .from(entries)
    .where(
      and(
        eq(entries.workspaceId, sql.placeholder('workspaceId')),
        eq(entries.authorId, sql.placeholder('authorId')),
        isNull(entries.endAt),
      ),
    )
    .prepare();

  // The write path's statements, prepared once (an unprepared Drizzle query is built and
  // prepared by SQLite on every call: that was most of the cost of POST /entries).
  const taskById = db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, sql.placeholder('id')), eq(tasks.workspaceId, sql.placeholder('workspaceId'))))
    .prepare();
  const projectById = db
    .select()
    .from(projects)
    .where(and(eq(projects.id, sql.placeholder('id')), eq(projects.workspaceId, sql.placeholder('workspaceId'))))
    .prepare();
  const memberRate = db
    .select({ rate: members.hourlyRate })
    .from(members)
    .where(and(eq(members.workspaceId, sql.placeholder('workspaceId')), eq(members.userId, sql.placeholder('userId'))))
    .prepare();
  const workspaceRate = db
    .select({ rate: workspaces.hourlyRate })
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare();
  const insertEntry = db
    .insert(entries)
    .values({
      id: sql.placeholder('id'),
      workspaceId: sql.placeholder('workspaceId'),
      authorId: sql.placeholder('authorId'),
      description: sql.placeholder('description'),
      projectId: sql.placeholder('projectId'),
      taskId: sql.placeholder('taskId'),
      billable: sql.placeholder('billable'),
      startAt: sql.placeholder('startAt'),
      endAt: sql.placeholder('endAt'),
      durationSec: sql.placeholder('durationSec'),
      amount: sql.placeholder('amount'),
      hourlyRate: sql.placeholder('hourlyRate'),
      source: sql.placeholder('source'),
      timeZone: sql.placeholder('timeZone'),
      originId: sql.placeholder('originId'),
      createdAt: sql.placeholder('createdAt'),
      updatedAt: sql.placeholder('updatedAt'),
    })
    .returning()
    .prepare();

  const currency = (workspaceId: string) => currencyOf.get({ id: workspaceId })?.currency ?? 'EUR';
  const eventActor = (actor: Actor | null): EventActor => ({ userId: actor?.userId ?? null, tokenId: actor?.tokenId ?? null });
  const tagIds = (id: string) => tagsOf.all({ id }).map((t) => t.tagId);

  /** The entry as the actor may see it: 404 when hidden (another workspace, or a colleague's without canViewOthersTime). */
  function visible(actor: Actor, id: string): EntryRow {
    const row = byId.get({ id, workspaceId: actor.workspaceId });
    if (!row || (row.authorId !== actor.userId && !actor.canViewOthersTime)) throw notFound(`Entry ${id}`);
    return row;
  }

  /** An entry the actor may change: their own (else 403 when visible), not invoiced (else 409). */
  function editable(actor: Actor, id: string): EntryRow {
    const row = visible(actor, id);
    if (row.authorId !== actor.userId)
      throw new DomainError('forbidden', `Entry ${id} belongs to another member; only its author may change it.`);
    if (row.invoiceId !== null)
      throw new DomainError('conflict', `Entry ${id} is invoiced (${row.invoiceId}) and can no longer be changed.`);
    return row;
  }

  /**
   * Project and task of a write: 404 when unknown or foreign, 400 when mismatched, and 400 when
   * archived unless it is the one the entry has already (`kept`).
   */
  function resolveWork(
    workspaceId: string,
    projectId: string | null | undefined,
    taskId: string | null | undefined,
    kept: { projectId: string | null; taskId: string | null },
  ) {
    let task: TaskRow | null = null;
    if (taskId) {
      task = taskById.get({ id: taskId, workspaceId }) ?? null;
      if (!task) throw notFound(`Task ${taskId}`);
      if (task.archived && task.id !== kept.taskId)
        throw new DomainError('invalid', `taskId: task ${taskId} is archived and takes no new entries.`);
      if (projectId && projectId !== task.projectId) {
        throw new DomainError('invalid', `taskId: task ${taskId} belongs to project ${task.projectId}, not to ${projectId}.`);
      }
    }
    const wantedProject = projectId || task?.projectId || null;
    let project: ProjectRow | null = null;
    if (wantedProject) {
      project = projectById.get({ id: wantedProject, workspaceId }) ?? null;
      if (!project) throw notFound(`Project ${wantedProject}`);
      if (project.archived && project.id !== kept.projectId) {
        throw new DomainError('invalid', `projectId: project ${wantedProject} is archived and takes no new entries.`);
      }
    }
    return { project, task };
  }

  function checkTags(workspaceId: string, ids: string[] | undefined): void {
    if (!ids || ids.length === 0) return;
    const found = new Set(
      db
        .select({ id: tags.id })
        .from(tags)
        .where(and(eq(tags.workspaceId, workspaceId), inArray(tags.id, ids)))
        .all()
        .map((t) => t.id),
    );
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw notFound(`Tag ${missing}`);
  }

  /** First non-null of task, project, member, workspace; snapshotted on the entry. */
  function resolveRate(workspaceId: string, authorId: string, project: ProjectRow | null, task: TaskRow | null): number | null {
    if (task?.hourlyRate != null) return task.hourlyRate;
    if (project?.hourlyRate != null) return project.hourlyRate;
    const member = memberRate.get({ workspaceId, userId: authorId });
    if (member?.rate != null) return member.rate;
    return workspaceRate.get({ id: workspaceId })?.rate ?? null;
  }

  function replaceTags(entryId: string, ids: string[]): void {
    db.delete(entryTags).where(eq(entryTags.entryId, entryId)).run();
    if (ids.length > 0)
      db.insert(entryTags)
        .values(ids.map((tagId) => ({ entryId, tagId })))
        .run();
  }

  /** Records the event of a write with the unredacted snapshot, and returns the actor's view. */
  function emit(actor: Actor | null, event: EntryEventName, row: EntryRow, originId: string | null = row.originId): EntryView {
    const ctx: ViewContext = { now: clock.now(), currency: actor?.currency ?? currency(row.workspaceId), actor: null };
    const snapshot = entryView(row, tagIds(row.id), ctx);
    events.record(db, {
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

  /** The fields that change when an entry becomes (or stays) completed. */
  function completion(row: Pick<EntryRow, 'startAt' | 'billable' | 'hourlyRate'>, endAt: number) {
    const durationSec = secondsBetween(row.startAt, endAt);
    return { endAt, durationSec, amount: amountOf(row.billable, row.hourlyRate, durationSec) };
  }

  function stopRow(actor: Actor | null, row: EntryRow, endAt: number): EntryView {
    if (endAt <= row.startAt)
      throw new DomainError('invalid', `end: must be after the entry's start (${new Date(row.startAt).toISOString()}).`);
    checkSpan(row.startAt, endAt);
    const now = clock.now();
    const resolvedAt =
      row.runawayAction === 'flagged' && row.runawayResolvedAt === null && actor?.userId === row.authorId ? now : row.runawayResolvedAt;
    const updated = db
      .update(entries)
      .set({ ...completion(row, endAt), runawayResolvedAt: resolvedAt, updatedAt: now })
      .where(eq(entries.id, row.id))
      .returning()
      .get() as EntryRow;
    return emit(actor, 'entry.stopped', updated);
  }

  function transaction<T>(body: () => T): T {
    try {
      return db.transaction(body, { behavior: 'immediate' });
    } catch (error) {
      // Only the one-running-timer index can clash here: another start won the race.
      if (isUniqueViolation(error))
        throw new DomainError('conflict', 'Another timer of this member was started at the same moment; retry.');
      throw error;
    }
  }

  interface NewEntry {
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

  function insert(actor: Actor, input: NewEntry, event: EntryEventName): EntryView {
    const { project, task } = resolveWork(actor.workspaceId, input.projectId, input.taskId, { projectId: null, taskId: null });
    checkTags(actor.workspaceId, input.tagIds);
    const billable = input.billable ?? project?.billable ?? false;
    const hourlyRate = resolveRate(actor.workspaceId, actor.userId, project, task);
    const now = clock.now();
    const done =
      input.end === null
        ? { endAt: null, durationSec: null, amount: null }
        : completion({ startAt: input.start, billable, hourlyRate }, input.end);
    // Booleans go in as SQLite integers: a prepared statement does not map them like a query does.
    const row = insertEntry.get({
      id: newId('ent'),
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
    }) as EntryRow;
    if (input.tagIds) replaceTags(row.id, input.tagIds);
    return emit(actor, event, row);
  }

  return {
    createEntry(actor: Actor, body: Schemas['EntryCreate']): EntryView {
      const start = parseInstant(body.start, 'start');
      const end = parseInstant(body.end, 'end');
      checkSpan(start, end);
      return transaction(() => insert(actor, { ...body, start, end }, 'entry.created'));
    },

    getEntry(actor: Actor, id: string): EntryView {
      const row = visible(actor, id);
      return entryView(row, tagIds(row.id), { now: clock.now(), currency: actor.currency, actor });
    },

    getCurrent(actor: Actor): EntryView | null {
      const row = runningOf.get({ workspaceId: actor.workspaceId, authorId: actor.userId });
      return row ? entryView(row, tagIds(row.id), { now: clock.now(), currency: actor.currency, actor }) : null;
    },

    /** Starts a timer; a running one is stopped at the new start first (entry.stopped, then entry.started). */
    startTimer(actor: Actor, body: Schemas['TimerStart'] = {}): EntryView {
      const now = clock.now();
      const start = body.start === undefined ? now : parseInstant(body.start, 'start');
      if (start > now + START_SKEW_MS) throw new DomainError('invalid', 'start: a timer cannot start in the future.');
      // Else it could never be stopped: an entry spans at most 366 days.
      if (now - start > MAX_ENTRY_MS) throw new DomainError('invalid', 'start: a timer cannot have started more than 366 days ago.');
      return transaction(() => {
        const running = runningOf.get({ workspaceId: actor.workspaceId, authorId: actor.userId });
        if (running) {
          if (start <= running.startAt) {
            throw new DomainError(
              'invalid',
              `start: must be after the start of the running timer ${running.id} (${new Date(running.startAt).toISOString()}), which it stops.`,
            );
          }
          stopRow(actor, running, start);
        }
        return insert(actor, { ...body, start, end: null }, 'entry.started');
      });
    },

    stopTimer(actor: Actor, body: Schemas['TimerStop'] = {}): EntryView {
      const end = body.end === undefined ? clock.now() : parseInstant(body.end, 'end');
      return transaction(() => {
        const running = runningOf.get({ workspaceId: actor.workspaceId, authorId: actor.userId });
        if (!running) throw new DomainError('not_found', 'No timer is running.');
        return stopRow(actor, running, end);
      });
    },

    updateEntry(actor: Actor, id: string, patch: Schemas['EntryPatch']): EntryView {
      const start = patch.start === undefined ? undefined : parseInstant(patch.start, 'start');
      const end = patch.end === undefined ? undefined : parseInstant(patch.end, 'end');
      const timeZone = patch.timeZone === undefined || patch.timeZone === null ? patch.timeZone : canonicalTimeZone(patch.timeZone);
      return transaction(() => {
        const current = editable(actor, id);
        const now = clock.now();

        // A task without a project implies the task's project; a new project drops a task
        // that does not belong to it.
        let projectId = patch.projectId !== undefined ? patch.projectId : current.projectId;
        let taskId = patch.taskId !== undefined ? patch.taskId : current.taskId;
        if (patch.taskId && patch.projectId === undefined) projectId = null;
        if (patch.projectId !== undefined && patch.taskId === undefined && taskId !== null) {
          const owner = db.select({ projectId: tasks.projectId }).from(tasks).where(eq(tasks.id, taskId)).get();
          if (owner?.projectId !== projectId) taskId = null;
        }
        const { project, task } = resolveWork(actor.workspaceId, projectId, taskId, current);
        checkTags(actor.workspaceId, patch.tagIds);
        const workChanged = (project?.id ?? null) !== current.projectId || (task?.id ?? null) !== current.taskId;

        const billable = patch.billable ?? current.billable;
        // The rate is re-resolved when the work changes, and otherwise kept as written.
        const hourlyRate = workChanged ? resolveRate(actor.workspaceId, current.authorId, project, task) : current.hourlyRate;
        const startAt = start ?? current.startAt;
        const endAt = end !== undefined ? end : current.endAt;
        if (endAt === null && startAt > now + START_SKEW_MS)
          throw new DomainError('invalid', 'start: a running timer cannot start in the future.');
        if (endAt === null && now - startAt > MAX_ENTRY_MS)
          throw new DomainError('invalid', 'start: a running timer cannot have started more than 366 days ago.');
        if (endAt !== null) checkSpan(startAt, endAt);
        const times =
          endAt === null ? { endAt: null, durationSec: null, amount: null } : completion({ startAt, billable, hourlyRate }, endAt);
        const editsTime = start !== undefined || end !== undefined;
        const updated = db
          .update(entries)
          .set({
            description: patch.description ?? current.description,
            projectId: project?.id ?? null,
            taskId: task?.id ?? null,
            billable,
            startAt,
            ...times,
            hourlyRate,
            timeZone: timeZone === undefined ? current.timeZone : timeZone,
            runawayResolvedAt:
              editsTime && current.runawayDetectedAt !== null && current.runawayResolvedAt === null ? now : current.runawayResolvedAt,
            updatedAt: now,
          })
          .where(eq(entries.id, id))
          .returning()
          .get() as EntryRow;
        if (patch.tagIds) replaceTags(id, patch.tagIds);
        // Setting `end` on a running entry is a stop.
        return emit(actor, current.endAt === null && endAt !== null ? 'entry.stopped' : 'entry.updated', updated);
      });
    },

    deleteEntry(actor: Actor, id: string): void {
      transaction(() => {
        const row = editable(actor, id);
        db.delete(entries).where(eq(entries.id, row.id)).run();
        events.record(db, {
          workspaceId: row.workspaceId,
          entity: 'entry',
          entityId: row.id,
          operation: 'delete',
          event: 'entry.deleted',
          actor: eventActor(actor),
          originId: row.originId,
          payload: { id: row.id, authorId: row.authorId },
        });
      });
    },

    listEntries(actor: Actor, query: ListEntriesQuery): Page {
      const from = parseRangeBound(query.from, 'from', false);
      const to = parseRangeBound(query.to, 'to', true);
      // Two calendar days compare as days (from=11-03&to=11-02 is backwards, though its instants meet).
      if (from > to || (from === to && query.from.length === 10 && query.to.length === 10)) {
        throw new DomainError('invalid', 'from: must not be after to.');
      }
      const { from: _f, to: _t, cursor, limit, ...filters } = query;
      return lister.page(
        actor,
        {
          listing: 'entries',
          select: 'overlap',
          order: 'desc',
          from,
          to,
          filters,
          ...(cursor ? { cursor } : {}),
          limit: limit ?? DEFAULT_PAGE_SIZE,
        },
        { now: clock.now(), currency: actor.currency },
      );
    },

    /**
     * Runaway timers (decisions 4): each running timer past its workspace's limit, detected
     * once, is flagged (keeps running, entry.updated), capped (stopped at start + limit) or
     * stopped (at detection), the latter two firing entry.stopped. Returns how many were found.
     */
    detectRunaways(): number {
      const now = clock.now();
      const due = db
        .select({ id: entries.id, limitSec: workspaces.runawayLimitSec, action: workspaces.runawayAction })
        .from(entries)
        .innerJoin(workspaces, eq(workspaces.id, entries.workspaceId))
        .where(
          and(
            isNull(entries.endAt),
            isNull(entries.runawayDetectedAt),
            sql`${entries.startAt} + ${workspaces.runawayLimitSec} * 1000 <= ${now}`,
          ),
        )
        .all();
      for (const { id, limitSec, action } of due) {
        db.transaction(
          () => {
            const row = db.select().from(entries).where(eq(entries.id, id)).get();
            if (!row || row.endAt !== null || row.runawayDetectedAt !== null) return;
            const runaway = {
              runawayDetectedAt: now,
              runawayElapsedSec: secondsBetween(row.startAt, now),
              runawayLimitSec: limitSec,
              runawayAction: action,
              runawayResolvedAt: null,
              updatedAt: now,
            };
            const stopAt = action === 'capped' ? row.startAt + limitSec * 1000 : action === 'stopped' ? now : null;
            const updated = db
              .update(entries)
              .set(stopAt === null ? runaway : { ...runaway, ...completion(row, stopAt) })
              .where(eq(entries.id, id))
              .returning()
              .get() as EntryRow;
            emit(null, stopAt === null ? 'entry.updated' : 'entry.stopped', updated);
          },
          { behavior: 'immediate' },
        );
      }
      return due.length;
    },
  };
}

export type EntriesService = ReturnType<typeof createEntriesService>;
