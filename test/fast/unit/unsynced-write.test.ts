import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { Db } from '../../../src/db/database.js';
import { createWrite } from '../../../src/db/write.js';

/**
 * An unsynced write (issue 60: the webhook sender's leases): on a connection that syncs each
 * commit (synchronous=FULL) it commits with NORMAL, and the connection is FULL again afterwards,
 * whether the write succeeded or threw; inside another write, or on a NORMAL connection, it
 * changes nothing.
 */
describe('db: a write that need not be synced on its own', () => {
  let dir: string;
  let sqlite: Database.Database;
  const level = () => sqlite.pragma('synchronous', { simple: true });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'timetrack-unsynced-'));
    sqlite = new Database(join(dir, 'test.db'));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.exec('CREATE TABLE t (n INTEGER NOT NULL)');
  });
  afterEach(() => {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits with NORMAL on a FULL connection, which is FULL again after it, even when it throws', () => {
    const write = createWrite<never>(drizzle(sqlite) as unknown as Db, null);
    const seen: number[] = [];
    write(
      () => {
        seen.push(level() as number);
        sqlite.prepare('INSERT INTO t (n) VALUES (1)').run();
      },
      { unsynced: true },
    );
    expect(seen).to.deep.equal([1]);
    expect(level()).to.equal(2);
    expect(() =>
      write(
        () => {
          sqlite.prepare('INSERT INTO t (n) VALUES (2)').run();
          throw new Error('refused');
        },
        { unsynced: true },
      ),
    ).to.throw('refused');
    expect(level()).to.equal(2);
    // The committed one is there, the refused one rolled back.
    expect(sqlite.prepare('SELECT n FROM t').pluck().all()).to.deep.equal([1]);
    // A plain write stays synced.
    write(() => seen.push(level() as number));
    expect(seen).to.deep.equal([1, 2]);
  });

  it('inside another write the outer one decides; on a NORMAL connection nothing changes', () => {
    const write = createWrite<never>(drizzle(sqlite) as unknown as Db, null);
    const seen: number[] = [];
    write(() => write(() => seen.push(level() as number), { unsynced: true }));
    expect(seen).to.deep.equal([2]);
    sqlite.pragma('synchronous = NORMAL');
    const normal = createWrite<never>(drizzle(sqlite) as unknown as Db, null);
    normal(() => seen.push(level() as number), { unsynced: true });
    expect(seen).to.deep.equal([2, 1]);
    expect(level()).to.equal(1);
  });
});
