import type Database from 'better-sqlite3';

/** What GET /readyz asks of the database itself: that it answers, and how far it is migrated. */
export interface DatabaseProbe {
  /** A query that touches the file (throws when the database cannot answer). */
  answers(): number;
  /** The journal time of the newest migration applied (0 for none). */
  newestMigration(): number;
}

export function probeDatabase(sqlite: Database.Database): DatabaseProbe {
  return {
    answers: () => sqlite.prepare('SELECT count(*) FROM sqlite_master').pluck().get() as number,
    newestMigration: () => Number(sqlite.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() ?? 0),
  };
}
