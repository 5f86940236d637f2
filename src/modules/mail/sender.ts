import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { errorFields, type Logger } from '../../logger.js';
import type { Mailbox } from './address.js';
import { MAX_ATTEMPTS, type MailError, type Outcome, RETRY_DELAYS_MS, UNREACHABLE } from './outcome.js';
import type { MailRepository, MailRow } from './repository.js';
import { type Content, unseal } from './seal.js';
import { CONNECT_TIMEOUT_MS, type Relay, SOCKET_TIMEOUT_MS } from './transport.js';
import { gaveUpDetail, OUR_DETAILS } from './views.js';
import { coalescing } from '../../kernel/coalesce.js';

/** A lease covers the attempts of one batch; an attempt starts only with this much of its lease left. */
const LEASE_MS = 5 * 60_000;
const ATTEMPT_BUDGET_MS = CONNECT_TIMEOUT_MS * 2 + SOCKET_TIMEOUT_MS * 4;
const BATCH = 10;

/** The relay's last failure to be reached at all (null once it answers again). */
export interface RelayFailure {
  error: MailError;
  detail: string;
  at: number;
}

/** What the sender and its attempts are made of. */
interface MailSenderParts {
  repo: MailRepository;
  write: Write<never>;
  clock: Clock;
  /** Null when mail is off: nothing is sent. */
  relay: Relay | null;
  from: Mailbox | null;
  key: Buffer;
  logger: Logger;
}

/**
 * One attempt at a leased message, its outcome written as soon as the relay answers: sent (its
 * content dropped), retried later with backoff (temporary), or given up with the reason kept.
 */
function createAttempt({
  repo,
  write,
  clock,
  relay,
  from,
  key,
  logger,
  relayState,
}: MailSenderParts & { relayState: { lastFailure: RelayFailure | null } }) {
  /** Writes an attempt's outcome (and what it says of the relay). */
  function record(row: MailRow, outcome: Outcome, startedAt: number): void {
    const attempts = row.attempts + 1;
    write(() => {
      const now = clock.now();
      const base = { id: row.id, now, attempts, sentAt: null as number | null };
      if (outcome.status === 'sent')
        repo.settle({
          ...base,
          status: 'sent',
          error: null,
          detail: outcome.response,
          nextAttemptAt: null,
          sentAt: now,
          clearContent: true,
        });
      else if (outcome.status === 'permanent' || attempts >= MAX_ATTEMPTS)
        repo.settle({
          ...base,
          status: 'failed',
          error: outcome.error,
          detail: outcome.status === 'permanent' ? outcome.detail : gaveUpDetail(attempts, outcome.detail),
          nextAttemptAt: null,
          clearContent: false,
        });
      else
        repo.settle({
          ...base,
          status: 'queued',
          error: outcome.error,
          detail: outcome.detail,
          nextAttemptAt: startedAt + (RETRY_DELAYS_MS[attempts - 1] as number),
          clearContent: false,
        });
    });
    if (outcome.status === 'sent' || outcome.status === 'permanent') relayState.lastFailure = null;
    else if (UNREACHABLE.has(outcome.error)) relayState.lastFailure = { error: outcome.error, detail: outcome.detail, at: clock.now() };
    const fields = { mailId: row.id, kind: row.kind, attempt: attempts };
    if (outcome.status === 'sent') logger.info('mail sent', { ...fields, response: outcome.response });
    else
      logger.warn(outcome.status === 'permanent' ? 'mail refused' : 'mail not sent yet', {
        ...fields,
        error: outcome.error,
        detail: outcome.detail,
      });
  }

  /** Gives a message up before it reached the relay: failed for good, and not counted as an attempt. */
  function giveUp(row: MailRow, error: MailError, detail: string, startedAt: number): Outcome {
    const outcome: Outcome = { status: 'permanent', error, detail };
    record({ ...row, attempts: row.attempts - 1 }, outcome, startedAt);
    return outcome;
  }

  /** One attempt at a leased message; its outcome, or null when it was not due any more. */
  async function attempt(id: string): Promise<Outcome | null> {
    const row = repo.byId(id);
    if (!row || row.nextAttemptAt === null) return null;
    const startedAt = clock.now();
    if (!relay || !from) return null;
    if (row.expiresAt !== null && row.expiresAt <= startedAt) {
      return giveUp(row, 'link_expired', OUR_DETAILS.linkExpired, startedAt);
    }
    let content: Content;
    try {
      content = unseal(key, row.id, row.sealed ?? '');
    } catch {
      return giveUp(row, 'unreadable', OUR_DETAILS.unreadable, startedAt);
    }
    const { fromName, replyTo, ...body } = content;
    const outcome = await relay({
      // The address is always MAIL_FROM's (the relay sends as it); a message may carry its own display name.
      from: fromName ? { address: from.address, name: fromName } : from,
      to: { address: row.recipient, name: row.recipientName },
      replyTo: replyTo ?? null,
      subject: row.subject,
      ...body,
      messageId: row.messageId,
      date: new Date(row.createdAt),
    });
    record(row, outcome, startedAt);
    return outcome;
  }

  return attempt;
}

/**
 * The outbox's sender, run by the scheduler's tick (and woken after a commit that queued mail):
 * it leases up to 10 due messages in one short write, sends them one at a time (no transaction
 * open meanwhile), and writes each outcome as soon as the relay answers, so a crash after the
 * relay accepted a message repeats at most that one (with its Message-ID). Leases left by a
 * crash are released at start.
 */
export function createMailSender({ repo, write, clock, relay, from, key, logger }: MailSenderParts) {
  const relayState: { lastFailure: RelayFailure | null } = { lastFailure: null };
  const attempt = createAttempt({ repo, write, clock, relay, from, key, logger, relayState });

  function claim(): { ids: string[]; until: number } {
    return write(() => {
      const now = clock.now();
      const until = now + LEASE_MS;
      return { ids: repo.due(now, BATCH).filter((id) => repo.lease(id, now, until)), until };
    });
  }

  async function runOnce(): Promise<void> {
    for (;;) {
      const { ids, until } = claim();
      if (ids.length === 0) return;
      let next = 0;
      try {
        for (; next < ids.length; next++) {
          if (clock.now() + ATTEMPT_BUDGET_MS >= until) break;
          try {
            await attempt(ids[next] as string);
          } catch (error) {
            logger.error('mail attempt failed unexpectedly', { mailId: ids[next], ...errorFields(error) });
          }
        }
      } finally {
        const left = ids.slice(next);
        if (left.length > 0) write(() => left.forEach((id) => repo.release(id)));
      }
      if (next < ids.length) return;
    }
  }

  const job = coalescing(runOnce);
  return {
    /** Sends every due message; overlapping calls share one run (and trigger one more after it). */
    tick: (): Promise<void> => (relay ? job.tick() : Promise.resolve()),
    /** One message now (`timetrack mail retry`): null when it is not due or another process holds it. */
    async sendNow(id: string): Promise<Outcome | null> {
      if (!relay) return null;
      const leased = write(() => {
        const now = clock.now();
        return repo.lease(id, now, now + LEASE_MS);
      });
      if (!leased) return null;
      try {
        return await attempt(id);
      } finally {
        write(() => repo.release(id));
      }
    },
    idle: job.idle,
    lastFailure: (): RelayFailure | null => relayState.lastFailure,
  };
}

export type MailSender = ReturnType<typeof createMailSender>;
