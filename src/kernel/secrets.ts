import { createHash, randomBytes } from 'node:crypto';

/** Links and sessions store only the SHA-256 of their secrets. */
export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** 32 CSPRNG bytes, base64url: a link's, a session's or a form's secret. */
export const secret = () => randomBytes(32).toString('base64url');
