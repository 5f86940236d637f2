import type { EntriesService } from '../../modules/entries/service.js';
import { type Handler, noContent, ok } from './types.js';

export function entryHandlers({ entries }: { entries: EntriesService }) {
  const listEntries: Handler<'listEntries'> = ({ actor, query }) => {
    const page = entries.listEntries(actor, query);
    return ok({ data: page.rows, nextCursor: page.nextCursor });
  };
  const createEntry: Handler<'createEntry'> = ({ actor, body }) => ok({ data: entries.createEntry(actor, body) });
  const getCurrentEntry: Handler<'getCurrentEntry'> = ({ actor }) => ok({ data: entries.getCurrent(actor) });
  const startTimer: Handler<'startTimer'> = ({ actor, body }) => ok({ data: entries.startTimer(actor, body ?? {}) });
  const stopTimer: Handler<'stopTimer'> = ({ actor, body }) => ok({ data: entries.stopTimer(actor, body ?? {}) });
  const getEntry: Handler<'getEntry'> = ({ actor, path }) => ok({ data: entries.getEntry(actor, path.id) });
  const updateEntry: Handler<'updateEntry'> = ({ actor, path, body }) => ok({ data: entries.updateEntry(actor, path.id, body) });
  const deleteEntry: Handler<'deleteEntry'> = ({ actor, path }) => {
    entries.deleteEntry(actor, path.id);
    return noContent;
  };
  return { listEntries, createEntry, getCurrentEntry, startTimer, stopTimer, getEntry, updateEntry, deleteEntry };
}
