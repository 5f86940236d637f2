import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { isOperator, type Principal } from '../../principal.js';
import type { Job } from '../../scheduler.js';
import type { EventRow, EventsRepository } from './repository.js';
import { eventView } from './views.js';
import type { events } from './schema.js';

export type EventEntity = (typeof events.$inferInsert)['entity'];
export type EventOperation = (typeof events.$inferInsert)['operation'];

/** Who made a write: a token's member, a member through the CLI, or the server itself (null). */
export interface EventActor {
  userId: string | null;
  tokenId: string | null;
}

export interface DomainEvent {
  workspaceId: string;
  entity: EventEntity;
  entityId: string;
  operation: EventOperation;
  /** The webhook event name for entry and invoice events; catalog events have none. */
  event: string | null;
  actor: EventActor;
  originId?: string | null;
  payload: unknown;
  /** false: a sync event only, no webhook deliveries (an import without --webhooks). */
  webhooks?: boolean;
}

/** Runs inside the event's transaction, after the event row is written (the webhook outbox). */
export type EventSubscriber = (seq: number, event: DomainEvent) => void;

/** The write helper of the domain services: what they record are domain events. */
export type DomainWrite = Write<DomainEvent>;

/** What a listing depends on: the catalog's own writes, or every write of the workspace (project progress follows entries). */
export type ChangeScope = 'catalog' | 'all';

/** One step of the retention's purge: how many went, and where the next step starts (null: done). */
export interface PurgeStep {
  deleted: number;
  next: number | null;
}

/**
 * The domain event log: the realtime sync events and the source of webhook deliveries. `record`
 * runs inside the write's transaction (src/db/write.ts), so a write and its event commit or roll
 * back together. Payloads are API views of the entity as the write left it.
 */
export function createEventLog({
  repo,
  clock,
  write,
  retentionDays = 180,
  subscriber,
  inUse = () => new Set<number>(),
}: {
  repo: EventsRepository;
  clock: Clock;
  /** The retention's writes (the event log records no events of its own). */
  write?: <T>(body: () => T) => T;
  /** EVENT_RETENTION_DAYS: sync events older than this are deleted hourly. */
  retentionDays?: number;
  subscriber?: EventSubscriber;
  /** Which events a delivery log row still refers to (the webhooks module's): they are kept. */
  inUse?: (seqs: number[]) => Set<number>;
}) {
  /** The last seq recorded before `before`, or null: a binary search of ~log2(n) point reads (seq grows with time). */
  function lastSeqBefore(before: number): number | null {
    const first = repo.atOrAfter(0);
    if (!first || first.createdAt >= before) return null;
    let low = first.seq; // recorded before `before`
    let high = repo.maxSeq() + 1; // beyond the last
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const row = repo.atOrAfter(middle);
      if (row && row.createdAt < before) low = row.seq;
      else high = middle;
    }
    return low;
  }

  /** One purge step of the retention (run in its own short write). */
  function purge(before: number, batch = 5000, from = 0): PurgeStep {
    const last = lastSeqBefore(before);
    if (last === null) return { deleted: 0, next: null };
    const candidates = repo.purgeCandidates(from, last, batch);
    const kept = inUse(candidates);
    const deleted = repo.deleteSeqs(candidates.filter((seq) => !kept.has(seq)));
    return { deleted, next: candidates.length === batch ? (candidates[candidates.length - 1] as number) : null };
  }

  /** The retention: events past it deleted in batches of 5,000, each its own short write (other requests run between them). */
  async function retention(): Promise<void> {
    if (!write) return;
    const before = clock.now() - retentionDays * 86_400_000;
    for (let next: number | null = 0; next !== null;) {
      const from: number = next;
      next = write(() => purge(before, 5000, from)).next;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  return {
    /** The module's periodic job: the retention, at most once an hour. */
    jobs: [{ name: 'event retention', every: 'hour', run: retention }] satisfies Job[],

    /**
     * What changed after `afterSeq`, in every workspace, oldest first (at most `limit`): the
     * web app's live feed reads this (committed writes of any process: the API, the command
     * line, an import's thread). No payload but an entry's author, which decides who may see it.
     */
    feed: (afterSeq: number, limit = 500) => repo.feed(afterSeq, limit),
    /** The newest event's seq (0 for none): where a live feed starts. */
    newestSeq: (): number => repo.maxSeq(),

    /** Records an event, inside the write in progress; returns its seq. */
    record(event: DomainEvent): number {
      const seq = repo.insert({
        workspaceId: event.workspaceId,
        entity: event.entity,
        entityId: event.entityId,
        operation: event.operation,
        event: event.event,
        actorUserId: event.actor.userId,
        actorTokenId: event.actor.tokenId,
        originId: event.originId ?? null,
        payload: event.payload === undefined ? null : JSON.stringify(event.payload),
        createdAt: clock.now(),
      });
      if (event.webhooks !== false) subscriber?.(seq, event);
      return seq;
    },

    /** One event by its seq (the webhook sender reads the event a delivery carries). */
    bySeq: (seq: number): EventRow | undefined => repo.bySeq(seq),

    /** Events of a workspace after `afterSeq`, oldest first (`timetrack sync tail`: the operator). */
    tail(principal: Principal, workspaceId: string, afterSeq = 0, limit = 1000) {
      if (!isOperator(principal) && principal.workspaceId !== workspaceId) return [];
      return repo.after(workspaceId, afterSeq, limit).map(eventView);
    },

    /**
     * One step of the retention (run in its own short write): up to `batch` events recorded before
     * `before`, after seq `from`, oldest first, but those a delivery log row still refers to (the
     * log keeps 30 days) and each workspace's newest event (it names the state of the
     * workspace's data: `position`). Its cost is what it reads: the last old event is found by a
     * binary search over seq, so no scan reaches the events kept.
     */
    purge,

    /** The oldest event still kept (null when the log is empty): a sync client that last read before it must resync. */
    oldestSeq: (): number | null => repo.oldestSeq(),

    /**
     * Where a workspace's change log stands, as a short string naming one state of what a
     * listing reads: `c<seq>`, the newest catalog event among the workspace's newest 100 (scope
     * `catalog`: entry writes change no client, task or tag); else `w<seq>`, its newest event
     * (`w0` when it has none). Every write records an event with a new, ever-growing seq, and
     * the purge keeps each workspace's newest, so only this workspace's writes move it. It
     * counts writes: callers hash it before they show it.
     */
    position(workspaceId: string, scope: ChangeScope): string {
      if (scope === 'catalog') {
        const seq = repo.newestCatalog(workspaceId);
        if (seq !== undefined) return `c${seq}`;
      }
      return `w${repo.newest(workspaceId) ?? 0}`;
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
