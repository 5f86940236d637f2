import type { Clock } from '../../clock.js';
import type { Write } from '../../db/write.js';
import { isOperator, type Principal } from '../../principal.js';
import { mailErrors as errors } from './errors.js';
import type { MailCause } from './budget.js';
import type { MailRepository } from './repository.js';
import { type MailView, mailView } from './views.js';

/** The log of sent mail (part of the mail service): who reads it, paging, and retrying a message given up. */
export function mailLogOf({
  repo,
  write,
  clock,
  afterEnqueue,
  spend,
}: {
  repo: MailRepository;
  write: Write<never>;
  clock: Clock;
  afterEnqueue?: (() => void) | undefined;
  /** The budget of the mail a person causes (./budget.ts): a message sent again is mail they cause. */
  spend: (cause: MailCause) => void;
}) {
  /** Who may read a workspace's mail log: its owners, and the operator (every log). */
  const mayRead = (principal: Principal, workspaceId: string | null): void => {
    if (isOperator(principal)) return;
    if (workspaceId === null || !principal.isOwner || principal.workspaceId !== workspaceId) throw errors.ownersOnly();
  };

  return {
    /** A workspace's mail (its owners), or every message (the operator, `workspaceId` null), newest first, paged by id. */
    log(
      principal: Principal,
      input: { workspaceId: string | null; before?: string | null; limit?: number },
    ): { messages: MailView[]; next: string | null } {
      mayRead(principal, input.workspaceId);
      const limit = Math.min(Math.max(input.limit ?? 25, 1), 500);
      const rows = repo.log(input.workspaceId, input.before ?? null, limit + 1);
      const page = rows.slice(0, limit);
      return { messages: page.map(mailView), next: rows.length > limit ? (page[page.length - 1]?.id ?? null) : null };
    },

    /** A message that was given up is queued again (its owners, or the operator); the sender takes it at once. */
    retry(principal: Principal, id: string): { id: string } {
      const row = repo.byId(id);
      if (!row) throw errors.notFound(id);
      if (!isOperator(principal) && (row.workspaceId === null || principal.workspaceId !== row.workspaceId)) throw errors.notFound(id);
      mayRead(principal, row.workspaceId);
      if (row.status !== 'failed') throw errors.notRetryable(row.status);
      if (row.sealed === null) throw errors.contentGone();
      write(() => {
        // Sent again by an owner: counted against their budget and the workspace's (issue 44, M5).
        if (!isOperator(principal))
          spend({
            kind: row.kind === 'invoice' || row.kind === 'invoice-reminder' ? 'invoice' : 'invitation',
            userId: principal.userId,
            workspaceId: row.workspaceId,
          });
        if (!repo.requeue(id, clock.now())) throw errors.notRetryable('queued');
      });
      afterEnqueue?.();
      return { id };
    },
  };
}
