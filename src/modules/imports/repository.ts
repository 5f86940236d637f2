import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.js';
import { flushBatch } from '../../db/durability.js';
import { importCreated, importFingerprints, imports } from './schema.js';
import { preparedOnFirstUse } from '../../db/prepared.js';

export type ImportRow = typeof imports.$inferSelect;
export type CreatedKind = (typeof importCreated.$inferSelect)['kind'];

const p = (name: string) => sql.placeholder(name);

/** Every SQL statement of the imports module, over its own tables (imports, their fingerprints, what they created). */
export function createImportsRepository(db: Db) {
  const statements = preparedOnFirstUse(db, {
    // The keys alone answer (covering searches of the primary key; the rows themselves are not
    // read), a batch of them a statement: one call for hundreds of rows of a file.
    knownFingerprints: () =>
      db
        .select({ fingerprint: importFingerprints.fingerprint })
        .from(importFingerprints)
        .where(
          and(
            eq(importFingerprints.workspaceId, p('workspaceId')),
            sql`${importFingerprints.fingerprint} IN (SELECT value FROM json_each(${p('fingerprints')}))`,
          ),
        )
        .prepare(),
    addFingerprint: () =>
      db
        .insert(importFingerprints)
        .values({ workspaceId: p('workspaceId'), fingerprint: p('fingerprint'), importId: p('importId') })
        .onConflictDoNothing()
        .prepare(),
    byId: () =>
      db
        .select()
        .from(imports)
        .where(eq(imports.id, p('id')))
        .prepare(),
  });
  return {
    /**
     * The connection's durability (PRAGMA synchronous: 1 NORMAL, 2 FULL), and a way to set it: an
     * import writes its batches with NORMAL (no sync per batch) and syncs when it is done.
     */
    synchronous: (): number => (db.get<{ synchronous: number }>(sql`PRAGMA synchronous`) as { synchronous: number }).synchronous,
    setSynchronous: (level: number): void => {
      flushBatch(db.$client); // a pragma cannot change inside the server's open batch of writes
      db.run(sql.raw(`PRAGMA synchronous = ${Math.trunc(level)}`));
    },
    /** How many WAL pages a commit of this connection lets grow before it checkpoints (PRAGMA wal_autocheckpoint). */
    walAutocheckpoint: (): number =>
      (db.get<{ wal_autocheckpoint: number }>(sql`PRAGMA wal_autocheckpoint`) as { wal_autocheckpoint: number }).wal_autocheckpoint,
    setWalAutocheckpoint: (pages: number): void => {
      flushBatch(db.$client); // a pragma cannot change inside the server's open batch of writes
      db.run(sql.raw(`PRAGMA wal_autocheckpoint = ${Math.trunc(pages)}`));
    },
    /** Where SQLite keeps its temporary data (statement journals): 0 default (files), 2 memory. */
    tempStore: (): number => (db.get<{ temp_store: number }>(sql`PRAGMA temp_store`) as { temp_store: number }).temp_store,
    setTempStore: (mode: number): void => {
      flushBatch(db.$client); // a pragma cannot change inside the server's open batch of writes
      db.run(sql.raw(`PRAGMA temp_store = ${Math.trunc(mode)}`));
    },
    /** The connection's page cache in KiB (PRAGMA cache_size, negative: KiB), and a way to set it. */
    cacheKib: (): number => -(db.get<{ cache_size: number }>(sql`PRAGMA cache_size`) as { cache_size: number }).cache_size,
    setCacheKib: (kib: number): void => {
      flushBatch(db.$client); // a pragma cannot change inside the server's open batch of writes
      db.run(sql.raw(`PRAGMA cache_size = ${-Math.trunc(kib)}`));
    },
    insert: (values: typeof imports.$inferInsert): void => {
      db.insert(imports).values(values).run();
    },
    update: (id: string, values: Partial<typeof imports.$inferInsert>): void => {
      db.update(imports).set(values).where(eq(imports.id, id)).run();
    },
    byId: (id: string): ImportRow | undefined => statements.byId.get({ id }),
    ofWorkspace: (workspaceId: string, limit = 100): ImportRow[] =>
      db
        .select()
        .from(imports)
        .where(eq(imports.workspaceId, workspaceId))
        .orderBy(desc(imports.startedAt), desc(imports.id))
        .limit(limit)
        .all(),
    running: (): ImportRow[] => db.select().from(imports).where(eq(imports.state, 'running')).all(),
    /** Which of these rows an earlier import into the workspace wrote already. */
    knownFingerprints: (workspaceId: string, fingerprints: string[]): Set<string> =>
      new Set(statements.knownFingerprints.all({ workspaceId, fingerprints: JSON.stringify(fingerprints) }).map((r) => r.fingerprint)),
    /** Records the row as written by the import; false when an import wrote it already (a duplicate). */
    addFingerprint: (workspaceId: string, fingerprint: string, importId: string): boolean =>
      statements.addFingerprint.run({ workspaceId, fingerprint, importId }).changes > 0,
    /** Forgets up to `limit` rows of an import (undone or failed: its rows count as not imported). */
    deleteFingerprints: (importId: string, limit: number): number =>
      db.run(
        sql`DELETE FROM ${importFingerprints} WHERE rowid IN (SELECT rowid FROM ${importFingerprints} WHERE ${importFingerprints.importId} = ${importId} LIMIT ${limit})`,
      ).changes,
    addCreated: (importId: string, kind: CreatedKind, id: string): void => {
      db.insert(importCreated).values({ importId, kind, id }).onConflictDoNothing().run();
    },
    created: (importId: string): Array<{ kind: CreatedKind; id: string }> =>
      db.select({ kind: importCreated.kind, id: importCreated.id }).from(importCreated).where(eq(importCreated.importId, importId)).all(),
  };
}

export type ImportsRepository = ReturnType<typeof createImportsRepository>;
