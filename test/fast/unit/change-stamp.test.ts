import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { changeStamp } from '../../../src/db/changes.js';

/**
 * A connection's change stamp (what the token check's kept rows are trusted by, issue 60): it
 * stands still across reads, and moves with any row changed on the connection (even rolled back)
 * and with any commit of another connection, in WAL mode as the server runs.
 */
describe('db: a connection’s change stamp', () => {
  let dir: string;
  let own: Database.Database;
  let other: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-stamp-'));
    own = new Database(join(dir, 'test.db'));
    own.pragma('journal_mode = WAL');
    own.exec('CREATE TABLE t (n INTEGER NOT NULL)');
    other = new Database(join(dir, 'test.db'));
  });
  afterEach(() => {
    own.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stands still across reads, its own and another connection’s', () => {
    const stamp = changeStamp(own);
    const first = stamp();
    own.prepare('SELECT count(*) FROM t').get();
    other.prepare('SELECT count(*) FROM t').get();
    expect(stamp()).to.equal(first);
  });

  it('moves with a row this connection changes, committed or rolled back, and not with a write that changes none', () => {
    const stamp = changeStamp(own);
    let before = stamp();
    own.prepare('INSERT INTO t VALUES (1)').run();
    expect(stamp()).not.to.equal(before);
    before = stamp();
    own.prepare('UPDATE t SET n = 2 WHERE n = 99').run();
    expect(stamp()).to.equal(before);
    own.exec('BEGIN');
    own.prepare('UPDATE t SET n = 3').run();
    own.exec('ROLLBACK');
    expect(stamp()).not.to.equal(before);
  });

  it('moves with another connection’s commit, and only once it is committed', () => {
    const stamp = changeStamp(own);
    const before = stamp();
    other.exec('BEGIN IMMEDIATE');
    other.prepare('INSERT INTO t VALUES (1)').run();
    expect(stamp()).to.equal(before);
    other.exec('COMMIT');
    const after = stamp();
    expect(after).not.to.equal(before);
    expect(stamp()).to.equal(after);
  });
});
