import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { type MigrationMeta, readMigrationFiles } from 'drizzle-orm/migrator';
import { PACKAGE_ROOT } from '../paths.js';
import { registerFunctions } from './functions.js';

const migrationsFolder = join(PACKAGE_ROOT, 'drizzle');

/** One object of a database's schema, as sqlite_master lists it. */
interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** The schema objects of a database: every table, index, trigger and view (SQLite's statistics aside). */
function schemaOf(sqlite: Database.Database): Map<string, SchemaObject> {
  const rows = sqlite
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name")
    .all() as SchemaObject[];
  return new Map(rows.map((row) => [`${row.type} ${row.name}`, row]));
}

/**
 * The tables Litestream adds to a database it replicates (its write sequence and the lock it
 * takes to hold back checkpoints), exactly as it creates them: a replica, and a backup taken
 * while it runs, holds them. Nothing else of Litestream's is accepted (a trigger on them is not).
 */
const LITESTREAM_TABLES = new Map<string, SchemaObject>(
  [
    {
      type: 'table',
      name: '_litestream_seq',
      tbl_name: '_litestream_seq',
      sql: 'CREATE TABLE _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER)',
    },
    { type: 'table', name: '_litestream_lock', tbl_name: '_litestream_lock', sql: 'CREATE TABLE _litestream_lock (id INTEGER)' },
  ].map((object) => [`${object.type} ${object.name}`, object]),
);

/** What the shipped migrations up to `level` (a migration's journal time) produce, and those migrations. */
function expectedAt(level: number): { schema: Map<string, SchemaObject>; migrations: MigrationMeta[] } {
  const migrations = readMigrationFiles({ migrationsFolder }).filter((m) => m.folderMillis <= level);
  const scratch = new Database(':memory:');
  try {
    registerFunctions(scratch);
    const db = drizzle(scratch);
    // drizzle's own migrator, given only the migrations up to the level (migrate() applies all).
    const { dialect, session } = db as unknown as {
      dialect: { migrate(m: MigrationMeta[], s: unknown, c: { migrationsFolder: string }): void };
      session: unknown;
    };
    dialect.migrate(migrations, session, { migrationsFolder });
    return { schema: schemaOf(scratch), migrations };
  } finally {
    scratch.close();
  }
}

/**
 * Why a database's schema is not what this version of timetrack produces at the database's
 * migration level, or null when it is exactly that: every table, index, trigger and view, by
 * name and SQL, and the migrations it records as applied (by their hashes). A file with an extra
 * trigger (one that promotes its author at every sign-in, say) passes SQLite's integrity check;
 * it does not pass this.
 */
export function schemaDifference(sqlite: Database.Database, level: number): string | null {
  const expected = expectedAt(level);
  const actual = schemaOf(sqlite);
  const problems: string[] = [];
  for (const [key, object] of actual) {
    const wanted = expected.schema.get(key) ?? LITESTREAM_TABLES.get(key);
    if (!wanted) problems.push(`an extra ${object.type} ${object.name}`);
    else if (wanted.sql !== object.sql || wanted.tbl_name !== object.tbl_name) problems.push(`the ${object.type} ${object.name} differs`);
  }
  for (const [key, object] of expected.schema) if (!actual.has(key)) problems.push(`no ${object.type} ${object.name}`);
  if (problems.length === 0) {
    const applied = sqlite.prepare('SELECT hash, created_at AS at FROM __drizzle_migrations ORDER BY created_at').all() as Array<{
      hash: string;
      at: number | string;
    }>;
    const same =
      applied.length === expected.migrations.length &&
      applied.every((row, i) => row.hash === expected.migrations[i]?.hash && Number(row.at) === expected.migrations[i]?.folderMillis);
    if (!same) problems.push('its record of applied migrations is not the shipped migrations');
  }
  if (problems.length === 0) return null;
  const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
  const name = expected.migrations.at(-1);
  return `its schema is not what timetrack's migrations produce${name ? ` at its migration level` : ''}: ${shown}`;
}
