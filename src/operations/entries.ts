import type { Services } from '../services.js';
import { type Handler, noContent, ok } from './types.js';

export function entryHandlers({ entries, timers }: Pick<Services, 'entries' | 'timers'>) {
  const listEntries: Handler<'listEntries'> = ({ actor, query }) => {
    const page = entries.list(actor, query);
    return ok({ data: page.rows, nextCursor: page.nextCursor });
  };
  const createEntry: Handler<'createEntry'> = ({ actor, body }) => ok({ data: entries.create(actor, body) });
  const getEntry: Handler<'getEntry'> = ({ actor, path }) => ok({ data: entries.get(actor, path.id) });
  const updateEntry: Handler<'updateEntry'> = ({ actor, path, body }) => ok({ data: entries.update(actor, path.id, body) });
  const deleteEntry: Handler<'deleteEntry'> = ({ actor, path }) => {
    entries.delete(actor, path.id);
    return noContent;
  };
  const getCurrentEntry: Handler<'getCurrentEntry'> = ({ actor }) => ok({ data: timers.current(actor) });
  const startTimer: Handler<'startTimer'> = ({ actor, body }) => ok({ data: timers.start(actor, body ?? {}) });
  const stopTimer: Handler<'stopTimer'> = ({ actor, body }) => ok({ data: timers.stop(actor, body ?? {}) });
  return { listEntries, createEntry, getEntry, updateEntry, deleteEntry, getCurrentEntry, startTimer, stopTimer };
}
