import { createRequire } from 'node:module';
import type { ReplicationSettings } from './replication-config.js';

/*
 * Watching Litestream from the server. Litestream runs as its own process (the server's parent
 * under `litestream replicate -exec`, or beside it); the server reads the figures Litestream
 * serves at its `addr` (Prometheus text) every quarter second and turns them into one check of
 * GET /readyz: Litestream answers, replicates this database, keeps reading its WAL, and its
 * replicas are no further behind than REPLICATION_MAX_LAG_MS.
 */

/** A place in Litestream's copy of the WAL (its shadow WAL): the WAL's index, then the byte offset in it. */
export interface Position {
  index: number;
  offset: number;
}

const compare = (a: Position, b: Position): number => a.index - b.index || a.offset - b.offset;

/** What Litestream's figures say about one database. */
export interface Figures {
  /** How far Litestream has read the database's WAL (into its shadow WAL). */
  shadow: Position;
  /** How far each replica has uploaded, by replica name. */
  replicas: Map<string, Position>;
  /** Litestream's reads of the database so far (one each monitor interval, changes or not). */
  syncs: number;
  syncErrors: number;
}

/** The figures for the database at `databasePath` in Litestream's metrics text, or null when it does not name it. */
export function readFigures(text: string, databasePath: string): Figures | null {
  const values = new Map<string, number>();
  const replicaValues = new Map<string, { index?: number; offset?: number }>();
  for (const line of text.split('\n')) {
    const match = /^(litestream_[a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const [, name = '', labels = '', raw = ''] = match;
    const label = (key: string) => new RegExp(`(?:^|,)${key}="((?:[^"\\\\]|\\\\.)*)"`).exec(labels)?.[1]?.replace(/\\(.)/g, '$1');
    if (label('db') !== databasePath) continue;
    const value = Number(raw);
    const replica = label('name');
    if (replica !== undefined && (name === 'litestream_replica_wal_index' || name === 'litestream_replica_wal_offset')) {
      const entry = replicaValues.get(replica) ?? {};
      if (name === 'litestream_replica_wal_index') entry.index = value;
      else entry.offset = value;
      replicaValues.set(replica, entry);
    } else values.set(name, value);
  }
  const index = values.get('litestream_shadow_wal_index');
  const offset = values.get('litestream_shadow_wal_size');
  if (index === undefined || offset === undefined) return null;
  const replicas = new Map<string, Position>();
  for (const [name, entry] of replicaValues) replicas.set(name, { index: entry.index ?? 0, offset: entry.offset ?? 0 });
  return {
    shadow: { index, offset },
    replicas,
    syncs: values.get('litestream_sync_count') ?? 0,
    syncErrors: values.get('litestream_sync_error_count') ?? 0,
  };
}

/** The databases Litestream's metrics text names (for a message when ours is not among them). */
export function databasesIn(text: string): string[] {
  return [...new Set([...text.matchAll(/^litestream_db_size\{[^}]*db="([^"]*)"/gm)].map((m) => m[1] as string))];
}

/**
 * Replication lag from successive figures: the age of the oldest WAL position Litestream had read
 * that the slowest replica has not uploaded yet, timed from the reading at which it was first
 * seen (so it is measured to the polling interval; the WAL's own lead over Litestream's reading,
 * up to its monitor interval, is not in it). A position that goes back is a new generation
 * (Litestream starts one after a checkpoint it did not see, or on its start): timing restarts.
 */
export class LagTracker {
  private pending: Array<{ position: Position; since: number }> = [];
  private last: Position | null = null;

  /** Takes a reading at `now` (ms) and returns the lag then, in ms (0: every replica has all Litestream has read). */
  observe(now: number, figures: Figures): number {
    if (this.last !== null && compare(figures.shadow, this.last) < 0) this.pending = [];
    this.last = figures.shadow;
    const slowest = [...figures.replicas.values()].reduce<Position | null>(
      (min, position) => (min === null || compare(position, min) < 0 ? position : min),
      null,
    ) ?? { index: -1, offset: 0 };
    const newest = this.pending.at(-1)?.position;
    if (compare(figures.shadow, slowest) > 0 && (newest === undefined || compare(figures.shadow, newest) > 0))
      this.pending.push({ position: figures.shadow, since: now });
    this.pending = this.pending.filter((entry) => compare(entry.position, slowest) > 0);
    return this.pending.length === 0 ? 0 : now - (this.pending[0] as { since: number }).since;
  }
}

export interface ReplicationState {
  ok: boolean;
  /** Why it fails, in words that say what to look at (stable while the cause stays, for the log). */
  cause: string | null;
  /** The lag at the last reading (ms), or null before Litestream answered. */
  lagMs: number | null;
}

/** How often Litestream's figures are read. */
export const POLL_MS = 250;

/**
 * Reads Litestream's figures every POLL_MS and keeps the state GET /readyz reports. The first
 * reading is awaited by `started` (Litestream serves its figures before it starts the server
 * under -exec, so a server that starts under it is ready at once).
 */
export function startReplicationMonitor({
  settings,
  pollMs = POLL_MS,
  now = () => performance.now(),
}: {
  settings: ReplicationSettings;
  pollMs?: number;
  now?: () => number;
}) {
  const tracker = new LagTracker();
  const startedAt = now();
  let answeredAt: number | null = null;
  let lastError = 'no answer yet';
  let figures: Figures | null = null;
  let missing: string[] | null = null;
  let lagMs: number | null = null;
  let syncsChangedAt = startedAt;
  let stopped = false;

  const poll = async (): Promise<void> => {
    try {
      const response = await fetch(settings.metricsUrl, { signal: AbortSignal.timeout(Math.max(1_000, pollMs * 4)) });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const text = await response.text();
      const at = now();
      answeredAt = at;
      const read = readFigures(text, settings.databasePath);
      missing = read === null ? databasesIn(text) : null;
      if (read !== null) {
        if (figures === null || read.syncs !== figures.syncs) syncsChangedAt = at;
        lagMs = tracker.observe(at, read);
        figures = read;
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      lastError = cause;
    }
  };

  const state = (): ReplicationState => {
    const at = now();
    const silentFor = at - (answeredAt ?? startedAt);
    let cause: string | null = null;
    if (answeredAt === null || silentFor > Math.max(1_000, pollMs * 4))
      cause = `Litestream does not answer at ${settings.metricsUrl} (${lastError}): it is not running; run the server under \`litestream replicate -config ${settings.configPath} -exec …\``;
    else if (missing !== null)
      cause = `Litestream at ${settings.metricsUrl} does not replicate ${settings.databasePath} (it replicates ${missing.join(', ') || 'nothing'}): start it with -config ${settings.configPath}`;
    else if (figures !== null && at - syncsChangedAt > settings.maxLagMs)
      cause = `Litestream has not read the database's WAL for more than ${settings.maxLagMs} ms (${figures.syncErrors} failed reads so far): see its log`;
    else if (lagMs !== null && lagMs > settings.maxLagMs)
      cause = `replication lags more than ${settings.maxLagMs} ms (REPLICATION_MAX_LAG_MS) behind the database: see Litestream's log (a replica that cannot be reached, or too slow a sync-interval)`;
    return { ok: cause === null, cause, lagMs };
  };

  let timer: NodeJS.Timeout | null = null;
  const loop = async () => {
    await poll();
    if (!stopped) timer = setTimeout(() => void loop(), pollMs).unref();
  };
  const started = loop();
  return {
    /** Resolves after the first reading. */
    started,
    state,
    stop(): void {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

export type ReplicationMonitor = ReturnType<typeof startReplicationMonitor>;

/**
 * The Litestream binary installed for this platform (@flydotio/litestream-linux-x64, an optional
 * dependency; the wrapper @flydotio/litestream is not used: its own `litestream`
 * command is a Node wrapper that neither forwards signals nor returns the exit code, so the
 * binary is run directly), or null with the reason.
 */
export function litestreamBinary(): { path: string } | { path: null; reason: string } {
  const name = `@flydotio/litestream-${process.platform}-${process.arch}/litestream`;
  try {
    return { path: createRequire(import.meta.url).resolve(name) };
  } catch {
    return {
      path: null,
      reason: `${name} is not installed (timetrack installs the Linux x64 binary; elsewhere Litestream is not run by the tests)`,
    };
  }
}
