import { expect } from 'chai';
import { ManualClock } from '../../../src/clock.js';
import { DomainError } from '../../../src/errors.js';
import { addressKey } from '../../../src/kernel/address.js';
import {
  type AttemptTicket,
  SIGN_IN_FAILURES_PER_ACCOUNT,
  SIGN_IN_WINDOW_MS,
  SignInAttempts,
} from '../../../src/modules/sessions/attempts.js';
import {
  checkPassword,
  HASHES_AT_ONCE,
  HASHES_WAITING,
  HashingBusy,
  hashPassword,
  verifyPassword,
} from '../../../src/modules/sessions/password.js';
import { OPERATOR } from '../../../src/principal.js';
import { escapeHtml, html, raw } from '../../../src/web/kit/html.js';
import { TEST_PASSWORD_COST } from '../../helpers/password-cost.js';
import { memoryServices } from '../../helpers/services.js';

describe('sessions/password', () => {
  it('hashes with scrypt N=2^15 r=8 p=1, a fresh salt each time, and verifies only the same password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).to.match(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.to.equal(b);
    expect(await verifyPassword('correct horse battery', a)).to.equal(true);
    expect(await verifyPassword('correct horse batterY', a)).to.equal(false);
    // NFC: the same text typed as composed or decomposed characters.
    const composed = await hashPassword('café crème brûlée');
    expect(await verifyPassword('cafe\u0301 cre\u0300me bru\u0302le\u0301e', composed)).to.equal(true);
  });

  it('the services hash at production cost unless made with a lower one (the test helpers only); either verifies', async () => {
    for (const [world, n] of [
      [memoryServices({ productionPasswordCost: true }), 32768],
      [memoryServices(), TEST_PASSWORD_COST.N],
    ] as const) {
      try {
        await world.services.sessions.setPassword(OPERATOR, world.ownerId, 'correct horse battery');
        const stored = world.database.sqlite.prepare('SELECT password_hash FROM users WHERE id = ?').pluck().get(world.ownerId) as string;
        expect(stored.split('$').slice(0, 4)).to.deep.equal(['scrypt', String(n), '8', '1']);
        expect(await verifyPassword('correct horse battery', stored)).to.equal(true);
      } finally {
        world.close();
      }
    }
  });

  it('never matches a malformed stored hash', async () => {
    for (const stored of ['', 'plain', 'bcrypt$x$y', 'scrypt$32768$8$1$c2FsdA'])
      expect(await verifyPassword('anything at all', stored)).to.equal(false);
  });

  it('asks for 12 to 256 characters (counted as characters, not bytes)', () => {
    expect(() => checkPassword('elevenchars')).to.throw(DomainError, 'password must be at least 12 characters long.');
    expect(() => checkPassword('twelve chars')).not.to.throw();
    expect(() => checkPassword('😀'.repeat(12))).not.to.throw();
    expect(() => checkPassword('x'.repeat(257))).to.throw(DomainError, 'password must be at most 256 characters long.');
  });
});

describe('sessions/password: hashes at once', () => {
  it(`runs ${HASHES_AT_ONCE} hashes at once with ${HASHES_WAITING} waiting, and refuses the rest at once`, async () => {
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => hashPassword('correct horse battery')));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(results.length - refused.length).to.equal(HASHES_AT_ONCE + HASHES_WAITING);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).to.be.instanceOf(HashingBusy);
    // Afterwards the slots are free again.
    expect(await hashPassword('correct horse battery')).to.match(/^scrypt\$/);
  });
});

