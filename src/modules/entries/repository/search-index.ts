import { sql } from 'drizzle-orm';
import type { Db } from '../../../db/database.js';

/**
 * The description search index's catch-up. Writes queue the rowids of the entries they insert,
 * edit or delete (entries_fts_pending, by triggers); this moves a batch of them into entries_fts
 * in one transaction: the old text out (by rowid), the current text in (none for a deleted
 * entry). One FTS5 segment per batch instead of one per write; searches read the queued entries
 * as candidates meanwhile (filters.ts).
 */
export function createSearchIndexQueries(db: Db) {
  return {
    /** Indexes up to `size` queued entries (inside a write); returns how many were taken from the queue. */
    catchUp(size: number): number {
      {
        // The batch: the queue's first `size` rowids (all of it when shorter).
        const bound =
          db.get<{ rowid: number } | undefined>(
            sql`select entry_rowid as rowid from entries_fts_pending order by entry_rowid limit 1 offset ${size - 1}`,
          )?.rowid ?? Number.MAX_SAFE_INTEGER;
        db.run(sql`delete from entries_fts where rowid in (select entry_rowid from entries_fts_pending where entry_rowid <= ${bound})`);
        // CROSS JOIN keeps the queue the outer loop: with a plain join the planner carried the
        // bound over to entries' rowid and read every entry (103 ms each tick at 1M entries, on
        // the request thread, with the write lock held, even with an empty queue).
        db.run(sql`insert into entries_fts (rowid, folded)
          select e.rowid, tt_fold(e.description) || char(1, 1)
            from entries_fts_pending p cross join entries e on e.rowid = p.entry_rowid
           where p.entry_rowid <= ${bound}`);
        return db.run(sql`delete from entries_fts_pending where entry_rowid <= ${bound}`).changes;
      }
    },

    /** Entries queued and not yet indexed. */
    pending: (): number => db.get<{ n: number }>(sql`select count(*) as n from entries_fts_pending`).n,
  };
}

export type SearchIndexQueries = ReturnType<typeof createSearchIndexQueries>;
