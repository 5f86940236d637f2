import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import type { EventActor } from '../events/service.js';
import type { ProjectRow, TaskRow } from '../catalog/service.js';
import { completion, type EntryCore, type RecordEvent } from './core.js';
import type { EntriesRepository } from './repository.js';
import { entryView } from './views.js';

/** A completed entry as an import writes it: the author, the work and tags already resolved. */
export interface ImportedEntry {
  authorId: string;
  start: number;
  end: number;
  description: string;
  project: ProjectRow | null;
  task: TaskRow | null;
  /** Sorted, distinct. */
  tagIds: string[];
  /** The file's billable flag, or null: the project's default. */
  billable: boolean | null;
  /** The file's rate (an exact decimal), or null: the usual resolution. */
  hourlyRate: number | null;
  timeZone: string | null;
}

/** Who an import writes for and how its events go out (the import module's run). */
export interface ImportContext {
  workspaceId: string;
  importId: string;
  actor: EventActor;
  /** Enqueue entry.created / entry.deleted deliveries (--webhooks). */
  webhooks: boolean;
  currency: string;
}

/**
 * The entries side of an import: completed entries written with `source: import` and the
 * import's id, each with its sync event (and webhook deliveries only when asked); the
 * entries of an import deleted again (undo, or the cleanup of a failed run). Archived projects
 * and tasks are used as they are: the history is what it was.
 */
export function createEntryImports({ repo, core, clock }: { repo: EntriesRepository; core: EntryCore; clock: Clock }) {
  return {
    /** Writes one entry inside the caller's write (a batch of the import). */
    insert(record: RecordEvent, ctx: ImportContext, input: ImportedEntry): string {
      const { project, task } = input;
      const billable = input.billable ?? project?.billable ?? false;
      const hourlyRate = input.hourlyRate ?? core.resolveRate(ctx.workspaceId, input.authorId, project, task);
      const now = clock.now();
      const row = repo.insert({
        id: newId('ent'),
        workspaceId: ctx.workspaceId,
        authorId: input.authorId,
        description: input.description,
        projectId: project?.id ?? null,
        taskId: task?.id ?? null,
        billable: billable ? 1 : 0,
        startAt: input.start,
        ...completion({ startAt: input.start, billable, hourlyRate }, input.end),
        hourlyRate,
        source: 'import',
        timeZone: input.timeZone,
        originId: null,
        importId: ctx.importId,
        createdAt: now,
        updatedAt: now,
      });
      if (input.tagIds.length > 0) repo.addTags(row.id, input.tagIds);
      const snapshot = entryView(row, input.tagIds, { now, currency: ctx.currency, actor: null });
      record({
        workspaceId: ctx.workspaceId,
        entity: 'entry',
        entityId: row.id,
        operation: 'create',
        event: 'entry.created',
        actor: ctx.actor,
        originId: null,
        payload: { ...snapshot, originId: null },
        webhooks: ctx.webhooks,
      });
      return row.id;
    },

    /** Deletes up to `limit` entries of the import inside the caller's write, each with its entry.deleted event; how many went. */
    deleteSome(record: RecordEvent, ctx: ImportContext, limit: number): number {
      const rows = repo.ofImport(ctx.importId, limit);
      for (const row of rows) {
        repo.delete(row.id);
        record({
          workspaceId: row.workspaceId,
          entity: 'entry',
          entityId: row.id,
          operation: 'delete',
          event: 'entry.deleted',
          actor: ctx.actor,
          originId: row.originId,
          payload: { id: row.id, authorId: row.authorId },
          webhooks: ctx.webhooks,
        });
      }
      return rows.length;
    },

    /** Entries of the import invoiced since (their ids; a few). */
    invoiced: (importId: string): string[] => repo.invoicedOfImport(importId),
  };
}

export type EntryImports = ReturnType<typeof createEntryImports>;
