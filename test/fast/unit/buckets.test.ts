import { expect } from 'chai';
import { type Bucket, MAX_RANGE_DAYS, reportRange, weekFrom } from '../../../src/modules/reports/buckets.js';
import { refusal } from '../../helpers/refusal.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BERLIN = 'Europe/Berlin';

/** Buckets as `key start end hours`, start and end in UTC, for readable exact comparisons. */
const show = (list: Bucket[]) =>
  list.map((b) => `${b.key} ${new Date(b.start).toISOString()} ${new Date(b.end).toISOString()} ${(b.end - b.start) / HOUR}h`);

const contiguous = (list: Bucket[]) => list.every((b, i) => i === 0 || b.start === list[i - 1]!.end);

describe('reports/buckets', () => {
  describe('reportRange', () => {
    it('reads calendar days in the zone, to exclusive at the end of its day', () => {
      expect(reportRange('2026-11-02', '2026-11-03', BERLIN)).to.deep.equal({
        from: Date.UTC(2026, 10, 1, 23),
        to: Date.UTC(2026, 10, 3, 23),
      });
      expect(reportRange('2026-11-02', '2026-11-02', 'America/New_York')).to.deep.equal({
        from: Date.UTC(2026, 10, 2, 5),
        to: Date.UTC(2026, 10, 3, 5),
      });
    });

    it('allows to 366 days after from (2026-01-01 to 2027-01-02: 367 whole days, 367 day buckets)', () => {
      expect(MAX_RANGE_DAYS).to.equal(366);
      const range = reportRange('2026-01-01', '2027-01-02', 'UTC');
      expect(range).to.deep.equal({ from: Date.UTC(2026, 0, 1), to: Date.UTC(2027, 0, 3) });
      expect((range.to - range.from) / DAY).to.equal(367);
    });

    it('allows 366 days after from across both Berlin DST changes', () => {
      expect(reportRange('2026-01-01', '2027-01-02', BERLIN)).to.deep.equal({
        from: Date.UTC(2025, 11, 31, 23),
        to: Date.UTC(2027, 0, 2, 23),
      });
    });

    it('refuses to 367 days after from, naming to', () => {
      const error = refusal(() => reportRange('2026-01-01', '2027-01-03', 'UTC'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('to: at most 366 days after from; split longer ranges.');
      expect(refusal(() => reportRange('2026-01-01', '2027-01-03', BERLIN)).message).to.match(/^to: /);
    });

    it('refuses from after to (parseRange)', () => {
      expect(refusal(() => reportRange('2026-11-03', '2026-11-02', BERLIN)).message).to.equal('from: must not be after to.');
    });

    it('allows date-times 366 days apart', () => {
      expect(reportRange('2026-01-01T00:00:00Z', '2027-01-02T00:00:00Z', BERLIN)).to.deep.equal({
        from: Date.UTC(2026, 0, 1),
        to: Date.UTC(2027, 0, 2),
      });
    });

    it('refuses a date-time to 367 days after from (the contract: to at most 366 days after from)', () => {
      expect(refusal(() => reportRange('2026-01-01T00:00:00Z', '2027-01-03T00:00:00Z', 'UTC')).message).to.match(/^to: /);
    });
  });

  describe('weekFrom', () => {
    it('gives 7 consecutive local days from the day, across the Berlin fall-back change', () => {
      expect(show(weekFrom('2026-10-22', BERLIN))).to.deep.equal([
        '2026-10-22 2026-10-21T22:00:00.000Z 2026-10-22T22:00:00.000Z 24h',
        '2026-10-23 2026-10-22T22:00:00.000Z 2026-10-23T22:00:00.000Z 24h',
        '2026-10-24 2026-10-23T22:00:00.000Z 2026-10-24T22:00:00.000Z 24h',
        '2026-10-25 2026-10-24T22:00:00.000Z 2026-10-25T23:00:00.000Z 25h',
        '2026-10-26 2026-10-25T23:00:00.000Z 2026-10-26T23:00:00.000Z 24h',
        '2026-10-27 2026-10-26T23:00:00.000Z 2026-10-27T23:00:00.000Z 24h',
        '2026-10-28 2026-10-27T23:00:00.000Z 2026-10-28T23:00:00.000Z 24h',
      ]);
    });

    it('starts on any weekday and crosses a month end, in UTC 7 × 24 h', () => {
      const week = weekFrom('2026-12-29', 'UTC');
      expect(week.map((b) => b.key)).to.deep.equal([
        '2026-12-29',
        '2026-12-30',
        '2026-12-31',
        '2027-01-01',
        '2027-01-02',
        '2027-01-03',
        '2027-01-04',
      ]);
      expect(week[0]!.start).to.equal(Date.UTC(2026, 11, 29));
      expect(week[6]!.end - week[0]!.start).to.equal(7 * DAY);
      expect(contiguous(week)).to.equal(true);
    });

    it('refuses a day that does not exist, naming from', () => {
      const error = refusal(() => weekFrom('2026-02-30', BERLIN));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.match(/^from: /);
    });
  });
});
