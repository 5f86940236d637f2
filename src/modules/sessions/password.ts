import { randomBytes, scrypt as scryptCallback, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../errors.js';
import { words } from '../../i18n/index.js';

/**
 * Passwords of the settings page, hashed with scrypt (memory-hard, in Node itself): N 2^15, r 8,
 * p 1 takes 32 MiB and ~50 ms per hash, on libuv's thread pool (the event loop keeps serving).
 * The stored form names its parameters, `scrypt$N$r$p$salt$hash`, so they can be raised later
 * without invalidating older hashes.
 */
export interface HashCost {
  N: number;
  r: number;
  p: number;
}
/** What every deployment hashes with. Only the test helpers pass a lower cost (`ServiceOptions.passwordCost`). */
export const PASSWORD_COST: HashCost = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/**
 * Hashes running at once, and waiting for a turn. scrypt runs on libuv's thread pool (4 threads),
 * which compression and the webhook sender's name lookups also use: a burst of sign-ins must not
 * fill it. Past both, a hash is refused at once (the page answers 503 with Retry-After).
 */
export const HASHES_AT_ONCE = 2;
export const HASHES_WAITING = 8;

/** Too many password checks at once: try again in a second. */
export class HashingBusy extends Error {
  override name = 'HashingBusy';
  readonly retryAfterSec = 1;
}

let running = 0;
const waiting: Array<() => void> = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASHES_AT_ONCE) {
    if (waiting.length >= HASHES_WAITING) throw new HashingBusy('too many password checks at once');
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await work();
  } finally {
    // The slot passes to the next in line, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function scrypt(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = { ...options, maxmem: 128 * options.N * options.r * 2 };
  return slot(
    () =>
      new Promise((resolve, reject) => {
        scryptCallback(password.normalize('NFC'), salt, KEY_BYTES, scryptOptions, (error, key) => (error ? reject(error) : resolve(key)));
      }),
  );
}

/** The rules a new password must meet; the message says which one it broke. */
export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN)
    throw new DomainError('invalid', `password must be at least ${PASSWORD_MIN} characters long.`, {
      field: 'password',
      words: words('auth.passwordShort', { min: PASSWORD_MIN }),
    });
  if (length > PASSWORD_MAX)
    throw new DomainError('invalid', `password must be at most ${PASSWORD_MAX} characters long.`, {
      field: 'password',
      words: words('auth.passwordLong', { max: PASSWORD_MAX }),
    });
}

/** The stored form of a new password, hashed at `cost` (named in it, so verifying needs no setting). */
export async function hashPassword(password: string, cost: HashCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash to verify against when no account matches, so a miss costs what a hit costs: made
 * when the sign-in page starts (`start()`), not at the first unknown email, which would
 * otherwise take two hashes' time and tell itself apart.
 */
export function createDummyHash(cost: HashCost = PASSWORD_COST) {
  let dummy: Promise<string> | null = null;
  let ready = false;
  const start = (): Promise<string> => {
    dummy ??= hashPassword(randomBytes(16).toString('hex'), cost).then((hash) => {
      ready = true;
      return hash;
    });
    return dummy;
  };
  return { start, get: start, ready: () => ready };
}
