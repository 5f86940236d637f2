import { scopeValues } from '../../../generated/openapi.js';
import type { Clock } from '../../clock.js';
import { secret, sha256 } from '../../kernel/secrets.js';
import type { Actor } from '../../principal.js';
import type { DomainWrite } from '../events/service.js';
import type { EntryAccounts, EntryCore } from './core.js';
import type { EntriesRepository } from './repository.js';

/** A Stop link works while its timer runs, 7 days at most. */
export const STOP_LINK_MS = 7 * 86_400_000;

/**
 * The runaway reminder (the mail module's, wired in src/services.ts), run inside the write that
 * detected the timer: a reminder with a Stop link while it runs, or the news that it was stopped.
 */
export interface RunawayReminders {
  /** Mail is set up: reminders are sent (and Stop links made for them). */
  enabled(): boolean;
  remind(input: {
    workspaceId: string;
    userId: string;
    entryId: string;
    description: string;
    startAt: number;
    limitSec: number;
    /** When the limit stopped it (capped, stopped), or null while it runs (flagged). */
    stoppedAt: number | null;
    /** The Stop link's secret, while it runs. */
    secret: string | null;
  }): void;
}

export const NO_REMINDERS: RunawayReminders = { enabled: () => false, remind: () => undefined };

/** What a Stop link's page shows: the timer to confirm, or why there is nothing to stop. */
export type StopLinkState =
  | { state: 'running'; workspaceId: string; userId: string; description: string; startAt: number }
  | { state: 'stopped'; endAt: number }
  | { state: 'used' | 'expired' | 'unknown' | 'not-member' };

/**
 * A runaway reminder's Stop link (part of the timers service): made in the detection's write,
 * it stops the timer only when its page's button confirms (the link alone stops nothing: mail
 * scanners open links), once, while that timer still runs, as its author.
 */
export function createStopLinks({
  repo,
  core,
  accounts,
  clock,
  write,
}: {
  repo: EntriesRepository;
  core: EntryCore;
  accounts: EntryAccounts;
  clock: Clock;
  write: DomainWrite;
}) {
  const ALL_SCOPES = new Set(scopeValues);

  /** The link's timer as it is now. */
  function stateOf(linkSecret: string): StopLinkState & { hash?: string } {
    const hash = sha256(linkSecret);
    const link = repo.stopLink(hash);
    if (!link) return { state: 'unknown' };
    const row = repo.anyById(link.entryId);
    if (!row) return { state: 'unknown' };
    // Stopped (through this link, or otherwise): say when, whether or not the link was used.
    if (row.endAt !== null) return { state: 'stopped', endAt: row.endAt };
    if (link.usedAt !== null) return { state: 'used' };
    if (link.expiresAt <= clock.now()) return { state: 'expired' };
    if (!accounts.membership(row.workspaceId, row.authorId)) return { state: 'not-member' };
    return {
      state: 'running',
      workspaceId: row.workspaceId,
      userId: row.authorId,
      description: row.description,
      startAt: row.startAt,
      hash,
    };
  }

  return {
    /** Inside the detection's write: a new Stop link's secret for a running timer. */
    makeStopLink(entryId: string): string {
      const linkSecret = secret();
      const now = clock.now();
      repo.insertStopLink({ secretHash: sha256(linkSecret), entryId, createdAt: now, expiresAt: now + STOP_LINK_MS });
      return linkSecret;
    },

    /** What a Stop link's page shows (nothing is changed by opening it). */
    stopLink(linkSecret: string): StopLinkState {
      const { hash: _hash, ...state } = stateOf(linkSecret);
      return state;
    },

    /** The confirmation: stops the timer now, as its author (resolving its runaway flag), and uses the link up. */
    stopByLink(linkSecret: string): StopLinkState | { state: 'done'; endAt: number } {
      return write((record) => {
        const found = stateOf(linkSecret);
        if (found.state !== 'running') {
          const { hash: _hash, ...state } = found;
          return state;
        }
        const member = accounts.membership(found.workspaceId, found.userId);
        const row = repo.running(found.workspaceId, found.userId);
        if (!member || !row) return { state: 'unknown' as const };
        const actor: Actor = {
          kind: 'member',
          tokenId: null,
          workspaceId: found.workspaceId,
          userId: found.userId,
          scopes: ALL_SCOPES,
          canViewOthersTime: member.canViewOthersTime,
          canViewOthersMoney: member.canViewOthersMoney,
          isOwner: member.isOwner,
          currency: member.currency,
        };
        const now = clock.now();
        core.stop(record, actor, row, now);
        repo.useStopLink(found.hash as string, now);
        return { state: 'done' as const, endAt: now };
      });
    },

    /** Stop links expired a day ago go (the hourly job). */
    purgeStopLinks: (): number => write(() => repo.deleteSpentStopLinks(clock.now() - 86_400_000)),
  };
}
