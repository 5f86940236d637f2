/**
 * Money, by the rules the contract states for `amount`, in one place. An hourly rate is the
 * decimal the client wrote (a JSON number, read back as the shortest decimal that gives the same
 * double: 1.005 is 1.005, not 1.00499999999999989…). An amount is rate × seconds / 3600 computed
 * exactly on that decimal and rounded once, half away from zero, to whole cents. Amounts are kept
 * and summed as integer cents (entries.amount_cents), so every total is exactly the sum of its
 * rows; they become decimal numbers only in a response.
 */

/** A non-negative decimal as an integer and a power of ten: value = units / 10^scale. */
interface Decimal {
  units: bigint;
  scale: number;
}

/** The shortest decimal that reads back as `n` (JavaScript's own number-to-string), exactly. */
export function decimalOf(n: number): Decimal {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  const [mantissa = '0', exponent = '0'] = Math.abs(n).toString().split('e');
  const [whole = '0', fraction = ''] = mantissa.split('.');
  let units = BigInt(whole + fraction) * (n < 0 ? -1n : 1n);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units, scale };
}

/** numerator / denominator rounded half away from zero (denominator > 0). */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const rounded = (2n * magnitude + denominator) / (2n * denominator);
  return negative ? -rounded : rounded;
}

/**
 * billable ? rate × seconds / 3600 in whole cents, rounded half away from zero : 0; null when
 * billable time has no rate.
 */
export function amountCents(billable: boolean, hourlyRate: number | null, durationSec: number): number | null {
  if (!billable) return 0;
  if (hourlyRate === null) return null;
  const rate = decimalOf(hourlyRate);
  // cents = units / 10^scale × seconds / 3600 × 100
  return Number(divideRounded(rate.units * BigInt(durationSec) * 100n, 3600n * 10n ** BigInt(rate.scale)));
}

/** quantity × price (decimals) in whole cents, rounded once half away from zero, exactly: a manual line's net. */
export function productCents(quantity: number, price: number): number {
  const q = decimalOf(quantity);
  const p = decimalOf(price);
  return Number(divideRounded(q.units * p.units * 100n, 10n ** BigInt(q.scale + p.scale)));
}

/** `percent` % of an amount in cents (a tax), in whole cents rounded half away from zero, exactly. */
export function percentOfCents(cents: number, percent: number): number {
  const rate = decimalOf(percent);
  return Number(divideRounded(BigInt(cents) * rate.units, 100n * 10n ** BigInt(rate.scale)));
}

/** An amount in cents times a decimal factor (an exchange rate), in whole cents rounded half away from zero, exactly. */
export function timesCents(cents: number, factor: number): number {
  const f = decimalOf(factor);
  return Number(divideRounded(BigInt(cents) * f.units, 10n ** BigInt(f.scale)));
}

/** The amount as a decimal number (two places): amountCents / 100. */
export function amountOf(billable: boolean, hourlyRate: number | null, durationSec: number): number | null {
  const cents = amountCents(billable, hourlyRate, durationSec);
  return cents === null ? null : fromCents(cents);
}

/** A decimal amount with at most two places as whole cents (exact for such amounts). */
export const toCents = (amount: number): number => Math.round(amount * 100);

/** Whole cents as a decimal number: the nearest double to cents / 100, which prints as it. */
export const fromCents = (cents: number): number => cents / 100;

/** A ratio with four decimals (project progress). */
export const ratio4 = (part: number, whole: number): number => Math.round((part / whole) * 10000) / 10000;
