import type { Clock } from '../../clock.js';
import type { Actor } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import type { EntryCore, RecordEvent } from './core.js';
import { entryErrors as errors } from './errors.js';
import type { EntriesRepository } from './repository.js';
import type { EntryRow, EntryView } from './views.js';

/** Only the one-running-timer index can refuse a restore: a timer of this member was started at the same moment. */
const raced = { conflict: () => errors.undoWhileRunning('', '', null).message };

/** How long a web app Delete can be undone. */
export const UNDO_MS = 10_000;
/** The web app's Undo of a delete (part of the entries service). */
export function undoOf({ clock, write, repo, core }: { clock: Clock; write: DomainWrite; repo: EntriesRepository; core: EntryCore }) {
  return {
    /**
     * The Undo of a delete (the web app's, within UNDO_MS): the entry comes back as it was, with
     * its id, its rate and its amount; its author only. It records `entry.created` again (the
     * same id as the `entry.deleted` before it: that is how integrations learn of the undo).
     * A deleted running timer comes back running only while no other timer of its author runs:
     * else 409 `conflict`, and the tombstone stays (the write is rolled back) for another Undo.
     */
    restore(actor: Actor, id: string): EntryView {
      return write((record) => restoreIn(record, actor, id, { clock, repo, core, since: clock.now() - UNDO_MS }), raced);
    },

    /** Tombstones older than a minute go (a scheduled job). */
    dropTombstones: (): number => write(() => repo.dropTombstones(clock.now() - 60_000)),
  };
}

/** Brings back an entry deleted since `since` (inside the caller's write), as `restore` and the timesheet's Undo do. */
export function restoreIn(
  record: RecordEvent,
  actor: Actor,
  id: string,
  { clock, repo, core, since }: { clock: Clock; repo: EntriesRepository; core: EntryCore; since: number },
): EntryView {
  const kept = repo.takeTombstone(actor.workspaceId, id, since);
  if (!kept || kept.authorId !== actor.userId) throw errors.undoTooLate();
  const { row, tagIds } = JSON.parse(kept.snapshot) as { row: EntryRow; tagIds: string[] };
  // Its period submitted or approved, or its day locked, since the delete: it stays deleted (decisions §13).
  core.checkLocks(row.workspaceId, row.authorId, [row.startAt], `Entry ${row.id}`);
  core.resolveWork(actor.workspaceId, row.projectId, row.taskId, { projectId: row.projectId, taskId: row.taskId });
  core.checkTags(actor.workspaceId, tagIds);
  if (row.endAt === null) {
    const running = repo.running(actor.workspaceId, actor.userId);
    if (running) throw errors.undoWhileRunning(row.description, running.description, running.startAt);
  }
  const restored = repo.reinsert({ ...row, tagList: null, updatedAt: clock.now() });
  if (tagIds.length > 0) repo.replaceTags(row.id, tagIds);
  return core.emit(record, actor, row.endAt === null ? 'entry.started' : 'entry.created', restored);
}
