import Database from 'better-sqlite3';
import { expect } from 'chai';
import { DomainError } from '../../../src/errors.js';
import {
  inHundredths,
  parseRounding,
  ROUNDING_RULES,
  ROUNDING_STEPS,
  roundedSecondsSql,
  roundingWords,
  roundSeconds,
  type RoundingText,
} from '../../../src/kernel/rounding.js';

/*
 * The rounding rule of billed time (issue 56 item 4): each entry's seconds, up / nearest / down
 * to a step of 1, 3, 5, 6, 10, 15, 30 or 60 minutes, or none.
 */
describe('kernel/rounding', () => {
  it('offers exactly the three modes at the eight steps, 24 rules', () => {
    expect(ROUNDING_STEPS).to.deep.equal([1, 3, 5, 6, 10, 15, 30, 60]);
    expect(ROUNDING_RULES).to.have.length(24);
    expect(ROUNDING_RULES.slice(0, 4)).to.deep.equal(['up-1', 'nearest-1', 'down-1', 'up-3']);
  });

  it('none leaves every duration as it is (today’s amounts)', () => {
    for (const seconds of [0, 1, 59, 1840, 10, 900, 86_399]) expect(roundSeconds(seconds, null)).to.equal(seconds);
  });

  for (const minutes of ROUNDING_STEPS) {
    const step = minutes * 60;
    describe(`a step of ${minutes} minute${minutes === 1 ? '' : 's'}`, () => {
      it('0 s stays 0 in every mode', () => {
        for (const mode of ['up', 'nearest', 'down'] as const) expect(roundSeconds(0, `${mode}-${minutes}`)).to.equal(0);
      });

      it('1 s: up gives a whole step, nearest and down give 0', () => {
        expect(roundSeconds(1, `up-${minutes}`)).to.equal(step);
        expect(roundSeconds(1, `nearest-${minutes}`)).to.equal(0);
        expect(roundSeconds(1, `down-${minutes}`)).to.equal(0);
      });

      it('exactly one and exactly three steps stay as they are in every mode', () => {
        for (const mode of ['up', 'nearest', 'down'] as const) {
          expect(roundSeconds(step, `${mode}-${minutes}`)).to.equal(step);
          expect(roundSeconds(3 * step, `${mode}-${minutes}`)).to.equal(3 * step);
        }
      });

      it('one second past a step: up to the next, nearest and down to the step', () => {
        expect(roundSeconds(step + 1, `up-${minutes}`)).to.equal(2 * step);
        expect(roundSeconds(step + 1, `nearest-${minutes}`)).to.equal(step);
        expect(roundSeconds(step + 1, `down-${minutes}`)).to.equal(step);
      });

      it('one second short of a step: up and nearest to it, down to the one before', () => {
        expect(roundSeconds(2 * step - 1, `up-${minutes}`)).to.equal(2 * step);
        expect(roundSeconds(2 * step - 1, `nearest-${minutes}`)).to.equal(2 * step);
        expect(roundSeconds(2 * step - 1, `down-${minutes}`)).to.equal(step);
      });

      it('nearest: exactly half a step goes up, a second less goes down', () => {
        expect(roundSeconds(step + step / 2, `nearest-${minutes}`)).to.equal(2 * step);
        expect(roundSeconds(step + step / 2 - 1, `nearest-${minutes}`)).to.equal(step);
      });
    });
  }

  it('the boundaries of 15 minutes: 15:00 stays, 15:01 and 7:30 and 22:29 as a person expects', () => {
    expect(roundSeconds(900, 'up-15')).to.equal(900);
    expect(roundSeconds(900, 'nearest-15')).to.equal(900);
    expect(roundSeconds(900, 'down-15')).to.equal(900);
    expect(roundSeconds(901, 'up-15')).to.equal(1800);
    expect(roundSeconds(450, 'nearest-15')).to.equal(900);
    expect(roundSeconds(449, 'nearest-15')).to.equal(0);
    expect(roundSeconds(1349, 'nearest-15')).to.equal(900);
    expect(roundSeconds(1350, 'nearest-15')).to.equal(1800);
  });

  it('the issue’s timer times: 30:40 (0.511111 h) and 10 s (0.002778 h)', () => {
    expect(roundSeconds(1840, 'up-6')).to.equal(2160); // 0.6 h
    expect(roundSeconds(1840, 'nearest-6')).to.equal(1800); // 0.5 h
    expect(roundSeconds(1840, 'down-1')).to.equal(1800);
    expect(roundSeconds(10, 'up-1')).to.equal(60);
    expect(roundSeconds(10, 'nearest-1')).to.equal(0);
  });

  it('an hour: 60 minutes rounds 1:29:59 to 1 h nearest and 2 h up', () => {
    expect(roundSeconds(5399, 'nearest-60')).to.equal(3600);
    expect(roundSeconds(5400, 'nearest-60')).to.equal(7200);
    expect(roundSeconds(3601, 'up-60')).to.equal(7200);
  });

  describe('parseRounding', () => {
    it('reads every rule as stored, and the ways people type them', () => {
      for (const rule of ROUNDING_RULES) expect(parseRounding(rule)).to.equal(rule);
      expect(parseRounding('Up 15')).to.equal('up-15');
      expect(parseRounding(' nearest-6min ')).to.equal('nearest-6');
      expect(parseRounding('down:5 minutes')).to.equal('down-5');
      expect(parseRounding('UP15')).to.equal('up-15');
    });

    it('none, blank and null are no rounding', () => {
      expect(parseRounding('none')).to.equal(null);
      expect(parseRounding('None')).to.equal(null);
      expect(parseRounding('  ')).to.equal(null);
      expect(parseRounding(null)).to.equal(null);
    });

    it('refuses another step, mode or kind at its field, saying what to give', () => {
      for (const bad of ['up-7', 'up-0', 'up-120', 'nearest', 'ceil-15', '15', 'up-15h', 'up--15']) {
        let error: unknown;
        try {
          parseRounding(bad, 'rounding');
        } catch (e) {
          error = e;
        }
        expect(error, bad).to.be.instanceOf(DomainError);
        expect((error as DomainError).code).to.equal('invalid');
        expect((error as DomainError).field).to.equal('rounding');
        expect((error as DomainError).message).to.contain('up-15, nearest-6 or down-1');
        expect((error as DomainError).people).to.contain('1, 3, 5, 6, 10, 15, 30 or 60 minutes');
      }
      expect(() => parseRounding(15)).to.throw(DomainError, /rounding must be none, or up, nearest or down/);
    });
  });

  it('the SQL the reports round with gives what roundSeconds gives, for every rule and the boundaries of its step', () => {
    const db = new Database(':memory:');
    db.exec('create table t (d integer not null)');
    const insert = db.prepare('insert into t (d) values (?)');
    const seconds = new Set([0, 1, 2, 59, 60, 61, 86_399, 86_400]);
    for (const minutes of ROUNDING_STEPS)
      for (const k of [1, 2, 7]) for (const delta of [-1, 0, 1]) seconds.add(k * minutes * 60 + delta).add(k * minutes * 30 + delta);
    for (const d of seconds) if (d >= 0) insert.run(d);
    const all = db.prepare('select d from t order by d').pluck().all() as number[];
    for (const rule of [null, ...ROUNDING_RULES]) {
      const sql = db
        .prepare(`select ${roundedSecondsSql('d', rule)} from t order by d`)
        .pluck()
        .all() as number[];
      expect(sql, String(rule)).to.deep.equal(all.map((d) => roundSeconds(d, rule)));
    }
    db.close();
  });

  it('says a rule in words', () => {
    expect(roundingWords(null)).to.equal('none');
    expect(roundingWords('up-15')).to.equal('up to 15 minutes');
    expect(roundingWords('nearest-6')).to.equal('to the nearest 6 minutes');
    expect(roundingWords('down-1')).to.equal('down to 1 minute');
    expect(roundingWords('up-60')).to.equal('up to 1 hour');
  });

  it('knows which steps are whole hundredths of an hour (two decimals): 3, 6, 15, 30, 60', () => {
    const whole = ROUNDING_STEPS.filter((m) => inHundredths(`up-${m}` as RoundingText));
    expect(whole).to.deep.equal([3, 6, 15, 30, 60]);
    expect(inHundredths(null)).to.equal(false);
  });
});
