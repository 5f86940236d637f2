import { expect } from 'chai';
import { ManualClock } from '../../../src/clock.js';
import { RateLimiter, WINDOW_MS } from '../../../src/http/rate-limiter.js';

const TOKEN = { key: 'token:t1', limit: 3 };
const WORKSPACE = { key: 'workspace:w1', limit: 5 };

describe('ratelimit/limiter RateLimiter', () => {
  let clock: ManualClock;
  let limiter: RateLimiter;
  beforeEach(() => {
    // 30 s into a window.
    clock = new ManualClock(10 * WINDOW_MS + 30_000);
    limiter = new RateLimiter(clock);
  });

  it('windows are 60 seconds', () => {
    expect(WINDOW_MS).to.equal(60_000);
  });

  it('counts down the tighter budget and names it in binding', () => {
    const seen = [1, 2, 3].map(() => limiter.take([TOKEN, WORKSPACE]));
    expect(seen).to.deep.equal([
      { allowed: true, limit: 3, remaining: 2, resetSec: 30, binding: 'token:t1' },
      { allowed: true, limit: 3, remaining: 1, resetSec: 30, binding: 'token:t1' },
      { allowed: true, limit: 3, remaining: 0, resetSec: 30, binding: 'token:t1' },
    ]);
  });

  it('refuses once the tighter budget is used up, naming it', () => {
    for (let i = 0; i < 3; i++) limiter.take([TOKEN, WORKSPACE]);
    expect(limiter.take([TOKEN, WORKSPACE])).to.deep.equal({ allowed: false, limit: 3, remaining: 0, resetSec: 30, binding: 'token:t1' });
  });

  it('the order of the budgets does not matter', () => {
    expect(limiter.take([WORKSPACE, TOKEN]).binding).to.equal('token:t1');
  });

  it('the binding budget is the one with the fewest requests left, not the smaller limit', () => {
    const other = { key: 'token:t2', limit: 10 };
    // Another token of the workspace uses 3 of its 5.
    for (let i = 0; i < 3; i++) limiter.take([other, WORKSPACE]);
    // token:t1 has 2 left after this request, the workspace 1: the workspace binds.
    expect(limiter.take([TOKEN, WORKSPACE])).to.deep.equal({
      allowed: true,
      limit: 5,
      remaining: 1,
      resetSec: 30,
      binding: 'workspace:w1',
    });
  });

  it('on a tie of requests left, the smaller limit binds', () => {
    const a = { key: 'a', limit: 3 };
    const b = { key: 'b', limit: 4 };
    limiter.take([b]);
    // Both have 2 left after this request.
    expect(limiter.take([b, a])).to.deep.equal({ allowed: true, limit: 3, remaining: 2, resetSec: 30, binding: 'a' });
  });

  it('refuses when another budget of the request is used up, naming that one', () => {
    const other = { key: 'token:t2', limit: 3 };
    limiter.take([TOKEN, WORKSPACE]);
    limiter.take([TOKEN, WORKSPACE]);
    limiter.take([other, WORKSPACE]);
    limiter.take([other, WORKSPACE]);
    limiter.take([other, WORKSPACE]);
    // token:t1 has 1 left, the workspace none.
    expect(limiter.take([TOKEN, WORKSPACE])).to.deep.equal({
      allowed: false,
      limit: 5,
      remaining: 0,
      resetSec: 30,
      binding: 'workspace:w1',
    });
  });

  it('when several budgets are used up, the refusal names the smaller limit', () => {
    const small = { key: 'token:s', limit: 2 };
    const shared = { key: 'workspace:s', limit: 2 };
    limiter.take([small, shared]);
    limiter.take([small, shared]);
    expect(limiter.take([shared, { key: 'token:s', limit: 1 }]).binding).to.equal('token:s');
    expect(limiter.take([small, shared])).to.deep.equal({ allowed: false, limit: 2, remaining: 0, resetSec: 30, binding: 'token:s' });
  });

  it('a refused request counts against no budget', () => {
    const other = { key: 'token:t2', limit: 10 };
    for (let i = 0; i < 3; i++) limiter.take([TOKEN, WORKSPACE]);
    // Refused by token:t1 five times: the workspace still has 2 left.
    for (let i = 0; i < 5; i++) expect(limiter.take([TOKEN, WORKSPACE]).allowed).to.equal(false);
    expect(limiter.take([other, WORKSPACE])).to.deep.equal({
      allowed: true,
      limit: 5,
      remaining: 1,
      resetSec: 30,
      binding: 'workspace:w1',
    });
  });

  it('budgets of other keys are counted apart', () => {
    for (let i = 0; i < 3; i++) limiter.take([TOKEN]);
    expect(limiter.take([{ key: 'token:t2', limit: 3 }])).to.deep.equal({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSec: 30,
      binding: 'token:t2',
    });
  });

  it('the window resets at the minute boundary, not 60 s after the first request', () => {
    for (let i = 0; i < 3; i++) limiter.take([TOKEN, WORKSPACE]);
    clock.set(11 * WINDOW_MS - 1);
    expect(limiter.take([TOKEN, WORKSPACE]).allowed).to.equal(false);
    clock.set(11 * WINDOW_MS);
    expect(limiter.take([TOKEN, WORKSPACE])).to.deep.equal({ allowed: true, limit: 3, remaining: 2, resetSec: 60, binding: 'token:t1' });
  });

  it('every budget resets together', () => {
    for (let i = 0; i < 3; i++) limiter.take([TOKEN, WORKSPACE]);
    clock.advance(WINDOW_MS);
    expect(limiter.take([WORKSPACE])).to.deep.equal({ allowed: true, limit: 5, remaining: 4, resetSec: 30, binding: 'workspace:w1' });
  });

  it('resetSec is the seconds to the next minute, rounded up', () => {
    clock.set(10 * WINDOW_MS);
    expect(limiter.take([TOKEN]).resetSec).to.equal(60);
    clock.set(10 * WINDOW_MS + 1);
    expect(limiter.take([TOKEN]).resetSec).to.equal(60);
    clock.set(10 * WINDOW_MS + 58_001);
    expect(limiter.take([WORKSPACE]).resetSec).to.equal(2);
  });

  it('resetSec is never below 1, refused or not', () => {
    clock.set(11 * WINDOW_MS - 500);
    expect(limiter.take([TOKEN]).resetSec).to.equal(1);
    clock.set(11 * WINDOW_MS - 1);
    expect(limiter.take([TOKEN]).resetSec).to.equal(1);
    limiter.take([TOKEN]);
    expect(limiter.take([TOKEN])).to.deep.equal({ allowed: false, limit: 3, remaining: 0, resetSec: 1, binding: 'token:t1' });
  });

  it('a decision needs at least one budget', () => {
    expect(() => limiter.take([])).to.throw(Error, 'a rate limit decision needs at least one budget');
  });
});
