import { DomainError, notFound } from '../../errors.js';

/** The refusals of the accounts module, worded once. */
export const accountErrors = {
  workspaceNotFound: (id: string) => notFound(`Workspace ${id}`),
  userNotFound: (id: string) => notFound(`User ${id}`),
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  emailTaken: (email: string, holder?: string) =>
    new DomainError('conflict', `A user with the email ${email} exists already${holder ? ` (${holder})` : ''}.`),
  alreadyMember: (workspaceId: string, userId: string) =>
    new DomainError('conflict', `User ${userId} is a member of workspace ${workspaceId} already.`),
  alreadyMemberNamed: (name: string, email: string) =>
    new DomainError('conflict', `${name} (${email}) is a member of this workspace already; change their access in the list instead.`),
  lastOwner: (workspaceId: string) =>
    new DomainError('conflict', `Workspace ${workspaceId} would have no owner left; make another member an owner first.`),
  ownersOnly: () => new DomainError('forbidden', "Only the workspace's owners can do this. Ask one of them."),
  operatorOnly: (what: string) =>
    new DomainError('forbidden', `Only the person who runs the server can ${what}, with the command line (timetrack).`),
};
