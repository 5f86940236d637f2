import { hkdfSync } from 'node:crypto';

/** What a subkey is for: each use of the server key gets its own, so no two uses share a key. */
export type KeyPurpose = 'cursor-signing' | 'webhook-secrets' | 'mail-bodies' | 'oidc-tokens' | 'oidc-state';

/**
 * A 32-byte subkey of the server key for one purpose (HKDF-SHA256, RFC 5869, with a fixed salt
 * and the purpose as its label). Knowing one subkey tells nothing of the others or of the key.
 */
export function subkey(serverKey: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', serverKey, 'timetrack', `timetrack/v1 ${purpose}`, 32));
}
