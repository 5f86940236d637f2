import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
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
  const read = (): Buffer => {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
    return key;
  };
  if (existsSync(file)) return read();
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32);
  // Written whole under another name, then linked into place: two processes starting at once (two
  // commands, or a command beside the server's first start) agree on one key, and neither reads a
  // file the other has opened but not yet written.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(temp, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(temp, 0o600);
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return read();
  } finally {
    unlinkSync(temp);
  }
  return key;
}
