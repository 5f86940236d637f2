import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A message's bodies and attachments as stored until it is sent. */
export interface Content {
  text: string;
  html: string;
  attachments: Attachment[];
  /** The From display name for this message (an invoice's issuer), instead of MAIL_FROM's; the address stays MAIL_FROM's. */
  fromName?: string | null;
  /** Reply-To (an invoice's issuer's email), or none. */
  replyTo?: { address: string; name: string | null } | null;
}

/** A file sent with a message (an invoice's PDF, later): its name, media type and bytes. */
export interface Attachment {
  name: string;
  type: string;
  bytes: Buffer;
}

/**
 * A message's content at rest: AES-256-GCM with the mail subkey, bound to the message's id as
 * associated data (the bodies carry a link's secret, which is otherwise stored only hashed).
 * base64url of iv (12) | tag (16) | ciphertext of the JSON.
 */
export function seal(key: Buffer, id: string, content: Content): string {
  const json = JSON.stringify({
    text: content.text,
    html: content.html,
    attachments: content.attachments.map((a) => ({ name: a.name, type: a.type, data: a.bytes.toString('base64') })),
    ...(content.fromName ? { fromName: content.fromName } : {}),
    ...(content.replyTo ? { replyTo: content.replyTo } : {}),
  });
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(id, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
}

/** Opens what `seal` sealed for this message; throws when the key, the id or the bytes differ. */
export function unseal(key: Buffer, id: string, sealed: string): Content {
  const raw = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(id, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  const parsed = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as {
    text: string;
    html: string;
    attachments: Array<{ name: string; type: string; data: string }>;
    fromName?: string;
    replyTo?: { address: string; name: string | null };
  };
  return {
    text: parsed.text,
    html: parsed.html,
    attachments: parsed.attachments.map((a) => ({ name: a.name, type: a.type, bytes: Buffer.from(a.data, 'base64') })),
    fromName: parsed.fromName ?? null,
    replyTo: parsed.replyTo ?? null,
  };
}
