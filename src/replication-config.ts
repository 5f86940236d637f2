import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { resolve } from 'node:path';

/**
 * LITESTREAM_CONFIG: the Litestream configuration the operator wrote once, read at start to
 * know that replication is meant to run, where Litestream serves its figures (`addr`), and that
 * it replicates this database. Litestream itself reads the same file (`litestream replicate
 * -config … -exec …`); the server only checks it and then watches Litestream's progress.
 */
export interface ReplicationSettings {
  /** The file, as LITESTREAM_CONFIG named it. */
  configPath: string;
  /** Litestream's Prometheus endpoint (its `addr`), polled by the server. */
  metricsUrl: string;
  /** The database's path as Litestream names it in its figures (absolute). */
  databasePath: string;
  /** Each replica of the database, as `type:place` for the log (never a secret). */
  replicas: string[];
  /** REPLICATION_MAX_LAG_MS: GET /readyz fails when replication lags more than this. */
  maxLagMs: number;
}

type Env = Record<string, string | undefined>;

/** Litestream expands `$VAR` and `${VAR}` in its file (Go's os.ExpandEnv: an unset one is empty). */
function expandEnv(text: string, env: Env): string {
  return text.replace(/\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced: string | undefined, bare: string | undefined) => {
    return env[braced ?? bare ?? ''] ?? '';
  });
}

/** A database path as Litestream resolves it: `~` is the home directory, then absolute. */
function litestreamPath(path: string, env: Env): string {
  const home = env.HOME ?? homedir();
  const expanded = path === '~' ? home : path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
  return resolve(expanded);
}

/** `addr` as Litestream takes it (`:9090`, `127.0.0.1:9090`, `[::1]:9090`) to the URL polled from this host. */
function metricsUrlOf(addr: string): string | null {
  const match = /^(\[[0-9a-fA-F:.]*\]|[^:[\]]*):(\d{1,5})$/.exec(addr.trim());
  if (!match) return null;
  const [, rawHost = '', port = ''] = match;
  if (Number(port) < 1 || Number(port) > 65535) return null;
  // Every interface (`:9090`, 0.0.0.0, ::) is reached on loopback.
  const host = rawHost === '' || rawHost === '0.0.0.0' ? '127.0.0.1' : rawHost === '[::]' ? '[::1]' : rawHost;
  return `http://${host}:${port}/metrics`;
}

/** A replica for the log: its type and where, never its credentials. */
function describeReplica(replica: unknown): string | null {
  if (typeof replica !== 'object' || replica === null) return null;
  const r = replica as Record<string, unknown>;
  if (typeof r.url === 'string' && r.url.trim() !== '') return r.url.replace(/\/\/[^@/]*@/, '//');
  const type = typeof r.type === 'string' ? r.type : 'file';
  const place = [r.bucket, r.host, r.path].filter((part) => typeof part === 'string' && part !== '').join('/');
  return place === '' ? null : `${type}:${place}`;
}

// The YAML parser (~270 kB) is loaded when a Litestream file is set: no start without one compiles it.
const requireHere = createRequire(import.meta.url);
const parseYaml = (text: string): unknown => (requireHere('yaml') as typeof import('yaml')).parse(text);

/**
 * Reads and checks the Litestream file for the database at `databasePath`; each problem goes to
 * `problems` in words that say what to do. Returns null when there are problems.
 */
export function readReplicationSettings(
  configPath: string,
  databasePath: string,
  maxLagMs: number,
  env: Env,
  problems: string[],
): ReplicationSettings | null {
  const where = `LITESTREAM_CONFIG (${configPath})`;
  if (databasePath === ':memory:') {
    problems.push(`${where}: an in-memory database (DATABASE_PATH=:memory:) cannot be replicated; set DATABASE_PATH to a file`);
    return null;
  }
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push(
      code === 'ENOENT'
        ? `${where} does not exist: write Litestream's configuration there (docs/operations.md, "Replication"), or unset LITESTREAM_CONFIG to run without replication`
        : `${where} cannot be read (${code ?? (error as Error).message}): let the server's user read it`,
    );
    return null;
  }
  let document: unknown;
  try {
    document = parseYaml(expandEnv(text, env));
  } catch (error) {
    problems.push(`${where} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    return null;
  }
  const root = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
  const metricsUrl = typeof root.addr === 'string' ? metricsUrlOf(root.addr) : null;
  if (metricsUrl === null)
    problems.push(
      `${where} needs \`addr: 127.0.0.1:9090\` (a port of your choice): the server reads replication's progress from Litestream's figures there${root.addr === undefined ? '' : ` (got ${JSON.stringify(root.addr)})`}`,
    );
  const wanted = resolve(databasePath);
  const dbs = Array.isArray(root.dbs) ? (root.dbs as unknown[]) : [];
  const entry = dbs.find(
    (db) =>
      typeof db === 'object' &&
      db !== null &&
      typeof (db as { path?: unknown }).path === 'string' &&
      litestreamPath((db as { path: string }).path, env) === wanted,
  ) as Record<string, unknown> | undefined;
  if (!entry) {
    const named = dbs.map((db) => (db as { path?: unknown } | null)?.path).filter((path) => typeof path === 'string');
    problems.push(
      `${where} does not replicate this database: add it under \`dbs:\` as \`- path: ${wanted}\`${named.length > 0 ? ` (it names ${named.join(', ')})` : ''}`,
    );
    return null;
  }
  const list = Array.isArray(entry.replicas) ? (entry.replicas as unknown[]) : entry.replica ? [entry.replica] : [];
  const replicas = list.map(describeReplica).filter((replica): replica is string => replica !== null);
  if (replicas.length === 0 || replicas.length !== list.length)
    problems.push(
      `${where} names no usable replica for ${wanted}: give it \`replicas:\` with a \`url\`, or a \`type\` (s3, sftp, file …) and its \`bucket\`/\`host\`/\`path\``,
    );
  if (metricsUrl === null || replicas.length === 0 || replicas.length !== list.length) return null;
  return { configPath, metricsUrl, databasePath: wanted, replicas, maxLagMs };
}
