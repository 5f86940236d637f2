import { expect } from 'chai';
import { createCursorCodec } from '../../../src/kernel/cursor.js';
import { refusal } from '../../helpers/refusal.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const FILTERS = { from: 1, to: 2, filters: { tagIds: ['a', 'b'], billable: false } };
const POSITION = { start: 1_793_610_000_000, id: 'ent_01' };

const ALTERED = 'is not a cursor issued by this server, or was altered;';

describe('kernel/cursor', () => {
  const codec = createCursorCodec(KEY);
  const cursor = codec.encode('entries', FILTERS, POSITION);

  it('has the form <payload>.<mac> in base64url', () => {
    expect(cursor).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
  });

  it('decodes what it encoded, with the same listing and filters', () => {
    expect(codec.decode('entries', FILTERS, cursor)).to.deep.equal(POSITION);
  });

  it('decodes with an equal filters object built anew', () => {
    const again = { from: 1, to: 2, filters: { tagIds: ['a', 'b'], billable: false } };
    expect(codec.decode('entries', again, cursor)).to.deep.equal(POSITION);
  });

  it('a codec built with the same key decodes it (cursors survive a restart)', () => {
    expect(createCursorCodec(Buffer.alloc(32, 7)).decode('entries', FILTERS, cursor)).to.deep.equal(POSITION);
  });

  it('refuses a cursor used with another listing name', () => {
    const error = refusal(() => codec.decode('reports', FILTERS, cursor));
    expect(error.code).to.equal('invalid');
    expect(error.message).to.contain('other filters');
    expect(error.message).to.equal(
      'cursor: belongs to a listing with other filters; send the nextCursor of the previous page unchanged, with the same filters.',
    );
  });

  it('refuses a cursor used with other filters', () => {
    for (const filters of [
      { from: 1, to: 3, filters: { tagIds: ['a', 'b'], billable: false } },
      { from: 1, to: 2, filters: { tagIds: ['a'], billable: false } },
      { from: 1, to: 2, filters: { tagIds: ['a', 'b'] } },
      {},
    ]) {
      const error = refusal(() => codec.decode('entries', filters, cursor));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.contain('other filters');
    }
  });

  it('refuses a tampered payload (another position under the old MAC)', () => {
    const [payload, mac] = cursor.split('.') as [string, string];
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...data, s: 0 })).toString('base64url');
    const error = refusal(() => codec.decode('entries', FILTERS, `${forged}.${mac}`));
    expect(error.code).to.equal('invalid');
    expect(error.message).to.contain(ALTERED);
  });

  it('refuses a tampered MAC', () => {
    const [payload, mac] = cursor.split('.') as [string, string];
    const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    expect(refusal(() => codec.decode('entries', FILTERS, `${payload}.${flipped}`)).message).to.contain(ALTERED);
    expect(refusal(() => codec.decode('entries', FILTERS, `${payload}.${mac.slice(0, -2)}`)).message).to.contain(ALTERED);
  });

  it('refuses a cursor issued with another key', () => {
    const foreign = createCursorCodec(OTHER_KEY).encode('entries', FILTERS, POSITION);
    expect(foreign).to.not.equal(cursor);
    const error = refusal(() => codec.decode('entries', FILTERS, foreign));
    expect(error.code).to.equal('invalid');
    expect(error.message).to.contain(ALTERED);
  });

  it("refuses 'abc' and other text of the wrong shape", () => {
    for (const text of ['abc', '', '.', 'abc.', '.abc', `${cursor}.x`]) {
      const error = refusal(() => codec.decode('entries', FILTERS, text));
      expect(error.code, text).to.equal('invalid');
      expect(error.message, text).to.equal(
        'cursor: is not a cursor issued by this server; send the nextCursor of the previous page unchanged, with the same filters.',
      );
    }
  });

  // Buffer.from(…, 'base64url') ignores '=' and the 4 unused low bits of the 22nd character: the MAC is compared as text.
  it('refuses a MAC text altered in ways the base64 decoder ignores (trailing =, unused low bits)', () => {
    const [payload, mac] = cursor.split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet[alphabet.indexOf(mac.at(-1) as string) ^ 1] as string;
    expect(refusal(() => codec.decode('entries', FILTERS, `${payload}.${mac}=`)).code).to.equal('invalid');
    expect(refusal(() => codec.decode('entries', FILTERS, `${payload}.${mac.slice(0, -1)}${last}`)).code).to.equal('invalid');
  });
});
