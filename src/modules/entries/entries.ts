import type { components } from '../../../generated/openapi.js';
import { entryErrors as errors } from './errors.js';
import type { Actor } from '../../principal.js';
import type { Clock } from '../../clock.js';
import { DEFAULT_PAGE_SIZE, type Page } from '../../kernel/paging.js';
import { canonicalTimeZone, parseInstant, parseRange, toIso } from '../../kernel/time.js';
import type { DomainWrite } from '../events/service.js';
import { checkSpan, completion, deletedEvent, type EntryCore, eventActor, MAX_ENTRY_MS, START_SKEW_MS } from './core.js';
import { type EntryFilters, pickEntryFilters } from './filters.js';
import type { EntryLister, ListerCatalog } from './list.js';
import { undoOf } from './undo.js';
import { sheetOf } from './sheet.js';
import { suggestionsOf } from './suggest.js';
import type { EntriesRepository } from './repository.js';
import { type EntryRowView, type EntryView, entryView, tagIdsOfRow } from './views.js';

type Schemas = components['schemas'];

export { UNDO_MS } from './undo.js';
export type { Suggestion } from './suggest.js';

export interface ListEntriesQuery extends EntryFilters {
  from: string;
  to: string;
  cursor?: string;
  limit?: number;
}

interface Deps {
  clock: Clock;
  write: DomainWrite;
  repo: EntriesRepository;
  core: EntryCore;
  lister: EntryLister;
  /** The project a task of the workspace belongs to (the catalog's). */
  projectOfTask: (workspaceId: string, taskId: string) => string;
  /** The names of projects (with their client's) and tasks (the catalog's). */
  labels: Pick<ListerCatalog, 'projectLabels' | 'taskNames'>;
}

/**
 * Time entries: create, read, list, edit, delete. Every write runs in one transaction with its
 * event (the entry snapshot, the webhook event name, the actor, the originId).
 */
