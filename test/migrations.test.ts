import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { openDatabase } from '../src/db/database.js';
import { PACKAGE_ROOT } from '../src/paths.js';

/**
 * Migrations applied to a database that already holds data: the database is migrated up to a
 * given migration (a copy of drizzle/ whose journal stops there), rows are written as that
 * version would have, then the server's openDatabase applies the rest.
 */
function migratedUpTo(path: string, lastTag: string): void {
  const folder = mkdtempSync(join(tmpdir(), 'timetrack-migrations-'));
  cpSync(join(PACKAGE_ROOT, 'drizzle'), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag}`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
  const sqlite = new Database(path);
  migrate(drizzle(sqlite), { migrationsFolder: folder });
  sqlite.close();
  rmSync(folder, { recursive: true, force: true });
}

describe('migrations over existing data', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-migrate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('0007 copies each entry’s tags into its row and indexes the folded descriptions already stored', () => {
    const path = join(dir, 'timetrack.db');
    migratedUpTo(path, '0005_webhook_queue_index');
    const old = new Database(path);
    const now = Date.UTC(2026, 10, 2);
    old.prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', ?, ?)").run(now, now);
    old.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_1', 'U', 'u@example.org', ?)").run(now);
    old
      .prepare(
        "INSERT INTO tags (id, workspace_id, name, name_key, created_at, updated_at) VALUES ('tag_b', 'ws_1', 'b', 'b', ?, ?), ('tag_a', 'ws_1', 'a', 'a', ?, ?)",
      )
      .run(now, now, now, now);
    const entry = old.prepare(
      "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, end_at, duration_sec, source, created_at, updated_at) VALUES (?, 'ws_1', 'usr_1', ?, 0, ?, ?, 3600, 'api', ?, ?)",
    );
    entry.run('ent_1', 'Quarterly planning', now, now + 3_600_000, now, now);
    entry.run('ent_2', 'untagged work', now, now + 3_600_000, now, now);
    old.prepare("INSERT INTO entry_tags (entry_id, tag_id) VALUES ('ent_1', 'tag_b'), ('ent_1', 'tag_a')").run();
    old.close();

    const database = openDatabase(path);
    try {
      const rows = database.sqlite.prepare('SELECT id, tag_list FROM entries ORDER BY id').all();
      expect(rows).to.deep.equal([
        { id: 'ent_1', tag_list: '["tag_a","tag_b"]' },
        { id: 'ent_2', tag_list: null },
      ]);
      // The index holds the folded text: a lower-case trigram phrase finds 'Quarterly planning'.
      const found = database.sqlite
        .prepare('SELECT e.id FROM entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE entries_fts MATCH \'"plann"\'')
        .all();
      expect(found).to.deep.equal([{ id: 'ent_1' }]);
      // A last character starts a trigram too (the two U+0001 after each description).
      const withK = database.sqlite
        .prepare('SELECT DISTINCT e.id FROM entries_fts_terms t JOIN entries e ON e.rowid = t.doc WHERE term >= ? AND term < ?')
        .all('k', 'k\u{10FFFF}\u{10FFFF}');
      expect(withK).to.deep.equal([{ id: 'ent_2' }]);
      // The backfill left nothing queued; later writes keep tag_list in step and queue the
      // entry for the search index's catch-up (test/unit/search.test.ts).
      const queued = () => database.sqlite.prepare('SELECT entry_rowid FROM entries_fts_pending').pluck().all();
      expect(queued()).to.deep.equal([]);
      database.sqlite.prepare("DELETE FROM entry_tags WHERE entry_id = 'ent_1' AND tag_id = 'tag_a'").run();
      database.sqlite.prepare("UPDATE entries SET description = 'Retro' WHERE id = 'ent_2'").run();
      expect(database.sqlite.prepare("SELECT tag_list FROM entries WHERE id = 'ent_1'").get()).to.deep.equal({ tag_list: '["tag_b"]' });
      expect(queued()).to.deep.equal([database.sqlite.prepare("SELECT rowid FROM entries WHERE id = 'ent_2'").pluck().get()]);
    } finally {
      database.close();
    }
  });
});
