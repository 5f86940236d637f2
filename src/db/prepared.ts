/*
 * Prepared statements made at their first use instead of with their repository: a process
 * prepares only the statements it runs. Every repository is made at every start, the command
 * line's too, and making all their statements (Drizzle building each query, SQLite compiling it)
 * cost 26-40 ms of a `timetrack` command's ~300 ms, which runs one or two of them. A statement
 * that cannot be prepared throws at its first use; `prepareEvery` makes those still unmade, which
 * `npm run sql` does before its tour (its checked-in SQL lists every statement, and `npm test`'s
 * check of it prepares them all).
 */

/** The makers of each connection's statements, for prepareEvery (held as long as the connection's repositories). */
const makersOf = new WeakMap<object, Array<() => unknown>>();

function register(db: object, make: () => unknown): void {
  let makers = makersOf.get(db);
  if (!makers) makersOf.set(db, (makers = []));
  makers.push(make);
}

/** A statement over `db` made by the first call, the same one returned after. */
export function onFirstUse<T>(db: object, make: () => T): () => T {
  let made: T | undefined;
  const get = () => (made ??= make());
  register(db, get);
  return get;
}

/**
 * An object of statements over `db`, each made by its maker when the property is first read; from
 * then on the property is the statement itself (a plain value: no cost on later reads).
 */
export function preparedOnFirstUse<M extends Record<string, () => unknown>>(
  db: object,
  makers: M,
): { readonly [K in keyof M]: ReturnType<M[K]> } {
  const statements = {} as { [K in keyof M]: ReturnType<M[K]> };
  for (const [name, make] of Object.entries(makers)) {
    Object.defineProperty(statements, name, {
      configurable: true,
      enumerable: true,
      get() {
        const made = make();
        Object.defineProperty(statements, name, { value: made, enumerable: true });
        return made;
      },
    });
    register(db, () => statements[name as keyof M]);
  }
  return statements;
}

/** Makes every statement over `db` not made yet (scripts/sql.ts, after its tour). */
export function prepareEvery(db: object): void {
  for (const make of makersOf.get(db) ?? []) make();
}
