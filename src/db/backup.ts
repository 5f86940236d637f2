import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DomainError } from '../errors.js';
import { PACKAGE_ROOT } from '../paths.js';
import { schemaDifference } from './schema-check.js';
import { processAlive } from '../processes.js';

/*
 * Backups of the database while the server serves and writes, their checks, and restores.
 * A copy is made with VACUUM INTO: one read transaction, so it is the database as of one commit
 * (WAL lets the server write meanwhile), compacted, in a new file.
 */

/** What a copy holds, as checked after it was written. */
export interface BackupInfo {
  path: string;
  bytes: number;
  /** The last sync event it holds (every write records one): null for an empty log. */
  lastEventSeq: number | null;
  integrity: 'ok';
}

/** The migrations this code knows, oldest first (drizzle's journal): their tags and times. */
function journal(): Array<{ tag: string; when: number }> {
  const file = join(PACKAGE_ROOT, 'drizzle', 'meta', '_journal.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { entries: Array<{ tag: string; when: number }> }).entries;
}

/** The newest migration a database has applied (drizzle records each one's journal time), or null. */
function lastApplied(sqlite: Database.Database): number | null {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return null;
  return (sqlite.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() as number | null) ?? null;
}

/** The migrations of this code a database has not applied yet (none for a new, empty one). */
export function pendingMigrations(sqlite: Database.Database): string[] {
  const applied = lastApplied(sqlite);
  if (applied === null) return [];
  return journal()
    .filter((m) => m.when > applied)
    .map((m) => m.tag);
}

/**
 * Checks a copy: it opens, passes integrity_check, is a timetrack database no newer than this
 * version, and its schema is exactly what the shipped migrations produce at its migration level;
 * returns what it holds.
 */
export function inspect(path: string): BackupInfo & { lastMigrationAt: number | null } {
  let copy: Database.Database;
  try {
    copy = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new DomainError('invalid', `${path} is not a database that can be opened (${(error as Error).message}).`);
  }
  try {
    let integrity: unknown;
    try {
      integrity = copy.pragma('integrity_check', { simple: true });
    } catch (error) {
      throw new DomainError('invalid', `${path} is not an SQLite database (${(error as Error).message}).`);
    }
    if (integrity !== 'ok') throw new DomainError('invalid', `${path} fails SQLite's integrity check: ${String(integrity)}.`);
    const lastMigrationAt = lastApplied(copy);
    const events = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    if (lastMigrationAt === null || !events) throw new DomainError('invalid', `${path} is not a timetrack database.`);
    if (lastMigrationAt > (journal().at(-1)?.when ?? 0))
      throw new DomainError('invalid', `${path} was written by a newer version of timetrack than this one; upgrade first.`);
    // Integrity is not trust: a crafted file's extra trigger passes integrity_check.
    const difference = schemaDifference(copy, lastMigrationAt);
    if (difference !== null)
      throw new DomainError(
        'invalid',
        `${path} is refused: ${difference}. Restore only a copy of a timetrack database (timetrack backup, or a Litestream replica of one).`,
      );
    const lastEventSeq = (copy.prepare('SELECT max(seq) FROM events').pluck().get() as number | null) ?? null;
    return { path: resolve(path), bytes: statSync(path).size, lastEventSeq, integrity: 'ok', lastMigrationAt };
  } finally {
    copy.close();
  }
}

/** Writes a consistent copy of the open database to `to` (a new file, mode 0600) and checks it. */
export function backupTo(sqlite: Database.Database, to: string): BackupInfo {
  if (existsSync(to)) throw new DomainError('conflict', `${to} exists already; a backup never overwrites a file.`);
  if (!existsSync(dirname(resolve(to)))) throw new DomainError('invalid', `The folder of ${to} does not exist.`);
  // Created empty first with mode 0600 (VACUUM INTO fills an empty file), so the copy is never
  // readable by others, even for a moment.
  writeFileSync(to, '', { mode: 0o600, flag: 'wx' });
  try {
    sqlite.prepare('VACUUM INTO ?').run(to);
  } catch (error) {
    rmSync(to, { force: true });
    throw error;
  }
  try {
    const { lastMigrationAt: _, ...info } = inspect(to);
    return info;
  } catch (error) {
    // A copy that fails its check is no backup: it is not left behind under a backup's name.
    rmSync(to, { force: true });
    throw error;
  }
}

/**
 * Before a migration of a database that holds data: a backup beside it, named after the
 * migration, and only the newest `keep` of these kept. Returns the new backup's path, or null
 * when nothing is pending (or keep is 0).
 */
export function backupBeforeMigrating(sqlite: Database.Database, path: string, keep: number, now: Date): string | null {
  const pending = pendingMigrations(sqlite);
  if (pending.length === 0 || keep === 0) return null;
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const prefix = `${basename(path)}.before-`;
  const file = join(dirname(path), `${prefix}${pending[0]}.${stamp}.bak`);
  backupTo(sqlite, file);
  const older = readdirSync(dirname(path))
    .filter((name) => name.startsWith(prefix) && name.endsWith('.bak'))
    .map((name) => join(dirname(path), name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs || b.localeCompare(a));
  for (const stale of older.slice(keep)) rmSync(stale, { force: true });
  return file;
}

/** The server's mark beside the database while it runs (its process id, for messages). */
export const serverMark = (databasePath: string): string => `${databasePath}.server-pid`;

/** The file a running server holds locked. */
export const serverLockFile = (databasePath: string): string => `${databasePath}.server-lock`;

/** The lock of a database: held by a running server, taken by a restore. */
export interface ServerLock {
  release(): void;
}

/**
 * Takes the database's server lock: an exclusive SQLite lock on `<database>.server-lock`, held
 * until released (or until the process ends, whatever ends it: the operating system drops the
 * lock). Unlike a process id, it is seen by a server in another pid namespace, and on another
 * host over shared storage where the file system supports POSIX locks. Null when another holder
 * has it.
 */
export function takeServerLock(databasePath: string): ServerLock | null {
  const file = serverLockFile(databasePath);
  if (!existsSync(dirname(resolve(file)))) mkdirSync(dirname(resolve(file)), { recursive: true, mode: 0o700 });
  const lock = new Database(file);
  try {
    chmodSync(file, 0o600);
    lock.pragma('busy_timeout = 0');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw error;
  }
  return {
    release: () => {
      if (!lock.open) return;
      lock.exec('ROLLBACK');
      lock.close();
    },
  };
}

/**
 * Whether a server runs on the database now: its mark is there and its process alive, or (a mark
 * left by a crash, or a server in another pid namespace) its lock is held. Without a mark, no
 * server runs (it writes the mark when it takes the lock), and the lock is not touched: a probe
 * of it would refuse a server starting in that instant.
 */
export function serverRuns(databasePath: string): boolean {
  if (databasePath === ':memory:') return false;
  const pid = recordedPid(databasePath);
  if (pid === null) return false;
  if (processAlive(pid)) return true;
  const lock = takeServerLock(databasePath);
  if (lock === null) return true;
  lock.release();
  return false;
}

/** The process id a server recorded beside the database (for the refusal's message), or null. */
function recordedPid(databasePath: string): number | null {
  try {
    const pid = Number(readFileSync(serverMark(databasePath), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export interface Restored {
  restoredFrom: string;
  databasePath: string;
  /** Where the database it replaced was kept (null when there was none). */
  replacedKeptAt: string | null;
  lastEventSeq: number | null;
  /** Migrations of this code the restored copy did not have yet: applied when it is next opened. */
  pendingMigrations: string[];
}

/**
 * Puts a backup in place of the database: refused while a server uses it; the file must pass the
 * checks and not come from a newer version of timetrack. The replaced database (and its -wal and
 * -shm) is renamed beside it, never deleted.
 */
export function restoreFrom(from: string, databasePath: string, now: Date): Restored {
  if (!existsSync(from)) throw new DomainError('not_found', `${from} does not exist.`);
  // The server's lock, held throughout: no server can start on the database mid-restore.
  const lock = takeServerLock(databasePath);
  if (lock === null) {
    const pid = recordedPid(databasePath);
    throw new DomainError(
      'conflict',
      `A server${pid === null ? '' : ` (process ${pid})`} uses ${databasePath}: it holds ${serverLockFile(databasePath)}. Stop it first, then restore.`,
    );
  }
  try {
    return replaceWith(from, databasePath, now);
  } finally {
    lock.release();
  }
}

function replaceWith(from: string, databasePath: string, now: Date): Restored {
  const info = inspect(from);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  // The copy is made beside the database first: if it fails (a full disk), the database is
  // untouched. Only then is the current one moved aside and the copy renamed into place.
  const incoming = `${databasePath}.restoring-${stamp}`;
  try {
    // Never over a file that is there already (COPYFILE_EXCL); what this copy wrote is removed.
    copyFileSync(from, incoming, constants.COPYFILE_EXCL);
    chmodSync(incoming, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' && statSync(incoming, { throwIfNoEntry: false })?.isFile()) rmSync(incoming);
    throw new DomainError(
      'invalid',
      `${from} could not be copied beside ${databasePath} (${(error as Error).message}); nothing was changed.`,
    );
  }
  let replacedKeptAt: string | null = null;
  if (existsSync(databasePath)) {
    replacedKeptAt = `${databasePath}.replaced-${stamp}`;
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(databasePath + suffix)) renameSync(databasePath + suffix, replacedKeptAt + suffix);
    }
  }
  renameSync(incoming, databasePath);
  const restored = new Database(databasePath);
  const pending = pendingMigrations(restored);
  restored.close();
  return {
    restoredFrom: resolve(from),
    databasePath: resolve(databasePath),
    replacedKeptAt,
    lastEventSeq: info.lastEventSeq,
    pendingMigrations: pending,
  };
}
