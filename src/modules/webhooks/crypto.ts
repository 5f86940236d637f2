import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** A subscription's signing secret: `whsec_` and 32 random bytes in base64url. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/** A delivery id: 24 lowercase hex characters. */
export const newDeliveryId = (): string => randomBytes(12).toString('hex');

/** `v1=` + hex HMAC-SHA256 keyed with the secret string's UTF-8 bytes, over `<timestamp>.<body>`. */
export function signature(secret: string, timestamp: number, body: string | Buffer): string {
  return `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/** AES-256-GCM with the server key: base64url of iv (12) | tag (16) | ciphertext. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
