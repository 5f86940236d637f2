import { randomBytes, scrypt as scryptCallback, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../errors.js';

/**
 * Passwords of the settings page, hashed with scrypt (memory-hard, in Node itself): N 2^15, r 8,
 * p 1 takes 32 MiB and ~50 ms per hash, on libuv's thread pool (the event loop keeps serving).
 * The stored form names its parameters, `scrypt$N$r$p$salt$hash`, so they can be raised later
 * without invalidating older hashes.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

function scrypt(password: string, salt: Buffer, options: { N: number; r: number; p: number }): Promise<Buffer> {
  const scryptOptions: ScryptOptions = { ...options, maxmem: 128 * options.N * options.r * 2 };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, KEY_BYTES, scryptOptions, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The rules a new password must meet; the message says which one it broke. */
export function checkPassword(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN) throw new DomainError('invalid', `password must be at least ${PASSWORD_MIN} characters long.`);
  if (length > PASSWORD_MAX) throw new DomainError('invalid', `password must be at most ${PASSWORD_MAX} characters long.`);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Compares in constant time; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Hashed once at start: verified against when no account matches, so a miss costs what a hit costs. */
let dummy: Promise<string> | null = null;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}
