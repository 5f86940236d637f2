import type { Clock } from '../clock.js';

export const WINDOW_MS = 60_000;

export interface RateLimitBudget {
  key: string;
  limit: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The binding budget's numbers, for the RateLimit-* headers. */
  limit: number;
  remaining: number;
  resetSec: number;
  /** Which budget binds: the one with the fewest requests left. */
  binding: string;
}

/**
 * Fixed 60-second windows aligned to the clock minute, counted in memory per budget key
 * (a token, a workspace). A request passes only if every budget has room, and then counts
 * against all of them; a refused request counts against none.
 */
export class RateLimiter {
  private window = -1;
  private counts = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  take(budgets: readonly RateLimitBudget[]): RateLimitDecision {
    const now = this.clock.now();
    const window = Math.floor(now / WINDOW_MS);
    if (window !== this.window) {
      // Every window starts at the same instant, so all counts reset together.
      this.window = window;
      this.counts.clear();
    }
    const resetSec = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    // Runs on every request: plain loops, no intermediate arrays.
    let exhausted: RateLimitBudget | null = null;
    for (const budget of budgets) {
      if ((this.counts.get(budget.key) ?? 0) >= budget.limit && (exhausted === null || budget.limit < exhausted.limit)) exhausted = budget;
    }
    if (exhausted !== null) return { allowed: false, limit: exhausted.limit, remaining: 0, resetSec, binding: exhausted.key };
    // The binding budget: the fewest requests left after this one, then the smaller limit.
    let binding: RateLimitBudget | null = null;
    let bindingLeft = 0;
    for (const budget of budgets) {
      const used = (this.counts.get(budget.key) ?? 0) + 1;
      this.counts.set(budget.key, used);
      const left = budget.limit - used;
      if (binding === null || left < bindingLeft || (left === bindingLeft && budget.limit < binding.limit)) {
        binding = budget;
        bindingLeft = left;
      }
    }
    if (binding === null) throw new Error('a rate limit decision needs at least one budget');
    return { allowed: true, limit: binding.limit, remaining: bindingLeft, resetSec, binding: binding.key };
  }
}
