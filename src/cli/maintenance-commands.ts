/* `timetrack backup` and `timetrack restore`: the database file itself, not the services. */
import { backupTo, restoreFrom } from '../db/backup.js';
import type { DatabaseHandle } from '../db/database.js';
import { DomainError } from '../errors.js';
import { parse, required } from './args.js';
import { str } from './command.js';

export interface MaintenanceContext {
  /** DATABASE_PATH as in effect (undefined where the caller has none: in-process tests). */
  databasePath: string | undefined;
  /** Opens the existing database (never creates one). */
  openDatabase(): DatabaseHandle;
  now: Date;
}

export interface MaintenanceCommand {
  usage: string;
  summary: string;
  details: string;
  run(args: string[], context: MaintenanceContext): Record<string, unknown>;
}

export const maintenanceCommands: Record<string, MaintenanceCommand> = {
  backup: {
    usage: 'backup --to FILE',
    summary: 'Copy the database while the server runs, check the copy, and print its size and last event.',
    details:
      'The copy is the database as of one commit (SQLite VACUUM INTO; the server keeps writing meanwhile), compacted, written to FILE with mode 0600. FILE must not exist. The copy is then opened and checked (integrity_check). Prints {path, bytes, lastEventSeq, integrity}. Keep the key file (secret.key, or SECRET_KEY) with it: webhook secrets and paging cursors need it.',
    run(args, context) {
      const to = required(parse(args, { to: str }, 0).values, 'to');
      const database = context.openDatabase();
      try {
        return { ...backupTo(database.sqlite, to) };
      } finally {
        database.close();
      }
    },
  },
  restore: {
    usage: 'restore --from FILE',
    summary: 'Put a backup in place of the database (the server must be stopped); the replaced file is kept beside it.',
    details:
      'Refused while a server uses the database. FILE must open, pass integrity_check, be a timetrack database and not come from a newer version. The current database and its -wal and -shm are renamed to <database>.replaced-<time> (never deleted); the backup is copied in with mode 0600. Prints {restoredFrom, databasePath, replacedKeptAt, lastEventSeq, pendingMigrations}: a backup from an older version is migrated when the server next starts.',
    run(args, context) {
      const from = required(parse(args, { from: str }, 0).values, 'from');
      if (context.databasePath === undefined) throw new DomainError('invalid', 'restore needs DATABASE_PATH.');
      return { ...restoreFrom(from, context.databasePath, context.now) };
    },
  },
};
