/** A session ends after this long without a request, and this long after sign-in in any case (a lobby's too). */
export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_MAX_MS = 7 * 86_400_000;
/** lastSeenAt is written at most once a minute per session. */
export const TOUCH_GRANULARITY_MS = 60_000;
