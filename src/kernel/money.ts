/**
 * Money, by the rules the contract states for `amount`, in one place: amounts are decimals with two
 * places, rounded half away from zero; totals are summed in integer cents, so every total is the
 * sum of its rows.
 */
export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** billable ? round2(rate × seconds / 3600) : 0; null when billable time has no rate. */
export function amountOf(billable: boolean, hourlyRate: number | null, durationSec: number): number | null {
  if (!billable) return 0;
  if (hourlyRate === null) return null;
  return round2((hourlyRate * durationSec) / 3600);
}

/** An amount as whole cents (sums are kept in cents). */
export const toCents = (amount: number): number => Math.round(amount * 100);

/** Whole cents as an amount. */
export const fromCents = (cents: number): number => cents / 100;

/** A ratio with four decimals (project progress). */
export const ratio4 = (part: number, whole: number): number => Math.round((part / whole) * 10000) / 10000;
