import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fold } from '../kernel/fold.js';
import { PACKAGE_ROOT } from '../paths.js';
import * as schema from './schema.js';

export type Db = BetterSQLite3Database<typeof schema>;

export interface DatabaseHandle {
  db: Db;
  sqlite: Database.Database;
  close(): void;
}

const migrationsFolder = join(PACKAGE_ROOT, 'drizzle');

/**
 * Opens (creating if needed) the SQLite database at `path`, sets the pragmas and applies every
 * pending migration. `:memory:` gives a private in-memory database with the same migrations.
 * `readOnly` opens an existing, migrated database for reading only (the reader threads: WAL lets
 * them read while the server's connection writes).
 */
export function openDatabase(path: string, options: { readOnly?: boolean; cacheMb?: number } = {}): DatabaseHandle {
  const readOnly = options.readOnly ?? false;
  if (path !== ':memory:' && !readOnly) mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { readonly: readOnly, fileMustExist: readOnly });
  if (!readOnly) {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
  }
  sqlite.pragma('foreign_keys = ON');
  // The CLI and the server may write at once: wait for the lock rather than fail.
  sqlite.pragma('busy_timeout = 5000');
  if (options.cacheMb) sqlite.pragma(`cache_size = -${options.cacheMb * 1024}`);
  // Unicode-aware case folding for description search (SQLite's lower() knows only ASCII); the
  // search index holds descriptions folded by it (migration 0007, entries/search-index.ts).
  sqlite.function('tt_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? fold(text) : text));
  const db = drizzle(sqlite, { schema });
  if (!readOnly) migrate(db, { migrationsFolder });
  return {
    db,
    sqlite,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}
