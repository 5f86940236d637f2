import { expect } from 'chai';
import { ManualClock } from '../../src/clock.js';
import { DomainError } from '../../src/errors.js';
import { SIGN_IN_WINDOW_MS, SignInAttempts } from '../../src/modules/sessions/attempts.js';
import { checkPassword, hashPassword, verifyPassword } from '../../src/modules/sessions/password.js';
import { escapeHtml, html, raw } from '../../src/settings/html.js';

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

describe('sessions/attempts SignInAttempts', () => {
  it('locks an account after 5 failures in 15 minutes, until the oldest leaves the window; success clears it', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    for (let i = 0; i < 4; i++) {
      attempts.failed('Ada@example.org', `198.51.100.${i}`);
      clock.advance(60_000);
    }
    expect(attempts.retryAfterSec('ada@example.org', '203.0.113.1')).to.equal(0);
    attempts.failed('ada@example.org', '198.51.100.9');
    // The first failure was 4 minutes ago: 11 minutes to go.
    expect(attempts.retryAfterSec('ADA@example.org', '203.0.113.1')).to.equal(11 * 60);
    clock.advance(11 * 60_000);
    expect(attempts.retryAfterSec('ada@example.org', '203.0.113.1')).to.equal(0);
    attempts.failed('ada@example.org', '203.0.113.1');
    expect(attempts.retryAfterSec('ada@example.org', '203.0.113.1')).to.be.greaterThan(0);
    attempts.succeeded('ada@example.org');
    expect(attempts.retryAfterSec('ada@example.org', '203.0.113.1')).to.equal(0);
  });

  it('locks an address after 20 failures over any accounts; a success does not clear it', () => {
    const clock = new ManualClock(1_000_000);
    const attempts = new SignInAttempts(clock);
    for (let i = 0; i < 20; i++) attempts.failed(`user${i}@example.org`, '203.0.113.7');
    attempts.succeeded('user0@example.org');
    expect(attempts.retryAfterSec('someone@example.org', '203.0.113.7')).to.equal(SIGN_IN_WINDOW_MS / 1000);
    expect(attempts.retryAfterSec('someone@example.org', '203.0.113.8')).to.equal(0);
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