export function createEntriesService({ clock, write, repo, core, lister, projectOfTask: projectOf, labels }: Deps) {
  return {
    create(actor: Actor, body: Schemas['EntryCreate']): EntryView {
      const start = parseInstant(body.start, 'start');
      const end = parseInstant(body.end, 'end');
      checkSpan(start, end);
      return write((record) => core.insert(record, actor, { ...body, start, end }, 'entry.created'));
    },

    get(actor: Actor, id: string): EntryView {
      const row = core.visible(actor, id);
      return entryView(row, tagIdsOfRow(row), { now: clock.now(), currency: actor.currency, actor });
    },

    list(actor: Actor, query: ListEntriesQuery): Page<EntryRowView> {
      const range = parseRange(query.from, query.to);
      return lister.page(
        actor,
        {
          listing: 'entries',
          select: 'overlap',
          order: 'desc',
          ...range,
          filters: pickEntryFilters(query),
          ...(query.cursor ? { cursor: query.cursor } : {}),
          limit: query.limit ?? DEFAULT_PAGE_SIZE,
        },
        { now: clock.now(), currency: actor.currency },
      );
    },

    /**
     * A partial edit; setting `end` on a running entry stops it (entry.stopped instead of
     * entry.updated). With `ifUpdatedAt` (the web app's version of what the person saw), an entry
     * changed since is refused (409) rather than silently overwritten.
     */
    update(actor: Actor, id: string, patch: Schemas['EntryPatch'], options: { ifUpdatedAt?: string } = {}): EntryView {
      const start = patch.start === undefined ? undefined : parseInstant(patch.start, 'start');
      const end = patch.end === undefined ? undefined : parseInstant(patch.end, 'end');
      const timeZone = patch.timeZone === undefined || patch.timeZone === null ? patch.timeZone : canonicalTimeZone(patch.timeZone);
      const projectOfTask = (taskId: string) => projectOf(actor.workspaceId, taskId);
      return write((record) => {
        const current = core.editable(actor, id);
        if (options.ifUpdatedAt !== undefined && toIso(current.updatedAt) !== options.ifUpdatedAt) throw errors.changedMeanwhile(id);
        const now = clock.now();
        const { project, task } = workOfPatch(current, patch);
        core.checkTags(actor.workspaceId, patch.tagIds);
        const workChanged = (project?.id ?? null) !== current.projectId || (task?.id ?? null) !== current.taskId;
        const billable = patch.billable ?? current.billable;
        // The rate is re-resolved when the work changes, and otherwise kept as written.
        const hourlyRate = workChanged ? core.resolveRate(actor.workspaceId, current.authorId, project, task) : current.hourlyRate;
        const startAt = start ?? current.startAt;
        // Moved into a period that waits for approval, or before the lock date: refused as an edit there is.
        if (startAt !== current.startAt)
          core.checkLocks(current.workspaceId, current.authorId, [startAt], `The new start of entry ${id} (${toIso(startAt)})`);
        const endAt = end !== undefined ? end : current.endAt;
        if (endAt === null && startAt > now + START_SKEW_MS) throw errors.startInFuture('a running timer');
        if (endAt === null && now - startAt > MAX_ENTRY_MS) throw errors.startTooOld('a running timer');
        if (endAt !== null) checkSpan(startAt, endAt);
        const times =
          endAt === null ? { endAt: null, durationSec: null, amountCents: null } : completion({ startAt, billable, hourlyRate }, endAt);
        const editsTime = start !== undefined || end !== undefined;
        const updated = repo.update(id, {
          description: patch.description ?? current.description,
          projectId: project?.id ?? null,
          taskId: task?.id ?? null,
          billable,
          startAt,
          ...times,
          hourlyRate,
          timeZone: timeZone === undefined ? current.timeZone : timeZone,
          // Editing the times of a runaway entry resolves it.
          runawayResolvedAt:
            editsTime && current.runawayDetectedAt !== null && current.runawayResolvedAt === null ? now : current.runawayResolvedAt,
          updatedAt: now,
        });
        if (patch.tagIds) repo.replaceTags(id, patch.tagIds);
        return core.emit(record, actor, current.endAt === null && endAt !== null ? 'entry.stopped' : 'entry.updated', updated);
      });

      /** A task without a project implies the task's project; a new project drops a task that does not belong to it. */
      function workOfPatch(current: { projectId: string | null; taskId: string | null }, edit: Schemas['EntryPatch']) {
        let projectId = edit.projectId !== undefined ? edit.projectId : current.projectId;
        let taskId = edit.taskId !== undefined ? edit.taskId : current.taskId;
        if (edit.taskId && edit.projectId === undefined) projectId = null;
        if (edit.projectId !== undefined && edit.taskId === undefined && taskId !== null && projectOfTask(taskId) !== projectId)
          taskId = null;
        return core.resolveWork(actor.workspaceId, projectId, taskId, current);
      }
    },

    /**
     * Deletes an entry. `undoable` (the web app's Delete) keeps the entry as it was for
     * UNDO_MS, so `restore` can bring it back with its id.
     */
    delete(actor: Actor, id: string, options: { undoable?: boolean } = {}): void {
      write((record) => {
        const row = core.editable(actor, id);
        if (options.undoable) {
          const tagIds = repo.tagIds(row.id);
          repo.keepTombstone({
            entryId: row.id,
            workspaceId: row.workspaceId,
            authorId: row.authorId,
            snapshot: JSON.stringify({ row, tagIds }),
            deletedAt: clock.now(),
          });
        }
        repo.delete(row.id);
        record(deletedEvent(row, eventActor(actor)));
      });
    },

    ...undoOf({ clock, write, repo, core }),

    ...sheetOf({ clock, write, repo, core }),

    ...suggestionsOf({ clock, repo, catalog: labels }),
  };
}

export type EntriesService = ReturnType<typeof createEntriesService>;
