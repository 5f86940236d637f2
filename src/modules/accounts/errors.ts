import { DomainError, notFound } from '../../errors.js';
import { type Key, type Vars, words } from '../../i18n/index.js';

/** A refusal's words for pages, by key (said in the reader's language); the API and the command line keep the English message. */
export const said = (key: Key, vars?: Vars) => ({ words: words(key, vars) });

/** The refusals of the accounts module, worded once. */
export const accountErrors = {
  workspaceNotFound: (id: string) => notFound(`Workspace ${id}`),
  userNotFound: (id: string) => notFound(`User ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  /** To a member: says nothing of who holds the address (decisions §8a). */
  emailNotUsable: () =>
    new DomainError('conflict', 'email: this address cannot be your sign-in here. Choose another one.', {
      field: 'email',
      ...said('accounts.refused.emailNotUsable'),
    }),
  emailNeedsPassword: () =>
    new DomainError('invalid', 'current password: your current password is needed to change your sign-in email.', {
      field: 'current',
      ...said('accounts.refused.emailNeedsPassword'),
    }),
  invitationGone: () => {
    // Written for the person holding the link: the page says it, not the kit's plain "not here".
    const words =
      'This invitation no longer works: it was used, withdrawn, replaced by a newer one, or has expired. Ask the owner who sent it for a new one.';
    return new DomainError('not_found', words, said('accounts.refused.invitationGone'));
  },
  invitationForAnother: () =>
    new DomainError(
      'forbidden',
      'This invitation is for another account. Sign out, open the link again, and sign in with the account of the address it was sent to.',
      said('accounts.refused.invitationForAnother'),
    ),
  emailTaken: (email: string, holder?: string) =>
    new DomainError('conflict', `A user with the email ${email} exists already${holder ? ` (${holder})` : ''}.`, {
      field: 'email',
      ...said('accounts.refused.emailTaken', { email }),
    }),
  alreadyMember: (workspaceId: string, userId: string) =>
    new DomainError('conflict', `User ${userId} is a member of workspace ${workspaceId} already.`, said('accounts.refused.alreadyMember')),
  alreadyMemberNamed: (name: string, email: string) =>
    new DomainError(
      'conflict',
      `${name} (${email}) is a member of this workspace already; change their access in the list instead.`,
      said('accounts.refused.alreadyMemberNamed', { name, email }),
    ),
  lastOwner: (workspaceId: string) =>
    new DomainError(
      'conflict',
      `Workspace ${workspaceId} would have no owner left; make another member an owner first.`,
      said('accounts.refused.lastOwner'),
    ),
  ownersOnly: () =>
    new DomainError('forbidden', "Only the workspace's owners can do this. Ask one of them.", said('accounts.refused.ownersOnly')),
  operatorOnly: (what: string) =>
    new DomainError(
      'forbidden',
      `Only the person who runs the server can ${what}, with the command line (timetrack).`,
      said('accounts.refused.operatorOnly'),
    ),
};
