import { expect } from 'chai';
import { amountCents, amountOf, decimalOf, fromCents, ratio4, toCents } from '../../../src/kernel/money.js';

describe('kernel/money', () => {
  describe('amountOf', () => {
    it('non-billable time earns 0, with or without a rate', () => {
      expect(amountOf(false, 100, 3600)).to.equal(0);
      expect(amountOf(false, null, 3600)).to.equal(0);
    });

    it('billable time without a rate has no amount (null)', () => {
      expect(amountOf(true, null, 3600)).to.equal(null);
      expect(amountOf(true, null, 0)).to.equal(null);
    });

    it('is rate × seconds / 3600', () => {
      expect(amountOf(true, 100, 5400)).to.equal(150);
      expect(amountOf(true, 60, 90)).to.equal(1.5);
      expect(amountOf(true, 0, 3600)).to.equal(0);
      expect(amountOf(true, 100, 0)).to.equal(0);
    });

    it('rounds to cents: 100/h for one second is 0.03', () => {
      expect(amountOf(true, 100, 1)).to.equal(0.03);
    });

    it('rounds an exact half cent up: 0.25/h for 1800 s is 0.125, so 0.13', () => {
      expect(amountOf(true, 0.25, 1800)).to.equal(0.13);
    });

    // Binary floating point gives 0.57 (1.15 × 1800 / 3600 is 0.57499999999999995559).
    it('rate 1.15 for 1800 s is 0.58 (the documented example: 0.575 rounded half away from zero)', () => {
      expect(amountOf(true, 1.15, 1800)).to.equal(0.58);
    });

    // Binary floating point gives 1 (1.005 × 100 is 100.49999999999999).
    it('rate 1.005 for 3600 s is 1.01 (half away from zero on the exact decimal 1.005)', () => {
      expect(amountOf(true, 1.005, 3600)).to.equal(1.01);
    });
  });

  describe('amountCents and decimalOf', () => {
    it('reads a rate as the decimal the client wrote, in any of JavaScript’s number forms', () => {
      expect(decimalOf(1.005)).to.deep.equal({ units: 1005n, scale: 3 });
      expect(decimalOf(100)).to.deep.equal({ units: 100n, scale: 0 });
      expect(decimalOf(1e-7)).to.deep.equal({ units: 1n, scale: 7 });
      expect(decimalOf(1.5e21)).to.deep.equal({ units: 1500000000000000000000n, scale: 0 });
      expect(decimalOf(0)).to.deep.equal({ units: 0n, scale: 0 });
    });

    it('whole cents, half away from zero, for the largest rate over the longest entry too', () => {
      expect(amountCents(true, 1.005, 3600)).to.equal(101);
      expect(amountCents(true, 0.005, 3600)).to.equal(1);
      expect(amountCents(true, 0.0049, 3600)).to.equal(0);
      expect(amountCents(true, 1_000_000_000, 366 * 86_400)).to.equal(878_400_000_000_000);
      expect(amountCents(false, 1.005, 3600)).to.equal(0);
      expect(amountCents(true, null, 3600)).to.equal(null);
    });
  });

  describe('toCents and fromCents', () => {
    it('toCents gives whole cents', () => {
      expect(toCents(12.34)).to.equal(1234);
      expect(toCents(0)).to.equal(0);
      expect(toCents(0.1 + 0.2)).to.equal(30);
    });

    it('fromCents gives the amount', () => {
      expect(fromCents(1234)).to.equal(12.34);
      expect(fromCents(5)).to.equal(0.05);
      expect(fromCents(0)).to.equal(0);
    });

    it('a total summed in cents is the sum of its rows (0.1 + 0.2 is 0.3)', () => {
      expect(fromCents(toCents(0.1) + toCents(0.2))).to.equal(0.3);
    });
  });

  describe('ratio4', () => {
    it('rounds a ratio to four decimals', () => {
      expect(ratio4(1, 3)).to.equal(0.3333);
      expect(ratio4(2, 3)).to.equal(0.6667);
    });

    it('keeps ratios above 1 and exact ones', () => {
      expect(ratio4(3, 2)).to.equal(1.5);
      expect(ratio4(0, 5)).to.equal(0);
      expect(ratio4(5, 5)).to.equal(1);
    });
  });
});
