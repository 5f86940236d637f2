import { expect } from 'chai';
import fc from 'fast-check';
import { type DatabaseHandle, openDatabase } from '../../../src/db/database.js';
import { fold } from '../../../src/kernel/fold.js';
import { searchCandidates } from '../../../src/modules/entries/repository/selection.js';
import { createEntriesRepository } from '../../../src/modules/entries/repository.js';
import { createWrite } from '../../../src/db/write.js';

/**
 * The search index's candidates over a real database with the real migrations: never missing a
 * match (the exact check drops the rest), and null when a pattern is too common for the cap.
 */
for (const mode of ['queued', 'indexed'] as const)
  describe(`entries/filters: search candidates (${mode})`, () => {
    let database: DatabaseHandle;
    let indexer: ReturnType<typeof searchIndexer>;
    let insert: (description: string) => number;

    beforeEach(() => {
      database = openDatabase(':memory:');
      const now = Date.UTC(2026, 10, 2);
      database.sqlite
        .prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', ?, ?)")
        .run(now, now);
      database.sqlite.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_1', 'U', 'u@example.org', ?)").run(now);
      const statement = database.sqlite.prepare(
        "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, end_at, duration_sec, source, created_at, updated_at) VALUES (?, 'ws_1', 'usr_1', ?, 0, ?, ?, 60, 'api', ?, ?)",
      );
      let n = 0;
      insert = (description) => Number(statement.run(`ent_${++n}`, description, now, now + 60_000, now, now).lastInsertRowid);
      indexer = searchIndexer(database.db);
    });
    afterEach(() => database.close());

    // Queued: the writes' rowids are still in entries_fts_pending (the server indexes them within a
    // second); indexed: the catch-up has moved them into entries_fts. Both must find every match.
    const candidates = (pattern: string, cap = 1000) => {
      if (mode === 'indexed') {
        while (indexer.catchUp(7) > 0);
        expect(indexer.pending()).to.equal(0);
      }
      const ids = searchCandidates(database.db, fold(pattern), cap);
      return ids === null ? null : [...ids].sort((a, b) => a - b);
    };

    if (mode === 'queued')
      it('every queued entry is a candidate until the catch-up indexes it', () => {
        const rows = [insert('alpha'), insert('beta')];
        expect(candidates('zzz')).to.deep.equal(rows);
        while (indexer.catchUp() > 0);
        expect(candidates('zzz')).to.deep.equal([]);
        expect(candidates('ALPH')).to.deep.equal([rows[0]]);
      });

    if (mode === 'indexed') {
      it('a long pattern: the entries of its rarest trigram', () => {
        const rows = Array.from({ length: 30 }, (_, i) => insert(`Work item ${i}`));
        // "m 1" is in 11 of them (1, 10–19), " 12" in one: the candidates are that one.
        expect(candidates('WORK ITEM 12')).to.deep.equal([rows[12]]);
        expect(candidates('item 1')).to.have.length(11);
      });

      it('a short pattern: every entry with a trigram starting with it, a last character included', () => {
        const [a, b, c] = [insert('ab'), insert('xab'), insert('b')];
        insert('a');
        expect(candidates('AB')).to.deep.equal([a, b]);
        expect(candidates('b')).to.deep.equal([a, b, c]);
      });

      it('follows edits and deletes', () => {
        const id = insert('draft');
        database.sqlite.prepare("UPDATE entries SET description = 'final' WHERE rowid = ?").run(id);
        expect(candidates('draft')).to.deep.equal([]);
        expect(candidates('final')).to.deep.equal([id]);
        database.sqlite.prepare('DELETE FROM entries WHERE rowid = ?').run(id);
        expect(candidates('final')).to.deep.equal([]);
      });
    }

    it('null when the pattern is found more often than the cap', () => {
      for (let i = 0; i < 5; i++) insert(`common ${i}`);
      expect(candidates('common', 4)).to.equal(null);
      expect(candidates('co', 4)).to.equal(null);
      expect(candidates('common', 5)).to.have.length(5);
      expect(candidates('co', 5)).to.have.length(5);
    });

    it('never misses a match (property: any texts, any pattern of them)', () => {
      // A small alphabet with cased, composed/decomposed and astral characters, so patterns repeat.
      const char = fc.constantFrom('a', 'A', 'b', 'é', 'e\u0301', 'É', 'Σ', 'ς', 'Ꭰ', 'İ', ' ', '"', '😀', 'ß');
      const text = fc.array(char, { maxLength: 8 }).map((cs) => cs.join(''));
      fc.assert(
        fc.property(fc.array(text, { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), fc.nat(), (texts, pick, from, length) => {
          database.sqlite.prepare('DELETE FROM entries').run();
          const ids = texts.map((t) => insert(t));
          const source = [...(texts[pick % texts.length] ?? '')];
          const start = from % (source.length + 1);
          const pattern = source.slice(start, start + 1 + (length % 5)).join('') || 'a';
          const found = candidates(pattern, 10_000);
          const matches = ids.filter((_, i) => fold(texts[i] ?? '').includes(fold(pattern)));
          expect(found, JSON.stringify({ texts, pattern })).to.include.members(matches);
        }),
        { numRuns: 300 },
      );
    });
  });

describe('entries/search-index: catch-up', () => {
  let database: DatabaseHandle;
  afterEach(() => database.close());

  it('takes the queue in batches of the size asked, edits and deletes included', () => {
    database = openDatabase(':memory:');
    const sqlite = database.sqlite;
    const now = Date.UTC(2026, 10, 2);
    sqlite.prepare("INSERT INTO workspaces (id, name, currency, created_at, updated_at) VALUES ('ws_1', 'W', 'EUR', ?, ?)").run(now, now);
    sqlite.prepare("INSERT INTO users (id, name, email, created_at) VALUES ('usr_1', 'U', 'u@example.org', ?)").run(now);
    const insert = sqlite.prepare(
      "INSERT INTO entries (id, workspace_id, author_id, description, billable, start_at, end_at, duration_sec, source, created_at, updated_at) VALUES (?, 'ws_1', 'usr_1', ?, 0, ?, ?, 60, 'api', ?, ?)",
    );
    for (let i = 1; i <= 5; i++) insert.run(`ent_${i}`, `Entry ${i}`, now, now + 60_000, now, now);
    const indexer = searchIndexer(database.db);
    expect(indexer.pending()).to.equal(5);
    expect([indexer.catchUp(2), indexer.catchUp(2), indexer.catchUp(2), indexer.catchUp(2)]).to.deep.equal([2, 2, 1, 0]);

    const terms = (term: string) => sqlite.prepare('SELECT doc FROM entries_fts_terms WHERE term = ? ORDER BY doc').pluck().all(term);
    expect(terms('y 3')).to.deep.equal([3]);
    sqlite.prepare("UPDATE entries SET description = 'Renamed' WHERE id = 'ent_3'").run();
    sqlite.prepare("DELETE FROM entries WHERE id = 'ent_4'").run();
    sqlite.prepare("UPDATE entries SET billable = 1 WHERE id = 'ent_5'").run();
    expect(indexer.pending()).to.equal(2);
    expect(indexer.catchUp()).to.equal(2);
    expect(terms('y 3')).to.deep.equal([]);
    expect(terms('y 4')).to.deep.equal([]);
    expect(terms('ren')).to.deep.equal([3]);
    expect(terms('y 5')).to.deep.equal([5]);
  });
});

/** The search index's catch-up as the entries service runs it: each batch in a write of its own. */
function searchIndexer(db: Parameters<typeof createEntriesRepository>[0]) {
  const { searchIndex } = createEntriesRepository(db);
  const write = createWrite(db, null);
  return { catchUp: (size = 500) => write(() => searchIndex.catchUp(size)), pending: () => searchIndex.pending() };
}
