import { expect } from 'chai';
import { formatsFor, negotiate } from '../../../src/i18n/index.js';

/** The one formatting of money, numbers, days, times and durations for a reader (src/i18n/format.ts; decisions §14). */
describe('formats for a reader', () => {
  const en = formatsFor({ language: 'en' });
  const de = formatsFor({ language: 'de' });

  it('writes money as the language does, with the currency’s own decimals', () => {
    expect(en.money(12480, 'EUR')).to.equal('€12,480.00');
    expect(de.money(12480, 'EUR')).to.equal('12.480,00\u00a0€'); // a no-break space, as Intl writes it
    expect(de.money(1500, 'JPY')).to.equal('1.500\u00a0¥');
    expect(en.moneyDigits('BHD')).to.equal(3);
  });

  it('writes numbers and decimal hours with the language’s separators', () => {
    expect(en.number(12480.5, 2)).to.equal('12,480.50');
    expect(de.number(12480.5, 2)).to.equal('12.480,50');
    expect(de.hours(5400)).to.equal('1,50');
    expect(de.decimal(19)).to.equal('19');
  });

  it('writes durations without seconds unless the reader asked for them', () => {
    expect(en.duration(138 * 3600 + 30 * 60 + 9)).to.equal('138:30');
    expect(formatsFor({ language: 'de', seconds: true }).duration(138 * 3600 + 30 * 60 + 9)).to.equal('138:30:09');
    expect(en.duration(59, true)).to.equal('0:00:59');
  });

  it('groups the hours of a duration of a thousand hours and more as the language groups numbers (a team’s year in a report PDF)', () => {
    expect(en.duration(1234 * 3600 + 30 * 60)).to.equal('1,234:30');
    expect(de.duration(1234 * 3600 + 30 * 60)).to.equal('1.234:30');
    expect(formatsFor({ language: 'de', seconds: true }).duration(12345 * 3600 + 5)).to.equal('12.345:00:05');
    expect(en.duration(999 * 3600)).to.equal('999:00');
  });

  it('writes days, days of the week, periods and instants as the language does', () => {
    expect(en.date('2026-11-23')).to.equal('23 Nov 2026');
    expect(de.date('2026-11-23')).to.equal('23.11.2026');
    expect(en.dayMonth('2026-11-23')).to.equal('Mon 23 Nov');
    expect(de.dayMonth('2026-11-23')).to.equal('Mo., 23.11.');
    expect(de.period('2026-11-23', '2026-11-29')).to.equal('23.11.2026 – 29.11.2026');
    expect(en.dateTime(Date.parse('2026-11-28T13:00:00Z'), 'Europe/Berlin')).to.equal('28 Nov 2026, 14:00 CET');
    expect(de.dateTime(Date.parse('2026-11-28T13:00:00Z'), 'Europe/Berlin')).to.equal('28.11.2026, 14:00 MEZ');
    expect(formatsFor({ language: 'en', timeFormat: '12h' }).dateTime(Date.parse('2026-11-28T13:00:00Z'), 'UTC')).to.equal(
      '28 Nov 2026, 1:00 PM UTC',
    );
  });

  it('picks our language from a browser’s Accept-Language by its weights', () => {
    expect(negotiate('de-AT,de;q=0.9,en;q=0.8')).to.equal('de');
    expect(negotiate('fr-FR,fr;q=0.9,en;q=0.5,de;q=0.7')).to.equal('de');
    expect(negotiate('en-US,en;q=0.9')).to.equal('en');
    expect(negotiate('fr-FR,fr;q=0.9')).to.equal(null);
    expect(negotiate('de;q=0,en')).to.equal('en');
    expect(negotiate(undefined)).to.equal(null);
    // `*` (any language): English, or none of ours where the page chooses "any" itself (a link's page: its workspace's).
    expect(negotiate('*')).to.equal('en');
    expect(negotiate('*', { any: null })).to.equal(null);
    expect(negotiate('fr-FR,*;q=0.5', { any: null })).to.equal(null);
    expect(negotiate('*;q=0.9,de;q=0.5', { any: null })).to.equal('de');
    expect(negotiate('')).to.equal(null);
  });
});
