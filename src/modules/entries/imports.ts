import type { Clock } from '../../clock.js';
import { newTimeId } from '../../ids.js';
import type { EventActor } from '../events/service.js';
import type { ProjectRow, TaskRow } from '../catalog/service.js';
import type { DomainError } from '../../errors.js';
import { completion, deletedEvent, type EntryCore, newEntrySubject, type RecordEvent } from './core.js';
import type { EntriesRepository, EntryInsert } from './repository.js';
import type { ExportedRunaway } from './repository/imports.js';

export type { ExportedRunaway } from './repository/imports.js';
import { type EntryRow, entryView } from './views.js';

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
  /** The file's rate (an exact decimal), or null: the usual resolution (unless noRate). */
  hourlyRate: number | null;
  /** The file says the entry has no rate at all (the timetrack format's `none`): nothing is resolved. */
  noRate?: boolean;
  timeZone: string | null;
  /** The invoice the same import restored that holds the entry (a workspace's export), or null. */
  invoiceId?: string | null;
  /** What the runaway check recorded on it where it was exported (a workspace's export), or null. */
  runaway?: ExportedRunaway | null;
}

/** A completed entry as a workspace's export writes it (ids still ids: the export names them). */
export interface ExportedEntry {
  /** Where the entry is stored: the next page starts after the last one's. */
  position: number;
  id: string;
  authorId: string;
  description: string;
  projectId: string | null;
  taskId: string | null;
  billable: boolean;
  start: number;
  end: number;
  hourlyRate: number | null;
  timeZone: string | null;
  tagIds: string[];
  /** The invoice that holds it, or null. */
  invoiceId: string | null;
  /** What the runaway check recorded on it, or null. */
  runaway: ExportedRunaway | null;
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

/** The refusal of the first of an import's entries that `check` holds (read a page at a time), or null. */
function firstLocked(
  repo: EntriesRepository,
  check: NonNullable<ReturnType<EntryCore['lockCheck']>>,
  importId: string,
): DomainError | null {
  for (let after = 0; ;) {
    const page = repo.importStarts(importId, after, 5000);
    for (const row of page) {
      const refusal = check(row.authorId, row.startAt, `Entry ${row.id}`);
      if (refusal) return refusal;
    }
    if (page.length < 5000) return null;
    after = (page[page.length - 1] as (typeof page)[number]).rowid;
  }
}

/**
 * The entries side of an import: completed entries written with `source: import` and the
 * import's id, each with its sync event (and webhook deliveries only when asked); the
 * entries of an import deleted again (undo, or the cleanup of a failed run). Archived projects
 * and tasks are used as they are: the history is what it was.
 */
export function createEntryImports({ repo, core, clock }: { repo: EntriesRepository; core: EntryCore; clock: Clock }) {
  /** The rate each (member, project, task) resolves to, per import: one lookup, not one per row. */
  const rates = new WeakMap<ImportContext, Map<string, number | null>>();
  const rateOf = (ctx: ImportContext, input: ImportedEntry): number | null => {
    const cache = rates.get(ctx) ?? new Map<string, number | null>();
    rates.set(ctx, cache);
    const key = `${input.authorId}\u0000${input.project?.id ?? ''}\u0000${input.task?.id ?? ''}`;
    let rate = cache.get(key);
    if (rate === undefined) {
      rate = core.resolveRate(ctx.workspaceId, input.authorId, input.project, input.task);
      cache.set(key, rate);
    }
    return rate;
  };
  /** The lock check of each import's write (decisions §13), read again at the start of each write. */
  const checks = new WeakMap<ImportContext, ReturnType<EntryCore['lockCheck']>>();
  const checkOf = (ctx: ImportContext) => {
    if (!checks.has(ctx)) checks.set(ctx, core.lockCheck(ctx.workspaceId));
    return checks.get(ctx) ?? null;
  };
  return {
    /** First in each write of an import, before its entries. */
    startWrite(ctx?: ImportContext): void {
      repo.deferForeignKeys();
      if (ctx) checks.set(ctx, core.lockCheck(ctx.workspaceId));
    },
    /**
     * The import's check pass (nothing written): why an entry of `authorId` starting at `start`
     * would be refused by approval or the lock date (decisions §13), or null. Read once per
     * call: a check of the workspace as it is now.
     */
    lockRefusals(workspaceId: string): ((authorId: string, start: number) => DomainError | null) | null {
      const check = core.lockCheck(workspaceId);
      return check && ((authorId, start) => check(authorId, start, newEntrySubject(start)));
    },
    /**
     * An import's undo, before it deletes anything: the first of its entries that approval or the
     * lock date holds (decisions §13), as the refusal of its deletion, or null.
     */
    lockedOfImport(workspaceId: string, importId: string): DomainError | null {
      const check = core.lockCheck(workspaceId);
      return check && firstLocked(repo, check, importId);
    },
    /** Writes one entry inside the caller's write (a batch of the import), after startWrite; refused (409) where approval or the lock date holds its time. */
    insert(record: RecordEvent, ctx: ImportContext, input: ImportedEntry): string {
      const check = checkOf(ctx);
      const refusal = check && check(input.authorId, input.start, newEntrySubject(input.start));
      if (refusal) throw refusal;
      const { project, task } = input;
      const billable = input.billable ?? project?.billable ?? false;
      const hourlyRate = input.hourlyRate ?? (input.noRate ? null : rateOf(ctx, input));
      const now = clock.now();
      const row = {
        id: newTimeId('ent'),
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
      } as const;
      const invoiceId = input.invoiceId ?? null;
      repo.insertWithTags(row, input.tagIds, invoiceId);
      if (input.runaway) repo.setRunaway(row.id, input.runaway);
      const runaway = input.runaway
        ? {
            runawayDetectedAt: input.runaway.detectedAt,
            runawayElapsedSec: input.runaway.elapsedSec,
            runawayLimitSec: input.runaway.limitSec,
            runawayAction: input.runaway.action,
            runawayResolvedAt: input.runaway.resolvedAt,
          }
        : {};
      const snapshot = entryView({ ...viewRow(row), ...runaway, invoiceId }, input.tagIds, { now, currency: ctx.currency, actor: null });
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
      const check = core.lockCheck(ctx.workspaceId);
      for (const row of rows) {
        const refusal = check && check(row.authorId, row.startAt, `Entry ${row.id}`);
        if (refusal) throw refusal;
        repo.delete(row.id);
        record(deletedEvent(row, ctx.actor, ctx.webhooks));
      }
      return rows.length;
    },

    /**
     * A page of a workspace's completed entries for its export, in the order they are stored,
     * after the position given (a page's last `position`); tag ids read from the entry's own list.
     */
    exportPage(q: { workspaceId: string; from: number; to: number; after: number; limit: number }): ExportedEntry[] {
      return repo.exportPage(q).map((r) => ({
        position: r.rowid,
        id: r.id,
        authorId: r.authorId,
        description: r.description,
        projectId: r.projectId,
        taskId: r.taskId,
        billable: r.billable,
        start: r.startAt,
        end: r.endAt,
        hourlyRate: r.hourlyRate,
        timeZone: r.timeZone,
        tagIds: r.tagList === null ? [] : (JSON.parse(r.tagList) as string[]),
        invoiceId: r.invoiceId,
        runaway: r.runaway,
      }));
    },

    /** Entries of the import invoiced since (their ids; a few). */
    invoiced: (importId: string): string[] => repo.invoicedOfImport(importId),
    /** Releases the entries of an invoice an import restored (its undo deletes the invoice), inside the caller's write. */
    releaseInvoice: (invoiceId: string): void => repo.releaseInvoice(invoiceId),
  };
}

export type EntryImports = ReturnType<typeof createEntryImports>;

/** The stored row of an entry just inserted (the insert returns nothing: it is the hot path of an import). */
function viewRow(row: EntryInsert & { billable: 0 | 1 }): EntryRow {
  return {
    ...row,
    billable: row.billable === 1,
    runawayDetectedAt: null,
    runawayElapsedSec: null,
    runawayLimitSec: null,
    runawayAction: null,
    runawayResolvedAt: null,
    invoiceId: null,
    importId: row.importId ?? null,
    tagList: null,
  };
}
