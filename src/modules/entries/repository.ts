import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { members, workspaces } from '../accounts/schema.js';
import { tags, tasks } from '../catalog/schema.js';
import { entries, entryTags } from './schema.js';
import type { EntryRow } from './views.js';

const p = (name: string) => sql.placeholder(name);

/** An entry as inserted: every column a write sets (booleans as SQLite integers: prepared statements do not map them). */
export interface EntryInsert {
  id: string;
  workspaceId: string;
  authorId: string;
  description: string;
  projectId: string | null;
  taskId: string | null;
  billable: 0 | 1;
  startAt: number;
  endAt: number | null;
  durationSec: number | null;
  amountCents: number | null;
  hourlyRate: number | null;
  source: EntryRow['source'];
  timeZone: string | null;
  originId: string | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * The queries of entries and timers. The hot ones are prepared once: an unprepared Drizzle query
 * is built and prepared by SQLite on every call, which was most of the cost of POST /entries.
 */
export function createEntriesRepository(db: Db) {
  const statements = {
    byId: db
      .select()
      .from(entries)
      .where(and(eq(entries.id, p('id')), eq(entries.workspaceId, p('workspaceId'))))
      .prepare(),
    tagsOf: db
      .select({ tagId: entryTags.tagId })
      .from(entryTags)
      .where(eq(entryTags.entryId, p('id')))
      .orderBy(entryTags.tagId)
      .prepare(),
    // Through the partial unique index of running timers.
    runningOf: db
      .select()
      .from(entries)
      .where(and(eq(entries.workspaceId, p('workspaceId')), eq(entries.authorId, p('authorId')), isNull(entries.endAt)))
      .prepare(),
    currencyOf: db
      .select({ currency: workspaces.currency })
      .from(workspaces)
      .where(eq(workspaces.id, p('id')))
      .prepare(),
    memberRate: db
      .select({ rate: members.hourlyRate })
      .from(members)
      .where(and(eq(members.workspaceId, p('workspaceId')), eq(members.userId, p('userId'))))
      .prepare(),
    workspaceRate: db
      .select({ rate: workspaces.hourlyRate })
      .from(workspaces)
      .where(eq(workspaces.id, p('id')))
      .prepare(),
    insert: db
      .insert(entries)
      .values({
        id: p('id'),
        workspaceId: p('workspaceId'),
        authorId: p('authorId'),
        description: p('description'),
        projectId: p('projectId'),
        taskId: p('taskId'),
        billable: p('billable'),
        startAt: p('startAt'),
        endAt: p('endAt'),
        durationSec: p('durationSec'),
        amountCents: p('amountCents'),
        hourlyRate: p('hourlyRate'),
        source: p('source'),
        timeZone: p('timeZone'),
        originId: p('originId'),
        createdAt: p('createdAt'),
        updatedAt: p('updatedAt'),
      })
      .returning()
      .prepare(),
  };

  return {
    byId: (workspaceId: string, id: string): EntryRow | undefined => statements.byId.get({ id, workspaceId }),
    tagIds: (id: string): string[] => statements.tagsOf.all({ id }).map((t) => t.tagId),
    running: (workspaceId: string, authorId: string): EntryRow | undefined => statements.runningOf.get({ workspaceId, authorId }),
    currency: (workspaceId: string): string => statements.currencyOf.get({ id: workspaceId })?.currency ?? 'EUR',
    memberRate: (workspaceId: string, userId: string): number | null => statements.memberRate.get({ workspaceId, userId })?.rate ?? null,
    workspaceRate: (workspaceId: string): number | null => statements.workspaceRate.get({ id: workspaceId })?.rate ?? null,
    /** The project a task belongs to (any workspace: the caller has checked the task's). */
    projectOfTask: (taskId: string): string | undefined =>
      db.select({ projectId: tasks.projectId }).from(tasks).where(eq(tasks.id, taskId)).get()?.projectId,
    /** Which of these tag ids exist in the workspace. */
    existingTags: (workspaceId: string, ids: string[]): Set<string> =>
      new Set(
        db
          .select({ id: tags.id })
          .from(tags)
          .where(and(eq(tags.workspaceId, workspaceId), inArray(tags.id, ids)))
          .all()
          .map((t) => t.id),
      ),
    insert: (values: EntryInsert): EntryRow => statements.insert.get({ ...values }) as EntryRow,
    update: (id: string, values: Partial<typeof entries.$inferInsert>): EntryRow =>
      db.update(entries).set(values).where(eq(entries.id, id)).returning().get() as EntryRow,
    /** Running timers past their workspace's runaway limit, not yet detected. */
    runawaysDue: (now: number) =>
      db
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
        .all(),
    /** An entry by id alone (the server's own jobs, which act for no token). */
    anyById: (id: string): EntryRow | undefined => db.select().from(entries).where(eq(entries.id, id)).get(),
    delete: (id: string): void => {
      db.delete(entries).where(eq(entries.id, id)).run();
    },
    replaceTags(entryId: string, ids: string[]): void {
      db.delete(entryTags).where(eq(entryTags.entryId, entryId)).run();
      if (ids.length > 0)
        db.insert(entryTags)
          .values(ids.map((tagId) => ({ entryId, tagId })))
          .run();
    },
  };
}

export type EntriesRepository = ReturnType<typeof createEntriesRepository>;
