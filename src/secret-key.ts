import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The server key (32 bytes) that signs cursors and encrypts webhook secrets at rest.
 * From SECRET_KEY when set (any string, hashed to 32 bytes); else from `secret.key` beside the
 * database, created on first use with mode 0600; for an in-memory database, random per process.
 */
export function loadSecretKey(databasePath: string, configured: string | undefined): Buffer {
  if (configured !== undefined) return createHash('sha256').update(configured, 'utf8').digest();
  if (databasePath === ':memory:') return randomBytes(32);
  const file = join(dirname(databasePath), 'secret.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
    return key;
  }
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
