import type { Clock } from '../../clock.js';
import { addressKey } from '../../kernel/address.js';

/** The sign-in budgets, each in a sliding window of 15 minutes. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Attempts at one account from one client address. */
export const SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS = 5;
/** Attempts at one account from all addresses together (guessing spread over many addresses). */
export const SIGN_IN_FAILURES_PER_ACCOUNT = 100;
/** Attempts from one client address at any accounts. */
export const SIGN_IN_FAILURES_PER_ADDRESS = 20;
const MAX_KEYS = 50_000;

/** An attempt counted before its password is hashed: settled as failed, or refunded. */
export interface AttemptTicket {
  keys: string[];
  at: number;
}

/**
 * Sign-in attempts, counted in memory (one process serves the settings page). An attempt is
 * counted when it starts, before its password is hashed, so attempts in flight and failures
 * together never exceed a budget however many arrive at once; a successful one is refunded.
 *
 * The budgets: 5 per (account, address), 100 per account over all addresses, 20 per address.
 * Someone guessing at an account from one address spends only their own pair's budget: the
 * account's owner signs in from another address meanwhile. Addresses are keyed by
 * `addressKey` (an IPv6 client by its /64).
 */
export class SignInAttempts {
  private attempts = new Map<string, number[]>();

  /** The sign-in budgets by default; "Forgot your password?" counts its requests with its own (mail-links.ts). */
  constructor(
    private readonly clock: Clock,
    private readonly budgets: { perAccountAndAddress: number; perAccount: number; perAddress: number } = {
      perAccountAndAddress: SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS,
      perAccount: SIGN_IN_FAILURES_PER_ACCOUNT,
      perAddress: SIGN_IN_FAILURES_PER_ADDRESS,
    },
  ) {}

  /** Counts an attempt, or says how many seconds to wait when a budget is spent. */
  begin(account: string, address: string): { ticket: AttemptTicket } | { retryAfterSec: number } {
    const who = account.trim().toLowerCase();
    const from = addressKey(address);
    const budgets: Array<[string, number]> = [
      [`pair:${who}|${from}`, this.budgets.perAccountAndAddress],
      [`account:${who}`, this.budgets.perAccount],
      [`address:${from}`, this.budgets.perAddress],
    ];
    const wait = Math.max(...budgets.map(([key, limit]) => this.wait(key, limit)));
    if (wait > 0) return { retryAfterSec: wait };
    const at = this.clock.now();
    for (const [key] of budgets) this.add(key, at);
    return { ticket: { keys: budgets.map(([key]) => key), at } };
  }

  /** The attempt succeeded: it is refunded, and the failures of its (account, address) pair are forgiven. */
  succeeded(ticket: AttemptTicket): void {
    this.refund(ticket);
    const pair = ticket.keys[0];
    if (pair !== undefined) this.attempts.delete(pair);
  }

  /** The attempt was not made after all (the server was too busy to check it). */
  refund(ticket: AttemptTicket): void {
    for (const key of ticket.keys) {
      const list = this.attempts.get(key);
      const at = list?.indexOf(ticket.at) ?? -1;
      if (list && at >= 0) list.splice(at, 1);
    }
  }

  private recent(key: string): number[] {
    const since = this.clock.now() - SIGN_IN_WINDOW_MS;
    const list = (this.attempts.get(key) ?? []).filter((at) => at > since);
    if (list.length === 0) this.attempts.delete(key);
    else this.attempts.set(key, list);
    return list;
  }

  private wait(key: string, limit: number): number {
    const list = this.recent(key);
    if (list.length < limit) return 0;
    const oldest = list[list.length - limit] as number;
    return Math.max(1, Math.ceil((oldest + SIGN_IN_WINDOW_MS - this.clock.now()) / 1000));
  }

  private add(key: string, at: number): void {
    if (!this.attempts.has(key) && this.attempts.size >= MAX_KEYS) {
      // Bounded memory under a flood of distinct keys: forget the stalest first.
      const stalest = this.attempts.keys().next().value;
      if (stalest !== undefined) this.attempts.delete(stalest);
    }
    const list = this.recent(key);
    list.push(at);
    this.attempts.delete(key);
    this.attempts.set(key, list);
  }
}
