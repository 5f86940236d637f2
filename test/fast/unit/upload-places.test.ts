import { expect } from 'chai';
import { createUploadPlaces } from '../../../src/threads/uploads.js';

/*
 * The places of uploads read into memory at once (issue 57: the Expenses page's receipts): at
 * most N per member and M in all; a place given back frees it once, however often it is given back.
 */
describe('upload places', () => {
  it('gives at most 2 places per member and 3 in all, and frees each once when given back', () => {
    const places = createUploadPlaces({ perMember: 2, total: 3 });
    const a1 = places.take('ada');
    const a2 = places.take('ada');
    expect([a1, a2].every((p) => p !== null)).to.equal(true);
    expect(places.take('ada')).to.equal(null);
    const b1 = places.take('bea');
    expect(b1).to.not.equal(null);
    // All three taken: Cleo, who holds none, waits too.
    expect(places.take('cleo')).to.equal(null);
    expect([places.inUse(), places.inUse('ada'), places.inUse('bea')]).to.deep.equal([3, 2, 1]);
    a1!.release();
    a1!.release();
    expect([places.inUse(), places.inUse('ada')]).to.deep.equal([2, 1]);
    const c1 = places.take('cleo');
    expect(c1).to.not.equal(null);
    expect(places.take('ada')).to.equal(null);
    for (const p of [a2, b1, c1]) p!.release();
    expect(places.inUse()).to.equal(0);
  });
});
