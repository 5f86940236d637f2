import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatabaseHandle } from '../db/database.js';
import { DomainError } from '../errors.js';

/**
 * The command line never creates a database (only the server does, on its first start): a
 * missing file is most likely a mistyped DATABASE_PATH, and writing a fresh empty database there
 * would hide that. `:memory:` opens as it is.
 */
export function openExistingDatabase(path: string, open: (path: string) => DatabaseHandle): DatabaseHandle {
  if (path !== ':memory:') {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) {
      throw new DomainError(
        'not_found',
        `No database at ${resolve(path)} (DATABASE_PATH in effect: ${JSON.stringify(path)}). timetrack never creates one: the server creates it on its first start (npm start); point DATABASE_PATH at the file the server uses.`,
      );
    }
    if (!stat.isFile()) throw new DomainError('invalid', `${resolve(path)} is not a database file: check DATABASE_PATH.`);
  }
  return open(path);
}
