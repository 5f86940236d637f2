import { DomainError } from '../errors.js';
import type { Db } from './database.js';
import { flushBatch, noteWrite, openBatch } from './durability.js';
import { isForeignKeyViolation, isUniqueViolation } from './errors.js';

/** What a refused constraint means for this write: the 409 message, when it can happen. */
export interface WriteOptions {
  /** A unique index refused the write (a name taken meanwhile, a second running timer). */
  conflict?: () => string;
  /** The input a unique refusal is about (`name`, `email`): the 409's field. */
  conflictField?: string;
  /** A foreign key refused the write (a row still referenced, or a reference deleted meanwhile). */
  referenced?: () => string;
  /**
   * A transaction of its own, never part of the server's batch (the open batch is committed
   * first): an import's writes, whose pragmas (deferred foreign keys) last for their transaction.
   */
  alone?: boolean;
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
  /** Writes in progress on this connection (a write inside another is a savepoint of it). */
  let depth = 0;
  return write;

  function write<T>(body: (record: (event: Event) => number) => T, options: WriteOptions = {}): T {
    try {
      // The server's connection batches: an outermost write joins (or opens) the batch transaction, as a savepoint (./durability.ts).
      if (depth === 0) {
        if (options.alone) flushBatch(sqlite);
        else openBatch(sqlite);
      }
      depth += 1;
      let result: T;
      try {
        result = db.transaction(() => body(record), { behavior: 'immediate' });
      } finally {
        depth -= 1;
      }
      // Counted for the durability barrier: committed, or part of the batch that will be.
      if (depth === 0) noteWrite(sqlite);
      return result;
    } catch (error) {
      if (options.conflict && isUniqueViolation(error))
        throw new DomainError('conflict', options.conflict(), options.conflictField ? { field: options.conflictField } : {});
      if (options.referenced && isForeignKeyViolation(error)) throw new DomainError('conflict', options.referenced());
      throw error;
    }
  }
}
