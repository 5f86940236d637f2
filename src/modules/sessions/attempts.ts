import type { Clock } from '../../clock.js';
import { addressKey } from '../../kernel/address.js';
import { budgetWaitMs, retryAfterSec } from '../../kernel/budget.js';

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

/** Where attempts are counted: the database (the server: they outlive a restart), or memory (tests of the rules alone). */
export interface AttemptStore {
  /** The newest attempts of a key after `since`, newest first, at most `limit`. */
  recent(key: string, since: number, limit: number): number[];
  /** One attempt under each key. */
  add(keys: string[], at: number): void;
  /** One attempt of a key at `at` (a refund). */
  remove(key: string, at: number): void;
  /** Every attempt of a key (its failures forgiven). */
  clear(key: string): void;
}

/** Attempts in memory, at most 50,000 keys (the stalest forgotten first). */
export function memoryAttempts(): AttemptStore {
  const attempts = new Map<string, number[]>();
  return {
    recent: (key, since, limit) =>
      (attempts.get(key) ?? [])
        .filter((at) => at > since)
        .reverse()
        .slice(0, limit),
    add(keys, at) {
      for (const key of keys) {
        if (!attempts.has(key) && attempts.size >= MAX_KEYS) {
          const stalest = attempts.keys().next().value;
          if (stalest !== undefined) attempts.delete(stalest);
        }
        const list = (attempts.get(key) ?? []).filter((t) => t > at - SIGN_IN_WINDOW_MS);
        list.push(at);
        attempts.delete(key);
        attempts.set(key, list);
      }
    },
    remove(key, at) {
      const list = attempts.get(key);
      const found = list?.indexOf(at) ?? -1;
      if (list && found >= 0) list.splice(found, 1);
    },
    clear: (key) => void attempts.delete(key),
  };
}

/**
 * Sign-in attempts, counted in the sessions module's table by the server (so a restart starts no
 * budget afresh: issue 44), with the one budget mechanism of src/kernel/budget.ts. An attempt is
 * counted when it starts, before its password is hashed, so attempts in flight and failures
 * together never exceed a budget however many arrive at once; a successful one is refunded.
 *
 * The budgets: 5 per (account, address), 100 per account over all addresses, 20 per address.
 * Someone guessing at an account from one address spends only their own pair's budget: the
 * account's owner signs in from another address meanwhile. Addresses are keyed by
 * `addressKey` (an IPv6 client by its /64).
 */
export class SignInAttempts {
  /** The sign-in budgets by default; "Forgot your password?" counts its requests with its own (mail-links.ts). */
  constructor(
    private readonly clock: Clock,
    private readonly budgets: { perAccountAndAddress: number; perAccount: number; perAddress: number } = {
      perAccountAndAddress: SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS,
      perAccount: SIGN_IN_FAILURES_PER_ACCOUNT,
      perAddress: SIGN_IN_FAILURES_PER_ADDRESS,
    },
    private readonly store: AttemptStore = memoryAttempts(),
    /** A prefix of the keys: sign-ins and reset requests count in one store apart. */
    private readonly kind = 'sign-in',
  ) {}

  /** Counts an attempt, or says how many seconds to wait when a budget is spent. */
  begin(account: string, address: string): { ticket: AttemptTicket } | { retryAfterSec: number } {
    const who = account.trim().toLowerCase();
    const from = addressKey(address);
    const budgets: Array<[string, number]> = [
      [`${this.kind}:pair:${who}|${from}`, this.budgets.perAccountAndAddress],
      [`${this.kind}:account:${who}`, this.budgets.perAccount],
      [`${this.kind}:address:${from}`, this.budgets.perAddress],
    ];
    const now = this.clock.now();
    const wait = Math.max(
      ...budgets.map(([key, limit]) =>
        budgetWaitMs(this.store.recent(key, now - SIGN_IN_WINDOW_MS, limit), { limit, windowMs: SIGN_IN_WINDOW_MS }, now),
      ),
    );
    if (wait > 0) return { retryAfterSec: retryAfterSec(wait) };
    const keys = budgets.map(([key]) => key);
    this.store.add(keys, now);
    return { ticket: { keys, at: now } };
  }

  /** The attempt succeeded: it is refunded, and the failures of its (account, address) pair are forgiven. */
  succeeded(ticket: AttemptTicket): void {
    this.refund(ticket);
    const pair = ticket.keys[0];
    if (pair !== undefined) this.store.clear(pair);
  }

  /** The attempt was not made after all (the server was too busy to check it). */
  refund(ticket: AttemptTicket): void {
    for (const key of ticket.keys) this.store.remove(key, ticket.at);
  }
}
