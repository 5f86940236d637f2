import type { Services } from '../services.js';
import { byIdHandlers, type Handler, ok } from './types.js';

export function entryHandlers({ entries, timers }: Pick<Services, 'entries' | 'timers'>) {
  const listEntries: Handler<'listEntries'> = ({ actor, query }) => {
    const page = entries.list(actor, query);
    return ok({ data: page.rows, nextCursor: page.nextCursor });
  };
  const entry = byIdHandlers(entries);
  const getCurrentEntry: Handler<'getCurrentEntry'> = ({ actor }) => ok({ data: timers.current(actor) });
  const startTimer: Handler<'startTimer'> = ({ actor, body }) => ok({ data: timers.start(actor, body ?? {}) });
  const stopTimer: Handler<'stopTimer'> = ({ actor, body }) => ok({ data: timers.stop(actor, body ?? {}) });
  return {
    listEntries,
    createEntry: entry.create,
    getEntry: entry.get,
    updateEntry: entry.update,
    deleteEntry: entry.delete,
    getCurrentEntry,
    startTimer,
    stopTimer,
  };
}
