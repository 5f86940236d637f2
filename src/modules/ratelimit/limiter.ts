import type { Clock } from '../../clock.js';

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
    const states = budgets.map((budget) => ({ budget, used: this.counts.get(budget.key) ?? 0 }));
    const exhausted = states.filter((s) => s.used >= s.budget.limit);
    if (exhausted.length > 0) {
      const binding = exhausted.reduce((a, b) => (b.budget.limit < a.budget.limit ? b : a));
      return { allowed: false, limit: binding.budget.limit, remaining: 0, resetSec, binding: binding.budget.key };
    }
    for (const s of states) this.counts.set(s.budget.key, s.used + 1);
    const binding = states.reduce((a, b) => {
      const left = (s: typeof a) => s.budget.limit - s.used - 1;
      return left(b) < left(a) || (left(b) === left(a) && b.budget.limit < a.budget.limit) ? b : a;
    });
    return {
      allowed: true,
      limit: binding.budget.limit,
      remaining: binding.budget.limit - binding.used - 1,
      resetSec,
      binding: binding.budget.key,
    };
  }
}
