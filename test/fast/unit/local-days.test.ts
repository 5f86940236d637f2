import { expect } from 'chai';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import Database from 'better-sqlite3';
import { bucketKey, localDayOf, localDaySql, offsetStretches } from '../../../src/kernel/local-days.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The local calendar date of an instant in a zone, by luxon. */
const localDate = (ms: number, zone: string) => DateTime.fromMillis(ms, { zone }).toISODate() as string;
const dayOfDate = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY;

describe('reports/local-days', () => {
  describe('offsetStretches', () => {
    it('UTC over a year is one stretch', () => {
      expect(offsetStretches(Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1), 'UTC')).to.deep.equal([
        { from: Date.UTC(2026, 0, 1), offsetMs: 0 },
      ]);
    });

    it('Berlin over 2026 changes at 01:00 UTC on 2026-03-29 and 2026-10-25, to the millisecond', () => {
      expect(offsetStretches(Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1), 'Europe/Berlin')).to.deep.equal([
        { from: Date.UTC(2026, 0, 1), offsetMs: HOUR },
        { from: Date.UTC(2026, 2, 29, 1), offsetMs: 2 * HOUR },
        { from: Date.UTC(2026, 9, 25, 1), offsetMs: HOUR },
      ]);
    });

    it('Lord Howe Island changes by half an hour', () => {
      const stretches = offsetStretches(Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1), 'Australia/Lord_Howe');
      expect(stretches.map((s) => s.offsetMs / 60_000)).to.deep.equal([660, 630, 660]);
    });
  });

  describe('bucketKey', () => {
    const day = dayOfDate('2026-03-29'); // a Sunday
    it('day: the local date', () => expect(bucketKey('day', day)).to.equal('2026-03-29'));
    it('month: the local month', () => expect(bucketKey('month', day)).to.equal('2026-03'));
    it('week from Monday: a Sunday belongs to the week of the Monday before', () => expect(bucketKey('week', day)).to.equal('2026-03-23'));
    it('week from Sunday: a Sunday starts its week', () => expect(bucketKey('week', day, 'sunday')).to.equal('2026-03-29'));
    it('a Monday starts a Monday week; days before 1970 too', () => {
      expect(bucketKey('week', dayOfDate('2026-03-30'))).to.equal('2026-03-30');
      expect(bucketKey('week', dayOfDate('1900-01-03'))).to.equal('1900-01-01');
      expect(bucketKey('week', dayOfDate('1900-01-03'), 'sunday')).to.equal('1899-12-31');
    });
  });

  describe('localDaySql, evaluated by SQLite', () => {
    const sqlite = new Database(':memory:');
    after(() => sqlite.close());
    /** The local day SQLite computes for the instant, over the stretches of [from, to) in the zone. */
    const statements = new Map<string, Database.Statement>();
    const sqlDay = (ms: number, from: number, to: number, zone: string): number => {
      const key = `${from} ${to} ${zone}`;
      let statement = statements.get(key);
      if (!statement) {
        statement = sqlite.prepare(
          `select ${localDaySql('t', offsetStretches(from, to, zone))} as d from (select cast(? as integer) as t)`,
        );
        statements.set(key, statement);
      }
      return (statement.get(ms) as { d: number }).d;
    };

    it('gives luxon’s local date at the edges of the Berlin DST days', () => {
      const from = Date.UTC(2026, 0, 1);
      const to = Date.UTC(2027, 0, 1);
      for (const iso of [
        '2026-03-28T22:59:59.999Z',
        '2026-03-28T23:00:00Z',
        '2026-03-29T00:59:59.999Z',
        '2026-03-29T01:00:00Z',
        '2026-03-29T21:59:59.999Z',
        '2026-03-29T22:00:00Z',
        '2026-10-24T21:59:59Z',
        '2026-10-24T22:00:00Z',
        '2026-10-25T00:30:00Z',
        '2026-10-25T01:30:00Z',
        '2026-10-25T22:59:59.999Z',
        '2026-10-25T23:00:00Z',
      ]) {
        const ms = Date.parse(iso);
        expect(sqlDay(ms, from, to, 'Europe/Berlin'), iso).to.equal(dayOfDate(localDate(ms, 'Europe/Berlin')));
      }
    });

    it('agrees with luxon for any instant of a year in zones with odd or changing offsets (property)', () => {
      const zones = [
        'UTC',
        'Europe/Berlin',
        'America/New_York',
        'Asia/Kolkata',
        'Asia/Kathmandu',
        'Australia/Lord_Howe',
        'Pacific/Chatham',
        'America/St_Johns',
      ];
      fc.assert(
        fc.property(
          fc.constantFrom(...zones),
          fc.integer({ min: Date.UTC(1905, 0, 1), max: Date.UTC(2090, 0, 1) }),
          fc.integer({ min: 0, max: 366 * DAY - 1 }),
          (zone, from, within) => {
            const to = from + 366 * DAY;
            const ms = from + within;
            expect(sqlDay(ms, from, to, zone)).to.equal(dayOfDate(localDate(ms, zone)));
            expect(localDayOf(ms, zone)).to.equal(dayOfDate(localDate(ms, zone)));
          },
        ),
        { seed: 11, numRuns: 100 },
      );
    });

    it('is exact in a year whose offset is not a whole number of minutes (Africa/Monrovia, 1971: −00:44:30 until 1972)', () => {
      const from = Date.UTC(1971, 0, 1);
      const to = Date.UTC(1972, 11, 31);
      for (let ms = Date.UTC(1971, 11, 31, 23); ms < Date.UTC(1972, 0, 2); ms += 1000 * 61) {
        expect(sqlDay(ms, from, to, 'Africa/Monrovia')).to.equal(dayOfDate(localDate(ms, 'Africa/Monrovia')));
      }
    });
  });
});
