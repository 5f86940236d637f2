/** Money rules of decisions section 3, in one place. */
export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** billable ? round2(rate × seconds / 3600) : 0; null when billable time has no rate. */
export function amountOf(billable: boolean, hourlyRate: number | null, durationSec: number): number | null {
  if (!billable) return 0;
  if (hourlyRate === null) return null;
  return round2((hourlyRate * durationSec) / 3600);
}

/** Whole seconds between two instants (never negative). */
export const secondsBetween = (startMs: number, endMs: number): number => Math.max(0, Math.floor((endMs - startMs) / 1000));
