import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * A random, URL-safe id with a readable type prefix (`ws_…`, `usr_…`). 20 characters of base 36
 * carry about 103 bits: ids are not sequential and leak no counts across workspaces.
 */
export function newId(prefix: string): string {
  return `${prefix}_${randomString(20, ALPHABET)}`;
}

/** Unbiased random string over `alphabet` (rejection sampling on CSPRNG bytes). */
export function randomString(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}
