import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { PACKAGE_ROOT } from '../paths.js';
import { backupBeforeMigrating } from './backup.js';
import { type Durability, groupCommit, IMMEDIATE, type SyncFile } from './durability.js';
import { secureDatabaseFiles, type Tightened } from './files.js';
import { registerFunctions } from './functions.js';

export { registerFunctions } from './functions.js';

/** A connection as the repositories use it: Drizzle's query builder over better-sqlite3 (no relational schema: queries name their tables). */
export type Db = BetterSQLite3Database & { $client: Database.Database };

/**
 * When a commit reaches the disk. FULL (the default): the WAL is synced at every commit, so an
 * acknowledged write survives a power cut. NORMAL: synced at checkpoints only; a crash of the
 * process loses nothing, a power cut or kernel panic may lose the last commits.
 */
export type Synchronous = 'FULL' | 'NORMAL';

export interface DatabaseHandle {
  db: Db;
  sqlite: Database.Database;
  /** Permissions narrowed when it was opened (the server logs them). */
  tightened: Tightened[];
  /** The backup written before this open migrated the database, or null. */
  migrationBackup: string | null;
  /** When a commit is on disk: at once (synchronous FULL or NORMAL), or after a shared sync (`groupCommit`). */
  durability: Durability;
  close(): void;
}

const migrationsFolder = join(PACKAGE_ROOT, 'drizzle');

/**
 * Opens (creating if needed) the SQLite database at `path`, sets the pragmas and applies every
 * pending migration. `:memory:` gives a private in-memory database with the same migrations.
 * `readOnly` opens an existing, migrated database for reading only (the reader threads: WAL lets
 * them read while the server's connection writes).
 */
export function openDatabase(
  path: string,
  options: {
    readOnly?: boolean;
    cacheMb?: number;
    synchronous?: Synchronous;
    /** Before migrating a database that holds data: a backup beside it, the newest this many kept (0: none). */
    backupsBeforeMigrating?: number;
    /**
     * The server's connection: commits with synchronous=NORMAL and a durability barrier shared by
     * the commits that meet (./durability.ts) instead of a sync per commit; `sync` replaces the
     * fdatasync in tests. Only with `synchronous` FULL (the default) on a file.
     */
    groupCommit?: { sync?: SyncFile | undefined; batching?: boolean };
    /**
     * Tests: refuse (throw) any statement that writes outside a transaction, after the
     * migrations: every write of the services must go through write(), the one write path.
     */
    strictWrites?: boolean;
  } = {},
): DatabaseHandle {
  const readOnly = options.readOnly ?? false;
  const tightened = path !== ':memory:' && !readOnly ? secureDatabaseFiles(path) : [];
  const sqlite = new Database(path, { readonly: readOnly, fileMustExist: readOnly });
  const grouped = options.groupCommit !== undefined && !readOnly && path !== ':memory:' && (options.synchronous ?? 'FULL') === 'FULL';
  if (!readOnly) {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`synchronous = ${grouped ? 'NORMAL' : (options.synchronous ?? 'FULL')}`);
  }
  sqlite.pragma('foreign_keys = ON');
  // The CLI and the server may write at once: wait for the lock rather than fail.
  sqlite.pragma('busy_timeout = 5000');
  if (options.cacheMb) sqlite.pragma(`cache_size = -${options.cacheMb * 1024}`);
  registerFunctions(sqlite);
  const db = drizzle(sqlite);
  const migrationBackup =
    !readOnly && path !== ':memory:' ? backupBeforeMigrating(sqlite, path, options.backupsBeforeMigrating ?? 0, new Date()) : null;
  if (!readOnly) migrate(db, { migrationsFolder });
  if (options.strictWrites) refuseWritesOutsideTransactions(sqlite);
  const durability = grouped
    ? groupCommit(sqlite, `${path}-wal`, options.groupCommit?.sync, options.groupCommit?.batching ?? false)
    : IMMEDIATE;
  return {
    db,
    sqlite,
    tightened,
    migrationBackup,
    durability,
    close: () => {
      durability.close();
      if (sqlite.open) sqlite.close();
    },
  };
}

/** Statements that manage transactions or the file, not the data: allowed anywhere. */
const CONTROL = /^\s*(PRAGMA|BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|VACUUM|ANALYZE)\b/i;

/**
 * Makes every statement that changes data throw when it runs outside a transaction. The services
 * write only through write() (an immediate transaction that records the write's events), so
 * under this check a write that bypasses it fails the test that makes it.
 */
function refuseWritesOutsideTransactions(sqlite: Database.Database): void {
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    if (statement.readonly || CONTROL.test(source)) return statement;
    const guarded = statement as unknown as Record<'run' | 'get' | 'all' | 'iterate', (...args: unknown[]) => unknown>;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const original = guarded[method].bind(statement);
      guarded[method] = (...args: unknown[]) => {
        if (!sqlite.inTransaction)
          throw new Error(`A write outside write() (the one write path): ${source.replace(/\s+/g, ' ').slice(0, 120)}`);
        return original(...args);
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
}
