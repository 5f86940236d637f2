import { expect } from 'chai';
import { translator } from '../../../src/i18n/index.js';

// Words said without values are kept per language after their first lookup (issue 60): each
// language keeps its own, and words said with values are filled in every time.
describe('translator: kept words', () => {
  it('says a plain word in its own language, the same each time', () => {
    const de = translator('de');
    const en = translator('en');
    expect(de('layout.signOut')).to.equal(de('layout.signOut'));
    expect(en('layout.signOut')).to.equal('Sign out');
    expect(de('layout.signOut')).to.not.equal('Sign out');
    expect(translator('en')('layout.signOut')).to.equal('Sign out');
  });

  it('fills in values each time, never from a kept word', () => {
    const en = translator('en');
    expect(en('layout.who', { name: 'Ada', email: 'ada@example.org' })).to.equal('Ada (ada@example.org)');
    expect(en('layout.who', { name: 'Bo', email: 'bo@example.org' })).to.equal('Bo (bo@example.org)');
    expect(en('layout.who')).to.not.include('Ada');
  });
});
