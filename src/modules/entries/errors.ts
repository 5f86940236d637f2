import { DomainError, notFound } from '../../errors.js';
import { toIso } from '../../kernel/time.js';

/** The refusals of the entries module, worded once. */
export const entryErrors = {
  /** Unknown, in another workspace, or a colleague's the actor may not see: never a hint that it exists. */
  notFound: (id: string) => notFound(`Entry ${id}`),
  tagNotFound: (id: string) => notFound(`Tag ${id}`),
  notAuthor: (id: string) =>
    new DomainError('forbidden', `Entry ${id} belongs to another member; only its author may change it.`, {
      people: "This entry is a colleague's: only its author may change it.",
    }),
  invoiced: (id: string, invoiceId: string) =>
    new DomainError('conflict', `Entry ${id} is invoiced (${invoiceId}) and can no longer be changed.`, {
      people: 'This entry is on an invoice and can no longer be changed: an owner voids the invoice on the Invoices page to change it.',
    }),
  endBeforeStart: () => new DomainError('invalid', 'end: must be after start.', { field: 'end' }),
  endBeforeEntryStart: (start: number) =>
    new DomainError('invalid', `end: must be after the entry's start (${toIso(start)}).`, {
      field: 'end',
      people: 'The end must be after the start.',
    }),
  tooLong: () => new DomainError('invalid', 'end: an entry spans at most 366 days.', { field: 'end' }),
  taskArchived: (id: string) =>
    new DomainError('invalid', `taskId: task ${id} is archived and takes no new entries.`, {
      field: 'taskId',
      people: 'That task is archived and takes no new entries: choose another.',
    }),
  taskElsewhere: (taskId: string, ofProject: string, projectId: string) =>
    new DomainError('invalid', `taskId: task ${taskId} belongs to project ${ofProject}, not to ${projectId}.`, {
      field: 'taskId',
      people: "That task belongs to another project: choose one of this project's tasks, or no task.",
    }),
  projectArchived: (id: string) =>
    new DomainError('invalid', `projectId: project ${id} is archived and takes no new entries.`, {
      field: 'projectId',
      people: 'That project is archived and takes no new entries: choose another.',
    }),
  startInFuture: (what: 'a timer' | 'a running timer') =>
    new DomainError('invalid', `start: ${what} cannot start in the future.`, { field: 'start' }),
  startTooOld: (what: 'a timer' | 'a running timer') =>
    new DomainError('invalid', `start: ${what} cannot have started more than 366 days ago.`, { field: 'start' }),
  startBeforeRunning: (id: string, start: number) =>
    new DomainError('invalid', `start: must be after the start of the running timer ${id} (${toIso(start)}), which it stops.`, {
      field: 'start',
      people: 'A new timer starts after the running one, which it stops: give a later time, or change the running timer’s start.',
    }),
  changedMeanwhile: (id: string) =>
    new DomainError(
      'conflict',
      `Entry ${id} was changed elsewhere since you opened it: its newer values are shown. Make your change again, if it still applies.`,
      {
        field: 'version',
        people:
          'This entry was changed elsewhere since you opened it: its newer values are shown. Make your change again, if it still applies.',
      },
    ),
  undoTooLate: () =>
    new DomainError('invalid', 'Too late to undo: a deleted entry can be brought back for 10 seconds only. Add it again if you need it.'),
  noTimer: () => new DomainError('not_found', 'No timer is running.', { people: 'No timer is running.' }),
};
