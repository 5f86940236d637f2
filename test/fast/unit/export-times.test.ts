import { expect } from 'chai';
import fc from 'fast-check';
import { isoDateTime, isoDay } from '../../../src/modules/reports/export/model.js';

// The exports' day and time texts are made from cached days and arithmetic (issue 60): the same
// text as Date's ISO form, for every instant from 1900 to 9998, the first and last millisecond
// of a day, and before 1970.
describe("exports' day and time texts", () => {
  const reference = (local: number) => {
    const iso = new Date(local).toISOString();
    return { day: iso.slice(0, 10), dateTime: `${iso.slice(0, 10)} ${iso.slice(11, 19)}` };
  };
  const from = Date.UTC(1900, 0, 1);
  const to = Date.UTC(9998, 11, 31, 23, 59, 59, 999);

  it("is Date's ISO day and time for any instant from 1900 to 9998", () => {
    fc.assert(
      fc.property(fc.integer({ min: from, max: to }), (local) => {
        expect(isoDay(local)).to.equal(reference(local).day);
        expect(isoDateTime(local)).to.equal(reference(local).dateTime);
      }),
      { numRuns: 5000, seed: 20261204 },
    );
  });

  it('keeps a day whole to its last millisecond, also before 1970 and on a leap day', () => {
    for (const day of [Date.UTC(2026, 10, 23), Date.UTC(1969, 11, 31), Date.UTC(1900, 0, 1), Date.UTC(2024, 1, 29)]) {
      for (const local of [day, day + 1, day + 999, day + 86_399_999]) {
        expect(isoDay(local)).to.equal(reference(local).day);
        expect(isoDateTime(local)).to.equal(reference(local).dateTime);
      }
    }
    expect(isoDateTime(Date.UTC(1969, 11, 31, 23, 59, 59, 999))).to.equal('1969-12-31 23:59:59');
    expect(isoDateTime(Date.UTC(2026, 10, 23, 9, 5, 0))).to.equal('2026-11-23 09:05:00');
  });
});
