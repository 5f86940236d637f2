import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseProbe } from './db/probe.js';
import type { Logger } from './logger.js';
import { PACKAGE_ROOT } from './paths.js';
import type { ReplicationState } from './replication.js';

export type CheckState = 'ok' | 'failing' | 'unknown';
/** The mail check never fails readiness: a relay that cannot be reached keeps mail queued, nothing is lost. */
export type MailState = 'ok' | 'degraded';

export interface Readiness {
  ready: boolean;
  /** SIGTERM came: the server drains and answers 503 whatever the checks say. */
  stopping: boolean;
  /** `replication` only when LITESTREAM_CONFIG is set; `mail` only when SMTP_URL is. */
  checks: { database: CheckState; migrations: CheckState; webhookSender: CheckState; replication?: CheckState; mail?: MailState };
}

/** When each migration this version ships was generated (drizzle's journal), read once at start. */
export function shippedMigrations(): number[] {
  const path = join(PACKAGE_ROOT, 'drizzle', 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(path, 'utf8')) as { entries: Array<{ when: number }> };
  return journal.entries.map((entry) => entry.when);
}

/**
 * The readiness checks of GET /readyz: the database answers a query, every shipped migration is
 * applied (as drizzle's migrator decides it: the newest applied one in __drizzle_migrations is at
 * least as new as each), the webhook sender's thread has not ended unasked, and, when replication
 * is configured, Litestream runs and keeps up (src/replication.ts). After SIGTERM the answer is
 * 503 whatever they say, so a load balancer stops sending while the server drains. The cause of
 * a failure is logged when the result changes (a monitor polls this), never answered.
 */
export function createReadiness(deps: {
  database: DatabaseProbe;
  webhookSenderAlive: () => boolean;
  logger: Logger;
  replication?: (() => ReplicationState) | undefined;
  stopping?: () => boolean;
  /** The mail check (null when mail is off). */
  mail?: () => MailState | null;
}) {
  const shipped = shippedMigrations();
  let last = 'ok';
  return (): Readiness => {
    const causes: Record<string, string> = {};
    const check = <T>(name: string, probe: () => T): T | undefined => {
      try {
        return probe();
      } catch (error) {
        causes[name] = error instanceof Error ? error.message : String(error);
        return undefined;
      }
    };
    const database = check('database', () => deps.database.answers());
    const newest = database === undefined ? undefined : check('migrations', () => deps.database.newestMigration());
    const applied = newest === undefined ? 0 : shipped.filter((when) => when <= newest).length;
    if (newest !== undefined && applied < shipped.length) causes.migrations = `${applied} of the ${shipped.length} migrations are applied`;
    const webhookSender = deps.webhookSenderAlive();
    if (!webhookSender) causes.webhookSender = 'the webhook sender thread ended; deliveries are sent from the request thread';
    const checks: Readiness['checks'] = {
      database: database === undefined ? 'failing' : 'ok',
      migrations: database === undefined ? 'unknown' : causes.migrations ? 'failing' : 'ok',
      webhookSender: webhookSender ? 'ok' : 'failing',
    };
    if (deps.replication) {
      const replication = deps.replication();
      if (replication.cause !== null) causes.replication = replication.cause;
      checks.replication = replication.ok ? 'ok' : 'failing';
    }
    // Degraded mail is reported and logged, but the server stays ready: the outbox keeps the messages.
    const mail = deps.mail?.() ?? null;
    if (mail === 'degraded') causes.mail = 'the SMTP relay cannot be reached; mail waits in the outbox';
    const stopping = deps.stopping?.() ?? false;
    if (stopping) causes.stopping = 'the server is stopping (SIGTERM): it drains its requests';
    const ready = !stopping && Object.values(checks).every((state) => state === 'ok');
    if (mail !== null) checks.mail = mail;
    const now = ready && mail !== 'degraded' ? 'ok' : JSON.stringify(causes);
    if (now !== last) {
      if (now === 'ok') deps.logger.info('ready again');
      else if (ready) deps.logger.warn('ready, but degraded', { checks, causes });
      else deps.logger.warn('not ready', { checks, causes });
      last = now;
    }
    return { ready, stopping, checks };
  };
}

export type ReadinessCheck = ReturnType<typeof createReadiness>;
