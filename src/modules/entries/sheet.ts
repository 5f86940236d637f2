import type { components } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import { DomainError } from '../../errors.js';
import { parseInstant, toIso } from '../../kernel/time.js';
import type { Actor } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import { checkSpan, completion, deletedEvent, type EntryCore, eventActor, type RecordEvent } from './core.js';
import { entryErrors as errors } from './errors.js';
import type { EntriesRepository } from './repository.js';
import { restoreIn, UNDO_MS } from './undo.js';
import type { EntryRow, EntryView } from './views.js';

type Schemas = components['schemas'];

/** An entry as the timesheet read it: its id and version (`updatedAt`). */
export interface SheetVersion {
  id: string;
  updatedAt: string;
}

/** What one save of the timesheet does: entries added, entries ended earlier, entries taken out. */
export interface SheetChanges {
  add: Array<Schemas['EntryCreate']>;
  /** Entries ended earlier (`end`), each as read. */
  shorten: Array<SheetVersion & { end: string }>;
  remove: SheetVersion[];
}

/** What a save did, for its Undo: the entries added and shortened (with their new versions and old ends), and those taken out. */
export interface SheetSaved {
  added: SheetVersion[];
  shortened: Array<SheetVersion & { end: string }>;
  removed: string[];
}

/**
 * Time the timesheet may take back (docs/pages.md, "The timesheet"): a completed entry of the
 * web app without a description or tags, which is what a cell's typing makes. A timer's running
 * entry, an entry with words or tags (the week's and the timer's), one from the API, an import
 * or an app, and an invoiced one are never shortened or taken out by the timesheet.
 */
export const sheetTime = (row: Pick<EntryRow, 'endAt' | 'description' | 'tagList' | 'source' | 'invoiceId'>): boolean =>
  row.endAt !== null && row.description === '' && row.tagList === null && row.source === 'web' && row.invoiceId === null;

const notSheetTime = (id: string) =>
  new DomainError('conflict', `Entry ${id} has a description, tags or a timer, so the timesheet does not change it.`, {
    people: 'Part of this time has a description, tags or a running timer, so the timesheet leaves it as it is: change it on the week.',
  });

/** The timesheet's writes (part of the entries service): a save of its cells, all or none, and its Undo. */
export function sheetOf({ clock, write, repo, core }: { clock: Clock; write: DomainWrite; repo: EntriesRepository; core: EntryCore }) {
  /** The entry as read (its version), the actor's own, not invoiced; else the refusal. */
  const asRead = (actor: Actor, { id, updatedAt }: SheetVersion): EntryRow => {
    const row = core.editable(actor, id);
    if (toIso(row.updatedAt) !== updatedAt) throw errors.changedMeanwhile(id);
    return row;
  };
  const remove = (record: RecordEvent, actor: Actor, row: EntryRow) => {
    repo.keepTombstone({
      entryId: row.id,
      workspaceId: row.workspaceId,
      authorId: row.authorId,
      snapshot: JSON.stringify({ row, tagIds: [] }),
      deletedAt: clock.now(),
    });
    repo.delete(row.id);
    record(deletedEvent(row, eventActor(actor)));
  };
  const endAt = (actor: Actor, record: RecordEvent, row: EntryRow, end: number): EntryView => {
    checkSpan(row.startAt, end);
    const updated = repo.update(row.id, { ...completion(row, end), updatedAt: clock.now() });
    return core.emit(record, actor, 'entry.updated', updated);
  };

  return {
    /**
     * A save of the timesheet in one write: the entries added, and time taken back from the
     * timesheet's own entries (`sheetTime`), each only while it is as the page read it (409
     * otherwise, and nothing is written). Entries taken out are kept for the Undo (UNDO_MS).
     */
    saveSheet(actor: Actor, changes: SheetChanges): SheetSaved {
      const adds = changes.add.map((body) => {
        const start = parseInstant(body.start, 'start');
        const end = parseInstant(body.end, 'end');
        checkSpan(start, end);
        return { body, start, end };
      });
      const ends = changes.shorten.map((s) => ({ ...s, at: parseInstant(s.end, 'end') }));
      return write((record) => {
        const saved: SheetSaved = { added: [], shortened: [], removed: [] };
        for (const taken of changes.remove) {
          const row = asRead(actor, taken);
          if (!sheetTime(row)) throw notSheetTime(row.id);
          remove(record, actor, row);
          saved.removed.push(row.id);
        }
        for (const shortened of ends) {
          const row = asRead(actor, shortened);
          if (!sheetTime(row)) throw notSheetTime(row.id);
          if (shortened.at >= (row.endAt as number)) throw new DomainError('invalid', 'end: the timesheet only ends an entry earlier.');
          const view = endAt(actor, record, row, shortened.at);
          saved.shortened.push({ id: row.id, updatedAt: view.updatedAt, end: toIso(row.endAt as number) });
        }
        for (const { body, start, end } of adds) {
          const view = core.insert(record, actor, { ...body, start, end }, 'entry.created');
          saved.added.push({ id: view.id, updatedAt: view.updatedAt });
        }
        return saved;
      });
    },

    /**
     * The Undo of a save, all or none: the entries it added go, those it ended earlier end as
     * before, those it took out come back (within UNDO_MS); each only while it is as the save
     * left it, so a change made since is never lost (409; one gone meanwhile is 404).
     */
    undoSheet(actor: Actor, saved: SheetSaved): void {
      write((record) => {
        for (const added of saved.added) {
          const row = asRead(actor, added);
          repo.delete(row.id);
          record(deletedEvent(row, eventActor(actor)));
        }
        for (const shortened of saved.shortened) endAt(actor, record, asRead(actor, shortened), parseInstant(shortened.end, 'end'));
        for (const id of saved.removed) restoreIn(record, actor, id, { clock, repo, core, since: clock.now() - UNDO_MS });
      });
    },
  };
}
