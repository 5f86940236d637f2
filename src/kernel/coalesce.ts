/**
 * A job that overlapping calls share: a call while it runs gets the running one's promise and
 * asks for one more pass after it (what came in meanwhile is picked up), so ticks of a scheduler
 * and nudges after commits never run it twice at once. The mail and webhook senders' tick.
 */
export function coalescing(run: () => Promise<void>): { tick(): Promise<void>; idle(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  return {
    tick(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        try {
          do {
            again = false;
            await run();
          } while (again);
        } finally {
          running = null;
        }
      })();
      return running;
    },
    /** Settles when no pass runs (at once when none does). */
    idle: (): Promise<void> => running ?? Promise.resolve(),
  };
}
