import type Database from 'better-sqlite3';

/**
 * What a connection could read differently now than at an earlier call: it moves when another
 * connection (another process, a thread) has committed since (`PRAGMA data_version`), or when
 * this connection has changed rows (`total_changes()`, which a rollback does not take back), and
 * stands still otherwise. One statement, no table read: what an in-memory copy of rows (the
 * token check's) compares before it trusts itself.
 */
export function changeStamp(sqlite: Database.Database): () => string {
  const statement = sqlite.prepare('SELECT (SELECT data_version FROM pragma_data_version()), total_changes()').raw(true);
  return () => {
    const [version, changes] = statement.get() as [number, number];
    return `${version}/${changes}`;
  };
}
