import type { ApprovalDecision, Composed } from './templates.js';
import { addressConfirmationMail, approvalMail, emailChangeMail, invitationMail, resetMail, runawayMail } from './templates.js';
import type { Recipient } from './templates.js';

/**
 * The pages each mailed link opens, under SETTINGS_PATH (src/web/auth serves them): a setup or
 * invitation link, a password reset, an email change's confirmation, a runaway timer's Stop.
 */
export const MAIL_LINKS = { setup: 'setup', reset: 'reset', confirmEmail: 'confirm-email', stop: 'stop' } as const;

type Composer = (
  kind: string,
  to: Recipient,
  message: Composed,
  owner: { workspaceId: string | null; userId: string | null; expiresAt: number | null },
) => string;

/**
 * The messages other modules cause, each from its template (part of the mail service): each
 * queued inside the caller's write; each returns the message's id.
 */
export function templatedMail(composed: Composer, linkTo: (path: string, secret: string) => string) {
  return {
    /** "Add member": the setup or invitation link, alike (decisions §8a). Returns the message's id. */
    invitation: (
      to: Recipient,
      input: { workspaceId: string; userId: string | null; workspaceName: string; inviterName: string; secret: string; expiresAt: number },
    ): string =>
      composed('invitation', to, invitationMail(to, { ...input, link: linkTo(MAIL_LINKS.setup, input.secret) }), {
        workspaceId: input.workspaceId,
        userId: input.userId,
        expiresAt: input.expiresAt,
      }),

    /** "Forgot your password?": a reset link, valid an hour. */
    passwordReset: (to: Recipient, input: { userId: string; secret: string; expiresAt: number }): string =>
      composed('password-reset', to, resetMail(to, { link: linkTo(MAIL_LINKS.reset, input.secret), expiresAt: input.expiresAt }), {
        workspaceId: null,
        userId: input.userId,
        expiresAt: input.expiresAt,
      }),

    /**
     * An account in no workspace whose address nobody proved tried to sign in (issue 54, N1): a
     * reset link, worded as the confirmation of the address it is, valid an hour.
     */
    addressConfirmation: (to: Recipient, input: { userId: string; secret: string; expiresAt: number }): string =>
      composed(
        'address-confirmation',
        to,
        addressConfirmationMail(to, { link: linkTo(MAIL_LINKS.reset, input.secret), expiresAt: input.expiresAt }),
        { workspaceId: null, userId: input.userId, expiresAt: input.expiresAt },
      ),

    /** A new sign-in email's confirmation, sent to the new address. */
    emailChange: (to: Recipient, input: { userId: string; secret: string; expiresAt: number }): string =>
      composed(
        'email-change',
        to,
        emailChangeMail(to, { link: linkTo(MAIL_LINKS.confirmEmail, input.secret), expiresAt: input.expiresAt }),
        { workspaceId: null, userId: input.userId, expiresAt: input.expiresAt },
      ),

    /** A timer past its workspace's runaway limit: a reminder with its Stop link, or the news that it was stopped. */
    runawayReminder: (
      to: Recipient,
      input: {
        workspaceId: string;
        userId: string;
        workspaceName: string;
        description: string;
        startAt: number;
        limitSec: number;
        stoppedAt: number | null;
        secret: string | null;
      },
    ): string =>
      composed(
        'runaway-reminder',
        to,
        runawayMail(to, { ...input, link: input.secret === null ? null : linkTo(MAIL_LINKS.stop, input.secret) }),
        { workspaceId: input.workspaceId, userId: input.userId, expiresAt: null },
      ),

    /** A decision on a member's period (approved, rejected, reopened), to that member. */
    approvalDecision: (to: Recipient, input: ApprovalDecision & { workspaceId: string; userId: string }): string =>
      composed('approval-decision', to, approvalMail(to, input), {
        workspaceId: input.workspaceId,
        userId: input.userId,
        expiresAt: null,
      }),
  };
}
