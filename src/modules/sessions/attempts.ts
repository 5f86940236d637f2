import type { Clock } from '../../clock.js';

/** The sign-in budgets: failed attempts per account and per client address, in a sliding window. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_FAILURES_PER_ACCOUNT = 5;
export const SIGN_IN_FAILURES_PER_ADDRESS = 20;
const MAX_KEYS = 50_000;

/**
 * Failed sign-in attempts, counted in memory (one process serves the settings page). A key with
 * its budget spent is refused until its oldest failure leaves the window; a successful sign-in
 * clears its account's failures (not its address's: one good password does not reset guessing
 * at others from the same address).
 */
export class SignInAttempts {
  private failures = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  /** Seconds until `account` and `address` may try again, or 0 when both have budget left. */
  retryAfterSec(account: string, address: string): number {
    return Math.max(
      this.wait(`account:${account.toLowerCase()}`, SIGN_IN_FAILURES_PER_ACCOUNT),
      this.wait(`address:${address}`, SIGN_IN_FAILURES_PER_ADDRESS),
    );
  }

  failed(account: string, address: string): void {
    this.add(`account:${account.toLowerCase()}`);
    this.add(`address:${address}`);
  }

  succeeded(account: string): void {
    this.failures.delete(`account:${account.toLowerCase()}`);
  }

  private recent(key: string): number[] {
    const since = this.clock.now() - SIGN_IN_WINDOW_MS;
    const list = (this.failures.get(key) ?? []).filter((at) => at > since);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  private wait(key: string, limit: number): number {
    const list = this.recent(key);
    if (list.length < limit) return 0;
    const oldest = list[list.length - limit] as number;
    return Math.max(1, Math.ceil((oldest + SIGN_IN_WINDOW_MS - this.clock.now()) / 1000));
  }

  private add(key: string): void {
    if (!this.failures.has(key) && this.failures.size >= MAX_KEYS) {
      // Bounded memory under a flood of distinct keys: forget the stalest first.
      const stalest = this.failures.keys().next().value;
      if (stalest !== undefined) this.failures.delete(stalest);
    }
    const list = this.recent(key);
    list.push(this.clock.now());
    this.failures.delete(key);
    this.failures.set(key, list);
  }
}
