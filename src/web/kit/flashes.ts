import type { Clock } from '../../clock.js';
import type { Notice } from './layout.js';

const FLASH_MS = 5 * 60_000;
const MAX_FLASHES = 10_000;

/**
 * One-time notices carried from a form post to the page it redirects to (post/redirect/get, so
 * a reload never posts again): per session, in memory only (a secret shown once is never
 * written to disk), taken by the next page of that session or dropped after 5 minutes.
 */
export class Flashes {
  private notices = new Map<string, { notice: Notice; until: number }>();
  constructor(private readonly clock: Clock) {}

  put(sessionSecret: string, notice: Notice): void {
    const now = this.clock.now();
    for (const [key, kept] of this.notices) if (kept.until <= now) this.notices.delete(key);
    if (this.notices.size >= MAX_FLASHES) this.notices.delete(this.notices.keys().next().value as string);
    this.notices.set(sessionSecret, { notice, until: now + FLASH_MS });
  }

  take(sessionSecret: string | null): Notice | null {
    if (sessionSecret === null) return null;
    const kept = this.notices.get(sessionSecret);
    this.notices.delete(sessionSecret);
    return kept && kept.until > this.clock.now() ? kept.notice : null;
  }
}
