import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { registerFunctions } from '../../src/db/database.js';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * Migrations applied to a database that already holds data: the database is migrated up to a
 * given migration (a copy of drizzle/ whose journal stops there), rows are written as that
 * version would have, then the server's openDatabase applies the rest.
 */
export function migratedUpTo(path: string, lastTag: string): void {
  const folder = mkdtempSync(join(tmpdir(), 'timetrack-migrations-'));
  cpSync(join(PACKAGE_ROOT, 'drizzle'), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag}`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
  const sqlite = new Database(path);
  // Migrations 0007 and 0009 call the functions every connection registers.
  registerFunctions(sqlite);
  migrate(drizzle(sqlite), { migrationsFolder: folder });
  sqlite.close();
  rmSync(folder, { recursive: true, force: true });
}

/** The tags of the shipped migrations, oldest first. */
export function migrationTags(): string[] {
  const journal = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'drizzle', 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  return journal.entries.map((e) => e.tag);
}
