import type { Clock } from '../../clock.js';
import type { CursorCodec } from '../../kernel/cursor.js';
import type { Actor } from '../../principal.js';
import type { CatalogEntries } from '../catalog/service.js';
import type { Job } from '../../scheduler.js';
import type { DomainWrite } from '../events/service.js';
import { createEntryCore, type EntryAccounts, type EntryCatalog, type EntryLocks } from './core.js';
import { createEntriesService } from './entries.js';
import type { EntryFilters } from './filters.js';
import { createEntryLister, type ListerCatalog } from './list.js';
import type { EntriesRepository } from './repository.js';
import type { AggregateKey, AggregateRounding, AggregateRow } from './repository/aggregate.js';
import { createTimersService } from './timers.js';
import { createEntryImports } from './imports.js';
import type { RunawayReminders } from './stop-links.js';

export type { RunawayReminders, StopLinkState } from './stop-links.js';
export type { EntryLocks } from './core.js';

export type { AggregateKey, AggregateRounding, AggregateRow } from './repository/aggregate.js';
export type { EntryFilters } from './filters.js';
export { pickEntryFilters } from './filters.js';
export type { EntryLister, ExportEntry, ListSpec } from './list.js';
export type { EntryRowView, EntryView } from './views.js';
import type { EntryRowView } from './views.js';
export type { SheetChanges, SheetSaved, SheetVersion } from './sheet.js';
export { type Suggestion, UNDO_MS } from './entries.js';
export type { ApprovedSpan, Invoiceable } from './repository.js';
export type { EntryImports, ExportedEntry, ExportedRunaway, ImportContext, ImportedEntry } from './imports.js';

/** An aggregation a report asks for: the caller's visible entries, filtered, summed by up to two keys. */
export interface AggregateRequest {
  filters: EntryFilters;
  from: number;
  to: number;
  keys: AggregateKey[];
  /** The zone's offsets over the range, for a `localDay` key (kernel/local-days.ts). */
  stretches?: Array<{ from: number; offsetMs: number }>;
  /** Each entry rounded by its project's rule (a rounded report: issue 56 item 4). */
  rounding?: AggregateRounding;
}

/**
 * Entries and timers over one repository and the shared rules; the lister also serves the
 * detailed report, and the aggregation the summary and weekly reports. The catalog and the
 * accounts are read through their services.
 */
export function createEntryServices({
  repo,
  clock,
  write,
  cursors,
  catalog,
  accounts,
  reminders,
  locks,
}: {
  repo: EntriesRepository;
  clock: Clock;
  write: DomainWrite;
  cursors: CursorCodec;
  catalog: EntryCatalog & ListerCatalog;
  accounts: EntryAccounts;
  /** A runaway timer's reminder by mail (the mail module's). */
  reminders?: RunawayReminders;
  /** Approval and the lock date (the approvals module's): asked inside every entry write. */
  locks?: EntryLocks;
}) {
  const core = createEntryCore({ repo, catalog, accounts, clock, ...(locks ? { locks } : {}) });
  const lister = createEntryLister({ queries: repo.list, cursors, catalog });
  const timers = createTimersService({
    clock,
    write,
    repo,
    core,
    runawaySettings: accounts.runawaySettings,
    accounts,
    ...(reminders ? { reminders } : {}),
  });
  return {
    lister,
    entries: {
      ...createEntriesService({
        clock,
        write,
        repo,
        core,
        lister,
        projectOfTask: (ws, taskId) => catalog.task(ws, taskId).projectId,
        labels: catalog,
      }),

      /**
       * Sums of the entries the actor may see (their own without canViewOthersTime), completed
       * and started in [from, to), filtered, by up to two keys: what the reports group and name.
       */
      aggregate(actor: Actor, request: AggregateRequest): AggregateRow[] {
        const { filters } = request;
        const resolved = filters.clientIds
          ? { ...filters, projectsOfClients: catalog.projectsOfClients(actor.workspaceId, filters.clientIds) }
          : filters;
        return repo.aggregate({ actor, ...request, filters: resolved });
      },

      /** A member's completed entries starting in [from, to), summed (an approval period's totals for the operator). */
      periodSums: (workspaceId: string, authorId: string, from: number, to: number) => repo.periodSums(workspaceId, authorId, from, to),
      /** A member's completed entries starting in [from, to), by start, as the reader may see them (an approval period's entries). */
      periodRows(reader: Actor, authorId: string, from: number, to: number): EntryRowView[] {
        const rows: EntryRowView[] = [];
        let cursor: string | undefined;
        do {
          const page = lister.page(
            reader,
            {
              listing: 'period',
              select: 'startedCompleted',
              order: 'asc',
              from,
              to,
              filters: { userIds: [authorId] },
              ...(cursor ? { cursor } : {}),
              limit: 500,
            },
            { now: clock.now(), currency: reader.currency },
          );
          rows.push(...page.rows);
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        return rows;
      },
      /** The running timer of a member (approvals: a period with a timer running in it is not submitted). */
      runningOf: (workspaceId: string, authorId: string): { startAt: number } | undefined => repo.running(workspaceId, authorId),

      /** Invoicing (the invoices module, inside its write): the lines, the marking and the release of entries. */
      invoiceableGroups: repo.invoiceableGroups,
      invoiceableEntries: repo.invoiceableEntries,
      invoiceableCount: repo.invoiceableCount,
      unratedInvoiceable: repo.unratedInvoiceable,
      invoiceableWaiting: repo.invoiceableWaiting,
      markInvoiced: repo.markInvoiced,
      releaseInvoice: repo.releaseInvoice,

      /** The description search index's catch-up with the writes (a scheduled job): up to `size` queued entries. */
      catchUpSearchIndex: (size = 500): number => write(() => repo.searchIndex.catchUp(size)),
      /** Entries queued for the search index and not yet indexed. */
      searchIndexPending: (): number => repo.searchIndex.pending(),
    },
    timers,
    /** What an import writes and deletes of entries (the imports module). */
    imports: createEntryImports({ repo, core, clock }),
    /** The module's periodic jobs: the runaway check, and the search index's catch-up with the writes. */
    jobs: [
      { name: 'runaway timers', every: 'tick', run: () => timers.detectRunaways() },
      { name: 'search index', every: 'tick', run: () => catchUp(write, repo) },
      { name: 'undo tombstones', every: 'hour', run: () => write(() => repo.dropTombstones(clock.now() - 60_000)) },
      { name: 'spent stop links', every: 'hour', run: () => timers.purgeStopLinks() },
    ] satisfies Job[],
    /** What the catalog reads of entries: whether rows are in use, the running timers. */
    catalogPorts: {
      usesProject: repo.usesProject,
      usesTask: repo.usesTask,
      usesTag: repo.usesTag,
      running: (workspaceId: string) => repo.runningOfWorkspace(workspaceId).map((r) => ({ ...r, billable: Boolean(r.billable) })),
    } satisfies CatalogEntries,
  };
}

/**
 * Indexes the entries written since the last tick, in batches of 500 (each a short transaction;
 * other requests run between them), so a large import does not hold the thread.
 */
async function catchUp(write: DomainWrite, repo: EntriesRepository): Promise<void> {
  const batch = 500;
  while (write(() => repo.searchIndex.catchUp(batch)) === batch) await new Promise((resolve) => setImmediate(resolve));
}
