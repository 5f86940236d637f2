import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import { checkDayTotal, durationOf, LongDay, spanOf, timerStartOf } from '../../../src/web/kit/times.js';

/** The refusal a call throws: its class, code, field and words (or null). */
const refusalOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { long: error instanceof LongDay, code: error.code, field: error.field, people: error.people ?? error.message };
  }
  return null;
};

/*
 * The one duration rule of every page (issue 58 item 2; docs/pages.md "One duration rule"): a
 * bare number is hours everywhere (the week's Add time, the timesheet's cells, the timer's start
 * "ago"), and a day's total over 24 hours is refused, over 12 asked again.
 */
describe('web kit: the one duration rule', () => {
  it('reads a bare number as hours, on every page alike: 30 is thirty hours, never thirty minutes', () => {
    const cases: Array<[string, number]> = [
      ['30', 30 * 3600],
      ['2', 7200],
      ['1.5', 5400],
      ['1,5', 5400],
      ['.5', 1800],
      ['0,25', 900],
      [' 2 ', 7200],
      ['2h', 7200],
      ['2 h', 7200],
      ['1.5h', 5400],
      ['2 hours', 7200],
      ['90m', 5400],
      ['90 min', 5400],
      ['45 minutes', 2700],
      ['1:30', 5400],
      ['0:45', 2700],
      ['1:30:15', 5415],
      ['1h30', 5400],
      ['1h 30m', 5400],
      ['1H30M', 5400],
    ];
    for (const [typed, seconds] of cases) expect(durationOf(typed), typed).to.equal(seconds);
  });

  it('refuses what is no duration, at the field named, saying how to type hours and minutes', () => {
    expect(refusalOf(() => durationOf('lots', 'cell:x:2026-11-02'))).to.deep.equal({
      long: false,
      code: 'invalid',
      field: 'cell:x:2026-11-02',
      people: '“lots” is not a duration. Type hours as 2 or 1.5, minutes as 90m, or both as 1:30.',
    });
    for (const typed of ['1:75', '-2', '2d', '1..5', '']) expect(refusalOf(() => durationOf(typed))?.code, typed).to.equal('invalid');
    expect(refusalOf(() => durationOf('0'))?.people).to.equal('The duration is zero. Type how long you worked, such as 1:30.');
  });

  it('the week’s Add time reads its duration by the same rule (2 is two hours)', () => {
    const span = spanOf({ day: '2026-11-02', start: '09:00', end: '', duration: '2', nextDay: false }, 'UTC');
    expect((span.end - span.start) / 1000).to.equal(7200);
  });

  it('the timer’s start “ago” is a duration by the same rule: −15m fifteen minutes, −2 two hours; a time of day stays a time', () => {
    const now = Date.parse('2026-11-02T10:00:00Z');
    const at = (typed: string) => new Date(timerStartOf(typed, now, 'UTC')).toISOString();
    expect(at('-15m')).to.equal('2026-11-02T09:45:00.000Z');
    expect(at('−15m')).to.equal('2026-11-02T09:45:00.000Z');
    expect(at('15 min ago')).to.equal('2026-11-02T09:45:00.000Z');
    expect(at('-2')).to.equal('2026-11-02T08:00:00.000Z');
    expect(at('-1:30')).to.equal('2026-11-02T08:30:00.000Z');
    expect(at('9')).to.equal('2026-11-02T09:00:00.000Z');
    expect(at('09:12')).to.equal('2026-11-02T09:12:00.000Z');
    expect(refusalOf(() => timerStartOf('-soon', now, 'UTC'))?.field).to.equal('start');
  });

  it('a day’s total: up to 12 hours passes, over 12 is asked again unless confirmed, over 24 is refused even when confirmed', () => {
    const day = 'Monday 2 November';
    expect(refusalOf(() => checkDayTotal(12 * 3600, day, false, 'duration'))).to.equal(null);
    expect(refusalOf(() => checkDayTotal(12 * 3600 + 60, day, false, 'duration'))).to.deep.equal({
      long: true,
      code: 'conflict',
      field: 'duration',
      people:
        'That makes 12:01 on Monday 2 November, more than 12 hours. If that is right, save it again with “Yes, save 12:01”; else change it (2 is two hours, 90m is minutes).',
    });
    expect(refusalOf(() => checkDayTotal(12 * 3600 + 60, day, true, 'duration'))).to.equal(null);
    expect(refusalOf(() => checkDayTotal(24 * 3600, day, true, 'duration'))).to.equal(null);
    for (const confirmed of [false, true])
      expect(refusalOf(() => checkDayTotal(30 * 3600, day, confirmed, 'end'))).to.deep.equal({
        long: false,
        code: 'invalid',
        field: 'end',
        people:
          'That makes 30:00 on Monday 2 November, more than the 24 hours a day has: nothing was saved. Check the duration (2 is two hours; type 90m for minutes).',
      });
  });
});
