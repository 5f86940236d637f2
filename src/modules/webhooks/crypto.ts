import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** A subscription's signing secret: `whsec_` and 32 random bytes in base64url. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

/**
 * A delivery id: 24 lowercase hex characters, the millisecond it was made (11) and 52 random bits
 * (13): a write's deliveries land at the end of their table's primary key, not on random pages.
 */
export const newDeliveryId = (now = Date.now()): string =>
  `${now.toString(16).padStart(11, '0')}${randomBytes(7).toString('hex').slice(0, 13)}`;

/** `v1=` + hex HMAC-SHA256 keyed with the secret string's UTF-8 bytes, over `<timestamp>.<body>`. */
export function signature(secret: string, timestamp: number, body: string | Buffer): string {
  return `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex')}`;
}

const SEALED = 'v2.';

/**
 * A subscription's secret at rest: AES-256-GCM with the webhook-secrets subkey, bound to the
 * subscription's id as associated data (a ciphertext copied onto another subscription does not
 * open). `v2.` and base64url of iv (12) | tag (16) | ciphertext.
 */
export function encryptSecret(key: Buffer, webhookId: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** Opens what encryptSecret sealed for this subscription; throws when the key, the id or the bytes differ. */
export function decryptSecret(key: Buffer, webhookId: string, sealed: string): string {
  if (!sealed.startsWith(SEALED)) throw new Error('not a v2 sealed secret');
  return open(key, Buffer.from(sealed.slice(SEALED.length), 'base64url'), webhookId);
}

/** Whether a stored secret is in the form written before subkeys (the server key itself, no id bound). */
export const isLegacySealed = (sealed: string): boolean => !sealed.startsWith(SEALED);

/** Opens a secret sealed before subkeys: AES-256-GCM with the server key, no associated data. */
export function decryptLegacySecret(serverKey: Buffer, sealed: string): string {
  return open(serverKey, Buffer.from(sealed, 'base64url'), null);
}

function open(key: Buffer, raw: Buffer, webhookId: string | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  if (webhookId !== null) decipher.setAAD(Buffer.from(webhookId, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
