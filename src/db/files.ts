import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A permission narrowed at start: what it was, what it is now (octal strings, for the log). */
export interface Tightened {
  path: string;
  from: string;
  to: string;
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/**
 * The database holds every workspace's time, rates and webhook secrets: its folder is 0700 and
 * the database file 0600, like the key file beside it. SQLite creates the -wal and -shm files
 * with the mode of the database file, so they follow. A new folder and file are created so; an
 * existing folder or files readable by others are tightened, and each change is returned for
 * the log. A folder we do not own, or a sticky one (/tmp), is left as it is.
 */
export function secureDatabaseFiles(path: string): Tightened[] {
  const folder = dirname(path);
  const changed: Tightened[] = [];
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  else {
    const stat = statSync(folder);
    const ours = typeof process.getuid !== 'function' || stat.uid === process.getuid();
    const sticky = (stat.mode & 0o1000) !== 0;
    if (ours && !sticky && (stat.mode & 0o077) !== 0) {
      chmodSync(folder, (stat.mode & 0o700) | 0o700);
      changed.push({ path: folder, from: octal(stat.mode), to: octal(0o700) });
    }
  }
  // An empty file is a valid new database: SQLite takes its mode for the -wal and -shm files.
  if (!existsSync(path)) closeSync(openSync(path, 'wx', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    const mode = statSync(file).mode;
    if ((mode & 0o077) === 0) continue;
    chmodSync(file, 0o600);
    changed.push({ path: file, from: octal(mode), to: '0600' });
  }
  return changed;
}
