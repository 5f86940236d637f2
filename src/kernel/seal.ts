import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A value sealed with a 32-byte subkey (AES-256-GCM), bound to a context (associated data: a
 * sealed value copied into another context does not open). base64url of iv (12) | tag (16) |
 * ciphertext.
 */
export function seal(key: Buffer, context: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** What `seal` sealed in this context with this key, or null when the key, the context or a byte differs. */
export function unseal(key: Buffer, context: string, sealed: string): string | null {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length < 28) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
