import { DomainError, notFound } from '../../errors.js';
import { words } from '../../i18n/index.js';

export { HashingBusy } from './password.js';

/** The refusals of the sessions module, worded once. */
export const sessionErrors = {
  memberNotFound: (workspaceId: string, userId: string) => notFound(`Member ${userId} of workspace ${workspaceId}`),
  userNotFound: (userId: string) => notFound(`User ${userId}`),
  workspaceNotFound: (workspaceId: string) => notFound(`Workspace ${workspaceId}`),
  ownersOnly: () =>
    new DomainError('forbidden', "Only the workspace's owners make setup links for its members.", {
      words: words('accounts.refused.setupOwnersOnly'),
    }),
  hasPassword: (name: string) =>
    new DomainError(
      'forbidden',
      `${name} has set a password already, so a setup link would replace it: ${name} signs in with it, or, if it is lost, the person who runs the server sets a new one (timetrack user password).`,
      {
        words: words('accounts.refused.hasPassword', { name }),
      },
    ),
  memberElsewhere: (name: string) =>
    new DomainError(
      'forbidden',
      `${name} is also a member of a workspace you do not own, and a setup link would open that one too: the person who runs the server makes this link (timetrack user invite).`,
      {
        words: words('accounts.refused.memberElsewhere', { name }),
      },
    ),
  addressProved: (name: string) =>
    new DomainError(
      'forbidden',
      `${name}'s address is confirmed as theirs (a link mailed to it was opened, or the identity provider vouched for it), so a setup link shown to you would let you in as ${name}. With mail set up the link goes to their address; without it, the person who runs the server makes one (timetrack user invite).`,
      { words: words('accounts.refused.addressProved', { name }) },
    ),
  passwordOff: () =>
    new DomainError(
      'forbidden',
      'This server signs people in with its identity provider only (OIDC_ONLY); passwords are for its break-glass owners, so this setup link sets none: it sends you to the provider.',
      {
        words: words('accounts.refused.passwordOff'),
      },
    ),
  setsPassword: () =>
    new DomainError('invalid', 'This setup link sets a password (a break-glass owner’s): choose one on its page.', {
      words: words('accounts.refused.setsPassword'),
    }),
  validHours: () => new DomainError('invalid', 'valid hours must be more than 0 and at most 720 (30 days).'),
};
