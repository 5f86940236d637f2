/*
 * Prepared statements made at their first use instead of with their repository: a process
 * prepares only the statements it runs. Every repository is made at every start, the command
 * line's too, and making all their statements (Drizzle building each query, SQLite compiling it)
 * cost ~25 ms of a `timetrack` command's ~270 ms, which runs one or two of them. A statement that
 * cannot be prepared throws at its first use (every one is run by the tests).
 */

/** A statement (or anything costly to make) made by the first call, the same one returned after. */
export function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

/**
 * An object of statements, each made by its maker when the property is first read; from then on
 * the property is the statement itself (a plain value: no cost on later reads).
 */
export function preparedOnFirstUse<M extends Record<string, () => unknown>>(makers: M): { readonly [K in keyof M]: ReturnType<M[K]> } {
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
  }
  return statements;
}
