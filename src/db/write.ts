import { DomainError } from '../errors.js';
import type { Db } from './database.js';
import { noteCommit } from './durability.js';
import { isForeignKeyViolation, isUniqueViolation } from './errors.js';

/** What a refused constraint means for this write: the 409 message, when it can happen. */
export interface WriteOptions {
  /** A unique index refused the write (a name taken meanwhile, a second running timer). */
  conflict?: () => string;
  /** A foreign key refused the write (a row still referenced, or a reference deleted meanwhile). */
  referenced?: () => string;
}

/** Records an event in the transaction in progress (the event log's `record`, on the same connection). */
export type EventRecorder<Event> = (event: Event) => number;

/** Runs a write; its body records events with `record`, which commit or roll back with it. */
export type Write<Event> = <T>(body: (record: (event: Event) => number) => T, options?: WriteOptions) => T;

/**
 * The one way to write: an immediate transaction (it takes the write lock at BEGIN, so a second
 * writer process waits on busy_timeout instead of failing mid-transaction), the events the body
 * records in the same transaction, and SQLite's constraint refusals mapped to 409 conflict where
 * the caller says what they mean. better-sqlite3 transactions are synchronous: the body must not
 * await (nothing may, inside a transaction). Called inside another write, it nests as a savepoint.
 */
export function createWrite<Event>(db: Db, recorder: EventRecorder<Event> | null): Write<Event> {
  const record = (event: Event): number => {
    if (!recorder) throw new Error('this connection records no events');
    return recorder(event);
  };
  const sqlite = db.$client;
  return <T>(body: (record: (event: Event) => number) => T, options: WriteOptions = {}): T => {
    try {
      const result = db.transaction(() => body(record), { behavior: 'immediate' });
      // Committed (not a savepoint inside another write): counted for the durability barrier (./durability.ts).
      if (!sqlite.inTransaction) noteCommit(sqlite);
      return result;
    } catch (error) {
      if (options.conflict && isUniqueViolation(error)) throw new DomainError('conflict', options.conflict());
      if (options.referenced && isForeignKeyViolation(error)) throw new DomainError('conflict', options.referenced());
      throw error;
    }
  };
}
