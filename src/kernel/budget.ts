/**
 * One budget mechanism, over any store of uses (issue 44, M5): at most `limit` uses of a key in
 * any `windowMs` (a sliding window). The mail module's budgets (who may cause how much mail) and
 * the sign-in and reset budgets of the sessions module both count with it, each over a table of
 * its own, so no budget starts afresh when the server restarts.
 */
export interface BudgetWindow {
  limit: number;
  windowMs: number;
}

/**
 * How long until one more use fits, in ms (0: now), from the key's newest uses within the window,
 * newest first (at most `limit` of them are needed).
 */
export function budgetWaitMs(newestFirst: readonly number[], window: BudgetWindow, now: number): number {
  if (newestFirst.length < window.limit) return 0;
  const oldestCounted = newestFirst[window.limit - 1] as number;
  return Math.max(0, oldestCounted + window.windowMs - now);
}

/** A wait in whole seconds, at least one (Retry-After). */
export const retryAfterSec = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** A window or a wait in words: "a minute", "10 minutes", "an hour", "a day"; waits: "40 seconds", "12 minutes", "3 hours". */
export function durationWords(ms: number): string {
  const sec = retryAfterSec(ms);
  const unit = (n: number, one: string, article: string) => (n === 1 ? `${article} ${one}` : `${n} ${one}s`);
  if (sec < 60) return sec === 1 ? 'a second' : `${sec} seconds`;
  if (sec < 3600) return unit(Math.ceil(sec / 60), 'minute', 'a');
  if (sec < 86_400) return unit(Math.ceil(sec / 3600), 'hour', 'an');
  return unit(Math.ceil(sec / 86_400), 'day', 'a');
}