describe('sessions/attempts SignInAttempts', () => {
  /** Counts an attempt and leaves it failed; returns the wait when refused (0 when counted). */
  const fail = (attempts: SignInAttempts, account: string, address: string): number => {
    const counted = attempts.begin(account, address);
    return 'retryAfterSec' in counted ? counted.retryAfterSec : 0;
  };

  it('allows 5 attempts at an account from one address in 15 minutes, until the oldest leaves the window', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    for (let i = 0; i < 5; i++) {
      expect(fail(attempts, 'Ada@example.org', '198.51.100.1')).to.equal(0);
      clock.advance(60_000);
    }
    // The first attempt was 5 minutes ago: 10 minutes to go.
    expect(fail(attempts, 'ADA@example.org', '198.51.100.1')).to.equal(10 * 60);
    clock.advance(10 * 60_000);
    expect(fail(attempts, 'ada@example.org', '198.51.100.1')).to.equal(0);
  });

  it('keeps the account open to other addresses while one address guesses (the owner signs in meanwhile)', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    for (let i = 0; i < 5; i++) fail(attempts, 'ada@example.org', '203.0.113.66');
    expect(fail(attempts, 'ada@example.org', '203.0.113.66')).to.be.greaterThan(0);
    const owner = attempts.begin('ada@example.org', '198.51.100.2');
    expect(owner).to.have.property('ticket');
  });

  it('caps one account at 100 attempts over all addresses', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT; i++) expect(fail(attempts, 'ada@example.org', `10.0.${i >> 4}.${i}`)).to.equal(0);
    expect(fail(attempts, 'ada@example.org', '198.51.100.200')).to.be.greaterThan(0);
  });

  it('counts an attempt when it starts: attempts in flight spend the budget; a success is refunded', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    const inFlight = Array.from({ length: 8 }, () => attempts.begin('ada@example.org', '198.51.100.3'));
    expect(inFlight.filter((a) => 'ticket' in a)).to.have.length(5);
    expect(inFlight.filter((a) => 'retryAfterSec' in a)).to.have.length(3);
    const first = inFlight[0] as { ticket: AttemptTicket };
    attempts.succeeded(first.ticket);
    // The pair is forgiven: its failures are gone.
    expect(attempts.begin('ada@example.org', '198.51.100.3')).to.have.property('ticket');
  });

  it('refuses an address after 20 attempts over any accounts; a success does not clear it', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    const tickets = Array.from({ length: 20 }, (_, i) => attempts.begin(`user${i}@example.org`, '203.0.113.7'));
    attempts.refund((tickets[0] as { ticket: AttemptTicket }).ticket);
    fail(attempts, 'user0@example.org', '203.0.113.7');
    expect(fail(attempts, 'someone@example.org', '203.0.113.7')).to.equal(SIGN_IN_WINDOW_MS / 1000);
    expect(fail(attempts, 'someone@example.org', '203.0.113.8')).to.equal(0);
  });

  it('keys an IPv6 client by its /64, and an IPv4-mapped one by its IPv4 address', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).to.equal('2001:db8:1:2::/64');
    expect(addressKey('::ffff:198.51.100.9')).to.equal('198.51.100.9');
    expect(addressKey('198.51.100.9')).to.equal('198.51.100.9');
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    for (let i = 0; i < 20; i++) fail(attempts, `user${i}@example.org`, `2001:db8:1:2::${(i + 1).toString(16)}`);
    expect(fail(attempts, 'someone@example.org', '2001:db8:1:2:ffff::9')).to.be.greaterThan(0);
    expect(fail(attempts, 'someone@example.org', '2001:db8:1:3::9')).to.equal(0);
  });
});

describe('settings/html', () => {
  it('escapes every interpolated value, lists included, and keeps markup made by the template', () => {
    const name = `<img src=x onerror="alert('1')">&`;
    expect(html`<p title="${name}">${name}</p>`.text).to.equal(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;">&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;</p>',
    );
    // prettier-ignore
    expect(html`<ul>${['<a>', html`<li>ok</li>`]}</ul>`.text).to.equal('<ul>&lt;a&gt;<li>ok</li></ul>');
    expect(html`${null}${undefined}${false}${0}${raw('<br>')}`.text).to.equal('0<br>');
    expect(escapeHtml(`"'<>&`)).to.equal('&quot;&#39;&lt;&gt;&amp;');
  });
});
