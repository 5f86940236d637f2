import { expect } from 'chai';
import { newId, newTimeId } from '../../../src/ids.js';

describe('ids', () => {
  it('random ids: a prefix and 20 base-36 characters, never the same', () => {
    const ids = Array.from({ length: 1000 }, () => newId('ws'));
    for (const id of ids) expect(id).to.match(/^ws_[0-9a-z]{20}$/);
    expect(new Set(ids).size).to.equal(1000);
  });

  it('time-ordered ids (entries): the same shape, sorted by the millisecond they were made, random within it', () => {
    const made = 1_764_000_000_000;
    const ids = [made + 5, made, made + 1, made + 86_400_000, made].map((ms) => newTimeId('ent', ms));
    for (const id of ids) expect(id).to.match(/^ent_[0-9a-z]{20}$/);
    expect(ids[1]?.slice(0, 12)).to.equal(`ent_${made.toString(36)}`);
    expect([ids[1], ids[2], ids[0], ids[3]].map(String)).to.deep.equal([...[ids[1], ids[2], ids[0], ids[3]].map(String)].sort());
    // Two in the same millisecond differ in their random part.
    expect(ids[1]).to.not.equal(ids[4]);
    expect(new Set(Array.from({ length: 1000 }, () => newTimeId('ent', made))).size).to.equal(1000);
  });
});

describe('delivery ids', () => {
  it('24 lowercase hex characters, sorted by the millisecond they were made, random within it', async () => {
    const { newDeliveryId } = await import('../../../src/modules/webhooks/crypto.js');
    const made = 1_764_000_000_000;
    const ids = [made + 1, made, made + 60_000].map((ms) => newDeliveryId(ms));
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{24}$/);
    expect(ids[1]?.slice(0, 11)).to.equal(made.toString(16).padStart(11, '0'));
    expect([ids[1], ids[0], ids[2]]).to.deep.equal([...ids].sort());
    expect(new Set(Array.from({ length: 1000 }, () => newDeliveryId(made))).size).to.equal(1000);
  });
});
