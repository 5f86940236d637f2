import type Database from 'better-sqlite3';
import { fold } from '../kernel/fold.js';
import { amountCents } from '../kernel/money.js';

/** The SQL functions every connection (and every migration) may call. */
export function registerFunctions(sqlite: Database.Database): void {
  // Unicode-aware case folding for description search (SQLite's lower() knows only ASCII); the
  // search index holds descriptions folded by it (migration 0007, entries/search-index.ts).
  sqlite.function('tt_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? fold(text) : text));
  // The exact amount rule (kernel/money.ts), for migrations that compute amounts in SQL.
  sqlite.function('tt_amount_cents', { deterministic: true }, (billable: unknown, rate: unknown, seconds: unknown) =>
    typeof seconds === 'number' ? amountCents(billable === 1, typeof rate === 'number' ? rate : null, seconds) : null,
  );
}
