import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../errors.js';

/** A keyset position: the sort key and id of the last row of a page. */
export interface CursorPosition {
  start: number;
  id: string;
}

const MAC_BYTES = 16;

/**
 * Opaque, tamper-evident cursors: `<payload>.<mac>` in base64url, where the payload carries the
 * position and a fingerprint of the listing (route and filters) and the MAC is HMAC-SHA256 with
 * the server key. A cursor the server did not issue, an altered one, or one sent with other
 * filters is refused with a clear 400.
 */
export function createCursorCodec(key: Buffer) {
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
  const fingerprint = (listing: string, filters: unknown) =>
    createHash('sha256').update(listing).update('\0').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);

  return {
    encode(listing: string, filters: unknown, position: CursorPosition): string {
      const payload = Buffer.from(JSON.stringify({ s: position.start, i: position.id, f: fingerprint(listing, filters) })).toString(
        'base64url',
      );
      return `${payload}.${mac(payload).toString('base64url')}`;
    },

    decode(listing: string, filters: unknown, cursor: string): CursorPosition {
      const invalid = (why: string) =>
        new DomainError('invalid', `cursor: ${why}; send the nextCursor of the previous page unchanged, with the same filters.`);
      const [payload, signature, extra] = cursor.split('.');
      if (!payload || !signature || extra !== undefined) throw invalid('is not a cursor issued by this server');
      // Compared as text: base64 decoding ignores padding and unused low bits, so two texts
      // could decode to the same MAC; only the one this server wrote is accepted.
      const expected = Buffer.from(mac(payload).toString('base64url'));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw invalid('is not a cursor issued by this server, or was altered');
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { s: number; i: string; f: string };
      if (data.f !== fingerprint(listing, filters)) throw invalid('belongs to a listing with other filters');
      return { start: data.s, id: data.i };
    },
  };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;
