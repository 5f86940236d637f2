import type { components } from '../../../generated/openapi.js';
import { entryErrors as errors } from './errors.js';
import type { Actor } from '../../principal.js';
import type { Clock } from '../../clock.js';
import { parseInstant, secondsBetween } from '../../kernel/time.js';
import type { DomainWrite } from '../events/service.js';
import { completion, type EntryCore, MAX_ENTRY_MS, START_SKEW_MS } from './core.js';
import type { EntriesRepository } from './repository.js';
import { type EntryView, entryView, tagIdsOfRow } from './views.js';
import { createStopLinks, NO_REMINDERS, type RunawayReminders } from './stop-links.js';
import type { EntryAccounts } from './core.js';

type Schemas = components['schemas'];

interface Deps {
  clock: Clock;
  write: DomainWrite;
  repo: EntriesRepository;
  core: EntryCore;
  /** Every workspace's runaway limit and action (the accounts module's). */
  runawaySettings: () => Array<{ workspaceId: string; limitSec: number; action: 'flagged' | 'capped' | 'stopped' }>;
  accounts: EntryAccounts;
  /** A runaway timer's reminder by mail (none without it). */
  reminders?: RunawayReminders;
}

/** Only the one-running-timer index can refuse a timer write: another start of this member won. */
const raced = { conflict: () => 'Another timer of this member was started at the same moment; retry.' };

/**
 * The caller's running timer (at most one per member and workspace, kept so by a partial unique
 * index), and the runaway check (the contract's Runaway schema: flagged, capped or stopped).
 */
export function createTimersService({ clock, write, repo, core, runawaySettings, accounts, reminders = NO_REMINDERS }: Deps) {
  const stopLinks = createStopLinks({ repo, core, accounts, clock, write });
  return {
    ...stopLinks,

    current(actor: Actor): EntryView | null {
      const row = repo.running(actor.workspaceId, actor.userId);
      return row ? entryView(row, tagIdsOfRow(row), { now: clock.now(), currency: actor.currency, actor }) : null;
    },

    /** Starts a timer; a running one is stopped at the new start first (entry.stopped, then entry.started). */
    start(actor: Actor, body: Schemas['TimerStart'] = {}, source: 'api' | 'web' = 'api'): EntryView {
      const now = clock.now();
      const start = body.start === undefined ? now : parseInstant(body.start, 'start');
      if (start > now + START_SKEW_MS) throw errors.startInFuture('a timer');
      // Else it could never be stopped: an entry spans at most 366 days.
      if (now - start > MAX_ENTRY_MS) throw errors.startTooOld('a timer');
      return write((record) => {
        const running = repo.running(actor.workspaceId, actor.userId);
        if (running) {
          if (start <= running.startAt) {
            throw errors.startBeforeRunning(running.id, running.startAt);
          }
          core.stop(record, actor, running, start);
        }
        return core.insert(record, actor, { ...body, start, end: null, source }, 'entry.started');
      }, raced);
    },

    stop(actor: Actor, body: Schemas['TimerStop'] = {}): EntryView {
      const end = body.end === undefined ? clock.now() : parseInstant(body.end, 'end');
      return write((record) => {
        const running = repo.running(actor.workspaceId, actor.userId);
        if (!running) throw errors.noTimer();
        return core.stop(record, actor, running, end);
      });
    },

    /**
     * Runaway timers: each running timer past its workspace's limit, detected once, is flagged
     * (keeps running, entry.updated), capped (stopped at start + limit) or stopped (at detection),
     * the latter two firing entry.stopped; with mail set up, its author gets a reminder (with a
     * Stop link while it runs) in the same write. Returns how many were found.
     */
    detectRunaways(): number {
      const now = clock.now();
      const due = runawaySettings().flatMap(({ workspaceId, limitSec, action }) =>
        repo.runawaysDue(workspaceId, now - limitSec * 1000).map(({ id }) => ({ id, limitSec, action })),
      );
      for (const { id, limitSec, action } of due) {
        write((record) => {
          const row = repo.anyById(id);
          // Stopped or detected meanwhile.
          if (!row || row.endAt !== null || row.runawayDetectedAt !== null) return;
          const runaway = {
            runawayDetectedAt: now,
            runawayElapsedSec: secondsBetween(row.startAt, now),
            runawayLimitSec: limitSec,
            runawayAction: action,
            runawayResolvedAt: null,
            updatedAt: now,
          };
          const stopAt = action === 'capped' ? row.startAt + limitSec * 1000 : action === 'stopped' ? now : null;
          const updated = repo.update(id, stopAt === null ? runaway : { ...runaway, ...completion(row, stopAt) });
          core.emit(record, null, stopAt === null ? 'entry.updated' : 'entry.stopped', updated);
          // Its author is told once (detection happens once per entry), in this same write.
          if (reminders.enabled())
            reminders.remind({
              workspaceId: row.workspaceId,
              userId: row.authorId,
              entryId: row.id,
              description: row.description,
              startAt: row.startAt,
              limitSec,
              stoppedAt: stopAt,
              secret: stopAt === null ? stopLinks.makeStopLink(row.id) : null,
            });
        });
      }
      return due.length;
    },
  };
}

export type TimersService = ReturnType<typeof createTimersService>;
