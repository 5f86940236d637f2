import type { Clock } from '../../clock.js';
import { BudgetSpent } from '../../errors.js';
import { budgetWaitMs, type BudgetWindow, durationWords, retryAfterSec } from '../../kernel/budget.js';
import type { MailRepository } from './repository.js';

/** The mail a person can cause, by what it is: a new address's confirmation, a setup link or invitation, an invoice, a password reset, a decision on a colleague's period. */
export type MailBudgetKind = 'verification' | 'invitation' | 'invoice' | 'reset' | 'approval' | 'reminder';

/** Who caused a message: the member or owner (null: the operator, whom no budget limits), and the workspace they act in (null: their own account's mail). */
export interface MailCause {
  kind: MailBudgetKind;
  userId: string | null;
  workspaceId: string | null;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The mail budgets (issue 44, M5: the server's mail was a relay for anyone signed in). Each
 * person has one per kind of mail they cause; each workspace one for all the mail caused in it.
 * Wide enough for a person at work (an owner adding a team, sending a month's invoices), far too
 * narrow for a relay. A reset's budget is its account's (whoever asks); the anonymous budgets of
 * "Forgot your password?" (per address typed and client address) are the sessions module's.
 */
export const MAIL_BUDGETS: { person: Record<Exclude<MailBudgetKind, 'reminder'>, BudgetWindow[]>; workspace: BudgetWindow[] } = {
  person: {
    verification: [
      { limit: 3, windowMs: HOUR },
      { limit: 10, windowMs: DAY },
    ],
    invitation: [
      { limit: 20, windowMs: 10 * MINUTE },
      { limit: 100, windowMs: DAY },
    ],
    invoice: [
      { limit: 10, windowMs: MINUTE },
      { limit: 200, windowMs: DAY },
    ],
    reset: [
      { limit: 3, windowMs: HOUR },
      { limit: 10, windowMs: DAY },
    ],
    // An approver deciding on a team's weeks: a 50-member team's Monday fits; past it the decisions stand, unmailed.
    approval: [
      { limit: 60, windowMs: 10 * MINUTE },
      { limit: 300, windowMs: DAY },
    ],
  },
  workspace: [
    { limit: 50, windowMs: 10 * MINUTE },
    { limit: 500, windowMs: DAY },
  ],
};

/** The longest window: older uses are purged. */
export const MAIL_BUDGET_RETENTION_MS = DAY;

const WHAT: Record<Exclude<MailBudgetKind, 'reminder'>, { noun: string; who: string }> = {
  verification: { noun: 'confirmation links for a new sign-in email', who: 'member' },
  invitation: { noun: 'setup links and invitations', who: 'owner' },
  invoice: { noun: 'invoices', who: 'owner' },
  reset: { noun: 'password reset links', who: 'account' },
  approval: { noun: 'decisions on periods', who: 'approver' },
};

/** The budgets of the mail a person causes (part of the mail service), counted inside the write that queues it. */
export function createMailBudget({ repo, clock }: { repo: MailRepository; clock: Clock }) {
  /** A workspace's budget, for all the mail caused in it. */
  const workspaceKey = (workspaceId: string) => ({
    key: `workspace:${workspaceId}`,
    windows: MAIL_BUDGETS.workspace,
    sentence: (n: number, window: string) =>
      `this workspace has had ${n} messages mailed in the last ${window}, the most one workspace may`,
  });
  /** The budgets a cause counts against: its person's for its kind, its workspace's. */
  const keysOf = (cause: MailCause): Array<{ key: string; windows: BudgetWindow[]; sentence: (n: number, window: string) => string }> => {
    // A payment reminder (issue 57) is the scheduler's: nobody asked for it, so it counts against its workspace's budget alone.
    if (cause.kind === 'reminder') return cause.workspaceId === null ? [] : [workspaceKey(cause.workspaceId)];
    if (cause.userId === null) return [];
    const what = WHAT[cause.kind];
    const keys = [
      {
        key: `person:${cause.kind}:${cause.userId}`,
        windows: MAIL_BUDGETS.person[cause.kind],
        sentence: (n: number, window: string) =>
          `${n} ${what.noun} were mailed at your request in the last ${window}, the most one ${what.who} may ask for`,
      },
    ];
    if (cause.workspaceId !== null) keys.push(workspaceKey(cause.workspaceId));
    return keys;
  };

  /** The refusal of a cause whose budget is spent now, or null. */
  const refusal = (cause: MailCause): BudgetSpent | null => {
    const now = clock.now();
    let worst: { waitMs: number; text: string } | null = null;
    for (const { key, windows, sentence } of keysOf(cause))
      for (const window of windows) {
        const waitMs = budgetWaitMs(repo.budgetUses(key, now - window.windowMs, window.limit), window, now);
        if (waitMs > 0 && (worst === null || waitMs > worst.waitMs))
          worst = { waitMs, text: sentence(window.limit, durationWords(window.windowMs).replace(/^an? /, '')) };
      }
    if (worst === null) return null;
    return new BudgetSpent(`Not sent: ${worst.text}. Try again in ${durationWords(worst.waitMs)}.`, retryAfterSec(worst.waitMs));
  };

  return {
    /** Refuses (BudgetSpent, 429) a message whose cause's budget is spent, without counting it: asked before a write that would mail. */
    checkBudget(cause: MailCause): void {
      const refused = refusal(cause);
      if (refused) throw refused;
    },
    /** Inside the write that queues the message: refuses it (BudgetSpent, the write undone) or counts it against every budget of its cause. */
    spend(cause: MailCause): void {
      const refused = refusal(cause);
      if (refused) throw refused;
      const now = clock.now();
      for (const { key } of keysOf(cause)) repo.insertBudgetUse(key, now);
    },
    /** As `spend`, but a spent budget only says false (a reset is answered alike either way). */
    trySpend(cause: MailCause): boolean {
      if (refusal(cause)) return false;
      const now = clock.now();
      for (const { key } of keysOf(cause)) repo.insertBudgetUse(key, now);
      return true;
    },
  };
}
