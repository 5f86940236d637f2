import { expect } from 'chai';
import {
  canonicalTimeZone,
  DAY_MS,
  dayEnd,
  dayStart,
  EARLIEST_INSTANT,
  LATEST_INSTANT,
  parseCalendarDay,
  parseInstant,
  parseRange,
  parseRangeBound,
  secondsBetween,
} from '../../../src/kernel/time.js';
import { translator } from '../../../src/i18n/index.js';
import { refusal } from '../../helpers/refusal.js';

const HOUR = 3_600_000;

describe('kernel/time', () => {
  describe('parseCalendarDay', () => {
    it('returns the parts of a real calendar day', () => {
      expect(parseCalendarDay('2026-11-02', 'from')).to.deep.equal({ year: 2026, month: 11, day: 2 });
    });

    it('accepts 29 February in a leap year', () => {
      expect(parseCalendarDay('2024-02-29', 'from')).to.deep.equal({ year: 2024, month: 2, day: 29 });
    });

    it('refuses days that do not exist, with code invalid and the field name first', () => {
      for (const value of ['2026-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-04-31', '2026-01-00']) {
        const error = refusal(() => parseCalendarDay(value, 'from'));
        expect(error.code, value).to.equal('invalid');
        expect(error.message, value).to.equal(`from: "${value}" is not a calendar day (YYYY-MM-DD, a date that exists).`);
      }
    });

    it('refuses text that is not of the form YYYY-MM-DD', () => {
      for (const value of ['2026-1-02', '26-11-02', '2026-11-02T00:00:00Z', ' 2026-11-02', '2026/11/02', '']) {
        expect(refusal(() => parseCalendarDay(value, 'to')).message, value).to.match(/^to: /);
      }
    });

    it('refuses a two-digit year written with leading zeros (Date would read 0050 as 1950)', () => {
      expect(refusal(() => parseCalendarDay('0050-01-01', 'from')).code).to.equal('invalid');
    });
  });

  describe('dayStart and dayEnd', () => {
    it('reads a calendar day in UTC by default', () => {
      expect(dayStart('2026-11-02', 'from')).to.equal(Date.UTC(2026, 10, 2));
      expect(dayEnd('2026-11-02', 'to')).to.equal(Date.UTC(2026, 10, 3));
    });

    it('reads a calendar day in the given zone', () => {
      expect(dayStart('2026-11-02', 'from', 'Europe/Berlin')).to.equal(Date.UTC(2026, 10, 1, 23));
      expect(dayEnd('2026-11-02', 'to', 'Europe/Berlin')).to.equal(Date.UTC(2026, 10, 2, 23));
      expect(dayStart('2026-11-02', 'from', 'America/New_York')).to.equal(Date.UTC(2026, 10, 2, 5));
      expect(dayEnd('2026-11-02', 'to', 'America/New_York')).to.equal(Date.UTC(2026, 10, 3, 5));
    });

    it('a UTC day is 24 hours', () => {
      expect(dayEnd('2026-03-29', 'to', 'UTC') - dayStart('2026-03-29', 'from', 'UTC')).to.equal(DAY_MS);
    });

    it('the Berlin spring-forward day 2026-03-29 is 23 hours', () => {
      expect(dayStart('2026-03-29', 'from', 'Europe/Berlin')).to.equal(Date.UTC(2026, 2, 28, 23));
      expect(dayEnd('2026-03-29', 'to', 'Europe/Berlin')).to.equal(Date.UTC(2026, 2, 29, 22));
      expect(dayEnd('2026-03-29', 'to', 'Europe/Berlin') - dayStart('2026-03-29', 'from', 'Europe/Berlin')).to.equal(23 * HOUR);
    });

    it('the Berlin fall-back day 2026-10-25 is 25 hours', () => {
      expect(dayStart('2026-10-25', 'from', 'Europe/Berlin')).to.equal(Date.UTC(2026, 9, 24, 22));
      expect(dayEnd('2026-10-25', 'to', 'Europe/Berlin')).to.equal(Date.UTC(2026, 9, 25, 23));
      expect(dayEnd('2026-10-25', 'to', 'Europe/Berlin') - dayStart('2026-10-25', 'from', 'Europe/Berlin')).to.equal(25 * HOUR);
    });

    it('New York DST days 2026-03-08 and 2026-11-01 are 23 and 25 hours', () => {
      const length = (day: string) => dayEnd(day, 'to', 'America/New_York') - dayStart(day, 'from', 'America/New_York');
      expect(length('2026-03-08')).to.equal(23 * HOUR);
      expect(length('2026-11-01')).to.equal(25 * HOUR);
      expect(length('2026-11-02')).to.equal(24 * HOUR);
    });

    it('refuses a day that does not exist, naming the field', () => {
      const error = refusal(() => dayStart('2026-02-30', 'from', 'Europe/Berlin'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.match(/^from: /);
      expect(refusal(() => dayEnd('2026-02-30', 'to')).message).to.match(/^to: /);
    });

    it('refuses days outside the years 1900 to 9998', () => {
      expect(dayStart('1900-01-01', 'from')).to.equal(EARLIEST_INSTANT);
      expect(refusal(() => dayStart('1899-12-31', 'from')).message).to.equal('from: "1899-12-31" lies outside the years 1900 to 9998.');
      expect(refusal(() => dayStart('9999-01-01', 'from')).message).to.equal('from: "9999-01-01" lies outside the years 1900 to 9998.');
    });
  });

  describe('parseInstant', () => {
    it('reads a date-time with Z', () => {
      expect(parseInstant('2026-11-02T09:00:00Z', 'start')).to.equal(Date.UTC(2026, 10, 2, 9));
    });

    it('reads a date-time with a positive or negative offset', () => {
      expect(parseInstant('2026-11-02T09:00:00+01:00', 'start')).to.equal(Date.UTC(2026, 10, 2, 8));
      expect(parseInstant('2026-11-02T09:00:00-05:30', 'start')).to.equal(Date.UTC(2026, 10, 2, 14, 30));
    });

    it('keeps milliseconds', () => {
      expect(parseInstant('2026-11-02T09:00:00.250Z', 'start')).to.equal(Date.UTC(2026, 10, 2, 9, 0, 0, 250));
    });

    it('an offset may move the instant to another UTC day (the local date is what must exist)', () => {
      expect(parseInstant('2026-02-28T23:30:00-01:00', 'start')).to.equal(Date.UTC(2026, 2, 1, 0, 30));
    });

    it('refuses an impossible date instead of rolling it over, with code invalid and the field name first', () => {
      const error = refusal(() => parseInstant('2026-02-30T00:00:00Z', 'start'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('start: "2026-02-30T00:00:00Z" is not a date-time that exists (the calendar has no such day).');
    });

    it('refuses text that is no date-time', () => {
      expect(refusal(() => parseInstant('yesterday', 'end')).message).to.equal(
        'end: "yesterday" is not a date-time: send YYYY-MM-DDThh:mm:ss with Z or an offset, e.g. "2026-11-02T09:00:00+01:00".',
      );
    });

    it('accepts the first instant of 1900 and the last second of 9998', () => {
      expect(parseInstant('1900-01-01T00:00:00Z', 'start')).to.equal(EARLIEST_INSTANT);
      expect(parseInstant('9998-12-31T23:59:59Z', 'start')).to.equal(LATEST_INSTANT - 1000);
    });

    it('refuses instants before 1900', () => {
      const error = refusal(() => parseInstant('1899-12-31T23:59:59Z', 'start'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('start: "1899-12-31T23:59:59Z" lies outside the years 1900 to 9998.');
      // 1900-01-01 local, but 1899 in UTC.
      expect(refusal(() => parseInstant('1900-01-01T00:30:00+01:00', 'start')).code).to.equal('invalid');
    });

    it('refuses instants from the year 9999 on', () => {
      const error = refusal(() => parseInstant('9999-01-01T00:00:00Z', 'end'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('end: "9999-01-01T00:00:00Z" lies outside the years 1900 to 9998.');
    });
  });

  describe('parseRangeBound', () => {
    it('a calendar day as a start is the start of that day', () => {
      expect(parseRangeBound('2026-11-02', 'from', false)).to.equal(Date.UTC(2026, 10, 2));
    });

    it('a calendar day as an end is the start of the next day', () => {
      expect(parseRangeBound('2026-11-02', 'to', true)).to.equal(Date.UTC(2026, 10, 3));
    });

    it('a calendar day is read in the zone', () => {
      expect(parseRangeBound('2026-11-02', 'from', false, 'Europe/Berlin')).to.equal(Date.UTC(2026, 10, 1, 23));
      expect(parseRangeBound('2026-10-25', 'to', true, 'Europe/Berlin')).to.equal(Date.UTC(2026, 9, 25, 23));
    });

    it('a date-time is the same instant as a start and as an end, whatever the zone', () => {
      expect(parseRangeBound('2026-11-02T10:00:00Z', 'from', false, 'Europe/Berlin')).to.equal(Date.UTC(2026, 10, 2, 10));
      expect(parseRangeBound('2026-11-02T10:00:00Z', 'to', true, 'Europe/Berlin')).to.equal(Date.UTC(2026, 10, 2, 10));
    });

    it("reads an offset whose '+' arrived as a space as '+'", () => {
      expect(parseRangeBound('2026-11-02T10:00:00 01:00', 'from', false)).to.equal(Date.UTC(2026, 10, 2, 9));
      expect(parseRangeBound('2026-11-02T10:00:00 01:00', 'from', false)).to.equal(
        parseRangeBound('2026-11-02T10:00:00+01:00', 'from', false),
      );
    });

    it('keeps a negative offset', () => {
      expect(parseRangeBound('2026-11-02T10:00:00-01:00', 'to', true)).to.equal(Date.UTC(2026, 10, 2, 11));
    });

    it('refuses an impossible calendar day or date-time, naming the field', () => {
      expect(refusal(() => parseRangeBound('2026-02-30', 'to', true)).message).to.match(/^to: /);
      expect(refusal(() => parseRangeBound('2026-02-30T10:00:00 01:00', 'from', false)).message).to.match(/^from: /);
    });
  });

  describe('parseRange', () => {
    it('gives [from, to) with calendar days read as whole days', () => {
      expect(parseRange('2026-11-02', '2026-11-04')).to.deep.equal({ from: Date.UTC(2026, 10, 2), to: Date.UTC(2026, 10, 5) });
    });

    it('the same calendar day as from and to is that one day', () => {
      expect(parseRange('2026-11-02', '2026-11-02')).to.deep.equal({ from: Date.UTC(2026, 10, 2), to: Date.UTC(2026, 10, 3) });
    });

    it('reads calendar days in the zone', () => {
      expect(parseRange('2026-03-29', '2026-03-29', 'Europe/Berlin')).to.deep.equal({
        from: Date.UTC(2026, 2, 28, 23),
        to: Date.UTC(2026, 2, 29, 22),
      });
    });

    it('refuses from after to', () => {
      const error = refusal(() => parseRange('2026-11-02T10:00:00Z', '2026-11-02T09:00:00Z'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('from: must not be after to.');
    });

    it('refuses from=2026-11-03&to=2026-11-02 although the end of the 2nd is the start of the 3rd', () => {
      expect(dayEnd('2026-11-02', 'to')).to.equal(dayStart('2026-11-03', 'from'));
      const error = refusal(() => parseRange('2026-11-03', '2026-11-02'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('from: must not be after to.');
      // Its words for pages, in the reader's language (issue 58).
      expect(translator('de')(error.words!.key, error.words!.vars)).to.equal(
        'Der Anfang liegt nach dem Ende: Wählen Sie einen Anfang am oder vor dem Ende.',
      );
    });

    it('allows two equal date-times (an empty range)', () => {
      expect(parseRange('2026-11-02T10:00:00Z', '2026-11-02T10:00:00Z')).to.deep.equal({
        from: Date.UTC(2026, 10, 2, 10),
        to: Date.UTC(2026, 10, 2, 10),
      });
    });

    it('mixes a calendar day and a date-time', () => {
      expect(parseRange('2026-11-02', '2026-11-02T12:00:00 01:00')).to.deep.equal({
        from: Date.UTC(2026, 10, 2),
        to: Date.UTC(2026, 10, 2, 11),
      });
    });
  });

  describe('canonicalTimeZone', () => {
    it('gives the canonical spelling of a zone name written in another case', () => {
      expect(canonicalTimeZone('europe/berlin')).to.equal('Europe/Berlin');
      expect(canonicalTimeZone('AMERICA/NEW_YORK')).to.equal('America/New_York');
      expect(canonicalTimeZone('utc')).to.equal('UTC');
    });

    it('keeps a canonical name as it is', () => {
      expect(canonicalTimeZone('Europe/Berlin')).to.equal('Europe/Berlin');
    });

    it('refuses a name that is no IANA zone, naming timeZone by default', () => {
      const error = refusal(() => canonicalTimeZone('Mars/Olympus'));
      expect(error.code).to.equal('invalid');
      expect(error.message).to.equal('timeZone: "Mars/Olympus" is not an IANA time zone name such as Europe/Berlin.');
    });

    it('refuses names with characters no zone has, naming the given field', () => {
      for (const value of ['', ' Europe/Berlin', 'Europe/Berlin ', '../etc/passwd', 'Europe\\Berlin']) {
        expect(refusal(() => canonicalTimeZone(value, 'zone')).message, value).to.match(/^zone: /);
      }
    });
  });

  describe('secondsBetween', () => {
    it('counts whole seconds, rounding down', () => {
      expect(secondsBetween(0, 60_000)).to.equal(60);
      expect(secondsBetween(0, 1999)).to.equal(1);
      expect(secondsBetween(1000, 1999)).to.equal(0);
    });

    it('is never negative', () => {
      expect(secondsBetween(5000, 1000)).to.equal(0);
      expect(secondsBetween(5000, 4999)).to.equal(0);
    });
  });
});

describe('kernel/time: programming errors', () => {
  it('dayStart with a zone that is not one throws instead of returning NaN (callers canonicalise zones first)', () => {
    expect(() => dayStart('2026-01-01', 'from', 'Mars/Olympus')).to.throw('dayStart: Mars/Olympus is not a zone');
  });
});
