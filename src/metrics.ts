import { statSync } from 'node:fs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from './clock.js';
import { errorFields, type Logger } from './logger.js';

/** The final outcomes of a webhook delivery (webhook_deliveries.status once next_attempt_at is null). */
const OUTCOMES = ['success', 'abandoned', 'skipped_visibility', 'cancelled'] as const;
type Outcome = (typeof OUTCOMES)[number];

/** Deliveries created less than this long ago may still be written by another connection (the sender thread, the CLI). */
const SETTLE_MARGIN_MS = 60_000;

/**
 * The process's own metrics (nodejs_eventloop_lag_seconds, heap, GC, CPU: prom-client's
 * defaults), registered once per process however many servers it starts (the tests start many).
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The delivery figures the metrics read (the webhooks module's). */
export interface DeliveryFigures {
  /** Open deliveries (the sender's queue): how many, how many are due at `now`, the oldest's creation. */
  open(now: number): { pending: number; due: number; oldest: number | null };
  /** Settled deliveries created in [from, to), counted by status. */
  settled(from: number, to: number): Array<{ status: string; n: number }>;
}

/**
 * What GET /metrics serves. Requests are recorded where the app writes responses; the database
 * figures are read at scrape time with indexed queries (the open deliveries are in the partial
 * queue index; the settled ones are counted once each, by a watermark on created_at, so a scrape
 * reads only the deliveries of the last few hours, never the whole 30-day log).
 */
export function createMetrics(deps: { deliveries: DeliveryFigures; databasePath: string; clock: Clock; logger: Logger }) {
  const { clock, logger } = deps;
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: 'timetrack_http_requests_total',
    help: 'API requests answered, by operationId (none: no route matched) and status.',
    labelNames: ['operation', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'timetrack_http_request_duration_seconds',
    help: 'Time from a request entering the pipeline to its response being written, by operationId and status.',
    labelNames: ['operation', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const rateLimited = new Counter({
    name: 'timetrack_rate_limit_refusals_total',
    help: 'Requests refused with 429: caller token (a token or workspace budget) or anonymous (the per-address budget).',
    labelNames: ['caller'] as const,
    registers,
  });
  // Both series exist from the start, so a rate over them is defined before the first refusal.
  for (const caller of ['token', 'anonymous']) rateLimited.inc({ caller }, 0);
  const runaways = new Counter({
    name: 'timetrack_runaway_timers_detected_total',
    help: 'Running timers found past their workspace runaway limit (flagged, capped or stopped).',
    registers,
  });

  const queue = webhookQueue(deps.deliveries, clock);
  const guarded = (what: string, read: () => void) => () => {
    try {
      read();
    } catch (error) {
      logger.warn('a metric could not be read', { metric: what, ...errorFields(error) });
    }
  };
  const deliveries = new Counter({
    name: 'timetrack_webhook_deliveries_total',
    help: 'Webhook deliveries that reached a final outcome since the server started.',
    labelNames: ['outcome'] as const,
    registers,
    collect: guarded('timetrack_webhook_deliveries_total', () => {
      const settled = queue.settledSinceStart();
      deliveries.reset();
      for (const outcome of OUTCOMES) deliveries.inc({ outcome }, settled[outcome]);
    }),
  });
  const pending = new Gauge({
    name: 'timetrack_webhook_deliveries_pending',
    help: 'Webhook deliveries not yet final (due now or waiting for a retry).',
    registers,
    collect: guarded('timetrack_webhook_deliveries_pending', () => pending.set(queue.open().pending)),
  });
  const due = new Gauge({
    name: 'timetrack_webhook_deliveries_due',
    help: 'Pending webhook deliveries whose next attempt is due now (growing: the sender falls behind).',
    registers,
    collect: guarded('timetrack_webhook_deliveries_due', () => due.set(queue.open().due)),
  });
  const oldestAge = new Gauge({
    name: 'timetrack_webhook_oldest_pending_age_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none); with retries up to about 7.2 hours is normal.',
    registers,
    collect: guarded('timetrack_webhook_oldest_pending_age_seconds', () => {
      const { oldest } = queue.open();
      oldestAge.set(oldest === null ? 0 : Math.max(0, clock.now() - oldest) / 1000);
    }),
  });
  const fileSize = (path: string): number => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const onDisk = deps.databasePath !== ':memory:';
  new Gauge({
    name: 'timetrack_database_size_bytes',
    help: 'Size of the SQLite database file.',
    registers,
    collect(this: Gauge) {
      if (onDisk) this.set(fileSize(deps.databasePath));
    },
  });
  new Gauge({
    name: 'timetrack_database_wal_size_bytes',
    help: 'Size of its write-ahead log (reset to small by the checkpointer).',
    registers,
    collect(this: Gauge) {
      if (onDisk) this.set(fileSize(`${deps.databasePath}-wal`));
    },
  });

  return {
    contentType: registry.contentType,
    /** One API response, written: by operationId ('none' when no route matched) and status. */
    request(operationId: string | undefined, status: number, seconds: number, authenticated: boolean): void {
      const labels = { operation: operationId ?? 'none', status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
      if (status === 429) rateLimited.inc({ caller: authenticated ? 'token' : 'anonymous' });
    },
    runawaysDetected(count: number): void {
      runaways.inc(count);
    },
    /** The exposition text: the process's metrics, then the server's. */
    async render(): Promise<string> {
      queue.forget();
      const own = await processMetrics().metrics();
      return `${own}${own.endsWith('\n') ? '' : '\n'}\n${await registry.metrics()}`;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The delivery figures, read once per scrape. */
function webhookQueue(figures: DeliveryFigures, clock: Clock) {
  let cached: { pending: number; due: number; oldest: number | null } | null = null;
  const open = () => (cached ??= figures.open(clock.now()));
  const settledBetween = (from: number, to: number) => figures.settled(from, to);

  // Every delivery created before the watermark is settled and counted in `counted`.
  let watermark = 0;
  const counted = zero();
  const settled = (): Record<Outcome, number> => {
    const now = clock.now();
    const { oldest } = open();
    const next = Math.max(watermark, Math.min(oldest ?? now, now - SETTLE_MARGIN_MS));
    if (next > watermark) {
      add(counted, settledBetween(watermark, next));
      watermark = next;
    }
    return add({ ...counted }, settledBetween(watermark, Number.MAX_SAFE_INTEGER));
  };
  // The counter starts at 0: what was settled before this server started is not counted.
  const baseline = settled();
  const last = zero();
  return {
    open,
    /** Each outcome's count since start; never decreasing (the log's 30-day purge cannot lower it). */
    settledSinceStart(): Record<Outcome, number> {
      const now = settled();
      for (const outcome of OUTCOMES) last[outcome] = Math.max(last[outcome], now[outcome] - baseline[outcome]);
      return { ...last };
    },
    /** A new scrape reads the queue anew. */
    forget(): void {
      cached = null;
    },
  };
}

function zero(): Record<Outcome, number> {
  return { success: 0, abandoned: 0, skipped_visibility: 0, cancelled: 0 };
}

function add(into: Record<Outcome, number>, rows: unknown[]): Record<Outcome, number> {
  for (const row of rows as Array<{ status: string; n: number }>) {
    if ((OUTCOMES as readonly string[]).includes(row.status)) into[row.status as Outcome] += row.n;
  }
  return into;
}
