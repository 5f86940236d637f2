import { amountCents } from '../../kernel/money.js';

/** A non-negative decimal as a file writes it, exactly: value = units / 10^scale. */
export interface FileDecimal {
  units: bigint;
  scale: number;
}

/**
 * A money cell (a rate or an amount) as an exact decimal, or null when it is not a number.
 * A currency sign or code around it is ignored (`€ 80.05`, `80.05 EUR`), and so are spaces;
 * a decimal comma is read as a point (`80,05`, semicolon files), and a thousands separator
 * beside the other mark is dropped (`1,234.56`, `1.234,56`).
 */
export function parseMoneyCell(text: string): FileDecimal | null {
  let normal = text
    .replace(/^[^\d]*/, '')
    .replace(/\s*(\p{Sc}|[A-Z]{3})$/u, '')
    .replace(/\s/g, '');
  if (/^\d{1,3}(,\d{3})+\.\d+$/.test(normal)) normal = normal.replace(/,/g, '');
  else if (/^\d{1,3}(\.\d{3})+,\d+$/.test(normal)) normal = normal.replace(/\./g, '').replace(',', '.');
  else if (/^\d+,\d+$/.test(normal)) normal = normal.replace(',', '.');
  const m = /^(\d+)(?:\.(\d+))?$/.exec(normal);
  if (!m || /^-/.test(text.trim())) return null;
  const fraction = m[2] ?? '';
  return { units: BigInt((m[1] as string) + fraction), scale: fraction.length };
}

/** The decimal as the JavaScript number that prints as it (exact for the decimals a rate holds). */
export function numberOf(d: FileDecimal): number {
  if (d.scale === 0) return Number(d.units);
  const digits = d.units.toString().padStart(d.scale + 1, '0');
  return Number(`${digits.slice(0, -d.scale)}.${digits.slice(-d.scale)}`);
}

/** numerator / denominator rounded half away from zero (both positive). */
const divideRounded = (numerator: bigint, denominator: bigint): bigint => (2n * numerator + denominator) / (2n * denominator);

/** An amount's whole cents, rounded half away from zero (a file's amounts have two places; some more). */
export const centsOf = (amount: FileDecimal): number => Number(divideRounded(amount.units * 100n, 10n ** BigInt(amount.scale)));

/**
 * The hourly rate of a billable row that carries its money only as an amount (decisions §10):
 * amount × 3600 ÷ its seconds, to 4 decimals, which gives back the amount to the cent for any
 * entry up to 100 hours (the rounding of the rate moves the amount by at most 0.00005 × hours).
 * A longer one takes the fewest further decimals (up to 10) that give it back, so no amount is
 * ever lost to the rounding of its rate.
 */
export function rateFromAmount(amount: FileDecimal, seconds: number): number {
  const cents = centsOf(amount);
  let first: number | null = null;
  for (let scale = 4; scale <= 10; scale++) {
    const units = divideRounded(amount.units * 3600n * 10n ** BigInt(scale), 10n ** BigInt(amount.scale) * BigInt(seconds));
    const rate = numberOf({ units, scale });
    first ??= rate;
    if (amountCents(true, rate, seconds) === cents) return rate;
  }
  return first as number;
}
