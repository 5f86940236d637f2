import type { AccountsService } from '../accounts/service.js';

/** What the sessions module reads and writes of the accounts module (passwords live on the account). */
export type SessionAccounts = Pick<
  AccountsService,
  | 'membership'
  | 'memberships'
  | 'credentials'
  | 'hasPassword'
  | 'storePasswordHash'
  | 'memberBeyond'
  | 'setUser'
  | 'checkProfile'
  | 'setWorkspace'
  | 'passwordHashOf'
  | 'setProfile'
  | 'storeEmail'
  | 'checkEmailFree'
  | 'userOf'
  | 'emailProved'
  | 'proveAddress'
  | 'passwordSetAfter'
  | 'invitationsOfAccount'
  | 'acceptInvitationOfAccount'
  | 'checkInvitationOfAccount'
  | 'invitedAccount'
  | 'acceptInvitationByLink'
>;

/**
 * What the sessions module has mailed (the mail module's, wired in src/services.ts): each runs
 * inside the write that made the link, and says whether it queued a message.
 */
export interface SessionMail {
  /** Mail is set up (SMTP_URL, MAIL_FROM): links go by mail, and an email change waits for its confirmation. */
  enabled(): boolean;
  /** An owner's setup link for a member without a password (the Members page's "Add member" and "Setup link"). */
  setupLink(input: { workspaceId: string; userId: string; invitedBy: string; secret: string; expiresAt: number }): boolean;
  passwordReset(input: { userId: string; secret: string; expiresAt: number }): boolean;
  /**
   * The link that confirms the address of an account in no workspace whose address nobody
   * proved (issue 54, N1): a reset link, worded as the confirmation it is.
   */
  addressConfirmation(input: { userId: string; secret: string; expiresAt: number }): boolean;
  /** To the new address; `workspaceId`: where the member asked (its mail budget, issue 44 M5). */
  emailChange(input: { userId: string; workspaceId: string | null; email: string; secret: string; expiresAt: number }): boolean;
}

/** Mail is off: nothing is mailed (the command line, the tests of the services alone). */
export const NO_SESSION_MAIL: SessionMail = {
  enabled: () => false,
  setupLink: () => false,
  passwordReset: () => false,
  addressConfirmation: () => false,
  emailChange: () => false,
};
