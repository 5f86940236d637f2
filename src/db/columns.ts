import { integer, text, type AnySQLiteColumn, type ReferenceConfig } from 'drizzle-orm/sqlite-core';

/*
 * The columns every module's tables repeat, built once, so that a table in a `schema.ts` says only
 * what is its own: its id, the rows it belongs to, when it was made and changed. Each call makes a
 * new column (drizzle binds a column to the one table it stands in). The SQL they give is the SQL
 * the tables gave when each wrote them out: a change here is a migration of every table.
 *
 * Timestamps are integer milliseconds since the epoch (UTC) throughout the database.
 */

/** A table's own id: a text primary key (`ent_…`, `inv_…`: the module makes it). */
export function primaryId() {
  return text('id').primaryKey();
}

/** When the row was made; never null. */
export function createdAt() {
  return integer('created_at').notNull();
}

/** When the row last changed; never null. */
export function updatedAt() {
  return integer('updated_at').notNull();
}

/** `createdAt` and `updatedAt`, in that order (spread where the two stand). */
export function timestamps() {
  return { createdAt: createdAt(), updatedAt: updatedAt() };
}

/**
 * A text column `name`, not null, that names a row of another table (`() => workspaces.id`);
 * `actions` as drizzle's `references` takes them (`{ onDelete: 'cascade' }`).
 */
export function reference<Name extends string>(name: Name, target: () => AnySQLiteColumn, actions: ReferenceConfig['actions'] = {}) {
  return text(name).notNull().references(target, actions);
}

/** A text primary key that is also a row of another table: a table of one row per workspace (its settings). */
export function referenceKey<Name extends string>(name: Name, target: () => AnySQLiteColumn) {
  return text(name).primaryKey().references(target);
}
