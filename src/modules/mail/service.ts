import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { newTimeId } from '../../ids.js';
import { subkey } from '../../kernel/keys.js';
import type { Logger } from '../../logger.js';
import type { Job } from '../../scheduler.js';
import { addressProblem, headerText } from './address.js';
import { mailErrors as errors } from './errors.js';
import { type MailError, type Outcome, UNREACHABLE } from './outcome.js';
import type { MailRepository } from './repository.js';
import { type Attachment, seal } from './seal.js';
import { createMailSender, type RelayFailure } from './sender.js';
import type { MailSettings } from './settings.js';
import { type Composed, type Recipient, renderHtml, renderText } from './templates.js';
import { createRelay, type Relay } from './transport.js';
import { testMessage } from './test-message.js';
import { mailLogOf } from './log.js';
import { OUR_DETAILS } from './views.js';
import { templatedMail } from './messages.js';
import { createMailBudget, MAIL_BUDGET_RETENTION_MS } from './budget.js';

export { MAIL_ERRORS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from './outcome.js';
/** Why an address cannot be given to the relay as one recipient (a refusal's words), or null when it can. */
export { addressProblem } from './address.js';
export type { Outcome as MailOutcome } from './outcome.js';
export type { Attachment } from './seal.js';
export type { MailSettings } from './settings.js';
export { parseMailSettings } from './settings.js';
export { isLanguage, MAIL_LANGUAGES, type Language } from './templates.js';
export { detailWords, errorWords, type MailView } from './views.js';

export { MAIL_LINKS } from './messages.js';
export { MAIL_BUDGETS, type MailBudgetKind, type MailCause } from './budget.js';

/** The log keeps 30 days of mail. */
export const MAIL_RETENTION_MS = 30 * 86_400_000;
/** The most an outgoing message may carry in attachments. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export type { Recipient } from './templates.js';

/** A message through the module's API: one recipient, both bodies, attachments; for a workspace's log or an account's. */
export interface Outgoing {
  kind: string;
  to: { address: string; name?: string | null };
  workspaceId: string | null;
  userId: string | null;
  subject: string;
  text: string;
  html: string;
  attachments?: Attachment[];
  /** When the link it carries stops working (it is given up if not sent by then). */
  expiresAt?: number | null;
  /** The From display name (an invoice's issuer) instead of MAIL_FROM's; the From address stays MAIL_FROM's. */
  fromName?: string | null;
  /** Reply-To: where the recipient's reply goes (an invoice's issuer's email). */
  replyTo?: { address: string; name?: string | null } | null;
}

/** The mail check of GET /readyz: degraded while the relay cannot be reached and mail waits. */
export type MailHealth = 'ok' | 'degraded';

type Delivery = { status: 'queued' | 'sent' | 'failed' | 'cancelled'; sentAt: number | null };

function deliveryOf(repo: MailRepository, id: string): Delivery | null {
  const row = repo.byId(id);
  return row ? { status: row.status, sentAt: row.sentAt } : null;
}

/**
 * Outgoing mail: a durable outbox (a message row written inside the transaction of the change
 * that causes it, its content sealed), sent by the scheduler's tick through the SMTP relay
 * (nodemailer), retried with backoff on temporary failures, given up on permanent ones with the
 * reason kept. The messages other modules cause are composed here, from one template each, as
 * plain text and HTML, in the recipient's language.
 */
export function createMailService({
  repo,
  write,
  clock,
  secretKey,
  settings,
  links,
  logger,
  relay: relayOverride,
  afterEnqueue,
}: {
  repo: MailRepository;
  write: Write<never>;
  clock: Clock;
  secretKey: Buffer;
  /** SMTP_URL, MAIL_FROM, SMTP_CA_FILE; null when mail is off. */
  settings: MailSettings | null;
  /** The settings page's address (links are built under it), or null when the pages are off. */
  links: () => string | null;
  logger: Logger;
  /** Tests of the sender alone. */
  relay?: Relay;
  /** After a write that queued mail: the server wakes its sender once the commit is durable. */
  afterEnqueue?: () => void;
}) {
  const key = subkey(secretKey, 'mail-bodies');
  const relay = settings ? (relayOverride ?? createRelay(settings)) : null;
  const sender = createMailSender({ repo, write, clock, relay, from: settings?.from ?? null, key, logger });
  const budget = createMailBudget({ repo, clock });
  const domain = settings ? (settings.from.address.split('@')[1] as string) : 'localhost';

  const linkTo = (path: string, secret: string): string => `${links() ?? ''}/${path}/${secret}`;
  // Ids are ordered by time: final messages made before this prefix are older than the retention.
  const purge = (): number => write(() => repo.purge(newTimeId('mail', clock.now() - MAIL_RETENTION_MS).slice(0, 13)));

  /** Inside the caller's write (or a write of its own): the row, its content sealed. */
  function enqueue(input: Outgoing): string {
    const address = input.to.address.trim();
    const problem = addressProblem(address);
    if (problem) throw errors.undeliverable(address, problem);
    const attachments = input.attachments ?? [];
    checkAttachments(attachments);
    const { fromName, replyTo } = headersOf(input);
    const now = clock.now();
    const id = newTimeId('mail', now);
    write(() =>
      repo.insert({
        id,
        workspaceId: input.workspaceId,
        userId: input.userId,
        kind: input.kind,
        recipient: address,
        recipientName: input.to.name ? headerText(input.to.name) || null : null,
        subject: headerText(input.subject, 250) || '(no subject)',
        messageId: `<${id}@${domain}>`,
        sealed: seal(key, id, {
          text: input.text,
          html: input.html,
          attachments,
          fromName,
          replyTo,
        }),
        status: 'queued',
        attempts: 0,
        nextAttemptAt: now,
        expiresAt: input.expiresAt ?? null,
        createdAt: now,
        updatedAt: now,
      }),
    );
    afterEnqueue?.();
    return id;
  }

  /** A composed template as a message for one recipient. */
  const composed = (
    kind: string,
    to: Recipient,
    message: Composed,
    owner: { workspaceId: string | null; userId: string | null; expiresAt: number | null },
  ): string =>
    enqueue({
      kind,
      to: { address: to.address, name: to.name },
      ...owner,
      subject: message.subject,
      text: renderText(message),
      html: renderHtml(message, to.language),
    });

  return {
    /** Whether mail is set up (SMTP_URL and MAIL_FROM, and the pages its links open). */
    enabled: (): boolean => settings !== null && links() !== null,
    /** The relay as pages and logs name it (never its credentials), or null when mail is off. */
    relay: settings?.relay ?? null,
    /** Whether an address can be given to the relay as one recipient. */
    deliverable: (address: string): boolean => addressProblem(address.trim()) === null,

    /** A message through the module's API (attachments included), inside the caller's write. */
    message: enqueue,
    /** The address mail leaves from (MAIL_FROM's), or null when mail is off. */
    senderAddress: (): string | null => settings?.from.address ?? null,
    /** Where a message stands (its status, when it was sent), or null when the log no longer holds it. */
    delivery: (id: string): Delivery | null => deliveryOf(repo, id),

    ...templatedMail(composed, linkTo),

    ...budget,

    ...mailLogOf({ repo, write, clock, afterEnqueue, spend: budget.spend }),

    /** Sends one message now (the command line after a retry): what the relay answered, or null when another process holds it. */
    sendNow: (id: string): Promise<Outcome | null> => sender.sendNow(id),

    /** `timetrack mail test ADDRESS`: a test message now, not queued; what the relay answered. */
    test: testMessage({ settings, relay, clock, domain, logger }),

    /** Sends what is due (the scheduler's job; the server also wakes it after a commit that queued mail). */
    deliver: (): Promise<void> => sender.tick(),
    /** Resolves when the sender's run in progress ends. */
    idle: (): Promise<void> => sender.idle(),
    /** Leases a previous process left (kill -9 mid-send): those messages are due again at once. */
    recover: (): number => write(() => repo.recover()),
    /** Messages waiting to be sent. */
    queued: (): number => repo.queuedCount(),
    /** The relay's last failure to be reached (null once it answers). */
    relayFailure: (): RelayFailure | null => sender.lastFailure(),
    /** GET /readyz's mail check (null when mail is off). */
    health(): MailHealth | null {
      if (!settings) return null;
      const failure = sender.lastFailure();
      return failure !== null && UNREACHABLE.has(failure.error as MailError) && repo.queuedCount() > 0 ? 'degraded' : 'ok';
    },
    /** An account was deleted (inside the accounts write): its waiting mail is cancelled. */
    cancelOfUser: (userId: string): void => {
      repo.cancelOfUser(userId, clock.now(), OUR_DETAILS.accountDeleted);
    },
    /** Deletes final messages older than 30 days. */
    purge,

    /** The module's periodic jobs: sending (not awaited: a slow relay holds up no other job), and the log's retention. */
    jobs: [
      { name: 'mail', every: 'tick', run: () => void sender.tick() },
      {
        name: 'mail retention',
        every: 'hour',
        run: () =>
          write(
            () =>
              repo.purge(newTimeId('mail', clock.now() - MAIL_RETENTION_MS).slice(0, 13)) +
              repo.purgeBudgetUses(clock.now() - MAIL_BUDGET_RETENTION_MS),
          ),
      },
    ] satisfies Job[],
  };
}

/** A message's own From display name and Reply-To, as one header line each; a Reply-To address that cannot take mail is refused. */
function headersOf(input: Outgoing): { fromName: string | null; replyTo: { address: string; name: string | null } | null } {
  const fromName = input.fromName ? headerText(input.fromName) || null : null;
  if (!input.replyTo) return { fromName, replyTo: null };
  const address = input.replyTo.address.trim();
  const problem = addressProblem(address);
  if (problem) throw errors.undeliverable(address, problem);
  return { fromName, replyTo: { address, name: input.replyTo.name ? headerText(input.replyTo.name) || null : null } };
}

/** Attachments: a plain file name, a media type, at most 10 MiB together. */
function checkAttachments(attachments: Attachment[]): void {
  let total = 0;
  for (const a of attachments) {
    if (a.name.trim() === '' || a.name.length > 200 || /[\p{Cc}/\\]/u.test(a.name))
      throw errors.badAttachment(`its name must be a plain file name of 1 to 200 characters (got ${JSON.stringify(a.name)})`);
    if (!/^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/i.test(a.type))
      throw errors.badAttachment(`its type must be a media type such as application/pdf (got ${JSON.stringify(a.type)})`);
    total += a.bytes.length;
  }
  if (total > MAX_ATTACHMENT_BYTES) throw errors.badAttachment(`together they may be at most ${MAX_ATTACHMENT_BYTES} bytes`);
}

export type MailService = ReturnType<typeof createMailService>;
